"""A run, front to back: check the request, run the benchmarks in a pytest worker, collect the tidy frame.

The benchmarks run in a child ``python -m pytest`` process, so a kernel that crashes the interpreter (a C bug)
cannot take the parent's bookkeeping down with it: the parent still turns whatever the child recorded into
results. The engine returns data; the CLI chooses how to show it.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pandas as pd

from harness import machine as machine_mod
from harness import results
from harness.errors import UsageError
from harness.model import ReportSection, matches
from harness.registry import Registry


@dataclass
class RunRequest:
    kernels: list[str] = field(default_factory=list)
    impls: list[str] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)
    size: Optional[int] = None
    seed: int = 0
    max_time: float = 0.5
    min_rounds: int = 3
    reports_dir: Path = Path("reports")
    disable: list[str] = field(default_factory=list)
    progress: bool = True


@dataclass
class RunOutcome:
    run_id: str
    run_dir: Path
    frame: pd.DataFrame
    machine: dict
    interrupted: bool
    worker_exit: int


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def check_request(request: RunRequest, registry: Registry) -> None:
    """Refuse, with one line, anything the worker would only discover later (or never)."""
    kernels = sorted(registry.kernels)
    if not kernels:
        raise UsageError("no kernels are registered (every plugin failed or is disabled); see `swarbench list`")
    for pattern in request.kernels:
        if not any(matches(k, [pattern]) for k in kernels):
            raise UsageError(f"no kernel matches {pattern!r}; kernels: {', '.join(kernels)}")
    chosen = [k for k in kernels if matches(k, request.kernels)]
    impls = sorted({i.name for k in chosen for i in registry.implementations_of(k)})
    for pattern in request.impls:
        if not any(matches(name, [pattern]) for name in impls):
            raise UsageError(f"no implementation of {', '.join(chosen)} matches {pattern!r}; "
                             f"implementations: {', '.join(impls)}")
    for name in request.workloads:
        if not any(kind.name == name for k in chosen for kind in registry.kernels[k].workloads):
            names = sorted({kind.name for k in chosen for kind in registry.kernels[k].workloads})
            raise UsageError(f"no workload {name!r} for {', '.join(chosen)}; workloads: {', '.join(names)}")
    if request.size is not None:
        if request.size < 1:
            raise UsageError(f"--size must be a positive integer, got {request.size}")
        memory = physical_memory()
        for k in chosen:
            for kind in registry.kernels[k].workloads:
                selected = kind.name in request.workloads if request.workloads else kind.default
                need = request.size * kind.bytes_per_op
                if selected and not kind.fixed_size and memory and need > 0.8 * memory:
                    raise UsageError(f"--size {request.size} needs about {need / 2**30:.1f} GiB for {k} "
                                     f"({kind.name}); this machine has {memory / 2**30:.1f} GiB")
    if request.max_time <= 0:
        raise UsageError(f"--max-time must be positive, got {request.max_time}")
    if request.min_rounds < 1:
        raise UsageError(f"--min-rounds must be at least 1, got {request.min_rounds}")


def new_run_dir(reports_dir: Path) -> tuple[str, Path]:
    run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
    run_dir = (reports_dir / run_id).resolve()
    try:
        run_dir.mkdir(parents=True)
        probe = run_dir / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"cannot write to the reports folder {reports_dir}: {exc.strerror or exc}") from None
    return run_id, run_dir


def worker_command(request: RunRequest, run_dir: Path) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "harness.bench.bench_kernels",
           "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(run_dir),
           "--benchmark-json", str(run_dir / "benchmark.json"),
           "--benchmark-max-time", str(request.max_time), "--benchmark-min-rounds", str(request.min_rounds),
           "--benchmark-disable-gc",
           "--swarbench-record", str(run_dir / results.RECORDS), "--swarbench-seed", str(request.seed)]
    for opt, values in (("--swarbench-kernel", request.kernels), ("--swarbench-impl", request.impls),
                        ("--swarbench-workload", request.workloads),
                        ("--swarbench-disable-plugin", request.disable)):
        for v in values:
            cmd += [opt, v]
    if request.size is not None:
        cmd += ["--swarbench-size", str(request.size)]
    if request.progress:
        cmd.append("--swarbench-progress")
    return cmd


def run(request: RunRequest, registry: Registry) -> RunOutcome:
    check_request(request, registry)
    run_id, run_dir = new_run_dir(request.reports_dir)
    machine = machine_mod.collect()
    results.write_atomic(run_dir / results.MACHINE, json.dumps(machine, indent=2))
    interrupted = False
    with open(run_dir / "pytest.log", "w") as log:
        child = subprocess.Popen(worker_command(request, run_dir), stdout=log, stderr=subprocess.STDOUT,
                                 cwd=run_dir)
        try:
            code = child.wait()
        except KeyboardInterrupt:
            interrupted = True
            # The child got the same Ctrl-C; give it a moment to finish its record file, then stop it.
            try:
                code = child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.send_signal(signal.SIGKILL)
                code = child.wait()
    interrupted = interrupted or code == 2
    frame = results.frame_from_records(results.read_records(run_dir / results.RECORDS), run_id, machine)
    results.save(frame, run_dir)
    return RunOutcome(run_id, run_dir, frame, machine, interrupted, code)


def worker_problem(outcome: RunOutcome) -> str:
    """A line about the worker when it ended for a reason other than test results (0 ok, 1 failures, 5 none)."""
    if outcome.worker_exit in (0, 1, 5) or outcome.interrupted:
        return ""
    lines = (outcome.run_dir / "pytest.log").read_text(errors="replace").strip().splitlines()
    said = [ln for ln in lines if "error" in ln.lower()] or lines[-1:] or ["no output"]
    return f"benchmark worker exited with {outcome.worker_exit}: {said[0].strip()} (see {outcome.run_dir}/pytest.log)"


def suite_sections(registry: Registry, frame: pd.DataFrame) -> tuple[list[ReportSection], list[str]]:
    """Each registered suite report's view of the frame; a report that raises is named, not fatal."""
    sections, problems = [], []
    for report_id, report in sorted(registry.reports.items()):
        try:
            section = report.build(frame)
        except Exception as exc:
            problems.append(f"report {report_id!r} failed: {type(exc).__name__}: {exc}")
            continue
        if section is not None:
            sections.append(section)
    return sections, problems


def failed_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Wrong or broken implementations that are not kept wrong on purpose: these make a run exit non-zero."""
    bad = frame["status"].isin(["FAIL", "ERROR"]) & (frame["expected_to_fail"].fillna("") == "")
    return frame[bad]
