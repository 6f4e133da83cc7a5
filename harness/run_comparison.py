"""Compare saved runs, benchstat-style: per measurement the change of the median, its interval, a p-value.

The first run is the reference; every other run is compared with it. A change is called only when the
Mann-Whitney U test (scipy.stats.mannwhitneyu) rejects "same distribution" at ``alpha`` *and* the 95% bootstrap
interval of the ratio of medians excludes 1; otherwise the row says ``~``. The regression gate is stricter
still: it trips only where the whole interval lies beyond the threshold, so noise within a run cannot fail a
build. A slow spell that covers every process of one run can (the interval cannot see past its processes), and
the fewer the processes, the likelier: a gated row says how many stood behind it (GATE_PROCESSES).

The interval is a two-level bootstrap: worker processes are resampled, then samples within each. Samples of
one process are not independent of each other: on a shared machine a whole process can run in a slow spell,
and an interval from pooled samples would call that a regression. Resampling processes puts the difference
between them into the interval. scipy.stats.bootstrap resamples flat samples only, hence this code.

With ``relative``, each change is taken against the other implementations of the same workload: B's samples
are divided by the drift, the median of the others' changes of median, before the interval and the test. A
slow stretch of the whole machine between two runs moves every competitor of a workload alike (their passes
are interleaved within each worker), so it cancels; a regression of one implementation does not, since its own
change is left out of its drift, and a median of the others is not moved by a few of them regressing. The
drift's own uncertainty is not in the interval. A row with no other implementation in both runs keeps its
absolute change (drift blank).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from swarbench import results
from swarbench.results import sample_stats
from swarbench.errors import UsageError
from swarbench.runfolder import RECORDS, MeasurementKey, RunFolder, Status

ALPHA = 0.05
MACHINE_CHANGE = 0.05  # canaries of two runs further apart than this: the machine itself changed between them
KEY = list(MeasurementKey._fields)
# Processes a side under which a gated regression may be one run's slow spell over all its processes
# (docs/measurement.md, "Comparing runs")
GATE_PROCESSES = 4


@dataclass
class LoadedRun:
    run_id: str
    folder: Path
    machine: dict
    blocks: dict[tuple, list[np.ndarray]]  # KEY -> ns/op samples of a PASS measurement, one array per worker
    # the canary's view of the run (results.machine_steadiness); NaN for a run saved without one
    steadiness: dict = field(default_factory=lambda: results.machine_steadiness([]))


def load_run(spec: str, reports_dir: Path) -> LoadedRun:
    """A run, or with RUN@MACHINE one machine of a fleet run (swarbench.fleet)."""
    try:
        run, machine = RunFolder.find(spec, reports_dir), ""
    except UsageError:
        head, at, machine = spec.rpartition("@")
        if not at or not head:
            raise
        run = RunFolder.find(head, reports_dir)
    folder = run.path
    records = run.records()
    if not records:
        raise UsageError(f"{folder} has no {RECORDS}: compare needs the raw samples a run saves there")
    machines = sorted({str(r.machine) for r in records if r.machine})
    if machine and machine not in machines:
        raise UsageError(f"run {folder.name} has no machine {machine!r}; machines: {', '.join(machines) or 'none'}")
    if not machine and len(machines) > 1:
        raise UsageError(f"run {folder.name} holds machines {', '.join(machines)}: compare one of them, "
                         f"e.g. {spec}@{machines[0]}")
    if machine:
        records = [r for r in records if r.machine == machine]
    blocks = {}
    for m in results.merge_records(records):
        if m.status is Status.PASS and m.samples_s:
            blocks[m.key] = [sample_stats.ns_per_op(b, int(m.n or 1)) for b in m.worker_samples_s]
    run_id = run.results()["run_id"].dropna().astype(str)
    run_id = run_id.iloc[0] if len(run_id) else folder.name
    if machine:
        return LoadedRun(f"{run_id}@{machine}", folder, run.machine_folder(machine).machine(), blocks,
                         results.machine_steadiness(records))
    return LoadedRun(run_id, folder, run.machine(), blocks, results.machine_steadiness(records))


def _resampled_medians(blocks: list[np.ndarray], rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Medians of ``resamples`` two-level resamples: pick as many blocks as there are, with replacement, and
    within each picked block as many samples as it has, with replacement."""
    width = max(len(b) for b in blocks)
    padded = np.full((len(blocks), resamples, width), np.nan)
    for i, block in enumerate(blocks):
        padded[i, :, :len(block)] = block[rng.integers(0, len(block), (resamples, len(block)))]
    picked = rng.integers(0, len(blocks), (resamples, len(blocks)))
    chosen = padded[picked, np.arange(resamples)[:, None]]  # (resamples, blocks, width)
    return np.nanmedian(chosen.reshape(resamples, -1), axis=1)


def ratio_interval(x_blocks: list[np.ndarray], y_blocks: list[np.ndarray],
                   resamples: int = sample_stats.RESAMPLES) -> tuple[float, float]:
    """95% interval of median(y) / median(x) by the two-level bootstrap, seeded so reports repeat."""
    if sum(len(b) for b in x_blocks) < 2 or sum(len(b) for b in y_blocks) < 2:
        return math.nan, math.nan
    rng = np.random.default_rng(0)
    ratios = _resampled_medians(y_blocks, rng, resamples) / _resampled_medians(x_blocks, rng, resamples)
    tail = 100 * (1 - sample_stats.CONFIDENCE) / 2
    low, high = np.percentile(ratios, [tail, 100 - tail])
    return float(low), float(high)


def drifts(a: LoadedRun, b: LoadedRun, keys: list[tuple]) -> dict[tuple, float]:
    """Per measurement, the median change of median of the other implementations of its workload (kernel,
    workload kind, n) in both runs; NaN where there is none."""
    log_ratio = {k: math.log(np.median(np.concatenate(b.blocks[k])) / np.median(np.concatenate(a.blocks[k])))
                 for k in keys}
    out = {}
    for key in keys:
        others = [log_ratio[k] for k in keys if k != key and (k[0], k[2], k[3]) == (key[0], key[2], key[3])]
        out[key] = math.exp(float(np.median(others))) if others else math.nan
    return out


def compare_pair(a: LoadedRun, b: LoadedRun, relative: bool = False) -> pd.DataFrame:
    rows = []
    keys = [k for k in sorted(set(a.blocks) & set(b.blocks), key=str) if k[0] != results.OVERHEAD_KERNEL]
    drift = drifts(a, b, keys) if relative else dict.fromkeys(keys, math.nan)
    for key in keys:
        scale = drift[key] if drift[key] == drift[key] else 1.0
        x, y = np.concatenate(a.blocks[key]), np.concatenate(b.blocks[key])
        raw = float(np.median(y) / np.median(x))
        ratio = raw / scale
        low, high = (v / scale for v in ratio_interval(a.blocks[key], b.blocks[key]))
        y_scaled = y / scale
        p = float(stats.mannwhitneyu(x, y_scaled, alternative="two-sided").pvalue) if len(x) > 1 and len(y) > 1 \
            else 1.0
        significant = p < ALPHA and low == low and (low > 1 or high < 1)
        rows.append(dict(zip(KEY, key)) | {
            "run_a": a.run_id, "run_b": b.run_id,
            "machine_a": a.machine.get("cpu", ""), "machine_b": b.machine.get("cpu", ""),
            "median_a": float(np.median(x)), "median_b": float(np.median(y)),
            "ci_a": _relative_halfwidth(x), "ci_b": _relative_halfwidth(y),
            "change": ratio - 1, "change_ci_low": low - 1, "change_ci_high": high - 1,
            "relative": relative, "drift": drift[key] - 1, "absolute_change": raw - 1,
            "p_value": p, "significant": significant, "samples_a": len(x), "samples_b": len(y),
            "processes_a": len(a.blocks[key]), "processes_b": len(b.blocks[key]),
        })
    frame = pd.DataFrame(rows)
    if len(frame):
        frame = frame.assign(**machine_change(a.steadiness, b.steadiness))
    if relative and len(frame):  # for the report: each workload's drift, its implementations' median change
        frame["workload_drift"] = frame.groupby(["kernel", "workload", "n"])["absolute_change"].transform("median")
    return frame


def machine_change(a: dict, b: dict) -> dict:
    """How the machine itself moved between two runs, by their canaries: each run's canary median and slowed
    share, the change of the median, and whether the runs are unlike (that change beyond MACHINE_CHANGE, or
    either run slowed for results.UNSTEADY_SHARE of it or more). Unknown (NaN, False) for a run saved without a
    canary."""
    change = b["machine_canary_us"] / a["machine_canary_us"] - 1
    shares = (a["machine_slowed_share"], b["machine_slowed_share"])
    unlike = bool(abs(change) > MACHINE_CHANGE or max(shares) >= results.UNSTEADY_SHARE)
    return {"canary_us_a": a["machine_canary_us"], "canary_us_b": b["machine_canary_us"],
            "slowed_share_a": shares[0], "slowed_share_b": shares[1], "canary_change": change,
            "machine_changed": unlike}


def _relative_halfwidth(x: np.ndarray) -> float:
    low, high = sample_stats.bootstrap_interval((x,), sample_stats.median)
    med = float(np.median(x))
    return (high - low) / 2 / med if med and low == low else math.nan


def compare(specs: list[str], reports_dir: Path, relative: bool = False) -> pd.DataFrame:
    if len(specs) < 2:
        raise UsageError("compare needs at least two runs")
    runs = [load_run(s, reports_dir) for s in specs]
    frames = [compare_pair(runs[0], other, relative) for other in runs[1:]]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if frame.empty:
        raise UsageError(f"runs {', '.join(r.run_id for r in runs)} have no passing measurement in common")
    return frame


def geomean_change(frame: pd.DataFrame) -> dict[str, float]:
    """Per compared run, the geometric mean of the (absolute) median ratios over every row both runs measured."""
    return {run: float(np.exp(np.log1p(g["absolute_change"]).mean()) - 1)
            for run, g in frame.groupby("run_b", sort=False)}


def regressions(frame: pd.DataFrame, threshold_pct: float) -> pd.DataFrame:
    """Rows slower by more than the threshold with the whole interval beyond it."""
    return frame[frame["significant"] & (frame["change_ci_low"] > threshold_pct / 100)]
