"""The pytest plugin that turns every (kernel, implementation, workload, size) into one pytest-benchmark benchmark.

Loaded by pytest through the ``pytest11`` entry point, so the same benchmarks run under ``swarbench run`` and
under plain ``pytest --pyargs swarbench.bench.bench_kernels --benchmark-only`` (keeping pytest-benchmark's own
``--benchmark-compare``, ``--benchmark-histogram`` and the rest). Each benchmark first passes the oracle; only
a PASS is timed.

The record file is the worker's report to the engine: a ``start`` line before each case and a ``result`` line
after it, each written and flushed at once. An interrupted or crashed worker therefore leaves every finished
result behind, and the engine can tell which case was running when it died.

Rounds and iterations are chosen from the verification call's duration instead of pytest-benchmark's own
calibration: a pure-Python batch of a million operations takes a second, and calibration would run it several
more times before measuring. Short batches (under 50 ms) get a pytest-benchmark warm-up round in every pass;
a worker that did not verify a batch also warms it up before its first timed pass, up to half a second. A
batch of half a second or more is timed cold, as its first call in the process: a later worker times its one
call that way, and the worker that verified it counts its verification call (same
callable, same inputs, timed by the same clock, kept only once the oracle passed it) as its first sample
instead of calling it again, which would cost seconds and measure nothing a first call does not.

With ``--swarbench-passes P`` a worker goes through the whole run P times: each pass takes every workload in
turn, a workload's cases together and, after the first pass, in a fresh shuffled order; each case spends a P-th
of its rounds in each pass (Google Benchmark's random interleaving, at the scale of the run). A case's samples
then come from P stretches spread over the whole worker, so a slow spell of a shared machine (seconds long, here)
lands on a share of every case's samples instead of on all the samples of the workloads it happened to cover.
The empty-call probes (``--swarbench-overhead``) go through the passes too, each pass's just before its cases.
A case is checked and prepared in its first pass; its last pass writes its one result line, and every pass writes
a start line, so a crash is laid on the case it happened in. A short batch (under WARMUP_BELOW_S a round) is
prepared again, from a fresh copy of its inputs, for each later pass while preparing takes under
REPREPARE_BELOW_S: where its arrays land in memory sets its speed for as long as they live, and its median should
be one over many layouts, not one or two. Its last timed output is checked against the reference, since the
batch timed is not the one checked. Any other case keeps one prepared batch to its last pass. The canary
(swarbench.bench.canary) is read on either side of every pass, and the readings go into the result line with the
pass's sample count, so the results can set aside what a slowed machine measured.

The workers of one run share what does not depend on the process: each workload and its reference outputs are
built by the first worker that needs them and left in ``--swarbench-cache`` for the others, and a case that an
earlier worker verified is not verified again before timing. Its timed output is checked instead, after timing,
so a process that computes differently is still caught (FAIL, its samples dropped).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import random
import tempfile
import sys
import time
from dataclasses import dataclass
from typing import Optional

import numpy
import pytest

from swarbench import counters, oracle, progress, registry as registry_mod
from swarbench.bench import canary, overhead
from swarbench.errors import raise_if_interrupted
from swarbench.model import Implementation, matches

ROUND_TARGET_S = 1e-3  # a round at least this long keeps timer resolution (<100 ns) under 0.01% of it
WARMUP_BELOW_S = 0.05  # a pass warms a batch up below this (below oracle.LONG_BATCH_S for its first call here)
REPREPARE_BELOW_S = 0.02  # a short batch whose preparation takes less is prepared afresh for every pass
# A batch this short gets at least --swarbench-short-rounds rounds however small the time budget: at tens of
# milliseconds a batch, the budget alone gives one or two samples a worker, and a slow spell over those decides
# the median (cephalopod's C rows moved by 15% to 50% between runs of a noisy hour on 2 to 4 samples each).
SHORT_BATCH_S = 0.3
BALLAST_BYTES = 2 << 20  # at most this much memory is taken before preparing afresh, to move what lands where


@dataclass(frozen=True)
class Case:
    kernel: str
    implementation: str
    workload: str
    size: Optional[int]

    @property
    def id(self) -> str:
        return f"{self.kernel}:{self.implementation}:{self.workload}:n={self.size or 'default'}"


@dataclass(frozen=True)
class Pass:
    """Pass ``index`` (1-based) of ``of`` through a case: one pytest item, one pytest-benchmark benchmark."""
    case: Case
    index: int = 1
    of: int = 1

    @property
    def id(self) -> str:
        return self.case.id if self.of == 1 else f"{self.case.id}~pass{self.index}of{self.of}"


@dataclass
class Timing:
    """A case between its first and last pass: its check's outcome, its rounds, and the samples so far."""
    case: Optional[Case]
    verdict: oracle.Verdict
    row: dict
    label: str
    group: str  # pytest-benchmark's group: the kernel and workload
    checked_here: bool
    call_s: float
    iterations: int
    rounds: list  # the timed rounds of each pass
    outputs: object = None
    passes_done: int = 0
    workload: object = None  # what later passes prepare a fresh copy of; None: the first preparation serves all
    reprepared: bool = False  # the batch timed last is not the one the check called


def pytest_addoption(parser):
    group = parser.getgroup("swarbench", "swarbench kernel benchmarks")
    group.addoption("--swarbench-kernel", action="append", default=[], metavar="PATTERN",
                    help="run kernels whose id matches this shell pattern (repeatable)")
    group.addoption("--swarbench-impl", action="append", default=[], metavar="PATTERN",
                    help="run implementations whose name matches this shell pattern (repeatable)")
    group.addoption("--swarbench-workload", action="append", default=[], metavar="NAME",
                    help="run these workload kinds (default: each kernel's default kinds)")
    group.addoption("--swarbench-size", action="append", type=int, default=[], metavar="N",
                    help="operations per batch (repeatable: one benchmark per size; default: the workload's own)")
    group.addoption("--swarbench-seed", type=int, default=0, help="seed of the input generators")
    group.addoption("--swarbench-param", action="append", default=[], metavar="NAME=VALUE",
                    help="a parameter of the workloads that declare NAME (repeatable)")
    group.addoption("--swarbench-order-seed", type=int, default=None, metavar="S",
                    help="shuffle the order of kernels and of implementations within each kernel with this seed")
    group.addoption("--swarbench-passes", type=int, default=1, metavar="P",
                    help="go through the whole run P times, each workload's cases reshuffled in every pass, each pass "
                         "timing a P-th of every case's rounds (interleaved repetitions; default 1)")
    group.addoption("--swarbench-short-rounds", type=int, default=0, metavar="R",
                    help=f"a batch under {SHORT_BATCH_S} s gets at least R rounds here, whatever the time budget "
                         "(the engine deals swarbench run's --short-rounds out over the workers)")
    group.addoption("--swarbench-case", action="append", default=[], metavar="CASE_ID",
                    help="run only this case (repeatable; the engine's extra workers use it)")
    group.addoption("--swarbench-exclude", action="append", default=[], metavar="CASE_ID",
                    help="leave this case out (the engine uses it to resume after a crash)")
    group.addoption("--swarbench-worker", type=int, default=0, help="worker number written into each record")
    group.addoption("--swarbench-overhead", action="store_true",
                    help="also time an empty batch call per family (the fixed cost of a call)")
    group.addoption("--swarbench-record", default=None, metavar="FILE",
                    help="append a JSON line per case start and result to FILE; a case another worker already "
                         "passed there is not verified again (its timed output is checked instead)")
    group.addoption("--swarbench-cache", default=None, metavar="DIR",
                    help="share generated workloads and reference outputs with the other workers of a run here")
    group.addoption("--swarbench-cache-readonly", action="store_true",
                    help="read the shared workloads but write none (the last worker of a run)")
    group.addoption("--swarbench-disable-plugin", action="append", default=[], metavar="NAME",
                    help="do not load this swarbench plugin")
    group.addoption("--swarbench-progress", action="store_true",
                    help="write a progress line per case to stderr")


class Session:
    """Per-pytest-session state: the registry, and each workload with its reference outputs, built once."""

    def __init__(self, config):
        self.config = config
        opt = config.getoption
        self.registry = registry_mod.load(disable=opt("swarbench_disable_plugin"))
        self.sizes = opt("swarbench_size") or [None]
        self.seed = opt("swarbench_seed")
        self.params = dict(p.split("=", 1) for p in opt("swarbench_param") if "=" in p)
        self.worker = opt("swarbench_worker")
        self.record_path = opt("swarbench_record")
        self.progress = opt("swarbench_progress")
        self.cache_dir = opt("swarbench_cache")
        self.cache_writes = not opt("swarbench_cache_readonly")
        self.verified = self._verified_elsewhere()
        self.passes = max(1, opt("swarbench_passes"))
        self.short_rounds = max(0, opt("swarbench_short_rounds"))
        self.timings: dict[str, Timing] = {}  # cases past their first pass and before their last
        self.last_canary: tuple[float, float] = (-math.inf, math.nan)  # (when it ended, its seconds)
        self.layout_rng = random.Random()  # layouts are not repeatable anyway: nothing to seed
        canary.time_once()  # its first reading in a process is cold (NumPy's ufunc set-up, caches): not one to keep
        self._workloads: dict = {}
        self.done = 0
        self.total = 0

    def passes_in_order(self) -> list[Pass]:
        """Every case's passes, pass by pass through the whole run: pass k goes through every workload, each
        workload's cases together and, after the first pass, in a fresh order."""
        rng = random.Random(f"passes {self.config.getoption('swarbench_order_seed')}")
        groups, out = self.case_groups(), []
        for index in range(1, self.passes + 1):
            for group in groups:
                order = list(group)
                if index > 1:
                    rng.shuffle(order)
                out += [Pass(case, index, self.passes) for case in order]
        return out

    def case_groups(self) -> list[list[Case]]:
        """The cases to run, one list per workload (kernel, workload kind, size)."""
        opt = self.config.getoption
        kinds = opt("swarbench_workload")
        groups = []
        for kid, kernel in sorted(self.registry.kernels.items()):
            if not matches(kid, opt("swarbench_kernel")):
                continue
            chosen = [k for k in kernel.workloads if (k.name in kinds if kinds else k.default)]
            impls = [i for i in self.registry.implementations_of(kid) if matches(i.name, opt("swarbench_impl"))]
            for kind in chosen:
                sizes = [None] if kind.fixed_size else self.sizes
                for size in sizes:
                    groups.append([Case(kid, impl.name, kind.name, size) for impl in impls])
        order_seed = opt("swarbench_order_seed")
        if order_seed is not None:
            # Shuffle kernels and implementations, but keep each workload's cases together: generating a
            # million-pair workload again for every case would cost more than the measurements.
            rng = random.Random(order_seed)
            rng.shuffle(groups)
            for group in groups:
                rng.shuffle(group)
        excluded, only = set(opt("swarbench_exclude")), set(opt("swarbench_case"))
        out = [[c for c in group if c.id not in excluded and (not only or c.id in only)] for group in groups]
        out = [group for group in out if group]
        self.total += sum(map(len, out))
        return out

    def _verified_elsewhere(self) -> dict[str, float]:
        """Cases an earlier worker of this run passed, with the duration of its verification call."""
        out: dict[str, float] = {}
        if not self.record_path or not os.path.exists(self.record_path):
            return out
        with open(self.record_path, errors="replace") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if (rec.get("event") == "result" and rec.get("status") == oracle.PASS
                        and rec.get("worker") != self.worker and rec.get("check_s")):
                    out[rec["case"]] = float(rec["check_s"])
        return out

    def workload(self, case: Case):
        key = (case.kernel, case.workload, case.size)
        if key not in self._workloads:
            # Keep one kernel's workloads at a time: a million-pair workload and its reference are large.
            self._workloads = {k: v for k, v in self._workloads.items() if k[0] == case.kernel}
            self._workloads[key] = self._shared_workload(case)
        return self._workloads[key]

    def _shared_workload(self, case: Case):
        """(workload, reference outputs): from the run's cache when another worker built them, else built here
        and left there. Anything that will not pickle is simply built again by each worker."""
        path = None
        if self.cache_dir:
            given = "~".join(f"{k}={v}" for k, v in sorted(self.params.items()))
            digest = hashlib.sha256(given.encode()).hexdigest()[:12]
            name = f"{case.kernel}~{case.workload}~{case.size or 'default'}~{self.seed}~{digest}.pickle"
            path = os.path.join(self.cache_dir, name.replace(os.sep, "_"))
            try:
                with open(path, "rb") as fh:
                    workload, expected = pickle.load(fh)
                return workload.fresh_copy(), expected  # unpickled arrays land anywhere: back on cache lines
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
                pass
        kernel = self.registry.kernels[case.kernel]
        workload = kernel.make_workload(kernel.workload_kind(case.workload), case.size, self.seed, self.params)
        built = (workload, oracle.reference_outputs(kernel, workload))
        if path and self.cache_writes:
            _write_pickle(self.cache_dir, path, built)
        return built

    def say(self, label: str, what: str, final: bool = False) -> None:
        if not self.progress:
            return
        left = f" ({self.total - self.done - (0 if final else 1)} left)"
        line = f"[w{self.worker} {self.done + (0 if final else 1):>3}/{self.total}] {label}: {what}{left}"
        stream = sys.__stderr__
        if stream.isatty():  # one line that updates in place, kept when the case is done
            stream.write("\r\x1b[K" + line + ("\n" if final else ""))
        elif final:
            stream.write(line + "\n")
        stream.flush()

    def record(self, row: dict) -> None:
        if not self.record_path:
            return
        with open(self.record_path, "a") as fh:
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def phase(self, case_id: str, label: str, what: str) -> None:
        self.record({"event": "phase", "case": case_id, "worker": self.worker, "phase": what, "t": time.time()})
        self.say(label, what)

    def reporter(self, case_id: str, label: str, phase: str):
        """Where ``swarbench.progress.advance`` goes while a case is generated or checked (never while timed)."""
        def report(done: int, total: int, what: str) -> None:
            self.record({"event": "progress", "case": case_id, "worker": self.worker, "phase": phase,
                         "done": done, "total": total, "what": what})
            self.say(label, f"{phase} {done:,}/{total:,} {what}".rstrip())
        return report

    def start(self, case_id: str) -> None:
        self.record({"event": "start", "case": case_id, "worker": self.worker, "pid": os.getpid(),
                     "t": time.time()})

    def canary(self) -> float:
        """The canary's time now (see swarbench.bench.canary), never inside a timed call. A reading taken up to
        canary.REUSE_S ago still stands, so a pass that starts right after another ended shares its reading."""
        ended, seconds = self.last_canary
        if time.perf_counter() - ended > canary.REUSE_S:
            seconds = canary.time_once()
            self.last_canary = (time.perf_counter(), seconds)
        return seconds

    def run_case(self, item: Pass, benchmark) -> None:
        """One pass of one case: the first checks it, every pass times its share, the last writes its result
        line. Whatever goes wrong, the case ends with a result line."""
        case, finished = item.case, self.done
        try:
            if item.index == 1:
                self._check(case)
            else:
                self.start(case.id)
            self._next_pass(item, benchmark, lambda timing: self._end(case, timing))
        except (pytest.skip.Exception, pytest.fail.Exception, pytest.xfail.Exception):
            raise
        except Exception as exc:
            raise_if_interrupted(exc)  # a Ctrl-C in compiled code: the worker stops and keeps what it measured
            self.timings.pop(case.id, None)
            if self.done == finished:  # an error in the harness or a kernel's own code: said, not lost
                impl = self.registry.implementations[f"{case.kernel}/{case.implementation}"]
                verdict = oracle.Verdict(oracle.ERROR, f"harness error: {oracle.describe_error(exc)}")
                row = self._row(case.id, impl, verdict, case.workload, case.size, self.seed, {})
                self._finish(row, f"{case.kernel} {case.implementation} ({case.workload})",
                             f"{verdict.status} {verdict.reason}")
            raise

    def _next_pass(self, item: Pass, benchmark, end) -> None:
        """Time pass ``item.index`` of a planned case (a fresh copy of its inputs first, where it has one); after
        its last pass, take it off the list and ``end`` its timing."""
        timing = self.timings.get(item.case.id)
        if timing is None:  # it failed or was skipped in its first pass, and said so there
            pytest.skip(f"{item.case.id}: not timed (see its first pass)")
        if item.index > 1 and timing.rounds[item.index - 1] > 0:
            self._prepare_again(item.case, timing)
        self._time_pass(benchmark, timing, item.index)
        timing.passes_done = item.index
        if item.index == item.of:
            del self.timings[item.case.id]
            end(timing)

    def _check(self, case: Case) -> None:
        """A case's first pass: its workload, its check (or only its prepare, when an earlier worker checked
        it), and its plan of rounds. A case that does not pass ends here with its result line."""
        self.start(case.id)
        kernel = self.registry.kernels[case.kernel]
        impl = self.registry.implementations[f"{case.kernel}/{case.implementation}"]
        label = f"{case.kernel} {case.implementation} ({case.workload})"
        self.phase(case.id, label, "generating inputs")
        with progress.reporting(self.reporter(case.id, label, "generating inputs")):
            workload, expected = self.workload(case)
        checked_s, around = self.verified.get(case.id), []
        if checked_s is None:
            self.phase(case.id, label, "checking")
            before = self.canary()
            with progress.reporting(self.reporter(case.id, label, "checking")):
                verdict = oracle.verify(kernel, impl, workload, expected, keep_outputs=True)
            around = [before, self.canary()]
        else:
            self.phase(case.id, label, "preparing (verified by an earlier worker)")
            verdict = oracle.prepare_only(impl, workload)
            verdict.call_s = checked_s
        row = self._row(case.id, impl, verdict, workload.name, workload.size, workload.seed, dict(workload.params))
        row.update(suite=kernel.suite, baseline=kernel.baseline, unit=kernel.unit)
        if verdict.status != oracle.PASS:
            if verdict.outputs is not None and kernel.summarize is not None:
                row["summary"] = _jsonable(kernel.summarize(verdict.outputs))  # by how much it was off
            self._reject(row, label, verdict, impl)
        timing = self._plan(case, verdict, row, label, f"{case.kernel} {workload.label}",
                            checked_here=checked_s is None)
        if row["samples_s"]:  # a long batch's verification call, its first sample, is judged like any pass
            row["pass_canary_s"].append(around + [len(row["samples_s"])])
        # a first preparation may include one-time costs (loading a JIT's cache): one up to 5x the limit is
        # tried once more, and the second says what preparing costs
        if verdict.prepare_s < 5 * REPREPARE_BELOW_S and timing.call_s * timing.iterations < WARMUP_BELOW_S:
            timing.workload = workload
        self.timings[case.id] = timing

    def _prepare_again(self, case: Case, timing: Timing) -> None:
        """A fresh copy of a quick case's inputs, prepared again, for this pass. Where a batch's arrays land in
        memory sets its speed for as long as they live. Their alignment, the largest part, is fixed (on a cache
        line: swarbench.memory); what is left (which pages, the 4 KiB offsets between arrays) still makes a case
        prepared once per worker a draw of two layouts a run. Preparing it in every pass makes its median one
        over 2 x passes layouts, as Stabilizer (Curtsinger and Berger, ASPLOS 2013) randomizes layout to make a
        measurement repeatable."""
        if timing.workload is None:
            return
        impl = self.registry.implementations[f"{case.kernel}/{case.implementation}"]
        self.phase(case.id, timing.label, "preparing again (fresh inputs)")
        # Memory the last batch let go is what the allocator hands out next, so fresh copies alone alternate
        # between two layouts in a process. A random amount of memory (any offset, up to 2 MiB, every page
        # touched), held while the copy is made, makes each pass's layout a draw of its own.
        ballast = numpy.ones(self.layout_rng.randrange(1, BALLAST_BYTES), dtype=numpy.uint8)
        verdict = oracle.prepare_only(impl, timing.workload.fresh_copy())
        del ballast
        if verdict.batch is None:
            raise RuntimeError(f"preparing again for a later pass: {verdict.status} {verdict.reason}")
        timing.verdict.batch, timing.reprepared = verdict.batch, True
        timing.row["reprepare_s"].append(_finite(verdict.prepare_s))
        if verdict.prepare_s >= REPREPARE_BELOW_S:  # too dear to repeat: this batch serves the passes left
            timing.workload = None

    def _end(self, case: Case, timing: Timing) -> None:
        """A case's last pass is over: check a timed output this worker did not verify, then its result line."""
        kernel, row, outputs = self.registry.kernels[case.kernel], timing.row, timing.outputs
        if not counters.unavailable():  # after the timed rounds, over extra calls: counting never slows them
            row.update(counters.per_op(*counters.count(timing.verdict.batch, timing.call_s), row["n"]))
        if not timing.checked_here or timing.reprepared:
            workload, expected = self.workload(case)
            mismatch = kernel.check(expected, outputs, workload.inputs)
            if mismatch:
                row.update(samples_s=[], pass_canary_s=[], rounds=0, iterations=0)
                impl = self.registry.implementations[f"{case.kernel}/{case.implementation}"]
                self._reject(row, timing.label, oracle.Verdict(oracle.FAIL, f"timed output in worker "
                                                                            f"{self.worker}: {mismatch}"), impl)
        if kernel.summarize is not None:
            row["summary"] = _jsonable(kernel.summarize(outputs))
        self._finish(row, timing.label, _median_text(row))

    def _reject(self, row, label, verdict, impl) -> None:
        row.update(status=verdict.status, reason=verdict.reason)
        self._finish(row, label, f"{verdict.status} {verdict.reason}")
        if verdict.status == oracle.SKIP:
            pytest.skip(verdict.reason)
        if impl.expected_to_fail:
            pytest.xfail(f"{impl.expected_to_fail}: {verdict.reason}")
        pytest.fail(f"{verdict.status}: {verdict.reason}", pytrace=False)

    def run_overhead(self, item: Pass, benchmark) -> None:
        """One pass of an empty-call probe: the first checks it and plans its rounds, the last writes its line.
        It spreads its rounds over the passes as every case does: a probe timed in one stretch of the run has
        its figure, and every overhead-corrected ns/op beside it, set by the machine of that moment."""
        probe, case_id = overhead.PROBE[item.case.implementation], item.case.id
        self.start(case_id)
        if item.index == 1:
            verdict = _verify_probe(probe)
            row = self._row(case_id, probe, verdict, "empty", 1, 0, {})
            row.update(suite="harness", baseline="", unit="empty call")
            if verdict.status != oracle.PASS:
                self._finish(row, case_id, f"{verdict.status} {verdict.reason}")
                pytest.skip(verdict.reason)
            self.timings[case_id] = self._plan(None, verdict, row, case_id, overhead.KERNEL, passes=item.of)
        # (a probe has no inputs to copy: every pass times the one prepared empty call)
        self._next_pass(item, benchmark, lambda timing: self._finish(timing.row, case_id, _median_text(timing.row)))

    def _row(self, case_id, impl, verdict, workload, n, seed, params) -> dict:
        return {
            "event": "result", "case": case_id, "worker": self.worker, "kernel": impl.kernel,
            "implementation": impl.name, "family": impl.family, "workload": workload, "n": n, "seed": seed,
            "params": params, "status": verdict.status, "reason": verdict.reason,
            "expected_to_fail": impl.expected_to_fail, "prepare_s": _finite(verdict.prepare_s),
            "check_s": _finite(verdict.call_s), "samples_s": [], "pass_canary_s": [], "rounds": 0, "iterations": 0,
            "reprepare_s": [], "summary": None,
        }

    def _plan(self, case, verdict, row, label, group, checked_here=True, passes: Optional[int] = None) -> Timing:
        """Rounds and iterations from the batch's steady duration, dealt out over the passes."""
        call_s = _steady_call_s(verdict.batch, verdict.call_s)
        iterations = max(1, math.ceil(ROUND_TARGET_S / call_s))
        max_time = float(self.config.getoption("benchmark_max_time"))
        min_rounds = int(self.config.getoption("benchmark_min_rounds"))
        rounds = max(min_rounds, min(100_000, math.ceil(max_time / (call_s * iterations))))
        if call_s * iterations < SHORT_BATCH_S:
            rounds = max(rounds, self.short_rounds)
        # a long batch's verification call here is its first sample (see the module's docstring)
        first = [verdict.call_s] if checked_here and verdict.call_s >= oracle.LONG_BATCH_S else []
        rounds -= len(first)
        row.update(samples_s=list(first), rounds=len(first), iterations=iterations)
        # the verification call's outputs stand for a long batch's only call here; else they are let go before
        # any timed call makes its own
        outputs, verdict.outputs = (verdict.outputs if rounds <= 0 else None), None
        passes = passes or self.passes
        # pass i times the rounds that fall in its stretch of [0, rounds): fewer rounds than passes land in
        # passes spread over the run (3 of 8: passes 3, 6 and 8), not in the first few
        share = [(i + 1) * rounds // passes - i * rounds // passes for i in range(passes)]
        return Timing(case, verdict, row, label, group, checked_here, call_s, iterations, share, outputs)

    def _time_pass(self, benchmark, timing: Timing, index: int) -> None:
        """Time pass ``index``'s share of a case's rounds with pytest-benchmark (a long batch's later passes
        have none)."""
        rounds, row, of = timing.rounds[index - 1], timing.row, len(timing.rounds)
        if rounds <= 0:
            return
        self.phase(row["case"], timing.label, "timing" + (f" (pass {index} of {of})" if of > 1 else ""))
        batch_s = timing.call_s * timing.iterations
        # a batch's first call in a process is cold (page faults, lazy binding, dispatch): a worker that did not
        # verify it warms it up before its first timed pass. Later passes warm up short batches only: a 50 ms
        # batch refills its caches in a fraction of a percent of its time, and a warm-up call in every pass
        # cost the default run 4 s once --short-rounds gave such batches three passes a worker
        first_here = not timing.checked_here and not row["samples_s"]
        warmup = 1 if batch_s < (oracle.LONG_BATCH_S if first_here else WARMUP_BELOW_S) else 0
        benchmark.group = timing.group
        benchmark.extra_info.update({k: row[k] for k in ("kernel", "implementation", "family", "workload", "n",
                                                         "prepare_s", "status", "worker")})
        before = self.canary()
        try:
            timing.outputs = benchmark.pedantic(timing.verdict.batch, rounds=rounds, iterations=timing.iterations,
                                                warmup_rounds=warmup)
        except BaseException:
            # pytest-benchmark marks a benchmark that raised an Exception as failed, but not one stopped by
            # Ctrl-C: its JSON writer then fails on the empty samples, and the worker ends in a traceback.
            benchmark.has_error = True
            raise
        stats = getattr(benchmark, "stats", None)
        samples = list(stats.stats.data) if stats is not None else []
        row["samples_s"] += samples
        row["rounds"] += rounds
        # how fast the machine itself was on either side of these samples: results sets aside those it slowed
        row["pass_canary_s"].append([before, self.canary(), len(samples)])

    def flush_unfinished(self) -> None:
        """The cases a stopped worker (Ctrl-C, pytest's -x) left between passes: each gets its result line with
        the samples of the passes it finished, so nothing measured is lost. A case another worker verified keeps
        them only if its last timed output is right."""
        for case_id, timing in list(self.timings.items()):
            del self.timings[case_id]
            row = timing.row
            if not row["samples_s"]:
                continue
            if not timing.checked_here or timing.reprepared:
                workload, expected = self.workload(timing.case)
                kernel = self.registry.kernels[timing.case.kernel]
                if timing.outputs is None or kernel.check(expected, timing.outputs, workload.inputs):
                    continue
            row["reason"] = f"stopped after {timing.passes_done} of {len(timing.rounds)} passes"
            self._finish(row, timing.label, _median_text(row))

    def _finish(self, row, label, text):
        self.done += 1
        self.record(row)
        self.say(label, text, final=True)


def _write_pickle(folder: str, path: str, value) -> None:
    """Leave ``value`` at ``path`` for other workers; readers see the whole file or none. Anything that will not
    pickle costs those workers time (they build it again), never the run."""
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".part-")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except Exception:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


def _steady_call_s(batch, first_call_s: float) -> float:
    """A first call pays for page faults and cold caches; a few more calls (at most ~20 ms of them) show the
    steady duration that rounds and iterations should be sized by. Long batches keep the first figure."""
    if not first_call_s < WARMUP_BELOW_S:
        return max(first_call_s, 1e-9)
    best, spent = first_call_s, 0.0
    for _ in range(10):
        t0 = time.perf_counter()
        batch()
        took = time.perf_counter() - t0
        best, spent = min(best, took), spent + took
        if spent > 0.02:
            break
    return max(best, 1e-9)


def _verify_probe(probe: Implementation) -> oracle.Verdict:
    """An empty call has no answer to check; it only has to be available and run."""
    from swarbench.model import Workload

    return oracle.verify_call_only(probe, Workload(overhead.KERNEL, "empty", 1, None))


def _median_text(row) -> str:
    samples = sorted(row["samples_s"])
    median = samples[len(samples) // 2] if samples else float("nan")
    return f"PASS {median / max(row['n'], 1) * 1e9:.4g} ns/op"


def _finite(x: float):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _jsonable(summary) -> dict:
    return json.loads(json.dumps(dict(summary), default=lambda v: v.item() if hasattr(v, "item") else str(v)))


@pytest.fixture(scope="session")
def swarbench_session(request):
    return request.config._swarbench_session


def pytest_configure(config):
    config._swarbench_session = None


def _session(config) -> Session:
    if config._swarbench_session is None:
        config._swarbench_session = Session(config)
        for failure in config._swarbench_session.registry.failures:
            sys.__stderr__.write(f"swarbench: {failure}; skipped\n")
    return config._swarbench_session


def pytest_generate_tests(metafunc):
    config = metafunc.config
    if "swarbench_case" in metafunc.fixturenames:
        passes = _session(config).passes_in_order()
        metafunc.parametrize("swarbench_case", passes, ids=[p.id for p in passes])
    elif "swarbench_probe" in metafunc.fixturenames:
        excluded = set(config.getoption("swarbench_exclude"))
        # a probe is a case of kernel swarbench.overhead, and passes as one
        probes = [Case(overhead.KERNEL, p.name, "empty", 1) for p in overhead.PROBES]
        probes = [c for c in probes if config.getoption("swarbench_overhead") and c.id not in excluded]
        session = _session(config)
        session.total += len(probes)
        passes = [Pass(probe, index, session.passes) for index in range(1, session.passes + 1) for probe in probes]
        metafunc.parametrize("swarbench_probe", passes, ids=[p.id for p in passes])


@pytest.hookimpl(trylast=True)  # after any plugin that deselects items
def pytest_collection_modifyitems(session, config, items):
    """Pass by pass: the probes' pass k (collected first) just before the kernels' pass k."""
    def index(item) -> int:
        params = getattr(getattr(item, "callspec", None), "params", {})
        found = params.get("swarbench_case") or params.get("swarbench_probe")
        return found.index if isinstance(found, Pass) else 0
    items.sort(key=index)  # stable: each pass keeps its own order


@pytest.hookimpl(tryfirst=True)  # before pytest-benchmark's own, which writes its JSON file
def pytest_sessionfinish(session, exitstatus):
    state = getattr(session.config, "_swarbench_session", None)
    if state is not None:
        state.flush_unfinished()


def pytest_collection_finish(session):
    """Tell the engine what this worker is about to run, so progress can say how many are left."""
    state = session.config._swarbench_session
    if state is None:
        return
    ids = []
    for item in session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        # (an empty parametrisation leaves a placeholder item that pytest skips: not a case)
        found = params.get("swarbench_case") or params.get("swarbench_probe")
        if isinstance(found, Pass) and found.index == 1:  # a case once, however many passes it has
            ids.append(found.case.id)
    state.record({"event": "plan", "worker": state.worker, "cases": ids})
