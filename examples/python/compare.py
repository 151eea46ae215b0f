"""Several built-in policies on a real trace: a table of the headline metrics and a plot of each
policy's job-completion-time CDF (compare.png).

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/compare.py [TRACE] [OUT.png]

Default trace: the first 400 jobs of a Gavel/Philly msr trace (data/real/gavel/traces), on
Gavel's 36 V100 + 36 P100 + 36 K80 cluster, 4 GPUs per server.
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

import hetsched  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(HERE, "..", "..", "data", "real", "gavel", "traces", "msr_seed0_0e4a51.trace")


def main():
    trace = sys.argv[1] if len(sys.argv) > 1 else TRACE
    out = sys.argv[2] if len(sys.argv) > 2 else "compare.png"
    runs = hetsched.compare(trace, max_jobs=400, gpus="v100=36,p100=36,k80=36", gpus_per_server=4,
                            runs=["fifo+pack", "srtf+pack", "tiresias-las+pack", "gavel-las-agnostic+pack",
                                  "gavel-las+pack"]).runs
    print(f"{'policy':<26} {'avg JCT (h)':>11} {'p95 JCT (h)':>11} {'makespan (h)':>12} {'util':>6}")
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, r in runs.items():
        s = r.summary
        print(f"{name:<26} {s['jct_s']['mean'] / 3600:>11.2f} {s['jct_s']['p95'] / 3600:>11.2f} "
              f"{s['makespan_s'] / 3600:>12.2f} {s['utilisation']:>6.3f}")
        jct_h = r.jobs["jct_s"].sort_values() / 3600
        ax.step(jct_h, [(i + 1) / len(jct_h) for i in range(len(jct_h))], where="post", label=name)
    ax.set_xscale("log")
    ax.set_xlabel("job completion time (h, log scale)")
    ax.set_ylabel("fraction of jobs")
    ax.set_title(f"{os.path.basename(trace)}, first 400 jobs (our performance model)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
