#!/usr/bin/env bash
# What tests/cluster/ needs on top of install-deps.sh (Debian 12): for slurm-one-node.sh a one-node Slurm (slurmctld,
# slurmd, the client commands) and munge, its authentication; for check_k8s_job.py (cli_tst_cli_scale_out, which
# skips without it) Python's yaml module. Test tools, not build dependencies: the build and
# packaging/check-install-closure.sh do not use them. The test starts and stops its own daemons under a temporary
# folder; the packages' system services are not used.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
   ! command -v munged >/dev/null || ! python3 -c 'import yaml' 2>/dev/null; then
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends slurmctld slurmd slurm-client munge python3-yaml
fi
