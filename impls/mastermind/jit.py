"""Numba families: pin-by-pin loops, SWAR on the packed words, and byte-sliced rows (one byte array per pin and
per color count across codewords, so LLVM vectorises the loops over secrets). The kernels are in jit_kernels.py.

numba is imported inside ``prepare`` (via ``_kernels``) so listing and other families work without it; the first
compile (or the load from numba's cache) happens there too, on a one-element batch, never inside the timed call.
"""

import numpy as np

from swarbench.memory import aligned_copy, aligned_empty
from swarbench.model import Implementation
from swarbench.prebuild import build_by_preparing

from .spec import KERNELS, color_counts, cross_parts, digits, parts_batch
from .vectorized import count_words


def _kernels():
    """The compiled kernels (jit_kernels.py, cached on disk by numba): imported here, never at listing time."""
    from . import jit_kernels

    return jit_kernels


def _args(kind, inp):
    """The kernel's arguments for the workload's layout, built outside the timed call."""
    p, c, s, g = inp["pins"], inp["colors"], inp["secrets"], inp["guesses"]
    if kind == "naive":
        return (s, g, p, c)
    if kind == "swar":
        unused = np.int64((0xFFFFFFFF << (4 * p)) & 0xFFFFFFFF)
        return (s, aligned_copy(count_words(s, p)), g, aligned_copy(count_words(g, p)), unused)
    sp, scn = aligned_copy(digits(s, p).T), aligned_copy(color_counts(s, p).T)
    if inp["cross"]:  # the pin count as a tuple's length: a compile-time constant of the kernel (fused_row)
        return (sp, scn, digits(g, p), color_counts(g, p), tuple(range(p)))
    return (sp, scn, aligned_copy(digits(g, p).T), aligned_copy(color_counts(g, p).T), c)


def _tiny(inp):
    one = inp["secrets"][:1]
    return dict(inp, secrets=one, guesses=one)


GUESS_ARGS = {"naive": (1,), "swar": (2, 3), "sliced": (2, 3)}  # the cross arguments indexed by guess


def _parts(kind, inp, args, out):
    """(arguments, scores done) per part: one part, or for a huge cross one per range of guesses."""
    if not inp["cross"]:
        return [(args + (out,), len(out))]
    S = len(inp["secrets"])
    parts = []
    for lo, hi in cross_parts(len(inp["guesses"]), S):
        a = tuple(x[lo:hi] if k in GUESS_ARGS[kind] else x for k, x in enumerate(args))
        parts.append((a + (out[lo * S : hi * S],), hi * S))
    return parts


def _family(kind):
    def prepare(workload):
        inp = workload.inputs
        fn = getattr(_kernels(), f"{kind}_{'cross' if inp['cross'] else 'pairs'}")
        fn(*_args(kind, _tiny(inp)), np.empty(1, np.uint8))  # compile for these types, outside the timed call
        out = aligned_empty(len(inp["secrets"]) * (len(inp["guesses"]) if inp["cross"] else 1), np.uint8)
        return parts_batch(fn, _parts(kind, inp, _args(kind, inp), out), len(out), out)

    return prepare


_NUMBA = ("module:numba",)
IMPLEMENTATIONS = [
    Implementation(
        "mastermind.score",
        "numba-naive",
        "numba",
        _family("naive"),
        requires=_NUMBA,
        description="pin-by-pin loops, every color counted in both codewords",
    ),
    Implementation(
        "mastermind.score",
        "numba-swar",
        "numba",
        _family("swar"),
        requires=_NUMBA,
        description="nibble zero test, byte-wise SWAR min over two uint64 count words",
    ),
    Implementation(
        "mastermind.score",
        "numba-sliced",
        "numba",
        _family("sliced"),
        requires=_NUMBA,
        description="byte-sliced: one byte array per pin and color, vectorised over secrets; a cross "
        "scores each guess in one pass over its pins and its own colors",
    ),
]
IMPLEMENTATIONS = build_by_preparing(IMPLEMENTATIONS, KERNELS)  # compiled in the run's build step
