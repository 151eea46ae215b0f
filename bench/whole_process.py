#!/usr/bin/env python3
"""Times a whole process, as a user would: runs COMMAND --repeat times and prints the best wall
time and the CPU time (user + sys) of that run, in microsecond resolution (getrusage of the
children; /usr/bin/time and bash's `times` round to 10 ms). Output, one line: "<wall_s> <cpu_s>".
Fails (exit 1, with the command's stderr) when a run fails. (No peak RSS: a child's maxrss
counts this interpreter's pages it held before exec.)

  bench/whole_process.py [--repeat N] [--stdout FILE] -- COMMAND...
"""
import argparse
import resource
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--stdout", default="/dev/null", help="where the last run's stdout goes")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    best = None
    for _ in range(args.repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with open(args.stdout, "wb") as out:
            done = subprocess.run(args.command, stdout=out, stderr=subprocess.PIPE)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.stderr.write(done.stderr.decode(errors="replace"))
            return 1
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if best is None or wall < best[0]:
            best = (wall, cpu)
    print(f"{best[0]:.6f} {best[1]:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
