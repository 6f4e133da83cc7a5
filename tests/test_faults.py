"""Faults a demanding user meets (bad arguments, broken plugins, full disks, signals, implementations that cheat
or die): each ends in one line naming the culprit and a non-zero exit, and nothing measured before it is lost.

The plugin faults come from the throw-away plugins in tests/faults/, installed through a site folder of their own.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import FAST, assert_one_line_error, cli_env, make_plugin_site, swarbench

FAULTS = Path(__file__).parent / "faults"
CONTAINS = ["run", "--kernel", "cards.contains", "--size", "64", "--passes", "1", *FAST]


def fault_env(tmp_path: Path, *plugins: str, **extra: str) -> dict:
    site = tmp_path / "site"
    for name in plugins:
        make_plugin_site(site, name.replace("_", ""), (FAULTS / f"{name}.py").read_text(), module=f"sbfault_{name}")
    return cli_env(tmp_path, site, **extra)


def run_dir(env: dict) -> Path:
    runs = sorted(Path(env["SWARBENCH_REPORTS"]).iterdir())
    assert len(runs) == 1, runs
    return runs[0]


def results_of(env: dict) -> pd.DataFrame:
    return pd.read_csv(run_dir(env) / "results.csv")


def one_line(proc: subprocess.CompletedProcess, code: int, *words: str) -> str:
    """The run said what went wrong in one line (its last on stderr), with no traceback, and exited ``code``."""
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr)
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert lines, proc.stdout[-2000:]
    for w in words:
        assert w in lines[-1], (w, lines)
    return lines[-1]


# -- arguments ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, words",
    [
        (["run", "--size", "1e400"], ["--size", "'1e400' is too large"]),
        (["run", "--sizes", "1e3,1e400"], ["--sizes", "'1e400' is too large"]),
        (["run", "--min-rounds", "1e999"], ["--min-rounds", "'1e999' is too large"]),
        (["run", "--processes", "1e30"], ["--processes", "too large"]),
        (["run", "--passes", "1e6"], ["--passes", "too large"]),
        (["run", "--seed", "-1"], ["--seed", "'-1'"]),
        (["run", "--max-time", "inf"], ["--max-time", "'inf' is not a finite number"]),
        (["run", "--timeout", "nan"], ["--timeout", "'nan'"]),
        (["compare", "a", "b", "--fail-on-regression", "1e400"], ["--fail-on-regression", "not a finite number"]),
        (["run", "-k", "cephalopod.*", "-w", "empty", "--size", "41"], ["--size 41", "empty", "up to 40"]),
    ],
)
def test_out_of_range_arguments_are_one_line_naming_the_option(env, args, words):
    assert_one_line_error(swarbench(*args, env=env), *words)


# -- plugins --------------------------------------------------------------------------------------------------
def test_a_plugin_that_calls_sys_exit_on_import_is_a_failed_plugin(tmp_path):
    env = fault_env(tmp_path, "exit_on_import")
    proc = swarbench("list", "-k", "cards.contains", env=env)
    assert proc.returncode == 1, proc.stderr  # listed, and a plugin that failed to load is an error
    assert "plugin 'exitonimport' failed in import: called sys.exit(3)" in proc.stdout
    assert "cards.contains" in proc.stdout


def test_a_plugin_command_that_raises_is_one_line_naming_plugin_and_command(tmp_path):
    env = fault_env(tmp_path, "commands")
    one_line(swarbench("fault-raises", env=env), 1, "'fault-raises'", "'commands'", "the command's own bug")


def test_a_plugin_command_whose_arguments_raise_is_withdrawn_and_named(tmp_path):
    env = fault_env(tmp_path, "commands")
    listed = swarbench("list", "-k", "cards.contains", env=env)
    assert listed.returncode == 1 and "'fault-arguments'" in listed.stdout and "cannot add" in listed.stdout
    assert_one_line_error(swarbench("fault-arguments", env=env), "invalid choice: 'fault-arguments'")


# -- wrong results --------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_bool_kernel_answered_in_floats_fails(tmp_path):
    env = fault_env(tmp_path, "impls")
    proc = swarbench(*CONTAINS, "--impl", "floats", env=env)
    one_line(proc, 1, "FAIL: cards.contains/floats")
    row = results_of(env).set_index("implementation").loc["floats"]
    assert row.status == "FAIL" and "float64" in row.reason and "bool" in row.reason


# -- blame and visibility -------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["text", "md", "html", "csv"])
def test_an_error_before_the_size_is_known_shows_in_every_report(tmp_path, fmt):
    env = fault_env(tmp_path, "broken_workload")
    if fmt == "text":  # the run itself, once; the other formats render its folder again
        proc = swarbench("run", "-k", "faults.*", *FAST, env=env)
        one_line(proc, 1, "kernel faults.broken's spec is wrong")  # blamed on the spec, once (issue 39)
        frame = results_of(env)
        # the spec's own row is the error; naive, which never got its inputs, is skipped, not blamed
        assert frame.n.isna().all() and sorted(frame.status) == ["ERROR", "SKIP"], frame[["implementation", "status"]]
    else:
        swarbench("run", "-k", "faults.*", *FAST, env=env)
    shown = swarbench("report", str(run_dir(env)), "--format", fmt, env=env)
    assert shown.returncode == 0, shown.stderr
    reason = "the generator&#x27;s own bug" if fmt == "html" else "the generator's own bug"
    assert "naive" in shown.stdout and reason in shown.stdout, shown.stdout


@pytest.mark.slow
def test_result_files_follow_the_umask(tmp_path):
    env = fault_env(tmp_path)
    proc = subprocess.run(
        [
            "sh",
            "-c",
            f"umask 022 && exec {sys.executable} -m swarbench.cli " + " ".join([*CONTAINS, "--impl", "naive"]),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    folder = run_dir(env)
    out = tmp_path / "report.md"
    assert swarbench("report", str(folder), "-f", "md", "-o", str(out), env=env).returncode == 0
    for path in [out, *(folder / name for name in ("results.csv", "records.jsonl", "machine.json", "report.md"))]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path


# -- output that cannot be written ----------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", [["report", "latest", "-o", "/dev/full"], ["report", "latest"], ["list"], ["--help"]])
def test_output_to_a_full_device_is_one_line(tmp_path, args):
    env = fault_env(tmp_path)
    assert swarbench(*CONTAINS, "--impl", "naive", env=env).returncode == 0
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "swarbench.cli", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0], lines
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # written through, never renamed over


# -- signals --------------------------------------------------------------------------------------------------
def started_until(cmd: list[str], env: dict, ready, timeout: float, never: str) -> subprocess.Popen:
    """``cmd`` started in a session of its own, returned once ``ready(text of its run's records)``; killed and
    the test failed with ``never`` if that does not come within ``timeout`` seconds."""
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline = time.time() + timeout
    while time.time() < deadline:
        runs = list(Path(env["SWARBENCH_REPORTS"]).glob("*/records.jsonl"))
        if ready(runs[0].read_text() if runs else ""):
            return proc
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    pytest.fail(never)


def _stopped_in_timing(tmp_path, send) -> tuple[subprocess.CompletedProcess, dict]:
    """A run of naive and sleeper (whose timed calls hang) stopped by ``send(process)`` once naive's result is
    in and sleeper is being timed."""
    env = fault_env(tmp_path, "impls")
    cmd = [sys.executable, "-m", "swarbench.cli", *CONTAINS, "--impl", "naive", "--impl", "sleeper"]
    proc = started_until(
        cmd,
        env,
        lambda text: '"implementation": "naive"' in text and '"phase": "timing"' in text.split('"sleeper"', 1)[-1],
        120,
        "naive never finished before sleeper hung",
    )
    time.sleep(0.3)  # sleeper is inside its timed call
    send(proc)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), env


@pytest.mark.slow
def test_sigterm_is_taken_as_ctrl_c(tmp_path):
    proc, env = _stopped_in_timing(tmp_path, lambda p: p.send_signal(signal.SIGTERM))
    assert proc.returncode == 130, proc.stderr
    assert "interrupted" in proc.stdout and "Traceback" not in proc.stderr
    frame = results_of(env)
    assert frame.set_index("implementation").loc["naive", "status"] == "PASS"


@pytest.mark.slow
def test_a_second_ctrl_c_still_saves_the_results(tmp_path):
    def twice(p):
        os.killpg(p.pid, signal.SIGINT)
        time.sleep(0.2)
        os.killpg(p.pid, signal.SIGINT)

    proc, env = _stopped_in_timing(tmp_path, twice)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    assert results_of(env).set_index("implementation").loc["naive", "status"] == "PASS"


# -- results files that are not what a run writes -------------------------------------------------------------
def _saved_run(tmp_path) -> tuple[dict, Path]:
    env = fault_env(tmp_path)
    proc = swarbench(*CONTAINS, "--impl", "naive", "--impl", "swar", env=env)
    assert proc.returncode == 0, proc.stderr
    return env, run_dir(env)


@pytest.mark.slow
@pytest.mark.parametrize("junk", [b"\x00\xff\xfe binary junk\n", b'[1, 2]\n"a string"\n42\n', "samples"])
def test_compare_on_junk_records_is_one_line_or_renders_what_is_valid(tmp_path, junk):
    env, folder = _saved_run(tmp_path)
    other = tmp_path / "other"
    shutil.copytree(folder, other)
    records = other / "records.jsonl"
    if junk == "samples":
        lines = [json.loads(ln) for ln in records.read_text().splitlines()]
        for rec in lines:
            if rec.get("samples_s"):
                rec["samples_s"] = ["fast", "slow"]
        records.write_text("".join(json.dumps(rec) + "\n" for rec in lines))
    else:
        with open(records, "ab") as fh:
            fh.write(junk)
    proc = swarbench("compare", str(folder), str(other), env=env)
    if proc.returncode == 2:
        assert_one_line_error(proc, "records.jsonl")
    else:
        assert proc.returncode == 0 and "Traceback" not in proc.stderr and "naive" in proc.stdout, proc.stderr


@pytest.mark.slow
def test_report_on_words_in_numeric_columns_is_one_line(tmp_path):
    env, folder = _saved_run(tmp_path)
    frame = pd.read_csv(folder / "results.csv")
    frame["ns_per_op_median"] = frame["ns_per_op_median"].astype(object)
    frame.loc[0, "ns_per_op_median"] = "fast"
    frame.to_csv(folder / "results.csv", index=False)
    assert_one_line_error(swarbench("report", str(folder), env=env), "ns_per_op_median", "'fast'")


@pytest.mark.slow
@pytest.mark.parametrize("machine", [b"\xff\xfe not text", b"[1, 2]"])
def test_a_machine_file_that_is_not_one_is_an_unknown_machine(tmp_path, machine):
    env, folder = _saved_run(tmp_path)
    (folder / "machine.json").write_bytes(machine)
    shown = swarbench("report", str(folder), env=env)
    assert shown.returncode == 0 and "naive" in shown.stdout and "Traceback" not in shown.stderr, shown.stderr


@pytest.mark.slow
def test_report_and_compare_render_a_folder_with_records_only_and_a_cut_last_line(tmp_path):
    env, folder = _saved_run(tmp_path)
    (folder / "results.csv").unlink()
    with open(folder / "records.jsonl", "a") as fh:
        fh.write('{"event": "result", "case": "cards.contains:naive:deals:n=64", "samp')
    shown = swarbench("report", str(folder), env=env)
    assert shown.returncode == 0 and "naive" in shown.stdout and "swar" in shown.stdout, shown.stderr
    compared = swarbench("compare", str(folder), str(folder), env=env)
    assert compared.returncode == 0 and "naive" in compared.stdout, compared.stderr


# -- a full disk ----------------------------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB filesystem of its own (tmpfs: needs root; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if (
        os.geteuid() != 0
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True
        ).returncode
        != 0
    ):
        pytest.skip("mounting a small tmpfs needs root")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_keeps_what_was_written_readable(tmp_path, small_disk):
    release = tmp_path / "release"
    env = fault_env(tmp_path, "impls", SWARBENCH_REPORTS=str(small_disk / "reports"), SBFAULT_RELEASE=str(release))
    cmd = [sys.executable, "-m", "swarbench.cli", *CONTAINS, "--impl", "naive", "--impl", "sleeper"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        runs = list((small_disk / "reports").glob("*/records.jsonl"))
        text = runs[0].read_text() if runs else ""
        if '"implementation": "naive"' in text and '"phase": "timing"' in text.split('"sleeper"', 1)[-1]:
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("naive never finished before sleeper waited")
    with open(small_disk / "ballast", "wb", buffering=0) as fh:  # the disk fills while sleeper is timed
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError:
            pass
    release.write_text("")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode not in (0, 2) and "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("swarbench: error: no space left on device: ") and str(small_disk) in lines[-1]
    folder = runs[0].parent
    for line in (folder / "records.jsonl").read_text().splitlines():
        json.loads(line)  # whole lines only
    (small_disk / "ballast").unlink()
    shown = swarbench("report", str(folder), env=env)
    assert shown.returncode == 0 and "naive" in shown.stdout, shown.stderr


# -- implementations that cheat or die ------------------------------------------------------------------------
@pytest.mark.slow
def test_an_implementation_writing_into_its_inputs_is_blamed_and_harms_no_other(tmp_path):
    env = fault_env(tmp_path, "impls")
    proc = swarbench(
        *CONTAINS,
        "--impl",
        "naive",
        "--impl",
        "writer",
        "--impl",
        "prepare-writer",
        "--impl",
        "unrolled",
        "--impl",
        "swar",
        env=env,
    )
    one_line(proc, 1, "writer", "prepare-writer")
    frame = results_of(env).set_index("implementation")
    assert (frame.loc[["naive", "unrolled", "swar"], "status"] == "PASS").all(), frame[["status", "reason"]]
    for name in ("writer", "prepare-writer"):
        assert frame.loc[name, "status"] in ("FAIL", "ERROR") and "read-only" in frame.loc[name, "reason"]


@pytest.mark.slow
def test_an_implementation_wrong_after_its_first_call_fails_with_one_worker(tmp_path):
    env = fault_env(tmp_path, "impls")
    one_line(swarbench(*CONTAINS, "--impl", "flaky", env=env), 1, "flaky")
    row = results_of(env).set_index("implementation").loc["flaky"]
    # caught on the first call it got wrong: a sizing, warm-up or timed call's output is checked (spot checks)
    assert row.status == "FAIL" and ("wrong on a" in row.reason or "timed output" in row.reason), row.reason


@pytest.mark.slow
def test_a_cached_answer_is_not_ranked(tmp_path):
    env = fault_env(tmp_path, "impls")
    proc = swarbench(
        "run", "--kernel", "cards.contains", "--size", "1e6", "--passes", "1", *FAST, "--impl", "cached", env=env
    )
    one_line(proc, 1, "cached")
    row = results_of(env).set_index("implementation").loc["cached"]
    # answers kept from prepare: the outputs the harness wrote over come back (spot checks), or a bound is broken
    assert row.status == "FAIL" and ("did no work" in row.reason or "cycle" in row.reason), row.reason


@pytest.mark.slow
@pytest.mark.parametrize("name, words", [("sys-exit", ["sys.exit(0)"]), ("os-exit", ["exited with code 3"])])
def test_a_worker_that_dies_is_a_crash_of_its_case_and_the_run_goes_on(tmp_path, name, words):
    env = fault_env(tmp_path, "impls")
    proc = swarbench(*CONTAINS, "--impl", "naive", "--impl", name, "--impl", "swar", env=env)
    one_line(proc, 1, name)
    frame = results_of(env).set_index("implementation")
    assert frame.loc[name, "status"] == "CRASH" and all(w in frame.loc[name, "reason"] for w in words)
    assert (frame.loc[["naive", "swar"], "status"] == "PASS").all(), frame[["status", "reason"]]


@pytest.mark.slow
def test_a_worker_that_dies_of_a_ctrl_c_ends_the_run_as_interrupted_not_as_a_crash(tmp_path):
    env = fault_env(tmp_path, "impls")
    proc = swarbench(*CONTAINS, "--impl", "naive", "--impl", "dies-of-ctrl-c", env=env)
    assert proc.returncode == 130 and "Traceback" not in proc.stderr, proc.stderr
    frame = results_of(env)
    assert not frame.status.isin(["CRASH", "ERROR", "LOST"]).any(), frame[["implementation", "status", "reason"]]


@pytest.mark.slow
def test_a_batch_raising_keyboardinterrupt_is_its_error_not_the_users_ctrl_c(tmp_path):
    env = fault_env(tmp_path, "impls")
    proc = swarbench(*CONTAINS, "--impl", "naive", "--impl", "interrupts", "--impl", "swar", env=env)
    one_line(proc, 1, "interrupts")
    frame = results_of(env).set_index("implementation")
    assert frame.loc["interrupts", "status"] == "ERROR" and "KeyboardInterrupt" in frame.loc["interrupts", "reason"]
    assert (frame.loc[["naive", "swar"], "status"] == "PASS").all()
