"""NumPy SWAR: the post's uint64 trick applied to whole arrays at once.

Scratch and output arrays are allocated in ``prepare``, on cache lines like the inputs (swarbench.memory), and
every ufunc writes in place (``out=``), so the timed call allocates nothing.
"""

import numpy as np

from swarbench.memory import aligned_empty
from swarbench.model import Implementation

from .spec import HIGH

H = np.uint64(HIGH)


def _contains(workload):
    a, b = workload.inputs["a"], workload.inputs["b"]
    scratch = aligned_empty(a.shape, a.dtype)
    out = aligned_empty(a.shape, bool)

    def batch():
        np.bitwise_or(a, H, out=scratch)
        np.subtract(scratch, b, out=scratch)
        np.bitwise_and(scratch, H, out=scratch)
        return np.equal(scratch, H, out=out)

    return batch


def _remove(workload):
    a, b = workload.inputs["a"], workload.inputs["b"]
    out = aligned_empty(a.shape, a.dtype)

    def batch():
        return np.subtract(a, b, out=out)

    return batch


IMPLEMENTATIONS = [
    Implementation(
        "cards.contains",
        "numpy-swar",
        "numpy",
        _contains,
        requires=("module:numpy",),
        description="SWAR over uint64 arrays, in-place ufuncs",
    ),
    Implementation(
        "cards.remove",
        "numpy-swar",
        "numpy",
        _remove,
        requires=("module:numpy",),
        description="a - b over uint64 arrays",
    ),
]
