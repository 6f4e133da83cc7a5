"""A kernel's spec with every hook guarded: what its generator, reference, validate, compare, describe_input,
summarize, known_answers or a workload's published outputs do wrong (raise, or return what the hook's contract
does not allow) is a SpecError that names the kernel and the hook, so a run blames the spec once instead of
reporting every implementation of the kernel as broken.

``guarded(kernel)`` is the kernel with its hooks wrapped; a worker and the run's check of plugin specs use it.
A fault of ``describe_input`` (called only to word a mismatch) does not stop the check it words: the input is
named by its index and the fault is kept in ``faults(kernel)`` for the run to report once.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, Callable, Mapping

from swarbench.errors import raise_if_interrupted
from swarbench.model import InvalidInput, Kernel, KnownAnswer, Mismatch


SPEC_ROW = "(kernel spec)"  # the implementation column of the row that blames a kernel's spec


class SpecError(Exception):
    """A hook of a kernel's spec failed: the kernel's fault, not an implementation's."""

    def __init__(self, kernel: str, hook: str, what: str):
        super().__init__(f"kernel {kernel}'s spec is wrong: its {hook} {what}")
        self.kernel, self.hook = kernel, hook


def describe(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {first[0] if first else ''}"


def kind_of(value: Any) -> str:
    """'None', 'a list', 'an int': what a hook gave back, for a one-line error."""
    name = type(value).__name__
    return "None" if value is None else f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _call(kernel: str, hook: str, function: Callable, *args):
    try:
        return function(*args)
    except SpecError:
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit and classes of its own too: the spec's code, not the run's
        raise_if_interrupted(exc)
        raise SpecError(kernel, hook, f"raised {describe(exc)}") from exc


_FAULTS: dict[str, list[SpecError]] = {}


def faults(kernel_id: str) -> list[SpecError]:
    """Faults of a kernel's describe_input met since the last call, taken (each is reported once)."""
    return _FAULTS.pop(kernel_id, [])


def guarded(kernel: Kernel) -> Kernel:
    """``kernel`` with every hook guarded (see the module's doc); guarding twice changes nothing."""
    if getattr(kernel, "_guarded", False):
        return kernel
    kid = kernel.id

    def reference(inputs):
        out = _call(kid, "reference", kernel.reference, inputs)
        if out is None:
            raise SpecError(kid, "reference", "returned None, not the outputs")
        return out

    def known_answers():
        answers = _call(kid, "known_answers()", kernel.known_answers)
        try:
            answers = list(answers)
        except TypeError:
            raise SpecError(kid, "known_answers()", f"returned {kind_of(answers)}, not a list of KnownAnswer") from None
        odd = next((a for a in answers if not isinstance(a, KnownAnswer)), None)
        if odd is not None:
            raise SpecError(kid, "known_answers()", f"returned {kind_of(odd)} among its answers, not a KnownAnswer")
        return answers

    def validate(inputs):
        try:
            return _call(kid, "validate", kernel.validate, inputs)
        except SpecError as exc:
            cause = exc.__cause__
            if isinstance(cause, InvalidInput):
                raise SpecError(kid, "validate", f"refuses inputs of its own making: {cause}") from cause
            raise

    def compare(expected, got, inputs):
        found = _call(kid, "compare", kernel.compare, expected, got, inputs)
        if found is not None and not isinstance(found, Mismatch):
            raise SpecError(kid, "compare", f"returned {kind_of(found)}, not a Mismatch or None")
        return found

    def describe_input(inputs, i):
        try:
            text = kernel.describe_input(inputs, i)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise_if_interrupted(exc)
            _FAULTS.setdefault(kid, []).append(SpecError(kid, "describe_input", f"raised {describe(exc)}"))
            return f"#{i} (the kernel's describe_input failed)"
        return text if isinstance(text, str) else str(text)

    def summarize(outputs):
        summary = _call(kid, "summarize", kernel.summarize, outputs)
        if not isinstance(summary, Mapping):
            raise SpecError(kid, "summarize", f"returned {kind_of(summary)}, not a dict of figures")
        return summary

    kinds = [
        dataclasses.replace(kind, build=_guarded_build(kid, kind), expected=_guarded_expected(kid, kind))
        for kind in kernel.workloads
    ]
    out = dataclasses.replace(
        kernel,
        reference=reference,
        known_answers=known_answers,
        validate=validate,
        describe_input=describe_input,
        workloads=kinds,
        compare=compare if kernel.compare is not None else None,
        summarize=summarize if kernel.summarize is not None else None,
    )
    object.__setattr__(out, "_guarded", True)
    return out


def _guarded_build(kid: str, kind):
    hook = f"workload {kind.name}'s generator"

    def build(*args):
        built = _call(kid, hook, kind.build, *args)
        if not (isinstance(built, (tuple, list)) and len(built) == 2):
            raise SpecError(kid, hook, f"returned {kind_of(built)}, not (inputs, number of operations)")
        inputs, n = built
        if not operations(n):
            raise SpecError(
                kid, hook, f"returned {n!r} as its number of operations: a batch has a whole number of them, at least 1"
            )
        return inputs, int(n)

    return build


def _guarded_expected(kid: str, kind):
    if kind.expected is None:
        return None
    hook = f"workload {kind.name}'s published outputs (expected)"

    def expected(inputs):
        out = _call(kid, hook, kind.expected, inputs)
        if out is None:
            raise SpecError(kid, hook, "returned None")
        return out

    return expected


def operations(n: Any) -> bool:
    """Whether ``n`` is a number of operations a batch can have: a whole number, 1 or more."""
    if isinstance(n, bool) or not isinstance(n, numbers.Real):
        return False
    value = float(n)
    return math.isfinite(value) and value.is_integer() and value >= 1


def parse_parameter(kid: str, kind, name: str, text: str) -> Any:
    """A workload parameter's ``parse``: InvalidInput is the user's bad value; anything else the spec's fault."""
    try:
        return kind.parameters[name].parse(text)
    except InvalidInput:
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        raise_if_interrupted(exc)
        raise SpecError(kid, f"parameter {name}'s parse", f"raised {describe(exc)} on {text!r}") from exc


__all__ = ["SPEC_ROW", "SpecError", "faults", "guarded", "operations", "parse_parameter"]
