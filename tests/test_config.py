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


def test_every_key_is_checked_and_given_to_its_option(monkeypatch):
    monkeypatch.delenv("SWARBENCH_REPORTS", raising=False)  # (set, it would win over the table's folder)
    settings = config.check(
        {
            "kernels": "cards.*",
            "implementations": ["c-*", "numpy-*"],
            "size": 1e6,
            "sizes": [1000, 10000],
            "processes": 3,
            "max-time": 0.5,
            "overhead": False,
            "params": {"hero": "7h 2c", "boards": 10},
            "format": "md",
            "reports": "out",
            "disable-plugins": ["poker"],
        }
    )
    run = settings.defaults("run")
    assert run["kernels"] == ["cards.*"] and run["implementations"] == ["c-*", "numpy-*"]
    assert run["size"] == 1_000_000 and isinstance(run["size"], int) and run["sizes"] == [1000, 10000]
    assert run["processes"] == 3 and run["max_time"] == 0.5 and run["overhead"] is False
    assert run["params"] == {"hero": "7h 2c", "boards": "10"} and run["seed"] == 0  # not in the table: its default
    assert {k: str(v) for k, v in settings.defaults("compare").items()} == {"reports": "out", "follow": "None"}
    assert settings.disabled_plugins == ["poker"]


@pytest.mark.parametrize(
    "table, words",
    [
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
        ({"processes": 1e9}, ["processes = 1000000000.0", "at most 1,000"]),  # the command line's limits, too
        ({"min-rounds": 10**7}, ["min-rounds", "at most 1,000,000"]),
        ({"size": 2**63}, ["size", "at most 4,611,686,018,427,387,904"]),
        ({"seed": -1}, ["seed", "a whole number, 0 or more"]),
        ({"max_time": 1}, ["unknown key 'max_time'", "did you mean 'max-time'"]),
        ({"colour": 1}, ["unknown key 'colour'", "keys: "]),
    ],
)
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
    proc = swarbench("run", "-k", "cards.contains", cwd=project(tmp_path, "processes = 'two'\n"), env=cli_env(tmp_path))
    assert_one_line_error(proc, "[tool.swarbench]", "processes", "positive integer")
    assert not (tmp_path / "reports").exists()


def test_kernels_and_disabled_plugins_come_from_the_table_and_the_command_line_wins(tmp_path):
    project(
        tmp_path,
        """\
        kernels = ["cards.contains"]
        disable-plugins = ["poker"]
        """,
    )
    listed = swarbench("list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "cards.contains:" in listed.stdout and "cards.remove:" not in listed.stdout
    assert "poker.rank7" not in listed.stdout and "disabled plugins: poker" in listed.stdout
    given = swarbench("--disable-plugin", "mastermind", "list", "-k", "cards.remove", cwd=tmp_path)
    assert given.returncode == 0, given.stderr
    assert "cards.remove:" in given.stdout and "cards.contains:" not in given.stdout
    assert "disabled plugins: mastermind" in given.stdout


@pytest.mark.slow
def test_a_run_takes_its_options_from_the_table_and_the_command_line_wins(tmp_path):
    project(
        tmp_path,
        """\
        kernels = "cards.remove"
        implementations = ["*swar*"]
        size = 64
        processes = 1
        max-time = 0.005
        min-rounds = 1
        overhead = false
        quiet = true
        reports = "saved"
        """,
    )
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


def test_every_option_is_declared_once_and_the_command_line_table_and_library_take_it_from_there():
    import argparse
    import dataclasses
    import inspect

    from swarbench import api, cli, options, registry
    from swarbench.run_request import RunRequest

    # the library's keywords are the run's options, and a run's every field is some option's
    assert set(inspect.signature(api.request).parameters) == set(options.RUN_OPTIONS)
    fields = {f.name for f in dataclasses.fields(RunRequest)}
    assert fields == {o.field for o in options.RUN_OPTIONS.values()}
    # one set of defaults: a RunRequest of nothing is the options' defaults, and so is an empty command line
    assert RunRequest() == api.request_of({})
    parser = cli.build_parser(registry.Registry(), config.Settings({}), ["run"])
    args = parser.parse_args(["run"])
    assert api.request_of(options.run_values(args)) == RunRequest()
    # each option is on the command line of every sub-command that has it, under its flags
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for option in options.OPTIONS.values():
        for command in option.commands:
            p = sub.choices[command] if command else parser
            flags = {f for a in p._actions for f in a.option_strings}
            assert set(option.flags or (f"--{option.key}",)) <= flags, (command, option.key)


@pytest.mark.parametrize("value", ["1e9", "1000000000"])
def test_the_same_limit_holds_on_the_command_line_in_the_table_and_in_the_library(tmp_path, value):
    proc = swarbench("run", "--processes", value, env=cli_env(tmp_path))
    assert_one_line_error(proc, "--processes", "too large (at most 1,000)")
    table = swarbench("run", cwd=project(tmp_path, f"processes = {value}\n"), env=cli_env(tmp_path))
    assert_one_line_error(table, "[tool.swarbench]", "processes", "at most 1,000")
    from swarbench import api

    with pytest.raises(UsageError, match="processes = 1000000000.*at most 1,000"):
        api.request(processes=int(float(value)))


def test_a_library_keyword_that_is_no_option_of_a_run_is_refused():
    from swarbench import api

    with pytest.raises(UsageError, match=r"unknown keyword 'format'.*keywords: disable_plugins"):
        api.request(format="md")
    with pytest.raises(UsageError, match="did you mean 'max_time'"):
        api.request(maxtime=1)


def test_the_configuration_page_lists_every_key():
    from conftest import ROOT
    from swarbench import options

    page = (ROOT / "docs" / "configuration.md").read_text()
    assert [key for key in options.OPTIONS if f"| `{key}` |" not in page] == []
