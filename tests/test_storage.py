"""Saved runs: runs of an earlier version are read in today's names, and a format this version cannot read is
refused in one line naming it."""
import json

import numpy as np
import pytest

from conftest import assert_one_line_error, swarbench
from swarbench import results
from swarbench.errors import UsageError


def _frame_with_probe():
    rec = {"event": "result", "kernel": "k.x", "implementation": "a", "workload": "w", "n": 10, "status": "PASS",
           "samples_s": [1e-6, 1.1e-6], "iterations": 1, "worker": 0, "baseline": "a", "family": "numpy"}
    probe = dict(rec, kernel="swarbench.overhead", implementation="numpy", workload="empty", n=1, baseline="",
                 samples_s=[1e-7, 1.1e-7])
    return results.frame_from_records([rec, probe], "r", {})


def test_a_run_saved_before_the_rename_reads_its_probes_as_swarbench_overhead(tmp_path):
    frame = _frame_with_probe()
    old = tmp_path / "results.csv"
    frame.replace({"kernel": {"swarbench.overhead": "harness.overhead"}}).to_csv(old, index=False)
    loaded = results.load(old)
    assert sorted(loaded["kernel"]) == ["k.x", "swarbench.overhead"]
    assert np.isclose(loaded.set_index("kernel").loc["swarbench.overhead", "ns_per_op_median"], 105)

    records = tmp_path / results.RECORDS
    lines = [{"event": "start", "case": "harness.overhead:numpy:empty:n=1"},
             {"event": "result", "case": "harness.overhead:numpy:empty:n=1", "kernel": "harness.overhead"}]
    records.write_text("".join(json.dumps(line) + "\n" for line in lines))
    start, result = results.read_records(records)
    assert start["case"] == result["case"] == "swarbench.overhead:numpy:empty:n=1"
    assert result["kernel"] == "swarbench.overhead"


@pytest.mark.parametrize("version, words", [
    (results.FORMAT_VERSION + 1, [f"results format {results.FORMAT_VERSION + 1}", "newer swarbench"]),
    (1, ["results format 1", "early swarbench"]),
    ("x", ["results format 'x'"]),
])
def test_a_format_this_version_cannot_read_is_refused_in_one_line(env, tmp_path, version, words):
    path = tmp_path / "results.csv"
    _frame_with_probe().assign(format_version=version).to_csv(path, index=False)
    with pytest.raises(UsageError):
        results.load(path)
    assert_one_line_error(swarbench("report", str(path), env=env), *words)
