"""Which code a run measured: the version and version-control commit of every plugin whose rows it measured
(a local module's too), kept in the run's machine.json under ``plugins``, and what `history --follow` and
`compare --follow` read back to follow one plugin's commits instead of swarbench's.

A plugin's commit is that of the git repository tracking its module's file, with ``-dirty`` where that
repository has uncommitted changes to tracked files; a file no repository tracks (an installed wheel, a file
outside version control) has none. Only the repository that tracks the file counts: a package installed into
a virtual environment inside some project is not that project's code.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Any, Optional, Sequence

from swarbench.errors import UsageError
from swarbench.model import matches

KEY = "plugins"  # in machine.json


@functools.lru_cache(maxsize=None)
def commit_of(file: str) -> str:
    """The commit of the git repository that tracks ``file`` ('' where none does), '-dirty' where it has
    uncommitted changes."""
    if not file:
        return ""
    path = Path(file).resolve()
    try:
        tracked = subprocess.run(
            ["git", "-C", str(path.parent), "ls-files", "--error-unmatch", path.name],
            capture_output=True,
            text=True,
            timeout=10,
        )
        top = subprocess.run(
            ["git", "-C", str(path.parent), "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return _repository_commit(top.stdout.strip()) if tracked.returncode == 0 and top.returncode == 0 else ""


@functools.lru_cache(maxsize=None)
def _repository_commit(top: str) -> str:
    from swarbench.machine import git_commit

    return git_commit(Path(top))


def of_run(registry, kernels: Sequence[str], impls: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each plugin owning a kernel or a row a run of these patterns selects: where it came from, its version
    and commit, and the kernels and rows that are its."""
    out: dict[str, dict[str, Any]] = {}
    for kid in sorted(registry.kernels):
        if not matches(kid, kernels):
            continue
        rows = [i for i in registry.implementations_of(kid) if matches(i.name, impls)]
        if not rows:
            continue
        for key, what in [(kid, "kernels")] + [(i.key, "rows") for i in rows]:
            name = registry.owners.get(key, "?")
            entry = out.get(name) or out.setdefault(name, _entry(registry, name))
            entry[what].append(key)
    return out


def _entry(registry, name: str) -> dict[str, Any]:
    source = registry.sources.get(name)
    file = source.file if source else ""
    return {
        "local": bool(source and source.local),
        "file": file,
        "distribution": source.distribution if source else "",
        "version": source.version if source else "",
        "commit": commit_of(file),
        "builtin": name in registry.builtin,
        "kernels": [],
        "rows": [],
    }


def plugins_of(machine: dict) -> dict[str, dict[str, Any]]:
    plugins = machine.get(KEY)
    return plugins if isinstance(plugins, dict) else {}


def described(name: str, entry: dict[str, Any]) -> str:
    """A plugin as a report's header names it: "benchmarks/zero.py (local, commit 1a2b3c4d5e6f)"."""
    parts = [
        "local" if entry.get("local") else "",
        entry.get("version") and f"version {entry['version']}",
        entry.get("commit") and f"commit {entry['commit']}",
    ]
    parts = [p for p in parts if p]
    return f"{name} ({', '.join(parts)})" if parts else name


def not_builtin(machine: dict) -> list[str]:
    """The plugins of a run other than swarbench's own suites, each as ``described`` names it."""
    return [described(name, entry) for name, entry in sorted(plugins_of(machine).items()) if not entry.get("builtin")]


def followed(machine: dict, plugin: str) -> Optional[dict[str, Any]]:
    """The entry of ``plugin`` in a run's machine.json, or None where the run did not measure it."""
    entry = plugins_of(machine).get(plugin)
    return entry if isinstance(entry, dict) else None


def keep_rows(frame, entry: dict[str, Any]):
    """The rows of a results or compare frame that are the plugin's: its rows, and every row of its kernels."""
    rows, kernels = set(entry.get("rows", [])), set(entry.get("kernels", []))
    keys = frame["kernel"].astype(str) + "/" + frame["implementation"].astype(str)
    return frame[keys.isin(rows) | frame["kernel"].isin(kernels)]


def check_followed(plugin: str, machines: list[dict]) -> None:
    """UsageError unless one of the runs measured ``plugin``; it names the plugins they did measure."""
    if any(followed(m, plugin) for m in machines):
        return
    seen = sorted({name for m in machines for name in plugins_of(m)})
    raise UsageError(
        f"no saved run measured plugin {plugin!r} (plugins recorded: {', '.join(seen) or 'none'}; "
        f"runs before plugins were recorded have none)"
    )


def run_at_commit(spec: str, plugin: str, reports_dir: Path) -> Optional[str]:
    """The latest saved run whose ``plugin`` was at a commit starting with ``spec`` (at least 4 characters),
    as a run folder; None where there is none."""
    from swarbench.runfolder import RunFolder

    if len(spec) < 4:
        return None
    found = [
        folder
        for folder in RunFolder.saved(reports_dir)
        if str((followed(folder.machine(), plugin) or {}).get("commit", "")).startswith(spec)
    ]
    return str(found[-1].path) if found else None


def followed_runs(specs: Sequence[str], plugin: str, reports_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each run of ``specs`` (a run as `compare` names it, or a commit of ``plugin``: its latest run there) with
    the plugin's entry in it; UsageError for a run that did not measure the plugin."""
    from swarbench.runfolder import RunFolder

    out = []
    for spec in specs:
        try:
            folder = RunFolder.find(spec, reports_dir)
        except UsageError:
            at_commit = run_at_commit(spec, plugin, reports_dir)
            if at_commit is None:
                raise UsageError(
                    f"no run {spec!r}, and no saved run of plugin {plugin} at a commit starting with {spec!r}"
                ) from None
            folder = RunFolder(at_commit)
        entry = followed(folder.machine(), plugin)
        if entry is None:
            check_followed(plugin, [folder.machine()])
        out.append((str(folder.path), entry))  # (its folder's name is its run id, as compare labels it)
    return out


def label_runs(frame, runs: list[tuple[str, dict[str, Any]]], plugin: str):
    """A compare frame with the plugin's rows only, each run labelled with the plugin's commit."""
    if frame.empty:
        return frame
    kept = [keep_rows(frame, entry) for _, entry in runs]
    index = sorted(set().union(*(set(k.index) for k in kept)))
    frame = frame.loc[index].copy()
    if frame.empty:
        raise UsageError(f"the runs have no measurement of plugin {plugin} in common")
    commits = {Path(folder).name: entry.get("commit") or "no commit" for folder, entry in runs}
    for column in ("run_a", "run_b"):
        frame[column] = [f"{run} ({plugin} {commits.get(str(run), '?')})" for run in frame[column]]
    return frame
