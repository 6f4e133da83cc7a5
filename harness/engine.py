"""A run, front to back: check the request, build what the run needs, run the benchmarks in worker processes
(swarbench.workers, each watched by swarbench.supervision), collect the tidy frame and save it.

Ctrl-C and the stop signals (swarbench.signals) end a run with what was measured kept: the frame is built from
the records whatever happened, with the signals held back while it is written. The engine returns data; the CLI
chooses how to show it.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import pandas as pd

from swarbench import machine as machine_mod
from swarbench import prebuild, provenance, results
from swarbench.bench.cases import workload_keys
from swarbench.bench.workload_cache import WorkloadCache
from swarbench.registry import Registry
from swarbench.run_request import RunRequest, check_request, without_broken_specs
from swarbench.runfolder import CACHE, BuildLine, Record, RunFolder, notes_of
from swarbench.signals import signals_deferred, stop_signals_interrupt
from swarbench.supervision import RecordTail
from swarbench.workers import run_workers


@dataclass
class RunOutcome:
    run_id: str
    run_dir: Path
    frame: pd.DataFrame
    machine: dict
    interrupted: bool
    problems: list[str] = field(default_factory=list)


def run(request: RunRequest, registry: Registry, listener: Optional[Callable[[Record], None]] = None) -> RunOutcome:
    """Run the request; ``listener`` is told of each worker event (plan, start, result) as it happens."""
    check_request(request, registry)
    # the workers load the plugins again: the local ones this registry holds, by their sources
    request = dataclasses.replace(request, plugins=[source.arg for source in registry.local.values()])
    request, spec_problems = without_broken_specs(request, registry)
    folder = RunFolder.create(request.reports_dir)
    run_id, run_dir = folder.run_id, folder.path
    machine = machine_mod.collect()
    machine["plugins"] = provenance.of_run(registry, request.kernels, request.impls)
    folder.write_machine(machine)
    folder.begin(request.keep_slowed)
    tail = RecordTail(folder, listener)
    problems: list[str] = list(spec_problems)
    unwritten: Optional[OSError] = None
    with stop_signals_interrupt():
        try:
            build_first(request, registry, folder, tail)
            threading.Thread(target=import_statistics, daemon=True).start()
            interrupted = not run_workers(request, registry, folder, tail, problems)
        except KeyboardInterrupt:  # between workers, or a second Ctrl-C: what the records hold is saved below
            interrupted = True
        except OSError as exc:  # the records could not be written (a full disk): what they hold is saved below
            interrupted, unwritten = True, exc
    with signals_deferred() as deferred:  # an interrupt now would lose the whole run's results file
        shutil.rmtree(run_dir / CACHE, ignore_errors=True)  # (which may free the space the results need)
        keep_notes(folder, problems)
        records = folder.records(strict=False)  # a line no worker should have written costs that line only
        frame = results.frame_from_records(records, run_id, machine)
        problems = list(dict.fromkeys(problems + notes_of(records)))
        try:
            folder.save(frame)
        except OSError:
            if unwritten is None:
                raise
    if unwritten is not None:  # the first error is the one to tell
        raise unwritten
    return RunOutcome(run_id, run_dir, frame, machine, interrupted or bool(deferred), problems)


def keep_notes(folder: RunFolder, problems: list[str]) -> None:
    """The engine's own problems (a spec left out, a worker that ended oddly) kept in the run's records, where
    a later `swarbench report` of the run finds them; on a full disk the run's results come first."""
    try:
        for problem in problems:
            folder.note(problem)
    except OSError:
        pass


def import_statistics() -> None:
    """scipy.stats, which the frame's intervals need once the workers end, imported while the first worker
    starts (its own imports, on the other core, before it times anything): a second or two off every run."""
    try:
        import scipy.stats  # noqa: F401
    except Exception:  # the frame meets the same error and reports it
        pass


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


def build_first(request: RunRequest, registry: Registry, folder: RunFolder, tail: RecordTail) -> None:
    """The selected implementations' builds, side by side before the first worker (swarbench.prebuild); a
    ``build`` line in the records says how many and how long, for the progress display and later reading."""
    done = prebuild.for_run(
        registry,
        request.kernels,
        request.impls,
        request.overhead,
        workloads=workload_builds(request, registry, folder.path / CACHE),
    )
    if done is not None:
        folder.append(BuildLine(done.builds, done.failed, done.workloads, round(done.seconds, 3), time.time()))
        tail.poll()
