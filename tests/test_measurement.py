"""Measurement you can trust: workers, intervals, overhead, scaling, comparisons, and isolation of crashes."""

import json
from pathlib import Path
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from conftest import FAST, cli_env, contains_plugin, make_plugin_site, swarbench
from swarbench import results, supervision, workers
from swarbench.run_request import RunRequest
from swarbench.bench.timing import REPREPARE_BELOW_S

MISBEHAVING = """
    import ctypes, time
    from swarbench import Implementation, hookimpl

    def segfault(workload):
        return lambda: ctypes.string_at(0)  # reads address 0: SIGSEGV, as a C bug would

    def hang(workload):
        def batch():
            time.sleep(3600)
        return batch

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("cards.contains", "segfaults", "cffi-scalar", segfault))
        registry.add_implementation(Implementation("cards.contains", "hangs", "python-naive", hang))
"""


def _json_lines(env, run) -> list[dict]:
    """The lines of a run's records file as JSON objects, as they stand on disk."""
    return [r.to_json() for r in results.read_records(Path(env["SWARBENCH_REPORTS"]) / run / results.RECORDS)]


def _frame(env):
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    return pd.read_csv(os.path.join(env["SWARBENCH_REPORTS"], run, "results.csv")).set_index("implementation")


@pytest.mark.slow
def test_a_crash_and_a_hang_are_reported_and_every_other_result_is_kept(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "misbehaving", MISBEHAVING))
    proc = swarbench(
        "run",
        "--kernel",
        "cards.contains",
        "--impl",
        "segfaults",
        "--impl",
        "hangs",
        "--impl",
        "swar",
        "--impl",
        "naive",
        "--impl",
        "c-swar",
        "--size",
        "128",
        "--timeout",
        "3",
        "--max-time",
        "0.01",
        "--min-rounds",
        "1",
        "--processes",
        "1",
        "--no-overhead",
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    frame = _frame(env)
    assert frame.loc["segfaults", "status"] == "CRASH"
    assert frame.loc["segfaults", "reason"].startswith("crashed (signal 11")
    assert frame.loc["hangs", "status"] == "TIMEOUT" and frame.loc["hangs", "reason"] == "timed out after 3 s"
    for name in ("swar", "naive", "c-swar"):
        assert frame.loc[name, "status"] == "PASS" and frame.loc[name, "ns_per_op_median"] > 0
    assert "crashed (signal 11" in proc.stdout and "timed out after 3 s" in proc.stdout


STEADY = contains_plugin(
    "steady",
    "numpy",
    "steady",
    """
    import os, time
    import numpy as np
    from swarbench.suites.cards.spec import HIGH

    def steady(workload):
        a, b = workload.inputs["a"], workload.inputs["b"]
        h = np.uint64(HIGH)
        tmp, out = np.empty_like(a), np.empty(a.shape, bool)
        # each call lasts at least SB_SLOWDOWN ms of wall time: other programs on the machine can only add to a
        # call, never hide the injected difference (repeating the work, as before, was hidden by a busy neighbour)
        floor = float(os.environ.get("SB_SLOWDOWN", "1")) * 1e-3

        def batch():
            end = time.perf_counter() + floor
            np.bitwise_or(a, h, out=tmp)
            np.subtract(tmp, b, out=tmp)
            np.bitwise_and(tmp, h, out=tmp)
            np.equal(tmp, h, out=out)
            while time.perf_counter() < end:
                pass
            return out
        return batch
""",
)


def _steady_run(env, slowdown: str) -> str:
    env = dict(env, SB_SLOWDOWN=slowdown)
    proc = swarbench(
        "run",
        "--kernel",
        "cards.contains",
        "--impl",
        "steady",
        "--size",
        "20000",
        "--max-time",
        "0.4",
        "--processes",
        "4",
        "--no-overhead",
        "--quiet",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split("render again with `swarbench report ")[1].split("`")[0]


@pytest.mark.slow
def test_compare_calls_an_injected_slowdown_and_the_gate_fails_but_a_run_against_itself_is_quiet(tmp_path):
    """End to end through a plugin whose calls last a floor of wall time, 1 ms and then 2.5 ms, so that a busy
    neighbour (another test worker on a 2-core machine) slows both runs but cannot close the gap; the 20% case is
    proven on controlled samples below."""
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "steady", STEADY))
    base, slow = _steady_run(env, "1"), _steady_run(env, "2.5")

    same = swarbench("compare", base, base, "--fail-on-regression", "5", env=env)
    # a run against itself is never a regression; where its intervals are wider than 5% (a busy host), the gate
    # says it cannot resolve 5% and exits 3 (issue 38, item 5)
    assert same.returncode == 0 or (same.returncode == 3 and "cannot resolve 5% here" in same.stderr), same.stderr
    row = next(ln for ln in same.stdout.splitlines() if ln.startswith("cards.contains/steady"))
    assert " ~ " in f" {row} "

    worse = swarbench("compare", base, slow, "--format", "csv", env=env)
    frame = pd.read_csv(__import__("io").StringIO(worse.stdout))
    (r,) = frame.itertuples()
    assert r.significant and r.change > 0.3 and r.p_value < 0.05 and r.change_ci_low > 0.1
    gate = swarbench("compare", base, slow, "--fail-on-regression", "10", env=env)
    # one row, so its change is its workload's and the whole run's: it cannot be told from the machine (exit 3),
    # whether taken against its workload (the default: nothing to take a drift from) or on its own
    assert gate.returncode == 3 and "1 workload moved as a whole" in gate.stderr, gate.stderr
    assert "geomean" in gate.stdout and "(one implementation: absolute)" in gate.stdout
    absolute = swarbench("compare", base, slow, "--absolute", "--fail-on-regression", "10", env=env)
    # (the row is named beyond 10% too, unless a busy neighbour split its passes into two speeds)
    assert absolute.returncode == 3 and "every row moved together between the runs" in absolute.stderr
    lenient = swarbench("compare", base, slow, "--fail-on-regression", "900", env=env)
    assert lenient.returncode == 0  # the whole interval must lie beyond the threshold


def _loaded(name, blocks):
    from swarbench.run_comparison import LoadedRun

    key = ("k.x", "impl", "w", 1000)
    return LoadedRun(name, Path("."), {}, {key: blocks})


def test_a_20_percent_slowdown_is_called_but_a_slow_spell_of_one_process_is_not():
    from swarbench import run_comparison as compare

    rng = np.random.default_rng(7)

    def process(level, n=200):  # one worker's samples: 3% noise around its level
        return level * (1 + 0.03 * rng.standard_normal(n))

    base = _loaded("a", [process(1.0) for _ in range(4)])
    slower = _loaded("b", [process(1.2) for _ in range(4)])
    row = compare.compare_pair(base, slower).iloc[0]
    assert row.significant and 0.15 < row.change < 0.25 and row.change_ci_low > 0.1
    assert len(compare.regressions(compare.compare_pair(base, slower), 10)) == 1
    # the gate's line says when fewer processes a side stood behind the call than it takes to see past a slow
    # spell that lasted one whole run
    from swarbench.render.comparison import render_text

    four = compare.compare_pair(base, slower)
    assert (four.processes_a == 4).all() and "processes:" not in render_text(four, {"b": 0.2}, compare.gate(four, 10))
    two = compare.compare_pair(
        _loaded("a", [process(1.0) for _ in range(2)]), _loaded("b", [process(1.2) for _ in range(2)])
    )
    said = render_text(two, {"b": 0.2}, compare.gate(two, 10))
    assert "(2+2 processes: a slow spell of the machine through one whole run can look like this" in said

    # Same code, but one of run b's processes ran in a 1.7x slow spell: the pooled samples differ beyond doubt
    # (Mann-Whitney's p is tiny), yet resampling processes puts the spell inside the interval.
    spell = _loaded("b", [process(1.0), process(1.7), process(1.0), process(1.0)])
    row = compare.compare_pair(base, spell).iloc[0]
    assert row.p_value < 0.05 and row.change_ci_low <= 0 <= row.change_ci_high and not row.significant
    assert compare.regressions(compare.compare_pair(base, spell), 5).empty


def test_statistics_of_one_measurement():
    rng = np.random.default_rng(1)
    samples = list(1e-6 * (1 + 0.01 * rng.standard_normal(400)))
    s = results.summarize(samples, n=1000, iterations=1000)
    assert s["ns_per_op_ci_low"] <= s["ns_per_op_median"] <= s["ns_per_op_ci_high"]
    assert s["ns_per_op_ci_high"] - s["ns_per_op_ci_low"] < 0.01  # 400 samples pin the median down
    assert abs(s["ns_per_op_median"] - 1.0) < 0.01 and s["stability"] == ""
    noisy = results.summarize([1e-3, 3e-3, 1e-3, 5e-3], n=10, iterations=1)
    assert "only 4 samples" in noisy["stability"] and "noisy" in noisy["stability"]
    short = results.summarize([1e-6] * 20, n=10, iterations=1)
    assert "timer resolution" in short["stability"]


@pytest.mark.slow
def test_workers_merge_their_samples_and_overhead_is_measured_per_family(env):
    proc = swarbench(
        "run",
        "--kernel",
        "cards.remove",
        "--impl",
        "c-swar",
        "--impl",
        "numpy-swar",
        "--impl",
        "naive",
        "--size",
        "64",
        "--max-time",
        "0.02",
        "--processes",
        "3",
        "--quiet",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    frame = _frame(env)
    assert (frame.loc[["c-swar", "naive"], "processes"] == 3).all()
    overhead = frame[frame.kernel == "swarbench.overhead"]
    assert set(overhead.index) == {"python", "numpy", "cffi"}  # the families of the rows it ran, no other (issue 41)
    c = frame.loc["c-swar"]
    assert c.overhead_ns_per_call == overhead.loc["cffi", "ns_per_op_median"]
    # 64 operations are so few that the fixed cost of the call matters: a corrected figure is given
    assert 0 <= c.ns_per_op_corrected < c.ns_per_op_median
    assert c.cycles_per_op_est == pytest.approx(c.ns_per_op_median * c.clock_ghz)
    base = frame.loc["naive"]
    assert base.speedup == 1 and c.speedup_ci_low <= c.speedup <= c.speedup_ci_high


@pytest.mark.slow
def test_scaling_mode_measures_each_size_and_the_html_plots_it(env):
    proc = swarbench("run", "--kernel", "cards.remove", "--impl", "*swar*", "--sizes", "64,512,4096", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr
    frame = _frame(env)
    assert sorted(frame.loc["c-swar", "n"]) == [64, 512, 4096]
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    html = open(os.path.join(env["SWARBENCH_REPORTS"], run, "report.html")).read()
    assert "ns/op against N (log-log)" in html and "<polyline" in html


@pytest.mark.slow
def test_runs_merge_into_one_report_with_the_run_beside_each_row(env):
    for _ in range(2):
        assert (
            swarbench("run", "--kernel", "cards.remove", "--impl", "swar", "--size", "64", *FAST, env=env).returncode
            == 0
        )
    a, b = sorted(os.listdir(env["SWARBENCH_REPORTS"]))
    out = swarbench("report", a, b, env=env).stdout
    assert f"BenchmarkRemove/swar@{a[-11:]}" in out and f"BenchmarkRemove/swar@{b[-11:]}" in out
    assert "runs:" in out
    html = swarbench("report", a, b, "--format", "html", env=env).stdout
    assert html.count("<h2>Machine of") == 2


@pytest.mark.slow
def test_progress_says_which_case_and_how_many_are_left(env):
    proc = swarbench(
        "run",
        "--kernel",
        "cards.remove",
        "--impl",
        "swar",
        "--impl",
        "naive",
        "--size",
        "64",
        "--max-time",
        "0.005",
        "--processes",
        "1",
        "--no-overhead",
        env=env,
    )
    assert "[worker 1/1, 1/2 done, 1 left] cards.remove" in proc.stderr
    assert "[worker 1/1, 2/2 done, 0 left]" in proc.stderr


def test_counters_count_a_batch_or_say_why_not():
    """Hardware counters are often hidden (virtual machines): the reason is one line. The counting path itself is
    proven with the task clock, a software event every Linux kernel offers."""
    import sys

    from swarbench import counters

    why = counters.unavailable()
    assert why == "" or ("\n" not in why and why)
    if not sys.platform.startswith("linux"):
        return

    def work():
        return sum(range(200_000))

    try:
        counts, calls = counters.count(work, 0.004, counters.software_clock_events())
    except counters.CounterError as e:  # perf_event_paranoid 3 or a container's seccomp shuts the call off
        pytest.skip(f"perf_event_open refused: {e}")
    assert calls == 5  # about 20 ms of calls
    per_op = counters.per_op(counts, calls, 200_000)
    assert 0.05 < per_op["hw_task_clock_ns_per_op"] < 500  # ns of CPU per loop step, of the right order


def test_counted_cycles_replace_the_estimate_in_reports():
    from swarbench.render import fmt_cycles

    assert (
        fmt_cycles({"hw_cycles_per_op": 2.0, "hw_instructions_per_op": 5.0, "cycles_per_op_est": 9.0})
        == "2.000 (2.50 IPC)"
    )
    assert fmt_cycles({"hw_cycles_per_op": float("nan"), "cycles_per_op_est": 9.0}).startswith("~9")
    rec = {
        "event": "result",
        "kernel": "k.x",
        "implementation": "a",
        "workload": "w",
        "n": 10,
        "status": "PASS",
        "samples_s": [1e-6, 1.1e-6, 0.9e-6],
        "iterations": 1,
        "worker": 0,
        "hw_cycles_per_op": 3.0,
        "hw_instructions_per_op": 6.0,
        "baseline": "a",
    }
    frame = results.frame_from_records([rec, dict(rec, worker=1, hw_cycles_per_op=5.0)], "r", {"clock_ghz": 2.0})
    assert frame.loc[0, "hw_cycles_per_op"] == 4.0 and frame.loc[0, "hw_instructions_per_op"] == 6.0


def test_worker_medians_show_a_difference_between_processes():
    base = {
        "event": "result",
        "kernel": "k.x",
        "implementation": "a",
        "workload": "w",
        "n": 1000,
        "status": "PASS",
        "iterations": 1,
        "baseline": "a",
    }
    fast = dict(base, worker=0, samples_s=[1.00e-6, 1.01e-6, 0.99e-6] * 5)
    slow = dict(base, worker=1, samples_s=[1.30e-6, 1.31e-6, 1.29e-6] * 5)
    frame = results.frame_from_records([fast, slow], "r", {})
    assert json.loads(frame.loc[0, "worker_medians"]) == [1.0, 1.3] and frame.loc[0, "ns_per_op_best_worker"] == 1.0
    assert "workers differ by" in frame.loc[0, "stability"]
    same = results.frame_from_records([fast, dict(fast, worker=1)], "r", {})
    assert same.loc[0, "worker_spread"] == 0 and "workers differ" not in same.loc[0, "stability"]


def test_merged_samples_are_each_workers_samples_once():
    rec = {
        "event": "result",
        "kernel": "k.x",
        "implementation": "a",
        "workload": "w",
        "n": 10,
        "status": "PASS",
        "samples_s": [1e-6, 2e-6],
        "rounds": 2,
        "iterations": 1,
        "worker": 0,
        "baseline": "a",
    }
    (merged,) = results.merge_records([rec, dict(rec, worker=1, samples_s=[5e-6], rounds=1)])
    assert sorted(merged.samples_s) == [1e-6, 2e-6, 5e-6] and merged.line.rounds == 3
    frame = results.frame_from_records([rec], "r", {})
    assert frame.loc[0, "samples"] == 2 and frame.loc[0, "rounds"] == 2


def test_only_the_first_min_rounds_workers_repeat_a_long_batch():
    records = [
        {"event": "result", "case": "k:slow:w:n=1", "status": "PASS", "check_s": 2.5},
        {"event": "result", "case": "k:fast:w:n=1", "status": "PASS", "check_s": 0.01},
        {"event": "result", "case": "k:wrong:w:n=1", "status": "FAIL", "check_s": 3.0},
        {"event": "phase", "case": "k:slow:w:n=1"},
    ]
    assert workers.long_cases(records) == ["k:slow:w:n=1"]
    request = RunRequest(min_rounds=3, processes=2)
    assert [workers.worker_min_rounds(request, w) for w in (0, 1)] == [2, 1]
    request = RunRequest(min_rounds=2, processes=4)
    assert [workers.worker_min_rounds(request, w) for w in range(4)] == [1, 1, 1, 1]


SLOW_CALL = contains_plugin(
    "slowcall",
    "python-naive",
    "slow",
    """
    import os, time
    from swarbench.suites.cards.spec import reference_contains

    def slow(workload):
        out = reference_contains(workload.inputs)

        def batch():
            with open(os.environ["SB_CALLS"], "a") as fh:
                fh.write(workload.name + "\\n")
            time.sleep(0.6)  # a long batch: over oracle.LONG_BATCH_S
            return out
        return batch
""",
)


@pytest.mark.slow
def test_a_long_batch_is_called_once_per_sample_its_verification_call_the_first(tmp_path):
    calls = tmp_path / "calls.txt"
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "slowcall", SLOW_CALL), SB_CALLS=str(calls))
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "slowcall",
        "-n",
        "64",
        "--processes",
        "2",
        "--min-rounds",
        "2",
        "--max-time",
        "0.01",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    on_workload = [line for line in calls.read_text().split() if line == "deals"]
    assert len(on_workload) == 2  # worker 0 verifies (its sample), worker 1 times one cold call; no repeats
    row = _frame(env).loc["slowcall"]
    assert row["samples"] == 2 and row["processes"] == 2
    assert 0.55 < row["s_per_call_median"] < 5
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    ends = [r for r in _json_lines(env, run) if r.get("event") == "result"]
    # each worker's one sample has a canary reading on either side, the verification call's as a pass's
    assert sorted(len(r["pass_canary_s"]) for r in ends) == [1, 1]
    assert all(n == 1 and 0 < before < 1 and 0 < after < 1 for r in ends for before, after, n in r["pass_canary_s"])


# The header of a results.csv a default run wrote on 2026-11-30 (results format 2, before cpus_busy)
SAVED_HEADER = """
    run_id kernel suite implementation family workload n unit seed status reason expected_to_fail prepare_s
    reprepare_s processes rounds iterations samples samples_slowed ns_per_op_median ns_per_op_ci_low
    ns_per_op_ci_high ns_per_op_min ns_per_op_q1 ns_per_op_q3 ns_per_op_iqr ns_per_op_mean cv units
    stability s_per_call_median ops_per_s overhead_ns_per_call ns_per_op_corrected cycles_per_op_est
    clock_ghz hw_cycles_per_op hw_instructions_per_op worker_medians worker_spread ns_per_op_best_worker
    ns_per_op_median_all baseline speedup speedup_ci_low speedup_ci_high params summary machine machine_cpu
    machine_python machine_compiler machine_host machine_canary_us machine_slowed_share machine_slowdown
    machine_others_cpus machine_steal_share machine_queue git_commit format_version code_function
    code_origin code_sha256 loop_instructions ops_per_iteration instructions_per_op
    core_cycles_per_iteration core_bottleneck core_model core_limit_cycles_per_op core_limit_ns_per_op
    memory_bytes_per_op memory_level memory_limit_ns_per_op limit_bound limit_ns_per_op limit_share
    limit_text hw_branch_misses_per_op hw_cache_misses_per_op explain_missing
""".split()


def test_every_column_added_since_a_saved_run_is_a_later_column_so_that_run_still_loads():
    added = [c for c in results.COLUMNS if c not in SAVED_HEADER]
    assert "cpus_busy" in added and not [c for c in added if c not in results.LATER_COLUMNS]


def test_results_saved_before_the_later_columns_still_load(tmp_path):
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
    }
    frame = results.frame_from_records([rec], "r", {})
    old = tmp_path / "results.csv"
    frame.drop(columns=list(results.LATER_COLUMNS)).to_csv(old, index=False)
    loaded = results.load(old)
    assert loaded.loc[0, "ns_per_op_median"] == frame.loc[0, "ns_per_op_median"]
    assert all(np.isnan(loaded.loc[0, c]) for c in ("worker_spread", "ns_per_op_best_worker"))


BROKEN_SUMMARY = """
    import numpy as np
    from swarbench import Implementation, Kernel, WorkloadKind, hookimpl

    def summary(outputs):
        raise RuntimeError("the summary broke")

    KIND = WorkloadKind("numbers", lambda size, seed: ({"x": np.arange(size)}, size), "0..n-1", 64)
    KERNEL = Kernel("sbtest.double", "doubles", "number", (KIND,), reference=lambda i: 2 * i["x"],
                    baseline="right", summarize=summary)

    @hookimpl
    def swarbench_add_kernels(registry):
        registry.add_kernel(KERNEL)

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("sbtest.double", "right", "numpy",
                                                   lambda w: lambda: 2 * w.inputs["x"]))
"""


@pytest.mark.slow
def test_an_error_after_the_check_is_a_result_line_and_a_failed_run(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "brokensummary", BROKEN_SUMMARY))
    proc = swarbench("run", "-k", "sbtest.*", "-k", "cards.contains", "-i", "right", "-i", "swar", *FAST, env=env)
    assert proc.returncode == 1, proc.stderr
    frame = _frame(env)
    # a summarize that fails is its kernel spec's fault, said once on the spec's row (issue 39); the row keeps its
    # figures without a summary, and the run goes on
    errors = frame[frame.status == "ERROR"]
    assert len(errors) == 1 and "RuntimeError: the summary broke" in errors.reason.iloc[0], errors.reason
    assert frame.loc["right", "status"] == "PASS" and frame.loc["swar", "status"] == "PASS"


@pytest.mark.slow
def test_passes_go_through_the_whole_run_and_each_case_keeps_one_result(tmp_path):
    env = cli_env(tmp_path)
    proc = swarbench(
        "run",
        "-k",
        "cards.*",
        "-i",
        "c-*",
        "-i",
        "swar",
        "-n",
        "256",
        "--passes",
        "3",
        "--processes",
        "1",
        "--min-rounds",
        "3",
        "--max-time",
        "0.01",
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    records = _json_lines(env, run)
    timed = [(r["case"], r["phase"]) for r in records if r.get("event") == "phase" and r["phase"].startswith("timing")]
    by_pass = {k: [case for case, phase in timed if phase == f"timing (pass {k} of 3)"] for k in (1, 2, 3)}
    cases = sorted(by_pass[1])
    assert len(cases) > 5 and all(sorted(by_pass[k]) == cases for k in (2, 3))
    assert {case.split(":")[0] for case in cases} == {"cards.contains", "cards.remove", "swarbench.overhead"}
    # pass by pass through the whole run: both kernels in pass 1 before either's pass 2, and the empty-call
    # probes go through the passes as well, each pass's first
    assert [phase[-8:] for _, phase in timed] == sorted(phase[-8:] for _, phase in timed)
    probes = sum(case.startswith("swarbench.overhead:") for case in cases)
    assert probes >= 2 and all(
        case.startswith("swarbench.overhead:") for k in (1, 2, 3) for case in by_pass[k][:probes]
    )
    assert by_pass[2] != by_pass[1] or by_pass[3] != by_pass[1]  # reshuffled
    assert records[0] == {"event": "run", "keep_slowed": True, "format_version": 1}  # what later reports repeat
    # (a case this machine cannot run, AVX-512 on a CPU without it, has its SKIP line and no pass)
    ends = [r for r in records if r.get("event") == "result" and r.get("status") != "SKIP"]
    assert sorted(r["case"] for r in ends) == cases  # one result line per case, after its last pass
    for end in ends:  # a canary reading on either side of every pass, the pass's sample count, and when it ran
        counts = [n for *_, n in end["pass_canary_s"]]
        assert len(counts) == 3 and sum(counts) == len(end["samples_s"]) and max(counts) - min(counts) <= 1
        assert all(0 < s < 1 for before, after, _ in end["pass_canary_s"] for s in (before, after))
        spans = end["pass_t"]
        assert len(spans) == 3 and all(a <= b for a, b in spans) and spans == sorted(spans)
    frame = _frame(env)
    frame = frame[frame.status != "SKIP"]
    # every sample is kept (--set-aside-slowed would set some aside), each pass a unit of the interval
    assert (frame.rounds >= 3).all() and (frame.samples == frame.rounds).all() and frame.samples_slowed.isna().all()
    assert (frame.units == 3).all()
    share = frame["machine_slowed_share"].iloc[0]
    assert frame["machine_canary_us"].nunique() == 1 and (np.isnan(share) or 0 <= share <= 1)
    # the engine's load lines: what else the machine did, second by second
    loads = [r for r in records if r.get("event") == "load"]
    assert loads and all(r["others_cpus"] >= 0 and r["queue"] >= 0 and r["cpus"] >= 1 for r in loads)
    report = (Path(env["SWARBENCH_REPORTS"]) / run / "report.md").read_text()
    # (a paragraph wrapped at 120 columns: the words may fall on the next line)
    assert re.search(r"Steadiness: .*?(other\s+programs\s+kept|no\s+other\s+program\s+was\s+seen)", report, re.S), (
        report
    )


@pytest.mark.slow
def test_fewer_rounds_than_passes_are_spread_over_the_passes(tmp_path):
    env = cli_env(tmp_path)
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "c-swar",
        "-n",
        "256",
        "--passes",
        "8",
        "--processes",
        "1",
        "--min-rounds",
        "3",
        "--short-rounds",
        "0",
        "--max-time",
        "1e-9",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    records = _json_lines(env, run)
    timed = [r["phase"] for r in records if r.get("event") == "phase" and r["phase"].startswith("timing")]
    assert timed == [f"timing (pass {k} of 8)" for k in (3, 6, 8)]
    assert _frame(env).loc["c-swar", "samples"] == 3


@pytest.mark.slow
@pytest.mark.parametrize("short_rounds, processes, samples", [(0, 1, 1), (4, 1, 4), (5, 2, 5), (6, 2, 6)])
def test_short_batches_get_at_least_short_rounds_calls_dealt_out_over_the_workers(
    tmp_path, short_rounds, processes, samples
):
    # a budget too small for more than one round a worker: only --short-rounds can add to it
    env = cli_env(tmp_path)
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "c-swar",
        "-n",
        "256",
        "--processes",
        str(processes),
        "--min-rounds",
        "1",
        "--short-rounds",
        str(short_rounds),
        "--max-time",
        "1e-9",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert _frame(env).loc["c-swar", "samples"] == samples


SLOW_FIRST_PROCESS = contains_plugin(
    "slowfirst",
    "numpy",
    "slow_first",
    """
    import os
    import numpy as np
    from swarbench.suites.cards.spec import reference_contains

    def first_process():
        # the mark names the process that prepared this first (every pass prepares it again)
        mark, me = os.environ["SB_MARK"], str(os.getpid())
        try:
            fd = os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            with open(mark) as fh:
                return fh.read() == me
        os.write(fd, me.encode())
        os.close(fd)
        return True

    def slow_first(workload):
        # The first process to prepare this runs 6x slower: a slow spell of one worker, beyond any of this
        # shared machine's own (up to 1.7x).
        repeats = range(6 if first_process() else 1)
        return lambda: [reference_contains(workload.inputs) for _ in repeats][-1]
""",
)


@pytest.mark.slow
def test_an_extra_worker_settles_a_case_whose_workers_disagree_and_only_that_case(tmp_path):
    site = make_plugin_site(tmp_path / "site", "slowfirst", SLOW_FIRST_PROCESS)
    env = cli_env(tmp_path, site, SB_MARK=str(tmp_path / "mark"))
    # --keep-slowed: a spell of the machine's own that covered worker 0 would set its samples aside, settling
    # the case before any extra worker could (the default's better answer, and not what this test is about)
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "slowfirst",
        "-i",
        "c-swar",
        "-n",
        "2048",
        "--keep-slowed",
        "--processes",
        "2",
        "--settle",
        "1",
        "--max-time",
        "0.05",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    frame = _frame(env)
    assert frame.samples_slowed.isna().all() and (frame.samples == frame.rounds).all()  # none judged
    slow = frame.loc["slowfirst"]
    medians = json.loads(slow["worker_medians"])
    assert slow["processes"] == 3 and medians[0] > 2 * max(medians[1:])  # worker 0 slow; 1 and 2 not
    assert slow["ns_per_op_median"] < 1.5 * max(medians[1:])  # outvoted: the merged median is the steady one
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    records = _json_lines(env, run)
    unsettled = workers.unsettled_cases([r for r in records if r.get("worker") != 2])
    assert "cards.contains:slowfirst:deals:n=2048" in unsettled
    # the extra worker ran only the unsettled cases (c-swar too, if its two workers happened to disagree)
    assert sorted(r["case"] for r in records if r.get("worker") == 2 and r.get("event") == "result") == unsettled
    assert frame.loc["c-swar", "processes"] == (3 if "cards.contains:c-swar:deals:n=2048" in unsettled else 2)


def test_unsettled_cases_are_passed_short_cases_whose_workers_disagree():
    def rec(impl, worker, samples, status="PASS", check_s=0.001, kernel="k.x"):
        return {
            "event": "result",
            "case": f"{kernel}:{impl}:w:n=10",
            "kernel": kernel,
            "implementation": impl,
            "workload": "w",
            "n": 10,
            "status": status,
            "samples_s": samples,
            "check_s": check_s,
            "worker": worker,
        }

    records = [
        rec("agree", 0, [1.0, 1.01]),
        rec("agree", 1, [1.02, 1.0]),
        rec("apart", 0, [1.0, 1.0]),
        rec("apart", 1, [1.3, 1.3]),
        rec("long", 0, [1.0], check_s=2.0),
        rec("long", 1, [1.5], check_s=2.0),
        rec("wrong", 0, [1.0], status="FAIL"),
        rec("wrong", 1, [1.5]),
        rec("alone", 0, [1.0, 2.0]),
        rec("cffi", 0, [1.0], kernel="swarbench.overhead"),
        rec("cffi", 1, [2.0], kernel="swarbench.overhead"),
    ]
    assert workers.unsettled_cases(records) == ["k.x:apart:w:n=10"]


def test_relative_compare_divides_out_the_workloads_drift_but_not_one_implementations_regression():
    from swarbench import run_comparison as compare
    from swarbench.run_comparison import LoadedRun

    rng = np.random.default_rng(3)

    def blocks(level):  # two workers, 3% noise
        return [level * (1 + 0.03 * rng.standard_normal(100)) for _ in range(2)]

    def run(name, levels):
        measured = {("k.x", impl, "w", 1000): blocks(level) for impl, level in levels.items() if impl != "alone"}
        return LoadedRun(name, Path("."), {}, measured | {("k.y", "alone", "w", 10): blocks(levels["alone"])})

    levels = {"p": 1.0, "q": 2.0, "r": 5.0, "s": 0.5, "t": 9.0}
    base = run("a", levels | {"alone": 1.0})
    machine_slower = run("b", {k: 1.5 * v for k, v in levels.items()} | {"alone": 1.5})  # same code, slow stretch
    absolute = compare.compare_pair(base, machine_slower)
    assert len(compare.regressions(absolute, 20)) == 6
    relative = compare.compare_pair(base, machine_slower, relative=True).set_index("implementation")
    assert not relative.loc[list(levels), "significant"].any()
    assert (relative.loc[list(levels), "drift"].round(1) == 0.5).all()
    assert round(relative.loc["q", "median_b"], 1) == 3.0  # B's figures are shown as measured, not divided
    assert (relative["workload_drift"].round(1) == 0.5).all()
    alone = relative.loc["alone"]  # no other implementation of its workload: its absolute change, drift blank
    assert alone["drift"] != alone["drift"] and alone["significant"] and round(alone["change"], 1) == 0.5
    assert round(compare.geomean_change(relative.reset_index())["b"], 1) == 0.5  # the geomean stays absolute

    one_regressed = run("c", levels | {"p": 1.3, "alone": 1.0})
    relative = compare.compare_pair(base, one_regressed, relative=True).set_index("implementation")
    assert relative.loc["p", "significant"] and 0.25 < relative.loc["p", "change"] < 0.35
    assert relative.loc[["q", "r", "s", "t"], "drift"].abs().max() < 0.02  # the median of the others holds
    assert relative.loc[["q", "r", "s", "t"], "change"].abs().max() < 0.05
    gate = compare.regressions(relative.reset_index(), 20)
    assert list(gate["implementation"]) == ["p"]


def test_a_drift_stays_with_the_rows_that_did_not_move_when_nearly_half_of_a_workload_moved_together():
    """Eleven implementations, five of them (a workload's threaded rows, when the host slows a CPU) 10-19% slower
    in B, as an A-A pair of default runs saw, the other six unchanged: left out in turn, each unchanged row has five
    unchanged others and five moved, and a plain median of ten would average across the gap (+5%) and call every
    unchanged row 5% faster. The densest half of the others is the unchanged group, so none is called; each moved
    row is still 10-19% against it. (Where half of them move as tightly as the other half, which half is the
    machine cannot be told from the rows alone.)"""
    from swarbench import run_comparison as compare
    from swarbench.results import sample_stats
    from swarbench.run_comparison import LoadedRun

    assert sample_stats.densest_half_median([0.0, 0.01, -0.01, 0.02, 0.03, 0.15, 0.14, 0.17]) == pytest.approx(0.01)
    assert sample_stats.densest_half_median([1.0, 2.0, 4.0]) == 1.5  # the tighter pair
    assert sample_stats.densest_half_median([4.0]) == 4.0 and np.isnan(sample_stats.densest_half_median([]))
    rng = np.random.default_rng(11)

    def blocks(level):  # two workers, 1% noise
        return [level * (1 + 0.01 * rng.standard_normal(60)) for _ in range(2)]

    steady = {f"s{i}": 1.0 + i for i in range(6)}
    threaded = {f"t{i}": 0.5 + i for i in range(5)}
    a = LoadedRun("a", Path("."), {}, {("k.x", impl, "w", 1000): blocks(v) for impl, v in (steady | threaded).items()})
    moved = {k: f * v for f, (k, v) in zip((1.10, 1.13, 1.15, 1.17, 1.19), threaded.items())}
    b = LoadedRun("b", Path("."), {}, {("k.x", impl, "w", 1000): blocks(v) for impl, v in (steady | moved).items()})
    frame = compare.compare_pair(a, b, relative=True).set_index("implementation")
    assert not frame.loc[list(steady), "significant"].any()
    assert frame.loc[list(steady), "change"].abs().max() < 0.02
    assert (frame.loc[list(threaded), "change"] > 0.08).all() and frame.loc[list(threaded), "significant"].all()
    assert abs(frame["workload_drift"].iloc[0]) < 0.02


def test_the_canary_says_how_much_of_a_run_the_machine_was_slowed_and_compare_sets_two_runs_side_by_side():
    from swarbench import run_comparison as compare
    from swarbench.run_comparison import LoadedRun
    from swarbench.render.comparison import render_text

    def canaries(fast, slow):
        return [{"event": "canary", "worker": 0, "t": i, "s": 1e-4} for i in range(fast)] + [
            {"event": "canary", "worker": 1, "t": i, "s": 1.7e-4} for i in range(slow)
        ]

    steady = results.machine_steadiness(canaries(40, 2) + [{"event": "result", "s": 9.0}])
    assert steady["machine_slowed_share"] == pytest.approx(2 / 42)
    assert steady["machine_canary_us"] == pytest.approx(100)
    slowed = results.machine_steadiness(canaries(12, 30))
    assert slowed["machine_slowed_share"] == pytest.approx(30 / 42)
    assert slowed["machine_canary_us"] == pytest.approx(170)
    missing = results.machine_steadiness([])
    assert all(v != v for v in missing.values())  # a run saved before the canary: unknown, not steady

    rng = np.random.default_rng(5)
    measured = {("k.x", "p", "w", 1000): [1 + 0.01 * rng.standard_normal(50) for _ in range(2)]}
    a, b = LoadedRun("a", Path("."), {}, measured, steady), LoadedRun("b", Path("."), {}, measured, slowed)
    pair = compare.compare_pair(a, b)
    assert pair["machine_changed"].all() and pair["canary_change"].iloc[0] == pytest.approx(0.7)
    text = render_text(pair, {"b": 0.0})
    assert "machine (canary): A 100 us, slowed during 5% of the run; B 170 us (+70.0%), slowed during 71%" in text
    assert "the machine itself was not the same in both runs" in text
    same = render_text(compare.compare_pair(a, LoadedRun("c", Path("."), {}, measured, steady)), {"c": 0.0})
    assert "machine (canary): A 100 us" in same and "not the same" not in same
    unknown = render_text(compare.compare_pair(LoadedRun("d", Path("."), {}, measured), b), {"b": 0.0})
    assert "canary" not in unknown


def test_samples_of_passes_the_machine_slowed_are_set_aside_and_the_rest_make_the_median():
    def line(worker, passes, case="k.x:p:w:n=1000", first=()):
        """A result line: ``passes`` is [(canary after the pass, its samples)], each canary before it fast."""
        samples = list(first) + [x for _, xs in passes for x in xs]
        return {
            "event": "result",
            "case": case,
            "worker": worker,
            "kernel": "k.x",
            "implementation": "p",
            "family": "python",
            "workload": case.split(":")[2],
            "n": 1000,
            "status": "PASS",
            "samples_s": samples,
            "rounds": len(samples),
            "iterations": 1,
            "pass_canary_s": [[1e-4, after, len(xs)] for after, xs in passes],
        }

    fast, slow = 1e-4, 1.7e-4
    rng = np.random.default_rng(3)
    steady_pass = lambda: list(1e-6 * (1 + 0.02 * rng.random(5)))  # noqa: E731
    slowed_pass = lambda: list(1.5e-6 * (1 + 0.02 * rng.random(5)))  # noqa: E731
    records = [
        line(
            w,
            [(fast, steady_pass()) for _ in range(3)] + [(slow, slowed_pass()) for _ in range(4)],
            first=[1.01e-6] if w == 0 else (),
        )
        for w in (0, 1)
    ]
    # three passes of three, all slowed but one: too few left to stand for it, so the less slowed of the other two
    # fills in (placed last, to show it is chosen by its reading, not its place)
    records.append(line(0, [(fast, [2e-6] * 3), (2e-4, [3.5e-6] * 3), (1.6e-4, [2.5e-6] * 3)], case="k.x:p:v:n=1000"))
    merged = {m.workload: m for m in results.merge_records(records)}
    w = merged["w"]
    assert len(w.samples_slowed_s) == 40 and min(w.samples_slowed_s) >= 1.5e-6
    assert len(w.samples_s) == 31 and max(w.samples_s) < 1.03e-6  # the verification call (untagged) kept
    assert [len(x) for x in w.worker_samples_s] == [16, 15] and not w.filled_in
    assert merged["v"].filled_in == 3 and merged["v"].samples_s == [2e-6] * 3 + [2.5e-6] * 3
    assert merged["v"].samples_slowed_s == [3.5e-6] * 3

    frame = results.frame_from_records(records, "r", {}).set_index("workload")
    assert frame.loc["w", "samples"] == 31 and frame.loc["w", "samples_slowed"] == 40
    assert frame.loc["w", "ns_per_op_median"] < 1.02 and frame.loc["w", "ns_per_op_median_all"] > 1.5
    assert frame.loc["w", "ns_per_op_ci_high"] < 1.03 and "slowed" not in frame.loc["w", "stability"]
    assert "3 of its 6 samples from the least slowed of the passes" in frame.loc["v", "stability"]
    assert frame.loc["v", "samples_slowed"] == 3 and frame.loc["v", "ns_per_op_median"] == pytest.approx(2.25)
    assert frame.loc["w", "machine_slowed_share"] == pytest.approx(10 / 34)  # 2 readings a pass, 5 of 17 slow

    # a few readings cannot tell a slow spell from noise; a malformed tag keeps its line whole, without a traceback
    kept = results.merge_records([{"event": "run", "keep_slowed": True}] + records)
    assert all(not m.samples_slowed_s and m.samples_s == m.samples_all_s for m in kept)
    # the report says samples were set aside only where they were
    from swarbench.render import RunView, steadiness_lines

    (said,) = steadiness_lines(RunView(frame.reset_index(), {}))
    assert "during 29% of the run" in said and "set aside" in said
    kept_frame = results.frame_from_records([{"event": "run", "keep_slowed": True}] + records, "r", {})
    (said,) = steadiness_lines(RunView(kept_frame, {}))
    assert "during 29% of the run" in said and "set aside" not in said
    few = results.merge_records([line(0, [(fast, [1e-6]), (slow, [2e-6])])])
    assert few[0].samples_slowed_s == [] and len(few[0].samples_s) == 2
    broken = [dict(r, pass_canary_s=[["x", 1e-4, 5]]) for r in records[:2]]
    assert all(not m.samples_slowed_s for m in results.merge_records(broken + records[2:]))


def test_passes_that_ran_at_two_speeds_are_flagged_and_passes_at_one_speed_are_not():
    assert results.two_speeds([1.0, 1.01, 0.99, 1.3, 1.31, 1.29]) == pytest.approx((1.0, 1.3))
    assert results.two_speeds([1.0, 1.01, 0.99, 1.02, 1.03, 1.0, 1.04, 0.98]) is None
    assert results.two_speeds([1.0] * 11 + [1.5]) is None  # one slow pass is an outlier, not a second speed
    assert results.two_speeds([1.0, 2.0]) is None  # two passes cannot show two groups

    def passes(medians):  # one worker, a pass of five samples at each median, the machine steady throughout
        samples = [m * 1e-6 for m in medians for _ in range(5)]
        return {
            "event": "result",
            "case": "k.x:p:w:n=1000",
            "worker": 0,
            "kernel": "k.x",
            "implementation": "p",
            "family": "c",
            "workload": "w",
            "n": 1000,
            "status": "PASS",
            "samples_s": samples,
            "rounds": len(samples),
            "iterations": 1,
            "pass_canary_s": [[1e-4, 1e-4, 5] for _ in medians],
        }

    split = results.frame_from_records([passes([1.0, 1.2, 1.0, 1.2, 1.2, 1.0])], "r", {}).iloc[0]
    assert "passes ran at two speeds, 1 and 1.2 ns/op" in split["stability"]
    steady = results.frame_from_records([passes([1.0, 1.01, 1.0, 1.02, 0.99, 1.0])], "r", {}).iloc[0]
    assert "two speeds" not in steady["stability"]


RIGHT_THEN_WRONG = contains_plugin(
    "rightthenwrong",
    "numpy",
    "right_then_wrong",
    """
    import numpy as np
    from swarbench.suites.cards.spec import reference_contains

    prepared = []  # the inputs of each preparation of the run's workload (256 pairs) in this process

    def right_then_wrong(workload):
        if len(workload.inputs["a"]) != 256:  # the known answers
            return lambda: reference_contains(workload.inputs)
        prepared.append(workload.inputs["a"])
        if len(prepared) > 1 and (prepared[-1] is prepared[-2] or not np.array_equal(prepared[-1], prepared[0])):
            raise AssertionError("not a fresh copy of the same inputs")
        out = reference_contains(workload.inputs)
        # right as checked, wrong once prepared again: a batch whose result hangs on where its memory landed
        return (lambda: out) if len(prepared) == 1 else (lambda: ~out)
""",
)


@pytest.mark.slow
def test_a_short_batch_is_prepared_again_from_fresh_inputs_each_pass_and_checked_again(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "rightthenwrong", RIGHT_THEN_WRONG))
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "rightthenwrong",
        "-i",
        "c-swar",
        "-n",
        "256",
        "--passes",
        "4",
        "--processes",
        "1",
        "--min-rounds",
        "4",
        "--short-rounds",
        "0",
        "--max-time",
        "1e-9",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    frame = _frame(env)
    assert frame.loc["rightthenwrong", "status"] == "FAIL", frame.loc["rightthenwrong", "reason"]
    # wrong once prepared again: caught on its first wrong call after that preparation (spot checks)
    assert frame.loc["rightthenwrong", "reason"].startswith(("timed output in worker 0", "did no work", "wrong on a"))
    assert frame.loc["c-swar", "status"] == "PASS" and frame.loc["c-swar", "samples"] == 4
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    records = _json_lines(env, run)
    again = [r["case"].split(":")[1] for r in records if r.get("phase") == "preparing again (fresh inputs)"]
    # passes 2 to 4, each while the preparation before took under REPREPARE_BELOW_S (a stall of this shared
    # machine can make one take longer, and the passes left then keep that batch); rightthenwrong may be caught
    # before it is ever prepared again
    assert set(again) <= {"c-swar", "rightthenwrong"} and "c-swar" in again and again.count("rightthenwrong") <= 3
    # what preparing again costs is kept, apart from the first preparation
    (line,) = [r for r in records if r.get("event") == "result" and r["implementation"] == "c-swar"]
    costs = line["reprepare_s"]
    assert len(costs) == again.count("c-swar") and all(0 < s < 1 for s in costs)
    assert all(s < REPREPARE_BELOW_S for s in costs[:-1]) and (len(costs) == 3 or costs[-1] >= REPREPARE_BELOW_S)
    assert frame.loc["c-swar", "reprepare_s"] == pytest.approx(sorted(line["reprepare_s"])[1])


INTERRUPTS = contains_plugin(
    "interrupts",
    "python-naive",
    "Interrupts",
    """
    import signal
    import time
    from swarbench.suites.cards.spec import reference_contains

    class Interrupts:
        # Prepared, a batch that stands for a user's Ctrl-C in its second pass: its check and its first pass's
        # rounds come before the fifth call (60 ms a call: no extra calls to size rounds). Counted over every
        # preparation: a cheap batch is prepared afresh for each pass (bench.timing.cheap_to_prepare).
        calls = 0

        def __init__(self, workload):
            self.inputs = workload.inputs

        def __call__(self):
            Interrupts.calls += 1
            if Interrupts.calls == 5:
                signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C (a KeyboardInterrupt raised is the batch's)
            time.sleep(0.06)
            return reference_contains(self.inputs)  # computed in each call, as the spot checks require
""",
)


# What a Ctrl-C that lands inside a Numba-compiled call turns into: an error whose cause is the interrupt.
INTERRUPTS_DRESSED = INTERRUPTS.replace(
    "signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C (a KeyboardInterrupt raised is the batch's)",
    "try:\n                signal.raise_signal(signal.SIGINT)\n            except KeyboardInterrupt as k:\n"
    '                raise SystemError("CPUDispatcher(...) returned a result with an exception set") from k',
)


@pytest.mark.slow
@pytest.mark.parametrize("plugin", [INTERRUPTS, INTERRUPTS_DRESSED], ids=["ctrl-c", "ctrl-c-as-an-error"])
def test_a_worker_stopped_between_passes_keeps_the_samples_of_the_passes_it_finished(tmp_path, plugin):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "interrupts", plugin))
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "interrupts",
        "-i",
        "c-swar",
        "-i",
        "swar",
        "-i",
        "naive",
        "-n",
        "256",
        "--passes",
        "3",
        "--processes",
        "1",
        "--min-rounds",
        "6",
        "--max-time",
        "0.0001",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 130, proc.stderr
    (run,) = os.listdir(env["SWARBENCH_REPORTS"])
    records = _json_lines(env, run)
    timed = {r["case"] for r in records if r.get("event") == "phase" and r["phase"] == "timing (pass 1 of 3)"}
    ended = {r["case"]: r for r in records if r.get("event") == "result"}
    assert len(timed) >= 3 and timed <= set(ended)  # every case timed in a first pass has its result line
    stopped = [r for r in ended.values() if r["reason"].startswith("stopped after")]
    assert stopped and all(r["status"] == "PASS" and r["samples_s"] for r in stopped)
    frame = _frame(env)
    assert set(frame.index) >= {ended[c]["implementation"] for c in timed}
    assert not (frame.status == "ERROR").any()  # the interrupt is not taken for the kernel's own error


SWALLOWS = contains_plugin(
    "swallows",
    "python-naive",
    "Swallows",
    """
    import time
    from swarbench.suites.cards.spec import reference_contains

    class Swallows:
        # A plugin whose batch eats the first Ctrl-C it sees (30 ms a call, nearly all of it in the sleep it guards)
        swallowed = False

        def __init__(self, workload):
            self.inputs = workload.inputs

        def __call__(self):
            # the answer is computed in each call, as the spot checks require, and inside the guard, so that a
            # Ctrl-C is swallowed wherever in the call it lands (only the harness's own steps between calls are
            # left unguarded: microseconds of each 30 ms)
            try:
                time.sleep(0.03)
                return reference_contains(self.inputs)
            except KeyboardInterrupt:
                if Swallows.swallowed:
                    raise
                Swallows.swallowed = True
                return reference_contains(self.inputs)
""",
)


@pytest.mark.slow
def test_a_worker_whose_plugin_swallows_ctrl_c_stops_at_its_next_pass_and_keeps_what_it_measured(tmp_path):
    # 500 calls over 10 passes: 15 s of timing left after the interrupt, more than the engine waits, but a pass
    # ends within 1.5 s, and the worker, which saw the signal, stops there
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "swallows", SWALLOWS))
    cmd = [
        sys.executable,
        "-m",
        "swarbench.cli",
        "run",
        "-k",
        "cards.contains",
        "-i",
        "swallows",
        "-i",
        "c-swar",
        "-n",
        "256",
        "--passes",
        "10",
        "--processes",
        "1",
        "--min-rounds",
        "500",
        "--max-time",
        "1e-9",
        "--no-overhead",
        "-q",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    reports, deadline = Path(env["SWARBENCH_REPORTS"]), time.time() + 120
    while time.time() < deadline:
        lines = [
            ln
            for run in (os.listdir(reports) if reports.is_dir() else [])
            for ln in (
                (reports / run / results.RECORDS).read_text().splitlines()
                if (reports / run / results.RECORDS).exists()
                else []
            )
        ]
        if any('"timing (pass 1 of 10)"' in ln and "swallows" in ln for ln in lines):
            break
        time.sleep(0.05)
    time.sleep(0.3)  # inside the swallowing call
    os.killpg(proc.pid, signal.SIGINT)
    interrupted = time.time()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert time.time() - interrupted < supervision.INTERRUPT_GRACE_S  # it stopped on the second interrupt, not killed
    frame = _frame(env)
    assert frame.loc["swallows", "status"] == "PASS" and frame.loc["swallows", "samples"] > 0
    assert frame.loc["swallows", "reason"].startswith("stopped after")
    assert "Traceback" not in err


def test_a_run_started_inside_a_parallel_pytest_session_still_times_every_row(tmp_path):
    # what pytest-xdist sets in its workers (and an addopts the user's shell carries): the benchmark worker's own
    # pytest would turn pytest-benchmark off and pass every row with no figure
    env = cli_env(tmp_path, PYTEST_XDIST_WORKER="gw1", PYTEST_XDIST_TESTRUNUID="0f", PYTEST_ADDOPTS="-p no:benchmark")
    proc = swarbench("run", "-k", "cards.contains", "-i", "swar", "-i", "naive", "-n", "64", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr
    frame = _frame(env)
    assert set(frame.status) == {"PASS"} and (frame.ns_per_op_median > 0).all() and (frame.samples > 0).all()


def test_a_benchmark_worker_whose_timer_is_off_refuses_to_run(tmp_path):
    request = RunRequest(kernels=["cards.contains"], impls=["swar"], sizes=[64], reports_dir=tmp_path)
    cmd = workers.worker_command(request, tmp_path, 0, []) + ["--benchmark-disable"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode != 0 and "pytest-benchmark is disabled in this benchmark worker" in proc.stdout + proc.stderr
    from swarbench.runfolder import ResultLine, RunFolder

    folder = RunFolder(tmp_path)  # no row passed untimed
    assert not folder.records_path.exists() or not any(isinstance(r, ResultLine) for r in folder.records())


def test_a_row_carries_the_reading_of_the_worker_that_read_its_code_whichever_line_comes_first():
    base = {
        "event": "result",
        "kernel": "k.x",
        "implementation": "a",
        "family": "cffi-scalar",
        "workload": "w",
        "n": 1000,
        "status": "PASS",
        "iterations": 1,
        "baseline": "a",
        "samples_s": [1.0e-6, 1.01e-6, 0.99e-6],
    }
    read = {"bytes_read_per_op": 8.0, "called": ["f"], "function": "f"}
    traffic = {"bytes_read_per_op": 8.0, "missing": "its code is read by the run's first worker"}
    for lines in (
        [dict(base, worker=0, explain=read), dict(base, worker=1, explain=traffic)],
        [dict(base, worker=1, explain=traffic), dict(base, worker=0, explain=read)],
    ):
        frame = results.frame_from_records(lines, "r", {})
        assert frame.loc[0, "code_function"] == "f" and "first worker" not in str(frame.loc[0, "explain_missing"])
