# Sourced by run.sh and run-more.sh: their common start. Sets out, cli, here, work, log (OUTDIR/$1), extra (the words
# of RECORD_ARGS, for a dry run here) and step(), which logs a headed line. Arguments: LOGNAME OUTDIR [CLI].
set -u
out=${2:?usage: $(basename "$0") OUTDIR [CLI]}
cli=${3:-.devcli/sightline-cli}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
work=$(mktemp -d /tmp/sightline-samples.XXXX)
log="$out/$1"
export SIGHTLINE_RESOURCES=$PWD/resources PYTHONUNBUFFERED=1
extra=(${RECORD_ARGS:-})     # e.g. "--device cpu --layers 2 --hidden 256 --prompt 64 --context 32": a dry run here
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
