"""The Python module (python/hetsched, docs/python.md): its API, its error paths, a policy
written in Python against the built-in one, and results identical to the command line's."""
import filecmp
import os
import subprocess
import sys
import tempfile

import pandas as pd
import pytest

import hetsched

SOURCE = os.environ.get("HETSCHED_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("HETSCHED_CLI", os.path.join(SOURCE, "build", "release", "bin", "hetsched"))
GAVEL_CASE = os.path.join(SOURCE, "tests", "data", "gavel", "c11cb48.7f.trace")  # 2,000 jobs
SMALL_CASE = os.path.join(SOURCE, "tests", "data", "gavel", "s6c71a0.7f.trace")  # 100 jobs
GAVEL_CLUSTER = dict(gpus="v100=36,p100=36,k80=36", gpus_per_server=4)

sys.path.insert(0, os.path.join(SOURCE, "examples", "python"))
from fifo_policy import FifoPolicy  # noqa: E402


def test_simulate_writes_what_the_command_line_writes(tmp_path):
    args = ["--trace", SMALL_CASE, "--gpus", "v100=8,k80=8", "--gpus-per-server", "4",
            "--policy", "tiresias-las", "--policy-opt", "starve_factor=3", "--seed", "3"]
    subprocess.run([CLI, "simulate", *args, "-q", "-o", str(tmp_path / "cli")], check=True,
                   stdout=subprocess.DEVNULL)
    r = hetsched.simulate(SMALL_CASE, gpus="v100=8,k80=8", gpus_per_server=4, policy="tiresias-las",
                          policy_opts={"starve_factor": 3}, seed=3, out=tmp_path / "py")
    for name in ("jobs.csv", "timeline.csv", "summary.json"):
        assert filecmp.cmp(tmp_path / "cli" / name, tmp_path / "py" / name, shallow=False), name
    assert r.out_dir == str(tmp_path / "py")
    assert r.summary["policy"] == "tiresias-las"
    assert len(r.jobs) == r.summary["jobs_total"] == 100
    assert list(r.jobs["id"]) == list(range(100))
    assert r.jobs["jct_s"].mean() == pytest.approx(r.summary["jct_s"]["mean"], rel=1e-6)
    assert {"time_s", "busy_devices", "pending_jobs"} <= set(r.timeline.columns)


def test_a_pollux_workload_runs_as_pollux_simulator_runs_it():
    # Pollux's workload-6 under its Tiresias (--compat pollux): the peer's published 3,469.69 s
    # average JCT (docs/validation.md, "Pollux"), the profiles given as a keyword like the flag.
    workload = os.path.join(SOURCE, "data", "real", "pollux", "workloads", "workload-6.csv")
    r = hetsched.simulate(workload, compat="pollux", policy="pollux-tiresias",
                          profiles=os.path.join(SOURCE, "data", "real", "pollux", "traces"))
    assert len(r.jobs) == 160
    assert r.jobs["jct_s"].mean() == pytest.approx(3469.69375, abs=1e-9)
    with pytest.raises(hetsched.Error) as bad:
        hetsched.simulate(workload, compat="pollux", policy="pollux-tiresias", profiles="/nonexistent")
    assert "/nonexistent" in str(bad.value)


def test_default_run_keeps_no_files():
    r = hetsched.simulate(SMALL_CASE, gpus="v100=8", gpus_per_server=4)
    assert r.out_dir is None and r.summary["jobs_finished"] == 100


@pytest.mark.parametrize("case, cluster", [
    (None, {}),                      # the built-in demo trace and cluster
    (GAVEL_CASE, GAVEL_CLUSTER),     # 2,000 jobs of a Gavel trace
    (SMALL_CASE, dict(gpus="v100=8,k80=4", gpus_per_server=4)),  # a long queue
])
def test_python_fifo_equals_builtin_fifo_without_backfilling(case, cluster):
    ours = hetsched.simulate(case, policy=FifoPolicy(), **cluster)
    builtin = hetsched.simulate(case, policy="fifo", policy_opts={"backfill": "none"}, **cluster)
    pd.testing.assert_frame_equal(ours.jobs, builtin.jobs)
    pd.testing.assert_frame_equal(ours.timeline, builtin.timeline)
    assert ours.summary["policy"] == "python:FifoPolicy"
    for key in builtin.summary:
        if key not in ("policy", "scheduler_calls"):
            assert ours.summary[key] == builtin.summary[key], key


def test_policy_sees_only_the_visible_view():
    seen = []

    class Spy(hetsched.JobScheduler):
        def on_job_submitted(self, job, ctx):
            seen.append(job)
            assert ctx.now == job.submit_time
            assert not hasattr(job, "true_iterations") and not hasattr(job, "runtime")

        def schedule(self, ctx):
            for job in seen:
                if job.state == "pending" and ctx.job(job.id).state == "pending":
                    ctx.try_start(job.id)

    r = hetsched.simulate(SMALL_CASE, policy=Spy(), gpus="v100=16", gpus_per_server=4)
    assert r.summary["jobs_finished"] == 100
    assert [j.id for j in seen] == list(range(100))  # copies, still readable after the run
    assert seen[0].model and seen[0].num_gpus >= 1


def test_exception_in_a_policy_ends_the_run_with_it(tmp_path):
    class Broken(hetsched.JobScheduler):
        def schedule(self, ctx):
            if ctx.now > 0:
                raise KeyError("no such queue")
            for t in ctx.device_types():
                assert ctx.free_devices(t) <= ctx.total_devices(t)

    with pytest.raises(KeyError, match="no such queue") as caught:
        hetsched.simulate(SMALL_CASE, policy=Broken(), gpus="v100=8", gpus_per_server=4, out=tmp_path / "out")
    assert any(frame.name == "schedule" for frame in caught.traceback)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())  # nothing half-written


def test_context_is_valid_only_during_its_call():
    kept = []

    class Keeper(hetsched.JobScheduler):
        def on_job_submitted(self, job, ctx):
            kept.append(ctx)

        def schedule(self, ctx):
            kept[0].now  # a context of an earlier call

    with pytest.raises(RuntimeError, match="valid only during the callback"):
        hetsched.simulate(SMALL_CASE, policy=Keeper(), gpus="v100=8", gpus_per_server=4)


def test_unknown_job_id_and_device_type_are_errors():
    class Wrong(hetsched.JobScheduler):
        def schedule(self, ctx):
            ctx.try_start(10**6)

    with pytest.raises(IndexError, match="no submitted job"):
        hetsched.simulate(SMALL_CASE, policy=Wrong(), gpus="v100=8", gpus_per_server=4)

    class WrongType(hetsched.JobScheduler):
        def on_job_submitted(self, job, ctx):
            ctx.try_start(job.id, device_type="tpu-v9")

    with pytest.raises(ValueError, match="unknown device type 'tpu-v9'"):
        hetsched.simulate(SMALL_CASE, policy=WrongType(), gpus="v100=8", gpus_per_server=4)


def test_bad_input_raises_the_command_lines_message(tmp_path):
    bad = tmp_path / "bad.csv"
    lines = open(os.path.join(SOURCE, "data", "real", "tiresias", "60_job.csv")).read().splitlines()
    cells = lines[3].split(",")
    cells[2] = "lots"
    lines[3] = ",".join(cells)
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(hetsched.Error) as caught:
        hetsched.simulate(bad, gpus="v100=8", out=tmp_path / "out")
    assert caught.value.exit_code == 1
    assert f"{bad}:4" in str(caught.value)  # file and line
    assert not (tmp_path / "out").exists()
    with pytest.raises(hetsched.Error, match="no such file"):
        hetsched.read_trace(tmp_path / "missing.csv")
    with pytest.raises(hetsched.Error) as caught:
        hetsched.simulate(policy="no-such-policy")
    assert caught.value.exit_code == 2 and "unknown policy 'no-such-policy'" in str(caught.value)
    with pytest.raises(hetsched.Error) as caught:
        hetsched.simulate(policy="fifo", policy_opts={"backfil": "none"})
    assert caught.value.exit_code == 2 and "backfil" in str(caught.value)
    with pytest.raises(hetsched.Error, match="policy_opts are for named policies"):
        hetsched.simulate(policy=FifoPolicy(), policy_opts={"x": 1})


def test_trace_round_trip_and_dataframe_input(tmp_path):
    source = os.path.join(SOURCE, "data", "real", "tiresias", "60_job.csv")
    jobs = hetsched.read_trace(source)
    assert len(jobs) == 60 and list(jobs["id"]) == list(range(60))
    assert jobs["name"].dtype == object and jobs["name"][0] == "0"  # text stays text
    hetsched.write_trace(jobs, tmp_path / "jobs.csv")
    pd.testing.assert_frame_equal(hetsched.read_trace(tmp_path / "jobs.csv"), jobs)
    from_frame = hetsched.simulate(jobs, gpus="v100=16", gpus_per_server=4)
    from_file = hetsched.simulate(tmp_path / "jobs.csv", gpus="v100=16", gpus_per_server=4)
    pd.testing.assert_frame_equal(from_frame.jobs, from_file.jobs)
    jobs.loc[5, "num_gpus"] = -2
    with pytest.raises(hetsched.Error, match="num_gpus"):
        hetsched.write_trace(jobs, tmp_path / "bad.csv")
    with pytest.raises(hetsched.Error) as caught:  # the frame's row 5 is line 7 of its text
        hetsched.simulate(jobs, gpus="v100=16")
    assert caught.value.exit_code == 1 and "DataFrame:7: field 'num_gpus'" in str(caught.value)


def test_simulate_writes_no_temporary_file(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("simulate() made a temporary file or directory")

    for name in ("mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryDirectory"):
        monkeypatch.setattr(tempfile, name, refuse)
    jobs = hetsched.read_trace(SMALL_CASE, "gavel")
    r = hetsched.simulate(jobs, policy=FifoPolicy(), gpus="v100=8", gpus_per_server=4)
    assert r.summary["jobs_finished"] == 100 and r.out_dir is None
    assert len(r.jobs) == 100 and r.run["policy"] == "python:FifoPolicy"


def test_settings_are_checked_as_the_command_line_checks_them(tmp_path):
    # The same words as the command line's, exit code 2 (a bad setting).
    cases = [(dict(restart_cost=-1), ["--restart-cost", "-1"]),
             (dict(gpus="v100=nan"), ["--gpus", "v100=nan"]),
             (dict(seed=-1), ["--seed", "-1"]),
             (dict(on_bad_row="ignore"), ["--on-bad-row", "ignore"]),
             (dict(round=0), ["--round", "0"])]
    for keywords, flags in cases:
        cli = subprocess.run([CLI, "simulate", *flags, "-q", "-o", str(tmp_path / "cli")], capture_output=True,
                             text=True)
        assert cli.returncode == 2, flags
        with pytest.raises(hetsched.Error) as caught:
            hetsched.simulate(**keywords)
        assert caught.value.exit_code == 2, keywords
        assert str(caught.value) in cli.stderr or str(caught.value).split(": ", 1)[1] in cli.stderr, (
            str(caught.value), cli.stderr)
    for keywords, words in [(dict(no_such_flag=1), "--no-such-flag: not a setting"),
                            (dict(arrival_rate=3), "--arrival-rate requires --synthetic"),
                            (dict(no_contention="maybe"), "must be true or false")]:
        with pytest.raises(hetsched.Error, match=words) as caught:
            hetsched.simulate(**keywords)
        assert caught.value.exit_code == 2


def test_compat_profile_sets_what_the_command_line_sets(tmp_path):
    args = ["--trace", SMALL_CASE, "--gpus", "v100=8,k80=8", "--compat", "tiresias", "--policy", "dlas-gpu",
            "--restart-cost", "5"]
    cli = subprocess.run([CLI, "simulate", *args, "-q", "-o", str(tmp_path / "cli")], check=True,
                         capture_output=True, text=True)
    r = hetsched.simulate(SMALL_CASE, gpus="v100=8,k80=8", compat="tiresias", policy="dlas-gpu", restart_cost=5,
                          out=tmp_path / "py")
    for name in ("jobs.csv", "timeline.csv", "summary.json", "run.json"):
        assert filecmp.cmp(tmp_path / "cli" / name, tmp_path / "py" / name, shallow=False), name
    assert r.summary["placer"] == cli_placer(tmp_path / "cli")


def cli_placer(directory):
    import json
    with open(directory / "summary.json", encoding="utf-8") as f:
        return json.load(f)["placer"]


def test_compare_and_catalog():
    c = hetsched.compare(SMALL_CASE, policies=["fifo", "srtf"], placers=["pack"], gpus="v100=8,k80=8",
                         gpus_per_server=4)
    assert sorted(c.runs) == ["fifo+pack", "srtf+pack"]
    assert list(c.table["policy"]) == ["fifo+pack", "srtf+pack"]
    assert c.runs["srtf+pack"].summary["jobs_finished"] == 100
    cat = hetsched.catalog()
    policies = cat["policies"].set_index("name")
    assert {"fifo", "tiresias-las", "gavel-las"} <= set(policies.index)
    assert policies.loc["gavel-las", "provenance"].startswith("[SRC]")
    assert "pack" in set(cat["placers"]["name"]) and "data-parallel" in set(cat["planners"]["name"])


def test_experiment_over_seeds(tmp_path):
    one = hetsched.experiment("dltap", quick=True, threads=1)
    assert len(one.table) == 12 and one.per_seed == {} and one.out_dir is None
    r = hetsched.experiment("dltap", seeds=[1, 2], quick=True, threads=1, out=tmp_path / "e5")
    assert sorted(r.per_seed) == [1, 2]
    assert (r.per_seed[1].values == one.table.values).all()  # seed 1 as the single run
    assert len(r.table) == 12 and {"workload", "placer"} <= set(r.table.columns)
    # A column the seed moves: its mean is the mean of the two seeds' figures.
    jct = r.table["avg_jct_s_mean"]
    expect = (r.per_seed[1]["avg_jct_s"] + r.per_seed[2]["avg_jct_s"]) / 2
    assert (abs(jct - expect) < 1e-3).all()
    assert r.out_dir == str(tmp_path / "e5")
    # Into the same folder again, one seed: seed-1/ from before is not taken for this run's.
    again = hetsched.experiment("dltap", seeds="2", quick=True, threads=1, out=tmp_path / "e5")
    assert list(again.per_seed) == [2]
    with pytest.raises(hetsched.Error, match="backwards"):
        hetsched.experiment("dltap", seeds="2-1", quick=True)
    with pytest.raises(hetsched.Error, match="not both"):
        hetsched.experiment("dltap", seed=1, seeds="1-2")


def test_examples_run(tmp_path):
    env = dict(os.environ)
    compare = os.path.join(SOURCE, "examples", "python", "compare.py")
    done = subprocess.run([sys.executable, compare, SMALL_CASE, str(tmp_path / "c.png")], env=env,
                          capture_output=True, text=True, check=True)
    assert "gavel-las+pack" in done.stdout and (tmp_path / "c.png").stat().st_size > 10_000
    fifo = os.path.join(SOURCE, "examples", "python", "fifo_policy.py")
    done = subprocess.run([sys.executable, fifo, SMALL_CASE], env=env, capture_output=True, text=True, check=True)
    assert "jobs.csv identical: True" in done.stdout


def test_read_cluster():
    spec = hetsched.read_cluster(os.path.join(SOURCE, "data", "default_cluster.yaml"))
    assert {"name", "rack", "device_type", "num_devices", "nic"} <= set(spec.columns)
    assert spec["num_devices"].sum() > 0 and spec["node"].tolist() == list(range(len(spec)))
    short = hetsched.read_cluster(gpus="v100=8,k80=6", gpus_per_server=4)
    assert short.groupby("device_type")["num_devices"].sum().to_dict() == {"v100-16gb": 8, "k80": 6}
    with pytest.raises(hetsched.Error, match="tpu"):
        hetsched.read_cluster(gpus="tpu=4")
    # The same list parser as the command line's --gpus (issue 45: "v100=8x" was read as 8).
    with pytest.raises(hetsched.Error, match="entry 'v100=8x': the count must be a whole number >= 0"):
        hetsched.read_cluster(gpus="v100=8x")


from first_fit_placer import FirstFitPlacer  # noqa: E402


@pytest.mark.parametrize("case, cluster", [
    (None, {}),
    (GAVEL_CASE, GAVEL_CLUSTER),
    (SMALL_CASE, dict(gpus="v100=8,k80=6", gpus_per_server=4)),  # jobs split over servers
])
def test_python_first_fit_equals_builtin_first_fit(case, cluster):
    ours = hetsched.simulate(case, placer=FirstFitPlacer(), policy="tiresias-las", **cluster)
    builtin = hetsched.simulate(case, placer="first-fit", policy="tiresias-las", **cluster)
    pd.testing.assert_frame_equal(ours.jobs, builtin.jobs)
    assert ours.summary["placer"] == "python:FirstFitPlacer"


def test_placer_faults_end_the_run():
    class Greedy(hetsched.Placer):
        def place(self, request, cluster):
            return list(range(request.num_devices + 1))  # one device too many

    with pytest.raises(hetsched.Error, match="returned devices it may not use"):
        hetsched.simulate(SMALL_CASE, placer=Greedy(), gpus="v100=8", gpus_per_server=4)

    class Raising(hetsched.Placer):
        def place(self, request, cluster):
            raise ZeroDivisionError("placement math")

    with pytest.raises(ZeroDivisionError, match="placement math"):
        hetsched.simulate(SMALL_CASE, placer=Raising(), gpus="v100=8", gpus_per_server=4)

    class Never(hetsched.Placer):
        pass  # places nothing: the run stops, naming a waiting job

    with pytest.raises(hetsched.Error):
        hetsched.simulate(SMALL_CASE, placer=Never(), gpus="v100=8", gpus_per_server=4)


def test_runs_in_threads_go_on_side_by_side_and_agree():
    import threading
    kinds = [lambda: "srtf", FifoPolicy, lambda: "tiresias-las"]  # a fresh policy object per run
    alone = [hetsched.simulate(SMALL_CASE, gpus="v100=8", gpus_per_server=4, policy=k()) for k in kinds]
    together = [None] * len(kinds)

    def run(i):
        together[i] = hetsched.simulate(SMALL_CASE, gpus="v100=8", gpus_per_server=4, policy=kinds[i]())

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(kinds))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(alone, together):
        pd.testing.assert_frame_equal(a.jobs, b.jobs)


def test_compare_writes_what_the_command_line_writes_and_no_temporary_file(monkeypatch, tmp_path):
    args = ["--trace", SMALL_CASE, "--gpus", "v100=8,k80=8", "--policies", "fifo,tiresias-las:starve_factor=3",
            "--placers", "pack,first-fit", "--seed", "2"]
    subprocess.run([CLI, "compare", *args, "-q", "-o", str(tmp_path / "cli")], check=True, stdout=subprocess.DEVNULL)
    kept = hetsched.compare(SMALL_CASE, gpus="v100=8,k80=8", policies=["fifo", "tiresias-las:starve_factor=3"],
                            placers=["pack", "first-fit"], seed=2, out=tmp_path / "py")
    compared = filecmp.dircmp(tmp_path / "cli", tmp_path / "py")
    assert not compared.left_only and not compared.right_only
    for name in ("compare.csv", "compare.txt", "report.html", "jct_cdf.svg"):
        assert filecmp.cmp(tmp_path / "cli" / name, tmp_path / "py" / name, shallow=False), name
    assert kept.runs["fifo+first-fit"].out_dir == str(tmp_path / "py" / "fifo_first-fit")
    for name in ("mkdtemp", "mkstemp", "NamedTemporaryFile", "TemporaryDirectory"):
        monkeypatch.setattr(tempfile, name, lambda *a, **k: (_ for _ in ()).throw(AssertionError(name)))
    c = hetsched.compare(SMALL_CASE, gpus="v100=8,k80=8", policies=["fifo", "tiresias-las:starve_factor=3"],
                         placers=["pack", "first-fit"], seed=2)
    pd.testing.assert_frame_equal(c.table, kept.table)
    assert sorted(c.runs) == sorted(kept.runs) and c.out_dir is None
    pd.testing.assert_frame_equal(c.runs["fifo+pack"].jobs, kept.runs["fifo+pack"].jobs)
    with pytest.raises(hetsched.Error) as caught:
        hetsched.compare(SMALL_CASE, policy="fifo")
    assert caught.value.exit_code == 2 and "--policies" in str(caught.value)
    with pytest.raises(hetsched.Error) as caught:
        hetsched.compare(SMALL_CASE, runs=["fifo+pack"], placers=["pack"])
    assert caught.value.exit_code == 2 and "--runs excludes" in str(caught.value)


def test_compare_under_a_compat_profile_runs_its_placer():
    # --compat tiresias sets --placer yarn: compare's runs use it (they kept pack before session 31).
    c = hetsched.compare(SMALL_CASE, gpus="v100=8", compat="tiresias", policies=["dlas-gpu", "tiresias-las"])
    assert sorted(c.runs) == ["dlas-gpu+yarn", "tiresias-las+yarn"]
    given = hetsched.compare(SMALL_CASE, gpus="v100=8", compat="tiresias", policies=["dlas-gpu"], placers=["pack"])
    assert sorted(given.runs) == ["dlas-gpu+pack"]  # given: kept


def test_experiment_settings_are_checked():
    for keywords, words in [(dict(threads=0), "--threads: must be a whole number in [1, 1024], got '0'"),
                            (dict(seed=-2), "--seed: must be a whole number in [0, 18446744073709551615]")]:
        with pytest.raises(hetsched.Error) as caught:
            hetsched.experiment("gadget", quick=True, **keywords)
        assert caught.value.exit_code == 2 and words in str(caught.value), str(caught.value)
