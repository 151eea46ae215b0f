"""hetsched for Python: run hetsched's simulations and write job schedulers in Python.

    import hetsched
    r = hetsched.simulate(trace="data/real/gavel/traces/msr_seed0_0e4a51.trace",
                          gpus="v100=36,p100=36,k80=36", gpus_per_server=4, policy="tiresias-las")
    print(r.summary["jct_s"]["mean"]); r.jobs.head()

Every keyword of simulate() and compare() is the command line's flag of the same name
(`gpus_per_server=4` is `--gpus-per-server 4`, `policy_opts={"round": 360}` is
`--policy-opt round=360`), with the same meaning, defaults and checks: simulate() runs through
the library's run entry that `hetsched simulate` uses, compare() runs the command in-process
(docs/python.md). Errors raise hetsched.Error with the command's message (file, line and field
for bad input).
"""
import io
import json
import os
import shutil
import tempfile

import pandas as pd


def _find_module_dir():
    """The back-end modules (LP, LibTorch) beside this package: build tree or install."""
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "lib", "hetsched"),   # <build>/python/hetsched
                      os.path.join(here, "..", "..", "..", "hetsched")):  # <prefix>/lib/python3/dist-packages/hetsched
        candidate = os.path.normpath(candidate)
        if os.path.isdir(candidate):
            return candidate
    return None


def _find_data_dir():
    """The project's data tree (the experiments' default traces): share/hetsched in the nearest
    directory above this package that has one (<build>/ or the install prefix)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for _ in range(6):
        here = os.path.dirname(here)
        candidate = os.path.join(here, "share", "hetsched")
        if os.path.isdir(os.path.join(candidate, "data")):
            return candidate
    return None


if not os.environ.get("HETSCHED_MODULE_DIR"):
    _dir = _find_module_dir()
    if _dir:
        os.environ["HETSCHED_MODULE_DIR"] = _dir
if not os.environ.get("HETSCHED_DATA_DIR"):
    _dir = _find_data_dir()
    if _dir:
        os.environ["HETSCHED_DATA_DIR"] = _dir

from . import _hetsched as _native  # noqa: E402
from ._hetsched import ClusterView, Job, PlacementRequest, SchedContext  # noqa: E402,F401

__all__ = ["simulate", "compare", "catalog", "read_trace", "write_trace", "read_cluster", "JobScheduler", "Placer",
           "PlacementRequest", "ClusterView", "Job",
           "SchedContext", "Result", "CompareResult", "ExperimentResult", "experiment", "Error"]


class Error(Exception):
    """A hetsched command failed: bad input (exit_code 1), a bad option (2) or a bug (3)."""

    def __init__(self, message, exit_code=1):
        super().__init__(message)
        self.exit_code = exit_code


class JobScheduler:
    """Base class of job schedulers written in Python: override the callbacks you need.

    The simulator calls them with a `Job` (a copy of what any back end can observe: never the
    simulator's truth) and a `SchedContext` (valid only during that call): on_job_submitted,
    on_job_finished, on_job_requeued (the back end took the job's devices away) and
    on_job_running (a job already running, shown by a restarted agent), then schedule(ctx) after
    each batch of events. Set `round_period_s` to be called every so many seconds as well. An
    exception raised in a callback ends the run and is raised by simulate()."""

    round_period_s = 0.0

    def on_job_submitted(self, job, ctx):
        pass

    def on_job_finished(self, job, ctx):
        pass

    def on_job_requeued(self, job, ctx):
        pass

    def on_job_running(self, job, ctx):
        pass

    def schedule(self, ctx):
        pass


class Placer:
    """Base class of placers written in Python: override place(request, cluster), which returns
    the device ids to use (request.num_devices free devices of one type in
    request.candidate_types; of request.device_type when it is not '') or None when the job does
    not fit now. `cluster` (valid only during the call) lists nodes of a type in id order and the
    free devices of each. Returning devices the job may not use, or raising, ends the run."""

    def place(self, request, cluster):
        return None


class Result:
    """One run: summary (summary.json as a dict), jobs and timeline (jobs.csv and timeline.csv as
    DataFrames), run (run.json as a dict), out_dir (where the files are, if kept)."""

    def __init__(self, summary, jobs, timeline, run, out_dir):
        self.summary, self.jobs, self.timeline, self.run, self.out_dir = summary, jobs, timeline, run, out_dir

    @classmethod
    def _from_texts(cls, texts, out_dir):
        return cls(json.loads(texts["summary"]), _read_csv(io.StringIO(texts["jobs"])),
                   _read_csv(io.StringIO(texts["timeline"])), json.loads(texts["run"]), out_dir)

    def __repr__(self):
        s = self.summary
        return (f"<hetsched.Result {s.get('policy')}+{s.get('placer')}: {s.get('jobs_finished')}/"
                f"{s.get('jobs_total')} jobs, avg JCT {s['jct_s']['mean'] / 3600:.2f} h, "
                f"makespan {s['makespan_s'] / 3600:.2f} h>")


class CompareResult:
    """Several runs: table (compare.csv as a DataFrame), runs ("policy+placer" -> Result)."""

    def __init__(self, table, runs, out_dir):
        self.table, self.runs, self.out_dir = table, runs, out_dir


# Text columns of the traces' and outputs' CSVs: kept as text ("007" stays "007"), "" when empty.
_TEXT_COLUMNS = ("name", "user", "model", "device_type", "allowed_types", "parallelism", "intra_job_planner",
                 "trace", "policy", "placer", "planner")


def _read_csv(source):
    frame = pd.read_csv(source, dtype={c: str for c in _TEXT_COLUMNS})
    for column in _TEXT_COLUMNS:
        if column in frame.columns:
            frame[column] = frame[column].fillna("")
    return frame


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _settings(options):
    """Keyword arguments -> (flag, text) settings: a_b=V is ("--a-b", V as text); True is "true";
    False and None are left out; a list is comma-joined."""
    settings = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(_text(v) for v in value)
        settings.append(("--" + key.replace("_", "-"), _text(value)))
    return settings


def _method_options(options, key):
    items = options.pop(key + "_opts", None) or {}
    if not isinstance(items, dict):
        raise TypeError(f"{key}_opts must be a dict of option names to values")
    return {str(k): _text(v) for k, v in items.items()}


def simulate(trace=None, *, policy="fifo", out=None, verbose=False, **options):
    """Simulates one policy. `trace`: a path (any format hetsched reads; `format=` to force one) or
    a DataFrame with the native columns (read_trace's); default: the built-in demo trace.
    `policy`: a registered name (hetsched.catalog()) or a JobScheduler object; `placer=` likewise
    a name or a Placer object. `out`: also write the output files there (byte-identical to the
    command's). Other keywords: the flags of `hetsched simulate` (cluster=, gpus=,
    gpus_per_server=, policy_opts=, placer=, placer_opts=, planner=, seed=, round=, restart_cost=,
    compat=, ...), with the same checks. The GIL is released while it runs."""
    options = dict(options)
    opts = {key: _method_options(options, key) for key in ("policy", "placer", "planner")}
    objects = {}
    options["policy"] = policy
    for key in ("policy", "placer"):
        method = options.get(key)
        if method is None or isinstance(method, str):
            continue
        if opts[key]:
            plural = "policies" if key == "policy" else key + "s"
            raise Error(f"{key}_opts are for named {plural}: configure a Python {key} object directly", 2)
        objects[key] = options.pop(key)
    trace_text = ""
    if isinstance(trace, pd.DataFrame):
        trace_text = trace.to_csv(index=False)
    elif trace is not None:
        options["trace"] = os.fspath(trace)
    try:
        texts = _native.simulate(_settings(options), trace_text, objects.get("policy"), opts["policy"],
                                 objects.get("placer"), opts["placer"], opts["planner"],
                                 "" if out is None else os.fspath(out), bool(verbose))
    except _native.Failed as e:
        raise Error(e.args[0], e.args[1]) from None
    if verbose:
        print(texts["printed"], end="")
    return Result._from_texts(texts, None if out is None else os.fspath(out))


def compare(trace=None, *, policies=None, out=None, verbose=False, **options):
    """Runs several policies (and placers: placers=[...]; or exact pairs: runs=["a+b", ...]) on the
    same workload and cluster, as `hetsched compare`. `trace` as for simulate(). `out`: also
    write the command's files there. Returns a CompareResult."""
    options = dict(options)
    if policies is not None:
        options["policies"] = policies
    real_runs = options.pop("real_run", None)
    trace_text = ""
    if isinstance(trace, pd.DataFrame):
        trace_text = trace.to_csv(index=False)
    elif trace is not None:
        options["trace"] = os.fspath(trace)
    settings = _settings(options)
    if real_runs is not None:
        for directory in ([real_runs] if isinstance(real_runs, (str, os.PathLike)) else real_runs):
            settings.append(("--real-run", os.fspath(directory)))
    try:
        texts = _native.compare(settings, trace_text, "" if out is None else os.fspath(out), bool(verbose))
    except _native.Failed as e:
        raise Error(e.args[0], e.args[1]) from None
    if verbose:
        print(texts["printed"], end="")
    out_dir = None if out is None else os.fspath(out)
    runs = {label: Result._from_texts(run, None if out is None else os.path.join(out_dir, _native.run_dir_name(label)))
            for label, run in texts["runs"]}
    return CompareResult(_read_csv(io.StringIO(texts["table"])), runs, out_dir)


class ExperimentResult:
    """A reproduction experiment's run: table (OUT/NAME.csv as a DataFrame; run over several
    seeds, the row-by-row summary OUT/NAME_seeds.csv: mean, sd, least, greatest and each seed's
    figure of every column the seed moves), per_seed (seed -> that seed's NAME.csv; empty for one
    run), out_dir (where the files are, if kept)."""

    def __init__(self, table, per_seed, out_dir):
        self.table, self.per_seed, self.out_dir = table, per_seed, out_dir


def experiment(name, *, seed=None, seeds=None, quick=False, threads=None, out=None, verbose=False, **opts):
    """Runs `hetsched experiment NAME` (gavel, gadget, dltap, rlpto, heterps, tapp: catalog
    experiments). `seeds`: "1-3", "1,2,5" or a list of ints: one run per seed and their summary
    (`--seeds`); else `seed` (default 1). `quick`: the small configuration. Other keywords: the
    experiment's options (`--opt KEY=VALUE`, e.g. jobs=20). `out`: keep the output files there
    (default: a temporary directory, removed: an experiment's tables are files). Returns an
    ExperimentResult."""
    if seed is not None and seeds is not None:
        raise Error("experiment: give seed or seeds, not both", 2)
    seed_list = None
    if seeds is not None:
        seed_list = seeds if isinstance(seeds, str) else ",".join(_text(s) for s in seeds)
    scratch = tempfile.mkdtemp(prefix="hetsched-") if out is None else None
    try:
        directory = os.fspath(out) if out is not None else os.path.join(scratch, "out")
        try:
            _, printed = _native.experiment(name, directory, "" if seed is None else _text(seed), seed_list or "",
                                            bool(quick), "" if threads is None else _text(threads),
                                            {str(k): _text(v) for k, v in opts.items()}, bool(verbose))
        except _native.Failed as e:
            raise Error(e.args[0], e.args[1]) from None
        if verbose:
            print(printed, end="")
        per_seed = {}
        if seed_list is not None:
            table = pd.read_csv(os.path.join(directory, f"{name}_seeds.csv"))
            # The seeds just run (not every seed-N/ an earlier run left in `out`), in list order.
            for s in _native.parse_seed_list(seed_list):
                per_seed[s] = pd.read_csv(os.path.join(directory, f"seed-{s}", f"{name}.csv"))
        else:
            table = pd.read_csv(os.path.join(directory, f"{name}.csv"))
        return ExperimentResult(table, per_seed, directory if out is not None else None)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def catalog():
    """The registered methods: {"policies", "placers", "planners"} -> DataFrame (name, summary,
    provenance: [SRC] from a paper, [REC] our reconstruction, [CLASSIC] a known baseline)."""
    return {kind + "s" if kind != "policy" else "policies": pd.DataFrame(_native.methods(kind))
            for kind in ("policy", "placer", "planner")}


def read_trace(path, format="auto", *, reference_device="v100", skip_bad_rows=False, max_jobs=None):
    """Reads a trace in any format hetsched reads into a DataFrame with the native columns (one row
    per job, ids 0..n-1 in submit order). Bad input raises hetsched.Error naming file, line and
    field."""
    try:
        text = _native.read_trace_native(os.fspath(path), format, reference_device, skip_bad_rows,
                                         -1 if max_jobs is None else int(max_jobs))
    except ValueError as e:
        raise Error(str(e)) from None
    return _read_csv(io.StringIO(text))


def read_cluster(path=None, *, gpus=None, gpus_per_server=4):
    """A cluster as a DataFrame, one row per node (name, rack, device_type, num_devices, links,
    CPU cores, host memory): from a cluster spec file (YAML or JSON), or from the command line's
    shorthand (gpus="v100=36,k80=36", gpus_per_server=4). Bad input raises hetsched.Error."""
    try:
        rows = _native.cluster_nodes(os.fspath(path) if path is not None else "", gpus or "", int(gpus_per_server))
    except ValueError as e:
        raise Error(str(e)) from None
    return pd.DataFrame(rows)


def write_trace(jobs, path, *, check=True):
    """Writes a DataFrame with the native columns (read_trace's) as a native trace file, then reads
    it back with hetsched's reader (check=True) so that a bad value fails here, naming the row."""
    jobs.to_csv(path, index=False)
    if check:
        read_trace(path, "native")
