"""Honest intervals (issue 38), asserted on synthetic records, never on a timing: a median's interval resamples
the units that vary between runs (processes, passes), two runs of one distribution are rarely called different,
a real change is, and the gate says when it cannot tell."""

from __future__ import annotations

import math
from itertools import chain
from pathlib import Path

import numpy as np
import pytest
from swarbench import memory, results
from swarbench.results import sample_stats
from swarbench.run_comparison import (
    LoadedRun,
    compare_pair,
    gate,
    regressions,
    unresolved,
    whole_run_moved,
    workloads_moved,
)


def run_units(rng, processes=1, passes=6, samples=4, level=1.0, process_sd=0.0, pass_sd=0.04, sample_sd=0.01):
    """One run's samples as Units: each process, pass and sample off by its own lognormal factor."""
    out = []
    for _ in range(processes):
        p = level * math.exp(rng.normal(0, process_sd))
        out.append([p * np.exp(rng.normal(0, pass_sd) + rng.normal(0, sample_sd, samples)) for _ in range(passes)])
    return out


def loaded(name, units, key=("k.x", "impl", "w", 1000)):
    return LoadedRun(name, Path("."), {}, {key: units})


def halfwidth(interval, center):
    low, high = interval
    return (high - low) / 2 / center


def test_a_layout_that_splits_passes_into_two_speeds_widens_the_interval():
    rng = np.random.default_rng(11)
    # eight passes, each on a layout of its own: five land at 1.0, three at 1.2; twenty samples each within 1%
    passes = [speed * (1 + 0.01 * rng.standard_normal(20)) for speed in (1.0, 1.2, 1.0, 1.0, 1.2, 1.0, 1.2, 1.0)]
    by_pass = sample_stats.units_interval([passes])
    pooled = sample_stats.units_interval([[np.concatenate(passes)]], flat=True)  # each sample taken as independent
    center = float(np.median(np.concatenate(passes)))
    # the samples alone pin the median to the faster layout; the passes say another run can land on the slower
    assert halfwidth(pooled, center) < 0.02
    assert halfwidth(by_pass, center) > 3 * halfwidth(pooled, center)
    assert by_pass[1] > 1.1
    # one speed: the same samples per pass make a narrow interval
    steady = [1.1 * (1 + 0.01 * rng.standard_normal(20)) for _ in range(8)]
    assert halfwidth(sample_stats.units_interval([steady]), 1.1) < 0.02


def test_the_interval_covers_the_true_median_about_as_often_as_it_says():
    rng = np.random.default_rng(5)
    for processes, passes, process_sd in ((1, 6, 0.0), (2, 6, 0.0), (1, 12, 0.0)):
        population = np.concatenate(
            [np.concatenate(list(chain.from_iterable(run_units(rng, processes, passes)))) for _ in range(3000)]
        )
        truth = float(np.median(population))
        covered = [
            low <= truth <= high
            for low, high in (sample_stats.units_interval(run_units(rng, processes, passes)) for _ in range(200))
        ]
        assert 0.90 <= np.mean(covered) <= 1.0, (processes, passes, np.mean(covered))


def test_two_processes_whose_draws_dominate_count_as_about_two_units_not_six():
    """Two workers of three passes each, where each process draws a speed its passes share (a pure-Python row's
    hash seed, the heap): the passes of one process are not independent, so the interval rests on about two
    units (Kish's design effect) and covers the truth about as often as it says; counted as six, it would not."""
    rng = np.random.default_rng(7)
    shared = dict(processes=2, passes=3, process_sd=0.08, pass_sd=0.01)
    assert sample_stats.effective_units(run_units(rng, **shared)) < 3
    assert sample_stats.effective_units(run_units(rng, 2, 3)) > 4  # no process draw: the passes are the units
    assert sample_stats.effective_units(run_units(rng, 1, 6, process_sd=0.08)) == 6  # one process cannot tell
    covered = [
        low <= 1.0 <= high for low, high in (sample_stats.units_interval(run_units(rng, **shared)) for _ in range(300))
    ]
    assert 0.90 <= np.mean(covered) <= 1.0, np.mean(covered)


def test_an_a_a_pair_from_one_distribution_is_not_called_changed():
    rng = np.random.default_rng(3)
    rows = [compare_pair(loaded("a", run_units(rng)), loaded("b", run_units(rng))).iloc[0] for _ in range(80)]
    called = sum(r.significant for r in rows)
    assert called / len(rows) <= 0.08  # about 5% where the intervals hold
    assert all(r.change_ci_low <= r.change <= r.change_ci_high for r in rows)

    # the same samples compared as if each were independent: most pairs called changed (what the issue saw)
    def pooled():  # a run's samples with their passes forgotten
        return [np.concatenate(list(chain.from_iterable(run_units(rng, samples=20))))]

    flat = [compare_pair(loaded("a", pooled()), loaded("b", pooled())).iloc[0] for _ in range(20)]
    assert all(r.units_a == 120 for r in flat)  # a flat array: each sample its own unit
    assert sum(r.significant for r in flat) / len(flat) > 0.3


def test_a_25_percent_slowdown_is_called_and_gated_in_every_pair():
    rng = np.random.default_rng(8)
    for _ in range(20):
        a, b = run_units(rng, pass_sd=0.03), run_units(rng, pass_sd=0.03, level=1.25)
        row = compare_pair(loaded("a", a), loaded("b", b))
        assert row.iloc[0].significant and row.iloc[0].change_ci_low > 0.10
        assert len(regressions(row, 10)) == 1 and unresolved(row, 10).empty


def test_a_row_with_too_few_passes_has_no_interval_and_says_so():
    rng = np.random.default_rng(2)
    units = run_units(rng, passes=3, samples=10)
    assert all(math.isnan(x) for x in sample_stats.units_interval(units))
    s = sample_stats.summarize(
        list(np.concatenate(units[0]) * 1e-6), 1000, 1, units=[[list(p * 1e-6) for p in units[0]]]
    )
    assert s["units"] == 3 and s["ns_per_op_ci_low"] != s["ns_per_op_ci_low"]
    assert "3 independent passes: too few for an interval" in s["stability"]
    from swarbench.render.summary import caveat_marks

    assert "u" in caveat_marks(s["stability"])
    # compare: no interval, so no call, and the gate cannot resolve it
    row = compare_pair(loaded("a", units), loaded("b", run_units(rng, passes=3, samples=10, level=1.5)))
    assert not row.iloc[0].significant and unresolved(row, 10).index.tolist() == [0]


def test_the_gate_says_when_its_intervals_are_too_wide_to_resolve_the_threshold():
    from swarbench.render.comparison import render_text, unresolved_summary

    rng = np.random.default_rng(4)
    noisy = compare_pair(loaded("a", run_units(rng, pass_sd=0.12)), loaded("b", run_units(rng, pass_sd=0.12)))
    r = noisy.iloc[0]
    half = (r.change_ci_high - r.change_ci_low) / 2
    assert half > 0.10 and regressions(noisy, 10).empty and len(unresolved(noisy, 10)) == 1
    said = unresolved_summary(unresolved(noisy, 10), 10)
    assert said == f"cannot resolve 10% here: intervals +-{half * 100:.0f}% on 1 row"
    assert said in render_text(noisy, {"b": 0.0}, gate(noisy, 10))
    steady = compare_pair(loaded("a", run_units(rng, pass_sd=0.01)), loaded("b", run_units(rng, pass_sd=0.01)))
    assert unresolved(steady, 10).empty and regressions(steady, 10).empty


def test_a_row_whose_passes_ran_at_two_speeds_is_not_gated_but_said_unresolved():
    from swarbench.render.comparison import unresolved_lines

    rng = np.random.default_rng(9)
    a = run_units(rng, passes=10, pass_sd=0.01, samples=10)
    # B: three of its passes at A's speed, seven at nearly twice it (another CPU's slow spells the canary missed)
    speeds = (1.9, 1.9, 1.0, 1.9, 1.9, 1.0, 1.9, 1.9, 1.0, 1.9)
    b = [[p * f for p, f in zip(run_units(rng, passes=10, pass_sd=0.01, samples=10)[0], speeds)]]
    row = compare_pair(loaded("a", a), loaded("b", b))
    r = row.iloc[0]
    assert r.two_speeds_b and not r.two_speeds_a
    assert r.significant and r.change_ci_low > 0.10  # what the gate used to fail on
    assert regressions(row, 10).empty and unresolved(row, 10).index.tolist() == [0]
    lines = unresolved_lines(unresolved(row, 10), 10)
    assert lines[0] == "cannot resolve 10% here: passes at two speeds on 1 row:"
    assert lines[1].startswith(f"  k.x/impl w/n=1000: {r.change * 100:+.1f}% +-")
    assert lines[1].endswith(", passes at two speeds in B")
    # an interval narrow enough to resolve 10% does not make two speeds a regression either
    narrow = row.assign(change=0.5, change_ci_low=0.45, change_ci_high=0.55)
    assert regressions(narrow, 10).empty and len(unresolved(narrow, 10)) == 1
    lines = unresolved_lines(unresolved(narrow, 10), 10)
    assert lines == [
        "cannot resolve 10% here: passes at two speeds on 1 row:",
        "  k.x/impl w/n=1000: +50.0% +-5%, passes at two speeds in B",
    ]
    # the same change with every pass at one speed is a regression
    steady = [[p * 1.9 for p in run_units(rng, passes=10, pass_sd=0.01, samples=10)[0]]]
    assert len(regressions(compare_pair(loaded("a", a), loaded("b", steady)), 10)) == 1


def test_a_pair_whose_every_row_moved_together_is_not_judged_row_by_row():
    rng = np.random.default_rng(6)
    keys = [("k.x", f"impl{i}", "w", 1000) for i in range(6)]
    a = LoadedRun("a", Path("."), {}, {k: run_units(rng) for k in keys})
    b = LoadedRun("b", Path("."), {}, {k: run_units(rng, level=1.3) for k in keys})  # the machine, 30% slower
    frame = compare_pair(a, b)
    assert len(regressions(frame, 10)) == 6  # every row, beyond the threshold on its own
    assert whole_run_moved(frame, 10) == {"b": pytest.approx(0.3, abs=0.05)}
    assert whole_run_moved(compare_pair(a, b, relative=True), 10) == {}  # the drift is divided out there
    one = LoadedRun("c", Path("."), {}, {k: run_units(rng, level=1.3 if k == keys[0] else 1.0) for k in keys})
    assert whole_run_moved(compare_pair(a, one), 10) == {}


def test_a_workload_that_moved_as_a_whole_is_named_by_a_relative_gate_and_its_own_regressions_still_told():
    from swarbench.render.comparison import gate_summary

    rng = np.random.default_rng(7)
    moved_keys = [("k.x", f"impl{i}", "w", 1000) for i in range(5)]
    still_keys = [("k.y", f"impl{i}", "w", 1000) for i in range(5)]
    alone = ("k.z", "only", "w", 1000)
    keys = moved_keys + still_keys + [alone]
    a = LoadedRun("a", Path("."), {}, {k: run_units(rng, pass_sd=0.01) for k in keys})

    def level(k):
        return 1.3 * (1.3 if k == moved_keys[0] else 1.0) if k in moved_keys else 1.3 if k == still_keys[0] else 1.0

    b = LoadedRun("b", Path("."), {}, {k: run_units(rng, level=level(k), pass_sd=0.01) for k in keys})
    frame = compare_pair(a, b, relative=True)
    assert workloads_moved(frame, 10) == {("b", "k.x", "w", 1000): pytest.approx(0.3, abs=0.03)}
    verdict = gate(frame, 10)
    # k.y's first implementation regressed against a drift of nothing: told. k.x's did too, but against a drift of
    # +30%, which a slower machine need not give every row alike: named with its workload, not told
    assert frame.set_index(["kernel", "implementation"]).loc[("k.x", "impl0"), "change_ci_low"] > 0.1
    assert verdict.regressions["kernel"].tolist() == ["k.y"] and verdict.regressions["implementation"].tolist() == [
        "impl0"
    ]
    assert verdict.failed and not verdict.resolved and not verdict.runs_moved
    assert verdict.set_aside["implementation"].tolist() == ["impl0"] and verdict.set_aside["kernel"].tolist() == ["k.x"]
    said = gate_summary(verdict)
    assert "(k.x w/n=1000 +" in said and said.split("; not gated in them: ")[1].startswith("k.x/impl0 +")
    # a lone implementation that moved is its workload's move: named, not told
    lone = LoadedRun(
        "c", Path("."), {}, {k: run_units(rng, level=1.3 if k == alone else 1.0, pass_sd=0.01) for k in keys}
    )
    verdict = gate(compare_pair(a, lone, relative=True), 10)
    assert (
        verdict.regressions.empty and not verdict.failed and list(verdict.workloads_moved) == [("c", "k.z", "w", 1000)]
    )
    # an absolute compare names no workload, and a relative one none that stayed within the threshold
    assert workloads_moved(compare_pair(a, b), 10) == {}
    quiet = LoadedRun("d", Path("."), {}, {k: run_units(rng, level=1.05, pass_sd=0.01) for k in keys})
    assert gate(compare_pair(a, quiet, relative=True), 10).resolved


def test_a_row_that_runs_threads_is_gated_only_with_enough_processes_a_side():
    from swarbench.render.comparison import gate_summary, unresolved_lines

    rng = np.random.default_rng(9)
    keys = [("k.x", f"impl{i}", "w", 1000) for i in range(5)]
    busy = {k: 2.0 if k == keys[0] else 1.0 for k in keys}

    def runs(processes):
        a = LoadedRun("a", Path("."), {}, {k: run_units(rng, processes, pass_sd=0.01) for k in keys}, cpus=busy)
        b_blocks = {k: run_units(rng, processes, level=1.6 if k == keys[0] else 1.0, pass_sd=0.01) for k in keys}
        return compare_pair(a, LoadedRun("b", Path("."), {}, b_blocks, cpus=busy), relative=True)

    one = runs(1)
    verdict = gate(one, 10)
    assert verdict.regressions.empty and not verdict.failed
    assert verdict.unresolved["implementation"].tolist() == ["impl0"]
    assert verdict.unresolved["cannot_resolve"].tolist() == ["threads"]
    assert (
        gate_summary(verdict) == "cannot resolve 10% here: threads on 1 row measured by fewer than 4 processes a side"
    )
    (line,) = unresolved_lines(verdict.unresolved, 10)[1:]
    change = verdict.unresolved["change"].iloc[0]
    assert change > 0.4 and line.startswith(f"  k.x/impl0 w/n=1000: {change * 100:+.1f}% +-")
    assert "on 2.0 CPUs (1+1 processes" in line
    # four processes a side see past one run's slow CPU: the row is gated
    four = gate(runs(4), 10)
    assert four.regressions["implementation"].tolist() == ["impl0"] and four.failed
    # a run saved before the CPUs were recorded is judged as before
    old = compare_pair(
        LoadedRun("a", Path("."), {}, {k: run_units(rng, pass_sd=0.01) for k in keys}),
        LoadedRun(
            "b", Path("."), {}, {k: run_units(rng, level=1.6 if k == keys[0] else 1.0, pass_sd=0.01) for k in keys}
        ),
        relative=True,
    )
    assert gate(old, 10).regressions["implementation"].tolist() == ["impl0"]


def test_the_frame_takes_its_units_from_the_passes_of_every_worker():
    def line(worker, pass_medians):
        samples = [m * 1e-6 for m in pass_medians for _ in range(3)]
        return {
            "event": "result",
            "case": "k.x:p:w:n=1000",
            "worker": worker,
            "kernel": "k.x",
            "implementation": "p",
            "family": "c",
            "workload": "w",
            "n": 1000,
            "status": "PASS",
            "samples_s": samples,
            "rounds": len(samples),
            "iterations": 1,
            "pass_canary_s": [[1e-4, 1e-4, 3] for _ in pass_medians],
            "pass_t": [[100.0 + i, 100.5 + i] for i in range(len(pass_medians))],
        }

    records = [{"event": "run", "keep_slowed": True}, line(0, [1.0, 1.2, 1.0]), line(1, [1.2, 1.0, 1.2])]
    (merged,) = results.merge_records(records)
    assert [len(w) for w in merged.unit_samples_s] == [3, 3]
    row = results.frame_from_records(records, "r", {}).iloc[0]
    assert row["units"] == 6 and row["ns_per_op_ci_low"] < 1.05 and row["ns_per_op_ci_high"] > 1.15


def test_the_machines_speed_is_read_from_the_passes_and_other_programs_only_where_seen():
    rng = np.random.default_rng(9)

    def case(name, slow_from):  # 20 passes a second apart; from ``slow_from`` on, the machine runs 1.4x slower
        medians = [(1.4 if t >= slow_from else 1.0) * (1 + 0.02 * rng.standard_normal()) for t in range(20)]
        return {
            "event": "result",
            "case": f"k.x:{name}:w:n=10",
            "worker": 0,
            "kernel": "k.x",
            "n": 10,
            "implementation": name,
            "status": "PASS",
            "samples_s": [m * 1e-6 for m in medians],
            "pass_canary_s": [[1e-4, 1e-4, 1] for _ in medians],
            "pass_t": [[1000.0 + t, 1000.05 + t] for t in range(20)],
        }

    records = [case(f"i{i}", slow_from=15) for i in range(6)]
    speed = results.machine_speed(records)
    assert speed["machine_slowed_share"] == pytest.approx(0.25)
    assert speed["machine_slowdown"] == pytest.approx(0.4, abs=0.05)
    steady = results.machine_speed([case(f"i{i}", slow_from=99) for i in range(6)])
    assert steady["machine_slowed_share"] == 0
    loads = [
        {"event": "load", "worker": 0, "t": [0, 1], "others_cpus": 1.2, "steal_cpus": 0.2, "queue": 2.0, "cpus": 2},
        {"event": "load", "worker": 0, "t": [1, 4], "others_cpus": 0.0, "steal_cpus": 0.0, "queue": 0.0, "cpus": 2},
    ]
    load = results.machine_load(loads)
    assert load == {
        "machine_others_cpus": pytest.approx(0.3),
        "machine_steal_share": pytest.approx(0.025),
        "machine_queue": pytest.approx(0.5),
    }
    from swarbench.render import load_words

    assert load_words(load) == (
        "other programs kept 0.3 CPUs busy on average, 0.5 waited to run, the hypervisor took 2% of the CPUs (steal)"
    )
    assert load_words(results.machine_load(loads[1:])) == "no other program was seen running"
    # programs waiting while few CPUs were busy (CI's own run): the waiting is said with its subject
    assert load_words({"machine_others_cpus": 0.0, "machine_steal_share": 0.0, "machine_queue": 0.7}) == (
        "other programs kept 0.0 CPUs busy on average, 0.7 waited to run"
    )
    assert load_words(results.machine_load([])) == ""  # no load lines (no /proc): nothing said either way


def test_each_array_of_a_worker_lands_at_a_drawn_offset_within_a_page_on_its_alignment():
    import random

    try:
        memory.draw_layouts(random.Random(1))
        offsets = {memory.aligned_empty(1000, np.uint64).ctypes.data % memory.PAGE for _ in range(200)}
        assert all(o % memory.CACHE_LINE == 0 for o in offsets) and len(offsets) > 30
        pages = {memory.aligned_empty(10, np.uint8, align=memory.PAGE).ctypes.data % memory.PAGE for _ in range(20)}
        assert pages == {0}  # a page alignment is kept: its draws are whole pages apart
        copy = memory.aligned_copy(np.arange(7, dtype=np.uint32))
        assert copy.ctypes.data % memory.CACHE_LINE == 0 and copy.tolist() == list(range(7))
    finally:
        memory.draw_layouts(None)
    assert memory.aligned_empty(10, np.uint8).ctypes.data % memory.CACHE_LINE == 0


def test_a_batch_is_prepared_afresh_for_each_pass_where_that_is_cheap():
    from swarbench.bench.rounds import RoundPlan
    from swarbench.bench.timing import cheap_to_prepare

    short = RoundPlan(call_s=1e-3, iterations=1, per_pass=(2, 2, 2))
    assert cheap_to_prepare(0.01, short) and not cheap_to_prepare(0.03, short)
    long = RoundPlan(call_s=0.2, iterations=1, per_pass=(1, 1, 1, 1, 1, 1))  # a tenth of 0.2 s: 20 ms
    assert cheap_to_prepare(0.019, long) and not cheap_to_prepare(0.021, long)
    longer = RoundPlan(call_s=0.5, iterations=1, per_pass=(1, 0, 1, 0, 1, 0))
    assert cheap_to_prepare(0.045, longer)
    assert not cheap_to_prepare(0.001, RoundPlan(call_s=1.0, iterations=1, per_pass=(1, 0, 0)))  # one pass only


def test_the_noise_pair_says_the_false_alarms_and_what_each_row_resolves():
    from swarbench.noise import pair_lines

    rng = np.random.default_rng(1)
    keys = [("k.x", f"impl{i}", "w", 1000) for i in range(4)]
    a = LoadedRun("a", Path("."), {}, {k: run_units(rng, pass_sd=0.02 * (i + 1)) for i, k in enumerate(keys)})
    b = LoadedRun("b", Path("."), {}, {k: run_units(rng, pass_sd=0.02 * (i + 1)) for i, k in enumerate(keys)})
    frame = compare_pair(a, b)
    lines = pair_lines(frame, 10)
    assert any(line.startswith("false alarms: ") and " of 4 rows " in line for line in lines)
    assert any("a --fail-on-regression 10 gate resolves" in line for line in lines)
    halves = ((frame.change_ci_high - frame.change_ci_low) / 2 * 100).round().astype(int)
    for r, half in zip(frame.itertuples(), halves):
        (line,) = [ln for ln in lines if f"k.x/{r.implementation} " in ln]
        assert f"+-{half}%" in line


def _saved_run(folder: Path, rows: dict, rng) -> str:
    """A run folder holding only records: per implementation, six passes of four samples around its level,
    passes ``pass_sd`` apart (what `swarbench compare` reads; the frame is built from them)."""
    import json

    folder.mkdir(parents=True)
    lines = [{"event": "run", "keep_slowed": True}]
    for name, (level, pass_sd) in rows.items():
        units = run_units(rng, level=level, pass_sd=pass_sd)[0]
        samples = [float(x) * 1e-6 for p in units for x in p]
        lines.append(
            {
                "event": "result",
                "case": f"cards.contains:{name}:deals:n=default",
                "worker": 0,
                "kernel": "cards.contains",
                "implementation": name,
                "family": "c",
                "workload": "deals",
                "n": 1000,
                "seed": 0,
                "params": {},
                "status": "PASS",
                "reason": "",
                "expected_to_fail": "",
                "prepare_s": 0.01,
                "check_s": 0.001,
                "samples_s": samples,
                "rounds": len(samples),
                "iterations": 1,
                "pass_canary_s": [[1e-4, 1e-4, len(p)] for p in units],
                "pass_t": [[100.0 + i, 100.5 + i] for i in range(len(units))],
            }
        )
    (folder / "records.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(folder)


@pytest.mark.slow
def test_the_gate_exits_3_where_it_cannot_resolve_its_threshold_1_on_a_regression_and_0_when_resolved(tmp_path):
    from conftest import cli_env, swarbench

    env = cli_env(tmp_path)
    rng = np.random.default_rng(12)
    steady = {"a": (1.0, 0.01), "b": (2.0, 0.01), "c": (3.0, 0.01)}
    base = _saved_run(tmp_path / "base", steady, rng)
    same = _saved_run(tmp_path / "same", steady, rng)
    proc = swarbench("compare", base, same, "--fail-on-regression", "10", env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    slower = _saved_run(tmp_path / "slower", steady | {"a": (1.3, 0.01)}, rng)
    proc = swarbench("compare", base, slower, "--fail-on-regression", "10", env=env)
    assert proc.returncode == 1 and "1 regression(s) beyond 10%" in proc.stderr
    noisy = {"a": (1.0, 0.01), "b": (2.0, 0.15), "c": (3.0, 0.01)}
    proc = swarbench(
        "compare",
        _saved_run(tmp_path / "n1", noisy, rng),
        _saved_run(tmp_path / "n2", noisy, rng),
        "--fail-on-regression",
        "10",
        env=env,
    )
    assert proc.returncode == 3, proc.stdout + proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("swarbench: cannot resolve 10% here: intervals +-") and line.endswith("% on 1 row")
    assert "  cards.contains/b deals/n=1000: +-" in proc.stdout
    moved = _saved_run(tmp_path / "moved", {k: (1.3 * level, sd) for k, (level, sd) in steady.items()}, rng)
    # by default each row is taken against its workload's drift: a workload that moved as a whole is named, since
    # a change to all of its implementations alike would not show against the drift
    for how in ([], ["--relative"]):
        proc = swarbench("compare", base, moved, *how, "--fail-on-regression", "10", env=env)
        assert proc.returncode == 3, proc.stdout + proc.stderr
        (line,) = proc.stderr.splitlines()
        assert line.startswith("swarbench: cannot resolve 10% here: 1 workload moved as a whole, every ")
        assert "(cards.contains deals/n=1000 +3" in line
    proc = swarbench("compare", base, moved, "--absolute", "--fail-on-regression", "10", env=env)
    assert proc.returncode == 3 and "every row moved together between the runs" in proc.stderr
    # within the threshold, the drift is divided out and the rows pass
    drifted = _saved_run(tmp_path / "drifted", {k: (1.05 * level, sd) for k, (level, sd) in steady.items()}, rng)
    assert swarbench("compare", base, drifted, "--fail-on-regression", "10", env=env).returncode == 0
    both = swarbench("compare", base, moved, "--absolute", "--relative", env=env)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
