"""How a run is saved and loaded: the files of a run folder, written atomically, read back or refused.

A run folder holds ``records.jsonl`` (the workers' raw lines, written as the run goes), ``benchmark.json``
(pytest-benchmark's own file), ``machine.json``, and ``results.csv`` (the frame). A results file is input: one
that is corrupt, foreign or in a format this version cannot read is refused in one line (UsageError).

Formats: 1, the first releases, had no steadiness or per-worker columns and is refused; 2 is read, including
runs saved before the package was named swarbench, whose empty-call probes carry the kernel id
``harness.overhead`` (read as ``swarbench.overhead``), and runs saved before the LATER_COLUMNS.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from swarbench import files
from swarbench.errors import UsageError
from swarbench.explain.limits import TEXT_COLUMNS as EXPLAIN_TEXT_COLUMNS
from swarbench.results.frame import COLUMNS, FORMAT_VERSION, LATER_COLUMNS

# Kernel ids an earlier version wrote, and what they are now.
RENAMED_KERNELS = {"harness.overhead": "swarbench.overhead"}
# Columns of text; every other column of COLUMNS holds numbers
TEXT_COLUMNS = {"run_id", "kernel", "suite", "implementation", "family", "workload", "unit", "status", "reason",
                "expected_to_fail", "stability", "worker_medians", "baseline", "params", "summary", "machine", "machine_cpu",
                "machine_python", "machine_compiler", "machine_host", "git_commit", *EXPLAIN_TEXT_COLUMNS}
RESULTS_CSV = "results.csv"
RECORDS = "records.jsonl"
MACHINE = "machine.json"


# The fields of a result line that the frame computes with, and what each must hold (None aside).
_NUMBERS = ("prepare_s", "check_s", "hw_cycles_per_op", "hw_instructions_per_op", "input_bytes")
_WHOLE_NUMBERS = ("n", "rounds", "iterations", "worker", "seed")
_TEXTS = ("case", "kernel", "implementation", "family", "workload", "status", "reason")


def read_records(path: Path) -> list[dict]:
    """The records of a run, in today's kernel ids. A line that is not a JSON object (one cut short by an
    interrupt or a full disk, bytes that are no text) is passed over; a result line whose fields hold what no run
    writes is refused in one line (UsageError), since its figures would be made up."""
    out = []
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return out
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    for number, line in enumerate(data.decode(errors="replace").splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        problem = _record_problem(record) if record.get("event", "result") == "result" else ""
        if problem:
            raise UsageError(f"{path}, line {number}: {problem}: not a swarbench records file")
        out.append(_renamed(record))
    return out


def _renamed(rec: dict) -> dict:
    """A record in today's kernel ids: its ``kernel``, and its ``case`` id, which starts with the kernel's."""
    if rec.get("kernel") in RENAMED_KERNELS:
        rec = dict(rec, kernel=RENAMED_KERNELS[rec["kernel"]])
    case = rec.get("case")
    kernel = case.split(":", 1)[0] if isinstance(case, str) else None
    if kernel in RENAMED_KERNELS:
        rec = dict(rec, case=RENAMED_KERNELS[kernel] + case[len(kernel):])
    return rec


def _record_problem(record: dict) -> str:
    """What is wrong with a result line's fields, or ""."""
    def real(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    samples = record.get("samples_s")
    if samples is not None:
        if not isinstance(samples, list):
            return f"samples_s holds {samples!r}, not a list of seconds"
        odd = [s for s in samples if not (real(s) and s >= 0)]
        if odd:
            return f"samples_s holds {odd[0]!r}, not seconds"
    for name in _NUMBERS:
        if record.get(name) is not None and not real(record[name]):
            return f"{name} holds {record[name]!r}, not a number"
    for name in _WHOLE_NUMBERS:
        value = record.get(name)
        if value is not None and not (real(value) and float(value).is_integer() and value >= 0):
            return f"{name} holds {value!r}, not a whole number"
    for name in _TEXTS:
        if record.get(name) is not None and not isinstance(record[name], str):
            return f"{name} holds {record[name]!r}, not text"
    return ""


write_atomic = files.write_atomic  # whole or not at all, following the umask (swarbench.files)


def save(frame, run_dir: Path) -> Path:
    path = run_dir / RESULTS_CSV
    write_atomic(path, frame.to_csv(index=False))
    return path


def resolve_run(run: str, reports_dir: Path) -> Path:
    """A run id under the reports folder, a run folder, or a results.csv path, to the results.csv path. A run
    folder with records but no results.csv (a run stopped before it could write one) resolves to where that
    would be: ``load`` builds the frame from the records."""
    for candidate in (Path(run), reports_dir / run):
        if candidate.is_dir():
            if (candidate / RESULTS_CSV).exists() or (candidate / RECORDS).exists():
                return candidate / RESULTS_CSV
            raise UsageError(f"{candidate} holds no {RESULTS_CSV}: not a swarbench run folder")
        if candidate.is_file():
            return candidate.parent / RESULTS_CSV if candidate.name == RECORDS else candidate
    if run == "latest":
        runs = sorted({p.parent for name in (RESULTS_CSV, RECORDS) for p in reports_dir.glob(f"*/{name}")}
                      if reports_dir.is_dir() else [])
        if runs:
            return runs[-1] / RESULTS_CSV
    raise UsageError(f"no run {run!r}: give a run id under {reports_dir}, a run folder, or a results.csv file")


def load(path: Path):
    """Load a results.csv, refusing anything that is not one (corrupt, foreign, or from a newer swarbench)."""
    import pandas as pd  # here: reading the records or resolving a run needs no pandas

    if not path.exists() and (path.parent / RECORDS).exists():
        return _from_records(path.parent)
    try:
        frame = pd.read_csv(path, keep_default_na=True, dtype={"reason": str, "summary": str, "params": str,
                                                              "expected_to_fail": str, "stability": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not a swarbench results file: {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return migrate(frame, path)


def migrate(frame, path: Path):
    """A results frame of a format this version reads, in today's names and columns; any other format is
    refused in one line naming it."""
    import pandas as pd

    stamped = frame["format_version"].dropna().unique() if "format_version" in frame.columns else []
    versions = {_format_of(v) for v in stamped}
    for version in sorted(versions - {FORMAT_VERSION}, key=str):
        if isinstance(version, int) and version > FORMAT_VERSION:
            raise UsageError(f"{path} has results format {version}, written by a newer swarbench; this one reads "
                             f"format {FORMAT_VERSION}")
        if isinstance(version, int):
            raise UsageError(f"{path} has results format {version}, from an early swarbench this one cannot read "
                             f"(it reads format {FORMAT_VERSION}): run it again")
        raise UsageError(f"{path} has results format {version!r}, which no swarbench wrote")
    for col in LATER_COLUMNS:
        if col not in frame.columns and "format_version" in frame.columns:
            frame[col] = math.nan
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise UsageError(f"{path} is not a swarbench results file: missing column(s) {', '.join(missing[:5])}")
    frame["kernel"] = frame["kernel"].replace(RENAMED_KERNELS)
    for col in COLUMNS:
        if col not in TEXT_COLUMNS and not pd.api.types.is_numeric_dtype(frame[col]):  # words for a number
            numbers = pd.to_numeric(frame[col], errors="coerce")
            bad = frame[col].notna() & numbers.isna()
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                raise UsageError(f"{path}: column {col} holds {frame[col].iloc[i]!r} (line {i + 2}), not a number")
            frame[col] = numbers
    return _blank_texts(frame)


def _from_records(folder: Path):
    """The frame of a run folder that holds records but no results.csv (the run was stopped before it wrote
    one), built as the run would have built it."""
    from swarbench.results.frame import frame_from_records

    return _blank_texts(frame_from_records(read_records(folder / RECORDS), folder.name, machine_of(folder)))


def _blank_texts(frame):
    """Free-text columns left empty read as "" (not NaN), as renderers join them."""
    for col in ("reason", "summary", "params", "expected_to_fail", "stability", *EXPLAIN_TEXT_COLUMNS):
        frame[col] = frame[col].fillna("")
    return frame


def _format_of(value):
    """A format_version cell as an int, or as it stands where it is none."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return int(number) if number.is_integer() else str(value)


def machine_of(run_dir: Path) -> dict[str, Any]:
    """The machine a run was made on; {} for a machine.json that is missing or not what a run writes."""
    try:
        machine = json.loads((run_dir / MACHINE).read_bytes())
    except (OSError, ValueError):  # (undecodable bytes and bad JSON are both ValueErrors)
        return {}
    return machine if isinstance(machine, dict) else {}
