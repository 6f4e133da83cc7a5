"""Runs on a Dask fleet (swarbench.fleet): one run folder with every machine, lost machines, version checks.

The clusters here are real ones on this machine: `--cluster local:2`, or a `dask scheduler` and `dask worker`
processes started by the test, so that a worker can be killed or can carry another swarbench version.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import assert_one_line_error, swarbench

pytestmark = pytest.mark.slow  # every test here starts a Dask cluster or a whole run

pytest.importorskip("distributed")

SMALL = ["run", "-k", "cards.contains", "--size", "1024", "--max-time", "0.005"]
DASK = [sys.executable, "-m"]  # + distributed.cli.dask_scheduler or dask_worker: what `dask scheduler` runs


def _run_dir(env) -> Path:
    runs = sorted(Path(env["SWARBENCH_REPORTS"]).iterdir())
    assert len(runs) == 1, runs
    return runs[0]


def _stderr_acting_on(proc: subprocess.Popen, act) -> str:
    """The whole of a running command's stderr, each line handed to ``act`` as it comes.

    Every line read is kept: a later communicate() would lose what the line iterator has buffered ahead, and
    on a slow machine that can be all the rest of the run, its last word included.
    """
    lines = []
    for line in proc.stderr:
        lines.append(line)
        act(line)
    proc.wait(timeout=600)
    return "".join(lines)


def test_local_cluster_gives_one_run_with_both_machines(env):
    proc = swarbench(*SMALL, "--cluster", "local:2", "--machine-names", "a,b", "--quiet", env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    run = _run_dir(env)
    frame = pd.read_csv(run / "results.csv")
    cases = frame[frame.kernel == "cards.contains"]
    by_machine = {m: set(g.implementation) for m, g in cases.groupby("machine")}
    assert set(by_machine) == {"a", "b"} and by_machine["a"] == by_machine["b"], by_machine
    ran = cases[cases.status == "PASS"]
    # every machine's speedups are over its own baseline
    for _, group in ran.groupby("machine"):
        assert group.loc[group.implementation == group.baseline, "speedup"].tolist() == [1.0]
    assert {json.loads((run / "machines" / m / "machine.json").read_text())["name"] for m in "ab"} == {"a", "b"}
    assert all("Machines compared" in (run / name).read_text() for name in ("report.md", "report.html"))
    # compare sets two machines of the run against each other
    compared = swarbench("compare", f"{run.name}@a", f"{run.name}@b", env=env)
    assert compared.returncode == 0 and f"{run.name}@a" in compared.stdout, compared.stderr
    assert_one_line_error(swarbench("compare", run.name, f"{run.name}@b", env=env), "holds machines a, b")


def test_ctrl_c_stops_every_machine_and_keeps_what_came_back(env):
    cmd = [
        sys.executable,
        "-m",
        "swarbench.cli",
        "run",
        "-k",
        "cards.*",
        "--size",
        "1024",
        "--max-time",
        "0.005",
        "-p",
        "1",
        "--no-overhead",
        "--cluster",
        "local:2",
        "--machine-names",
        "a,b",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    finished = 0

    def interrupt_after_four(line: str) -> None:
        nonlocal finished
        if line.startswith(("[a: ", "[b: ")) and ": PASS " in line:
            finished += 1
            if finished == 4:  # once: a second Ctrl-C means "stop waiting"
                os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole process group

    err = _stderr_acting_on(proc, interrupt_after_four)
    assert proc.returncode == 130, err
    frame = pd.read_csv(_run_dir(env) / "results.csv")
    bad = frame[frame.status.isin(["LOST", "ERROR", "CRASH"])]
    assert (frame.status == "PASS").sum() >= 4 and bad.empty, bad[["machine", "implementation", "status", "reason"]]


@pytest.fixture
def scheduler(tmp_path, env):
    """A `dask scheduler` of the test's own, and a starter of `dask worker` processes for it."""
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "5s"
    address_file = tmp_path / "scheduler.json"
    started = [
        subprocess.Popen(
            [
                *DASK,
                "distributed.cli.dask_scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(address_file),
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    ]
    deadline = time.time() + 60
    while not address_file.exists() and time.time() < deadline:
        time.sleep(0.2)
    address = json.loads(address_file.read_text())["address"]

    def worker(name: str, extra_env: dict | None = None) -> subprocess.Popen:
        proc = subprocess.Popen(
            [
                *DASK,
                "distributed.cli.dask_worker",
                address,
                "--name",
                name,
                "--nthreads",
                "1",
                "--resources",
                "swarbench=1",
                "--no-nanny",
                "--no-dashboard",
            ],
            # (not in the checkout, whose swarbench.egg-info would come first on the path)
            cwd=tmp_path,
            env=dict(env, **(extra_env or {})),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        started.append(proc)
        return proc

    def wait_for(count: int) -> None:
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(count, timeout=120)

    yield address, worker, wait_for
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def test_a_machine_lost_mid_run_keeps_the_others_results(env, scheduler):
    address, worker, wait_for = scheduler
    worker("a")
    doomed = worker("b")
    wait_for(2)
    cmd = [
        sys.executable,
        "-m",
        "swarbench.cli",
        "run",
        "-k",
        "cards.*",
        "--size",
        "1024",
        "--max-time",
        "0.005",
        "-p",
        "1",
        "--passes",
        "2",
        "--no-overhead",
        "--cluster",
        address,
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def kill_b_once_it_has_finished_a_case(line: str) -> None:  # progress lines are led by their machine
        if line.startswith("[b: ") and doomed.poll() is None:
            os.killpg(doomed.pid, signal.SIGKILL)  # the machine goes away: worker and benchmark processes
            doomed.wait()

    err = _stderr_acting_on(proc, kill_b_once_it_has_finished_a_case)
    assert proc.returncode == 1, err
    assert "machine b was lost mid-run" in err, err
    frame = pd.read_csv(_run_dir(env) / "results.csv")
    a, b = frame[frame.machine == "a"], frame[frame.machine == "b"]
    assert len(a) and a.status.isin(["PASS", "SKIP"]).all()
    lost = b[b.status == "LOST"]
    assert len(lost) and lost.reason.str.contains("machine b").all()
    assert (b.status != "LOST").any()  # what b finished before it went is kept
    assert set(b.implementation + b.kernel) == set(a.implementation + a.kernel)


def test_a_machine_with_another_swarbench_version_is_refused(env, scheduler, tmp_path):
    address, worker, wait_for = scheduler
    # a distribution record ahead of the installed one on the worker's path: it reports another version
    site = tmp_path / "other-site"
    (site / "swarbench-9.9.9.dist-info").mkdir(parents=True)
    (site / "swarbench-9.9.9.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: swarbench\nVersion: 9.9.9\n"
    )
    worker("old", {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH", "")]))})
    wait_for(1)
    proc = swarbench(*SMALL, "--cluster", address, env=env, timeout=300)
    assert_one_line_error(proc, "machine old runs swarbench 9.9.9")
    assert not any(Path(env["SWARBENCH_REPORTS"]).glob("*/results.csv"))  # nothing was timed


def test_an_unreachable_cluster_is_one_line(env):
    env["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "2s"
    assert_one_line_error(
        swarbench(*SMALL, "--cluster", "tcp://127.0.0.1:9", env=env, timeout=120),
        "cannot reach the Dask scheduler at tcp://127.0.0.1:9",
    )


def test_machine_names_need_a_local_cluster(env):
    assert_one_line_error(swarbench(*SMALL, "--machines", "a*", env=env), "give --cluster ADDRESS")
    assert_one_line_error(
        swarbench(*SMALL, "--cluster", "local:2", "--machine-names", "a", env=env), "give 2 different names"
    )


def test_divisible_work_merges_to_the_whole():
    from swarbench.fleet_divisible import compute
    from swarbench.suites.poker import classes169

    whole = classes169.count_boards((100, 12, False))
    pieces = compute(classes169.work(3, 112, False))  # boards 0..111 in three shards, merged
    assert (classes169.count_boards((0, 100, False)) + whole == pieces.output).all()
    assert pieces.shards_by_machine == {"here": 3}


def test_class_table_over_a_cluster_agrees_with_the_plain_evaluator(env):
    # the first boards, C counts against spec.py's plain evaluator, both spread over two machines
    proc = swarbench("poker", "classes", "--boards", "6", "--shards", "2", "--cluster", "local:2", env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "checked against the plain evaluator on the same 6 boards: all agree" in proc.stdout


def test_a_wrong_class_table_is_caught():
    from swarbench.suites.poker import classes169

    counts = np.zeros((169, 3), np.int64)
    counts[:, 0] = [classes169.combos(i) * classes169.GAMES for i in range(169)]  # every hand always wins
    problems = classes169.check_full(counts)
    assert problems == ["AA: [2097572400, 0, 0] per hand, the data file has [1781508418, 11402312, 304661670]"]


def test_the_problems_a_fleet_run_found_are_kept_for_its_later_reports_each_once(tmp_path):
    from swarbench import fleet
    from swarbench.api import plugins
    from swarbench.runfolder import RunFolder, note_line

    machines = {name: fleet.Machine(name, f"tcp://{name}", {"name": name}) for name in "ab"}
    machines["a"].payload = {
        "records": [note_line("a thread left running").to_json()],
        "files": {},
        "interrupted": False,
        "problems": ["a thread left running"],
    }
    machines["b"].lost = "its worker died"
    run_dir = tmp_path / "20260101-000000-abcd"
    run_dir.mkdir()
    fleet.gather(run_dir.name, run_dir, machines, plugins(), interrupted=False)
    notes = RunFolder(run_dir).notes()
    assert notes == [
        "machine a: a thread left running",
        "machine b was lost mid-run (its worker died): 0 case(s) LOST",
    ], notes


def test_a_record_line_the_client_cannot_read_is_said_when_its_machine_sent_no_results(tmp_path):
    from swarbench import fleet
    from swarbench.api import plugins
    from swarbench.runfolder import RunFolder

    machines = {"b": fleet.Machine("b", "tcp://b", {"name": "b"})}
    gatherer = fleet.Gatherer("run", machines, lambda name: None)
    gatherer((0.0, {"run": "run", "machine": "b", "event": json.dumps({"event": "result", "samples_s": "fast"})}))
    gatherer((0.0, {"run": "run", "machine": "b", "event": "not json"}))
    gatherer((0.0, {"run": "another run", "machine": "b", "event": "not json"}))  # not this run's: not counted
    assert len(machines["b"].unreadable) == 2 and not machines["b"].events
    machines["b"].lost = "its worker died"
    run_dir = tmp_path / "20260101-000000-abcd"
    run_dir.mkdir()
    fleet.gather(run_dir.name, run_dir, machines, plugins(), interrupted=False)
    (said, lost) = RunFolder(run_dir).notes()
    assert said.startswith("machine b sent 2 record line(s) this client could not read (first: ") and lost.startswith(
        "machine b was lost mid-run"
    ), said
