"""The tidy results frame: one row per (kernel, implementation, workload), and how a run is saved and loaded.

Statistics are computed here, once, from the raw per-call samples; renderers only format these columns.
A run folder holds: ``records.jsonl`` (raw, one line per finished case, written as the run goes),
``benchmark.json`` (pytest-benchmark's own file), ``machine.json``, and ``results.csv`` (this frame).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, Optional

import numpy as np
import pandas as pd

from harness.errors import UsageError

RESULTS_CSV = "results.csv"
RECORDS = "records.jsonl"
MACHINE = "machine.json"
FORMAT_VERSION = 1

COLUMNS = [
    "run_id", "kernel", "suite", "implementation", "family", "workload", "n", "unit", "seed", "status", "reason",
    "expected_to_fail", "prepare_s", "rounds", "iterations", "samples",
    "ns_per_op_median", "ns_per_op_min", "ns_per_op_q1", "ns_per_op_q3", "ns_per_op_iqr", "ns_per_op_mean",
    "s_per_call_median", "ops_per_s", "baseline", "speedup", "params", "summary",
    "machine_cpu", "machine_python", "machine_compiler", "git_commit", "format_version",
]


def _stats(samples_s: list[float], n: int) -> dict[str, float]:
    if not samples_s:
        return {k: math.nan for k in ("ns_per_op_median", "ns_per_op_min", "ns_per_op_q1", "ns_per_op_q3",
                                      "ns_per_op_iqr", "ns_per_op_mean", "s_per_call_median", "ops_per_s")}
    ns = np.asarray(samples_s, dtype=float) * 1e9 / max(n, 1)
    q1, med, q3 = np.percentile(ns, [25, 50, 75])
    return {
        "ns_per_op_median": med, "ns_per_op_min": ns.min(), "ns_per_op_q1": q1, "ns_per_op_q3": q3,
        "ns_per_op_iqr": q3 - q1, "ns_per_op_mean": ns.mean(),
        "s_per_call_median": float(np.median(samples_s)), "ops_per_s": 1e9 / med if med > 0 else math.nan,
    }


def frame_from_records(records: Iterable[dict], run_id: str, machine: dict) -> pd.DataFrame:
    rows = []
    for rec in records:
        row = {k: rec.get(k) for k in COLUMNS if k in rec}
        row.update(_stats(rec.get("samples_s") or [], int(rec.get("n") or 1)))
        row.update(
            run_id=run_id, samples=len(rec.get("samples_s") or []),
            params=json.dumps(rec.get("params") or {}, sort_keys=True),
            summary=json.dumps(rec["summary"], sort_keys=True) if rec.get("summary") is not None else "",
            expected_to_fail=rec.get("expected_to_fail") or "",
            machine_cpu=machine.get("cpu", ""), machine_python=machine.get("python", ""),
            machine_compiler=machine.get("compiler", ""), git_commit=machine.get("git_commit", ""),
            format_version=FORMAT_VERSION,
        )
        rows.append(row)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return add_speedups(frame)


def add_speedups(frame: pd.DataFrame) -> pd.DataFrame:
    """speedup = the baseline's median ns/op / this median, within one (run, kernel, workload, n)."""
    frame = frame.copy()
    frame["speedup"] = math.nan
    keys = ["run_id", "kernel", "workload", "n"]
    for _, group in frame.groupby(keys, dropna=False):
        base = group[(group["implementation"] == group["baseline"]) & (group["status"] == "PASS")]
        if len(base):
            frame.loc[group.index, "speedup"] = base["ns_per_op_median"].iloc[0] / group["ns_per_op_median"]
    return frame


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


def save(frame: pd.DataFrame, run_dir: Path) -> Path:
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


def load(path: Path) -> pd.DataFrame:
    """Load a results.csv, refusing anything that is not one (corrupt, foreign, or from a newer swarbench)."""
    try:
        frame = pd.read_csv(path, keep_default_na=True, dtype={"reason": str, "summary": str, "params": str,
                                                              "expected_to_fail": str})
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{path} is not a swarbench results file: {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise UsageError(f"{path} is not a swarbench results file: missing column(s) {', '.join(missing[:5])}")
    versions = set(frame["format_version"].dropna().astype(int)) if len(frame) else {FORMAT_VERSION}
    if versions - {FORMAT_VERSION}:
        raise UsageError(f"{path} has results format {sorted(versions)}, this swarbench reads {FORMAT_VERSION}")
    for col in ("reason", "summary", "params", "expected_to_fail"):
        frame[col] = frame[col].fillna("")
    return frame


def machine_of(run_dir: Path) -> dict[str, Any]:
    try:
        return json.loads((run_dir / MACHINE).read_text())
    except (OSError, json.JSONDecodeError):
        return {}


def summary_of(value: Optional[str]) -> dict:
    if not value:
        return {}
    try:
        return json.loads(value)
    except (TypeError, json.JSONDecodeError):
        return {}
