"""swarbench as a library, for notebooks and scripts; the command line's run, report and compare are built on it.

    from swarbench.api import run, load, compare, report

    before = load("latest")                               # the last saved run
    frame = run("cards.*", max_time=0.01, processes=1)    # verify, time, save; the tidy frame back
    print(report(frame))                                  # the text `swarbench run` prints
    change = compare(before, frame)                       # one row per measurement both runs hold

The keyword arguments of ``run`` are the options of ``swarbench run`` (``max_time`` for ``--max-time``) and
the keys of [tool.swarbench] (docs/configuration.md), checked the same way. Importing this module imports
nothing heavy: pandas, SciPy and the engine wait for the first call.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional, Sequence, Union

from swarbench import options as declared
from swarbench.options import EXPORT_FORMATS, FORMATS, OPTIONS, RUN_OPTIONS

if TYPE_CHECKING:
    import pandas as pd

    from swarbench.engine import RunOutcome
    from swarbench.model import ReportSection
    from swarbench.registry import Registry
    from swarbench.run_request import RunRequest
    from swarbench.render import RunView
    from swarbench.runfolder import RunFolder

__all__ = ["run", "load", "compare", "report", "request", "measure", "plugins", "reports_folder"]

Run = Union[str, Path]  # a run id under the reports folder, a run folder, a results.csv, or "latest"
Patterns = Union[str, Sequence[str], None]
SAVED_REPORTS = (("html", "report.html"), ("md", "report.md"))  # written beside every run's results.csv


def reports_folder(reports: Union[str, Path, None] = None) -> Path:
    """Where runs are saved: ``reports`` when given, else $SWARBENCH_REPORTS, else ./reports."""
    return Path(reports) if reports is not None else OPTIONS["reports"].default_value()


def plugins(disable: Iterable[str] = (), local: Iterable[str] = ()) -> Registry:
    """Every installed suite and plugin, less those named (and those in $SWARBENCH_DISABLE_PLUGINS), and the
    local plugins: the files, folders and modules ``local`` names, else ./benchmarks/ (swarbench.local)."""
    from swarbench import local as local_plugins, registry

    return registry.load(disable=list(disable), local=local_plugins.sources(local))


def for_registry(run_request: RunRequest, registry: Registry) -> RunRequest:
    """The request as a run of exactly what ``registry`` holds: its disabled plugins and local plugins go to the
    workers (fresh processes, which load the plugins again), and where it holds local plugins a request that
    names no kernel measures theirs. What a worker could not load (a kernel added by hand, a plugin given as an
    object) is refused in one line rather than left out of the run in silence."""
    import dataclasses

    from swarbench.errors import UsageError

    unloadable = registry.unloadable()
    if unloadable:
        owners = sorted({registry.owners[key] for key in unloadable})
        raise UsageError(
            f"the registry holds {', '.join(unloadable[:3])}{' and more' if len(unloadable) > 3 else ''}"
            f", added {'outside any plugin' if owners == ['?'] else 'by plugin ' + ', '.join(owners)}: "
            f"a run's workers load the plugins again and could not load that; put it in a file and "
            f"run it with plugins=['that_file.py'] (or swarbench run that_file.py)"
        )
    kernels = run_request.kernels
    if not kernels and registry.local_asked:
        kernels = registry.local_kernels()
        if not kernels:
            failed = [str(f) for f in registry.failures if f.plugin in registry.local_asked]
            raise UsageError(
                f"nothing to run: the local plugins ({', '.join(registry.local_asked)}) add no kernel "
                f"or row" + (f"; {failed[0]}" if failed else "")
            )
    return dataclasses.replace(
        run_request,
        kernels=kernels,
        disable=list(registry.disabled),
        plugins=[source.arg for source in registry.local.values()],
    )


def request(kernels: Patterns = None, implementations: Patterns = None, **options: Any) -> RunRequest:
    """The run these options ask for, each checked as its [tool.swarbench] key is (swarbench.options); one not
    given, or given as None, keeps the default of `swarbench run` (see its --help). Raises UsageError naming the
    first bad argument."""
    given = {"kernels": kernels, "implementations": implementations, **options}
    given = {name: value for name, value in given.items() if value is not None}
    return request_of(declared.check(given, "swarbench.run()", python_names=True, allowed=declared.RUN_OPTIONS))


def request_of(values: dict[str, Any]) -> RunRequest:
    """The run of settings already checked (by key), as the command line parses them."""
    from swarbench.run_request import RunRequest

    return RunRequest(**declared.request_fields(values))


def _request_signature() -> inspect.Signature:
    """request's keywords, as help() and editors show them: every option of a run (swarbench.options)."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
        for name in ("kernels", "implementations")
    ]
    params += [
        inspect.Parameter(name, keyword, default=None)
        for name in RUN_OPTIONS
        if name not in ("kernels", "implementations")
    ]
    return inspect.Signature(params)


request.__signature__ = _request_signature()  # type: ignore[attr-defined]


@dataclass
class Measured:
    """A finished run: what the engine returned, and the view every report of it renders."""

    outcome: RunOutcome
    view: RunView
    late_signals: list[str] = field(default_factory=list)  # signals that came while the reports were written


def run_view(registry: Registry, frame: pd.DataFrame, machine: dict, notes: Iterable[str] = ()) -> RunView:
    """The frame with its suites' own sections and the notes a report shows under it (plugin failures first)."""
    from swarbench.render import RunView

    # without its attrs (run folders, machines): pandas deep-copies them into every frame derived from it, which
    # was three quarters of an HTML report's rendering time
    frame = frame.copy(deep=False)
    frame.attrs = {}
    sections, problems = suite_sections(registry, frame)
    return RunView(frame, machine, sections, [str(f) for f in registry.failures] + problems + list(notes))


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


def measure(
    run_request: RunRequest,
    registry: Optional[Registry] = None,
    listener: Optional[Callable] = None,
    command: str = "swarbench.run()",
    fleet_args: Any = None,
) -> Measured:
    """Run the request (verify, then time), save it with its HTML and Markdown reports and its benchmark.json,
    and return it. ``command`` is what the reports' header names as the command that made the run.
    ``fleet_args`` (with ``cluster``, ``machines`` and ``machine_names``, as `swarbench run` parses them) runs
    it on every machine of a Dask cluster instead (docs/fleet.md); ``listener`` then gives each machine's
    progress listener from its name."""
    import signal
    import time

    from swarbench import engine, export
    from swarbench.render import render
    from swarbench.runfolder import RunFolder
    from swarbench.signals import signals_deferred

    registry = registry if registry is not None else plugins(run_request.disable, run_request.plugins)
    run_request = for_registry(run_request, registry)
    started = time.time()
    if fleet_args is not None:
        from swarbench import fleet

        outcome = fleet.run(run_request, fleet_args, registry, listener)
    else:
        outcome = engine.run(run_request, registry, listener)
    notes = list(outcome.problems)
    if outcome.interrupted:
        notes.append(f"interrupted: {len(outcome.frame)} measurement(s) kept")
    # the run's reports are written whole whatever signal comes meanwhile (`kill`, a closed terminal, Ctrl-C):
    # it is said after, and the run counts as interrupted
    with signals_deferred() as deferred:
        view = run_view(registry, outcome.frame, outcome.machine, notes)
        view.info = {"command": command, "duration_s": time.time() - started}
        folder = RunFolder(outcome.run_dir)
        attach_run_files(view, {outcome.run_id: folder})
        export.write(outcome.run_dir, view)
        for fmt, name in SAVED_REPORTS:
            folder.write_text(name, render(fmt, view))
    measured = Measured(outcome, view)
    if deferred:
        outcome.interrupted = True
        measured.late_signals = [signal.Signals(s).name for s in deferred]
    return measured


def attach_run_files(view: RunView, folders: dict[str, RunFolder]) -> RunView:
    """What a report shows that the frame does not keep, read from the run folders before any renderer runs:
    each measurement's samples and timed code (by run id), the problems each run said, and the first run's start,
    length and command line."""
    from swarbench.runfolder import notes_of

    for run_id, folder in folders.items():
        records = folder.records()
        view.samples.update(folder.samples(run_id, records))
        view.code.update(folder.timed_code(run_id, records))
        prefix = f"run {run_id}: " if len(folders) > 1 else ""
        view.notes += [f"{prefix}{note}" for note in notes_of(records) if f"{prefix}{note}" not in view.notes]
    if folders:
        view.info = next(iter(folders.values())).info() | view.info
    return view


def run(
    kernels: Patterns = None,
    implementations: Patterns = None,
    *,
    progress: bool = False,
    registry: Optional[Registry] = None,
    **options: Any,
) -> pd.DataFrame:
    """Verify, then time, the implementations of the kernels matching ``kernels`` (shell patterns, e.g.
    ``"cards.*"``; default all), whose names match ``implementations``; save the run under the reports folder.

    Returns the tidy frame, one row per measurement (docs/api.md names its columns); a wrong implementation
    is a row with status FAIL, never an exception. ``frame.attrs`` holds run_id, run_dir, machine (what it
    ran on), machines (by run id) and interrupted. ``options`` are those of ``request`` (``max_time=0.01,
    processes=1``, ``plugins=["bench_zero.py"]``); ``progress=True`` writes the live progress lines to stderr.
    A problem that is not a row (a plugin that failed to load, a worker that ended oddly) is a warning.
    ``registry`` (from ``plugins()``) runs what it holds; one holding what a worker process could not load
    again (a kernel added by hand) is refused with UsageError.
    """
    run_request = request(kernels, implementations, **options)
    listener = None
    if progress:
        from swarbench.render.live import LiveDisplay

        listener = LiveDisplay(run_request.processes)
    measured = measure(run_request, registry, listener)
    outcome = measured.outcome
    for note in measured.view.notes:
        warnings.warn(f"swarbench: {note}", stacklevel=2)
    frame = outcome.frame
    frame.attrs.update(
        run_id=outcome.run_id,
        run_dir=str(outcome.run_dir),
        machine=outcome.machine,
        machines={outcome.run_id: outcome.machine},
        interrupted=outcome.interrupted,
    )
    return frame


def _folders(runs: Sequence[Run], reports: Union[str, Path, None]) -> list[RunFolder]:
    from swarbench.runfolder import RunFolder

    if not runs:
        from swarbench.errors import UsageError

        raise UsageError("name at least one run (a run id, a run folder, a results.csv, or 'latest')")
    folder = reports_folder(reports)
    return [RunFolder.find(run, folder) for run in runs]


def load(*runs: Run, reports: Union[str, Path, None] = None) -> pd.DataFrame:
    """The tidy frame of saved runs (run ids under ``reports``, run folders, results.csv files, or
    "latest"), several merged into one. ``frame.attrs`` holds machine (the first run's) and machines (each
    run id's), and run_dir when there is one run."""
    import pandas as pd

    folders = _folders(runs, reports)
    frames = [folder.results() for folder in folders]
    machines = {}
    for folder, frame in zip(folders, frames):
        for run_id in frame["run_id"].dropna().astype(str).unique():
            machines[run_id] = folder.machine()
    merged = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    merged.attrs["machines"] = machines
    merged.attrs["machine"] = folders[0].machine()
    merged.attrs["run_dirs"] = {
        str(run_id): str(folder.path)
        for folder, frame in zip(folders, frames)
        for run_id in frame["run_id"].dropna().astype(str).unique()[:1]
    }
    if len(folders) == 1:
        merged.attrs["run_dir"] = str(folders[0].path)
    return merged


def report(
    *runs: Union[Run, pd.DataFrame],
    format: str = "text",
    reports: Union[str, Path, None] = None,
    registry: Optional[Registry] = None,
    against: Optional[Run] = None,
) -> str:
    """A report of saved runs, or of a frame ``run`` or ``load`` returned, in text, md, csv or html (or the
    pytest-benchmark and github-action-benchmark JSON): the common tables and every suite's own section.
    ``against`` adds each measurement's change from that run, as ``compare`` finds it."""
    from swarbench.render import render
    from swarbench.render.summary import change_rows
    from swarbench.runfolder import RunFolder

    if format not in FORMATS + EXPORT_FORMATS:
        from swarbench.errors import UsageError

        raise UsageError(f"format {format!r}: expected one of {', '.join(FORMATS + EXPORT_FORMATS)}")
    frame = runs[0] if len(runs) == 1 and hasattr(runs[0], "attrs") else load(*runs, reports=reports)
    view = run_view(registry if registry is not None else plugins(), frame, frame.attrs.get("machine", {}))
    view.machines = dict(frame.attrs.get("machines", {}))
    run_dirs = dict(frame.attrs.get("run_dirs", {}))
    if not run_dirs and "run_dir" in frame.attrs and frame["run_id"].notna().any():
        run_dirs = {str(frame["run_id"].dropna().astype(str).iloc[0]): frame.attrs["run_dir"]}
    attach_run_files(view, {run_id: RunFolder(folder) for run_id, folder in run_dirs.items()})
    if against is not None:
        view.changes = change_rows(compare(against, _saved(runs[0]), reports=reports))
    if format in EXPORT_FORMATS:
        from swarbench import export

        return export.render_view(format, view)
    return render(format, view)


def compare(
    a: Union[Run, pd.DataFrame],
    b: Union[Run, pd.DataFrame],
    *more: Union[Run, pd.DataFrame],
    reports: Union[str, Path, None] = None,
    relative: bool = True,
    follow: Optional[str] = None,
) -> pd.DataFrame:
    """Each measurement of run ``a`` (the reference) beside the same in ``b`` (and each of ``more``): change of
    the median, its 95% interval, and whether the change is significant; ``relative`` (the default) divides out the drift
    of the whole machine between the runs (see `swarbench compare --help`). A run is named as ``load`` names
    it, or is a frame ``run`` or ``load`` returned for one run. ``follow`` (a plugin's name) keeps that plugin's
    rows, labels each run with the plugin's commit, and lets a run be named by that commit (its latest run)."""
    from swarbench import provenance, run_comparison

    specs, folder = [_saved(r) for r in (a, b, *more)], reports_folder(reports)
    if follow is None:
        return run_comparison.compare(specs, folder, relative=relative)
    runs = provenance.followed_runs(specs, follow, folder)
    frame = run_comparison.compare([spec for spec, _ in runs], folder, relative=relative)
    return provenance.label_runs(frame, runs, follow)


def _saved(run: Union[Run, pd.DataFrame]) -> str:
    """The run a frame came from (compare reads the raw samples saved beside its results.csv)."""
    if not hasattr(run, "attrs"):
        return str(run)
    if "run_dir" not in run.attrs:
        from swarbench.errors import UsageError

        raise UsageError("this frame holds several runs, or none: name the runs to compare")
    return run.attrs["run_dir"]
