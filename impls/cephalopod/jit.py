"""Numba family: breadth-first over packed 32-bit boards with an open-addressing hash table.

Each layer is a board array and a count array (one count per board for ``numba-bfs``; eight orientation counts
per canonical board for ``numba-sym``), counts wrapping modulo 2^32 (exact modulo 2^30). The next layer is built
through a power-of-two table of indexes (0 = empty slot, linear probing, the write-up's multiplicative hash),
doubled whenever it gets half full. Tables come from tables.flat_tables(). numba is imported inside ``prepare``;
the first compile happens there on a small case, outside the timed call. The kernels live at module level in
jit_kernels.py with ``cache=True``, so a machine compiles once and later workers load them from numba's cache.
``numba-fast`` is c/fast.c's search (tagged table, last two layers summed) in Numba.
"""
import numpy as np

from harness.model import Implementation

from . import tables
from .spec import run_cases


def _solver():
    from .jit_kernels import solve_layers  # imports numba: only when a numba family is prepared

    return solve_layers


def _family(nc):
    def prepare(workload):
        solve = _solver()
        a = {k: v.astype(np.int64) if v.dtype == np.int32 else v for k, v in tables.flat_tables().items()}
        moves = a["moves"].astype(np.int64)
        hashes = a["hash3"].astype(np.int64)
        hash8 = a["hash8"].astype(np.int64)
        args = (moves, a["base"], a["nbr"].reshape(9, 4), hashes, hash8, a["xform"], a["inverse"],
                a["gather"].reshape(8, 8))
        starts = [np.uint32(tables.pack(c)) for c in workload.inputs["cells"]]
        cases = list(zip((int(d) for d in workload.inputs["depth"]), starts))
        solve(3, np.uint32(tables.pack((0,) * 9)), nc, *args)  # compile outside the timed call

        def batch():
            return run_cases(lambda d, s: solve(d, s, nc, *args), cases)

        return batch

    return prepare


IMPLEMENTATIONS = [
    Implementation("cephalopod.hashsum", "numba-bfs", "numba", _family(1), requires=("module:numba",),
                   description="breadth-first over packed uint32 boards, open addressing with linear probing"),
    Implementation("cephalopod.hashsum", "numba-sym", "numba", _family(8), requires=("module:numba",),
                   description="the same over canonical boards with eight orientation counts; full and "
                               "last-layer boards summed without insertion"),
]


# -- numba-fast: c/fast.c's search in Numba ------------------------------------------------------------------
def _fast_solver():
    from .jit_kernels import solve_fast

    return solve_fast


def _prepare_fast(workload):
    from .native import RESERVE_SLOTS, RESERVE_STATES

    solve = _fast_solver()
    f = tables.fast_tables()
    args = (f["moves"].astype(np.int64), f["base"].astype(np.int64), tables.flat_tables()["nbr"].astype(np.int64),
            f["hash"].astype(np.int64), f["rowhash"].astype(np.int64), f["swap"].astype(np.int64),
            f["perm"].astype(np.int64))
    work = {"size": RESERVE_STATES, "tag": 0}

    def allocate(states):
        work["states"] = np.zeros((2, states), np.int64)
        work["counts"] = np.zeros((2, states, 8), np.int64)
        work["table"] = np.zeros(4 * states, np.int64)
        work["tag"] = 0

    allocate(RESERVE_STATES)

    def one(depth, start):
        while True:
            answer, boards, work["tag"] = solve(depth, start, work["states"], work["counts"], work["table"],
                                                work["tag"], *args)
            if answer >= 0:
                return answer, boards
            allocate(2 * work["states"].shape[1])  # a layer larger than any this search has met: start again

    starts = [tables.pack(c) for c in workload.inputs["cells"]]
    cases = list(zip((int(d) for d in workload.inputs["depth"]), starts))
    # Compile (or load from numba's cache), and grow the workspace to what this workload needs, outside the
    # timed call: a later worker that skips its untimed warm-up on a long batch must not time the growth.
    for depth, start in cases:
        one(depth, start)

    def batch():
        return run_cases(one, cases)

    return batch


IMPLEMENTATIONS.append(Implementation(
    "cephalopod.hashsum", "numba-fast", "numba", _prepare_fast, requires=("module:numba",),
    description="c-fast's search in Numba: workspace made in prepare, table never cleared (layer tags), last two "
                "layers summed from per-row hash changes"))
