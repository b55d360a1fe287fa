#!/usr/bin/env bash
# The documentation's screenshot of the workbench, made under Xvfb from a real trace so the picture shows what a
# user sees: the H100 Qwen1.5-0.5B Kineto trace (TraceLens's sample in ../shared/data) in the first view — the
# timeline, the verdict in Overview, the ranked Findings — with a GEMM selected so Details has something to say.
# Writes docs/images/workbench.png; look at it before committing it (SIZE=WxH and KERNEL=row change the view).
#   packaging/make-doc-screenshots.sh [BUILD_DIR=build/dev] [OUT_DIR=docs/images]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
out="${2:-docs/images}"
data="${SIGHTLINE_SHARED_DATA:-../shared/data}"
gui="$build/app/sightline"
trace="$data/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz"
[ -x "$gui" ] || { echo "make-doc-screenshots.sh: no $gui (build the sightline target first)" >&2; exit 2; }
[ -f "$trace" ] || { echo "make-doc-screenshots.sh: no $trace (set SIGHTLINE_SHARED_DATA)" >&2; exit 2; }
mkdir -p "$out"
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
# A fresh configuration and knowledge base, so nothing of the user's own (layout, recent files, history) shows.
env XDG_CONFIG_HOME="$cfg/config" XDG_DATA_HOME="$cfg/data" timeout 300 \
  xvfb-run -a -s "-screen 0 2000x1200x24" "$gui" --size "${SIZE:-1600x900}" --language en --theme light \
    --select-kernel "${KERNEL:-489}" --pane findings --screenshot "$out/workbench.png" "$trace"
echo "$out/workbench.png"
