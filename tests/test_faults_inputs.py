"""Settings, plugins and saved runs a hostile user hands swarbench (issue 39): limits the same from every source
of settings; a plugin that takes a built-in suite's names, or names that would break case ids and reports, is
refused in one line and the built-in suite keeps its own; a slow plugin is named and `run --help` does not wait
on it; `history` honours [tool.swarbench] and says what it leaves out; `latest` is never an empty run; a kernel
with no default workload runs its only one, or says which to add."""

from __future__ import annotations

import json
import textwrap
import types
from pathlib import Path

import pandas as pd
import pytest

from conftest import FAST, assert_one_line_error, cli_env, make_plugin_site, swarbench
from swarbench import Implementation, Kernel, WorkloadKind, api, config, hookimpl, registry, results
from swarbench.errors import UsageError
from swarbench.model import Command, SuiteReport
from swarbench.runfolder import RECORDS, RunFolder
from swarbench.suites.cards import spec as cards_spec


# -- settings: the same limits from the command line, [tool.swarbench], the environment and the library ----------
@pytest.mark.parametrize(
    "key, toml, words",
    [
        ("processes", "1e9", ["processes", "at most 1,000"]),
        ("passes", "1e8", ["passes", "at most 1,000"]),
        ("min-rounds", "1e12", ["min-rounds", "at most 1,000,000"]),
        ("short-rounds", "-1", ["short-rounds"]),
        ("settle", "1e9", ["settle", "at most 1,000"]),
        ("max-time", "inf", ["max-time"]),
        ("timeout", "nan", ["timeout"]),
        ("seed", "-1", ["seed"]),
        ("size", "0", ["size"]),
        ("sizes", "[1, 1e400]", ["sizes"]),
        ("reports", "''", ["reports", "a folder"]),
    ],
)
def test_a_setting_beyond_its_limits_is_refused_from_every_source(tmp_path, key, toml, words):
    table = config.tomllib.loads(f"{key} = {toml}\n")
    with pytest.raises(UsageError, match=key):  # [tool.swarbench], as the command line reads it
        config.check(table)
    with pytest.raises(UsageError, match=key.replace("-", "_")):  # the library
        api.request(**{key.replace("-", "_"): table[key]})
    if key == "processes":  # and the command line itself, once: refused before anything is made
        (tmp_path / "pyproject.toml").write_text(f"[tool.swarbench]\n{key} = {toml}\n")
        env = cli_env(tmp_path)
        assert_one_line_error(swarbench("run", "-q", env=env, cwd=tmp_path), "pyproject.toml", *words)
        assert not (tmp_path / "reports").exists()


def test_an_environment_variable_set_to_nothing_is_refused_where_it_is_used(tmp_path, monkeypatch):
    env = cli_env(tmp_path, SWARBENCH_REPORTS="")
    assert_one_line_error(
        swarbench("run", "-k", "cards.contains", env=env, cwd=tmp_path), "$SWARBENCH_REPORTS", "a folder"
    )
    assert swarbench("list", "-k", "cards.contains", env=env).returncode == 0  # it has no use for the folder
    assert list(tmp_path.iterdir()) == []  # nothing saved into the current folder
    monkeypatch.setenv("SWARBENCH_REPORTS", "")
    for call in (lambda: api.reports_folder(), lambda: api.load("latest"), lambda: api.request()):
        with pytest.raises(UsageError, match="SWARBENCH_REPORTS"):
            call()


# -- plugins: names that are swarbench's own, names that break ids, fields of the wrong kind ---------------------
def _plugin(**hooks):
    return types.SimpleNamespace(**{k: hookimpl(tryfirst=True)(v) for k, v in hooks.items()})


def _kind(name="w"):
    return WorkloadKind(name, lambda size, seed: ({"x": list(range(size))}, size), "numbers", 4)


FOREIGN = Kernel(
    "cards.contains",
    "a foreign kernel under a built-in's id",
    "thing",
    (_kind(),),
    reference=lambda inputs: [0] * len(inputs["x"]),
)


@pytest.mark.parametrize(
    "hook, add",
    [
        ("swarbench_add_kernels", lambda registry: registry.add_kernel(FOREIGN)),
        (
            "swarbench_add_implementations",
            lambda registry: registry.add_implementation(
                Implementation("cards.contains", "naive", "python-naive", lambda w: lambda: None)
            ),
        ),
        ("swarbench_add_reports", lambda registry: registry.add_report(SuiteReport("cards.post", lambda frame: None))),
        (
            "swarbench_add_commands",
            lambda registry: registry.add_command(Command("poker", "not the suite's", lambda p: None, lambda a, r: 0)),
        ),
    ],
)
def test_a_plugin_called_before_a_built_in_suite_cannot_take_its_names(hook, add):
    reg = registry.load(extra_plugins=[("aaa", _plugin(**{hook: add}))])
    assert [f.plugin for f in reg.failures] == ["aaa"], reg.failures
    assert "is swarbench's own" in reg.failures[0].error
    assert reg.owners["cards.contains"] == "cards" and reg.kernels["cards.contains"] is cards_spec.CONTAINS
    assert reg.owners["cards.contains/naive"] == "cards" and reg.owners["command:poker"] == "poker"
    assert "aaa" not in reg.owners.values()


@pytest.mark.slow
def test_a_plugin_named_before_a_suite_is_refused_and_the_suites_rows_keep_their_oracle(tmp_path):
    site = make_plugin_site(
        tmp_path / "site",
        "aaa",
        """
        from swarbench import Kernel, WorkloadKind, hookimpl

        @hookimpl
        def swarbench_add_kernels(registry):
            kind = WorkloadKind("deals", lambda size, seed: ({"x": list(range(size))}, size), "numbers", 4)
            registry.add_kernel(Kernel("cards.contains", "foreign", "thing", (kind,), reference=lambda i: [0]))
        """,
    )
    env = cli_env(tmp_path, site)
    listed = swarbench("list", "-k", "cards.contains", env=env)
    assert listed.returncode == 1 and "plugin 'aaa' failed" in listed.stdout and "is swarbench's own" in listed.stdout
    assert "c-swar" in listed.stdout  # the suite is all there
    proc = swarbench("run", "-k", "cards.contains", "-i", "naive", "-n", "64", "--passes", "1", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr  # naive checked against the suite's own oracle
    assert "plugin 'aaa' failed" in proc.stderr


HOSTILE_NAMES = ["xss.k'><script>alert(1)</script>", "k.a:b", "k.a/b", "k.with space", "k.new\nline", ".k", "k.é"]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_names_that_would_break_case_ids_or_reports_are_refused_naming_the_plugin(name):
    ok = Kernel("ok.k", "d", "op", (_kind(),), reference=len)
    cases = [
        lambda registry: registry.add_kernel(Kernel(name, "d", "op", (_kind(),), reference=len)),
        lambda registry: registry.add_implementation(Implementation("ok.k", name, "python", lambda w: len)),
        lambda registry: registry.add_implementation(Implementation("ok.k", "fine", name, lambda w: len)),
        lambda registry: registry.add_kernel(Kernel("hostile.k", "d", "op", (_kind(name),), reference=len)),
        lambda registry: registry.add_report(SuiteReport(name, lambda frame: None)),
        lambda registry: registry.add_command(Command(name, "h", lambda p: None, lambda a, r: 0)),
    ]
    for add in cases:
        good = types.SimpleNamespace(swarbench_add_kernels=hookimpl(lambda registry: registry.add_kernel(ok)))
        hostile = types.SimpleNamespace(swarbench_add_implementations=hookimpl(add))
        reg = registry.load(extra_plugins=[("good", good), ("hostile", hostile)], entry_points=False)
        assert [f.plugin for f in reg.failures] == ["hostile"], reg.failures
        assert "is not a name" in reg.failures[0].error and "\n" not in str(reg.failures[0])
        assert "ok.k" in reg.kernels  # the other plugin is untouched


@pytest.mark.parametrize(
    "kernel, words",
    [
        (Kernel("bad.unit", "d", 5, (_kind(),), reference=len), "unit must be text"),
        (Kernel("bad.none", "d", "op", (), reference=len), "at least one WorkloadKind"),
        (Kernel("bad.kind", "d", "op", ("w",), reference=len), "WorkloadKind objects"),
        (Kernel("bad.ref", "d", "op", (_kind(),), reference="len"), "reference must be a function"),
        (Kernel("bad.size", "d", "op", (WorkloadKind("w", len, "d", 0),), reference=len), "default_size"),
        (Kernel("bad.twice", "d", "op", (_kind(), _kind()), reference=len), "two workloads named 'w'"),
        (
            Kernel("bad.params", "d", "op", (WorkloadKind("w", len, "d", 4, params={"x": object()}),), reference=len),
            "params['x']",
        ),
    ],
)
def test_kernel_fields_of_the_wrong_kind_are_refused_when_registered(kernel, words):
    plugin = _plugin(swarbench_add_kernels=lambda registry: registry.add_kernel(kernel))
    reg = registry.load(extra_plugins=[("odd", plugin)], entry_points=False)
    assert [f.plugin for f in reg.failures] == ["odd"] and words in reg.failures[0].error, reg.failures


def test_requires_given_as_one_string_is_refused():
    impl = Implementation("cards.contains", "odd", "python", lambda w: len, requires="avx2")
    plugin = _plugin(swarbench_add_implementations=lambda registry: registry.add_implementation(impl))
    reg = registry.load(extra_plugins=[("odd", plugin)])  # (cards.contains: built in)
    assert "requires must be a tuple of strings" in reg.failures[0].error


SLOW_PLUGIN = """
    import os
    import time

    from swarbench import hookimpl
    from swarbench.model import Command

    open(os.environ["SBFAULT_MARK"], "a").write("imported\\n")
    time.sleep(float(os.environ.get("SBFAULT_SLEEP", "2.5")))

    @hookimpl
    def swarbench_add_commands(registry):
        registry.add_command(Command("slow-cmd", "a command of a slow plugin", lambda p: None, lambda a, r: 0))
"""


def test_a_slow_plugin_is_named_and_the_help_of_swarbenchs_own_commands_waits_on_no_plugin(tmp_path):
    mark = tmp_path / "imported"
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "slowpoke", SLOW_PLUGIN), SBFAULT_MARK=str(mark))
    for args in (["run", "--help"], ["report", "--help"], ["list", "--help"]):
        proc = swarbench(*args, env=env)
        assert proc.returncode == 0 and not mark.exists(), (args, proc.stderr)
    proc = swarbench("--help", env=env)
    assert proc.returncode == 0 and "slow-cmd" in proc.stdout
    assert "plugin 'slowpoke' took" in proc.stderr and "--disable-plugin slowpoke" in proc.stderr
    assert swarbench("--help", "--disable-plugin", "slowpoke", env=env).stderr == ""


# -- saved runs: history and latest --------------------------------------------------------------------------
def _records(impl="naive", commit="c1"):
    rec = {
        "event": "result",
        "case": f"k.x:{impl}:w:n=10",
        "kernel": "k.x",
        "implementation": impl,
        "workload": "w",
        "n": 10,
        "status": "PASS",
        "samples_s": [1e-6, 1.1e-6, 1.2e-6],
        "iterations": 1,
        "worker": 0,
        "baseline": "naive",
        "family": "python",
        "unit": "op",
    }
    return [rec]


def _saved_run(reports: Path, run_id: str, commit: str = "c1", csv: bool = True, records: bool = True) -> Path:
    folder = reports / run_id
    folder.mkdir(parents=True)
    run = RunFolder(folder)
    run.write_machine({"cpu": "test cpu", "hostname": "h", "git_commit": commit})
    if records:
        (folder / RECORDS).write_text("".join(json.dumps(r) + "\n" for r in _records()))
    if csv:
        run.save(results.frame_from_records(_records(), run_id, {"git_commit": commit}))
    return folder


def test_history_honours_the_reports_key_and_says_what_it_leaves_out_and_why(tmp_path):
    reports = tmp_path / "elsewhere"
    for i, commit in enumerate(["c1", "c1", "c2"]):
        _saved_run(reports, f"20300101-00000{i}-000{i}", commit)
    _saved_run(reports, "20300101-000003-0003", "c2", csv=False)  # stopped before its results.csv: shown
    bad = _saved_run(reports, "20300101-000004-0004")
    (bad / "results.csv").write_text("not,a\nresults,file\n")
    empty = _saved_run(reports, "20300101-000005-0005", records=False)
    pd.read_csv(empty / "results.csv").iloc[:0].to_csv(empty / "results.csv", index=False)
    (reports / "notes").mkdir()  # not a run folder: neither counted nor named
    (tmp_path / "pyproject.toml").write_text('[tool.swarbench]\nreports = "elsewhere"\n')
    env = cli_env(tmp_path)
    del env["SWARBENCH_REPORTS"]  # the key decides
    proc = swarbench("history", env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip()
    assert "elsewhere/history.html (4 runs; 2 left out" in line, line
    assert "1 unreadable" in line and "20300101-000004-0004" in line
    assert "1 with nothing measured (20300101-000005-0005)" in line
    page = (reports / "history.html").read_text()
    assert "2 left out" in page and "4 runs on 1 machine" in page


def test_latest_is_never_a_run_that_measured_nothing(tmp_path):
    reports = tmp_path / "reports"
    _saved_run(reports, "20300101-000000-0000")
    empty = _saved_run(reports, "20300101-000001-0001", records=False)
    pd.read_csv(empty / "results.csv").iloc[:0].to_csv(empty / "results.csv", index=False)
    stopped = reports / "20300101-000002-0002"
    stopped.mkdir()
    (stopped / RECORDS).write_text('{"event": "run", "format_version": 1}\n')  # stopped before any result
    shown = swarbench("report", "latest", "-f", "csv", env=cli_env(tmp_path))
    assert shown.returncode == 0 and "20300101-000000-0000" in shown.stdout, shown.stderr


# -- a kernel with no default workload -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, words",
    [
        (["-k", "poker.next_subset"], ["kernel poker.next_subset has no default workload", "-w 5of30", "-w 2of45"]),
        (["-k", "poker.a*"], ["nothing to measure", "poker.atoi8", "-k poker.atoi8"]),
        (["-k", "poker.atoi8", "-i", "no-such-*"], ["no implementation"]),
    ],
)
@pytest.mark.slow
def test_a_run_that_would_measure_nothing_is_refused_before_a_run_folder_is_made(tmp_path, args, words):
    env = cli_env(tmp_path)
    assert_one_line_error(swarbench("run", *args, env=env), *words)
    assert not Path(env["SWARBENCH_REPORTS"]).exists()


@pytest.mark.slow
def test_a_kernel_named_by_itself_runs_its_only_workload(tmp_path):
    env = cli_env(tmp_path)
    proc = swarbench(
        "run", "-k", "poker.atoi8", "-i", "c-swar", "-i", "python-swar", "-n", "256", "--passes", "1", *FAST, env=env
    )
    assert proc.returncode == 0, proc.stderr
    frame = api.load("latest", reports=env["SWARBENCH_REPORTS"])
    assert set(frame[frame.kernel == "poker.atoi8"].workload) == {"random"}
    assert (frame[frame.kernel == "poker.atoi8"].status == "PASS").all()
    listed = swarbench("list", "-k", "poker.next_subset", env=env).stdout
    assert "-k poker.next_subset -w 5of30" in textwrap.dedent(listed)
