"""Saved runs: runs of an earlier version are read in today's names, and a format this version cannot read is
refused in one line naming it."""

import json

import numpy as np
import pytest

from conftest import assert_one_line_error, swarbench
from swarbench import results
from swarbench.errors import UsageError


def _frame_with_probe():
    rec = {
        "event": "result",
        "kernel": "k.x",
        "implementation": "a",
        "workload": "w",
        "n": 10,
        "status": "PASS",
        "samples_s": [1e-6, 1.1e-6],
        "iterations": 1,
        "worker": 0,
        "baseline": "a",
        "family": "numpy",
    }
    probe = dict(
        rec,
        kernel="swarbench.overhead",
        implementation="numpy",
        workload="empty",
        n=1,
        baseline="",
        samples_s=[1e-7, 1.1e-7],
    )
    return results.frame_from_records([rec, probe], "r", {})


def test_a_run_saved_before_the_rename_reads_its_probes_as_swarbench_overhead(tmp_path):
    frame = _frame_with_probe()
    old = tmp_path / "results.csv"
    frame.replace({"kernel": {"swarbench.overhead": "harness.overhead"}}).to_csv(old, index=False)
    loaded = results.load(old)
    assert sorted(loaded["kernel"]) == ["k.x", "swarbench.overhead"]
    assert np.isclose(loaded.set_index("kernel").loc["swarbench.overhead", "ns_per_op_median"], 105)

    records = tmp_path / results.RECORDS
    lines = [
        {"event": "start", "case": "harness.overhead:numpy:empty:n=1"},
        {"event": "result", "case": "harness.overhead:numpy:empty:n=1", "kernel": "harness.overhead"},
    ]
    records.write_text("".join(json.dumps(line) + "\n" for line in lines))
    start, result = results.read_records(records)
    assert start.case == result.case == "swarbench.overhead:numpy:empty:n=1"
    assert result.kernel == "swarbench.overhead"


@pytest.mark.parametrize(
    "version, words",
    [
        (results.FORMAT_VERSION + 1, [f"results format {results.FORMAT_VERSION + 1}", "newer swarbench"]),
        (1, ["results format 1", "early swarbench"]),
        ("x", ["results format 'x'"]),
    ],
)
def test_a_format_this_version_cannot_read_is_refused_in_one_line(env, tmp_path, version, words):
    path = tmp_path / "results.csv"
    _frame_with_probe().assign(format_version=version).to_csv(path, index=False)
    with pytest.raises(UsageError):
        results.load(path)
    assert_one_line_error(swarbench("report", str(path), env=env), *words)


def test_a_status_knows_how_bad_it_is_and_whether_it_failed_or_was_timed():
    from swarbench.runfolder import Status

    order = sorted(Status, key=lambda s: s.severity, reverse=True)
    assert order[:4] == [Status.CRASH, Status.TIMEOUT, Status.ERROR, Status.FAIL]
    assert Status.PASS.severity > Status.LOST.severity > Status.SKIP.severity  # a verdict outranks no verdict
    assert {s for s in Status if s.failed} == {Status.FAIL, Status.ERROR, Status.CRASH, Status.TIMEOUT}
    assert {s for s in Status if s.untimed} == set(Status) - {Status.PASS}
    assert not Status.LOST.failed and Status.LOST.untimed and Status.LOST.words == "lost with its machine"
    assert f"{Status.CRASH}" == str(Status.CRASH) == "CRASH" and json.dumps(Status.PASS) == '"PASS"'
    with pytest.raises(ValueError, match="'MAYBE' is no status"):
        Status.parse("MAYBE")


def test_a_case_id_is_written_and_parsed_back():
    from swarbench.runfolder import CaseId

    for case in (CaseId("cards.contains", "c-swar", "deals", 4096), CaseId("poker.equity", "c", "aa-full")):
        assert CaseId.parse(case.id) == case and str(case) == case.id
    assert CaseId("k.x", "a", "w").id == "k.x:a:w:n=default"
    for bad in ("k.x:a:w", "k.x:a:w:4096", "k.x:a:w:n=lots", "::w:n=1"):
        with pytest.raises(ValueError, match="no case id"):
            CaseId.parse(bad)


def test_a_result_line_reads_back_as_written_and_keeps_fields_it_does_not_know():
    from swarbench.runfolder import MeasurementKey, ResultLine, Status, record

    line = ResultLine(
        case="k.x:a:w:n=10",
        kernel="k.x",
        implementation="a",
        workload="w",
        n=10,
        status=Status.PASS,
        samples_s=[1e-6],
        counts={"hw_cycles_per_op": 2.0},
        suite="k",
    )
    written = json.loads(json.dumps(line.to_json()))
    assert written["hw_cycles_per_op"] == 2.0 and written["status"] == "PASS" and "counts" not in written
    assert record(written) == line and line.key == MeasurementKey("k.x", "a", "w", 10)
    later = record(dict(written, asm_bytes=120))  # a field of a later version: kept, and written back
    assert later.extra == {"asm_bytes": 120} and later.to_json()["asm_bytes"] == 120
    old = record({"kernel": "k.x", "status": "FAIL", "samples_s": []})  # the earliest runs wrote no event
    assert isinstance(old, ResultLine) and old.status is Status.FAIL and old.pass_canary_s == []


@pytest.mark.parametrize(
    "name, document, words",
    [
        ("records.jsonl", '{"event": "run", "keep_slowed": false, "format_version": 9}\n', "records format 9"),
        ("records.jsonl", '{"event": "result", "kernel": "k.x", "status": "MAYBE"}\n', "status holds 'MAYBE'"),
        ("machine.json", '{"cpu": "x", "format_version": 9}', "machine format 9"),
    ],
)
@pytest.mark.slow
def test_a_run_file_of_a_newer_format_or_a_made_up_field_is_refused_in_one_line(env, tmp_path, name, document, words):
    folder = tmp_path / "run"
    folder.mkdir()
    _frame_with_probe().to_csv(folder / "results.csv", index=False)
    (folder / "records.jsonl").write_text('{"event": "run", "keep_slowed": false}\n')
    (folder / name).write_text(document)
    assert_one_line_error(swarbench("compare", str(folder), str(folder), env=env), words)


def test_files_of_runs_saved_before_their_formats_were_versioned_load(tmp_path):
    from swarbench.runfolder import RunFolder, RunLine

    folder = tmp_path / "run"
    folder.mkdir()
    rec = {
        "event": "result",
        "case": "k.x:a:w:n=10",
        "kernel": "k.x",
        "implementation": "a",
        "workload": "w",
        "n": 10,
        "status": "PASS",
        "samples_s": [1e-6, 1.1e-6],
        "iterations": 1,
        "worker": 0,
        "baseline": "a",
    }
    (folder / "records.jsonl").write_text(
        json.dumps({"event": "run", "keep_slowed": False}) + "\n" + json.dumps(rec) + "\n"
    )
    (folder / "machine.json").write_text(json.dumps({"cpu": "AMD EPYC", "cores": 2}))
    (folder / "benchmark.json").write_text(json.dumps({"benchmarks": [], "swarbench": {"command": "swarbench run"}}))
    run = RunFolder(folder)
    assert run.records()[0] == RunLine(keep_slowed=False)
    assert run.machine() == {"cpu": "AMD EPYC", "cores": 2} and run.info()["command"] == "swarbench run"
    assert run.results().loc[0, "status"] == "PASS"  # built from the records: the run wrote no results.csv
    run.write_machine({"cpu": "AMD EPYC"})  # written now, versioned; read back without the stamp
    assert json.loads((folder / "machine.json").read_text())["format_version"] == 1
    assert run.machine() == {"cpu": "AMD EPYC"}


def test_a_crash_is_summarised_as_a_crash_not_as_wrong_answers():
    from swarbench.render import RunView, render

    rec = {
        "event": "result",
        "case": "k.x:a:w:n=10",
        "kernel": "k.x",
        "implementation": "a",
        "workload": "w",
        "n": 10,
        "status": "PASS",
        "samples_s": [1e-6, 1.1e-6],
        "iterations": 1,
        "worker": 0,
        "baseline": "a",
        "family": "python",
        "unit": "op",
    }
    crash = dict(
        rec,
        implementation="boom",
        case="k.x:boom:w:n=10",
        status="CRASH",
        samples_s=[],
        reason="crashed (signal 11, SIGSEGV)",
    )
    wrong = dict(rec, implementation="off", case="k.x:off:w:n=10", status="FAIL", samples_s=[], reason="row 3")
    lost = dict(rec, implementation="gone", case="k.x:gone:w:n=10", status="LOST", samples_s=[], reason="left")
    view = RunView(results.frame_from_records([rec, crash, wrong, lost], "r", {}), {})
    text = render("text", view)
    assert "k.x: crashed: boom" in text and "k.x: WRONG ANSWERS from off" in text
    assert "WRONG ANSWERS from boom" not in text and "--- LOST: BenchmarkX/gone-1 [python]: left" in text
    assert "gone: lost with its machine: left" in render("md", view) and "crashed: boom" in render("html", view)


def test_renderers_open_no_file(monkeypatch):
    import builtins
    import io
    from pathlib import Path

    from swarbench.render import RunView, render

    view = RunView(_frame_with_probe(), {"cpu": "x"})

    def refused(*args, **kwargs):
        raise AssertionError(f"a renderer opened {args[:1]}")

    monkeypatch.setattr(builtins, "open", refused)
    monkeypatch.setattr(io, "open", refused)
    monkeypatch.setattr(Path, "open", refused)
    assert all(render(fmt, view) for fmt in ("text", "md", "csv", "html"))
