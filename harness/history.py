"""`swarbench history`: every saved run under the reports folder, grouped by machine and commit, for one page of
each kernel's medians across commits (asv's view, with no server).

A commit with several runs stands for itself by its latest run; every run is counted, and a folder that cannot be
shown (unreadable, or with nothing measured) is counted too, with why, on the page and in the command's line.
With ``follow`` (a plugin's name, `history --follow benchmarks/zero.py`) the commits are that plugin's
(swarbench.provenance), the runs that did not measure it are left out, and only its rows are shown: your code's
history, not swarbench's.

Between neighbouring commits each measurement is compared as `swarbench compare` does by default
(swarbench.run_comparison.compare_pair, against its workload's drift), so a change the page marks is one compare
would call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from swarbench import files, provenance, results, run_comparison as compare
from swarbench.errors import UsageError
from swarbench.runfolder import RECORDS, RESULTS_CSV, MeasurementKey, RunFolder, Status

KEY = list(MeasurementKey._fields)


@dataclass
class Run:
    run_id: str
    folder: Path
    machine: str
    commit: str
    frame: object  # the run's results frame


@dataclass
class Point:
    slot: int  # the commit's place, oldest first
    median: float
    low: float
    high: float
    runs: int  # runs of this commit that measured it
    change: dict | None = None  # compare's row against the previous commit that measured it


@dataclass
class Line:
    kernel: str
    implementation: str
    workload: str
    n: int
    points: list[Point] = field(default_factory=list)


@dataclass
class MachineHistory:
    machine: str
    commits: list[str]  # labels, oldest first
    runs: list[int]  # runs per commit
    lines: list[Line]


@dataclass
class Found:
    """The runs under a reports folder the page shows, and those it leaves out, with why (by reason)."""

    runs: list[Run]
    left_out: dict[str, list[str]] = field(default_factory=dict)  # why -> the folders left out for it

    @property
    def summary(self) -> str:
        """How many runs the page holds and how many it left out, and why: "300 runs; 2 left out: ..."."""
        text = f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''}"
        count = sum(len(v) for v in self.left_out.values())
        if count:
            text += f"; {count} left out: " + "; ".join(
                f"{len(names)} {why} ({', '.join(names[:3])}{', ...' if len(names) > 3 else ''})"
                for why, names in self.left_out.items()
            )
        return text


def find_runs(reports_dir: Path, follow: str | None = None) -> Found:
    """Every run folder under ``reports_dir`` (one with results.csv, or with the records of a run stopped before
    it could write one); a folder that cannot be shown is counted with why, never passed over in silence."""
    if not reports_dir.is_dir():
        raise UsageError(f"no reports folder {reports_dir}: run `swarbench run` first, or give --reports DIR")
    found = Found([])
    for path in sorted(p for p in reports_dir.iterdir() if p.is_dir()):
        if not ((path / RESULTS_CSV).exists() or (path / RECORDS).exists()):
            continue  # not a run folder (no file a run writes)
        folder = RunFolder(path)
        try:
            frame = folder.results()
            machine = folder.machine()
        except UsageError as exc:
            found.left_out.setdefault(f"unreadable ({_first_clause(str(exc), path)})", []).append(path.name)
            continue
        if frame.empty:
            found.left_out.setdefault("with nothing measured", []).append(path.name)
            continue
        name = f"{machine.get('cpu') or frame['machine_cpu'].iloc[0] or '?'}"
        host = machine.get("hostname") or frame["machine_host"].iloc[0]
        name += f" ({host})" if isinstance(host, str) and host else ""
        commit = str(machine.get("git_commit") or frame["git_commit"].iloc[0] or "")
        if follow is not None:
            entry = provenance.followed(machine, follow)
            if entry is None:
                continue
            frame, commit = provenance.keep_rows(frame, entry), str(entry.get("commit") or "")
            if frame.empty:
                continue
        run_id = frame["run_id"].dropna().astype(str)
        found.runs.append(
            Run(
                run_id.iloc[0] if len(run_id) else path.name,
                folder.path,
                name,
                commit if commit != "nan" else "",
                frame,
            )
        )
    if not found.runs and follow is not None:
        provenance.check_followed(follow, [folder.machine() for folder in RunFolder.saved(reports_dir)])
    if not found.runs:
        why = f" ({found.summary.split('; ', 1)[1]})" if found.left_out else ""
        raise UsageError(f"{reports_dir} holds no saved run (no */{RESULTS_CSV}){why}")
    return found


def _first_clause(message: str, path: Path) -> str:
    """An error about a run folder, short: without the folder's own path, which the list of names says."""
    text = message.replace(str(path) + "/", "").replace(str(path), "").split(": not a swarbench")[0].strip()
    return text if len(text) <= 80 else text[:77].rsplit(" ", 1)[0] + "..."


def _label(commit: str, run_id: str) -> str:
    return f"{commit[:10] or '(no commit)'} {run_id[:8]}"


def machine_history(runs: list[Run]) -> MachineHistory:
    """One machine's runs (oldest first by run id, which starts with the time) as lines across its commits."""
    runs = sorted(runs, key=lambda r: r.run_id)
    order: list[str] = []
    for r in runs:
        if r.commit not in order:
            order.append(r.commit)
    latest = {c: [r for r in runs if r.commit == c][-1] for c in order}
    counts: dict = {}
    for r in runs:
        for key in r.frame[r.frame["status"] == Status.PASS][KEY].itertuples(index=False):
            counts[(r.commit, *key)] = counts.get((r.commit, *key), 0) + 1
    lines: dict[tuple, Line] = {}
    for slot, commit in enumerate(order):
        rows = latest[commit].frame
        for _, row in rows[(rows["status"] == Status.PASS) & (rows["kernel"] != results.OVERHEAD_KERNEL)].iterrows():
            key = MeasurementKey.of(row)
            line = lines.setdefault(key, Line(*key))
            line.points.append(
                Point(
                    slot,
                    float(row["ns_per_op_median"]),
                    float(row["ns_per_op_ci_low"]),
                    float(row["ns_per_op_ci_high"]),
                    counts.get((commit, *key), 0),
                )
            )
    pairs = {(order[a.slot], order[b.slot]) for line in lines.values() for a, b in zip(line.points, line.points[1:])}
    changes = _changes(
        [(latest[a], latest[b]) for a, b in sorted(pairs, key=lambda p: (order.index(p[0]), order.index(p[1])))]
    )
    for key, line in lines.items():
        for prev, point in zip(line.points, line.points[1:]):
            point.change = changes.get((order[prev.slot], order[point.slot], *key))
    return MachineHistory(
        runs[0].machine,
        [_label(c, latest[c].run_id) for c in order],
        [sum(r.commit == c for r in runs) for c in order],
        sorted(lines.values(), key=lambda x: (x.kernel, x.workload, x.n, x.implementation)),
    )


def _changes(pairs: list[tuple[Run, Run]]) -> dict:
    """compare's rows between the latest runs of each pair of commits, by (commit a, commit b, *KEY)."""
    out, loaded = {}, {}
    for a, b in pairs:
        for r in (a, b):
            if r.run_id not in loaded:
                try:
                    loaded[r.run_id] = compare.load_run(str(r.folder), r.folder.parent)
                except UsageError:  # a run saved without its records: shown, but compared with nothing
                    loaded[r.run_id] = None
        if loaded[a.run_id] is None or loaded[b.run_id] is None:
            continue
        frame = compare.compare_pair(loaded[a.run_id], loaded[b.run_id], relative=True)
        for _, row in frame.iterrows():
            out[(a.commit, b.commit, *MeasurementKey.of(row))] = row.to_dict()
    return out


def build(reports_dir: Path, follow: str | None = None) -> tuple[list[MachineHistory], Found]:
    found = find_runs(reports_dir, follow)
    machines: dict[str, list[Run]] = {}
    for r in found.runs:
        machines.setdefault(r.machine, []).append(r)
    return [machine_history(group) for _, group in sorted(machines.items())], found


@dataclass
class Written:
    path: Path
    summary: str  # how many runs it shows, and which it left out and why


def write(reports_dir: Path, output: Path | None = None, follow: str | None = None) -> Written:
    from swarbench.render.history_page import render

    machines, found = build(reports_dir, follow)
    page = render(machines, time.strftime("%Y-%m-%d %H:%M %Z"), follow, found.summary if found.left_out else "")
    path = output or reports_dir / "history.html"
    try:
        files.write_atomic(path, page)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return Written(path, found.summary)
