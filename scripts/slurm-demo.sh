#!/usr/bin/env bash
# The Slurm back end, end to end on this machine: start a real heterogeneous Slurm cluster
# (4 nodes x 4 A100 + 4 nodes x 8 V100, scripts/slurm/start-cluster.sh), submit 40 held jobs with
# mixed GPU requests, let `hetsched agent --slurm` place and run them (fifo + pack unless
# POLICY/PLACER say otherwise), then put the real run beside a simulation of the same workload
# (`hetsched compare --real-run`). The cluster is stopped and its temp dir removed on exit.
# Usage: bash scripts/slurm-demo.sh [OUT_DIR]   (default hetsched-out/slurm-demo)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-hetsched-out/slurm-demo}
POLICY=${POLICY:-fifo}
PLACER=${PLACER:-pack}
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target hetsched_cli
B=$PWD/build/release/bin/hetsched

TMP=$(mktemp -d /tmp/hetsched-slurm-demo.XXXXXX)
cleanup() { scripts/slurm/stop-cluster.sh "$TMP/cluster" --purge >/dev/null 2>&1 || true; rm -rf "$TMP"; }
trap cleanup EXIT
eval "$(scripts/slurm/start-cluster.sh "$TMP/cluster" --a100 4 --v100 4)"
mkdir -p "$TMP/work" "$OUT"
rm -f "$OUT/journal.jsonl"
cat >"$TMP/work/train.sh" <<'JOB'
#!/bin/bash
# Stands in for a training job: a few seconds of "work" on the GPUs Slurm gave it.
sleep $((2 + SLURM_JOB_ID % 4))
echo "job $SLURM_JOB_ID ran on $SLURM_JOB_NODELIST with CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES"
JOB
chmod +x "$TMP/work/train.sh"
requests=(--gpus=1 --gpus=2 --gpus=a100:4 --gpus=v100:8 --gpus=4 --gpus=v100:2 --gpus=6 --gpus=a100:1)
models=(resnet50 bert-base resnet50 vgg16 transformer-nmt resnet18-cifar bert-base resnet50)
for i in $(seq 0 39); do
  k=$((i % 8))
  sbatch --hold -Q -o "$TMP/work/%j.out" -D "$TMP/work" "${requests[$k]}" \
    --job-name="demo-$i" --comment="hetsched model=${models[$k]} iterations=$((500 + 100 * k))" "$TMP/work/train.sh"
done
echo "slurm-demo: 40 held jobs submitted; the agent takes them"
"$B" agent --slurm --policy "$POLICY" --placer "$PLACER" --journal "$OUT/journal.jsonl" -o "$OUT" \
  --exit-after-jobs 40 --poll 0.2
echo
"$B" compare --cluster "$OUT/cluster.yaml" --trace "$OUT/workload.csv" --format native --policies "$POLICY" \
  --placers "$PLACER" --real-run "$OUT" -o "$OUT/compare" | tail -n 8
echo "slurm-demo: journal $OUT/journal.jsonl; real run $OUT/{summary.json,jobs.csv,timeline.csv,run.json}"
