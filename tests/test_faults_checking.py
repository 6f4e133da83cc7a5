"""No wrong answer is ranked (issue 39): an implementation wrong on some of its calls, one that did no work in its
calls (answers kept from prepare or from an earlier call, however kept), one that ends in a BaseException or whose
prepare returns no batch, is a FAIL or ERROR row naming what it did; a kernel whose spec goes wrong (any hook,
raising or returning what its contract does not allow) is blamed once, on its spec, not on its implementations.

The faults are the throw-away plugins of tests/faults/, each run once with every one of its implementations."""

from __future__ import annotations

import re

import numpy as np
import pytest

from conftest import FAST, swarbench
from swarbench.bench import spot_checks
from test_faults import fault_env, one_line, results_of, run_dir

pytestmark = pytest.mark.slow  # each test is one real run

# enough timed rounds (a 1 ms round of a few-microsecond batch, about 20 a pass) that a row wrong on one call in
# seven of its later calls is caught with a probability of 1 - (6/7)**40 (about 0.998), whatever its luck
CHECKED = [
    "run",
    "--kernel",
    "cards.contains",
    "--size",
    "4096",
    "--passes",
    "2",
    "--max-time",
    "0.04",
    "--min-rounds",
    "1",
    "--quiet",
    "--processes",
    "1",
    "--no-overhead",
]


def _run(tmp_path, plugin: str, *impls: str):
    env = fault_env(tmp_path, plugin)
    proc = swarbench(*CHECKED, *[x for i in impls for x in ("--impl", i)], env=env, timeout=900)
    return proc, results_of(env).set_index("implementation")


WRONG_ON_SOME_CALLS = ["every-third", "calls-3-to-9", "after-40", "every-7th-late"]
NO_WORK = [
    "copy-kept",
    "kept-array",
    "view-kept",
    "readonly-kept",
    "widened-kept",
    "list-kept",
    "global-kept",
    "lazy-kept",
    "method-kept",
]


def test_a_row_wrong_on_some_calls_or_doing_no_work_in_its_calls_is_never_ranked(tmp_path):
    proc, frame = _run(tmp_path, "wrong_calls", "right", "numpy-swar", "c-swar", *WRONG_ON_SOME_CALLS, *NO_WORK)
    line = one_line(proc, 1, "FAIL: ")
    for name in WRONG_ON_SOME_CALLS + NO_WORK:
        assert name in line and frame.loc[name, "status"] == "FAIL", (name, frame.loc[name, "reason"])
        assert np.isnan(frame.loc[name, "ns_per_op_median"])  # no figure of it is kept
    for name in WRONG_ON_SOME_CALLS:
        assert "wrong on a" in frame.loc[name, "reason"] and "after it was prepared" in frame.loc[name, "reason"]
    for name in ("copy-kept", "kept-array", "view-kept", "global-kept", "lazy-kept", "method-kept", "list-kept"):
        assert frame.loc[name, "reason"].startswith("did no work: "), (name, frame.loc[name, "reason"])
    # the honest rows, built-in ones among them (each returns the same output array every call), are timed
    for name in ("right", "numpy-swar", "c-swar"):
        assert frame.loc[name, "status"] == "PASS" and frame.loc[name, "ns_per_op_median"] > 0


def test_a_batch_ending_in_any_base_exception_or_a_prepare_with_no_batch_is_its_error(tmp_path):
    faults = [
        "base-exception",
        "generator-exit",
        "base-exception-late",
        "generator-exit-late",
        "prepare-base-exception",
        "prepare-generator-exit",
        "pytest-skip",
        "prepare-none",
        "prepare-number",
    ]
    proc, frame = _run(tmp_path, "process", "right", "swar", *faults)
    line = one_line(proc, 1, "FAIL: ")
    for name in faults:
        assert name in line and frame.loc[name, "status"] == "ERROR", (name, frame.loc[name, "reason"])
    assert "OwnBaseException" in frame.loc["base-exception", "reason"]
    assert "GeneratorExit" in frame.loc["generator-exit-late", "reason"]
    # its 41st call: in the warm-up round or a timed one, as this machine's speed sizes the rounds
    assert re.match(
        r"an? (warm-up|timed) batch call \(pass \d of \d\) raised OwnBaseException",
        frame.loc["base-exception-late", "reason"],
    ), frame.loc["base-exception-late", "reason"]
    assert "Skipped" in frame.loc["pytest-skip", "reason"]
    assert frame.loc["prepare-none", "reason"].startswith("prepare returned no callable (it returned None)")
    assert "prepare returned no callable (it returned an int)" in frame.loc["prepare-number", "reason"]
    assert (frame.loc[["right", "swar"], "status"] == "PASS").all()


def test_a_spec_that_goes_wrong_is_blamed_once_and_no_implementation_for_it(tmp_path):
    env = fault_env(tmp_path, "spec_hooks")
    proc = swarbench("run", "--kernel", "spec.*", "--passes", "1", *FAST, env=env, timeout=900)
    one_line(proc, 1, "FAIL: ", "spec.describe/wrong", "are wrong (see the report)")
    frame = results_of(env)
    spec_rows = frame[frame.implementation == "(kernel spec)"].set_index("kernel")
    hooks = {
        "spec.generator": "generator raised ZeroDivisionError",
        "spec.negative": "returned -5 as its number",
        "spec.zero": "returned 0 as its number",
        "spec.fraction": "returned 2.5",
        "spec.nan": "returned nan",
        "spec.untupled": "not (inputs, number of operations)",
        "spec.validate": "its validate raised",
        "spec.reference": "its reference raised",
        "spec.nothing": "its reference returned None",
        "spec.compare": "its compare raised",
        "spec.describe": "its describe_input raised",
        "spec.summarize": "its summarize raised",
        "spec.summary-type": "its summarize returned a list",
        "spec.expected": "published outputs (expected) raised",
    }
    for kernel, words in hooks.items():
        row = spec_rows.loc[kernel]
        assert row.status == "ERROR" and f"kernel {kernel}'s spec is wrong" in row.reason and words in row.reason, (
            kernel,
            row.reason,
        )
    assert spec_rows.index.is_unique  # once per kernel, whatever its implementations
    impls = frame[frame.implementation != "(kernel spec)"].set_index("kernel")
    for kernel in ("spec.generator", "spec.reference", "spec.compare", "spec.validate", "spec.negative"):
        assert impls.loc[kernel, "status"] == "SKIP" and "not judged" in impls.loc[kernel, "reason"]
    for kernel in ("spec.summarize", "spec.summary-type"):  # the figures stay; only the summary is missing
        assert impls.loc[kernel, "status"] == "PASS" and impls.loc[kernel, "ns_per_op_median"] > 0
    wrong = frame[(frame.kernel == "spec.describe") & (frame.implementation == "wrong")].iloc[0]
    assert wrong.status == "FAIL" and "(the kernel's describe_input failed)" in wrong.reason
    # the specs that fail on their own known answers are refused before any worker, with every other kernel run
    assert not frame.kernel.isin(["spec.known-raises", "spec.known-tuples", "spec.known-validate"]).any()
    shown = swarbench("report", str(run_dir(env)), env=env)
    assert shown.returncode == 0 and "known_answers() raised ZeroDivisionError" in shown.stdout
    assert "known_answers() returned a tuple among its answers" in shown.stdout
    assert "its validate raised ValueError" in shown.stdout


# -- the pieces, in the test's own process ----------------------------------------------------------------------
def test_writing_over_an_answer_makes_every_element_wrong_and_is_told_apart_from_an_own_mistake():
    for right in (np.array([True, False, True]), np.arange(20, dtype=np.uint8), np.linspace(-1, 1, 9)):
        poisoned = right.copy()
        assert spot_checks.poison(poisoned)
        assert not np.equal(poisoned, right).any() or right.dtype == bool
        again = poisoned.copy()
        if right.dtype != bool:  # written over twice gives the answer back: how "did no work" is told
            assert spot_checks.poison(again) and np.array_equal(again, right)
        if right.dtype == bool:
            assert len(set(poisoned.tolist())) == 1 and not np.array_equal(poisoned, right)
    kept = np.arange(64)
    assert not spot_checks.poison(kept[:10], protected=(kept,))  # never the workload's inputs or the reference


def test_answers_a_batch_holds_are_found_wherever_it_keeps_them():
    answer = np.arange(100)

    class Holder:
        def __init__(self):
            self.deep = {"x": [answer]}

    holder = Holder()
    for batch in (lambda: answer.copy(), lambda: holder.deep["x"][0].copy(), holder.__init__):
        found = spot_checks.held_like(batch, [answer.copy()])
        assert any(f is answer for f in found), batch
    assert spot_checks.held_like(lambda: answer.copy(), [answer]) == []  # the output itself is not "held"


def test_answers_kept_beside_a_jitted_function_are_found_without_walking_numba_inside_it():
    numba = pytest.importorskip("numba")
    answer = np.arange(100)

    @numba.njit(cache=False)
    def kernel(x):
        return x + 1

    kernel(np.arange(3))  # compiled: its dispatcher now holds typing and target contexts

    def batch():
        return kernel(answer) - 1

    assert spot_checks._children(kernel) == []  # the library's own objects: compared, never looked into
    found = spot_checks.held_like(batch, [answer.copy()])
    assert any(f is answer for f in found)
