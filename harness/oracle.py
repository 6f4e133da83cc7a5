"""Prove an implementation correct on a workload before anything times it.

``verify`` checks requirements, runs the untimed ``prepare`` (recording how long it took), checks the kernel's
known answers, then runs the batch once on the workload and compares it with the reference outputs. Only a
``PASS`` verdict carries a batch callable on to timing; everything else carries the reason.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Optional

from swarbench import features
from swarbench.cbuild import BuildError
from swarbench.errors import raise_if_interrupted
from swarbench.model import BatchCall, Implementation, Kernel, Mismatch, TooSlow, Workload

PASS, FAIL, SKIP, ERROR = "PASS", "FAIL", "SKIP", "ERROR"
# A batch whose verification call takes this long is a long batch: seconds of pure Python with nothing left to
# warm. It is timed cold, once per worker, and only by as many workers as --min-rounds asks for; the worker
# that verified it counts its verification call as that sample (swarbench.bench.plugin, swarbench.engine).
LONG_BATCH_S = 0.5


@dataclass
class Verdict:
    status: str
    reason: str = ""
    prepare_s: float = float("nan")
    call_s: float = float("nan")  # duration of the verification call (a first run of the batch, not yet a sample)
    batch: Optional[BatchCall] = None
    mismatch: Optional[Mismatch] = None
    outputs: Any = None


def describe_error(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {first[0] if first else ''}"


def _prepare(impl: Implementation, workload: Workload) -> tuple[Optional[BatchCall], Verdict]:
    start = time.perf_counter()
    try:
        batch = impl.prepare(workload)
    except TooSlow as exc:
        return None, Verdict(SKIP, f"too slow for this workload: {exc}")
    except BuildError as exc:
        return None, Verdict(SKIP, f"C build failed: {exc}")
    except Exception as exc:
        raise_if_interrupted(exc)
        return None, Verdict(ERROR, f"prepare raised {describe_error(exc)}")
    return batch, Verdict(PASS, prepare_s=time.perf_counter() - start)


def _run(batch: BatchCall) -> tuple[Any, float, Optional[str]]:
    start = time.perf_counter()
    try:
        out = batch()
    except Exception as exc:
        raise_if_interrupted(exc)
        return None, float("nan"), f"batch call raised {describe_error(exc)}"
    return out, time.perf_counter() - start, None


def check_known_answers(kernel: Kernel, impl: Implementation) -> Optional[Verdict]:
    """None when every known answer holds, else the failing verdict."""
    for answer, workload in kernel.known_workloads():
        batch, v = _prepare(impl, workload)
        if batch is None:
            if v.status == SKIP:
                continue  # a size limit may exclude a tiny case; the main workload still decides
            return v
        out, _, err = _run(batch)
        if err:
            return Verdict(ERROR, f"known answer {answer.name}: {err}")
        mismatch = kernel.check(answer.expected, out, answer.inputs)
        if mismatch:
            return Verdict(FAIL, f"known answer {answer.name} ({answer.source}): {mismatch}", mismatch=mismatch)
    return None


def prepare_only(impl: Implementation, workload: Workload) -> Verdict:
    """Requirements and prepare, no call: for a worker timing a case that an earlier worker of the run verified
    (it checks the output of its timed calls instead)."""
    why = features.unavailable(impl.requires)
    if why:
        return Verdict(SKIP, why)
    batch, verdict = _prepare(impl, workload)
    verdict.batch = batch
    return verdict


def verify_call_only(impl: Implementation, workload: Workload) -> Verdict:
    """Requirements, prepare, one call: what every verification starts with, and all a probe needs."""
    # The workload's own prepare comes first so its recorded time includes first builds and JIT compiles.
    verdict = prepare_only(impl, workload)
    batch = verdict.batch
    if batch is None:
        return verdict
    out, call_s, err = _run(batch)
    if err:
        return Verdict(ERROR, err, prepare_s=verdict.prepare_s)
    return Verdict(PASS, prepare_s=verdict.prepare_s, call_s=call_s, batch=batch, outputs=out)


def verify(kernel: Kernel, impl: Implementation, workload: Workload, expected: Any,
           known_answers: bool = True, keep_outputs: bool = False) -> Verdict:
    """The verdict of one checked call. A PASS keeps the call's outputs only if asked (``keep_outputs``: the
    caller may use the call as a sample); otherwise they are let go, not kept alive beside the next call's."""
    verdict = verify_call_only(impl, workload)
    if verdict.status != PASS:
        return verdict
    outputs, verdict.outputs = verdict.outputs, None
    mismatch = kernel.check(expected, outputs, workload.inputs)
    if mismatch:  # the outputs stay so the results can say what the wrong implementation computed
        return Verdict(FAIL, str(mismatch), prepare_s=verdict.prepare_s, call_s=verdict.call_s, mismatch=mismatch,
                       outputs=outputs)
    if known_answers:
        failed = check_known_answers(kernel, impl)
        if failed:
            failed.prepare_s = verdict.prepare_s
            return failed
    if keep_outputs:
        verdict.outputs = outputs
    return verdict


def reference_outputs(kernel: Kernel, workload: Workload) -> Any:
    """What every implementation must return: the workload kind's published outputs where it has them, else
    the kernel's reference on the workload's inputs."""
    kind = next((k for k in kernel.workloads if k.name == workload.name), None)
    if kind is not None and kind.expected is not None:
        return kind.expected(workload.inputs)
    return kernel.reference(workload.inputs)
