"""The canary: one fixed piece of work, timed just before and just after every pass of every case, that says how
fast the machine itself was while those samples were taken.

On a shared machine (a cloud VM, a CI runner) a neighbour can slow every core for seconds at a time, and every
case timed meanwhile is slowed with it. A pass of a case lasts milliseconds, so the two readings that
bracket it say whether the machine was slowed during it. Each result line carries its passes' readings
(``pass_canary_s``); the results set aside the samples of passes the machine slowed before taking medians
(``results.merge_records``), turn all readings into the share of the run the machine was slowed
(``results.machine_steadiness``), and ``swarbench compare`` sets two runs' canaries side by side, so a run slowed
from start to end, which no reading inside it can show, is seen against another.

A multi-threaded batch also runs on CPUs this reading does not see; it is judged by the worker's own CPU like any
other, and ``results.two_speeds`` flags the passes another CPU's slow spells split into two speeds. Reading every
CPU instead set aside most of their samples and made their medians less repeatable (docs/measurement.md).

The work is a few NumPy integer operations over an array that stays in L1: no memory traffic, no allocation
(every operation writes into a buffer made here once), the same instructions on every call. The best of a few
repeats is kept, so an interrupt in one of them is not taken for a slow machine.
"""

from __future__ import annotations

import math
import time

import numpy as np

from swarbench.memory import aligned_copy, aligned_empty

REUSE_S = 0.05  # a reading this recent still stands: a pass that starts as the last one ended shares its reading
REPEATS = 3
ROUNDS = 40

# On cache lines: left where malloc puts them, the same work reads differently by the arrays' offsets, and one
# limit for the whole run (results.slowed_limit) would call one worker's passes slowed more readily than another's.
_x = aligned_copy(np.arange(2048, dtype=np.uint64))
_t = aligned_empty(_x.shape, _x.dtype)


def _work() -> None:
    for _ in range(ROUNDS):
        np.right_shift(_x, np.uint64(7), out=_t)
        np.bitwise_xor(_x, _t, out=_x)
        np.add(_x, np.uint64(0x9E3779B97F4A7C15), out=_x)


def time_once() -> float:
    """Seconds of the canary's work, the best of ``REPEATS``."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        _work()
        best = min(best, time.perf_counter() - start)
    return best


class Reader:
    """The canary's time now, for a worker to take on either side of a pass, never inside a timed call. A
    reading taken up to REUSE_S ago still stands, so a pass that starts right after another ended shares it."""

    def __init__(self):
        self._ended = -math.inf  # when the last reading ended (time.perf_counter)
        self._seconds = math.nan
        time_once()  # its first reading in a process is cold (NumPy's ufunc set-up, caches): not one to keep

    def read(self) -> float:
        if time.perf_counter() - self._ended > REUSE_S:
            self._seconds = time_once()
            self._ended = time.perf_counter()
        return self._seconds
