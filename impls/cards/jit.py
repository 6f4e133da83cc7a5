"""Numba families: the post's loop over 16 counts, and SWAR over uint64, compiled to machine code.

numba is imported inside ``prepare`` so that listing and other families work where numba is missing; the
first compile happens there too (on a one-element batch), never inside the timed call. ``numba-swar-prange``
splits a batch into one contiguous share per core with ``prange`` from the size at which the C ``-mt``
variants split theirs (native.SPLIT_MIN_PAIRS), and runs the one-core loop below it.
"""

import numpy as np

from swarbench.memory import aligned_copy, aligned_empty
from swarbench.model import Implementation
from swarbench.prebuild import build_by_preparing

from .native import SPLIT_MIN_PAIRS  # one threshold for every split variant of the suite
from .spec import KERNELS, counts_of


def _kernels():
    from . import jit_kernels  # imports numba: only from prepare

    return jit_kernels


def _family(name, layout, out_dtype, split=False):
    def prepare(workload):
        n, kernels = len(workload.inputs["a"]), _kernels()
        if layout == "counts":  # the post's [16]int, one row per hand
            a = aligned_copy(counts_of(workload.inputs["a"]))
            b = aligned_copy(counts_of(workload.inputs["b"]))
        else:
            a, b = workload.inputs["a"], workload.inputs["b"]
        out = aligned_empty(n, out_dtype)
        if split and n >= SPLIT_MIN_PAIRS:
            # positional arguments all bound here: the timed call goes straight to the compiled function
            fn, extra = kernels.split_swar, (kernels.numba.get_num_threads(), name == "remove_swar")
        else:
            fn, extra = getattr(kernels, name), ()
        fn(a[:1], b[:1], out[:1], *extra)  # JIT compile for these argument types, outside the timed call

        def batch():
            return fn(a, b, out, *extra)

        return batch

    return prepare


_NUMBA = ("module:numba",)
IMPLEMENTATIONS = [
    Implementation(
        "cards.contains",
        "numba-loop",
        "numba",
        _family("contains_loop", "counts", np.bool_),
        requires=_NUMBA,
        description="loop over 16 int64 counts per hand",
    ),
    Implementation(
        "cards.contains",
        "numba-swar",
        "numba",
        _family("contains_swar", "packed", np.bool_),
        requires=_NUMBA,
        description="SWAR over uint64",
    ),
    Implementation(
        "cards.contains",
        "numba-swar-prange",
        "numba",
        _family("contains_swar", "packed", np.bool_, split=True),
        requires=_NUMBA,
        description=f"SWAR over uint64, a share per core by prange from {SPLIT_MIN_PAIRS:,} pairs",
    ),
    Implementation(
        "cards.remove",
        "numba-swar-prange",
        "numba",
        _family("remove_swar", "packed", np.uint64, split=True),
        requires=_NUMBA,
        description=f"a - b over uint64, a share per core by prange from {SPLIT_MIN_PAIRS:,} pairs",
    ),
    Implementation(
        "cards.remove",
        "numba-loop",
        "numba",
        _family("remove_loop", "counts", np.uint64),
        requires=_NUMBA,
        description="loop over 16 int64 counts per hand, packed on the way out",
    ),
    Implementation(
        "cards.remove",
        "numba-swar",
        "numba",
        _family("remove_swar", "packed", np.uint64),
        requires=_NUMBA,
        description="a - b over uint64",
    ),
]
IMPLEMENTATIONS = build_by_preparing(IMPLEMENTATIONS, KERNELS)  # compiled in the run's build step
