#!/usr/bin/env bash
# The main job: open the bundled, generated LLM-decode sample in the GUI; without a display, print its summary.
# Usage: packaging/run-sample.sh [BUILD_DIR]   (default: build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
sample="$build/samples/llm_decode_sample.sqlite"
config="$build/samples/llm_decode_sample.config.json"   # its model, so the Roofline pane has something to show
{ [ -f "$sample" ] && [ -f "$config" ]; } || cmake --build "$build" --target sample_trace
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$build/app/sightline" ]; then
  exec "$build/app/sightline" "$sample" "$config"
fi
echo "No display: printing the sample's summary and analysis with sightline-cli." >&2
"$build/app/sightline-cli" summary "$sample"
exec "$build/app/sightline-cli" analyze "$sample" --model "$config" --prompt 512   # the sample's prefill is 512 tokens
