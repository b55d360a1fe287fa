#!/bin/bash
# Hostile-input scale checks of issue 36, run by hand (benchmarks, not timed tests): each hostile shape is timed
# against a baseline of the same size made the ordinary way, in the same run, on the same machine.
#   1. 10^5 kernels on 60,000 distinct device ids (a trace may hold 65,535), and from 60,000 distinct host processes,
#      against 10^5 kernels on one device of one process (§8: "within the same budget"). Target: ratio <= 2.
#   2. A capture trace of W windows x L launches joined to a K-kernel graph replay (§3; the issue's case is
#      400 x 4,000 against 8,000): the join finishes, or fails naming the capture, within 10 s.
#
#   tests/bench/hostile-scale.sh [CLI] [N] [W] [L] [K]
set -euo pipefail
cli=$(realpath "${1:-build/dev/app/sightline-cli}")
n=${2:-100000}
windows=${3:-400}
launches=${4:-4000}
replay=${5:-8000}
work=$(mktemp -d /tmp/sightline-hostile-scale.XXXXXX)
trap 'rm -rf "$work"' EXIT

python3 - "$work" "$n" "$windows" "$launches" "$replay" <<'PY'
import json, os, sys
work, n, windows, launches, replay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])

def kineto(path, device_of, pid_of):
    # One launch per kernel (cuda_runtime on the launching process's thread), the kernel 5 us later.
    with open(path, "w") as f:
        f.write('{"traceEvents":[\n')
        for i in range(n):
            pid = pid_of(i)
            f.write('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":%d,"tid":%d,"ts":%d,"dur":2,'
                    '"args":{"correlation":%d}},\n' % (pid, pid, 10 * i, i + 1))
            f.write('{"ph":"X","cat":"kernel","name":"k%d","pid":%d,"tid":7,"ts":%d,"dur":4,'
                    '"args":{"device":%d,"stream":7,"correlation":%d}}%s\n'
                    % (i % 50, device_of(i), 10 * i + 5, device_of(i), i + 1, "," if i + 1 < n else ""))
        f.write("]}\n")

kineto(os.path.join(work, "one_device.json"), lambda i: 0, lambda i: 1)
kineto(os.path.join(work, "many_devices.json"), lambda i: i % 60000, lambda i: 1)   # under the 65,535 cap
kineto(os.path.join(work, "many_processes.json"), lambda i: 0, lambda i: 1000 + i % 60000)

# The capture pair: a replay of `replay` kernels launched by one cudaGraphLaunch, and a capture trace of `windows`
# capture windows (cudaStreamBeginCapture .. EndCapture) of `launches` launches each, the kernels' names cycling
# through 50 (a real decode graph repeats a layer's kernels).
os.makedirs(os.path.join(work, "pair", "capture_traces"))
with open(os.path.join(work, "pair", "replay.json"), "w") as f:
    f.write('{"traceEvents":[\n{"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch_v10000","pid":1,"tid":1,"ts":0,'
            '"dur":5,"args":{"correlation":1}}')
    for i in range(replay):
        f.write(',\n{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":4,'
                '"args":{"device":0,"stream":7,"correlation":1,"graph node id":%d}}' % (i % 50, 10 + 5 * i, i + 1))
    f.write("\n]}\n")
with open(os.path.join(work, "pair", "capture_traces", "execution_details.json"), "w") as f:
    json.dump([{"file": "graph_capture_rank_0.pt.trace.json", "batch_size": 8, "mode": "FULL"}], f)
with open(os.path.join(work, "pair", "capture_traces", "graph_capture_rank_0.pt.trace.json"), "w") as f:
    f.write('{"traceEvents":[\n')
    corr, ts, first = 1, 0, True
    for w in range(windows):
        rows = [("cudaStreamBeginCapture_v10000", 0)] + [("cudaLaunchKernel", 1)] * launches + \
               [("cudaStreamEndCapture_v10000", 0)]
        for k, (name, launch) in enumerate(rows):
            f.write(('' if first else ',\n') +
                    '{"ph":"X","cat":"cuda_runtime","name":"%s","pid":1,"tid":1,"ts":%d,"dur":2,'
                    '"args":{"correlation":%d}}' % (name, ts, corr))
            if launch:
                f.write(',\n{"ph":"X","cat":"cpu_op","name":"k%d","pid":1,"tid":1,"ts":%d,"dur":3}' % ((k - 1) % 50, ts))
            first = False
            corr += 1
            ts += 3
        ts += 100
    f.write("\n]}\n")
PY

run() {   # run LABEL FILE...: seconds of analyze --format json (best of 3) and its exit status
    local label=$1 best="" rc=0; shift
    for _ in 1 2 3; do
        local t0 t1 s
        t0=$(date +%s.%N)
        rc=0
        rm -f "$work/out.json"
        "$cli" analyze "$@" --format json -o "$work/out.json" > "$work/err.txt" 2>&1 || rc=$?
        t1=$(date +%s.%N)
        s=$(echo "$t1 - $t0" | bc -l)
        if [ -z "$best" ] || [ "$(echo "$s < $best" | bc -l)" = 1 ]; then best=$s; fi
    done
    printf '%-34s %8.3f s  rc %d\n' "$label" "$best" "$rc" >&2
    echo "$best"
}
echo "== $(date -u '+%Y-%m-%d %H:%M UTC') $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $n kernels"
base=$(run "one device, one process" "$work/one_device.json")
dev=$(run "60000 distinct devices" "$work/many_devices.json")
proc=$(run "60000 distinct processes" "$work/many_processes.json")
printf 'ratio devices / baseline:   %.2f (target <= 2)\n' "$(echo "$dev / $base" | bc -l)"
printf 'ratio processes / baseline: %.2f (target <= 2)\n' "$(echo "$proc / $base" | bc -l)"
du -sh "$work/pair/capture_traces/graph_capture_rank_0.pt.trace.json" | awk '{print "capture trace: " $1}'
run "capture join ${windows}x${launches} vs $replay" "$work/pair/replay.json" > /dev/null
echo "(exit 0: joined; exit 2: refused naming the capture, target <= 10 s either way)"
head -c 600 "$work/err.txt"; echo
[ -s "$work/out.json" ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("graph join:", json.dumps(d["workload"].get("graph_replay", "(none)"))[:400])' "$work/out.json" || true
