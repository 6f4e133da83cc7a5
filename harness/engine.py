"""A run, front to back: check the request, run the benchmarks in worker processes, collect the tidy frame.

The benchmarks run in child ``python -m pytest`` processes, one after another (never side by side: two
workers on two cores would measure each other). Each worker is fresh, runs kernels and implementations in an
order shuffled by its own seed, and times its share of ``--max-time``; the frame merges their samples and keeps
each worker's own median, since a shared machine's slow spells show up as a difference between workers, not
within one (docs/measurement.md).

The parent supervises each worker through the record file (a ``start`` line before each case, a ``result``
line after): a worker killed by a signal (a segfault in C) or stuck past ``--timeout`` is stopped, the case it
was in is recorded as crashed or timed out, and a fresh worker carries on with the cases that remain. The
engine returns data; the CLI chooses how to show it.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pandas as pd

from swarbench import machine as machine_mod
from swarbench import files, oracle, prebuild, results
from swarbench.bench.cases import workload_keys
from swarbench.bench.records import RECORD_FAILED_EXIT
from swarbench.bench.workload_cache import WorkloadCache
from swarbench.errors import UsageError
from swarbench.machine_load import LoadMonitor
from swarbench.model import ReportSection, matches
from swarbench.registry import Registry


INTERRUPT_GRACE_S = 10  # an interrupted worker's time to write what it measured before it is stopped
# Signals that end a run the way Ctrl-C does (what measured so far is saved): `kill`, a CI job's timeout, a
# closed terminal
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stop signal other than Ctrl-C (STOP_SIGNALS), taken as one. Unlike Ctrl-C from a terminal it reaches
    this process alone, so the worker has to be told."""
CACHE = "cache"  # workloads and reference outputs the workers of a run share; removed when the run ends


@dataclass
class RunRequest:
    kernels: list[str] = field(default_factory=list)
    impls: list[str] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # empty: each workload's own size; several: scaling mode
    seed: int = 0
    max_time: float = 0.1
    min_rounds: int = 1
    # timed calls a measurement of a batch under bench.options.SHORT_BATCH_S gets at least, dealt out over the
    # workers, whatever --max-time: enough that one slow spell cannot decide its median (docs/measurement.md)
    short_rounds: int = 6
    reports_dir: Path = Path("reports")
    disable: list[str] = field(default_factory=list)
    processes: int = 1
    passes: int = 6  # interleaved passes through the whole run, in every worker
    settle: int = 0  # extra workers, at most, for the cases whose workers disagree (see unsettled_cases)
    timeout: float = 600.0
    overhead: bool = True
    params: dict[str, str] = field(default_factory=dict)  # --param NAME=VALUE for the workloads that declare NAME
    # keep samples the canary found the machine slowed for in the medians; False sets them aside
    # (--set-aside-slowed; docs/measurement.md says why that is no longer the default)
    keep_slowed: bool = True


@dataclass
class RunOutcome:
    run_id: str
    run_dir: Path
    frame: pd.DataFrame
    machine: dict
    interrupted: bool
    problems: list[str] = field(default_factory=list)


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
    for name, value in request.params.items():
        declaring = [kind for k in chosen for kind in registry.kernels[k].workloads if name in kind.parameters]
        kinds = [kind for kind in declaring if (kind.name in request.workloads if request.workloads else kind.default)]
        if not declaring:
            declared = sorted({p for k in chosen for kind in registry.kernels[k].workloads for p in kind.parameters})
            raise UsageError(f"no workload of {', '.join(chosen)} takes --param {name} "
                             f"(parameters: {', '.join(declared) or 'none'})")
        if not kinds:  # given, but nothing this run builds would read it
            raise UsageError(f"--param {name} is for workload {', '.join(sorted({k.name for k in declaring}))}, "
                             f"which this run does not select (add --workload)")
        for kind in kinds:
            kind.parameters[name].parse(value)  # InvalidInput names the bad value: one line, before any worker
    for size in request.sizes:
        if size < 1:
            raise UsageError(f"--size must be a positive integer, got {size}")
        for k in chosen:
            for kind in registry.kernels[k].workloads:
                selected = kind.name in request.workloads if request.workloads else kind.default
                if selected and not kind.fixed_size and kind.max_size is not None and size > kind.max_size:
                    raise UsageError(f"--size {size} is beyond workload {kind.name} of {k}, which goes up to "
                                     f"{kind.max_size}")
    # Every case keeps its prepared batch until the run's last pass, so the sized workloads are summed.
    needs = [(size * kind.bytes_per_op, f"{k} ({kind.name}, n={size})") for k in chosen
             for kind in registry.kernels[k].workloads for size in request.sizes
             if (kind.name in request.workloads if request.workloads else kind.default) and not kind.fixed_size]
    memory, need = physical_memory(), sum(n for n, _ in needs)
    if memory and need > 0.8 * memory:
        largest = max(needs)
        raise UsageError(f"--size {','.join(map(str, request.sizes))} needs about {need / 2**30:.1f} GiB for this run's "
                         f"workloads together (the largest: {largest[1]}, {largest[0] / 2**30:.1f} GiB); "
                         f"this machine has {memory / 2**30:.1f} GiB")
    for name, value, low in (("--max-time", request.max_time, 0), ("--timeout", request.timeout, 0)):
        if not value > low:
            raise UsageError(f"{name} must be positive, got {value}")
    for name, value in (("--min-rounds", request.min_rounds), ("--processes", request.processes),
                        ("--passes", request.passes)):
        if value < 1:
            raise UsageError(f"{name} must be at least 1, got {value}")
    for name, value in (("--settle", request.settle), ("--short-rounds", request.short_rounds)):
        if value < 0:
            raise UsageError(f"{name} must be 0 or more, got {value}")


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


def long_cases(records: list[dict]) -> list[str]:
    """Cases whose verification call took oracle.LONG_BATCH_S or more. Their --min-rounds are dealt out one per
    worker to the first workers; a later worker would only repeat seconds of pure Python for a sample nobody
    asked for, so it leaves them out."""
    return sorted({r["case"] for r in records if r.get("event") == "result" and r.get("status") == "PASS"
                   and (r.get("check_s") or 0) >= oracle.LONG_BATCH_S})


def worker_short_rounds(request: RunRequest, worker: int) -> int:
    """Worker i's share of --short-rounds, dealt out one by one (5 over 2 workers: 3 and 2); a settling worker
    takes the last worker's share."""
    rest = request.short_rounds - min(worker, request.processes - 1)
    return -(-max(rest, 0) // request.processes)


def worker_min_rounds(request: RunRequest, worker: int) -> int:
    """Worker i's share of --min-rounds, dealt out one by one (3 over 2 workers: 2 and 1), at least one each."""
    return max(1, -(-(request.min_rounds - worker) // request.processes))


def unsettled_cases(records: list[dict]) -> list[str]:
    """Passed cases whose workers' medians lie further apart than results.SPLIT_WORKERS (of the merged median),
    long batches aside. Two workers that disagree leave the merged median anywhere between them: on a shared
    machine one of them caught a slow spell. A further worker for those cases outvotes it."""
    out = []
    for rec in results.merge_records(records):
        workers = rec["worker_samples_s"]
        if rec.get("status") != oracle.PASS or len(workers) < 2 or rec.get("kernel") == "swarbench.overhead":
            continue
        if (rec.get("check_s") or 0) >= oracle.LONG_BATCH_S:
            continue
        medians = [float(np.median(w)) for w in workers]
        if (max(medians) - min(medians)) / float(np.median(rec["samples_s"])) > results.SPLIT_WORKERS:
            out.append(rec["case"])
    return sorted(out)


def worker_command(request: RunRequest, run_dir: Path, worker: int, exclude: list[str],
                   only: Optional[list[str]] = None) -> list[str]:
    """The pytest command of worker ``worker``; an extra worker (from request.processes on) runs ``only``."""
    share = request.max_time / request.processes  # the timing budget is shared: more workers cost no more time
    cmd = [sys.executable, "-m", "pytest", "--pyargs", "swarbench.bench.bench_kernels",
           # hypothesis's pytest plugin, when installed, only slows a worker's start
           "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-o", "addopts=", "--rootdir", str(run_dir),
           "--benchmark-json", str(run_dir / f"benchmark-w{worker}.json"),
           "--benchmark-max-time", repr(share), "--benchmark-min-rounds", str(worker_min_rounds(request, worker)),
           "--benchmark-disable-gc", "--swarbench-cache", str(run_dir / CACHE),
           # the last worker only reads the cache: nobody comes after it (a 5p8c reference pickles to 1 GiB)
           *(["--swarbench-cache-readonly"] if worker >= request.processes - 1 else []),
           "--swarbench-record", str(run_dir / results.RECORDS), "--swarbench-seed", str(request.seed),
           "--swarbench-worker", str(worker), "--swarbench-order-seed", str(worker),
           "--swarbench-passes", str(request.passes),
           "--swarbench-short-rounds", str(worker_short_rounds(request, worker))]
    for opt, values in (("--swarbench-kernel", request.kernels), ("--swarbench-impl", request.impls),
                        ("--swarbench-workload", request.workloads), ("--swarbench-disable-plugin", request.disable),
                        ("--swarbench-exclude", exclude), ("--swarbench-size", [str(n) for n in request.sizes]),
                        ("--swarbench-param", [f"{k}={v}" for k, v in request.params.items()]),
                        ("--swarbench-case", only or [])):
        for v in values:
            cmd += [opt, v]
    if request.overhead and only is None:
        cmd.append("--swarbench-overhead")
    return cmd


@dataclass
class WorkerEnd:
    kind: str  # "done", "crashed", "timeout", "interrupted"
    code: int
    case: Optional[str] = None
    detail: str = ""


class RecordTail:
    """Follows the record file as workers append to it: which case each worker is in, and since when."""

    def __init__(self, path: Path, listener: Optional[Callable[[dict], None]] = None):
        self.path = path
        self.listener = listener  # told of every event, for a progress display
        self.offset = 0
        self.running: dict[int, tuple[str, float]] = {}  # worker -> (case id, start time)
        self.finished: dict[int, set[str]] = {}

    def poll(self) -> list[dict]:
        """Read what was appended since the last poll; returns the new events."""
        if not self.path.exists():
            return []
        with open(self.path, "rb") as fh:
            fh.seek(self.offset)
            chunk = fh.read()
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written waits for the next poll
        self.offset += len(complete)
        events = []
        for line in complete.decode(errors="replace").splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            events.append(event)
            worker, case = event.get("worker", 0), event.get("case", "")
            if event.get("event") == "start":
                self.running[worker] = (case, float(event.get("t", time.time())))
            elif event.get("event", "result") == "result":
                self.finished.setdefault(worker, set()).add(case)
                if self.running.get(worker, ("",))[0] == case:
                    self.running.pop(worker)
        if self.listener:
            for event in events:
                self.listener(event)
        return events


def supervise(cmd: list[str], cwd: Path, log, tail: RecordTail, worker: int, timeout: float) -> WorkerEnd:
    child = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=cwd)
    try:
        return _watch(child, tail, worker, timeout, LoadMonitor(tail.path, worker))
    finally:  # whatever ends the watch (a second Ctrl-C in the middle of the first's handling), no worker outlives it
        if child.poll() is None:
            child.kill()
            child.wait()


def _watch(child: subprocess.Popen, tail: RecordTail, worker: int, timeout: float,
           load: LoadMonitor | None = None) -> WorkerEnd:
    try:
        while True:
            try:
                code = child.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            if load is not None:  # what else the machine is doing meanwhile (swarbench.machine_load)
                load.poll(child.pid)
            tail.poll()
            running = tail.running.get(worker)
            if running and time.time() - running[1] > timeout:
                child.kill()
                child.wait()
                tail.poll()
                tail.running.pop(worker, None)
                return WorkerEnd("timeout", -9, running[0], f"timed out after {timeout:g} s")
    except KeyboardInterrupt as exc:
        if isinstance(exc, Stopped):  # the worker did not get it: tell it as Ctrl-C would have
            child.send_signal(signal.SIGINT)
        stop_interrupted(child, tail)
        return WorkerEnd("interrupted", 130)
    tail.poll()
    running = tail.running.pop(worker, None)
    if code in (2, -signal.SIGINT):
        # pytest's own exit for an interrupt that reached the worker and not us (a fleet's machine), or the
        # worker's death by one that escaped pytest (landing after its last case, in the session's end)
        return WorkerEnd("interrupted", code)
    if code < 0 and running:
        try:
            name = f", {signal.Signals(-code).name}"
        except ValueError:
            name = ""
        return WorkerEnd("crashed", code, running[0], f"crashed (signal {-code}{name})")
    if code > RECORD_FAILED_EXIT:  # the worker could not write its records: its error, where it wrote them
        errno = code - RECORD_FAILED_EXIT
        raise OSError(errno, os.strerror(errno), str(tail.path))
    if running and running[0] not in tail.finished.get(worker, set()):
        # a worker that ends of itself in the middle of a case (os._exit, any other code): nobody interrupted it,
        # so the case it was in killed it. (A case already reported, failed in its first pass, starts its later
        # passes only to be skipped.)
        return WorkerEnd("crashed", code, running[0], f"crashed (its worker process exited with code {code})")
    return WorkerEnd("done", code)


def stop_interrupted(child: subprocess.Popen, tail: RecordTail) -> None:
    """The worker got the same Ctrl-C: give it INTERRUPT_GRACE_S to write the result lines of what it measured,
    then stop it. A worker that starts or times anything meanwhile did not see the interrupt (code of a plugin's
    swallowed it), and is sent another, as a user would press Ctrl-C again."""
    interrupted = time.time()
    deadline = interrupted + INTERRUPT_GRACE_S
    try:
        while child.poll() is None and time.time() < deadline:
            # (a line written as the interrupt arrived can carry a time just after it: only a later one counts)
            if any(event.get("event") in ("start", "phase") and _seconds_after(event, interrupted) > 0.5
                   for event in tail.poll()):
                child.send_signal(signal.SIGINT)
            time.sleep(0.1)
    except KeyboardInterrupt:  # a second Ctrl-C: stop waiting for the worker; what it wrote is kept
        pass
    if child.poll() is None:
        child.kill()
        child.wait()
    tail.poll()


def _seconds_after(event: dict, moment: float) -> float:
    try:
        return float(event.get("t")) - moment
    except (TypeError, ValueError):
        return 0.0


def lost_case_record(case_id: str, end: WorkerEnd, worker: int, registry: Registry, seen: list[dict]) -> dict:
    """The result line a worker could not write: the case it died in, and what ended it."""
    kernel, impl, workload, size = case_id.split(":", 3)
    k = registry.kernels.get(kernel)
    i = registry.implementations.get(f"{kernel}/{impl}")
    same = [r for r in seen if r.get("kernel") == kernel and r.get("workload") == workload
            and str(r.get("case", "")).endswith(":" + size) and r.get("n")]
    if same:
        n = same[0]["n"]
    elif size[2:].isdigit():
        n = int(size[2:])
    else:
        n = k.workload_kind(workload).default_size if k else 0
    return {"event": "result", "case": case_id, "worker": worker, "kernel": kernel, "implementation": impl,
            "family": i.family if i else "", "workload": workload, "n": n, "seed": 0, "params": {},
            "status": "CRASH" if end.kind == "crashed" else "TIMEOUT", "reason": end.detail,
            "expected_to_fail": i.expected_to_fail if i else "", "prepare_s": None, "check_s": None,
            "samples_s": [], "rounds": 0, "iterations": 0, "summary": None, "suite": kernel.split(".")[0],
            "baseline": k.baseline if k else "", "unit": k.unit if k else ""}


def run(request: RunRequest, registry: Registry, listener: Optional[Callable[[dict], None]] = None) -> RunOutcome:
    """Run the request; ``listener`` is told of each worker event (plan, start, result) as it happens."""
    check_request(request, registry)
    request, spec_problems = without_broken_specs(request, registry)
    run_id, run_dir = new_run_dir(request.reports_dir)
    machine = machine_mod.collect()
    files.write_atomic(run_dir / results.MACHINE, json.dumps(machine, indent=2))
    record_path = run_dir / results.RECORDS
    # the run's own choices that its statistics depend on come first, so a later report or compare repeats them
    files.write_atomic(record_path, json.dumps({"event": "run", results.KEEP_SLOWED: request.keep_slowed}) + "\n")
    tail = RecordTail(record_path, listener)
    problems: list[str] = list(spec_problems)
    unwritten: Optional[OSError] = None
    with stop_signals_interrupt():
        try:
            build_first(request, registry, record_path, tail)
            threading.Thread(target=import_statistics, daemon=True).start()
            interrupted = not run_workers(request, registry, run_dir, record_path, tail, problems)
        except KeyboardInterrupt:  # between workers, or a second Ctrl-C: what the records hold is saved below
            interrupted = True
        except OSError as exc:  # the records could not be written (a full disk): what they hold is saved below
            interrupted, unwritten = True, exc
    with signals_deferred() as deferred:  # an interrupt now would lose the whole run's results file
        shutil.rmtree(run_dir / CACHE, ignore_errors=True)  # (which may free the space the results need)
        frame = results.frame_from_records(results.read_records(record_path), run_id, machine)
        try:
            results.save(frame, run_dir)
        except OSError:
            if unwritten is None:
                raise
    if unwritten is not None:  # the first error is the one to tell
        raise unwritten
    return RunOutcome(run_id, run_dir, frame, machine, interrupted or bool(deferred), problems)


def import_statistics() -> None:
    """scipy.stats, which the frame's intervals need once the workers end, imported while the first worker
    starts (its own imports, on the other core, before it times anything): a second or two off every run."""
    try:
        import scipy.stats  # noqa: F401
    except Exception:  # the frame meets the same error and reports it
        pass


@contextmanager
def stop_signals_interrupt():
    """STOP_SIGNALS raise Stopped (a KeyboardInterrupt) while the workers run, so they end a run as Ctrl-C
    does. Signal handlers can only be set in the main thread; elsewhere (a test's thread) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Stopped(signal.Signals(signum).name)

    before = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


@contextmanager
def signals_deferred():
    """Ctrl-C and STOP_SIGNALS are held back while the results file is written, and reported afterwards in the
    list this yields (non-empty: the run was interrupted)."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    before = {sig: signal.signal(sig, lambda signum, frame: caught.append(signum))
              for sig in (signal.SIGINT, *STOP_SIGNALS)}
    try:
        yield caught
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def workload_builds(request: RunRequest, registry: Registry, folder: Path) -> list[Callable[[], None]]:
    """Each workload of the run with its reference outputs, built in the build step into the run's cache, where
    the first worker finds them: they share the cores with the compiles instead of taking turns with the
    measurements (the default run's references take seconds of pure Python). Only the default workloads at
    their own sizes: a workload or size named on the command line may be huge (5p8c's reference pickles to a
    GiB), and its worker builds it in memory, with a progress bar, as before."""
    if request.workloads or request.sizes:
        return []
    cache = WorkloadCache(registry, request.seed, request.params, str(folder), writes=True)
    keys = workload_keys(registry, request.kernels, request.impls, [], [None])
    return [functools.partial(cache.prime, *key) for key in keys]


def build_first(request: RunRequest, registry: Registry, record_path: Path, tail: RecordTail) -> None:
    """The selected implementations' builds, side by side before the first worker (swarbench.prebuild); a
    ``build`` line in the records says how many and how long, for the progress display and later reading."""
    done = prebuild.for_run(registry, request.kernels, request.impls, request.overhead,
                            workloads=workload_builds(request, registry, record_path.parent / CACHE))
    if done is not None:
        files.append_line(record_path, json.dumps({"event": "build", "builds": done.builds, "failed": done.failed,
                                                   "workloads": done.workloads, "seconds": round(done.seconds, 3),
                                                   "t": time.time()}))
        tail.poll()


def run_workers(request: RunRequest, registry: Registry, run_dir: Path, record_path: Path, tail: RecordTail,
                problems: list[str]) -> bool:
    """Every worker of the run, one after another, and the settling ones; False once interrupted."""
    with open(run_dir / "pytest.log", "w") as log:
        def run_worker(worker: int, only: Optional[list[str]] = None) -> bool:
            """Run one worker to its end, a fresh one after each crash; False once interrupted."""
            while True:
                done = sorted(tail.finished.get(worker, set()))
                if worker >= request.min_rounds:
                    done += long_cases(results.read_records(record_path))
                end = supervise(worker_command(request, run_dir, worker, done, only), run_dir, log, tail, worker,
                                request.timeout)
                if end.kind == "interrupted":
                    return False
                if end.kind in ("crashed", "timeout"):
                    lost = lost_case_record(end.case, end, worker, registry, results.read_records(record_path))
                    files.append_line(record_path, json.dumps(lost))
                    tail.poll()  # the listener hears of the lost case like any other result
                    continue  # a fresh worker takes the cases that remain
                if end.code not in (0, 1, 5):
                    problems.append(worker_log_problem(run_dir, end.code))
                return True

        if not all(run_worker(w) for w in range(request.processes)):  # all() stops at the first False
            return False
        for extra in range(request.settle):
            unsettled = unsettled_cases(results.read_records(record_path))
            if not unsettled:
                break
            if not run_worker(request.processes + extra, unsettled):
                return False
    return True


def without_broken_specs(request: RunRequest, registry: Registry) -> tuple[RunRequest, list[str]]:
    """The request less the kernels whose reference disagrees with their own known answers, and a line for each:
    the spec is to blame, once, rather than every implementation failing against it. Nothing left is bad input."""
    broken = oracle.plugin_spec_problems(registry, request.kernels)
    if not broken:
        return request, []
    kept = [k for k in sorted(registry.kernels) if matches(k, request.kernels) and k not in broken]
    if not kept:
        raise UsageError(next(iter(broken.values())))
    return dataclasses.replace(request, kernels=kept), list(broken.values())


def worker_log_problem(run_dir: Path, code: int) -> str:
    """A line about a worker that ended for a reason other than test results (0 ok, 1 failures, 5 none)."""
    lines = (run_dir / "pytest.log").read_text(errors="replace").strip().splitlines()
    said = [ln for ln in lines if "error" in ln.lower()] or lines[-1:] or ["no output"]
    return f"benchmark worker exited with {code}: {said[0].strip()} (see {run_dir}/pytest.log)"


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
    bad = frame["status"].isin(["FAIL", "ERROR", "CRASH", "TIMEOUT"]) & (frame["expected_to_fail"].fillna("") == "")
    return frame[bad]
