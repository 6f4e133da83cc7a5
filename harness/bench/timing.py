"""Timing a pass: a case between its first and last pass, one pass's share of its rounds timed by
pytest-benchmark, and a short batch prepared again from fresh memory before a later pass."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy

from swarbench import oracle
from swarbench.bench.cases import Case
from swarbench.bench.rounds import PASS_WARMUP_BELOW_S, WARMUP_BELOW_S, RoundPlan
from swarbench.model import Workload
from swarbench.runfolder import ResultLine, finite

REPREPARE_BELOW_S = 0.02  # a short batch whose preparation takes less is prepared afresh for every pass
BALLAST_BYTES = 2 << 20  # at most this much memory is taken before preparing afresh, to move what lands where


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
    benchmark.extra_info.update(kernel=line.kernel, implementation=line.implementation, family=line.family,
                                workload=line.workload, n=line.n, prepare_s=line.prepare_s, status=line.status,
                                worker=line.worker)
    before = read_canary()
    try:
        timing.outputs = benchmark.pedantic(timing.verdict.batch, rounds=rounds, iterations=timing.plan.iterations,
                                            warmup_rounds=warmup)
    except BaseException:
        # pytest-benchmark marks a benchmark that raised an Exception as failed, but not one stopped by
        # Ctrl-C: its JSON writer then fails on the empty samples, and the worker ends in a traceback.
        benchmark.has_error = True
        raise
    stats = getattr(benchmark, "stats", None)
    line.rounds += rounds
    line.add_pass(list(stats.stats.data) if stats is not None else [], before, read_canary())


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
        raise RuntimeError(f"preparing again for a later pass: {verdict.status} {verdict.reason}")
    timing.verdict.batch, timing.reprepared = verdict.batch, True
    timing.line.reprepare_s.append(finite(verdict.prepare_s))
    if verdict.prepare_s >= REPREPARE_BELOW_S:  # too dear to repeat: this batch serves the passes left
        timing.fresh_inputs = None
