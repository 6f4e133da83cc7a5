"""A worker's benchmark session: each case's passes in turn, from its check in the first to its result line
after the last. The steps live beside it: cases (what and in which order), workload_cache, checking, rounds
(how many), timing (one pass), canary (the machine's speed around it), records and terminal (what is said)."""
from __future__ import annotations

import functools
import random
import signal
import sys
import threading
from typing import Callable, Optional

import pytest

from swarbench import counters, oracle, progress, registry as registry_mod
from swarbench.bench import canary, checking, overhead, rounds
from swarbench.bench.cases import Case, Pass, case_passes, probe_passes
from swarbench.bench.request import WorkerRequest
from swarbench.bench.terminal import TerminalLine
from swarbench.bench.timing import REPREPARE_BELOW_S, Timing, prepare_again, time_pass
from swarbench.bench.workload_cache import WorkloadCache
from swarbench.runfolder import RecordWriter, ResultLine, Status


class Session:
    """Per-pytest-session state: the registry, the shared workloads, and the cases between their passes."""

    def __init__(self, options: WorkerRequest):
        self.options = options
        self.registry = registry_mod.load(disable=options.disabled_plugins)
        for failure in self.registry.failures:
            sys.__stderr__.write(f"swarbench: {failure}; skipped\n")
        self.cache = WorkloadCache(self.registry, options.seed, options.params, options.cache_dir,
                                   options.cache_writes)
        self.writer = RecordWriter(options.record_path, options.worker)
        self.terminal = TerminalLine(options.progress, options.worker)
        self.verified = self.writer.verified_elsewhere()
        self.budget = rounds.Budget(options.max_time, options.min_rounds, options.short_rounds)
        self.timings: dict[str, Timing] = {}  # cases past their first pass and before their last
        self.canary = canary.Reader()
        self.layout_rng = random.Random()  # layouts are not repeatable anyway: nothing to seed
        self.signalled = False  # a Ctrl-C (or a stop signal) reached this worker: a KeyboardInterrupt is the user's
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, self._interrupted)

    def _interrupted(self, signum, frame) -> None:
        """Ctrl-C, and the signals the engine takes as one (`kill`, a closed terminal): the worker stops and keeps
        what it measured. A KeyboardInterrupt no signal caused was raised by an implementation (run_case)."""
        self.signalled = True
        raise KeyboardInterrupt

    @functools.cached_property
    def passes(self) -> tuple[list[Pass], list[Pass]]:
        """The kernels' passes and the empty-call probes' passes this worker runs, counted for its progress."""
        cases, probes = case_passes(self.registry, self.options), probe_passes(self.options)
        self.terminal.total += len({p.case for p in cases}) + len({p.case for p in probes})
        return cases, probes

    # -- saying what goes on -------------------------------------------------------------------------------------
    def phase(self, case_id: str, label: str, what: str) -> None:
        self.writer.phase(case_id, what)
        self.terminal.say(label, what)

    def reporter(self, case_id: str, label: str, phase: str) -> progress.Reporter:
        """Where ``swarbench.progress.advance`` goes while a case is generated or checked (never while timed)."""
        def report(done: int, total: int, what: str) -> None:
            self.writer.progress(case_id, phase, done, total, what)
            self.terminal.say(label, f"{phase} {done:,}/{total:,} {what}".rstrip())
        return report

    def _finish(self, line: ResultLine, label: str, text: str) -> None:
        self.writer.result(line)
        self.terminal.say(label, text, final=True)

    def _reject(self, line: ResultLine, label: str, verdict: oracle.Verdict, impl) -> None:
        if self.signalled and verdict.status == oracle.ERROR:  # e.g. its compiler, killed by the same Ctrl-C
            raise KeyboardInterrupt
        line.status, line.reason = Status(verdict.status), verdict.reason
        self._finish(line, label, f"{verdict.status} {verdict.reason}")
        if verdict.status == oracle.SKIP:
            pytest.skip(verdict.reason)
        if impl.expected_to_fail:
            pytest.xfail(f"{impl.expected_to_fail}: {verdict.reason}")
        pytest.fail(f"{verdict.status}: {verdict.reason}", pytrace=False)

    # -- a case, pass by pass ------------------------------------------------------------------------------------
    def run_case(self, item: Pass, benchmark) -> None:
        """One pass of one case: the first checks it, every pass times its share, the last writes its result
        line. Whatever goes wrong, the case ends with a result line."""
        case, finished = item.case, self.terminal.done
        try:
            if item.first:
                self._check(case)
            else:
                self.writer.start(case.id)
            self._next_pass(item, benchmark, lambda timing: self._end(timing))
        except (pytest.skip.Exception, pytest.fail.Exception, pytest.xfail.Exception, pytest.exit.Exception):
            raise
        except SystemExit as exc:  # the implementation ended its process: a crash, as os._exit would be
            crash = oracle.Verdict(Status.CRASH, f"the implementation called sys.exit({exc.code!r})")
            self._said_lost(case, finished, crash)
            pytest.fail(f"CRASH: sys.exit({exc.code!r})", pytrace=False)
        except KeyboardInterrupt:
            if self.signalled:  # the user's: the worker stops and keeps what it measured
                raise
            self._said_lost(case, finished, oracle.Verdict(oracle.ERROR, "raised KeyboardInterrupt (no Ctrl-C was "
                                                                         "pressed)"))
            pytest.fail("ERROR: the implementation raised KeyboardInterrupt", pytrace=False)
        except Exception as exc:
            if self.signalled:  # after a Ctrl-C (in compiled code, or a child killed by the same one): stop
                raise KeyboardInterrupt from exc
            # an error in the harness or a kernel's own code: said, not lost
            self._said_lost(case, finished, oracle.Verdict(oracle.ERROR, f"harness error: "
                                                                         f"{oracle.describe_error(exc)}"))
            raise

    def _said_lost(self, case: Case, finished: int, verdict: oracle.Verdict) -> None:
        """A case cut short by ``verdict`` gets its result line, unless it wrote one before it was cut short."""
        self.timings.pop(case.id, None)
        if self.terminal.done != finished:
            return
        kernel = self.registry.kernels[case.kernel]
        line = ResultLine.of(case.id, self.options.worker, self.registry.implementations[case.key], verdict,
                             case.workload, case.size, self.options.seed, {})
        line.suite, line.baseline, line.unit = kernel.suite, kernel.baseline, kernel.unit
        self._finish(line, case.label, f"{verdict.status} {verdict.reason}")

    def run_overhead(self, item: Pass, benchmark) -> None:
        """One pass of an empty-call probe, spread over the passes as every case is: a probe timed in one
        stretch of the run would set every overhead-corrected figure by the machine of that moment."""
        probe, case_id = overhead.PROBE[item.case.implementation], item.case.id
        self.writer.start(case_id)
        if item.first:
            verdict = checking.verify_probe(probe)
            line = ResultLine.of(case_id, self.options.worker, probe, verdict, "empty", 1, 0, {})
            line.suite, line.baseline, line.unit = "swarbench", "", "empty call"
            if verdict.status != oracle.PASS:
                self._finish(line, case_id, f"{verdict.status} {verdict.reason}")
                pytest.skip(verdict.reason)
            self.timings[case_id] = self._plan(item.case, verdict, line, case_id, overhead.KERNEL, item.of)
        # (a probe has no inputs to copy: every pass times the one prepared empty call)
        self._next_pass(item, benchmark, lambda t: self._finish(t.line, case_id, t.line.median_text()))

    def _check(self, case: Case) -> None:
        """A case's first pass: its workload, its check (or only its prepare, when an earlier worker checked
        it), and its plan of rounds. A case that does not pass ends here with its result line."""
        self.writer.start(case.id)
        kernel, impl, label = self.registry.kernels[case.kernel], self.registry.implementations[case.key], case.label
        self.phase(case.id, label, "generating inputs")
        with progress.reporting(self.reporter(case.id, label, "generating inputs")):
            prepared = self.cache.get(case)
        checked_s, around = self.verified.get(case.id), []
        if checked_s is None:
            self.phase(case.id, label, "checking")
            before = self.canary.read()
            with progress.reporting(self.reporter(case.id, label, "checking")):
                verdict = oracle.verify(kernel, impl, prepared.workload, prepared.expected, keep_outputs=True)
            around = [before, self.canary.read()]
        else:
            self.phase(case.id, label, "preparing (verified by an earlier worker)")
            verdict = checking.prepare_verified(impl, prepared.workload, checked_s)
        verdict = self._inputs_kept(case, prepared) or verdict
        workload = prepared.workload
        line = ResultLine.of(case.id, self.options.worker, impl, verdict, workload.name, workload.size,
                             workload.seed, dict(workload.params))
        line.suite, line.baseline, line.unit = kernel.suite, kernel.baseline, kernel.unit
        line.input_bytes = workload.input_bytes
        if verdict.status != oracle.PASS:
            if verdict.outputs is not None:
                line.summary = checking.summary(kernel, verdict.outputs)  # by how much it was off
            self._reject(line, label, verdict, impl)
        timing = self._plan(case, verdict, line, label, f"{case.kernel} {workload.label}", self.options.passes,
                            checked_here=checked_s is None)
        if line.samples_s:  # a long batch's verification call, its first sample, is judged like any pass
            line.pass_canary_s.append(around + [len(line.samples_s)])
        # a first preparation may include one-time costs (loading a JIT's cache): one up to 5x the limit is
        # tried once more, and the second says what preparing costs
        if verdict.prepare_s < 5 * REPREPARE_BELOW_S and timing.plan.batch_s < rounds.WARMUP_BELOW_S:
            timing.fresh_inputs = workload
        self.timings[case.id] = timing

    def _plan(self, case: Case, verdict: oracle.Verdict, line: ResultLine, label: str, group: str, passes: int,
              checked_here: bool = True) -> Timing:
        """Rounds and iterations from the batch's steady duration, dealt out over the passes. A long batch's
        verification call here is its first sample (docs/measurement.md)."""
        first = [verdict.call_s] if checked_here and verdict.call_s >= oracle.LONG_BATCH_S else []
        plan = rounds.plan(rounds.steady_call_s(verdict.batch, verdict.call_s), self.budget, passes, len(first))
        line.samples_s, line.rounds, line.iterations = list(first), len(first), plan.iterations
        # the verification call's outputs stand for a long batch's only call here; else they are let go before
        # any timed call makes its own
        outputs, verdict.outputs = (verdict.outputs if sum(plan.per_pass) <= 0 else None), None
        return Timing(case, verdict, line, label, group, checked_here, plan, outputs)

    def _next_pass(self, item: Pass, benchmark, end: Callable[[Timing], None]) -> None:
        """Time pass ``item.index`` of a planned case (a fresh copy of its inputs first, where it has one); after
        its last pass, take it off the list and ``end`` its timing."""
        timing = self.timings.get(item.case.id)
        if timing is None:  # it failed or was skipped in its first pass, and said so there
            pytest.skip(f"{item.case.id}: not timed (see its first pass)")
        if timing.rounds_in(item.index) > 0:
            if not item.first and timing.fresh_inputs is not None:
                self.phase(item.case.id, timing.label, "preparing again (fresh inputs)")
                prepare_again(self.registry.implementations[item.case.key], timing, self.layout_rng)
            self.phase(item.case.id, timing.label,
                       "timing" + (f" (pass {item.index} of {item.of})" if item.of > 1 else ""))
            time_pass(benchmark, timing, item.index, self.canary.read)
        timing.passes_done = item.index
        if item.last:
            del self.timings[item.case.id]
            end(timing)

    def _inputs_kept(self, case: Case, prepared) -> Optional[oracle.Verdict]:
        """None while the case's inputs are as built; else the FAIL of the implementation that wrote into them
        (through a pointer: a NumPy write raises on the read-only arrays), and the next case builds them again."""
        if prepared.workload.digest() == prepared.digest:
            return None
        self.cache.forget(case)
        return oracle.Verdict(oracle.FAIL, "wrote into its inputs, which are read-only (their contents changed)")

    def _end(self, timing: Timing) -> None:
        """A case's last pass is over: check its last timed output (an implementation may be right on its first
        call only), that its inputs are as they were, then its result line."""
        case, line = timing.case, timing.line
        kernel = self.registry.kernels[case.kernel]
        if not counters.unavailable():  # after the timed rounds, over extra calls: counting never slows them
            line.counts = counters.per_op(*counters.count(timing.verdict.batch, timing.plan.call_s), line.n)
        prepared = self.cache.get(case)
        mismatch = checking.timed_output_mismatch(kernel, prepared, timing.outputs)
        wrote = self._inputs_kept(case, prepared)
        if mismatch or wrote:
            line.drop_samples()
            verdict = wrote or oracle.Verdict(oracle.FAIL, f"timed output in worker {self.options.worker}: "
                                                           f"{mismatch}")
            self._reject(line, timing.label, verdict, self.registry.implementations[case.key])
        if kernel.summarize is not None:
            line.summary = checking.summary(kernel, timing.outputs)
        self._finish(line, timing.label, line.median_text())

    def flush_unfinished(self) -> None:
        """The cases a stopped worker (Ctrl-C, pytest's -x) left between passes: each gets its result line with
        the samples of the passes it finished, so nothing measured is lost: those whose last timed output is
        right (one that cannot even be checked is left out, and the others still get theirs)."""
        for case_id, timing in list(self.timings.items()):
            del self.timings[case_id]
            if not timing.line.samples_s:
                continue
            kernel = self.registry.kernels.get(timing.case.kernel)  # (none for an empty-call probe: no answer)
            try:
                if kernel and checking.timed_output_mismatch(kernel, self.cache.get(timing.case), timing.outputs):
                    continue
            except Exception:
                continue
            timing.line.reason = f"stopped after {timing.passes_done} of {timing.passes} passes"
            self._finish(timing.line, timing.label, timing.line.median_text())
