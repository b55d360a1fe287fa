#!/usr/bin/env bash
# `sightline-cli scale-out slurm` against a real Slurm (issue 38 §3): starts a one-node Slurm cluster on localhost
# (munged, slurmctld and slurmd as root, every file under a temporary folder), generates 16 small ranks of one job
# (rank 5 a planted straggler), writes the job array and the merge job with `scale-out slurm --max-array 8` (so each
# array task maps a chunk of 2 ranks: the site-limit path), submits them with the commands scale-out printed, waits
# for the merge job (bounded), and checks that the merged JSON equals `merge` of the same ranks run here (and
# `analyze` of the folder). Every daemon it started is stopped on the way out, failed or not.
#
#   tests/cluster/slurm-one-node.sh [BUILD_DIR=build/dev]
#
# Needs root and Debian's slurm-wlm and munge (packaging/install-cluster-test-deps.sh). Without them it says so and
# exits 77 (skipped), unless SIGHTLINE_REQUIRE_SLURM=1 (as .ci/run sets it): then a missing Slurm is a failure.
# Takes about 15 s on 2 cores.
set -euo pipefail

build="${1:-build/dev}"
cli="$(cd "$(dirname "$build/app/sightline-cli")" 2>/dev/null && pwd)/sightline-cli"
ranks=16
timeout_s=${SLURM_TEST_TIMEOUT:-90}

skip() {
  if [[ "${SIGHTLINE_REQUIRE_SLURM:-0}" == 1 ]]; then
    echo "slurm-one-node.sh: FAIL: $1 (SIGHTLINE_REQUIRE_SLURM=1)" >&2
    exit 1
  fi
  echo "slurm-one-node.sh: SKIP: $1" >&2
  exit 77
}
[[ -x "$cli" ]] || { echo "slurm-one-node.sh: no $build/app/sightline-cli (build the sightline-cli target)" >&2; exit 2; }
[[ "$(id -u)" == 0 ]] || skip "needs root to start slurmd"
for tool in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo scancel python3; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (packaging/install-cluster-test-deps.sh)"
done

t0=$(date +%s.%N)
tmp=$(mktemp -d "${SIGHTLINE_TEST_TMP:-/tmp}/sightline-slurm.XXXXXX")
chmod 0755 "$tmp"
pids=()
stop_all() {
  local rc=$?
  # Jobs still queued or running on this cluster (SLURM_CONF is ours) are cancelled first, so no job step outlives
  # its slurmd; then the daemons this script started, by the pids it recorded (never by name).
  if [[ -n "${SLURM_CONF:-}" ]] && squeue -h -o %A >/dev/null 2>&1; then
    scancel --quiet --full $(squeue -h -o %A) 2>/dev/null || true
    for _ in $(seq 50); do [[ -z "$(squeue -h -o %A 2>/dev/null)" ]] && break; sleep 0.1; done
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [[ $rc -ne 0 ]]; then
    echo "--- logs (the test failed) ---" >&2
    for f in "$tmp"/*.log "$tmp"/job/logs/*; do [[ -f "$f" ]] && { echo "== $f" >&2; tail -n 30 "$f" >&2; }; done
  fi
  rm -rf "$tmp"
  exit $rc
}
trap stop_all EXIT
trap 'exit 130' INT TERM

# Wait (bounded) for a file to appear; $2 seconds.
wait_for() {
  local deadline=$(( $(date +%s) + $2 ))
  while [[ ! -e "$1" ]]; do
    (( $(date +%s) < deadline )) || { echo "slurm-one-node.sh: $1 did not appear in $2 s" >&2; return 1; }
    sleep 0.1
  done
}

# --- munge ---
mkdir -p "$tmp/munge"
chmod 0700 "$tmp/munge"
mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1
chmod 0600 "$tmp/munge/munge.key"
munge_sock="$tmp/munge/munge.socket"
munged --force --foreground --key-file="$tmp/munge/munge.key" --socket="$munge_sock" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" --log-file="$tmp/munged.log" \
  >>"$tmp/munged.log" 2>&1 &
pids+=($!)
wait_for "$munge_sock" 20

# --- slurm.conf: one node, this host, ports picked so two runs on one machine do not collide ---
host=$(hostname -s)
port=$(( 20000 + (RANDOM % 5000) * 2 ))
mkdir -p "$tmp/ctld" "$tmp/spool"
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<EOF
ClusterName=sightline-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_sock
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MaxArraySize=8
SchedulerParameters=bf_interval=1,sched_min_interval=100000
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=sightline Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$tmp/slurmd.log" 2>&1 &
pids+=($!)
deadline=$(( $(date +%s) + 30 ))
until sinfo -h -N -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; do
  (( $(date +%s) < deadline )) || { echo "slurm-one-node.sh: the node is not idle after 30 s:" >&2; sinfo -N >&2 || true; exit 1; }
  sleep 0.2
done
t_up=$(date +%s.%N)

# --- 16 ranks of one job, rank 5 late at every collective ---
mkdir -p "$tmp/ranks"
for ((r = 0; r < ranks; r++)); do
  "$cli" generate --rank "$r" --world-size "$ranks" --straggler 5 --skew-us 12 --steps 4 --layers 2 --quiet \
    -o "$tmp/ranks/rank$r.json.gz"
done

# --- the job array and the merge job, submitted with the commands scale-out printed ---
"$cli" scale-out slurm --ranks "$tmp/ranks/*.json.gz" --out "$tmp/job" --max-array 8 --partition sightline \
  >"$tmp/submit.sh"
grep -q -- '--array=0-7$' "$tmp/job/sightline-map.sbatch" || { echo "slurm-one-node.sh: 16 ranks over MaxArraySize 8 should be 8 tasks of 2:" >&2; cat "$tmp/job/sightline-map.sbatch" >&2; exit 1; }
submitted=$(sh "$tmp/submit.sh")
merge_id=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' <<<"$submitted")
[[ -n "$merge_id" ]] || { echo "slurm-one-node.sh: no merge job submitted: $submitted" >&2; exit 1; }
echo "submitted the map array and merge job $merge_id"

deadline=$(( $(date +%s) + timeout_s ))
while :; do
  state=$(scontrol show job "$merge_id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
  case "$state" in
    COMPLETED) break ;;
    FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE)
      echo "slurm-one-node.sh: the merge job ended $state" >&2; scontrol show job "$merge_id" >&2; exit 1 ;;
  esac
  if (( $(date +%s) >= deadline )); then
    echo "slurm-one-node.sh: the merge job is still '$state' after $timeout_s s" >&2
    squeue >&2 || true; scontrol show job "$merge_id" >&2 || true; exit 1
  fi
  sleep 0.5
done
t_done=$(date +%s.%N)

# --- the same map and merge here, and analyze of the folder: equal JSON, the file names aside ---
mkdir -p "$tmp/local"
parts=()
for ((r = 0; r < ranks; r++)); do
  "$cli" analyze "$tmp/ranks/rank$r.json.gz" --partial -o "$tmp/local/rank$r.partial.json"
  parts+=("$tmp/local/rank$r.partial.json")
done
"$cli" merge "${parts[@]}" --format json -o "$tmp/local/merge.json"
"$cli" analyze "$tmp/ranks/" --format json -o "$tmp/local/folder.json"
python3 - "$tmp/job/merge.json" "$tmp/local/merge.json" "$tmp/local/folder.json" <<'PY'
import json, sys
def load(p):
    j = json.load(open(p))
    # Where the partials were written differs; everything the merge computed must not.
    j.pop("inputs", None)
    for r in j.get("ranks", []):
        r.pop("partial", None)
    return j
cluster, local, folder = (load(p) for p in sys.argv[1:4])
for name, other in (("merge here", local), ("analyze of the folder", folder)):
    if cluster != other:
        keys = sorted(k for k in set(cluster) | set(other) if cluster.get(k) != other.get(k))
        sys.exit(f"slurm-one-node.sh: the cluster's merge differs from {name} in {keys}")
c = cluster["collectives"]
assert cluster["world_size"] == 16 and len(cluster["ranks"]) == 16, cluster["ranks"]
assert c["straggler_rank"] == 5, c["straggler_rank"]
assert abs(c["mean_skew_ns"] - 12000) <= 600, c["mean_skew_ns"]
print(f"merged on Slurm == merged here == analyze of the folder: 16 ranks, straggler rank {c['straggler_rank']}, "
      f"mean skew {c['mean_skew_ns'] / 1000:.1f} us")
PY
grep -q "rank 5 arrives last" "$tmp/job/merge.txt" || { echo "slurm-one-node.sh: merge.txt names no straggler" >&2; exit 1; }
t1=$(date +%s.%N)
awk -v a="$t0" -v u="$t_up" -v d="$t_done" -v b="$t1" 'BEGIN {
  printf "slurm-one-node.sh: OK in %.1f s (cluster up %.1f s, jobs %.1f s)\n", b - a, u - a, d - u }'
