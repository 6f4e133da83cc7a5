"""Two rows of the built-in ``cards.contains`` that run the same code: ``steady`` always does the same work,
``slowed`` does ``$SWARBENCH_SLOWED`` times as much (1 when unset; 1.25 is 25% more work).

Two runs that differ only in SWARBENCH_SLOWED are an A/B pair with one known change: ``swarbench compare A B``
should call ``slowed`` slower by about the factor and leave ``steady`` and every other row alone. The work is
the same few NumPy operations over the workload's arrays, repeated: the repeats scale the work, and nothing
else (allocation, conversion) happens in the timed call. tools/aa_ab_series.py runs such pairs.
"""

import os

import numpy as np
from swarbench import Implementation, hookimpl
from swarbench.memory import aligned_empty

HIGH = np.uint64(0x8888888888888888)  # the top bit of every nibble (the cards suite's test for "a holds b")
REPEATS = 8  # of the work at factor 1; 10 at 1.25


def repeats(factor: float) -> int:
    """How many times a batch does its work at ``factor``: REPEATS scaled, at least once."""
    return max(1, round(REPEATS * factor))


def factor() -> float:
    """$SWARBENCH_SLOWED as a number; a value that is not one is bad input, said in one line by the oracle."""
    text = os.environ.get("SWARBENCH_SLOWED", "1")
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"SWARBENCH_SLOWED={text!r} is not a number") from None
    if not value > 0:
        raise ValueError(f"SWARBENCH_SLOWED={text!r} must be above 0")
    return value


def prepare(times: int):
    def prepare_rows(workload):
        a, b = workload.inputs["a"], workload.inputs["b"]
        tmp, out = aligned_empty(a.shape, np.uint64), aligned_empty(a.shape, bool)

        def batch():
            for _ in range(times):
                np.bitwise_or(a, HIGH, out=tmp)  # each nibble of a, its top bit set: no borrow crosses nibbles
                np.subtract(tmp, b, out=tmp)
                np.bitwise_and(tmp, HIGH, out=tmp)
                np.equal(tmp, HIGH, out=out)  # every top bit still set: a holds at least b of every kind
            return out

        return batch

    return prepare_rows


def prepare_steady(workload):
    return prepare(repeats(1.0))(workload)


def prepare_slowed(workload):
    return prepare(repeats(factor()))(workload)


@hookimpl
def swarbench_add_implementations(registry):
    for name, prepare_row, what in (
        ("steady", prepare_steady, "always the same work"),
        ("slowed", prepare_slowed, "$SWARBENCH_SLOWED times that work"),
    ):
        registry.add_implementation(
            Implementation(
                kernel="cards.contains",
                name=name,
                family="numpy",
                prepare=prepare_row,
                requires=("module:numpy",),
                description=f"nibble-parallel subtract with NumPy, {what} (the swarbench-slowed example)",
            )
        )
