"""cards.contains implementations wrong on some of their calls, or doing no work in their calls: each is chosen
with --impl NAME. None of them may be ranked."""

import numpy as np

from swarbench import Implementation, hookimpl
from swarbench.suites.cards.spec import reference_contains
from swarbench.suites.cards.vectorized import IMPLEMENTATIONS

NUMPY_SWAR = next(i for i in IMPLEMENTATIONS if i.kernel == "cards.contains").prepare  # right, and quick


def wrong_when(rule):
    """Right except on the calls (counted from 1 for each preparation) ``rule`` picks."""

    def prepare(workload):
        right, calls = NUMPY_SWAR(workload), [0]

        def batch():
            calls[0] += 1
            out = right()
            return ~out if rule(calls[0]) else out

        return batch

    return prepare


def copy_kept(workload):
    """The answers computed in prepare, copied out in each call."""
    answer = reference_contains(workload.inputs)
    return lambda: answer.copy()


def kept_array(workload):
    """The answers computed in prepare, the same array returned by each call."""
    answer = reference_contains(workload.inputs)
    return lambda: answer


def view_kept(workload):
    answer = reference_contains(workload.inputs)
    return lambda: answer[:]


def readonly_kept(workload):
    """Kept answers it made read-only, so that nobody writes over them."""
    answer = reference_contains(workload.inputs)
    answer.setflags(write=False)
    return lambda: answer.copy()


def widened_kept(workload):
    """Kept as uint8, returned as bool."""
    answer = reference_contains(workload.inputs).astype(np.uint8)
    return lambda: answer.astype(bool)


def list_kept(workload):
    answer = reference_contains(workload.inputs).tolist()
    return lambda: list(answer)


_KEPT = {}


def global_kept(workload):
    """The answers in a module global, which the batch reads by name."""
    _KEPT[workload.size] = reference_contains(workload.inputs)
    return lambda: _KEPT[workload.size].copy()


def lazy_kept(workload):
    """Computes its answers in its first call and copies them out after."""
    inputs, kept = workload.inputs, []

    def batch():
        if not kept:
            kept.append(reference_contains(inputs))
        return kept[0].copy()

    return batch


class Holder:
    def __init__(self, workload):
        self.answer = reference_contains(workload.inputs)

    def batch(self):
        return np.array(self.answer)


FAULTS = {
    "every-third": wrong_when(lambda call: call % 3 == 0),
    "calls-3-to-9": wrong_when(lambda call: 3 <= call <= 9),
    "after-40": wrong_when(lambda call: call > 40),
    "every-7th-late": wrong_when(lambda call: call > 20 and call % 7 == 0),
    "right": wrong_when(lambda call: False),
    "copy-kept": copy_kept,
    "kept-array": kept_array,
    "view-kept": view_kept,
    "readonly-kept": readonly_kept,
    "widened-kept": widened_kept,
    "list-kept": list_kept,
    "global-kept": global_kept,
    "lazy-kept": lazy_kept,
    "method-kept": lambda workload: Holder(workload).batch,
}


@hookimpl
def swarbench_add_implementations(registry):
    for name, prepare in FAULTS.items():
        registry.add_implementation(Implementation("cards.contains", name, "python-fault", prepare))
