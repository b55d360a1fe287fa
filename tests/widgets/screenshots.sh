#!/bin/sh
# Screenshots of the workbench under Xvfb for visual checks (not a ctest test: run by hand, look at the pictures):
# the CPU-operator flame chart on the H100 Qwen1.5 Kineto trace (zoomed to one decoder layer, a GEMM's Details), the
# overview track and merged blocks on a generated 10^6-kernel trace (at fit and zoomed to 1/35), and the Range
# pane's aggregate table — each at 1280x720 and 1920x1080, in English (and zh_CN with LANGS="en zh_CN").
#   tests/widgets/screenshots.sh [BUILD_DIR=build/dev] [OUT_DIR=BUILD_DIR/test-tmp/screenshots]
set -eu
build=${1:-build/dev}
out=${2:-$build/test-tmp/screenshots}
data=${SIGHTLINE_SHARED_DATA:-../shared/data}
langs=${LANGS:-en}
mkdir -p "$out"
gui="$build/app/sightline"
cli="$build/app/sightline-cli"
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
scale="$out/scale-1M.sqlite"
[ -f "$scale" ] || "$cli" generate --preset scale --kernels 1000000 --quiet -o "$scale"
qwen="$data/kineto/tracelens/h100__Qwen1.5-0.5B-Chat_inference.json.gz"
shot() {   # name size lang args...
    name=$1; size=$2; lang=$3; shift 3
    rm -rf "$cfg/config" "$cfg/data"
    env XDG_CONFIG_HOME="$cfg/config" XDG_DATA_HOME="$cfg/data" timeout 300 \
        xvfb-run -a -s "-screen 0 2000x1200x24" "$gui" --size "$size" --language "$lang" \
        --screenshot "$out/$name-$size-$lang.png" "$@"
    echo "$out/$name-$size-$lang.png"
}
for lang in $langs; do
    for size in 1280x720 1920x1080; do
        if [ -f "$qwen" ]; then
            # One decoder layer of the forward pass, the flame chart scrolled into view, a GEMM of it selected.
            shot cpu-ops "$size" "$lang" "$qwen" --window 0.335:0.352 --scroll-to-cpu-ops --select-kernel "${QWEN_KERNEL:-489}" --pane details
            shot range "$size" "$lang" "$qwen" --range 0.30:0.70
        fi
        shot overview-fit "$size" "$lang" "$scale"
        shot overview-zoom35 "$size" "$lang" "$scale" --window 0.48:0.5086
        shot range-1M "$size" "$lang" "$scale" --range 0.20:0.25
    done
done
