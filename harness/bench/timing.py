"""Timing a pass: a case between its first and last pass, one pass's share of its rounds timed by
pytest-benchmark, and a short batch prepared again from fresh memory before a later pass."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy

from swarbench import oracle
from swarbench.bench.cases import Case
from swarbench.bench.rounds import PASS_WARMUP_BELOW_S, WARMUP_BELOW_S, RoundPlan
from swarbench.bench.spot_checks import SpotChecks, pedantic_unchecked
from swarbench.model import Workload
from swarbench.runfolder import ResultLine, finite

REPREPARE_BELOW_S = 0.02  # a batch whose preparation takes less is prepared afresh for every pass it is timed in
REPREPARE_SHARE = 0.1  # so is one whose preparation costs at most this share of the calls a pass times
BALLAST_BYTES = 2 << 20  # at most this much memory is taken before preparing afresh, to move what lands where


class ImplementationFault(Exception):
    """The implementation failed where the harness went on with it (preparing it again): its error."""


@dataclass
class Timing:
    """A case between its first and last pass: its check's outcome, its plan of rounds, the samples so far."""

    case: Case
    verdict: oracle.Verdict  # its ``batch`` is the call timed
    line: ResultLine
    label: str  # what the progress line calls it
    group: str  # pytest-benchmark's group: the kernel and workload
    checked_here: bool  # this worker verified it (else an earlier one did, and its timed output is checked)
    plan: RoundPlan
    outputs: Any = None  # the last timed call's
    passes_done: int = 0
    # Inputs each later pass prepares a fresh copy of, for a quick batch whose layout in memory sets its
    # speed; None once preparing again is too dear (or for any other case): one prepared batch serves all passes
    fresh_inputs: Optional[Workload] = None
    reprepared: bool = False  # the batch timed last is not the one the check called
    spot: Optional[SpotChecks] = None  # the checks of its timed calls (none for an empty-call probe)

    @property
    def passes(self) -> int:
        return len(self.plan.per_pass)

    def rounds_in(self, index: int) -> int:
        return self.plan.per_pass[index - 1]


def time_pass(benchmark, timing: Timing, index: int, read_canary: Callable[[], float]) -> None:
    """Time pass ``index``'s share of a case's rounds with pytest-benchmark (a long batch's later passes have
    none); the canary is read on either side."""
    rounds, line = timing.rounds_in(index), timing.line
    # a batch's first call in a process is cold (page faults, lazy binding, dispatch): a worker that did not
    # verify it warms it up before its first timed pass; later passes warm up short batches only, where a
    # warm-up call costs little against what it settles
    first_here = not timing.checked_here and not line.samples_s
    # a case prepared again each pass (fresh inputs) meets new memory in its first call: it is warmed up as before
    limit = oracle.LONG_BATCH_S if first_here else WARMUP_BELOW_S if timing.fresh_inputs else PASS_WARMUP_BELOW_S
    warmup = 1 if timing.plan.batch_s < limit else 0
    benchmark.group = timing.group
    benchmark.extra_info.update(
        kernel=line.kernel,
        implementation=line.implementation,
        family=line.family,
        workload=line.workload,
        n=line.n,
        prepare_s=line.prepare_s,
        status=line.status,
        worker=line.worker,
    )
    before = read_canary()
    started, cpu_started = time.time(), time.process_time()
    try:
        if timing.spot is not None:  # the harness's own loop of calls, some of them checked (spot_checks)
            timing.outputs = timing.spot.pedantic(
                benchmark,
                rounds,
                timing.plan.iterations,
                warmup,
                timing.plan.batch_s,
                f", pass {index} of {timing.passes}",
            )
        else:
            pedantic_unchecked(benchmark, timing.verdict.batch, rounds, timing.plan.iterations, warmup)
    except BaseException:
        # pytest-benchmark marks a benchmark that raised an Exception as failed, but not one stopped by
        # Ctrl-C: its JSON writer then fails on the empty samples, and the worker ends in a traceback.
        benchmark.has_error = True
        raise
    stats = getattr(benchmark, "stats", None)
    line.rounds += rounds
    ended, cpu_ended = time.time(), time.process_time()
    cpus = (cpu_ended - cpu_started) / (ended - started) if ended > started else None
    line.add_pass(list(stats.stats.data) if stats is not None else [], before, read_canary(), (started, ended), cpus)


def cheap_to_prepare(prepare_s: float, plan: RoundPlan) -> bool:
    """Whether a batch planned so is prepared afresh before each pass it is timed in: it is timed in more than
    one, and preparing costs under REPREPARE_BELOW_S or REPREPARE_SHARE of a pass's timed calls."""
    timed = [rounds for rounds in plan.per_pass if rounds > 0]
    return len(timed) > 1 and prepare_s < max(REPREPARE_BELOW_S, REPREPARE_SHARE * plan.batch_s * min(timed))


def prepare_again(impl, timing: Timing, rng: random.Random) -> None:
    """A fresh copy of a quick case's inputs, prepared again, for this pass: where a batch's arrays land in
    memory sets its speed for as long as they live, so its median should be one over many layouts
    (docs/measurement.md)."""
    # Memory the last batch let go is what the allocator hands out next, so fresh copies alone alternate
    # between two layouts in a process. A random amount of memory held while the copy is made (any offset, up
    # to BALLAST_BYTES, every page touched) makes each pass's layout a draw of its own.
    ballast = numpy.ones(rng.randrange(1, BALLAST_BYTES), dtype=numpy.uint8)
    verdict = oracle.prepare_only(impl, timing.fresh_inputs.fresh_copy().read_only())
    del ballast
    if verdict.batch is None:
        raise ImplementationFault(f"prepared again for a later pass: {verdict.status} {verdict.reason}")
    timing.verdict.batch, timing.reprepared = verdict.batch, True
    timing.line.reprepare_s.append(finite(verdict.prepare_s))
    if not cheap_to_prepare(verdict.prepare_s, timing.plan):  # too dear to repeat: it serves the passes left
        timing.fresh_inputs = None
