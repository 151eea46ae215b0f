"""FIFO in Python: strict arrival order (submit time, then id), head-of-line blocking, no
backfilling. It gives exactly the results of hetsched's built-in `fifo` with `backfill=none`
(tests/python/test_policies.py checks it on real traces).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/fifo_policy.py [TRACE]
"""
import bisect
import sys

import hetsched


class FifoPolicy(hetsched.JobScheduler):
    def __init__(self):
        self.queue = []  # (submit time, id), sorted

    def on_job_submitted(self, job, ctx):
        bisect.insort(self.queue, (job.submit_time, job.id))

    def on_job_requeued(self, job, ctx):
        # A requeued job keeps its place: the order is by submit time.
        bisect.insort(self.queue, (job.submit_time, job.id))

    def schedule(self, ctx):
        # Start jobs in order until one does not fit: the placer picks the devices.
        while self.queue and ctx.try_start(self.queue[0][1]):
            self.queue.pop(0)


if __name__ == "__main__":
    trace = sys.argv[1] if len(sys.argv) > 1 else None
    ours = hetsched.simulate(trace, policy=FifoPolicy())
    builtin = hetsched.simulate(trace, policy="fifo", policy_opts={"backfill": "none"})
    print("Python FifoPolicy :", ours)
    print("built-in fifo     :", builtin)
    same = ours.jobs.drop(columns=[]).equals(builtin.jobs)
    print("jobs.csv identical:", same)
