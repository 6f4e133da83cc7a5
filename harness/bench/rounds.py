"""How many rounds of how many calls a case is timed for, and how those rounds are dealt out over the passes.

Rounds and iterations come from the verification call's duration instead of pytest-benchmark's calibration: a
pure-Python batch of a million operations takes a second, and calibration would run it several more times
before measuring (docs/measurement.md). Standard library only: the light pytest plugin reads SHORT_BATCH_S.
"""

from __future__ import annotations

import math
import time
from typing import Callable, NamedTuple, Optional

from swarbench.bench.options import SHORT_BATCH_S

ROUND_TARGET_S = 1e-3  # a round at least this long keeps timer resolution (<100 ns) under 0.01% of it
WARMUP_BELOW_S = 0.05  # a batch this short is prepared again each pass and sized from a few steady calls
PASS_WARMUP_BELOW_S = 0.02  # a pass warms a batch up below this (below oracle.LONG_BATCH_S for its first call)
MAX_ROUNDS = 100_000


class Budget(NamedTuple):
    """What a worker may spend on a case: pytest-benchmark's time and round limits, and the short-batch floor."""

    max_time_s: float
    min_rounds: int
    short_rounds: int


class RoundPlan(NamedTuple):
    """A case's timing plan: its steady call duration, calls per round, and the rounds of each pass."""

    call_s: float
    iterations: int
    per_pass: tuple[int, ...]  # rounds timed in pass 1, 2, ...; a pass with none times nothing

    @property
    def batch_s(self) -> float:
        return self.call_s * self.iterations


def plan(call_s: float, budget: Budget, passes: int, samples_taken: int = 0) -> RoundPlan:
    """Rounds and iterations for a batch whose steady call takes ``call_s``, less the ``samples_taken`` already
    (a long batch's verification call), dealt out over ``passes``."""
    iterations = max(1, math.ceil(ROUND_TARGET_S / call_s))
    rounds = max(budget.min_rounds, min(MAX_ROUNDS, math.ceil(budget.max_time_s / (call_s * iterations))))
    if call_s * iterations < SHORT_BATCH_S:
        rounds = max(rounds, budget.short_rounds)
    return RoundPlan(call_s, iterations, deal(rounds - samples_taken, passes))


def deal(rounds: int, passes: int) -> tuple[int, ...]:
    """Pass i times the rounds that fall in its stretch of [0, rounds): fewer rounds than passes land in passes
    spread over the run (3 of 8: passes 3, 6 and 8), not in the first few."""
    return tuple((i + 1) * rounds // passes - i * rounds // passes for i in range(passes))


def steady_call_s(
    batch: Callable[[], object], first_call_s: float, check: Optional[Callable[[object], None]] = None
) -> float:
    """A first call pays for page faults and cold caches; a few more calls (at most ~20 ms of them) show the
    steady duration that rounds and iterations should be sized by. Long batches keep the first figure.
    ``check``, given, is handed each call's outputs after its timing (swarbench.bench.spot_checks)."""
    if not first_call_s < WARMUP_BELOW_S:
        return max(first_call_s, 1e-9)
    best, spent = first_call_s, 0.0
    for _ in range(10):
        t0 = time.perf_counter()
        out = batch()
        took = time.perf_counter() - t0
        if check is not None:
            check(out)
        del out
        best, spent = min(best, took), spent + took
        if spent > 0.02:
            break
    return max(best, 1e-9)
