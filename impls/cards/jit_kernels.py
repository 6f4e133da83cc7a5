"""The numba kernels behind jit.py, module-level functions compiled with ``cache=True``.

Module level because numba cannot cache a ``parallel=True`` function defined in a closure ("uses dynamic
globals"): here every function is compiled once per machine and loaded from ``__pycache__`` by later workers.
Importing this module imports numba; jit.py imports it from ``prepare`` only.
"""

import numba
import numpy as np

from .spec import HIGH

H = np.uint64(HIGH)  # a global: frozen into the compiled code as a constant


@numba.njit(cache=True, nogil=True)
def contains_loop(a, b, out):
    for j in range(a.shape[0]):
        ok = True
        for i in range(1, 16):
            if a[j, i] < b[j, i]:
                ok = False
                break
        out[j] = ok
    return out


@numba.njit(cache=True, nogil=True)
def remove_loop(a, b, out):
    for j in range(a.shape[0]):
        acc = np.uint64(0)
        for i in range(1, 16):
            acc |= np.uint64(a[j, i] - b[j, i]) << np.uint64(4 * i)
        out[j] = acc
    return out


@numba.njit(cache=True, nogil=True)
def contains_swar(a, b, out):
    for j in range(a.shape[0]):
        out[j] = (((a[j] | H) - b[j]) & H) == H
    return out


@numba.njit(cache=True, nogil=True)
def remove_swar(a, b, out):
    for j in range(a.shape[0]):
        out[j] = a[j] - b[j]
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def split_swar(a, b, out, shares, remove):
    """contains_swar (or, with ``remove``, remove_swar) over one contiguous share of the pairs per thread.

    ``shares`` is numba's thread count, passed in: a function that asks numba for it cannot be cached. Each share
    is the one-core loop, which LLVM vectorizes; a prange straight over the pairs would hand numba's scheduler a
    million iterations to divide. One driver serves both kernels (numba compiles it per output type)."""
    n = a.shape[0]
    for t in numba.prange(shares):
        lo, hi = t * n // shares, (t + 1) * n // shares
        if remove:
            remove_swar(a[lo:hi], b[lo:hi], out[lo:hi])
        else:
            contains_swar(a[lo:hi], b[lo:hi], out[lo:hi])
    return out
