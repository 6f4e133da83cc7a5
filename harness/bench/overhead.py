"""Empty batch calls, one per family of implementation, to show the fixed cost of a call.

Each probe has the call shape of a real batch in that family (a list comprehension in Python, ufuncs with
``out=`` in NumPy, a jitted loop in Numba, a C function through cffi) over zero elements, so its time is what
every batch of that family pays before doing any work. Results carry kernel ``swarbench.overhead``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from swarbench.model import Implementation

KERNEL = "swarbench.overhead"
_EMPTY = np.empty(0, np.uint64)


def _python(_workload):
    items: list = []
    return lambda: [x for x in items]


def _numpy(_workload):
    a, b, out = _EMPTY, _EMPTY.copy(), _EMPTY.copy()
    return lambda: np.subtract(a, b, out=out)


def _numba(_workload):
    import numba

    @numba.njit(nogil=True, cache=True)
    def empty(a, b, out):
        for i in range(a.shape[0]):
            out[i] = a[i] - b[i]
        return out

    a, b, out = _EMPTY, _EMPTY.copy(), _EMPTY.copy()
    empty(a, b, out)  # compile outside the timed call
    return lambda: empty(a, b, out)


def _empty_module():
    from swarbench.cbuild import build

    return build(
        "overhead_empty",
        Path(__file__).parent / "c" / "empty.c",
        "void empty_batch(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n);",
    )


def _cffi(_workload):
    mod = _empty_module()
    fn, null = mod.lib.empty_batch, mod.ffi.NULL
    return lambda: fn(null, null, null, 0)


PROBES = [
    Implementation(KERNEL, "python", "python", _python),
    Implementation(KERNEL, "numpy", "numpy", _numpy, requires=("module:numpy",)),
    Implementation(KERNEL, "numba", "numba", _numba, requires=("module:numba",)),
    Implementation(KERNEL, "cffi", "cffi", _cffi, requires=("cc", "module:cffi"), build=_empty_module),
]
PROBE = {probe.name: probe for probe in PROBES}


def probe_family(family: str) -> str:
    """The probe that measures an implementation family's call cost: 'cffi-avx2' -> 'cffi'."""
    return family.split("-", 1)[0]
