#!/usr/bin/env bash
# Many ranks on one machine (issue 38 §2): generates RANKS ranks of one job (Kineto JSON, STEPS decode steps each,
# rank 3 a planted straggler), then measures, each with its wall time, CPU time and peak RSS (rusage.py):
#   1. `summary` of one rank, RANKS times (the baseline: reading every rank once);
#   2. `analyze RANK... --max-ranks-in-memory N` for N = 1 and 2 (the map per rank, then the merge);
#   3. `analyze RANK...` of all ranks in one process (what Sightline did before; skipped with --no-one-process).
# and checks that the merge names the planted straggler.
#
#   tests/bench/ranks-scale.sh [BUILD_DIR] [--no-one-process]      env: RANKS (16), STEPS (400: ~36 MB a rank)
#
# The issue's full scale is 64 ranks of 300 MB (RANKS=64 STEPS=3400, ~19 GB of disk); the default is scaled to a
# 2-core build machine. Inputs go under $SIGHTLINE_TEST_TMP or /tmp and are removed at the end.
set -euo pipefail

build=build/dev
one_process=1
for a in "$@"; do
  case "$a" in
    --no-one-process) one_process=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) build="$a" ;;
  esac
done
cli="$build/app/sightline-cli"
[[ -x "$cli" ]] || { echo "ranks-scale.sh: $cli is missing; build it: cmake --build $build --target sightline-cli" >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
ranks=${RANKS:-16}
steps=${STEPS:-400}
tmp="${SIGHTLINE_TEST_TMP:-/tmp}"
out=$(mktemp -d "$tmp/sightline-ranks.XXXXXX")
trap 'rm -rf "$out"' EXIT

echo "== Sightline many-rank benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) hardware threads, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM;" \
     "load $(cut -d' ' -f1-3 /proc/loadavg)"
files=()
for ((r = 0; r < ranks; r++)); do
  f="$out/rank$r.json"
  "$cli" generate --rank "$r" --world-size "$ranks" --straggler 3 --skew-us 20 --steps "$steps" --quiet -o "$f"
  files+=("$f")
done
total=$(du -cb "${files[@]}" | tail -1 | cut -f1)
echo "inputs: $ranks ranks x $(du -b "${files[0]}" | cut -f1 | awk '{printf "%.1f MB", $1/1e6}')" \
     "($(awk -v t="$total" 'BEGIN {printf "%.0f MB", t/1e6}') in all), $steps decode steps each"
echo

echo "== summary of one rank, x$ranks"
t0=$(date +%s.%N)
peak=0
for f in "${files[@]}"; do
  line=$(python3 "$here/rusage.py" /dev/null "$cli" summary "$f")
  kb=$(sed -E 's/.*peak RSS ([0-9]+) KB.*/\1/' <<<"$line")
  (( kb > peak )) && peak=$kb
done
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v p="$peak" 'BEGIN {printf "%.2f s wall in all, peak RSS of one %.0f MiB\n", b-a, p/1024}'
echo

for n in 1 2; do
  echo "== analyze RANK... --max-ranks-in-memory $n"
  python3 "$here/rusage.py" "$out/merge$n.txt" "$cli" analyze "${files[@]}" --max-ranks-in-memory "$n"
  grep -m1 "arrives last" "$out/merge$n.txt" || { echo "ranks-scale.sh: the merge named no straggler" >&2; exit 1; }
  echo
done
if [[ "$one_process" == 1 ]]; then
  echo "== analyze RANK... (every rank in one process)"
  python3 "$here/rusage.py" "$out/all.json" "$cli" analyze "${files[@]}" --format json
  echo
fi
for f in "${files[@]:0:1}"; do
  "$cli" analyze "$f" --partial -o "$out/one.partial.json"
  echo "partial of one rank: $(du -b "$out/one.partial.json" | cut -f1 | awk '{printf "%.0f KB", $1/1e3}')" \
       "for a $(du -b "$f" | cut -f1 | awk '{printf "%.1f MB", $1/1e6}') trace"
done
