"""[tool.swarbench] in ./pyproject.toml: the options' defaults, the command line winning, bad keys as one line."""
from __future__ import annotations

import os
import textwrap

import pandas as pd
import pytest

from swarbench import config
from swarbench.errors import UsageError

from conftest import assert_one_line_error, cli_env, swarbench


def project(tmp_path, table: str):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n\n[tool.swarbench]\n" + textwrap.dedent(table))
    return tmp_path


def test_every_key_is_checked_and_given_to_its_option():
    settings = config.check({"kernels": "cards.*", "implementations": ["c-*", "numpy-*"], "size": 1e6,
                             "sizes": [1000, 10000], "processes": 3, "max-time": 0.5, "overhead": False,
                             "params": {"hero": "7h 2c", "boards": 10}, "format": "md", "reports": "out",
                             "disable-plugins": ["poker"]})
    run = settings.for_command("run")
    assert run["kernel"] == ["cards.*"] and run["impl"] == ["c-*", "numpy-*"]
    assert run["size"] == 1_000_000 and isinstance(run["size"], int) and run["sizes"] == [1000, 10000]
    assert run["processes"] == 3 and run["max_time"] == 0.5 and run["no_overhead"] is True
    assert run["param"] == [("hero", "7h 2c"), ("boards", "10")] and str(run["reports"]) == "out"
    assert settings.for_command("compare") == {"reports": run["reports"]}  # only what compare has
    assert settings.disabled_plugins == ["poker"]
    assert "kernel" not in settings.defaults("run")  # repeatable options are filled after parsing


@pytest.mark.parametrize("table, words", [
    ({"processes": "two"}, ["processes", '"two"', "positive integer"]),
    ({"processes": 0}, ["processes", "positive integer"]),
    ({"processes": True}, ["processes", "positive integer"]),
    ({"size": 1.5}, ["size", "positive integer"]),
    ({"max-time": 0}, ["max-time", "above 0"]),
    ({"timeout": float("inf")}, ["timeout", "above 0"]),
    ({"overhead": "no"}, ["overhead", "true or false"]),
    ({"kernels": 3}, ["kernels", "string or a list"]),
    ({"kernels": ["cards.*", 3]}, ["kernels", "string or a list"]),
    ({"format": "pdf"}, ["format", "text, md, csv, html"]),
    ({"params": {"hero": ["7h"]}}, ["params", "table"]),
    ({"settle": -1}, ["settle", "0 or more"]),
    ({"max_time": 1}, ["unknown key 'max_time'", "did you mean 'max-time'"]),
    ({"colour": 1}, ["unknown key 'colour'", "keys: "]),
])
def test_a_bad_key_or_value_names_the_key(table, words):
    with pytest.raises(UsageError) as err:
        config.check(table)
    message = str(err.value)
    assert "\n" not in message and "[tool.swarbench]" in message
    for word in words:
        assert word in message, message


def test_no_file_or_no_table_is_no_settings(tmp_path):
    assert config.read(tmp_path).values == {}
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'mine'\n[tool.ruff]\nline-length = 99\n")
    assert config.read(tmp_path).values == {}


def test_a_pyproject_that_is_not_toml_is_one_line(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.swarbench\nprocesses = 1\n")
    assert_one_line_error(swarbench("list", cwd=tmp_path), "pyproject.toml", "not valid TOML")


def test_a_bad_value_stops_the_command_line_before_anything_runs(tmp_path):
    proc = swarbench("run", "-k", "cards.contains", cwd=project(tmp_path, "processes = 'two'\n"),
                     env=cli_env(tmp_path))
    assert_one_line_error(proc, "[tool.swarbench]", "processes", "positive integer")
    assert not (tmp_path / "reports").exists()


def test_kernels_and_disabled_plugins_come_from_the_table_and_the_command_line_wins(tmp_path):
    project(tmp_path, """\
        kernels = ["cards.contains"]
        disable-plugins = ["poker"]
        """)
    listed = swarbench("list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "cards.contains:" in listed.stdout and "cards.remove:" not in listed.stdout
    assert "poker.rank7" not in listed.stdout and "disabled plugins: poker" in listed.stdout
    given = swarbench("--disable-plugin", "mastermind", "list", "-k", "cards.remove", cwd=tmp_path)
    assert given.returncode == 0, given.stderr
    assert "cards.remove:" in given.stdout and "cards.contains:" not in given.stdout
    assert "disabled plugins: mastermind" in given.stdout


def test_a_run_takes_its_options_from_the_table_and_the_command_line_wins(tmp_path):
    project(tmp_path, """\
        kernels = "cards.remove"
        implementations = ["*swar*"]
        size = 64
        processes = 1
        max-time = 0.005
        min-rounds = 1
        overhead = false
        quiet = true
        reports = "saved"
        """)
    env = {k: v for k, v in os.environ.items() if k != "SWARBENCH_REPORTS"}
    proc = swarbench("run", "--size", "32", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == ""  # quiet: no progress lines
    (results,) = (tmp_path / "saved").glob("*/results.csv")
    frame = pd.read_csv(results)
    assert set(frame.kernel) == {"cards.remove"}  # no overhead rows: overhead = false
    assert frame.implementation.str.contains("swar").all()
    assert (frame.n == 32).all() and (frame[frame.status == "PASS"].processes == 1).all()
    # the same table tells report where runs are
    again = swarbench("report", "latest", "--format", "csv", cwd=tmp_path, env=env)
    assert again.returncode == 0 and "ns_per_op_median" in again.stdout, again.stderr
    # $SWARBENCH_REPORTS, when set, wins over the table's folder
    elsewhere = swarbench("report", "latest", cwd=tmp_path, env=dict(env, SWARBENCH_REPORTS=str(tmp_path / "no")))
    assert_one_line_error(elsewhere, "no run 'latest'")


def test_settings_are_read_from_the_folder_swarbench_runs_in(tmp_path):
    project(tmp_path, "colour = 1\n")
    inside = swarbench("list", cwd=tmp_path)
    assert_one_line_error(inside, "unknown key 'colour'")
    outside = swarbench("list", "-k", "cards.contains", cwd=tmp_path.parent)
    assert outside.returncode == 0, outside.stderr
