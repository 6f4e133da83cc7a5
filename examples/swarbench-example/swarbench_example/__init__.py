"""An out-of-tree swarbench plugin: a byte-wise NumPy implementation of the built-in ``cards.contains``.

It shows the whole contract: a module with ``@hookimpl`` functions, advertised under the ``swarbench``
entry-point group in pyproject.toml. It only adds an implementation; the kernel (inputs, reference, known
answers) belongs to the built-in cards suite, and swarbench checks this implementation against it before
timing it, like every other.
"""

import numpy as np

from swarbench import Implementation, hookimpl
from swarbench.memory import aligned_empty


def prepare_bytewise(workload):
    """Untimed: view each uint64 hand as 8 bytes, and allocate the scratch and output arrays once."""
    a = workload.inputs["a"].view(np.uint8).reshape(-1, 8)
    b = workload.inputs["b"].view(np.uint8).reshape(-1, 8)
    # on cache lines, like the inputs, so the figure does not depend on where malloc put them
    lo_a, hi_a = aligned_empty(a.shape, np.uint8), aligned_empty(a.shape, np.uint8)
    lo_b, hi_b = aligned_empty(b.shape, np.uint8), aligned_empty(b.shape, np.uint8)
    ok = aligned_empty(a.shape, bool)
    tmp = aligned_empty(a.shape, bool)
    out = aligned_empty(len(a), bool)

    def batch():
        # Each byte holds two kinds: compare the low nibbles and the high nibbles separately.
        np.bitwise_and(a, 15, out=lo_a)
        np.bitwise_and(b, 15, out=lo_b)
        np.right_shift(a, 4, out=hi_a)
        np.right_shift(b, 4, out=hi_b)
        np.greater_equal(lo_a, lo_b, out=ok)
        np.greater_equal(hi_a, hi_b, out=tmp)
        np.logical_and(ok, tmp, out=ok)
        return np.logical_and.reduce(ok, axis=1, out=out)

    return batch


@hookimpl
def swarbench_add_implementations(registry):
    registry.add_implementation(
        Implementation(
            kernel="cards.contains",
            name="example-bytewise",
            family="numpy",
            prepare=prepare_bytewise,
            requires=("module:numpy",),
            description="nibbles compared byte by byte with NumPy (from the example plugin)",
        )
    )
