#!/usr/bin/env bash
# Scale benchmarks (issue 18): generates the inputs, runs the reader benchmarks and prints every ratio next to the
# baseline it was measured against in the same run (the sqlite3 scan of the same rows for nsys, Python's json.load
# of the same file for Kineto), single-threaded and parallel, plus the machine and its load, since a shared machine
# changes wall times (ratios measured back to back are what to compare).
#
#   tests/bench/run-scale.sh [BUILD_DIR] [--large]
#
# BUILD_DIR defaults to build/dev; it must have been configured with SIGHTLINE_BUILD_BENCH (the dev preset is).
# --large also runs the 10^7-kernel nsys export and a ~2.1 GB Kineto JSON (minutes, several GB of disk under
# $SIGHTLINE_TEST_TMP or /tmp). SIGHTLINE_LOAD_THREADS=N sets the "parallel" runs' thread count.
set -euo pipefail

build=build/dev
large=0
for a in "$@"; do
  case "$a" in
    --large) large=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) build="$a" ;;
  esac
done
bench="$build/tests/bench"
for b in bench_summary bench_kineto; do
  if [[ ! -x "$bench/$b" ]]; then
    echo "run-scale.sh: $bench/$b is missing; build it: cmake --build $build --target bench_summary bench_kineto" >&2
    exit 64
  fi
done
tmp="${SIGHTLINE_TEST_TMP:-/tmp}"
out=$(mktemp -d "$tmp/sightline-scale.XXXXXX")
trap 'rm -rf "$out"' EXIT

machine() {
  echo "machine: $(nproc) hardware threads, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'),"\
       "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
  echo "load: $(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min)$( [[ -r /proc/pressure/cpu ]] && echo ", CPU pressure $(head -1 /proc/pressure/cpu)")"
}

echo "== Sightline scale benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
machine
echo

run() {   # name, log, command...
  local name="$1" log="$2"
  shift 2
  echo "== $name"
  "$@" | tee "$log"
  echo "   (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
}

run "nsys: load + summary of a 1,000,000-kernel export vs the sqlite3 scan of the same rows" \
    "$out/nsys1m.log" "$bench/bench_summary" 1000000 200000
run "Kineto: reader throughput on a ~300 MB JSON vs Python's json.load of the same file" \
    "$out/kineto.log" "$bench/bench_kineto" --dir "$out"
if [[ -x "$bench/bench_timeline" ]]; then
  run "Timeline level-of-detail index and paint, 1,000,000 kernels (index built single-threaded, then parallel)" \
      "$out/timeline1m.log" "$bench/bench_timeline" 1000000
else
  echo "(bench_timeline not built: the GUI is off in $build; skipping the timeline index)"
fi
if (( large )); then
  if [[ -x "$bench/bench_timeline" ]]; then
    run "Timeline index and paint, 10,000,000 kernels" "$out/timeline10m.log" "$bench/bench_timeline" 10000000
  fi
  run "nsys: 10,000,000-kernel export" "$out/nsys10m.log" "$bench/bench_summary" 10000000 2000000
  run "Kineto: ~2.1 GB JSON" "$out/kineto2g.log" "$bench/bench_kineto" --kernels 2800000 --dir "$out" --no-python
fi

echo "== Ratios (each against its baseline measured in the same run)"
for log in "$out"/*.log; do
  echo "-- $(basename "$log" .log)"
  grep -E '^(ratio|sqlite3 scan|load \+ summary|parallel load CPU|CPU time|reader, |python json.load|memory:|index:|frames|Trace::memory_bytes|peak RSS|machine:)' "$log" \
    | sed 's/^/   /'
done
