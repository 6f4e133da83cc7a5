"""The pytest plugin that turns every (kernel, implementation, workload) into one pytest-benchmark benchmark.

Loaded by pytest through the ``pytest11`` entry point, so the same benchmarks run under ``swarbench run`` and
under plain ``pytest --pyargs harness.bench.bench_kernels --benchmark-only`` (keeping pytest-benchmark's own
``--benchmark-compare``, ``--benchmark-histogram`` and the rest). Each benchmark first passes the oracle; only
a PASS is timed. Every finished case is appended to the record file at once (one JSON line), so an interrupted
run keeps whatever it had measured.

Rounds and iterations are chosen from the verification call's duration instead of pytest-benchmark's own
calibration: a pure-Python batch of a million operations takes a second, and calibration would run it several
more times before measuring. The verification call (same callable, same inputs) is the warm-up of long batches;
short batches (under 50 ms) also get a pytest-benchmark warm-up round.
"""
from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import dataclass
from typing import Optional

import pytest

from harness import oracle, registry as registry_mod
from harness.model import matches

ROUND_TARGET_S = 1e-3  # a round at least this long keeps timer resolution (<100 ns) under 0.01% of it
WARMUP_BELOW_S = 0.05


@dataclass(frozen=True)
class Case:
    kernel: str
    implementation: str
    workload: str
    size: Optional[int]

    @property
    def id(self) -> str:
        return f"{self.kernel}:{self.implementation}:{self.workload}"


def pytest_addoption(parser):
    group = parser.getgroup("swarbench", "swarbench kernel benchmarks")
    group.addoption("--swarbench-kernel", action="append", default=[], metavar="PATTERN",
                    help="run kernels whose id matches this shell pattern (repeatable)")
    group.addoption("--swarbench-impl", action="append", default=[], metavar="PATTERN",
                    help="run implementations whose name matches this shell pattern (repeatable)")
    group.addoption("--swarbench-workload", action="append", default=[], metavar="NAME",
                    help="run these workload kinds (default: each kernel's default kinds)")
    group.addoption("--swarbench-size", type=int, default=None, metavar="N",
                    help="operations per batch (default: each workload's default size)")
    group.addoption("--swarbench-seed", type=int, default=0, help="seed of the input generators")
    group.addoption("--swarbench-record", default=None, metavar="FILE",
                    help="append one JSON line per finished case to FILE")
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
        self.size = opt("swarbench_size")
        self.seed = opt("swarbench_seed")
        self.record_path = opt("swarbench_record")
        self.progress = opt("swarbench_progress")
        self._workloads: dict = {}
        self.done = 0
        self.total = 0

    def cases(self) -> list[Case]:
        opt = self.config.getoption
        kinds = opt("swarbench_workload")
        out = []
        for kid, kernel in sorted(self.registry.kernels.items()):
            if not matches(kid, opt("swarbench_kernel")):
                continue
            chosen = [k for k in kernel.workloads if (k.name in kinds if kinds else k.default)]
            for kind in chosen:
                for impl in self.registry.implementations_of(kid):
                    if matches(impl.name, opt("swarbench_impl")):
                        out.append(Case(kid, impl.name, kind.name, self.size))
        self.total = len(out)
        return out

    def workload(self, case: Case):
        key = (case.kernel, case.workload)
        if key not in self._workloads:
            # Keep one kernel's workloads at a time: a million-pair workload and its reference are large.
            self._workloads = {k: v for k, v in self._workloads.items() if k[0] == case.kernel}
            kernel = self.registry.kernels[case.kernel]
            workload = kernel.make_workload(kernel.workload_kind(case.workload), case.size, self.seed)
            self._workloads[key] = (workload, oracle.reference_outputs(kernel, workload))
        return self._workloads[key]

    def say(self, case: Case, what: str, final: bool = False) -> None:
        if not self.progress:
            return
        line = f"[{self.done + (1 if not final else 0):>3}/{self.total}] {case.kernel} {case.implementation} " \
               f"({case.workload}): {what}"
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

    def run_case(self, case: Case, benchmark) -> None:
        kernel = self.registry.kernels[case.kernel]
        impl = self.registry.implementations[f"{case.kernel}/{case.implementation}"]
        self.say(case, "generating inputs")
        workload, expected = self.workload(case)
        self.say(case, "checking")
        verdict = oracle.verify(kernel, impl, workload, expected)
        row = {
            "kernel": case.kernel, "suite": kernel.suite, "implementation": impl.name, "family": impl.family,
            "workload": workload.name, "n": workload.size, "seed": workload.seed,
            "params": dict(workload.params), "status": verdict.status, "reason": verdict.reason,
            "expected_to_fail": impl.expected_to_fail, "prepare_s": _finite(verdict.prepare_s),
            "check_s": _finite(verdict.call_s), "baseline": kernel.baseline, "unit": kernel.unit,
            "samples_s": [], "rounds": 0, "iterations": 0, "summary": None,
        }
        if verdict.status != oracle.PASS:
            self.done += 1
            self.record(row)
            self.say(case, f"{verdict.status} {verdict.reason}", final=True)
            if verdict.status == oracle.SKIP:
                pytest.skip(verdict.reason)
            if impl.expected_to_fail:
                pytest.xfail(f"{impl.expected_to_fail}: {verdict.reason}")
            pytest.fail(f"{verdict.status}: {verdict.reason}", pytrace=False)

        self.say(case, "timing")
        call_s = max(verdict.call_s, 1e-9)
        iterations = max(1, math.ceil(ROUND_TARGET_S / call_s))
        max_time = float(self.config.getoption("benchmark_max_time"))
        min_rounds = int(self.config.getoption("benchmark_min_rounds"))
        rounds = max(min_rounds, min(100_000, math.ceil(max_time / (call_s * iterations))))
        warmup = 1 if call_s * iterations < WARMUP_BELOW_S else 0
        benchmark.group = f"{case.kernel} {workload.label}"
        benchmark.extra_info.update({k: row[k] for k in ("kernel", "implementation", "family", "workload", "n",
                                                         "prepare_s", "status")})
        outputs = benchmark.pedantic(verdict.batch, rounds=rounds, iterations=iterations, warmup_rounds=warmup)
        stats = getattr(benchmark, "stats", None)
        samples = list(stats.stats.data) if stats is not None else []
        if kernel.summarize is not None:
            row["summary"] = _jsonable(kernel.summarize(outputs))
        row.update(samples_s=samples, rounds=rounds, iterations=iterations)
        self.done += 1
        self.record(row)
        median = sorted(samples)[len(samples) // 2] if samples else float("nan")
        self.say(case, f"PASS {median / max(workload.size, 1) * 1e9:.4g} ns/op", final=True)


def _finite(x: float):
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


def _jsonable(summary) -> dict:
    return json.loads(json.dumps(dict(summary), default=lambda v: v.item() if hasattr(v, "item") else str(v)))


@pytest.fixture(scope="session")
def swarbench_session(request):
    return request.config._swarbench_session


def pytest_configure(config):
    config._swarbench_session = None


def pytest_generate_tests(metafunc):
    if "swarbench_case" not in metafunc.fixturenames:
        return
    config = metafunc.config
    if config._swarbench_session is None:
        config._swarbench_session = Session(config)
        for failure in config._swarbench_session.registry.failures:
            sys.__stderr__.write(f"swarbench: {failure}; skipped\n")
    cases = config._swarbench_session.cases()
    metafunc.parametrize("swarbench_case", cases, ids=[c.id for c in cases])
