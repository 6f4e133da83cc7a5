"""The canary: one fixed piece of work, timed now and then while a run measures, that says how fast the machine
itself was at that moment.

On a shared machine (a cloud VM, a CI runner) a neighbour can slow both our cores by 1.5x for seconds at a time,
and every case timed meanwhile is slowed with it; nothing inside the run can undo that. The canary makes it
visible: its timings go to the record file, the results turn them into the share of the run the machine was
slowed (``results.machine_steadiness``), and ``swarbench compare`` sets two runs' canaries side by side, so a
change that is the machine's own can be told from one that is an implementation's.

The work is a few NumPy integer operations over an array that stays in L1: no memory traffic, no allocation
(every operation writes into a buffer made here once), the same instructions on every call. The best of a few
repeats is kept, so an interrupt in one of them is not taken for a slow machine.
"""
from __future__ import annotations

import time

import numpy as np

EVERY_S = 0.25  # at most one canary this often: about a hundred in a default worker, 0.1 s of its time
REPEATS = 3
ROUNDS = 40

_x = np.arange(2048, dtype=np.uint64)
_t = np.empty_like(_x)


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
