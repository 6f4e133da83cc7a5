"""Prove a kernel's spec, then an implementation, correct before anything times it.

``spec_problem`` runs a kernel's reference on its own known answers the first time the kernel is used: when they
disagree the kernel's spec is wrong (its reference or the answer), and that is said once, about the kernel,
instead of every implementation failing against a bad expected value.

``verify`` checks requirements, runs the untimed ``prepare`` (recording how long it took), checks the kernel's
known answers, then runs the batch once on the workload and compares it with the reference outputs. Only a
``PASS`` verdict carries a batch callable on to timing; everything else carries the reason.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from swarbench import features
from swarbench.cbuild import BuildError, CannotBuildHere
from swarbench.errors import raise_if_interrupted
from swarbench.model import BatchCall, Implementation, InvalidInput, Kernel, Mismatch, TooSlow, Workload, matches
from swarbench.runfolder import Status
from swarbench.spec_guard import kind_of

if TYPE_CHECKING:
    from swarbench.registry import Registry

PASS, FAIL, SKIP, ERROR = Status.PASS, Status.FAIL, Status.SKIP, Status.ERROR
# A batch whose verification call takes this long is a long batch: seconds of pure Python with nothing left to
# warm. It is timed cold, once per worker, and only by as many workers as --min-rounds asks for; the worker
# that verified it counts its verification call as that sample (swarbench.bench.timing, swarbench.engine).
LONG_BATCH_S = 0.5


@dataclass
class Verdict:
    status: Status
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
    except CannotBuildHere as exc:  # the machine lacks a compiler or its flags: like a missing CPU feature
        return None, Verdict(SKIP, f"cannot build C here: {exc}")
    except BuildError as exc:  # the source is wrong: as loud as an implementation that raises
        return None, Verdict(ERROR, f"C compile error: {exc}")
    except (KeyboardInterrupt, SystemExit):  # the user's Ctrl-C; sys.exit is a crash of the case (bench.session)
        raise
    except BaseException as exc:  # GeneratorExit, pytest's own outcomes, a class of its own: the implementation's
        raise_if_interrupted(exc)
        return None, Verdict(ERROR, f"prepare raised {describe_error(exc)}")
    if not callable(batch):
        return None, Verdict(
            ERROR,
            f"prepare returned no callable (it returned {kind_of(batch)}); it must "
            f"return the batch function that is timed",
        )
    return batch, Verdict(PASS, prepare_s=time.perf_counter() - start)


def _run(batch: BatchCall) -> tuple[Any, float, Optional[str]]:
    start = time.perf_counter()
    try:
        out = batch()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        raise_if_interrupted(exc)
        return None, float("nan"), f"batch call raised {describe_error(exc)}"
    return out, time.perf_counter() - start, None


_spec_problems: dict[tuple[str, int], Optional[str]] = {}


def spec_problem(kernel: Kernel) -> Optional[str]:
    """None when the kernel's reference reproduces every one of its known answers, whose inputs its own
    ``validate`` accepts; else one line naming the kernel and the answer. Checked once per kernel object."""
    key = (kernel.id, id(kernel))
    if key not in _spec_problems:
        _spec_problems[key] = _check_spec(kernel)
    return _spec_problems[key]


def _check_spec(kernel: Kernel) -> Optional[str]:
    """What is wrong with a kernel's spec, checked on its own known answers: a hook that raises or returns what
    its contract does not allow (swarbench.spec_guard), or a reference that disagrees with an answer."""
    from swarbench.spec_guard import SpecError, guarded

    blame, where, guarded_kernel = f"kernel {kernel.id}'s spec is wrong", "", guarded(kernel)
    try:
        for answer in guarded_kernel.known_answers():
            where = f"its known answer {answer.name!r} ({answer.source})"
            try:
                guarded_kernel.validate(answer.inputs)
            except SpecError as exc:
                if not isinstance(exc.__cause__, InvalidInput):
                    raise
                return f"{blame}: its validate refuses the inputs of {where}: {exc.__cause__}"
            out = guarded_kernel.reference(answer.inputs)
            mismatch = guarded_kernel.check(answer.expected, out, answer.inputs)
            if mismatch:
                return (
                    f"{blame}: its reference and {where} disagree at {mismatch.index}: input {mismatch.input}: "
                    f"the known answer says {mismatch.expected}, the reference gives {mismatch.got}"
                )
    except SpecError as exc:
        return f"{exc}" + (f" on {where}" if where else "")
    return None


def check_known_answers(kernel: Kernel, impl: Implementation) -> Optional[Verdict]:
    """None when every known answer holds, else the failing verdict. The kernel's own spec is checked before
    (``spec_problem``: by the run for a plugin's kernel, by swarbench.testing), so a mismatch here is the
    implementation's."""
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


def verify(
    kernel: Kernel,
    impl: Implementation,
    workload: Workload,
    expected: Any,
    known_answers: bool = True,
    keep_outputs: bool = False,
) -> Verdict:
    """The verdict of one checked call. A PASS keeps the call's outputs only if asked (``keep_outputs``: the
    caller may use the call as a sample); otherwise they are let go, not kept alive beside the next call's."""
    verdict = verify_call_only(impl, workload)
    if verdict.status != PASS:
        return verdict
    outputs, verdict.outputs = verdict.outputs, None
    mismatch = kernel.check(expected, outputs, workload.inputs)
    if mismatch:  # the outputs stay so the results can say what the wrong implementation computed
        return Verdict(
            FAIL, str(mismatch), prepare_s=verdict.prepare_s, call_s=verdict.call_s, mismatch=mismatch, outputs=outputs
        )
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


def spec_problems(kernels: Iterable[Kernel]) -> dict[str, str]:
    """``spec_problem`` of each kernel, only those with one: {kernel id: line}."""
    found = {kernel.id: spec_problem(kernel) for kernel in kernels}
    return {kid: line for kid, line in found.items() if line}


def plugin_spec_problems(registry: Registry, patterns: Sequence[str]) -> dict[str, str]:
    """What a run checks before its workers start: the specs of the selected kernels of plugins from outside
    swarbench. The built-in suites' own tests hold their references to their known answers, and two of those
    references take seconds on them (Knuth's 4p6c game, the royal-flush equity), which every run would repeat."""
    return spec_problems(
        kernel
        for kid, kernel in sorted(registry.kernels.items())
        if matches(kid, patterns) and not registry.is_builtin(kid)
    )
