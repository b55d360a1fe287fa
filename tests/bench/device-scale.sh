#!/bin/bash
# The scale benchmarks on idle cores (issue 18): run on a lent machine (tests/device/README.md) where nothing else
# runs, pinned with taskset to 2 cores (this project's machine class) and to 8, with the readers' default thread
# count (the affinity mask's CPUs), each CPU on its own physical core. DEVICE_SCALE_NSYS=0 skips the nsys benchmark,
# DEVICE_SCALE_LARGE=0 the 10^7-kernel runs. Needs a pack made by
#   tests/device/pack-cli.sh build/devcli/app/sightline-cli .devcli build/devcli/tests/bench/bench_summary \
#       build/devcli/tests/bench/bench_kineto /usr/bin/sqlite3
# from a Release build with SIGHTLINE_BUILD_BENCH (and tests) on.
#
#   tests/bench/device-scale.sh OUT_DIR [PACK_DIR]
set -uo pipefail
out=${1:?usage: device-scale.sh OUT_DIR [PACK_DIR]}
pack=$(realpath "${2:-.devcli}")
mkdir -p "$out"
export PATH="$pack:$PATH"   # the packed sqlite3 tool, the baseline bench_summary also times
work=$(mktemp -d /tmp/sightline-device-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT
{
    echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nproc) CPUs: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
    echo "load: $(cut -d' ' -f1-3 /proc/loadavg); python: $(python3 --version 2>&1)"
} | tee "$out/machine.txt"
lscpu 2>/dev/null | grep -E '^(Model name|Thread|Core|Socket|L2|L3)' | tee -a "$out/machine.txt"
# N CPUs on N different physical cores: SMT siblings share one core's execution units, so "taskset -c 0-1" may be
# one core with two hardware threads.
physical_cpus() {
    local n=$1 seen="" list="" c key
    for c in $(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's/.*cpu//' | sort -n); do
        key="$(cat /sys/devices/system/cpu/cpu$c/topology/physical_package_id 2>/dev/null)-$(cat /sys/devices/system/cpu/cpu$c/topology/core_id 2>/dev/null)"
        [[ " $seen " == *" $key "* ]] && continue
        seen="$seen $key"
        list="${list:+$list,}$c"
        (( --n == 0 )) && break
    done
    echo "$list"
}
for cores in 2 8; do
    cpus=$(physical_cpus "$cores")
    echo "== $cores cores on different physical cores (taskset -c $cpus; siblings of cpu0: $(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null))"
    if [[ "${DEVICE_SCALE_NSYS:-1}" == 1 ]]; then
        taskset -c "$cpus" "$pack/bench_summary" 1000000 200000 > "$out/nsys1m-${cores}c.log" 2>&1
        grep -E '^(sqlite3 scan|load \+ summary|ratio|parallel load CPU|CPU time)' "$out/nsys1m-${cores}c.log"
    fi
    taskset -c "$cpus" "$pack/bench_kineto" --dir "$work" > "$out/kineto-${cores}c.log" 2>&1
    grep -E '^(file:|reader, |python json.load|memory:)' "$out/kineto-${cores}c.log"
    echo "   (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
done
if [[ "${DEVICE_SCALE_LARGE:-1}" == 1 ]]; then
    echo "== 10^7 kernels: generate, then summary and analyze on 2 cores (peak RSS against 1.5 x the model + 256 MiB)"
    "$pack/sightline-cli" generate --preset scale --kernels 10000000 -o "$work/scale10m.sqlite" | tail -1
    for cmd in summary analyze; do
        echo -n "$cmd 10^7, 2 cores: "
        python3 "$(dirname "$0")/rusage.py" "$out/$cmd-10m.json" taskset -c "$(physical_cpus 2)" "$pack/sightline-cli" "$cmd" \
            --format json "$work/scale10m.sqlite"
    done
    rm -f "$work/scale10m.sqlite"
fi
