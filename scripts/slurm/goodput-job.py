#!/usr/bin/env python3
"""An example goodput job for `hetsched agent --goodput-dir DIR` (docs/slurm.md, "Goodput jobs").

  sbatch --hold -p all --gpus=1 \
      --comment "hetsched application=cifar10 adaptive_batch=1 elastic=1 total_batch_size=128" \
      scripts/slurm/goodput-job.py DIR [STEPS]

Reads the agent's allocation DIR/$SLURM_JOB_ID.alloc, "trains" STEPS steps (a short sleep each),
and appends one measurement per step to DIR/$SLURM_JOB_ID.metrics (format v1), each line in one
write. Before each step it reads the allocation again: one with a higher `seq` for the same
placement (`restarts`) is a batch the agent re-picked, taken from that step on. Its progress
survives a requeue (the last progress it reported, as a checkpoint would). Each allocation read
that differs from the one read before (its `seq`) is logged to stdout, one line
"alloc job=ID seq=S restarts=R gpus=G local_bsz=L batch=B nodes=N1,N2" (scripts/slurm/chaos.sh
--goodput checks them). A real job measures its own pass times and gradient statistics (AdaptDL
does); these figures are made up. No shell runs here: the directory and the job id are used as paths only.
"""
import json
import os
import sys
import time


def read_alloc(directory, job):
    """The agent's allocation (written atomically: never half of one)."""
    with open(os.path.join(directory, f"{job}.alloc"), encoding="utf-8") as f:
        alloc = json.load(f)
    if alloc.get("v") != 1 or alloc.get("job") != job:
        sys.exit(f"{directory}/{job}.alloc: not a v1 allocation of job {job}")
    return alloc


def log_alloc(alloc):
    """One line per allocation read (stdout, flushed: the run may be stopped at any moment)."""
    print(f"alloc job={alloc['job']} seq={alloc.get('seq', 0)} restarts={alloc['restarts']} "
          f"gpus={alloc['gpus']} local_bsz={alloc['local_bsz']} batch={alloc['batch_size']} "
          f"nodes={','.join(alloc['nodes'])}", flush=True)


def pass_times(local, nodes, gpus):
    """Made-up pass times: linear in the local batch, synchronisation across GPUs and nodes."""
    accum_s = 0.002 + 0.0004 * local
    return accum_s, accum_s + 0.01 * (nodes > 1) + 0.002 * (gpus > 1)


def main():
    directory, steps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20
    job = int(os.environ["SLURM_JOB_ID"])
    alloc = read_alloc(directory, job)
    log_alloc(alloc)
    seen = alloc.get("seq", 0)  # the seq of the last allocation read (logged when it changes)
    metrics = os.path.join(directory, f"{job}.metrics")
    progress = 0.0
    if os.path.exists(metrics):  # resumed after a requeue: from the last reported progress
        with open(metrics, encoding="utf-8") as f:
            for line in f:
                if line.endswith("\n"):
                    progress = json.loads(line)["progress"]
    gpus, nodes = alloc["gpus"], len(alloc["placement"])
    local, accum = alloc["local_bsz"], alloc["accum_steps"]
    accum_s, optim_s = pass_times(local, nodes, gpus)
    fd = os.open(metrics, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    for _ in range(steps):
        latest = read_alloc(directory, job)
        if latest.get("seq", 0) != seen:
            log_alloc(latest)
            seen = latest.get("seq", 0)
        if latest.get("seq", 0) > alloc.get("seq", 0) and latest["restarts"] == alloc["restarts"]:
            alloc = latest  # a re-picked batch: the same GPUs
            local, accum = alloc["local_bsz"], alloc["accum_steps"]
            accum_s, optim_s = pass_times(local, nodes, gpus)
        time.sleep(optim_s + accum * accum_s)
        progress += alloc["batch_size"] / 128.0  # iterations at the initial batch, unweighted here
        line = {"v": 1, "gpus": gpus, "nodes": nodes, "local_bsz": local, "accum_steps": accum,
                "accum_step_s": accum_s, "optim_step_s": optim_s, "grad_sqr": 0.2, "grad_var": 2.0,
                "progress": progress}
        os.write(fd, (json.dumps(line) + "\n").encode())
    os.close(fd)


if __name__ == "__main__":
    main()
