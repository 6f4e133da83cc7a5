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
from swarbench.errors import UsageError

RESULTS_CSV = "results.csv"
RECORDS = "records.jsonl"
MACHINE = "machine.json"
FORMAT_VERSION = 2

COLUMNS = [
    "run_id", "kernel", "suite", "implementation", "family", "workload", "n", "unit", "seed", "status", "reason",
    "expected_to_fail", "prepare_s", "reprepare_s", "processes", "rounds", "iterations", "samples", "samples_slowed",
    "ns_per_op_median", "ns_per_op_ci_low", "ns_per_op_ci_high", "ns_per_op_min", "ns_per_op_q1", "ns_per_op_q3",
    "ns_per_op_iqr", "ns_per_op_mean", "cv", "stability", "s_per_call_median", "ops_per_s",
    "overhead_ns_per_call", "ns_per_op_corrected", "cycles_per_op_est", "clock_ghz",
    "hw_cycles_per_op", "hw_instructions_per_op", "worker_medians", "worker_spread", "ns_per_op_best_worker",
    "ns_per_op_median_all",
    "baseline", "speedup", "speedup_ci_low", "speedup_ci_high", "params", "summary",
    "machine", "machine_cpu", "machine_python", "machine_compiler", "machine_host", "machine_canary_us",
    "machine_slowed_share", "git_commit", "format_version",
]
# Columns added within format 2: a results file written before them still loads, with these left empty.
LATER_COLUMNS = ("hw_cycles_per_op", "hw_instructions_per_op", "worker_medians", "worker_spread",
                 "ns_per_op_best_worker", "machine_canary_us", "machine_slowed_share", "samples_slowed",
                 "ns_per_op_median_all", "reprepare_s", "machine")
OVERHEAD_KERNEL = "swarbench.overhead"
# Status of a merged measurement: the worst any worker saw (a case that crashed once is not a PASS).
SEVERITY = {"CRASH": 6, "TIMEOUT": 5, "ERROR": 4, "FAIL": 3, "PASS": 2, "SKIP": 1}
CONFIDENCE = 0.95
RESAMPLES = 1000
NOISY_CV = 0.10
SHORT_ROUND_S = 1e-4
SPLIT_WORKERS = 0.10  # worker medians further apart than this (relative to the merged median) are flagged
SLOWED = 0.15  # a canary timing this much over the run's fastest tenth is a moment the machine was slowed
UNSTEADY_SHARE = 0.25  # a run slowed this much of the time is one to measure again
KEEP_SLOWED = "keep_slowed"  # the run line's field: a run that keeps every sample in its medians
JUDGING_READINGS = 20  # canary readings a run needs before any is called slowed
TWO_SPEEDS = 0.08  # passes in two groups further apart than this are flagged (see two_speeds)
PASS_SAMPLES = 3  # a pass's median stands for it from this many samples
STEADY_ENOUGH = 5  # samples that stand for a measurement (so do half of its samples); see least_slowed


def _bootstrap(samples: tuple, statistic) -> tuple[float, float]:
    """95% percentile-bootstrap interval of ``statistic`` (scipy.stats.bootstrap), seeded so reports repeat."""
    if min(len(x) for x in samples) < 2:
        return math.nan, math.nan
    # Imported here: scipy.stats costs seconds to import, and benchmark workers load this module only for
    # helpers that suites' reports use, never for statistics.
    from scipy import stats

    res = stats.bootstrap(samples, statistic, confidence_level=CONFIDENCE, n_resamples=RESAMPLES,
                          method="percentile", vectorized=True, paired=False, rng=np.random.default_rng(0))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def _median(x, axis=-1):
    return np.median(x, axis=axis)


def _ratio_of_medians(x, y, axis=-1):
    return np.median(x, axis=axis) / np.median(y, axis=axis)


def ns_per_op(rec_samples: list[float], n: int) -> np.ndarray:
    return np.asarray(rec_samples, dtype=float) * 1e9 / max(int(n), 1)


def _stats(samples_s: list[float], n: int, iterations: int) -> dict[str, Any]:
    keys = ("ns_per_op_median", "ns_per_op_ci_low", "ns_per_op_ci_high", "ns_per_op_min", "ns_per_op_q1",
            "ns_per_op_q3", "ns_per_op_iqr", "ns_per_op_mean", "cv", "s_per_call_median", "ops_per_s")
    if not samples_s:
        return dict.fromkeys(keys, math.nan) | {"stability": ""}
    ns = ns_per_op(samples_s, n)
    q1, med, q3 = np.percentile(ns, [25, 50, 75])
    low, high = _bootstrap((ns,), _median)
    cv = float(ns.std(ddof=1) / ns.mean()) if len(ns) > 1 and ns.mean() > 0 else math.nan
    warnings = []
    if len(ns) < 5:
        warnings.append(f"only {len(ns)} samples")
    if float(np.median(samples_s)) * max(iterations, 1) < SHORT_ROUND_S:
        warnings.append("rounds under 0.1 ms: timer resolution matters")
    if cv == cv and cv > NOISY_CV:
        warnings.append(f"noisy: CV {cv:.0%}")
    return {
        "ns_per_op_median": med, "ns_per_op_ci_low": low, "ns_per_op_ci_high": high, "ns_per_op_min": ns.min(),
        "ns_per_op_q1": q1, "ns_per_op_q3": q3, "ns_per_op_iqr": q3 - q1, "ns_per_op_mean": ns.mean(), "cv": cv,
        "stability": "; ".join(warnings), "s_per_call_median": float(np.median(samples_s)),
        "ops_per_s": 1e9 / med if med > 0 else math.nan,
    }


def merge_records(records: Iterable[dict]) -> list[dict]:
    """One record per measurement: the samples of every worker that ran it, the worst status any worker saw.

    Samples of a pass that a canary reading on either side found the machine slowed (see swarbench.bench.canary)
    are set aside, in ``samples_slowed_s``: they measured a neighbour's load as much as the kernel, and a median
    over them moves from run to run with that load. Where that would leave too few (see least_slowed), the least
    slowed of those passes fill in, and the measurement says so (``filled_in``). ``samples_all_s`` has every
    sample either way. A run made with ``--keep-slowed`` (its ``run`` line says so) sets nothing aside."""
    records = list(records)
    keep = any(r.get("event") == "run" and r.get(KEEP_SLOWED) is True for r in records)
    limit = math.inf if keep else slowed_limit(canary_readings(records))
    merged: dict[tuple, dict] = {}
    for rec in records:
        if rec.get("event", "result") != "result":
            continue
        key = (rec.get("kernel"), rec.get("implementation"), rec.get("workload"), rec.get("n"))
        if key not in merged:  # the first record gives the fields; its samples are added below like any other's
            merged[key] = dict(rec, rounds=0, iterations=0, _prepare=[], _reprepare=[], _hw=[], samples_all_s=[],
                               _passes=[])
        m = merged[key]
        if SEVERITY.get(rec.get("status"), 0) > SEVERITY.get(m.get("status"), 0):
            m.update(status=rec["status"], reason=rec.get("reason", ""))
        m["_passes"] += [(reading, rec.get("worker", 0), samples) for reading, samples in passes_of(rec)]
        m["samples_all_s"] += list(rec.get("samples_s") or [])
        m["rounds"] += rec.get("rounds") or 0
        m["iterations"] = max(m["iterations"], rec.get("iterations") or 0)
        m["summary"] = m.get("summary") or rec.get("summary")
        if rec.get("prepare_s") is not None:
            m["_prepare"].append(rec["prepare_s"])
        again = rec.get("reprepare_s")
        m["_reprepare"] += [s for s in map(_seconds, again if isinstance(again, list) else []) if s is not None]
        if rec.get("hw_cycles_per_op") is not None:
            m["_hw"].append((rec["hw_cycles_per_op"], rec.get("hw_instructions_per_op", math.nan)))
    for m in merged.values():
        m["prepare_s"] = float(np.median(m["_prepare"])) if m["_prepare"] else math.nan
        again = m.pop("_reprepare")  # preparing a fresh copy for a later pass (a short batch only)
        m["reprepare_s"] = float(np.median(again)) if again else math.nan
        passes = m.pop("_passes")
        keeps = least_slowed([(reading, len(samples)) for reading, _, samples in passes], limit)
        kept = [p for k, p in zip(keeps, passes) if k]
        m["samples_s"] = [x for _, _, samples in kept for x in samples]
        m["samples_slowed_s"] = [x for k, (_, _, samples) in zip(keeps, passes) if not k for x in samples]
        m["filled_in"] = sum(len(samples) for reading, _, samples in kept if reading > limit)
        workers: dict = {}
        for _, worker, samples in kept:
            if samples:  # (a pass whose rounds all fell in other passes has none)
                workers.setdefault(worker, []).extend(samples)
        m["processes"] = len({worker for _, worker, samples in passes if samples})
        m["set_aside"] = not keep
        m["two_speeds"] = two_speeds([float(np.median(samples)) for _, _, samples in kept
                                      if len(samples) >= PASS_SAMPLES])
        m["worker_samples_s"] = [workers[w] for w in sorted(workers)]
        del m["_prepare"]
        hw = m.pop("_hw")
        if hw:  # the median over the workers that could count
            m["hw_cycles_per_op"], m["hw_instructions_per_op"] = (float(x) for x in np.median(hw, axis=0))
    return list(merged.values())


def least_slowed(passes: list[tuple[float, int]], limit: float) -> list[bool]:
    """Which passes, each (its canary reading, its sample count), a measurement keeps: every one the machine did
    not slow (reading up to ``limit``) and, where those hold fewer than STEADY_ENOUGH samples and fewer than half,
    the least slowed of the others, in order of their readings, until they do.

    Falling back to every sample instead made a step: a measurement left with four steady samples took its median
    over all of them, slowed ones and all, and one left with five over those five, so two runs on either side of
    it disagreed by the whole slowdown. Filling in from the least slowed moves the median by as little as the
    shortfall needs."""
    every = sum(n for _, n in passes)
    keep = [reading <= limit for reading, _ in passes]
    count = sum(n for k, (_, n) in zip(keep, passes) if k)
    for i in sorted(range(len(passes)), key=lambda i: passes[i][0]):
        if count >= STEADY_ENOUGH or 2 * count >= every:
            break
        if not keep[i]:
            keep[i], count = True, count + passes[i][1]
    return keep


def canary_readings(records: Iterable[dict]) -> np.ndarray:
    """Every canary reading of a run, in seconds: the two around each pass (a result line's ``pass_canary_s``)
    and, in runs saved before those, the canary lines timed between passes."""
    out: list[float] = []
    for rec in records:
        if rec.get("event") == "canary":
            out += [x for x in (_seconds(rec.get("s")),) if x is not None]
        elif rec.get("event", "result") == "result":
            out += [seconds for tag in _pass_tags(rec) for seconds in tag[:2]]  # checked there
    return np.array(out, dtype=float)


def slowed_limit(readings: np.ndarray) -> float:
    """A canary reading over this says the machine was slowed: SLOWED over the run's fastest tenth. Fewer than
    JUDGING_READINGS readings (a run of a few cases) cannot tell a slow spell from a reading's own noise, and
    nothing is called slowed."""
    return float(np.quantile(readings, 0.1)) * (1 + SLOWED) if len(readings) >= JUDGING_READINGS else math.inf


def passes_of(rec: dict) -> list[tuple[float, list]]:
    """A result line's samples pass by pass, each with its canary reading: the slower of the two taken before
    and after it. Samples no reading covers come first in the line (a long batch's verification call) and count
    as one pass the machine did not slow (reading 0), as does every sample of a line whose readings do not add
    up to its samples."""
    samples, tags = list(rec.get("samples_s") or []), _pass_tags(rec)
    untagged = len(samples) - sum(n for *_, n in tags)
    if not tags or untagged < 0:
        return [(0.0, samples)] if samples else []
    out, at = ([(0.0, samples[:untagged])] if untagged else []), untagged
    for before, after, n in tags:
        out.append((max(before, after), samples[at:at + n]))
        at += n
    return out


def two_speeds(pass_medians: list[float]) -> Optional[tuple[float, float]]:
    """The two speeds a measurement's passes ran at, where they fall into two groups more than TWO_SPEEDS apart,
    each of at least a fifth of the passes (and two): a kernel whose speed is set by where its arrays land in
    memory, each pass prepared afresh drawing one or the other (the alignment of its arrays, the largest part,
    is fixed: swarbench.memory), or a slow spell the canary missed (here mostly in the multi-threaded rows, whose
    second thread runs on a CPU the canary does not read). A median over such passes lands on whichever group
    has more of them, and moves between runs by the distance between the groups."""
    x = sorted(pass_medians)
    least = max(2, math.ceil(len(x) / 5))
    splits = [(x[i] / x[i - 1] - 1, i) for i in range(least, len(x) - least + 1) if x[i - 1] > 0]
    if not splits:
        return None
    gap, i = max(splits)
    return (float(np.median(x[:i])), float(np.median(x[i:]))) if gap > TWO_SPEEDS else None


def _pass_tags(rec: dict) -> list:
    """A result line's ``pass_canary_s`` as [before_s, after_s, samples] triples; none if any is malformed (a
    results file is input, and a hand-edited one must not end a report in a traceback)."""
    tags = rec.get("pass_canary_s") or []
    ok = isinstance(tags, list) and all(
        isinstance(t, list) and len(t) == 3 and all(_seconds(v) is not None for v in t[:2])
        and isinstance(t[2], int) and t[2] >= 0 for t in tags)
    return [[float(t[0]), float(t[1]), t[2]] for t in tags] if ok else []


def _seconds(value) -> Optional[float]:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x > 0 else None


def _worker_split(worker_samples_s: list[list[float]], n: int, row: dict) -> dict:
    """Each worker's own median (ns/op, JSON list) and how far apart they lie relative to the merged median: a
    difference between processes (memory layout, frequency, a neighbour) that more rounds in one process cannot
    show."""
    ns = [float(np.median(s)) * 1e9 / n for s in worker_samples_s]
    two = len(ns) > 1 and row["ns_per_op_median"] > 0
    spread = (max(ns) - min(ns)) / row["ns_per_op_median"] if two else math.nan
    # The least disturbed worker's median: a shared machine's slow spells only ever add time (as timeit's
    # documentation argues for its minimum of repeats), so across runs this moves less than the pooled median.
    out = {"worker_medians": json.dumps([round(x, 6) for x in ns]), "worker_spread": spread,
           "ns_per_op_best_worker": min(ns) if ns else math.nan}
    if spread > SPLIT_WORKERS:
        out["stability"] = "; ".join(x for x in (row["stability"], f"workers differ by {spread:.0%}") if x)
    return out


def machine_steadiness(records: Iterable[dict]) -> dict[str, float]:
    """The canary's view of a run (see swarbench.bench.canary): its median time, and the share of its readings
    over ``slowed_limit``, which is the share of the run the machine itself was slowed. A run slowed from end to
    end shows a small share and a long median: compare sets medians of runs side by side for that."""
    s = canary_readings(records)
    if len(s) < JUDGING_READINGS:
        return {"machine_canary_us": math.nan, "machine_slowed_share": math.nan}
    return {"machine_canary_us": float(np.median(s)) * 1e6,
            "machine_slowed_share": float(np.mean(s > slowed_limit(s)))}


def frame_from_records(records: Iterable[dict], run_id: str, machine: dict) -> pd.DataFrame:
    clock = machine.get("clock_ghz") or math.nan
    records = list(records)
    steadiness = machine_steadiness(records)
    rows, samples = [], {}
    for rec in merge_records(records):
        row = {k: rec.get(k) for k in COLUMNS if k in rec}
        n = int(rec.get("n") or 1)
        row.update(_stats(rec["samples_s"], n, int(rec.get("iterations") or 1)))
        notes = [row["stability"]]
        if rec["filled_in"]:
            notes.append(f"{rec['filled_in']} of its {len(rec['samples_s'])} samples from the least slowed of the "
                         "passes the machine slowed: too few were taken while it was not")
        if rec["two_speeds"]:
            low, high = (x * 1e9 / n for x in rec["two_speeds"])
            notes.append(f"passes ran at two speeds, {low:.4g} and {high:.4g} ns/op (memory layout or machine): "
                         "its median can move between them from run to run")
        row["stability"] = "; ".join(x for x in notes if x)
        every = rec["samples_all_s"]
        row.update(
            run_id=run_id, samples=len(rec["samples_s"]),
            # unknown for a run that kept every sample: it never judged any
            samples_slowed=len(rec["samples_slowed_s"]) if rec["set_aside"] else math.nan,
            ns_per_op_median_all=float(np.median(every)) * 1e9 / n if every else math.nan,
            params=json.dumps(rec.get("params") or {}, sort_keys=True),
            summary=json.dumps(rec["summary"], sort_keys=True) if rec.get("summary") is not None else "",
            expected_to_fail=rec.get("expected_to_fail") or "", clock_ghz=clock,
            cycles_per_op_est=row["ns_per_op_median"] * clock if row["ns_per_op_median"] == row["ns_per_op_median"] else math.nan,
            # the fleet's name of the machine (swarbench.fleet); a local run's is its host name
            machine=machine.get("name") or machine.get("hostname", ""),
            machine_cpu=machine.get("cpu", ""), machine_python=machine.get("python", ""),
            machine_compiler=machine.get("compiler", ""), machine_host=machine.get("hostname", ""),
            **steadiness, git_commit=machine.get("git_commit", ""), format_version=FORMAT_VERSION,
        )
        row.update(_worker_split(rec["worker_samples_s"], int(rec.get("n") or 1), row))
        samples[len(rows)] = ns_per_op(rec["samples_s"], int(rec.get("n") or 1))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame = add_speedups(frame, samples)
    return add_overheads(frame)


def add_speedups(frame: pd.DataFrame, samples: dict[int, np.ndarray]) -> pd.DataFrame:
    """speedup = the baseline's median ns/op / this median, within one (run, kernel, workload, n), with its
    bootstrap interval from both sample sets."""
    frame = frame.copy()
    for col in ("speedup", "speedup_ci_low", "speedup_ci_high"):
        frame[col] = math.nan
    for _, group in frame.groupby(["run_id", "kernel", "workload", "n"], dropna=False):
        base = group[(group["implementation"] == group["baseline"]) & (group["status"] == "PASS")]
        if not len(base):
            continue
        b = base.index[0]
        frame.loc[group.index, "speedup"] = frame.loc[b, "ns_per_op_median"] / group["ns_per_op_median"]
        for i in group.index:
            if frame.loc[i, "status"] == "PASS" and len(samples.get(i, ())) and len(samples.get(b, ())):
                low, high = _bootstrap((samples[b], samples[i]), _ratio_of_medians)
                frame.loc[i, ["speedup_ci_low", "speedup_ci_high"]] = [low, high]
    return frame


def add_overheads(frame: pd.DataFrame) -> pd.DataFrame:
    """The empty-call cost of each row's family, and ns/op without it where it is over 1% of a call."""
    from swarbench.bench.overhead import probe_family

    frame = frame.copy()
    probes = frame[(frame["kernel"] == OVERHEAD_KERNEL) & (frame["status"] == "PASS")]
    cost = {(r.run_id, r.implementation): r.ns_per_op_median for r in probes.itertuples()}
    for i, r in frame.iterrows():
        if r["kernel"] == OVERHEAD_KERNEL:
            continue
        c = cost.get((r["run_id"], probe_family(str(r["family"]))), math.nan)
        frame.loc[i, "overhead_ns_per_call"] = c
        call_ns = r["s_per_call_median"] * 1e9
        if c == c and call_ns == call_ns and c > 0.01 * call_ns:
            frame.loc[i, "ns_per_op_corrected"] = max(call_ns - c, 0.0) / max(int(r["n"]), 1)
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


def summary_of(value: Optional[str]) -> dict:
    if not value:
        return {}
    try:
        return json.loads(value)
    except (TypeError, json.JSONDecodeError):
        return {}
