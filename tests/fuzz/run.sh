#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, their own build dir) and runs each for SECONDS (default 60).
#   tests/fuzz/run.sh [SECONDS]          e.g. tests/fuzz/run.sh 30 (the CI smoke), tests/fuzz/run.sh 3600
# Environment: FUZZ_BUILD (build dir, default build/fuzz), FUZZ_TARGETS (space-separated subset), FUZZ_JOBS
# (parallel targets, default 1), SIGHTLINE_CLI (for generated seeds; default: the first build/*/app/sightline-cli),
# SIGHTLINE_SHARED_DATA (small real traces copied into the run's scratch corpus, never into the repository).
# Seeds: tests/fuzz/corpus/<target>/ (committed, tiny), the repository's fixtures and resources, generator output,
# and shared files under 1.2 MB. Findings (crash-*, leak-*, timeout-*, oom-*) are written to
# $FUZZ_BUILD/findings/<target>/; each run's summary (executions, findings) to $FUZZ_BUILD/summary.txt.
# Exit status: 0 when no target found anything.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
SECONDS_PER_TARGET="${1:-60}"
BUILD="${FUZZ_BUILD:-$ROOT/build/fuzz}"
JOBS="${FUZZ_JOBS:-1}"
ALL_TARGETS="nsys_sqlite kineto_json kineto_gzip ncu model_config rules gpu_specs kernel_classes regex capture_join"
TARGETS="${FUZZ_TARGETS:-$ALL_TARGETS}"

if [ ! -f "$BUILD/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S tests/fuzz -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=None \
    ${CMAKE_CXX_COMPILER_LAUNCHER:+-DCMAKE_CXX_COMPILER_LAUNCHER=$CMAKE_CXX_COMPILER_LAUNCHER}
fi
cmake --build "$BUILD"

WORK="$BUILD/work"
rm -rf "$WORK"
mkdir -p "$WORK" "$BUILD/findings"
seed() {   # seed TARGET FILE...
  local d="$WORK/seeds/$1"; shift
  mkdir -p "$d"
  for f in "$@"; do [ -f "$f" ] && cp "$f" "$d/" || true; done
}
for t in $ALL_TARGETS; do seed "$t" tests/fuzz/corpus/"$t"/*; done
seed model_config tests/data/models/*_config.json
seed ncu tests/data/ncu/*.csv
seed rules resources/rules/*.json
seed gpu_specs resources/gpus.json
seed kernel_classes resources/kernel_classes.json

CLI="${SIGHTLINE_CLI:-$(ls "$ROOT"/build/*/app/sightline-cli 2>/dev/null | head -1 || true)}"
if [ -n "$CLI" ] && [ -x "$CLI" ]; then
  mkdir -p "$WORK/gen"
  "$CLI" generate --preset decode --steps 2 --layers 1 -o "$WORK/gen/decode.sqlite" --config-out "$WORK/gen/config.json" >/dev/null 2>&1 || true
  "$CLI" generate --preset decode --steps 1 --layers 1 --host-starved --sync-every-step -o "$WORK/gen/starved.sqlite" >/dev/null 2>&1 || true
  # A graph replay and its capture, as one input: the replay, a NUL byte, the capture.
  if "$CLI" generate --preset decode --steps 2 --layers 1 --cuda-graphs --with-capture -o "$WORK/gen/replay.json" >/dev/null 2>&1; then
    mkdir -p "$WORK/seeds/capture_join"
    { cat "$WORK/gen/replay.json"; printf '\0'; gzip -dc "$WORK"/gen/capture_traces/*.json.gz; } > "$WORK/seeds/capture_join/pair" || true
  fi
  seed nsys_sqlite "$WORK"/gen/*.sqlite
  seed model_config "$WORK/gen/config.json"
else
  echo "run.sh: no sightline-cli found (SIGHTLINE_CLI): no generated nsys seeds" >&2
fi
DATA="${SIGHTLINE_SHARED_DATA:-$ROOT/../shared/data}"
if [ -d "$DATA" ]; then
  # Small real files, copied into the scratch corpus at run time only.
  while IFS= read -r f; do seed nsys_sqlite "$f"; done < <(find "$DATA/nsys" -name '*.sqlite' -size -1200k 2>/dev/null)
  while IFS= read -r f; do
    seed kineto_gzip "$f"
    n="$WORK/seeds/kineto_gzip/$(basename "$f")"; { printf '\1'; cat "$f"; } > "$n.bin"; rm -f "$n"
  done < <(find "$DATA/kineto" -name '*.json.gz' -size -60k 2>/dev/null)
  while IFS= read -r f; do
    gzip -dc "$f" > "$WORK/seeds/kineto_json/$(basename "$f" .gz)" 2>/dev/null || true
  done < <(find "$DATA/kineto" -name '*.json.gz' -size -60k 2>/dev/null)
  while IFS= read -r f; do seed ncu "$f"; done < <(find "$DATA/ncu" \( -name '*.csv' -o -name '*.txt' \) -size -100k 2>/dev/null)
fi

: > "$BUILD/summary.txt"
# The harnesses write each input to a scratch file: in memory (/dev/shm) when there is one, since ext4 flushes a
# truncated-and-rewritten file on close, which was a tenth of every small input's time.
SCRATCH="$WORK"
if [ -d /dev/shm ] && [ -w /dev/shm ]; then SCRATCH=$(mktemp -d /dev/shm/sl-fuzz.XXXXXX); trap 'rm -rf "$SCRATCH"' EXIT; fi
run_one() {
  local t="$1" bin="$BUILD/fuzz_$1" corpus="$WORK/corpus/$1" out="$BUILD/findings/$1" log="$WORK/$1.log"
  mkdir -p "$corpus" "$out"
  local max_len=1048576
  [ "$t" = nsys_sqlite ] && max_len=1300000
  [ "$t" = capture_join ] && max_len=262144
  [ "$t" = regex ] && max_len=8192   # pattern and name (a name repeats up to 16 KiB in the harness)
  max_len="${FUZZ_MAX_LEN:-$max_len}"
  # detect_leaks: every target frees what it reads; rss_limit 2 GB; 10 s for one input is a hang.
  ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  TMPDIR="$SCRATCH" "$bin" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
    -dict="tests/fuzz/dict/$t.dict" -artifact_prefix="$out/" -print_final_stats=1 \
    "$corpus" "$WORK/seeds/$t" > "$log" 2>&1 || true
  local execs findings
  execs=$(grep -a 'stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1)
  findings=$(find "$out" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  printf '%-16s %10s executions in %ss, %s findings\n' "$t" "${execs:-?}" "$SECONDS_PER_TARGET" "$findings" | tee -a "$BUILD/summary.txt"
  if [ "$findings" != 0 ]; then tail -40 "$log"; fi
}
export -f run_one
export BUILD WORK SECONDS_PER_TARGET SCRATCH
if [ "$JOBS" -gt 1 ]; then
  printf '%s\n' $TARGETS | xargs -P "$JOBS" -I{} bash -c 'run_one {}'
else
  for t in $TARGETS; do run_one "$t"; done
fi
# A finding fails the run, and so does a target that left no statistics (it did not run, or its log was lost).
! grep -q -e '[1-9][0-9]* findings' -e ' ? executions' "$BUILD/summary.txt"
