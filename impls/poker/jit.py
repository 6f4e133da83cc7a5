"""Numba family: the SWAR evaluator compiled to machine code; ``prange`` spreads batches and boards over cores.

The jitted functions live in jit_kernels.py (module level, ``cache=True``: compiled once per machine, loaded by every
later worker). That module imports numba, so it is imported here only from ``prepare``, where the first call on
a tiny input loads or compiles each function, never inside the timed call.

One core and both: the equity drivers come in two builds over the same per-board function, a plain loop
(numba-talk-hoisted) and a ``prange`` loop (numba-talk-hoisted-prange). The plain loop is the one-core figure
rather than the prange driver under ``numba.set_num_threads(1)``: it wakes no thread pool and reduces nothing
across threads, so it is the per-board cost alone; and numba's thread count is state of the calling thread, kept
by every later case of the worker, so one case would have to set it and restore it inside its timed call.
"""

from __future__ import annotations

import numpy as np

from swarbench.memory import aligned_empty, as_aligned
from swarbench.model import Implementation, TooSlow
from swarbench.prebuild import build_by_preparing

from . import blocks, spec, versus

_warm: set = set()


def frozen(*values) -> np.ndarray:
    """A read-only uint64 array, as a run hands over its inputs: numba compiles a read-only array apart from a
    writable one, so a warm-up on writable inputs would leave the timed call's types uncompiled."""
    array = np.array(values, np.uint64)
    array.setflags(write=False)
    return array


def compiled(name: str):
    """One jitted function of jit_kernels.py, loaded (or compiled) on a tiny input the first time it is asked for."""
    from . import jit_kernels

    fn = getattr(jit_kernels, name)
    if name not in _warm:
        if name.startswith("equity"):
            fn(np.uint64(3 << 48), frozen(0x1F), *scratch(1))
        elif name == "categories7":
            fn(1, 7)  # the seven lowest cards: one hand
        elif name.startswith("versus"):  # two hands and a dealt board: one board to score
            hands, acc = frozen(0x3, 0x30), np.zeros((2, 3), np.int64)
            if name == "versus_boards":
                fn(hands, frozen(0x1F00), acc)
            else:
                fn(hands, np.uint64(0x1F00), acc)
        elif name.startswith("rank_batch"):
            fn(frozen(0x7F), np.empty(1, np.int64))
        _warm.add(name)
    return fn


def _rank7(parallel):
    def prepare(workload):
        if workload.inputs.get("exhaustive"):
            if not parallel:
                raise TooSlow("133,784,560 hands on one thread: the prange variant enumerates them")
            import numba

            fn, threads = compiled("categories7"), numba.get_num_threads()
            return lambda: fn(threads, 52)
        fn = compiled("rank_batch_prange" if parallel else "rank_batch")
        hands = as_aligned(workload.inputs["hands"])
        out = aligned_empty(len(hands), np.int64)
        return lambda: fn(hands, out)

    return prepare


def scratch(rows: int):
    """per slice of boards, a row for each free card's rank nibble and one for its rank bit in the flush suit"""
    return np.zeros((rows, 64), np.uint64), np.zeros((rows, 64), np.int64)


def _equity(name, parallel):
    def prepare(workload):
        fn = compiled(name)
        boards = as_aligned(workload.inputs["boards"])
        hero = np.uint64(workload.inputs["hero"])
        if parallel:
            import numba

            nib, rbit = scratch(numba.get_num_threads())
        else:
            nib, rbit = scratch(1)
        return lambda: fn(hero, boards, nib, rbit)

    return prepare


def _versus(name):
    def prepare(workload):
        fn = compiled(name if workload.inputs.get("full") else "versus_boards")
        hands = np.asarray(workload.inputs["hands"], np.uint64)
        acc = np.zeros((len(hands), 3), np.int64)
        if workload.inputs.get("full"):
            known = np.uint64(workload.inputs["known"])

            def batch():
                acc[:] = 0
                return fn(hands, known, acc).copy()
        else:
            boards = as_aligned(workload.inputs["boards"])

            def batch():
                acc[:] = 0
                return fn(hands, boards, acc).copy()

        return batch

    return prepare


VERSUS = [
    Implementation(
        "poker.versus",
        "numba-versus",
        "numba",
        _versus("versus_all"),
        ("module:numba",),
        "the SWAR evaluator jitted, every hand on every board; the full enumeration walks its boards",
    ),
    Implementation(
        "poker.versus",
        "numba-versus-prange",
        "numba",
        _versus("versus_all_prange"),
        ("module:numba",),
        "the same, the first board card dealt out over every core by prange (a slice: one thread)",
    ),
]

HOISTED = (
    "the talk's 990 classifications per board, each from the board's rank counts plus two nibbles, "
    "flushes only where the board allows one"
)
IMPLEMENTATIONS = [
    Implementation(
        "poker.rank7",
        "numba-swar",
        "numba",
        _rank7(False),
        ("module:numba",),
        "the SWAR evaluator compiled by numba; one thread",
    ),
    Implementation(
        "poker.rank7",
        "numba-swar-prange",
        "numba",
        _rank7(True),
        ("module:numba",),
        "the SWAR evaluator with prange over the batch",
    ),
    Implementation(
        "poker.equity",
        "numba-talk-hoisted",
        "numba",
        _equity("equity_hoisted", False),
        ("module:numba",),
        HOISTED + "; one thread, a plain loop over the boards",
    ),
    Implementation(
        "poker.equity",
        "numba-talk-hoisted-prange",
        "numba",
        _equity("equity_hoisted_prange", True),
        ("module:numba",),
        HOISTED + "; prange over the boards",
    ),
]


# -- the talk's building blocks (blocks.py): SWAR batch loops over the same arrays ------------------------------
def _block(name, keys, dtype, per=1, params=()):
    """prepare for a block kernel: ``name(*inputs[keys], out, *params)`` fills ``out`` (one item per element
    of the input arrays); a param is an input key or a literal. The first call, on the first item only, loads
    or compiles it here."""

    def prepare(workload):
        from . import jit_kernels

        fn = getattr(jit_kernels, name)
        arrays = [as_aligned(workload.inputs[k]) for k in keys]
        out = aligned_empty((len(arrays[0]), per) if per > 1 else len(arrays[0]), dtype)
        args = [workload.inputs[p] if isinstance(p, str) else p for p in params]
        fn(*(a[:1] for a in arrays), out[:1], *args)
        return lambda: fn(*arrays, out, *args)

    return prepare


def _strlen(workload):
    """the buffer zero padded to whole words (its last word all padding, so every scan stops) and viewed as
    uint64: the word loads are plain array reads"""
    from . import jit_kernels

    raw, offsets = workload.inputs["buffer"], as_aligned(workload.inputs["offsets"])
    buf = np.zeros((len(raw) + 15) // 8 * 8, np.uint8)
    buf[: len(raw)] = raw
    words = buf.view(np.uint64)
    out = np.empty(len(offsets), np.int64)
    jit_kernels.strlen_words(buf, words, offsets[:1], out[:1])
    return lambda: jit_kernels.strlen_words(buf, words, offsets, out)


def _subsets(workload):
    from . import jit_kernels

    n, k = workload.inputs["n"], workload.inputs["k"]
    out = np.empty(workload.size, np.uint64)
    jit_kernels.subsets_gosper(n, k, out[:1])
    return lambda: out[: jit_kernels.subsets_gosper(n, k, out)]


def _numba_block(kernel, name, prepare, description):
    return Implementation(kernel, name, "numba", prepare, ("module:numba",), description)


BLOCKS = [
    _numba_block(
        "poker.popcount",
        "numba-swar",
        _block("popcount_lanes", ("words",), np.uint64, params=("width",)),
        "the SWAR popcount levels up to the lane width, one compiled loop per width",
    ),
    _numba_block(
        "poker.rank_counts",
        "numba-swar",
        _block("popcount_lanes", ("hands",), np.uint64, params=(4,)),
        "the first two SWAR popcount levels",
    ),
    _numba_block(
        "poker.greater_equal",
        "numba-swar",
        _block("greater_equal", ("counts",), np.uint64, 4),
        "set the top bits, subtract N, keep the top bits",
    ),
    _numba_block(
        "poker.straights",
        "numba-chain",
        _block("straights_chain", ("masks",), np.uint32),
        "the addition chain: three shift-AND pairs",
    ),
    _numba_block(
        "poker.straights", "numba-shift5", _block("straights_shift5", ("masks",), np.uint32), "five shifts and ANDs"
    ),
    _numba_block("poker.next_subset", "numba-gosper", _subsets, "Gosper's hack"),
    _numba_block(
        "poker.deposit",
        "numba-loop",
        _block("deposit_loop", ("values", "masks"), np.uint64),
        "the portable loop, one step per set bit of the mask (numba has no pdep)",
    ),
    _numba_block("poker.atoi8", "numba-swar", _block("atoi8", ("words",), np.uint32), "three multiply-add-mask steps"),
    _numba_block(
        "poker.strlen",
        "numba-swar",
        _strlen,
        "a word at a time by the zero-byte test, the zero's byte counted by one multiplication",
    ),
]

# compiled in the run's build step
_ALL_KERNELS = spec.KERNELS + blocks.KERNELS + [versus.VERSUS]
IMPLEMENTATIONS = build_by_preparing(IMPLEMENTATIONS, _ALL_KERNELS)
VERSUS = build_by_preparing(VERSUS, _ALL_KERNELS)
BLOCKS = build_by_preparing(BLOCKS, _ALL_KERNELS)
