#!/usr/bin/env bash
# The GUI at scale (issue 18; not in CI: minutes and GBs). Generates a 10^7-kernel nsys export (and, with --kineto,
# a large Kineto JSON), opens each in the real main window (offscreen, or under Xvfb with --xvfb) with
# `sightline --drive-bench`, which times the GUI thread while the trace loads (event-loop lag), notes when the coarse
# and the complete timeline index appear, then drives 200 zooms, pans and clicks through real wheel and mouse events
# and reads each one's time to the repainted frame (p50/p99) and the process's peak RSS. Then runs
# `sightline-cli analyze` on the same file and checks its peak RSS against the memory bound of issue 18:
# peak <= 1.5 x the trace model + a fixed buffer (256 MiB: the executable, Qt, SQLite's caches, one read buffer).
#
#   tests/bench/gui-scale.sh [BUILD_DIR] [--kernels N] [--kineto] [--kineto-kernels N] [--no-nsys] [--xvfb] [--keep]
#
# Wall and CPU time are both printed: on a shared machine wall time depends on the load (printed too).
set -euo pipefail

build=build/dev
kernels=10000000
kineto=0
kineto_kernels=2800000   # about 2.1 GB of JSON
xvfb=0
keep=0
nsys=1
while (( $# )); do
  case "$1" in
    --kernels) kernels="$2"; shift ;;
    --kineto) kineto=1 ;;
    --no-nsys) nsys=0 ;;
    --kineto-kernels) kineto_kernels="$2"; shift ;;
    --xvfb) xvfb=1 ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) build="$1" ;;
  esac
  shift
done
cli="$build/app/sightline-cli"
gui="$build/app/sightline"
for b in "$cli" "$gui"; do
  [[ -x "$b" ]] || { echo "gui-scale.sh: $b is missing; build it: cmake --build $build --target sightline sightline-cli" >&2; exit 64; }
done
tmp="${SIGHTLINE_TEST_TMP:-/tmp}"
out=$(mktemp -d "$tmp/sightline-gui-scale.XXXXXX")
(( keep )) || trap 'rm -rf "$out"' EXIT
fixed_mib=256

echo "== Sightline GUI at scale, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) hardware threads, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM;" \
     "load $(cut -d' ' -f1-3 /proc/loadavg)$( [[ -r /proc/pressure/cpu ]] && echo ", CPU pressure $(head -1 /proc/pressure/cpu)")"

measure() {   # label, trace file
  local label="$1" file="$2"
  echo
  echo "== $label: $(du -h "$file" | cut -f1) ($file)"
  local env=(env QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$out/config" XDG_DATA_HOME="$out/data")
  local runner=()
  (( xvfb )) && { env=(env XDG_CONFIG_HOME="$out/config" XDG_DATA_HOME="$out/data"); runner=(xvfb-run -a -s "-screen 0 1920x1080x24"); }
  /usr/bin/time -f "gui: wall %e s, CPU %U s user + %S s sys, peak RSS %M KiB" \
    "${runner[@]}" "${env[@]}" "$gui" "$file" --size 1920x1080 --drive-bench "$out/drive.json" 2> "$out/gui.err" \
    || { echo "sightline failed:"; tail -20 "$out/gui.err"; return 1; }
  grep '^gui:' "$out/gui.err"
  python3 - "$out/drive.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = lambda k: d[k]
print(f"kernels {d.get('kernels')}, trace model {d.get('trace_model_mib', 0):.1f} MiB, timeline index {d.get('timeline_index_mib', 0):.1f} MiB")
print(f"trace loaded {d.get('trace_loaded_ms', -1)/1e3:.2f} s after open; first (coarse) timeline {d['first_timeline_ms']/1e3:.2f} s after open, complete index {d['complete_timeline_ms']/1e3:.2f} s, all analyses done {d['finished_ms']/1e3:.2f} s")
if d.get('knowledge_base_idle_ms', -1) >= 0:
    print(f"knowledge base idle (the run recorded, the trace file hashed) {d['knowledge_base_idle_ms']/1e3:.2f} s after open; the interactions below start then")
lag = d['event_loop_lag_while_loading']
if lag.get('count'):
    print(f"GUI thread while loading: event-loop lag p50 {lag['p50_ms']:.1f} ms, p99 {lag['p99_ms']:.1f} ms, max {lag['max_ms']:.1f} ms ({lag['count']} ticks of 10 ms)")
for k in ('zoom', 'pan', 'click', 'frames'):
    s = d[k]
    if s.get('count'):
        print(f"{k:6}: {s['count']:3} interactions to a repainted frame: p50 {s['p50_ms']:.1f} ms, p99 {s['p99_ms']:.1f} ms, max {s['max_ms']:.1f} ms")
for c in d.get('slowest_clicks', []):
    what = f"kernel {c['kernel']}" if c['kernel'] >= 0 else f"gap {c['gap']}" if c['gap'] >= 0 else "nothing"
    print(f"  slow click #{c['interaction']}: {c['ms']:.1f} ms = event {c['handled_ms']:.1f} + paint {c['paint_ms']:.1f} + queued {c['queued_ms']:.1f} ms; selected {what}")
print(f"GUI peak RSS {d['peak_rss_mib']:.0f} MiB = {d['peak_rss_mib']/max(d.get('trace_model_mib', 1), 1):.2f} x the trace model; CPU {d['cpu_s']:.1f} s")
open(sys.argv[1] + '.model', 'w').write(str(d.get('trace_model_mib', 0)))
PY
  /usr/bin/time -f "analyze: wall %e s, CPU %U s user + %S s sys, peak RSS %M KiB" \
    "$cli" analyze "$file" --format json > "$out/analyze.json" 2> "$out/analyze.err" \
    || { echo "analyze failed:"; tail -5 "$out/analyze.err"; return 1; }
  grep '^analyze:' "$out/analyze.err"
  local model rss
  model=$(cat "$out/drive.json.model")
  rss=$(grep '^analyze:' "$out/analyze.err" | sed 's/.*peak RSS \([0-9]*\) KiB/\1/')
  python3 -c "
m = $model; r = $rss / 1024; b = 1.5 * m + $fixed_mib
print(f'analyze peak RSS {r:.0f} MiB vs bound 1.5 x {m:.0f} MiB + $fixed_mib MiB = {b:.0f} MiB: ' + ('within' if r <= b else 'OVER') + f' ({r / m:.2f} x the model)')"
}

if (( nsys )); then
  echo
  echo "== generating a ${kernels}-kernel nsys export"
  /usr/bin/time -f "generate: wall %e s, CPU %U s" "$cli" generate --preset scale --kernels "$kernels" -o "$out/scale.sqlite"
  measure "nsys export, $kernels kernels" "$out/scale.sqlite"
  rm -f "$out/scale.sqlite"
fi
if (( kineto )); then
  echo
  echo "== generating a ${kineto_kernels}-kernel Kineto JSON"
  /usr/bin/time -f "generate: wall %e s, CPU %U s" "$cli" generate --preset scale --kernels "$kineto_kernels" -o "$out/scale.json"
  measure "Kineto JSON, $kineto_kernels kernels" "$out/scale.json"
  rm -f "$out/scale.json"
fi
