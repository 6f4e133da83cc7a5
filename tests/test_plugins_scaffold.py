"""swarbench new-plugin: the package it writes builds as a wheel, installs, runs under `swarbench run`, and passes
its own test; it never writes into an existing folder and never takes a kernel id a plugin already has."""

import pandas as pd
import pytest

from conftest import FAST, assert_one_line_error, cli_env, swarbench
from test_example_plugin import build_wheel, install_wheel, run_own_tests


@pytest.mark.slow
def test_the_scaffold_installs_from_a_wheel_runs_and_passes_its_own_test(tmp_path):
    env = cli_env(tmp_path)
    made = swarbench(
        "new-plugin", "swarbench-popcnt", "--kernel", "popcnt.bits", "--into", str(tmp_path / "new"), env=env
    )
    assert made.returncode == 0, made.stderr
    plugin = tmp_path / "new" / "swarbench-popcnt"
    assert (plugin / "swarbench_popcnt" / "c" / "bits.c").exists()
    assert (
        "new-plugin never writes"
        in swarbench(
            "new-plugin", "swarbench-popcnt", "--kernel", "popcnt.bits", "--into", str(tmp_path / "new"), env=env
        ).stderr
    )

    env = cli_env(tmp_path, install_wheel(build_wheel(plugin, tmp_path / "build"), tmp_path / "site"))
    proc = swarbench("run", "--kernel", "popcnt.bits", "--size", "300", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr
    (run,) = (tmp_path / "reports").iterdir()
    frame = pd.read_csv(run / "results.csv").set_index("implementation")
    assert frame.loc["naive", "status"] == "PASS" and frame.loc["c-swar", "status"] in ("PASS", "SKIP")
    own = run_own_tests(tmp_path / "build" / "swarbench-popcnt" / "tests", env, tmp_path)
    assert own.returncode == 0, own.stdout[-3000:]
    assert "3 passed" in own.stdout


def test_an_existing_folder_is_never_overwritten(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("mine")
    proc = swarbench("new-plugin", "mine", "--kernel", "mine.op", "--into", str(tmp_path), env=cli_env(tmp_path))
    assert_one_line_error(proc, "already exists", "never writes into an existing folder")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["keep.txt"]


def test_a_taken_or_malformed_kernel_id_is_refused(tmp_path):
    env = cli_env(tmp_path)
    assert_one_line_error(
        swarbench("new-plugin", "x", "--kernel", "poker.atoi8", "--into", str(tmp_path), env=env),
        "kernel poker.atoi8 already exists (plugin poker)",
    )
    assert_one_line_error(
        swarbench("new-plugin", "x", "--kernel", "atoi8", "--into", str(tmp_path), env=env), "'<suite>.<operation>'"
    )
    assert not (tmp_path / "x").exists()
