#!/usr/bin/env bash
# Builds the libFuzzer targets (preset "fuzz": clang-16, ASan + UBSan, no LibTorch) and runs each
# for SECONDS seconds (default 10) on its corpus: fuzz/seeds/<target>/ (from the tests),
# fuzz/regressions/<target>/ (inputs that once failed) and the first 8 KiB of the matching files
# in data/ and tests/data/. New corpus entries stay in build/fuzz/corpus/; a failing input is
# written to build/fuzz/artifacts/ and the script exits non-zero. Usage:
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. bash scripts/fuzz.sh 600 fuzz_trace_gavel
# SECONDS=0 only replays the corpus (every seed and regression input once).
# FUZZ_SEED=N fixes libFuzzer's random seed (CI does: a run then repeats the same inputs in the same
# order, so CI is not a lottery; a longer local run with the same seed and an empty
# build/fuzz/corpus/ covers every input a shorter one tries). Unset: a new seed each run, for
# exploring (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
shift || true

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

bin=build/fuzz/bin
work=build/fuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_trace_native fuzz_trace_gavel fuzz_trace_tiresias fuzz_trace_philly fuzz_trace_helios
           fuzz_trace_pai fuzz_trace_pollux fuzz_trace_auto fuzz_cluster_spec fuzz_model_profile fuzz_squeue_text
           fuzz_slurm_json fuzz_journal fuzz_goodput_files)
fi

# Files of data/ and tests/data/ that are inputs of a target (cut to the fuzzers' max_len).
data_files() {
  case "$1" in
    fuzz_trace_gavel) ls data/real/gavel/traces/*.trace data/traces/*.trace ;;
    fuzz_trace_tiresias) ls data/real/tiresias/60_job.csv ;;
    fuzz_trace_philly) ls data/real/philly/philly_runtime.csv ;;
    fuzz_trace_pollux) ls data/real/pollux/workloads/workload-1.csv data/real/pollux/workloads/workload-6.csv ;;
    fuzz_cluster_spec) ls data/*.yaml data/real/gavel/cluster_specs_heterogeneous.json ;;
    fuzz_slurm_json) ls tests/data/slurm/*.json ;;
  esac
}

max_len=8192
# One target: its corpus, then libFuzzer; its summary (and on failure its log's tail) goes to
# $work/$t.summary, its status is the function's.
fuzz_one() {
  local t=$1 name=${1#fuzz_}
  local corpus=$work/corpus/$t seeds=$work/seeds/$t
  mkdir -p "$corpus" "$seeds" "$work/artifacts"
  rm -f "$seeds"/*
  for f in $(data_files "$t"); do head -c $max_len "$f" > "$seeds/data_$(basename "$f")"; done
  local dirs=("$corpus" "$seeds")
  [ -d "fuzz/seeds/$name" ] && dirs+=("fuzz/seeds/$name")
  [ -d "fuzz/regressions/$name" ] && dirs+=("fuzz/regressions/$name")
  local run
  if [ "$seconds" -eq 0 ]; then
    run=(-runs=0)
  else
    run=(-max_total_time="$seconds")
  fi
  [ -n "${FUZZ_SEED:-}" ] && run+=(-seed="$FUZZ_SEED")
  local rc=0
  {
    echo "fuzz: $t (${seconds} s)"
    # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a reader asking for 2 GiB on an
    # 8 KiB input is a bug. ASan's leak check runs at exit.
    "$bin/$t" "${run[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/$t-" "${dirs[@]}" >"$work/$t.log" 2>&1 || { rc=1; tail -40 "$work/$t.log"; }
    grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|INITED|DONE" "$work/$t.log" | tr '\n' ' ' | sed 's/^/  /'
    echo
  } >"$work/$t.summary"
  return $rc
}

# The targets run FUZZ_JOBS at a time (default: one per core; each is one single-threaded process,
# so each still gets its SECONDS of a core); summaries print in the targets' order.
jobs_max=${FUZZ_JOBS:-$(nproc)}
declare -A pid_of=()
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_one "$t" &
  pid_of[$t]=$!
done
failed=()
for t in "${targets[@]}"; do
  wait "${pid_of[$t]}" || failed+=("$t")
  cat "$work/$t.summary"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $work/artifacts/, logs in $work/<target>.log)"
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets passed"
