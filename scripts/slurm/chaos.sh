#!/usr/bin/env bash
# chaos.sh [--short] [--goodput] [--rounds LIST] [--policy P] [--policy-opt K=V]... [--keep DIR]
#          [-o OUT_DIR] [--timeout S] [--seed N]
#
# Chaos test of `hetsched agent --slurm` on the localhost Slurm cluster (start-cluster.sh, 4 a100
# + 4 v100 nodes, in a mktemp dir under /tmp; stopped and removed on exit, also on failure or
# Ctrl-C). Each round takes a fresh journal and a fresh set of held jobs (56 valid + 4 invalid;
# --short: 20 + 2), runs the agent under a supervisor loop (restarted whenever it exits) with a
# preempting policy, injects one kind of fault, and counts from Slurm and from per-job markers.
# Rounds (--rounds, comma-separated; default all eight in this order, --short:
# agent-kill,full-disk,corrupt-journal,jobs-fail); --timeout S: per-round limit; --seed N: the random
# moments (printed, so a run can be repeated); -o OUT_DIR: default $REPO/hetsched-out/chaos.
#
#   none             no fault
#   agent-kill       kill -9 the agent at random moments (3; --short 2), restart it 0-2 s later
#   ctld-restart     scripts/slurm/ctld.sh stop, 3-6 s down, ctld.sh start (2; --short 1)
#   ctld-kill        kill -9 slurmctld (pid from DIR/run/pids, command line checked), 2-5 s
#                    later ctld.sh start (2; --short 1); 15 s and 30 s after each start, nodes
#                    slurmctld drained meanwhile ("Duplicate jobid") are RESUMEd, as an operator
#                    does (noted)
#   slurmd-kill      kill -9 the slurmd of a node that runs jobs (pid from DIR/run/pids, command
#                    line checked), restart it 5-10 s later exactly as start-cluster.sh starts it
#                    (setsid slurmd -D -N NODE -f CONF, pid file updated); the node is RESUMEd if
#                    Slurm marked it down meanwhile (2; --short 1)
#   full-disk        journal on its own tmpfs (mount -t tmpfs -o size=1m), filled by a filler file
#                    2-4 s in; kept full until the agent reported a failed journal write, then 8 s
#                    more (--short 5 s; 30 s at most: the journal's last page may have room), then
#                    the filler removed
#   corrupt-journal  kill -9 the agent and append a torn record (no newline), later kill -9 again
#                    and append a torn record ending in a newline: each restart must drop it
#                    (warning) and go on; then kill -9 once more and put a garbage line in the
#                    middle of the journal: the agent must refuse to start (exit != 0, error naming
#                    journal:line); the good journal is then put back and the agent restarted
#   jobs-fail        some jobs exit 3 after their sleep; some are scancel'ed by the "user" while
#                    pending, some once Slurm runs them
#
# Jobs: sbatch --hold -p all, mixed typed/untyped per-job --gpus=[type:]N and per-node
# -N 2 --gres=gpu:TYPE:C requests, comment "hetsched model=resnet50 iterations=100" (some none);
# 4 invalid ones (--gpus=h100x:1, --gpus=a100:64, comment "hetsched iterations=many", unknown
# model) must be refused by the agent and left held. Each job sleeps 2-8 s; a run stopped by
# SIGTERM (preempted, cancelled) logs "killed" and writes nothing else; a run that completes
# appends "ID start=EPOCH end=EPOCH nodes=LIST" to markers/ID.done (one line per completed run;
# failing jobs: ID.failed, then exit 3). Names and comments go to sbatch as single arguments,
# never through a shell.
#
# A round ends when every valid job has ended in Slurm (or after --timeout, default 300 s,
# --short 120 s). Per round one table row (also in OUT_DIR/chaos.txt, details of anomalies in
# OUT_DIR/chaos-details.txt):
#   once      valid jobs that completed exactly once (ended in Slurm, one completed run; for
#             jobs meant to be cancelled: those whose cancel came too late and that completed once)
#   twice     valid jobs whose work finished >= 2 times: max(completed runs by marker, distinct
#             start times of COMPLETED lines in DIR/log/jobcomp.txt); same for FAILED runs of
#             failing jobs (markers/ID.failed, FAILED exit 3:0 lines). A marker line of a run
#             that Slurm recorded as requeued/cancelled in the second the script ended is a race
#             (noted, not a completion; see the comment above load_jobcomp)
#   sl-lost   valid jobs (normal kind) that completed again only because slurmctld lost an
#             earlier completed run: each extra run either has a marker and no line at all in
#             jobcomp.txt, or was followed by a run with no higher SLURM_RESTART_COUNT (slurmctld,
#             killed, came back from state saved before that run), and the agent journaled no end
#             of the job before the last run started (it could not know; docs/slurm.md).
#             Counted apart from `twice`; a round does not fail on them
#   lost      valid jobs not ended in Slurm by the timeout, or ended without the run they should
#             have had (no completion for a normal job, no exit-3 failure for a failing one,
#             neither cancel nor completion for a cancelled one). Slurm's state is squeue's; a
#             job squeue shows RUNNING whose run jobcomp.txt records as ended (a slurmctld
#             restarted from older saved state) counts as ended, and is noted
#   refused   invalid jobs still held (JobHeldUser) at the end and reported `rejected` in the
#             agent's stderr (at least once; more than once is noted)
#   failed    failing jobs that ended FAILED with exit code 3 after exactly one failed run
#   cancel    jobs meant to be cancelled that ended CANCELLED with no completed run
#   self      agent exits this script did not cause (exit code, last stderr lines kept in the
#             round's folder and in chaos-details.txt). Not counted: the normal end (exit 0
#             once every valid job has ended in Slurm, as --exit-after-jobs asks)
#   caused    agent exits the script caused: kill -9, a stop on a journal write that failed in
#             the full-disk round (the agent stops so by design), and SIGTERM at the round's end when the
#             agent had not stopped by itself 12 s after the last job ended, or at the timeout
#   slurm-rq  "requeued (Slurm requeued it" reports in the agent's stderr
#   preempt   journal records `requeue` "preempted by the policy" (the policy preempted)
#   journal   ok when a fresh agent starts on (a copy of) the round's final journal
# A round FAILS when a valid job finished twice or was lost, an invalid job was not refused, the
# agent exited by itself, the final journal is unreadable, or a fault-specific check failed (a
# torn record not dropped, the mid-file garbage not refused, a goodput check below). Last line:
# `chaos: N rounds, M failed`; exit 0 only if no round failed (2: usage, 1: could not run).
#
# --goodput: goodput jobs too (docs/slurm.md, "Goodput jobs"). Default policy sia with round=5
# (it re-allocates every 5 s: elastic jobs change GPU counts, i.e. preemption and a new placement);
# the agent runs with --goodput-dir ROUND/goodput --profile-types v100 --goodput-interval 2 (the
# built-in cifar10 profile, so goodput jobs run on the V100 nodes; batches re-picked every 2 s).
# Every other valid job (the odd ones, whatever their kind: a goodput job may fail or be
# cancelled too) is a goodput job: untyped, v100 and per-node requests; adaptive and elastic,
# adaptive only, or the user's batch; its work is 10 steps per second of its sleep of
# scripts/slurm/goodput-job.py (reads ROUND/goodput/ID.alloc, appends to ID.metrics, follows
# re-picked batches, logs each allocation it reads), and it leaves the same markers as a rigid
# job. One more invalid job (two without --short): an unknown application, a misspelt goodput
# key. Three more columns:
#   gp-once   goodput jobs of the normal kind that completed exactly once / all of them
#   repick    journal records `repick` (batches re-picked while a job ran)
#   gp-check  ok, or N-BAD: goodput jobs that failed one of goodput_checks' checks (an allocation
#             read with a lower seq than the one read before it, also across runs and agent
#             restarts; a run whose first allocation names other nodes than Slurm ran it on; a
#             run with no allocation to read; a report journaled twice or never, or a measure_bad;
#             the final .alloc not the job's last journaled allocation); per job in
#             ROUND/goodput-checks.txt, failures in chaos-details.txt; a round fails on any.
# The goodput directory is not on the full-disk round's tmpfs (only the journal is): a job that
# cannot append its reports would fail by itself. Run from the repository's root: the agent finds
# the built-in profiles (data/real/pollux/traces) from there or beside its binary.
#
# Environment: HETSCHED (the binary; default $REPO/build/release/bin/hetsched),
# CHAOS_POLICY_OPTS (extra policy options, blank-separated KEY=VALUE, same as --policy-opt).
# Default policy: tiresias-las with thresholds=20 (preempts; --goodput: sia with round=5);
# --policy P drops that default option (e.g. --policy gavel-las --policy-opt round=15). Localhost
# only: every daemon is on 127.0.0.1 (start-cluster.sh). It runs nothing as a CPU hog (polls
# every 0.5 s); on a shared machine run it under `nice`. --keep DIR keeps the round folders
# (journals, agent logs, job outputs, markers, the cluster's logs) in DIR; without it they go
# with the temp dir.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$SCRIPT_DIR/../.." && pwd -P)
HETSCHED=${HETSCHED:-$REPO/build/release/bin/hetsched}

usage() {
  sed -n '2,3p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  echo "rounds: none,agent-kill,ctld-restart,ctld-kill,slurmd-kill,full-disk,corrupt-journal,jobs-fail" >&2
  exit 2
}
# fd 3: the real stderr. During a round fd 2 goes to the round's shell.err, where bash's own
# notices about the agent processes it kills ("... Killed ...") land.
exec 3>&2
log() { echo "chaos: $*" >&3; }
die() { echo "chaos: ERROR: $*" >&3; exit 1; }

ALL_ROUNDS=none,agent-kill,ctld-restart,ctld-kill,slurmd-kill,full-disk,corrupt-journal,jobs-fail
SHORT_ROUNDS=agent-kill,full-disk,corrupt-journal,jobs-fail
SHORT=0; GOODPUT=0; ROUNDS=""; POLICY=""; KEEP=""; OUT_DIR=""; TIMEOUT_ARG=""; SEED=""
USER_POPTS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --short) SHORT=1; shift ;;
    --goodput) GOODPUT=1; shift ;;
    --rounds) ROUNDS=${2:?--rounds needs a list}; shift 2 ;;
    --policy) POLICY=${2:?--policy needs a name}; shift 2 ;;
    --policy-opt) USER_POPTS+=("${2:?--policy-opt needs KEY=VALUE}"); shift 2 ;;
    --keep) KEEP=${2:?--keep needs a directory}; shift 2 ;;
    -o|--out) OUT_DIR=${2:?-o needs a directory}; shift 2 ;;
    --timeout) TIMEOUT_ARG=${2:?--timeout needs seconds}; shift 2 ;;
    --seed) SEED=${2:?--seed needs a number}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "chaos: unknown option $1" >&2; usage ;;
  esac
done

if [[ $SHORT -eq 1 ]]; then
  NVALID=20; NINVALID=2; ROUND_TIMEOUT=120; : "${ROUNDS:=$SHORT_ROUNDS}"
else
  NVALID=56; NINVALID=4; ROUND_TIMEOUT=300; : "${ROUNDS:=$ALL_ROUNDS}"
fi
[[ -z $TIMEOUT_ARG ]] || ROUND_TIMEOUT=$TIMEOUT_ARG
[[ $ROUND_TIMEOUT =~ ^[0-9]+$ && $ROUND_TIMEOUT -ge 10 ]] || die "--timeout must be an integer >= 10"
IFS=',' read -r -a ROUND_LIST <<<"$ROUNDS"
for r in "${ROUND_LIST[@]}"; do
  [[ ",$ALL_ROUNDS," == *",$r,"* ]] || { echo "chaos: unknown round '$r'" >&2; usage; }
done
[[ ${#ROUND_LIST[@]} -gt 0 ]] || usage
[[ -z $SEED ]] && SEED=$(( $(date +%s) % 100000 ))
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed must be a non-negative integer"
RANDOM=$SEED

POPTS=()
if [[ -z $POLICY && $GOODPUT -eq 1 ]]; then POLICY=sia; POPTS+=(--policy-opt round=5)
elif [[ -z $POLICY ]]; then POLICY=tiresias-las; POPTS+=(--policy-opt thresholds=20); fi
for o in "${USER_POPTS[@]}"; do POPTS+=(--policy-opt "$o"); done
if [[ -n ${CHAOS_POLICY_OPTS:-} ]]; then
  read -r -a env_opts <<<"$CHAOS_POLICY_OPTS"
  for o in "${env_opts[@]}"; do POPTS+=(--policy-opt "$o"); done
fi
POLICY_DESC="$POLICY${POPTS[*]:+ ${POPTS[*]}}"

OUT_DIR=${OUT_DIR:-$REPO/hetsched-out/chaos}
mkdir -p "$OUT_DIR" || die "cannot create $OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd -P)
[[ -x $HETSCHED ]] || die "no hetsched binary at $HETSCHED (set HETSCHED)"
HETSCHED=$(cd "$(dirname "$HETSCHED")" && pwd -P)/$(basename "$HETSCHED")
GOODPUT_JOB=$SCRIPT_DIR/goodput-job.py
[[ $GOODPUT -eq 0 || -r $GOODPUT_JOB ]] || die "no goodput job at $GOODPUT_JOB"
for b in sbatch squeue scontrol scancel sinfo mountpoint timeout setsid $([[ $GOODPUT -eq 0 ]] || echo python3); do
  command -v "$b" >/dev/null 2>&1 || die "$b not found (scripts/slurm/install-deps.sh)"
done
if [[ " ${ROUND_LIST[*]} " == *" full-disk "* && $(id -u) -ne 0 ]]; then
  die "the full-disk round mounts a tmpfs: run as root, or leave it out (--rounds)"
fi

# ------------------------------------------------------------------ time
now_ms() { local t=${EPOCHREALTIME//[.,]/}; echo $((t / 1000)); }
rand() { echo $(( $1 + RANDOM % ($2 - $1 + 1) )); }  # rand LO HI (inclusive)

# ------------------------------------------------------------------ cluster, cleanup
TMP=$(mktemp -d /tmp/hetsched-chaos.XXXXXX) || die "mktemp failed"
CL=$TMP/cluster
WORK=${KEEP:-$TMP/work}
AGENT_PID=""
MOUNTED=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n $AGENT_PID ]] && kill -0 "$AGENT_PID" 2>/dev/null; then kill -KILL "$AGENT_PID" 2>/dev/null; fi
  if [[ -n $MOUNTED ]] && mountpoint -q "$MOUNTED"; then umount "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED"; fi
  if [[ -n $KEEP && -d $CL/log ]]; then mkdir -p "$KEEP/cluster-log" && cp -r "$CL/log/." "$KEEP/cluster-log/" 2>/dev/null; fi
  "$SCRIPT_DIR/stop-cluster.sh" "$CL" --purge >/dev/null 2>&1 || log "stop-cluster.sh $CL failed"
  rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

mkdir -p "$WORK" || die "cannot create $WORK"
WORK=$(cd "$WORK" && pwd -P)
# A cluster of its own for each round (the same DIR, so the same SLURM_CONF path): what a fault
# leaves inside Slurm (Slurm 22.05 can get a node's GPU count wrong after a slurmctld restart,
# docs/slurm.md) must not carry over into the next round. The old cluster's logs are kept.
start_cluster() {
  if [[ -d $CL/etc ]]; then
    if [[ -n $KEEP && -d $CL/log ]]; then mkdir -p "$KEEP/cluster-log-$1" && cp -r "$CL/log/." "$KEEP/cluster-log-$1/" 2>/dev/null; fi
    "$SCRIPT_DIR/stop-cluster.sh" "$CL" --purge >/dev/null 2>&1 || log "stop-cluster.sh $CL failed"
  fi
  log "starting the cluster in $CL (4 x a100 + 4 x v100)"
  CLUSTER_ENV=$("$SCRIPT_DIR/start-cluster.sh" "$CL" --a100 4 --v100 4 2>"$TMP/start-cluster.err") || {
    cat "$TMP/start-cluster.err" >&2; die "start-cluster.sh failed"; }
  eval "$CLUSTER_ENV"
  export SLURM_CONF
}
start_cluster 0
CONF=$SLURM_CONF
PIDS=$CL/run/pids
JOBCOMP=$CL/log/jobcomp.txt
NNODES=8

sq() { timeout 8 squeue "$@" 2>/dev/null; }
sctl() { timeout 10 scontrol "$@"; }

# The job script: MARKER_DIR KIND SECONDS [GOODPUT_JOB GOODPUT_DIR STEPS]. Never sees a name or a
# comment.
JOBSCRIPT=$WORK/job.sh
cat >"$JOBSCRIPT" <<'JOB'
#!/bin/bash
# chaos.sh job: MARKER_DIR KIND SECONDS [GOODPUT_JOB GOODPUT_DIR STEPS]. A run stopped by SIGTERM
# (preempted, cancelled) logs "killed" and writes nothing else; a run that finishes appends a line
# starting with its job id to MARKER_DIR/ID.done (KIND fail: to ID.failed, then exit 3).
# A marker line is "ID start=EPOCH end=EPOCH nodes=LIST" (start: when this run's script began).
# A goodput job's work is STEPS steps of GOODPUT_JOB (scripts/slurm/goodput-job.py) instead of the
# sleep; a run of it that exits non-zero by itself (no allocation to read: the agent's fault) logs
# "goodput-job failed" and exits 4, neither completed nor failed as planned.
dir=$1 kind=$2 secs=$3
# Times from bash's own clock (printf %()T), not date(1): Slurm's SIGTERM reaches every process of
# the job, and a date killed at the run's very end left "end=" empty, so that a run preempted as
# it ended was taken for a completion.
printf -v t0 '%(%s)T' -1
echo "start $SLURM_JOB_ID restarts=${SLURM_RESTART_COUNT:-0} nodes=$SLURM_JOB_NODELIST gpus=${CUDA_VISIBLE_DEVICES:-} $(date +%s.%N)"
trap 'echo "killed $SLURM_JOB_ID $(date +%s.%N)"; exit 143' TERM
if [[ $# -ge 6 ]]; then python3 "$4" "$5" "$6" & else sleep "$secs" & fi
# Slurm signals every process of the job: the sleep may die of its SIGTERM before this shell
# gets its own, and the run must not count as finished then.
wait $!; rc=$?
if [[ $rc -gt 128 ]]; then echo "killed $SLURM_JOB_ID $(date +%s.%N) (work stopped)"; exit 143; fi
if [[ $rc -ne 0 ]]; then echo "goodput-job failed rc=$rc $SLURM_JOB_ID $(date +%s.%N)"; exit 4; fi
if [[ $kind == fail ]]; then
  printf -v t1 '%(%s)T' -1
  echo "$SLURM_JOB_ID start=$t0 end=$t1 nodes=$SLURM_JOB_NODELIST" >>"$dir/$SLURM_JOB_ID.failed"
  echo "failed $SLURM_JOB_ID $(date +%s.%N)"
  exit 3
fi
printf -v t1 '%(%s)T' -1
echo "$SLURM_JOB_ID start=$t0 end=$t1 nodes=$SLURM_JOB_NODELIST" >>"$dir/$SLURM_JOB_ID.done"
echo "done $SLURM_JOB_ID $(date +%s.%N)"
JOB
chmod +x "$JOBSCRIPT"

# ------------------------------------------------------------------ per-round state
RD=""; J=""; ROUND=""; T0=0
declare -A KIND=() STATE=() STARTT=() REASON=()
EFF=""; EFF_GHOST=0
VALID_IDS=(); INVALID_IDS=(); ALL_IDS=(); GP_IDS=()
AGENT_K=0; AGENT_CAUSE=""; RESTART_AT=0; AGENT_DONE=0; SELF_STREAK=0
N_SELF=0; N_CAUSED=0; SELF_DESC=""; EVER_RAN=0
EV_AT=(); EV_WHAT=()
NOTES=(); CHECK_FAIL=()
ALL_ENDED_SINCE=0
FAULTS_DONE=0
DISK_FULL_AT=0; DISK_ERR_AT=0

note() { NOTES+=("$*"); echo "  [$(( ($(now_ms) - T0) / 1000 ))s] $*" >>"$RD/events.txt"; }
event() { echo "  [$(( ($(now_ms) - T0) / 1000 ))s] $*" >>"$RD/events.txt"; }

schedule() {  # schedule DELAY_MS WHAT...
  EV_AT+=($(( $(now_ms) + $1 ))); shift
  EV_WHAT+=("$*")
}

# ------------------------------------------------------------------ agent supervisor
agent_alive() {
  [[ -n $AGENT_PID ]] || return 1
  local k v status
  status=$(cat "/proc/$AGENT_PID/status" 2>/dev/null) || return 1
  while read -r k v; do
    if [[ $k == State: ]]; then [[ $v != Z* ]]; return; fi
  done <<<"$status"
  return 1
}

# agent_opts GOODPUT_DIR -> AOPTS: the methods, and the goodput options (--goodput)
agent_opts() {
  AOPTS=(--policy "$POLICY" "${POPTS[@]}")
  [[ $GOODPUT -eq 0 ]] || AOPTS+=(--goodput-dir "$1" --profile-types v100 --goodput-interval 2)
}
start_agent() {
  AGENT_K=$((AGENT_K + 1))
  agent_opts "$RD/goodput"
  "$HETSCHED" agent --slurm "${AOPTS[@]}" --journal "$J" -o "$RD/agent-out" \
    --poll 0.1 --exit-after-jobs "${#ALL_IDS[@]}" \
    >"$RD/agent/start-$AGENT_K.out" 2>"$RD/agent/start-$AGENT_K.err" &
  AGENT_PID=$!
  AGENT_CAUSE=""
  RESTART_AT=0
  event "agent start $AGENT_K (pid $AGENT_PID)"
}

# Reaps an agent that has exited and files the exit: caused (kill -9 / SIGTERM by this script),
# done (exit 0 after every valid job ended in Slurm), or self (anything else).
reap_agent() {
  [[ -n $AGENT_PID ]] || return 0
  agent_alive && return 0
  local rc=0
  wait "$AGENT_PID" 2>/dev/null; rc=$?
  local k=$AGENT_K el=$(( ($(now_ms) - T0) / 1000 ))
  # An agent stops by design when its journal cannot be written (docs/slurm.md): in the full-disk
  # round that exit is the fault's doing, not the agent's.
  if [[ -z $AGENT_CAUSE && $ROUND == full-disk && $rc -ne 0 ]] &&
     grep -qE 'journal (write|fsync) failed' "$RD/agent/start-$AGENT_K.err" 2>/dev/null; then
    AGENT_CAUSE=journal-disk-full
  fi
  if [[ -n $AGENT_CAUSE ]]; then
    N_CAUSED=$((N_CAUSED + 1))
    echo "$k $AGENT_PID rc=$rc caused:$AGENT_CAUSE t=${el}s" >>"$RD/agent/exits.txt"
    SELF_STREAK=0
  elif [[ $rc -eq 0 ]] && poll_slurm && all_valid_ended; then
    AGENT_DONE=1
    echo "$k $AGENT_PID rc=0 done t=${el}s" >>"$RD/agent/exits.txt"
  else
    N_SELF=$((N_SELF + 1))
    SELF_STREAK=$((SELF_STREAK + 1))
    echo "$k $AGENT_PID rc=$rc SELF t=${el}s" >>"$RD/agent/exits.txt"
    SELF_DESC+="rc=$rc@${el}s "
    {
      echo "== round $ROUND: agent start $k exited by itself, rc=$rc, ${el}s into the round; last stderr lines:"
      tail -n 8 "$RD/agent/start-$k.err" | sed 's/^/   | /'
    } | tee -a "$RD/self-exits.txt" >>"$DETAILS"
  fi
  event "agent start $k exited rc=$rc cause=${AGENT_CAUSE:-none}"
  AGENT_PID=""
  AGENT_CAUSE=""
  if [[ $AGENT_DONE -eq 0 && $RESTART_AT -eq 0 ]]; then
    local backoff=1000
    [[ $SELF_STREAK -gt 1 ]] && backoff=$(( SELF_STREAK > 4 ? 8000 : 1000 << (SELF_STREAK - 1) ))
    RESTART_AT=$(( $(now_ms) + backoff ))
  fi
}

# kill -9 the agent (if running) and reap it; the restart is scheduled DELAY_MS later (-1: none).
kill9_agent() {
  local delay=$1
  if agent_alive; then
    AGENT_CAUSE=kill9
    kill -KILL "$AGENT_PID" 2>/dev/null
    # Dead before anything else happens: the journal is touched next (torn record, garbage), and
    # a process still alive is not reaped (nor its exit counted) by reap_agent.
    local end=$(( $(now_ms) + 5000 ))
    while agent_alive && [[ $(now_ms) -lt $end ]]; do sleep 0.05; done
    RESTART_AT=-1; reap_agent
  elif [[ -n $AGENT_PID ]]; then
    reap_agent
  fi
  if [[ $delay -ge 0 ]]; then RESTART_AT=$(( $(now_ms) + delay )); else RESTART_AT=-1; fi
}

stop_agent_term() {  # at the round's end
  agent_alive || { reap_agent; return 0; }
  AGENT_CAUSE=sigterm-at-end
  kill -TERM "$AGENT_PID" 2>/dev/null
  local end=$(( $(now_ms) + 15000 ))
  while agent_alive && [[ $(now_ms) -lt $end ]]; do sleep 0.2; done
  if agent_alive; then AGENT_CAUSE=kill9-at-end; kill -KILL "$AGENT_PID" 2>/dev/null; sleep 0.2; fi
  RESTART_AT=-1
  reap_agent
  note "agent stopped at the end"
}

# ------------------------------------------------------------------ Slurm state
ACTIVE_RE='^(PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED|REQUEUED|REQUEUE_HOLD|REQUEUE_FED|RESIZING|SIGNALING|STAGE_OUT|STOPPED|SPECIAL_EXIT)$'
poll_slurm() {  # fills STATE/STARTT/REASON for this round's jobs; 1 if squeue does not answer
  local out id st start reason
  out=$(sq -h -t all -O "JobID:|,State:|,StartTime:|,Reason:|") || return 1
  STATE=(); STARTT=(); REASON=()
  while IFS='|' read -r id st start reason; do
    id=${id// /}
    [[ -n ${KIND[$id]:-} ]] || continue
    STATE[$id]=${st// /}; STARTT[$id]=$start; REASON[$id]=${reason%|}
  done < <(awk -F'|' 'BEGIN { OFS = "|" } { s = $3; gsub(/[-T:]/, " ", s); $3 = ($3 ~ /^[0-9]/ ? mktime(s) : 0); print }' <<<"$out")
  return 0
}
# EFF = Slurm's state of a job: squeue's, or (purged from squeue) jobcomp.txt's last, or GONE.
# A job squeue shows RUNNING whose current run jobcomp.txt records as ended (same start time) is
# the ghost of a slurmctld restarted from state saved before that run ended (kill -9): its state
# is the recorded end (EFF_GHOST=1). Needs load_jobcomp first.
effective_state() {
  local id=$1 r rs s e ec
  EFF=${STATE[$id]:-}; EFF_GHOST=0
  if [[ -z $EFF ]]; then EFF=$(jobcomp_last_state "$id"); EFF=${EFF:-GONE}; return; fi
  [[ $EFF == RUNNING || $EFF == COMPLETING ]] || return 0
  [[ ${STARTT[$id]:-0} -gt 0 ]] || return 0
  for r in ${JC_RUNS[$id]:-}; do
    IFS=: read -r rs s e ec <<<"$r"
    if [[ $s -eq ${STARTT[$id]} && ! $rs =~ $ACTIVE_RE ]]; then EFF=$rs; EFF_GHOST=1; return 0; fi
  done
}
jobcomp_last_state() {  # for a job purged from squeue
  awk -v id="$1" '{ for (i = 1; i <= NF; i++) { if ($i == "JobId=" id) f = 1; if ($i ~ /^JobState=/) s = substr($i, 10) }
                    if (f) last = s; f = 0 } END { print last }' "$JOBCOMP" 2>/dev/null
}
all_valid_ended() {
  local id st running=0
  for id in "${VALID_IDS[@]}"; do  # cheap test first: anything pending is not over
    st=${STATE[$id]:-}
    if [[ $st == RUNNING || $st == COMPLETING ]]; then running=1
    elif [[ $st =~ $ACTIVE_RE ]]; then return 1; fi
  done
  [[ $running -eq 0 ]] || load_jobcomp
  for id in "${VALID_IDS[@]}"; do
    effective_state "$id"
    [[ $EFF =~ $ACTIVE_RE || $EFF == GONE ]] && return 1
  done
  return 0
}

prepare_cluster() {  # no active job, every node up and idle
  local left end
  left=$(sq -h -t PD,R,CG,CF,S -o %i | tr '\n' ' ')
  if [[ -n ${left// } ]]; then
    log "cancelling jobs left over: $left"
    # shellcheck disable=SC2086
    timeout 10 scancel $left 2>/dev/null
  fi
  end=$(( $(now_ms) + 60000 ))
  while [[ $(now_ms) -lt $end ]]; do
    local states bad=0 n node st
    states=$(timeout 8 sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
    n=$(awk '$2 == "idle"' <<<"$states" | wc -l)
    left=$(sq -h -t PD,R,CG,CF,S -o %i)
    [[ $n -eq $NNODES && -z $left ]] && return 0
    while read -r node st; do
      [[ -n $node ]] || continue
      case "$st" in down*|drain*|fail*) bad=1; sctl update NodeName="$node" State=RESUME 2>/dev/null ;; esac
    done <<<"$states"
    [[ $bad -eq 1 ]] && log "resumed nodes that were down/drained"
    sleep 1
  done
  log "warning: cluster not idle before round $ROUND: $(timeout 8 sinfo -h -N -o '%N %T' | tr '\n' ' ')"
}

# ------------------------------------------------------------------ jobs
REQUESTS=("--gpus=1" "--gpus=a100:1" "--gpus=2" "--gpus=v100:2" "--gpus=a100:4" "--gpus=4"
          "--gpus=v100:8" "--gpus=8" "-N 2 --gres=gpu:v100:4" "--gpus=a100:2" "--gpus=v100:4"
          "--gpus=6" "-N 2 --gres=gpu:a100:4" "--gpus=12")
# Goodput jobs (--goodput): what they ask of Slurm (their profiles are V100's: --profile-types
# v100, so typed requests name v100) and their comments (adaptive and elastic, adaptive only, the
# user's batch; one with text before "hetsched").
GP_REQUESTS=("--gpus=1" "--gpus=v100:2" "--gpus=2" "--gpus=v100:1" "-N 2 --gres=gpu:v100:2" "--gpus=4")
GP_COMMENTS=("hetsched application=cifar10 adaptive_batch=1 elastic=1 total_batch_size=128"
             "hetsched application=cifar10 adaptive_batch=1 total_batch_size=128"
             "chaos goodput: hetsched application=cifar10 adaptive_batch=1 elastic=1 total_batch_size=256"
             "hetsched application=cifar10 adaptive_batch=0 total_batch_size=128")
GP_STEPS=()  # the next submit's goodput arguments (empty: a rigid job)
submit() {  # submit KIND SECONDS NAME COMMENT(or "") SBATCH-ARGS... -> id on stdout
  local kind=$1 secs=$2 name=$3 comment=$4; shift 4
  local args=(--parsable --hold -p all --open-mode=append -o "$RD/out/%j.out" -D "$RD/out" --job-name="$name")
  [[ -z $comment ]] || args+=(--comment="$comment")
  timeout 15 sbatch "${args[@]}" "$@" "$JOBSCRIPT" "$RD/markers" "$kind" "$secs" "${GP_STEPS[@]}"
}
submit_round_jobs() {
  local i kind secs req id comment nf=0 ncr=0 ncp=0 NF=0 NCR=0 NCP=0
  if [[ $ROUND == jobs-fail ]]; then
    if [[ $SHORT -eq 1 ]]; then NF=3; NCR=2; NCP=1; else NF=6; NCR=3; NCP=3; fi
  fi
  for ((i = 0; i < NVALID; i++)); do
    kind=ok; secs=$(( 2 + (i * 5 + i / 7) % 7 ))
    if [[ $i -ge $((NVALID - NCP)) ]]; then kind=cancel-pending; ncp=$((ncp + 1))
    elif [[ $((i % 7)) -eq 3 && $nf -lt $NF ]]; then kind=fail; nf=$((nf + 1))
    elif [[ $((i % 7)) -eq 5 && $ncr -lt $NCR ]]; then kind=cancel-running; ncr=$((ncr + 1)); secs=8
    fi
    GP_STEPS=()
    if [[ $GOODPUT -eq 1 && $((i % 2)) -eq 1 ]]; then  # every other job a goodput job
      local g=$((i / 2))
      read -r -a req <<<"${GP_REQUESTS[$((g % ${#GP_REQUESTS[@]}))]}"
      comment=${GP_COMMENTS[$((g % ${#GP_COMMENTS[@]}))]}
      GP_STEPS=("$GOODPUT_JOB" "$RD/goodput" $((secs * 10)))  # about 0.06 s a step at batch 128
    else
      read -r -a req <<<"${REQUESTS[$((i % ${#REQUESTS[@]}))]}"
      case $((i % 4)) in
        0|1) comment="hetsched model=resnet50 iterations=100" ;;
        2) comment="chaos $ROUND job $i: hetsched model=resnet50 iterations=100" ;;
        3) comment="" ;;
      esac
    fi
    id=$(submit "$kind" "$secs" "chaos-$ROUND-$i" "$comment" "${req[@]}") || { log "sbatch failed (job $i)"; return 1; }
    KIND[$id]=$kind; VALID_IDS+=("$id"); ALL_IDS+=("$id")
    if [[ ${#GP_STEPS[@]} -gt 0 ]]; then
      GP_IDS+=("$id")
      echo "$id $kind goodput steps=${GP_STEPS[2]} ${req[*]} comment='$comment'" >>"$RD/jobs.txt"
    else
      echo "$id $kind sleep=$secs ${req[*]} comment='$comment'" >>"$RD/jobs.txt"
    fi
  done
  GP_STEPS=()
  local bad=("--gpus=h100x:1|hetsched model=resnet50 iterations=100"
             "--gpus=1|hetsched iterations=many"
             "--gpus=a100:64|hetsched model=resnet50 iterations=100"
             "--gpus=2|hetsched model=nosuchmodel iterations=100")
  local ninvalid=$NINVALID
  if [[ $GOODPUT -eq 1 ]]; then  # goodput jobs the agent must refuse too: 1 more (--short) or 2
    bad=("${bad[@]:0:NINVALID}"
         "--gpus=1|hetsched application=nosuchapp adaptive_batch=1 total_batch_size=128"
         "--gpus=v100:1|hetsched application=cifar10 adaptive_bacth=1 total_batch_size=128")
    ninvalid=$(( NINVALID + (SHORT ? 1 : 2) ))
  fi
  for ((i = 0; i < ninvalid; i++)); do
    req=("${bad[$i]%%|*}"); comment=${bad[$i]#*|}
    id=$(submit invalid 2 "chaos-$ROUND-invalid-$i" "$comment" "${req[@]}") || { log "sbatch failed (invalid $i)"; return 1; }
    KIND[$id]=invalid; INVALID_IDS+=("$id"); ALL_IDS+=("$id")
    echo "$id invalid ${req[*]} comment='$comment'" >>"$RD/jobs.txt"
  done
}

# ------------------------------------------------------------------ faults
pid_from_pids() {  # NAME -> pid whose command line names our slurm.conf
  local name pid
  while read -r name pid; do
    [[ $name == "$1" ]] || continue
    if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$CONF"; then echo "$pid"; return 0; fi
  done <"$PIDS"
  return 1
}
slurmd_start() {  # as start-cluster.sh starts it
  local node=$1 pid
  setsid /usr/sbin/slurmd -D -N "$node" -f "$CONF" </dev/null >>"$CL/log/slurmd-$node.out" 2>&1 &
  pid=$!
  sed -i "/^slurmd:$node /d" "$PIDS"
  echo "slurmd:$node $pid" >>"$PIDS"
  event "slurmd $node restarted (pid $pid)"
}
node_check() {
  local st
  st=$(timeout 8 sinfo -h -n "$1" -o %T 2>/dev/null | head -1)
  case "$st" in
    down*|drain*|fail*)
      note "node $1 was $st after its slurmd restart: RESUMEd"
      sctl update NodeName="$1" State=RESUME 2>/dev/null ;;
    *) event "node $1 is $st" ;;
  esac
}
torn_append() {  # kill -9, append a torn record, restart at once
  kill9_agent -1
  if [[ $1 == 1 ]]; then
    printf '{"ev":"place","job":%s,"nodes":["a100-' "${VALID_IDS[0]}" >>"$J"
  else
    printf '{"ev":"finish","job":%s,"sta\n' "${VALID_IDS[0]}" >>"$J"
  fi
  TORN_STARTS+=("$((AGENT_K + 1))")
  event "torn record $1 appended to the journal"
  start_agent
}
midfile_garbage() {
  kill9_agent -1
  local n line rc
  n=$(wc -l <"$J")
  line=$(( n / 2 > 1 ? n / 2 : 1 ))
  cp "$J" "$RD/journal.good.jsonl"
  awk -v L="$line" 'NR == L { print "garbage: not a journal record {" } { print }' "$RD/journal.good.jsonl" >"$J"
  event "garbage inserted at $J:$line ($n lines)"
  agent_opts "$RD/goodput"
  timeout 20 "$HETSCHED" agent --slurm "${AOPTS[@]}" --journal "$J" -o "$RD/agent-out" \
    --poll 0.1 --exit-after-jobs "${#ALL_IDS[@]}" >"$RD/agent/midfile.out" 2>"$RD/agent/midfile.err"
  rc=$?
  if [[ $rc -ne 0 && $rc -ne 124 ]] && grep -qF -- "$J:$line" "$RD/agent/midfile.err"; then
    MIDFILE="refused"
    note "mid-file garbage refused (rc=$rc): $(grep -F -- "$J:$line" "$RD/agent/midfile.err" | head -1 | cut -c1-150)"
  else
    MIDFILE="NOT-refused"
    CHECK_FAIL+=("mid-file garbage at line $line not refused (rc=$rc)")
    note "mid-file garbage NOT refused (rc=$rc): $(tail -n 2 "$RD/agent/midfile.err" | tr '\n' ' ' | cut -c1-200)"
  fi
  cp "$RD/journal.good.jsonl" "$J"
  start_agent
}
nospc_reports() { cat "$RD"/agent/start-*.err 2>/dev/null | grep -ciE "no space|ENOSPC"; }
run_event() {  # one scheduled action
  local what=$1 arg=${2:-} pid node d
  case "$what" in
    agent-kill)
      if agent_alive; then
        d=$(rand 0 2000)
        kill9_agent "$d"; FAULTS_DONE=$((FAULTS_DONE + 1)); event "agent kill -9, restart in ${d} ms"
      else
        schedule 1000 agent-kill   # not running right now: a moment later
      fi ;;
    ctld-stop)
      "$SCRIPT_DIR/ctld.sh" "$CL" stop >>"$RD/events.txt" 2>&1
      FAULTS_DONE=$((FAULTS_DONE + 1)); event "slurmctld stopped (ctld.sh), down ${arg} s"
      schedule $((arg * 1000)) ctld-start ;;
    ctld-kill)
      pid=$(pid_from_pids slurmctld) || { note "no slurmctld pid to kill"; return; }
      [[ $(cat "/proc/$pid/comm" 2>/dev/null) == slurmctld ]] || { note "pid $pid is not slurmctld"; return; }
      kill -KILL "$pid"
      local end=$(( $(now_ms) + 5000 ))
      while kill -0 "$pid" 2>/dev/null && [[ $(now_ms) -lt $end ]]; do sleep 0.1; done
      FAULTS_DONE=$((FAULTS_DONE + 1)); event "slurmctld kill -9 (pid $pid), start in ${arg} s"
      schedule $((arg * 1000)) ctld-start ;;
    ctld-start)
      "$SCRIPT_DIR/ctld.sh" "$CL" start >>"$RD/events.txt" 2>&1 || note "ctld.sh start failed"
      event "slurmctld started"
      # After a kill -9, slurmctld drains nodes whose slurmd reports a job it launched again
      # ("Duplicate jobid"): an operator resumes them, and so does this script (noted).
      [[ $ROUND == ctld-kill ]] && { schedule 15000 drain-check; schedule 30000 drain-check; } ;;
    drain-check)
      local node st reason
      while read -r node st reason; do
        [[ -n $node ]] || continue
        case "$st" in
          down*|drain*|fail*)
            note "node $node was $st ($reason) after slurmctld's kill: RESUMEd"
            sctl update NodeName="$node" State=RESUME 2>/dev/null ;;
        esac
      done < <(timeout 8 sinfo -h -N -o '%N %T %E' 2>/dev/null | sort -u) ;;
    slurmd-kill)
      local lists nodes=()
      lists=$(sq -h -t R -o %N | sort -u)
      if [[ -n $lists ]]; then
        mapfile -t nodes < <(while read -r l; do timeout 8 scontrol show hostnames "$l"; done <<<"$lists" | sort -u)
      fi
      if [[ ${#nodes[@]} -eq 0 ]]; then schedule 1000 slurmd-kill "$arg"; return; fi
      node=${nodes[$((RANDOM % ${#nodes[@]}))]}
      pid=$(pid_from_pids "slurmd:$node") || { note "no slurmd pid for $node"; return; }
      tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "-N $node " || { note "pid $pid is not slurmd $node"; return; }
      kill -KILL "$pid"
      FAULTS_DONE=$((FAULTS_DONE + 1))
      event "slurmd $node kill -9 (pid $pid; running: $(sq -h -t R -w "$node" -o %i | tr '\n' ' ')), restart in ${arg} s"
      schedule $((arg * 1000)) slurmd-start "$node" ;;
    slurmd-start) slurmd_start "$arg"; schedule 15000 node-check "$arg" ;;
    node-check) node_check "$arg" ;;
    disk-fill)
      dd if=/dev/zero of="$MOUNTED/filler" bs=1k 2>/dev/null
      sync
      FAULTS_DONE=$((FAULTS_DONE + 1)); DISK_FULL_AT=$(now_ms); DISK_ERR_AT=0
      event "journal disk filled ($(df -k --output=avail "$MOUNTED" | tail -1 | tr -d ' ') KiB left)"
      schedule 1000 disk-watch "$arg" ;;
    disk-watch)  # the journal's last page may still have room: full until a write failed + ARG s
      if [[ $DISK_ERR_AT -eq 0 && $(nospc_reports) -gt 0 ]]; then DISK_ERR_AT=$(now_ms); event "first journal write error"; fi
      if [[ ($DISK_ERR_AT -gt 0 && $(now_ms) -ge $((DISK_ERR_AT + arg * 1000))) || $(now_ms) -ge $((DISK_FULL_AT + 30000)) ]]; then
        run_event disk-free
      else
        schedule 1000 disk-watch "$arg"
      fi ;;
    disk-free)
      rm -f "$MOUNTED/filler"
      note "disk full $(( ($(now_ms) - DISK_FULL_AT) / 1000 ))s, $(nospc_reports) write errors reported"
      event "journal disk freed" ;;
    torn) torn_append "$arg"; FAULTS_DONE=$((FAULTS_DONE + 1)) ;;
    midfile) midfile_garbage; FAULTS_DONE=$((FAULTS_DONE + 1)) ;;
    cancel-pending)
      local id
      for id in "${VALID_IDS[@]}"; do
        [[ ${KIND[$id]} == cancel-pending ]] || continue
        event "scancel $id (was ${STATE[$id]:-?} ${REASON[$id]:-})"
        timeout 10 scancel "$id" 2>>"$RD/events.txt"
      done ;;
    *) log "internal: unknown event $what" ;;
  esac
}
# Jobs meant to be cancelled while running: cancelled once Slurm shows them RUNNING (or at the
# latest 60 s into the round, whatever their state).
declare -A CANCELLED_BY_US=()
cancel_running_jobs() {
  local id el=$(( ($(now_ms) - T0) / 1000 ))
  for id in "${VALID_IDS[@]}"; do
    [[ ${KIND[$id]} == cancel-running && -z ${CANCELLED_BY_US[$id]:-} ]] || continue
    if [[ ${STATE[$id]:-} == RUNNING || $el -ge 60 ]]; then
      CANCELLED_BY_US[$id]=1
      event "scancel $id (was ${STATE[$id]:-?})"
      timeout 10 scancel "$id" 2>>"$RD/events.txt"
    fi
  done
}
run_due_events() {
  local i n=${#EV_AT[@]} t
  t=$(now_ms)
  for ((i = 0; i < n; i++)); do
    [[ -n ${EV_WHAT[$i]} && ${EV_AT[$i]} -le $t ]] || continue
    local what=${EV_WHAT[$i]}
    EV_WHAT[i]=""
    # shellcheck disable=SC2086
    run_event $what
  done
}
run_restorations_now() {
  local i w
  for ((i = 0; i < ${#EV_WHAT[@]}; i++)); do
    w=${EV_WHAT[$i]}
    case "$w" in
      ctld-start*|slurmd-start*|disk-free*|node-check*)
        EV_WHAT[i]=""
        # shellcheck disable=SC2086
        run_event $w ;;
      disk-watch*) EV_WHAT[i]=""; run_event disk-free ;;
    esac
  done
}

plan_faults() {
  local n t i
  case "$ROUND" in
    none) ;;
    agent-kill)
      n=$(( SHORT ? 2 : 3 )); t=$(rand 3000 6000)
      for ((i = 0; i < n; i++)); do schedule "$t" agent-kill; t=$(( t + $(rand 4000 12000) )); done ;;
    ctld-restart)
      n=$(( SHORT ? 1 : 2 )); t=$(rand 4000 8000)
      for ((i = 0; i < n; i++)); do schedule "$t" ctld-stop "$(rand 3 6)"; t=$(( t + $(rand 15000 25000) )); done ;;
    ctld-kill)
      n=$(( SHORT ? 1 : 2 )); t=$(rand 4000 8000)
      for ((i = 0; i < n; i++)); do schedule "$t" ctld-kill "$(rand 2 5)"; t=$(( t + $(rand 15000 25000) )); done ;;
    slurmd-kill)
      n=$(( SHORT ? 1 : 2 )); t=$(rand 4000 8000)
      for ((i = 0; i < n; i++)); do schedule "$t" slurmd-kill "$(rand 5 10)"; t=$(( t + $(rand 15000 25000) )); done ;;
    full-disk) schedule "$(rand 2000 4000)" disk-fill $(( SHORT ? 5 : 8 )) ;;
    corrupt-journal)
      t=$(rand 3000 6000); schedule "$t" torn 1
      t=$(( t + $(rand 4000 7000) )); schedule "$t" torn 2
      t=$(( t + $(rand 4000 7000) )); schedule "$t" midfile ;;
    jobs-fail) schedule 2000 cancel-pending ;;
  esac
}

# ------------------------------------------------------------------ counting
# Slurm's runs of a job: jobcomp.txt has one line per run that ended (COMPLETED, FAILED,
# CANCELLED, ... or PENDING for a run Slurm requeued), with the run's start and end times.
# A marker line (a run whose script got to its end) is matched to the Slurm run it belongs to by
# its start time. It is not a completion only when Slurm recorded that run as requeued or
# cancelled in the same second as (or before) the script finished: the SIGTERM was on its way as
# the script ended (a race of a preemption or cancel with the job's end; the run printed "done",
# then maybe "killed"). A script that finished well before Slurm ended its run otherwise (Slurm
# did not know yet: slurmctld was down when the job ended, and the run was requeued later), or a
# marker line with no Slurm run at all (slurmctld killed before it saved the run), is a
# completion: the job's work was done, and if it runs again it ran twice.
declare -A JC_RUNS=()
load_jobcomp() {
  JC_RUNS=()
  local id st s e ec
  while read -r id st s e ec; do
    [[ -n ${KIND[$id]:-} ]] || continue
    JC_RUNS[$id]+="$st:$s:$e:$ec "
  done < <(awk '{ id = st = start = end = ec = ""
                  for (i = 1; i <= NF; i++) {
                    if ($i ~ /^JobId=/) id = substr($i, 7); else if ($i ~ /^JobState=/) st = substr($i, 10)
                    else if ($i ~ /^StartTime=/) start = substr($i, 11); else if ($i ~ /^EndTime=/) end = substr($i, 9)
                    else if ($i ~ /^ExitCode=/) ec = substr($i, 10) }
                  s = start; gsub(/[-T:]/, " ", s); e = end; gsub(/[-T:]/, " ", e)
                  print id, st, (start ~ /^[0-9]/ ? mktime(s) : 0), (end ~ /^[0-9]/ ? mktime(e) : 0), ec }' "$JOBCOMP" 2>/dev/null)
}
slurm_runs() {  # slurm_runs ID STATE [EXITCODE] -> distinct runs (start times) in that state
  local r st s e ec n=0 seen=" "
  for r in ${JC_RUNS[$1]:-}; do
    IFS=: read -r st s e ec <<<"$r"
    [[ $st == "$2" && ( -z ${3:-} || $ec == "${3:-}" ) ]] || continue
    [[ $seen == *" $s "* ]] && continue
    seen+="$s "; n=$((n + 1))
  done
  echo "$n"
}
# marker_runs ID FILE WANT -> "COUNTED RACED UNKNOWN LAST": marker lines of runs Slurm did not
# record otherwise; of those, the runs Slurm has no line for at all (lost with slurmctld's state),
# and the latest start of a counted run
marker_runs() {
  local id=$1 file=$2 want=$3 counted=0 raced=0 unknown=0 last=0 line ms me r st s e ec match mend
  [[ -f $file ]] || { echo "0 0 0 0"; return; }
  while read -r line; do
    ms=${line#* start=}; ms=${ms%% *}
    me=${line#* end=}; me=${me%% *}
    [[ $ms =~ ^[0-9]+$ ]] || ms=0
    [[ $me =~ ^[0-9]+$ ]] || me=$ms
    # Slurm's lines for this run: a run that ended as WANT and was then requeued anyway (the
    # agent requeued a job that had already completed) has a WANT line and a PENDING line with
    # the same start: it completed.
    match=""; mend=0
    for r in ${JC_RUNS[$id]:-}; do
      IFS=: read -r st s e ec <<<"$r"
      [[ $s -gt 0 && $ms -ge $((s - 2)) && $ms -le $((e + 1)) ]] || continue
      [[ $match == "$want" ]] && continue
      match=$st; mend=$e
    done
    if [[ -n $match && $match != "$want" && $me -ge $((mend - 1)) ]]; then
      raced=$((raced + 1))
    else
      counted=$((counted + 1))
      [[ -n $match ]] || unknown=$((unknown + 1))
      [[ $ms -le $last ]] || last=$ms
    fi
  done <"$file"
  echo "$counted $raced $unknown $last"
}
# rolled_back ID -> completed runs of the job that Slurm later forgot: a run that printed `done`
# followed by a run whose SLURM_RESTART_COUNT is not higher (slurmctld restarted from state saved
# before that run, so it ran the job again as if it had not been)
rolled_back() {
  [[ -f $RD/out/$1.out ]] || { echo 0; return; }
  awk -v id="$1" '
    $1 == "start" && $2 == id { split($3, kv, "="); cur = kv[2] + 0
      for (k in done_at) if (cur <= done_at[k]) { n++; delete done_at[k] } }
    $1 == "done" && $2 == id { done_at[++d] = cur }
    END { print n + 0 }' "$RD/out/$1.out"
}
# first_finish ID -> the time (epoch s) of the job's first `finish` record in the journal, or 0
first_finish() {
  [[ -f $J ]] || { echo 0; return; }
  grep -E "\"ev\":\"finish\"" "$J" | grep -E "\"job\":${1}[,}]" | head -n 1 |
    sed -E 's/.*"t":([0-9]+).*/\1/;t;s/.*/0/'
}
count_round() {
  local id kind st rep done_m fail_m done_raced fail_raced comp_runs comp_lines fail_runs killed
  local done_unknown done_last fail_unknown fail_last
  local ghosts="" duplines="" mismatch=""
  ONCE=0; TWICE=0; LOST=0; REFUSED=0; FAILED_OK=0; CANCEL_OK=0; RACED=0; SLURM_LOST=0
  load_jobcomp
  : >"$RD/final.txt"
  for id in "${ALL_IDS[@]}"; do
    kind=${KIND[$id]}
    effective_state "$id"; st=$EFF
    [[ $EFF_GHOST -eq 0 ]] || ghosts+="$id "
    comp_runs=$(slurm_runs "$id" COMPLETED)
    comp_lines=$(grep -cE "^JobId=$id .* JobState=COMPLETED " "$JOBCOMP")
    fail_runs=$(slurm_runs "$id" FAILED 3:0)
    read -r done_m done_raced done_unknown done_last < <(marker_runs "$id" "$RD/markers/$id.done" COMPLETED)
    read -r fail_m fail_raced fail_unknown fail_last < <(marker_runs "$id" "$RD/markers/$id.failed" FAILED)
    killed=0
    [[ -f $RD/out/$id.out ]] && killed=$(grep -c '^killed' "$RD/out/$id.out")
    RACED=$((RACED + done_raced + fail_raced))
    local done_runs=$(( done_m > comp_runs ? done_m : comp_runs ))
    local fruns=$(( fail_m > fail_runs ? fail_m : fail_runs ))
    local ended=1 verdict
    [[ $st =~ $ACTIVE_RE || $st == GONE ]] && ended=0
    case "$kind" in
      invalid)
        rep=$(cat "$RD"/agent/start-*.err 2>/dev/null | grep -cE "rejected \(left held in Slurm\): .*Slurm job $id([^0-9]|$)")
        if [[ $st == PENDING && ${REASON[$id]:-} == JobHeldUser && $rep -ge 1 && $done_runs -eq 0 ]]; then
          REFUSED=$((REFUSED + 1)); verdict=refused
          [[ $rep -eq 1 ]] || note "invalid job $id reported rejected $rep times"
        else
          verdict=NOT-REFUSED
        fi ;;
      ok)
        # Completed again after slurmctld lost a completed run (no line in jobcomp.txt: killed
        # before it saved the run) and before the agent had seen any end of the job: Slurm's own
        # rerun, which the agent cannot tell from a requeue (docs/slurm.md). Counted apart.
        local forgot
        forgot=$(rolled_back "$id")
        [[ $forgot -ge $done_unknown ]] || forgot=$done_unknown
        if [[ $done_runs -ge 2 && $ended -eq 1 && $((done_runs - 1)) -le $forgot &&
              $(first_finish "$id") -ge $done_last ]]; then
          SLURM_LOST=$((SLURM_LOST + 1)); verdict=rerun-of-a-run-slurm-lost
        elif [[ $done_runs -ge 2 ]]; then TWICE=$((TWICE + 1)); verdict=TWICE
        elif [[ $ended -eq 1 && $done_runs -eq 1 ]]; then ONCE=$((ONCE + 1)); verdict=once
        else LOST=$((LOST + 1)); verdict=LOST; fi ;;
      fail)
        if [[ $fruns -ge 2 || $done_runs -ge 1 ]]; then TWICE=$((TWICE + 1)); verdict=TWICE
        elif [[ $ended -eq 1 && $fruns -eq 1 && $st == FAILED ]]; then FAILED_OK=$((FAILED_OK + 1)); verdict=failed
        else LOST=$((LOST + 1)); verdict=LOST; fi ;;
      cancel-*)
        if [[ $done_runs -ge 2 ]]; then TWICE=$((TWICE + 1)); verdict=TWICE
        elif [[ $ended -eq 1 && $done_runs -eq 1 ]]; then ONCE=$((ONCE + 1)); verdict=once-cancel-too-late
        elif [[ $ended -eq 1 && $st == CANCELLED ]]; then CANCEL_OK=$((CANCEL_OK + 1)); verdict=cancelled
        else LOST=$((LOST + 1)); verdict=LOST; fi ;;
    esac
    [[ $comp_lines -eq $comp_runs ]] || duplines+="$id($comp_lines/$comp_runs) "
    [[ $kind == invalid || $done_m -eq $comp_runs ]] || mismatch+="$id($done_m/$comp_runs) "
    local rsn=${REASON[$id]:-}
    printf '%s %s final=%s reason=%s slurm_completed=%s slurm_failed3=%s markers_done=%s markers_failed=%s raced=%s killed_runs=%s -> %s\n' \
      "$id" "$kind" "$st" "${rsn// /_}" "$comp_runs" "$fail_runs" "$done_m" "$fail_m" "$((done_raced + fail_raced))" \
      "$killed" "$verdict" >>"$RD/final.txt"
    if [[ $verdict == TWICE || $verdict == LOST || $verdict == NOT-REFUSED || $verdict == rerun-* ||
          $((done_raced + fail_raced)) -gt 0 ]]; then
      {
        echo "== round $ROUND: job $id ($kind) $verdict: final=$st reason=$rsn; Slurm runs COMPLETED=$comp_runs FAILED(3)=$fail_runs; markers done=$done_m failed=$fail_m (+$((done_raced + fail_raced)) of runs Slurm requeued/cancelled); killed runs=$killed"
        grep -E "^JobId=$id " "$JOBCOMP" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(JobState|StartTime|EndTime|NodeList|ExitCode)=/) printf "%s ", $i; print "" }' | sed 's/^/   jobcomp: /'
        cat "$RD/markers/$id.done" "$RD/markers/$id.failed" 2>/dev/null | sed 's/^/   marker: /'
        [[ -f $RD/out/$id.out ]] && sed 's/^/   run: /' "$RD/out/$id.out"
        [[ -f $J ]] && grep -E "\"job\":${id}[,}]" "$J" | sed 's/^/   journal: /' | cut -c1-200
      } >>"$DETAILS"
    fi
  done
  [[ $RACED -eq 0 ]] || note "$RACED run(s) reached their end as Slurm requeued/cancelled them (race; not completions)"
  [[ -z $ghosts ]] || note "RUNNING in squeue but ended in jobcomp.txt (slurmctld state rolled back; counted as ended): jobs ${ghosts% }"
  [[ -z $mismatch ]] || note "completed runs by marker/by jobcomp.txt differ: ${mismatch% }"
  [[ -z $duplines ]] || note "jobcomp.txt COMPLETED lines/distinct runs: ${duplines% }"
}

# Goodput jobs' own checks (--goodput), from their runs' logs (goodput-job.py logs each allocation
# it read), their metrics files and the final journal. Sets GP_ONCE (goodput jobs of kind ok that
# completed exactly once), GP_REPICK (journaled `repick` records) and GP_BAD (jobs that failed a
# check, each in chaos-details.txt):
#   stale     an allocation read with a lower `seq` than the one the job read before it (in this
#             run or an earlier one: an agent restart went back to an older allocation)
#   nodes     a run whose first allocation names other nodes than Slurm ran it on
#   noalloc   a run that found no allocation to read ("goodput-job failed")
#   measured  the journal's `measure` records of the job are not one per complete line of its
#             metrics file (a report read twice, or one never read), or a `measure_bad`
#   file      the final .alloc's seq is not the job's last journaled one (place or repick)
declare -A HOSTNAMES=()
hostnames() {  # a Slurm host list, expanded, sorted, comma-separated (cached)
  if [[ -z ${HOSTNAMES[$1]:-} ]]; then
    HOSTNAMES[$1]=$(timeout 8 scontrol show hostnames "$1" 2>/dev/null | sort | paste -sd, -)
  fi
  echo "${HOSTNAMES[$1]}"
}
goodput_checks() {
  local id kind out line why runnodes first lastseq seq nodes lines nmeas ndist nbad fseq jseq
  GP_ONCE=0; GP_BAD=0
  GP_REPICK=$(grep -c '"ev":"repick"' "$J" 2>/dev/null)
  for id in "${GP_IDS[@]}"; do
    kind=${KIND[$id]}
    why=""
    [[ $kind == ok ]] && grep -qE "^$id ok .*-> once$" "$RD/final.txt" && GP_ONCE=$((GP_ONCE + 1))
    out=$RD/out/$id.out
    runnodes=""; first=0; lastseq=-1
    if [[ -f $out ]]; then
      while read -r line; do
        case "$line" in
          "start $id "*)
            runnodes=${line#* nodes=}; runnodes=$(hostnames "${runnodes%% *}"); first=1 ;;
          "alloc job=$id "*)
            seq=${line#* seq=}; seq=${seq%% *}
            nodes=${line#* nodes=}; nodes=$(tr ',' '\n' <<<"${nodes%% *}" | sort | paste -sd, -)
            [[ $seq =~ ^[0-9]+$ ]] || seq=-1
            [[ $seq -ge $lastseq ]] || why+="stale(seq $seq after $lastseq) "
            lastseq=$seq
            if [[ $first -eq 1 && $nodes != "$runnodes" ]]; then why+="nodes(alloc $nodes, ran on $runnodes) "; fi
            first=0 ;;
          "alloc job="*) why+="alloc-of-another-job " ;;
          "goodput-job failed"*) why+="noalloc " ;;
        esac
      done <"$out"
    fi
    lines=0
    [[ -f $RD/goodput/$id.metrics ]] && lines=$(grep -c '' "$RD/goodput/$id.metrics")
    nmeas=$(grep -E '"ev":"measure"' "$J" | grep -cE "\"job\":${id}[,}]")
    ndist=$(grep -E '"ev":"measure"' "$J" | grep -E "\"job\":${id}[,}]" | sed -E 's/.*"line":([0-9]+).*/\1/' | sort -u | wc -l)
    nbad=$(grep -E '"ev":"measure_bad"' "$J" | grep -cE "\"job\":${id}[,}]")
    [[ $nmeas -eq $ndist && $ndist -eq $lines && $nbad -eq 0 ]] ||
      why+="measured($nmeas records, $ndist lines of $lines, $nbad bad) "
    if [[ -f $RD/goodput/$id.alloc ]]; then
      fseq=$(sed -nE 's/.*"seq":([0-9]+).*/\1/p' "$RD/goodput/$id.alloc")
      jseq=$(grep -E '"ev":"(place|repick)"' "$J" | grep -E "\"job\":${id}[,}]" | tail -n 1 |
             sed -nE 's/.*\\"seq\\":([0-9]+).*/\1/p')
      [[ -n $fseq && $fseq == "$jseq" ]] || why+="file(.alloc seq ${fseq:-?}, journal ${jseq:-?}) "
    fi
    echo "$id $kind goodput alloc-reads-last-seq=$lastseq metrics-lines=$lines measure-records=$nmeas checks=${why:-ok}" >>"$RD/goodput-checks.txt"
    if [[ -n $why ]]; then
      GP_BAD=$((GP_BAD + 1))
      CHECK_FAIL+=("goodput job $id: $why")
      {
        echo "== round $ROUND: goodput job $id ($kind) failed a check: $why"
        [[ -f $out ]] && sed 's/^/   run: /' "$out"
        grep -E "\"job\":${id}[,}]" "$J" | grep -E '"ev":"(place|repick|start|requeue|finish|preempt)"' | sed 's/^/   journal: /' | cut -c1-300
      } >>"$DETAILS"
    fi
  done
  [[ $GP_BAD -eq 0 ]] || note "$GP_BAD goodput job(s) failed a check (goodput-checks.txt)"
}

check_journal() {  # a fresh agent on a copy of the final journal
  local rc
  cp "$J" "$RD/journal.final.jsonl" 2>/dev/null || { JOURNAL=BAD; CHECK_FAIL+=("no journal"); return; }
  cp "$J" "$RD/journal.check.jsonl"
  # a copy of the goodput files too: the check agent may read or write them
  rm -rf "$RD/check-goodput"; [[ ! -d $RD/goodput ]] || cp -r "$RD/goodput" "$RD/check-goodput"
  agent_opts "$RD/check-goodput"
  timeout 30 "$HETSCHED" agent --slurm "${AOPTS[@]}" --journal "$RD/journal.check.jsonl" \
    -o "$RD/check-out" --poll 0.1 --exit-after-jobs 1 --idle-exit 1 >"$RD/check.out" 2>"$RD/check.err"
  rc=$?
  if grep -q '^journal : ' "$RD/check.out"; then
    JOURNAL=ok
    [[ $rc -eq 0 ]] || note "journal check agent started but exited rc=$rc"
  else
    JOURNAL=BAD
    CHECK_FAIL+=("final journal unreadable")
    note "final journal not readable (rc=$rc): $(head -n 2 "$RD/check.err" | tr '\n' ' ' | cut -c1-200)"
  fi
}

# ------------------------------------------------------------------ one round
DETAILS=$OUT_DIR/chaos-details.txt
TABLE=$OUT_DIR/chaos.txt
HEADER=$(printf '%-16s %-6s %4s %5s %7s %4s %7s %6s %6s %4s %6s %8s %7s %7s' \
  round jobs once twice sl-lost lost refused failed cancel self caused slurm-rq preempt journal)
[[ $GOODPUT -eq 0 ]] || HEADER+=$(printf ' %7s %6s %8s' gp-once repick gp-check)
HEADER+=$(printf ' %5s %-6s %s' secs result notes)
FAILED_ROUNDS=0
START_ALL=$(now_ms)

run_round() {
  local idx=$1
  ROUND=$2
  RD=$WORK/$(printf %02d "$idx")-$ROUND
  rm -rf "$RD"; mkdir -p "$RD/markers" "$RD/out" "$RD/agent"
  exec 2>>"$RD/shell.err"
  KIND=(); STATE=(); STARTT=(); REASON=(); CANCELLED_BY_US=()
  VALID_IDS=(); INVALID_IDS=(); ALL_IDS=(); GP_IDS=()
  AGENT_K=0; AGENT_PID=""; AGENT_CAUSE=""; RESTART_AT=0; AGENT_DONE=0; SELF_STREAK=0
  N_SELF=0; N_CAUSED=0; SELF_DESC=""; EVER_RAN=0
  EV_AT=(); EV_WHAT=(); NOTES=(); CHECK_FAIL=(); TORN_STARTS=(); MIDFILE=""
  ALL_ENDED_SINCE=0; FAULTS_DONE=0
  T0=$(now_ms)
  log "round $idx: $ROUND"
  prepare_cluster
  J=$RD/journal.jsonl
  MOUNTED=""
  if [[ $ROUND == full-disk ]]; then
    mkdir -p "$RD/jdisk"
    mount -t tmpfs -o size=1m,mode=0755 tmpfs "$RD/jdisk" || die "mount -t tmpfs failed"
    MOUNTED=$RD/jdisk
    J=$MOUNTED/journal.jsonl
  fi
  submit_round_jobs || die "could not submit the jobs of round $ROUND"
  T0=$(now_ms)
  local deadline=$(( T0 + ROUND_TIMEOUT * 1000 )) t w
  start_agent
  plan_faults
  while :; do
    t=$(now_ms)
    reap_agent
    if [[ -z $AGENT_PID && $AGENT_DONE -eq 0 && $RESTART_AT -gt 0 && $t -ge $RESTART_AT ]]; then start_agent; fi
    if poll_slurm; then
      if [[ $EVER_RAN -eq 0 ]]; then
        for w in "${VALID_IDS[@]}"; do
          [[ ${STATE[$w]:-} =~ ^(RUNNING|COMPLETING|COMPLETED|FAILED)$ ]] && { EVER_RAN=1; break; }
        done
      fi
      if all_valid_ended; then
        [[ $ALL_ENDED_SINCE -gt 0 ]] || { ALL_ENDED_SINCE=$t; event "every valid job ended in Slurm"; }
      else
        ALL_ENDED_SINCE=0
      fi
    fi
    if [[ $ALL_ENDED_SINCE -gt 0 && $((t - ALL_ENDED_SINCE)) -ge 3000 ]]; then
      if ! agent_alive || [[ $((t - ALL_ENDED_SINCE)) -ge 12000 ]]; then break; fi
    fi
    if [[ $t -ge $deadline ]]; then note "timed out after ${ROUND_TIMEOUT}s"; break; fi
    if [[ $EVER_RAN -eq 0 && $SELF_STREAK -ge 4 ]]; then  # a setup error (binary, policy, options)
      note "the agent exited by itself 4 times in a row before any job ran (see chaos-details.txt): round abandoned"
      break
    fi
    [[ $ALL_ENDED_SINCE -gt 0 ]] || run_due_events
    [[ $ROUND == jobs-fail ]] && cancel_running_jobs
    sleep 0.5
  done
  local secs=$(( ($(now_ms) - T0) / 1000 ))
  # The end: put back what a fault took away (a stopped slurmctld or slurmd, a full disk) at once,
  # stop the agent, count, clean up.
  run_restorations_now
  local left=0 w
  for w in "${EV_WHAT[@]}"; do [[ -z $w ]] || left=$((left + 1)); done
  [[ $left -eq 0 ]] || note "$left fault action(s) not run (round over first)"
  stop_agent_term
  for _ in 1 2 3 4 5; do poll_slurm && break; sleep 2; done
  count_round
  GP_ONCE=0; GP_REPICK=0; GP_BAD=0
  [[ $GOODPUT -eq 0 ]] || goodput_checks
  # cancel what is left of this round (held invalid jobs, stragglers), wait for it to end
  timeout 10 scancel "${ALL_IDS[@]}" 2>/dev/null
  local end=$(( $(now_ms) + 30000 ))
  while [[ $(now_ms) -lt $end ]]; do
    poll_slurm || { sleep 1; continue; }
    local active=0 id
    for id in "${ALL_IDS[@]}"; do [[ ${STATE[$id]:-} =~ $ACTIVE_RE ]] && active=1; done
    [[ $active -eq 0 ]] && break
    sleep 0.5
  done
  check_journal
  if [[ -n $MOUNTED ]]; then
    local nospc
    nospc=$(nospc_reports)
    [[ $nospc -gt 0 ]] || note "no journal write failed while the disk was full (the fault did not bite)"
    umount "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED"
    MOUNTED=""
  fi
  # fault-specific checks
  local k
  for k in "${TORN_STARTS[@]}"; do
    if grep -qE "incomplete last record dropped|\(last record, dropped\)" "$RD/agent/start-$k.err" 2>/dev/null &&
       grep -q '^journal : ' "$RD/agent/start-$k.out"; then
      note "torn record dropped by start $k"
    else
      CHECK_FAIL+=("start $k did not drop the torn record")
      note "torn record NOT dropped by start $k: $(head -n 2 "$RD/agent/start-$k.err" | tr '\n' ' ' | cut -c1-200)"
    fi
  done
  if [[ $ROUND == corrupt-journal && -z $MIDFILE ]]; then
    CHECK_FAIL+=("mid-file step not run"); note "the mid-file garbage step was not run (round over first)"
  fi
  [[ $FAULTS_DONE -gt 0 || $ROUND == none || $ROUND == jobs-fail ]] || note "no fault was injected"
  local rq preempt
  rq=$(cat "$RD"/agent/start-*.err 2>/dev/null | grep -c "requeued (Slurm requeued it")
  preempt=$(grep -c '"text":"preempted by the policy"' "$RD/journal.final.jsonl" 2>/dev/null)
  # Every run the agent recorded names the GPUs it ran on (a restart once recorded the runs that
  # ended while it was away without them: no GPU time in jobs.csv)
  local nodev
  nodev=$(grep -E '"ev":"start"' "$RD/journal.final.jsonl" 2>/dev/null | grep -vc '"devices":')
  [[ $nodev -eq 0 ]] || note "$nodev journal start record(s) name no GPUs (runs recorded without their GPU time)"
  [[ $N_SELF -eq 0 ]] || note "self-exits: $SELF_DESC"
  [[ $AGENT_K -le 1 ]] || note "agent starts: $AGENT_K"
  local result=ok
  if [[ $TWICE -gt 0 || $LOST -gt 0 || $N_SELF -gt 0 || $JOURNAL != ok || $REFUSED -ne ${#INVALID_IDS[@]} ||
        ${#CHECK_FAIL[@]} -gt 0 ]]; then
    result=FAILED; FAILED_ROUNDS=$((FAILED_ROUNDS + 1))
  fi
  local row notes
  notes=$(IFS=';'; echo "${NOTES[*]}")
  row=$(printf '%-16s %-6s %4d %5d %7d %4d %7s %6d %6d %4d %6d %8d %7d %7s' \
    "$ROUND" "${#VALID_IDS[@]}+${#INVALID_IDS[@]}" "$ONCE" "$TWICE" "$SLURM_LOST" "$LOST" "$REFUSED/${#INVALID_IDS[@]}" \
    "$FAILED_OK" "$CANCEL_OK" "$N_SELF" "$N_CAUSED" "$rq" "$preempt" "$JOURNAL")
  if [[ $GOODPUT -eq 1 ]]; then
    local gp_ok=0 g
    for g in "${GP_IDS[@]}"; do [[ ${KIND[$g]} == ok ]] && gp_ok=$((gp_ok + 1)); done
    row+=$(printf ' %7s %6d %8s' "$GP_ONCE/$gp_ok" "$GP_REPICK" "$([[ $GP_BAD -eq 0 ]] && echo ok || echo "$GP_BAD-BAD")")
  fi
  row+=$(printf ' %5d %-6s %s' "$secs" "$result" "$notes")
  echo "$row" | tee -a "$TABLE"
  echo "== round $ROUND: $result; per-job verdicts in $RD/final.txt" >>"$DETAILS"
  { echo "round $ROUND:"; cat "$RD/events.txt" 2>/dev/null; } >>"$DETAILS"
  exec 2>&3
}

{
  echo "chaos.sh $(date -u +%Y-%m-%dT%H:%M:%SZ): binary $HETSCHED"
  echo "policy $POLICY_DESC; $NVALID valid + $NINVALID invalid jobs per round; round timeout ${ROUND_TIMEOUT}s; seed $SEED"
  [[ $GOODPUT -eq 0 ]] || echo "goodput: every other valid job runs $GOODPUT_JOB (--goodput-dir ROUND/goodput --profile-types v100 --goodput-interval 2), $(( SHORT ? 1 : 2 )) more invalid"
  echo "$HEADER"
} | tee "$TABLE"
: >"$DETAILS"
idx=0
for r in "${ROUND_LIST[@]}"; do
  idx=$((idx + 1))
  [[ $idx -eq 1 ]] || start_cluster "$((idx - 1))"
  run_round "$idx" "$r"
done
total=$(( ($(now_ms) - START_ALL) / 1000 ))
echo "chaos: ${#ROUND_LIST[@]} rounds, $FAILED_ROUNDS failed (${total}s)" | tee -a "$TABLE"
[[ -z $KEEP ]] || log "round folders kept in $WORK"
[[ $FAILED_ROUNDS -eq 0 ]]
