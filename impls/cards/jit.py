"""Numba families: the post's loop over 16 counts, and SWAR over uint64, compiled to machine code.

numba is imported inside ``prepare`` so that listing and other families work where numba is missing; the
first compile happens there too (on a one-element batch), never inside the timed call.
"""
import numpy as np

from harness.model import Implementation

from .spec import HIGH, counts_of

_compiled = {}


def _kernels():
    if _compiled:
        return _compiled
    import numba

    h = np.uint64(HIGH)

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
            out[j] = (((a[j] | h) - b[j]) & h) == h
        return out

    @numba.njit(cache=True, nogil=True)
    def remove_swar(a, b, out):
        for j in range(a.shape[0]):
            out[j] = a[j] - b[j]
        return out

    _compiled.update(contains_loop=contains_loop, remove_loop=remove_loop,
                     contains_swar=contains_swar, remove_swar=remove_swar)
    return _compiled


def _family(name, layout, out_dtype):
    def prepare(workload):
        fn = _kernels()[name]
        if layout == "counts":  # the post's [16]int, one row per hand
            a = np.ascontiguousarray(counts_of(workload.inputs["a"]))
            b = np.ascontiguousarray(counts_of(workload.inputs["b"]))
        else:
            a, b = workload.inputs["a"], workload.inputs["b"]
        out = np.empty(len(workload.inputs["a"]), dtype=out_dtype)
        fn(a[:1], b[:1], out[:1])  # JIT compile for these argument types, outside the timed call

        def batch():
            return fn(a, b, out)

        return batch

    return prepare


_NUMBA = ("module:numba",)
IMPLEMENTATIONS = [
    Implementation("cards.contains", "numba-loop", "numba", _family("contains_loop", "counts", np.bool_),
                   requires=_NUMBA, description="loop over 16 int64 counts per hand"),
    Implementation("cards.contains", "numba-swar", "numba", _family("contains_swar", "packed", np.bool_),
                   requires=_NUMBA, description="SWAR over uint64"),
    Implementation("cards.remove", "numba-loop", "numba", _family("remove_loop", "counts", np.uint64),
                   requires=_NUMBA, description="loop over 16 int64 counts per hand, packed on the way out"),
    Implementation("cards.remove", "numba-swar", "numba", _family("remove_swar", "packed", np.uint64),
                   requires=_NUMBA, description="a - b over uint64"),
]
