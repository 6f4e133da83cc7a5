"""A case cannot take the run or its neighbours down with it (issue 39), and neither can the user's signals: a
case that patches state the harness relies on, leaks file descriptors or leaves a thread running is blamed and
the rows around it are measured as usual; a worker never outlives its engine; two Ctrl-C keep what was
measured; a signal while the reports are written leaves every report written; closed standard streams are
/dev/null. The faults are the throw-away plugins of tests/faults/ (process.py, impls.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import cli_env, make_plugin_site, swarbench
from test_faults import CONTAINS, _stopped_in_timing, fault_env, one_line, results_of, run_dir, started_until

pytestmark = pytest.mark.slow  # each test is one real run, or more

ROWS = [
    "run",
    "--kernel",
    "cards.contains",
    "--size",
    "4096",
    "--passes",
    "2",
    "--max-time",
    "0.02",
    "--min-rounds",
    "1",
    "--quiet",
    "--processes",
    "1",
    "--no-overhead",
]
PATCHES = ["patch-timer", "patch-numpy", "patch-harness", "patch-cwd", "patch-sigint", "patch-gc"]


def _impls(*names: str) -> list[str]:
    return [x for name in names for x in ("--impl", name)]


def test_a_case_that_patches_what_others_rely_on_is_blamed_and_its_neighbours_are_not(tmp_path):
    env = fault_env(tmp_path, "process")
    proc = swarbench(*ROWS, *_impls("right", "swar", "always-wrong", *PATCHES), env=env, timeout=900)
    line = one_line(proc, 1, "FAIL: ")
    frame = results_of(env).set_index("implementation")
    words = {
        "patch-timer": "time.perf_counter replaced",
        "patch-numpy": "numpy.flatnonzero replaced",
        "patch-harness": "Kernel.check replaced",
        "patch-cwd": "working directory changed",
        "patch-sigint": "signal handlers changed",
        "patch-gc": "gc enabled changed",
    }
    for name, what in words.items():
        assert name in line and frame.loc[name, "status"] == "ERROR" and what in frame.loc[name, "reason"], (
            name,
            frame.loc[name, "reason"],
        )
    # whatever order the worker drew, the rows after a patch were judged and timed in an unpatched process
    assert (frame.loc[["right", "swar"], "status"] == "PASS").all(), frame[["status", "reason"]]
    assert frame.loc["always-wrong", "status"] == "FAIL"
    assert (frame.loc[["right", "swar"], "ns_per_op_median"] > 0).all()


def test_descriptor_leaks_are_blamed_and_a_thread_left_running_neither_hangs_nor_goes_unnamed(tmp_path):
    env = fault_env(tmp_path, "process")
    proc = swarbench(
        *ROWS, *_impls("right", "swar", "leaks-per-call", "leaks-in-prepare", "leaves-a-thread"), env=env, timeout=600
    )
    line = one_line(proc, 1, "FAIL: ", "leaks-per-call", "leaks-in-prepare")
    assert "cards.contains/leaves-a-thread left" in line and "'never-ends'" in line
    frame = results_of(env).set_index("implementation")
    for name in ("leaks-per-call", "leaks-in-prepare"):
        assert frame.loc[name, "status"] == "ERROR" and "leaks file descriptors" in frame.loc[name, "reason"]
    assert (frame.loc[["right", "swar", "leaves-a-thread"], "status"] == "PASS").all()


def _pid_of_worker(folder: Path) -> int:
    for line in (folder / "records.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec.get("event") == "start" and rec.get("pid"):
            return rec["pid"]
    raise AssertionError("no worker started")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (dead, not yet reaped by whoever adopted it) is not alive
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_never_outlives_its_engine_killed_by_sigkill(tmp_path):
    proc, env = _stopped_in_timing(tmp_path, lambda p: p.send_signal(signal.SIGKILL))  # the engine alone
    assert proc.returncode == -signal.SIGKILL
    folder = run_dir(env)
    worker = _pid_of_worker(folder)
    deadline = time.time() + 60
    while _alive(worker) and time.time() < deadline:
        time.sleep(0.2)
    assert not _alive(worker), "the worker went on timing with nobody to report to"
    shown = swarbench("report", str(folder), env=env)  # what it measured is there to render, from its records
    assert shown.returncode == 0 and "naive" in shown.stdout, shown.stderr


def test_two_ctrl_c_in_quick_succession_keep_what_was_measured(tmp_path):
    """Three passes: when sleeper hangs, naive's samples of its first pass are in the worker's memory only; the
    second Ctrl-C must not cut short their writing."""
    env = fault_env(tmp_path, "impls")
    cmd = [
        sys.executable,
        "-m",
        "swarbench.cli",
        "run",
        "--kernel",
        "cards.contains",
        "--size",
        "64",
        "--passes",
        "3",
        "--max-time",
        "0.005",
        "--min-rounds",
        "1",
        "--quiet",
        "--processes",
        "1",
        "--no-overhead",
        "--impl",
        "naive",
        "--impl",
        "sleeper",
    ]

    def both_timed(text: str) -> bool:
        timed = [json.loads(ln)["case"] for ln in text.splitlines() if '"phase": "timing' in ln]
        return any("naive" in c for c in timed) and any("sleeper" in c for c in timed)

    proc = started_until(cmd, env, both_timed, 300, "sleeper was never timed")
    time.sleep(0.5)
    for _ in range(2):
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.15)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    row = results_of(env).set_index("implementation").loc["naive"]
    assert row.status == "PASS" and row.samples >= 1 and "stopped after 1 of 3 passes" in row.reason


SLOW_REPORT = textwrap.dedent("""
    import os
    import time

    from swarbench import hookimpl
    from swarbench.model import SuiteReport

    def build(frame):
        open(os.environ["SBFAULT_MARK"], "w").close()  # the reports are being written now
        time.sleep(4)
        return None

    @hookimpl
    def swarbench_add_reports(registry):
        registry.add_report(SuiteReport("slow-report", build))
""")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_the_reports_are_written_leaves_every_report_written_and_says_so(tmp_path, sig):
    mark = tmp_path / "writing"
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "slowreport", SLOW_REPORT), SBFAULT_MARK=str(mark))
    proc = subprocess.Popen(
        [sys.executable, "-m", "swarbench.cli", *CONTAINS, "--impl", "naive"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 300
    while not mark.exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert mark.exists(), proc.communicate()[1]
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, (proc.returncode, err)
    assert "while the reports were written; every report was written" in err.strip().splitlines()[-1]
    folder = run_dir(env)
    for name in ("results.csv", "report.html", "report.md", "benchmark.json"):
        assert (folder / name).stat().st_size > 0, name


@pytest.mark.parametrize(
    "args",
    [
        ["report", "latest"],
        ["list"],
        ["run", *CONTAINS[1:], "--impl", "naive"],
        ["--help"],
        ["compare", "latest", "latest"],
    ],
)
def test_closed_standard_output_is_dev_null(tmp_path, args):
    env = fault_env(tmp_path)
    assert swarbench(*CONTAINS, "--impl", "naive", env=env).returncode == 0
    command = " ".join([sys.executable, "-m", "swarbench.cli", *(f"'{a}'" for a in args)])
    for closing in (">&-", ">&- 2>&-", "<&- >&-"):
        proc = subprocess.run(
            ["sh", "-c", f"exec {command} {closing}"], env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, (closing, proc.stderr)
    assert len(list(Path(env["SWARBENCH_REPORTS"]).iterdir())) == (4 if args[0] == "run" else 1)
