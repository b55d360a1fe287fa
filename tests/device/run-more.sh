#!/bin/bash
# The second set of real samples (tests/device/README.md), for the misreadings the first set could not show:
#   decode-sync  eager decode with Hugging Face generate's per-step stopping check (.item(): a host sync per step)
#   moe-decode   a Mixtral-shaped MoE decode, HF's eager sparse block (router top-k in every layer, a torch.where
#                per expert: many host syncs per step)
#   train        training steps of the dense model (forward, cross-entropy, backward, AdamW)
# Usage, from the repository root on the device machine: tests/device/run-more.sh OUTDIR [CLI]
source "$(dirname "$0")/common.sh" log-more.txt "$@"
step environment
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__)'; } >>"$log" 2>&1
step record
python3 "$here/record_samples.py" --out "$work" --mode decode-sync --mode moe-decode --mode train "${extra[@]}" \
    >>"$log" 2>&1 || echo "record_samples failed: $?" >>"$log"
cp "$work"/*.pt.trace.json.gz "$work"/config-moe.json "$out/" 2>>"$log"
step timing without a profiler
python3 "$here/record_samples.py" --out "$work/np" --mode decode-sync --mode moe-decode --no-profile \
    --decode-steps 100 "${extra[@]}" >>"$log" 2>&1
step analyze
"$cli" analyze "$work/decode-sync.pt.trace.json.gz" --model "$work/config.json" --batch 8 --context 512 >>"$log" 2>&1
"$cli" analyze "$work/moe-decode.pt.trace.json.gz" --model "$work/config-moe.json" --batch 8 --context 512 >>"$log" 2>&1
"$cli" analyze "$work/train.pt.trace.json.gz" >>"$log" 2>&1
step done
ls -l "$out" >>"$log"
