#!/usr/bin/env bash
# gres-untyped-restart.sh [untyped|plain|typed]
#
# Measures a fault of Slurm 22.05.8 that the chaos test's ctld-restart round meets (docs/slurm.md,
# Limits): a job whose GPU request names no type, pending (released) when slurmctld restarts, is
# not counted in its node's per-type GPU count when the restarted slurmctld starts it; slurmctld
# then logs "gres count underflow" at every backfill pass and its count of the node's free GPUs
# goes wrong. `untyped`: the job is pinned as the agent pins it (scontrol update NodeList=...
# TresPerNode=gres:gpu:1 TresPerJob=); `plain`: submitted with `sbatch -w v100-1 --gres=gpu:1`
# and never updated (no hetsched involved); `typed`: the agent's pin naming the node's type
# (gres:gpu:v100:1): no underflow. Starts its own 1 x a100 + 1 x v100 cluster under a mktemp
# dir, ~1 min; prints the number of underflow lines; exit 0 (a measurement, not a test).
set -euo pipefail
FORM=${1:-untyped}
[[ $FORM == untyped || $FORM == plain || $FORM == typed ]] || { echo "usage: $0 [untyped|plain|typed]" >&2; exit 2; }
S=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
D=$(mktemp -d /tmp/hetsched-gres.XXXXXX)
trap 'bash "$S/stop-cluster.sh" "$D/cluster" --purge >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
eval "$(bash "$S/start-cluster.sh" "$D/cluster" --a100 1 --v100 1 2>/dev/null)"
[[ $FORM == typed ]] && tres=gres:gpu:v100: || tres=gres:gpu:
pin() {  # JOB COUNT: pin to v100-1 as the agent does, then release
  scontrol update "JobId=$1" NumNodes=1-1 NodeList=v100-1 "TresPerNode=$tres$2" TresPerJob=
  scontrol release "$1"
}
sbatch -Q -p all -w v100-1 --gres=gpu:v100:6 --wrap 'sleep 15'        # fills the node with the next
a=$(sbatch --parsable --hold -p all --gpus=2 --wrap 'sleep 12'); pin "$a" 2  # runs across the restart
sleep 2
if [[ $FORM == plain ]]; then                                           # pending at the restart
  sbatch -Q -p all -w v100-1 --gres=gpu:1 --wrap 'sleep 8'
else
  b=$(sbatch --parsable --hold -p all --gpus=1 --wrap 'sleep 8'); pin "$b" 1
fi
c=$(sbatch --parsable --hold -p all --gpus=v100:2 --wrap 'sleep 8')
scontrol update "JobId=$c" NumNodes=1-1 NodeList=v100-1 TresPerNode=gres:gpu:v100:2 TresPerJob=
scontrol release "$c"
sbatch -Q -p all --gpus=v100:8 --wrap 'sleep 2'                         # waits: backfill passes
bash "$S/ctld.sh" "$D/cluster" stop
sleep 4
bash "$S/ctld.sh" "$D/cluster" start
sleep 30
echo "$FORM: $(grep -c 'gres count underflow' "$D/cluster/log/slurmctld.log" || true) underflow lines in slurmctld.log"
