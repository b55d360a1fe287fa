#!/bin/bash
# Runs on a GPU machine lent through the `device` tool, from the repository root (see tests/device/README.md):
#   tests/device/run.sh OUTDIR [CLI]
# 1. records the project's own real samples: torch.profiler traces of a small Llama-shaped model in prefill, eager
#    decode and CUDA-graph decode (tests/device/record_samples.py), and times both decode modes without a profiler;
# 2. runs Sightline's loop on the eager decode trace for real: analyze, then `deep-dive`, which runs ncu on exactly
#    the focus set's kernels of the same workload, joins the counters and re-runs the rules;
# 3. exports ncu's details page of the same report as CSV (the form users usually have).
# Every step writes what it has to OUTDIR at once, so a later failure keeps the earlier files.
source "$(dirname "$0")/common.sh" log.txt "$@"

step environment
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,memory.total --format=csv
  ncu --version | tail -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'
  nproc; } >>"$log" 2>&1

step record traces
python3 "$here/record_samples.py" --out "$work" "${extra[@]}" >>"$log" 2>&1 || echo "record_samples failed: $?" >>"$log"
cp "$work"/*.pt.trace.json.gz "$work/config.json" "$out/" 2>>"$log"

step timing without a profiler
python3 "$here/record_samples.py" --mode decode-eager --mode decode-graph --no-profile --decode-steps 200 \
    --out "$work/np" "${extra[@]}" >>"$log" 2>&1
python3 "$here/record_samples.py" --mode prefill --no-profile --prefill-steps 20 --out "$work/np" "${extra[@]}" >>"$log" 2>&1

model=(--model "$work/config.json" --batch 8 --context 512)
step analyze
for t in prefill decode-eager decode-graph; do
    [ -f "$work/$t.pt.trace.json.gz" ] || continue
    args=("${model[@]}"); [ "$t" = prefill ] && args=(--model "$work/config.json" --batch 1 --prompt 2048)
    "$cli" analyze "$work/$t.pt.trace.json.gz" "${args[@]}" >>"$log" 2>&1
done

step deep-dive
dd() {
    "$cli" deep-dive "$work/decode-eager.pt.trace.json.gz" "${model[@]}" --out "$work/dd" --timeout 240 "$@" \
        -- python3 "$here/record_samples.py" --mode decode-eager --no-profile --decode-steps 64 --out "$work/np" "${extra[@]}" \
        >>"$log" 2>&1
}
dd || { step "deep-dive again, without ncu's clock control"; dd --ncu-args "--clock-control none"; }
if [ -f "$work/dd/deep_dive.ncu-rep" ]; then
    cp "$work/dd/deep_dive.csv" "$out/ncu_focus_raw.csv" 2>>"$log"
    ncu --import "$work/dd/deep_dive.ncu-rep" --csv --page details >"$out/ncu_focus_details.csv" 2>>"$log"
fi
tar czf "$out/deep_dive.tar.gz" -C "$work" dd 2>>"$log"
step done
ls -l "$out" >>"$log"
