"""How a run is saved and loaded: the files of a run folder, written atomically, read back or refused.

A run folder holds ``records.jsonl`` (the workers' raw lines, written as the run goes), ``benchmark.json``
(pytest-benchmark's own file), ``machine.json``, and ``results.csv`` (the frame). A results file is input: one
that is corrupt, foreign or from another version of swarbench is refused in one line (UsageError).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from swarbench.errors import UsageError
from swarbench.results.frame import COLUMNS, FORMAT_VERSION, LATER_COLUMNS

RESULTS_CSV = "results.csv"
RECORDS = "records.jsonl"
MACHINE = "machine.json"


def read_records(path: Path) -> list[dict]:
    """The records of a run; a line cut short by an interrupt is dropped, not fatal."""
    out = []
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out


def write_atomic(path: Path, text: str) -> None:
    """Write beside the target and rename over it, so a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def save(frame, run_dir: Path) -> Path:
    path = run_dir / RESULTS_CSV
    write_atomic(path, frame.to_csv(index=False))
    return path


def resolve_run(run: str, reports_dir: Path) -> Path:
    """A run id under the reports folder, a run folder, or a results.csv path, to the results.csv path."""
    for candidate in (Path(run), reports_dir / run):
        if candidate.is_dir():
            if (candidate / RESULTS_CSV).exists():
                return candidate / RESULTS_CSV
            raise UsageError(f"{candidate} holds no {RESULTS_CSV}: not a swarbench run folder")
        if candidate.is_file():
            return candidate
    if run == "latest":
        runs = sorted(p for p in reports_dir.glob("*/" + RESULTS_CSV)) if reports_dir.is_dir() else []
        if runs:
            return runs[-1]
    raise UsageError(f"no run {run!r}: give a run id under {reports_dir}, a run folder, or a results.csv file")


def load(path: Path):
    """Load a results.csv, refusing anything that is not one (corrupt, foreign, or from a newer swarbench)."""
    import pandas as pd  # here: reading the records or resolving a run needs no pandas

    try:
        frame = pd.read_csv(path, keep_default_na=True, dtype={"reason": str, "summary": str, "params": str,
                                                              "expected_to_fail": str, "stability": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not a swarbench results file: {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    for col in LATER_COLUMNS:
        if col not in frame.columns and "format_version" in frame.columns:
            frame[col] = math.nan
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise UsageError(f"{path} is not a swarbench results file: missing column(s) {', '.join(missing[:5])}")
    versions = set(frame["format_version"].dropna().astype(int)) if len(frame) else {FORMAT_VERSION}
    if versions - {FORMAT_VERSION}:
        raise UsageError(f"{path} has results format {sorted(versions)}, this swarbench reads {FORMAT_VERSION}")
    for col in ("reason", "summary", "params", "expected_to_fail", "stability"):
        frame[col] = frame[col].fillna("")
    return frame


def machine_of(run_dir: Path) -> dict[str, Any]:
    try:
        return json.loads((run_dir / MACHINE).read_text())
    except (OSError, json.JSONDecodeError):
        return {}
