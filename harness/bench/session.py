"""A worker's benchmark session: each case's passes in turn, from its check in the first to its result line
after the last. The steps live beside it: cases (what and in which order), workload_cache, checking, rounds
(how many), timing (one pass), canary (the machine's speed around it), records and terminal (what is said)."""

from __future__ import annotations

import functools
import random
import signal
import sys
import threading
import time
from typing import Callable, Optional

import numpy as np
import pytest

from swarbench import counters, local, memory, oracle, progress, registry as registry_mod, spec_guard
from swarbench.bench import canary, checking, isolation, overhead, rounds, spot_checks
from swarbench.bench.cases import Case, Pass, case_passes, probe_passes, selected_families
from swarbench.bench.request import WorkerRequest
from swarbench.bench.terminal import TerminalLine
from swarbench.bench.timing import ImplementationFault, Timing, cheap_to_prepare, prepare_again, time_pass
from swarbench.bench.workload_cache import WorkloadCache
from swarbench.runfolder import RecordWriter, ResultLine, Status


SPEC_ROW = spec_guard.SPEC_ROW


class Session:
    """Per-pytest-session state: the registry, the shared workloads, and the cases between their passes."""

    def __init__(self, options: WorkerRequest):
        self.options = options
        self.registry = registry_mod.load(
            disable=options.disabled_plugins, local=local.sources(options.local_plugins, discover=False)
        )
        # each kernel's spec guarded: what its hooks do wrong is blamed on it, once (swarbench.spec_guard)
        self.registry.kernels = {kid: spec_guard.guarded(k) for kid, k in self.registry.kernels.items()}
        self.spec_rows: set[tuple] = set()  # (kernel, workload, size) whose spec fault this worker wrote
        for failure in self.registry.failures:
            sys.__stderr__.write(f"swarbench: {failure}; skipped\n")
        self.cache = WorkloadCache(self.registry, options.seed, options.params, options.cache_dir, options.cache_writes)
        self.writer = RecordWriter(options.record_path, options.worker)
        self.terminal = TerminalLine(options.progress, options.worker)
        self.verified = self.writer.verified_elsewhere()
        self.budget = rounds.Budget(options.max_time, options.min_rounds, options.short_rounds)
        self.timings: dict[str, Timing] = {}  # cases past their first pass and before their last
        self.canary = canary.Reader()
        self.layout_rng = random.Random()  # layouts are not repeatable anyway: nothing to seed
        memory.draw_layouts(self.layout_rng)  # every array made from here on starts where a draw puts it
        self.signalled = False  # a Ctrl-C (or a stop signal) reached this worker: a KeyboardInterrupt is the user's
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, self._interrupted)
        isolation.follow_parent()  # a worker whose engine was killed stops, keeping what it measured
        isolation.more_descriptors()
        self.snapshot: Optional[isolation.Snapshot] = None  # taken before the first case: what no case may change
        self.threads = isolation.ThreadWatch()
        self.fds_left: dict[str, int] = {}  # file descriptors each case left open, over its passes
        self._fds_before: Optional[int] = None

    def _interrupted(self, signum, frame) -> None:
        """Ctrl-C, and the signals the engine takes as one (`kill`, a closed terminal): the worker stops and keeps
        what it measured. A KeyboardInterrupt no signal caused was raised by an implementation (run_case). A second
        signal (Ctrl-C pressed twice) is let pass: it would cut short the writing of what was measured, and the
        engine stops a worker that takes too long (supervision.INTERRUPT_GRACE_S)."""
        if self.signalled:
            return
        self.signalled = True
        raise KeyboardInterrupt

    @functools.cached_property
    def passes(self) -> tuple[list[Pass], list[Pass]]:
        """The kernels' passes and the empty-call probes' passes this worker runs, counted for its progress."""
        cases = case_passes(self.registry, self.options)
        probes = probe_passes(self.options, selected_families(self.registry, self.options.kernels, self.options.impls))
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

    def _spec_fault(self, case: Case, fault: spec_guard.SpecError) -> None:
        """A kernel's spec failed while one of its cases ran: one row for the spec (implementation SPEC_ROW), once
        per workload and worker; the frame merges the workers' rows into one."""
        key = (case.kernel, case.workload, case.size)
        if key in self.spec_rows:
            return
        self.spec_rows.add(key)
        kernel, held = self.registry.kernels.get(case.kernel), self.cache.held(case)
        row = Case(case.kernel, SPEC_ROW, case.workload, case.size)
        line = ResultLine(
            case=row.id,
            worker=self.options.worker,
            kernel=case.kernel,
            implementation=SPEC_ROW,
            family="spec",
            workload=case.workload,
            n=held.workload.size if held else None,
            seed=self.options.seed,
            status=Status.ERROR,
            reason=str(fault),
            suite=case.kernel.split(".", 1)[0],
            baseline=kernel.baseline if kernel else None,
            unit=kernel.unit if kernel else None,
        )
        self.writer.result(line)  # (not one of the worker's planned cases: its progress count stays as it is)
        self.terminal.say(row.label, f"ERROR {fault}")

    def _summary(self, case: Case, outputs) -> Optional[dict]:
        """The kernel's summary of right outputs; a summarize that fails is its spec's fault, and the row keeps its
        figures without one."""
        try:
            return checking.summary(self.registry.kernels[case.kernel], outputs)
        except spec_guard.SpecError as fault:
            self._spec_fault(case, fault)
            return None

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
        if self.signalled:  # a Ctrl-C an implementation swallowed: the worker stops before its next pass all the same
            raise KeyboardInterrupt
        case, finished = item.case, self.terminal.done
        if self.snapshot is None:
            self.snapshot = isolation.Snapshot()
        self._fds_before = isolation.open_fds()
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
            self._said_lost(
                case, finished, oracle.Verdict(oracle.ERROR, "raised KeyboardInterrupt (no Ctrl-C was pressed)")
            )
            pytest.fail("ERROR: the implementation raised KeyboardInterrupt", pytrace=False)
        except spec_guard.SpecError as fault:  # the kernel's spec failed: blamed once, the case not judged
            if self.signalled:
                raise KeyboardInterrupt from fault
            self._said_lost(case, finished, oracle.Verdict(oracle.SKIP, f"not judged: {fault}"))
            self._spec_fault(case, fault)
            pytest.skip(f"not judged: {fault}")
        except (spot_checks.BatchRaised, ImplementationFault) as exc:  # the implementation's own error
            if self.signalled:
                raise KeyboardInterrupt from exc
            self._said_lost(case, finished, oracle.Verdict(oracle.ERROR, str(exc)))
            pytest.fail(f"ERROR: {exc}", pytrace=False)
        except BaseException as exc:
            if self.signalled:  # after a Ctrl-C (in compiled code, or a child killed by the same one): stop
                raise KeyboardInterrupt from exc
            # an error in the harness or a kernel's own code (of any class: a BaseException of its own, too): said,
            # not lost
            self._said_lost(
                case, finished, oracle.Verdict(oracle.ERROR, f"harness error: {oracle.describe_error(exc)}")
            )
            if isinstance(exc, Exception):
                raise
            pytest.fail(f"ERROR: harness error: {oracle.describe_error(exc)}", pytrace=False)
        finally:
            for fault in spec_guard.faults(case.kernel):  # a describe_input that failed wording a mismatch
                self._spec_fault(case, fault)
            self.snapshot.changes()  # whatever the case changed is undone before the next, said or not
            self.threads.after(case.id)

    def _guard(self, case: Case) -> None:
        """Before a case's figures are taken as its own: raise ImplementationFault if it changed state the harness
        and the cases after it rely on (undone first), or has left too many file descriptors open."""
        changed = self.snapshot.changes() if self.snapshot is not None else []
        if changed:
            raise ImplementationFault(
                f"changed what the harness and the cases after it rely on: "
                f"{', '.join(changed)} (undone; its figures are not kept)"
            )
        now = isolation.open_fds()
        if now is not None and self._fds_before is not None:
            self.fds_left[case.id] = self.fds_left.get(case.id, 0) + now - self._fds_before
            self._fds_before = now
            if self.fds_left[case.id] > isolation.FD_LEAK_LIMIT:
                raise ImplementationFault(
                    f"leaks file descriptors: {self.fds_left[case.id]} more are open than "
                    f"before it was first prepared (it opens files or sockets it never "
                    f"closes); it is stopped before the worker runs out of them"
                )

    def _said_lost(self, case: Case, finished: int, verdict: oracle.Verdict) -> None:
        """A case cut short by ``verdict`` gets its result line, unless it wrote one before it was cut short."""
        self.timings.pop(case.id, None)
        if self.terminal.done != finished:
            return
        kernel, held = self.registry.kernels[case.kernel], self.cache.held(case)
        line = ResultLine.of(
            case.id,
            self.options.worker,
            self.registry.implementations[case.key],
            verdict,
            case.workload,
            held.workload.size if held else case.size,
            self.options.seed,
            {},
        )
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
        checked_s, around, span = self.verified.get(case.id), [], ()
        if checked_s is None:
            self.phase(case.id, label, "checking")
            before, started = self.canary.read(), time.time()
            with progress.reporting(self.reporter(case.id, label, "checking")):
                verdict = oracle.verify(kernel, impl, prepared.workload, prepared.expected, keep_outputs=True)
            span = (started, time.time())
            around = [before, self.canary.read()]
        else:
            self.phase(case.id, label, "preparing (verified by an earlier worker)")
            verdict = checking.prepare_verified(impl, prepared.workload, checked_s)
        verdict = self._inputs_kept(case, prepared) or verdict
        self._guard(case)
        workload = prepared.workload
        line = ResultLine.of(
            case.id,
            self.options.worker,
            impl,
            verdict,
            workload.name,
            workload.size,
            workload.seed,
            dict(workload.params),
        )
        line.suite, line.baseline, line.unit = kernel.suite, kernel.baseline, kernel.unit
        line.input_bytes = workload.input_bytes
        if verdict.status != oracle.PASS:
            if verdict.outputs is not None:
                line.summary = self._summary(case, verdict.outputs)  # by how much it was off
            self._reject(line, label, verdict, impl)
        spot = self._spot_checks(case, verdict.batch, line, calls=1 if checked_s is None else 0)
        try:
            timing = self._plan(
                case,
                verdict,
                line,
                label,
                f"{case.kernel} {workload.label}",
                self.options.passes,
                checked_here=checked_s is None,
                spot=spot,
            )
        except spot_checks.WrongOutput as exc:
            self._reject(line, label, oracle.Verdict(oracle.FAIL, str(exc)), impl)
        if line.samples_s:  # a long batch's verification call, its first sample, is judged like any pass
            line.pass_canary_s.append(around + [len(line.samples_s)])
            line.pass_t.append([round(t, 4) for t in span])
        # a first preparation may include one-time costs (loading a JIT's cache): one up to 5x the limit is
        # tried once more, and the second says what preparing costs
        if cheap_to_prepare(verdict.prepare_s / 5, timing.plan):
            timing.fresh_inputs = workload
        self.timings[case.id] = timing

    def _plan(
        self,
        case: Case,
        verdict: oracle.Verdict,
        line: ResultLine,
        label: str,
        group: str,
        passes: int,
        checked_here: bool = True,
        spot: Optional[spot_checks.SpotChecks] = None,
    ) -> Timing:
        """Rounds and iterations from the batch's steady duration, dealt out over the passes. A long batch's
        verification call here is its first sample (docs/measurement.md). The calls that size the rounds are
        checked (``spot``)."""
        first = [verdict.call_s] if checked_here and verdict.call_s >= oracle.LONG_BATCH_S else []
        batch = spot_checks.calling(verdict.batch, "a batch call sizing its rounds") if spot else verdict.batch
        steady = rounds.steady_call_s(batch, verdict.call_s, spot.checked_call if spot else None)
        plan = rounds.plan(steady, self.budget, passes, len(first))
        line.samples_s, line.rounds, line.iterations = list(first), len(first), plan.iterations
        # the verification call's outputs stand for a long batch's only call here; else they are let go before
        # any timed call makes its own
        outputs, verdict.outputs = (verdict.outputs if sum(plan.per_pass) <= 0 else None), None
        return Timing(case, verdict, line, label, group, checked_here, plan, outputs, spot=spot)

    def _spot_checks(self, case: Case, batch, line: ResultLine, calls: int) -> spot_checks.SpotChecks:
        """The checks of a case's calls after its verification (swarbench.bench.spot_checks), against the
        reference outputs the workload cache holds; the first right outputs give the case's summary."""
        kernel = self.registry.kernels[case.kernel]

        def judge(outputs):
            return checking.timed_output_mismatch(kernel, self.cache.get(case), outputs)

        def protected():
            prepared = self.cache.get(case)
            return tuple(
                a
                for a in spot_checks.leaves(prepared.workload.inputs) + spot_checks.leaves(prepared.expected)
                if isinstance(a, np.ndarray)
            )

        def on_first(outputs):
            if kernel.summarize is not None:
                line.summary = self._summary(case, outputs)

        return spot_checks.SpotChecks(batch, judge, self.options.worker, protected, on_first, calls)

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
                if timing.spot is not None:
                    timing.spot.rebind(timing.verdict.batch)
            self.phase(
                item.case.id, timing.label, "timing" + (f" (pass {item.index} of {item.of})" if item.of > 1 else "")
            )
            try:
                time_pass(benchmark, timing, item.index, self.canary.read)
            except spot_checks.WrongOutput as exc:  # a checked call was wrong: no figure of it is kept
                del self.timings[item.case.id]
                timing.line.drop_samples()
                self._reject(
                    timing.line,
                    timing.label,
                    oracle.Verdict(oracle.FAIL, str(exc)),
                    self.registry.implementations[item.case.key],
                )
        timing.passes_done = item.index
        if timing.spot is not None:  # (an empty-call probe is the harness's own)
            self._guard(item.case)
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
        checked = timing.spot is not None and timing.spot.checked > 0  # else a long batch's one, unchecked call
        mismatch = None if checked else checking.timed_output_mismatch(kernel, prepared, timing.outputs)
        wrote = self._inputs_kept(case, prepared)
        if mismatch or wrote:
            line.drop_samples()
            verdict = wrote or oracle.Verdict(oracle.FAIL, f"timed output in worker {self.options.worker}: {mismatch}")
            self._reject(line, timing.label, verdict, self.registry.implementations[case.key])
        if kernel.summarize is not None and not checked:
            line.summary = self._summary(case, timing.outputs)
        try:
            line.explain = explained(timing, line, prepared, self.options, kernel.op_is_element)  # untimed
        except KeyboardInterrupt:  # a Ctrl-C cut the explanation short: what was measured is kept all the same
            self._finish(line, timing.label, line.median_text())
            raise
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
            checked = timing.spot is not None and timing.spot.checked > 0  # every checked call was right
            try:
                if (
                    kernel
                    and not checked
                    and checking.timed_output_mismatch(kernel, self.cache.get(timing.case), timing.outputs)
                ):
                    continue
            except Exception:
                continue
            timing.line.reason = f"stopped after {timing.passes_done} of {timing.passes} passes"
            self._finish(timing.line, timing.label, timing.line.median_text())


def explained(timing: Timing, line: ResultLine, prepared, options: WorkerRequest, op_is_element: bool) -> dict:
    """The case's traffic and, where the run explains and this is its first worker, its code and hot loop
    (swarbench.explain); a failure to explain is said, never raised."""
    from swarbench.explain.case import NO_EXPLAIN, READ_BY_FIRST_WORKER, explain_case

    try:
        return explain_case(
            timing.verdict.batch,
            timing.plan.call_s,
            line.family,
            prepared.workload,
            prepared.expected,
            line.n,
            options.explain and options.worker == 0,
            op_is_element,
            NO_EXPLAIN if not options.explain else READ_BY_FIRST_WORKER,
        )
    except Exception as exc:
        return {"missing": f"harness error while explaining: {oracle.describe_error(exc)}"}
