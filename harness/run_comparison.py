"""Compare saved runs, benchstat-style: per measurement the change of the median, its interval, a p-value.

The first run is the reference; every other run is compared with it. A change is called only when the
Mann-Whitney U test (scipy.stats.mannwhitneyu) over the runs' units (each pass's median) rejects "same
distribution" at ``alpha`` *and* the 95% interval of the ratio of medians excludes 1; otherwise the row says
``~``. The regression gate is stricter still: it trips only where the whole interval lies beyond the threshold,
so noise within a run cannot fail a build; where an interval is too wide to tell a change of the threshold
from none, the gate says so (``unresolved``) instead of passing. A slow spell that covers every process of one
run can still trip it (the interval cannot see past its processes), and the fewer the processes, the likelier:
a gated row says how many stood behind it (GATE_PROCESSES).

The interval is the hierarchical bootstrap of sample_stats: worker processes are resampled, then passes within
each. Samples of one pass, or of one process, are not independent of each other (where the pass's arrays
landed, a slow spell of the machine), and an interval from pooled samples would call such a difference a
regression. scipy.stats.bootstrap resamples flat samples only, hence that code.

With ``relative`` (`swarbench compare`'s default, and ``compare``'s here; ``compare_pair`` takes it as asked),
each change is taken against the other implementations of the same workload: B's samples
are divided by the drift, the others' changes of median at their densest (the median of the densest half of them,
sample_stats.densest_half_median), before the interval and the test. A slow stretch of the whole machine between
two runs moves every competitor of a workload alike (their passes are interleaved within each worker), so it
cancels; a regression of one implementation does not, since its own change is left out of its drift, and the
densest half of the others is not moved by a few of them regressing, nor by nearly half of them moving together
(docs/measurement.md has a pair where they did), where a plain median of an even count would average across the
gap and move every other row by half of it. The
drift's own uncertainty is not in the interval. A row with no other implementation in both runs keeps its
absolute change (drift blank). What a drift hides is a change to every implementation of a workload alike, so
the gate names a workload whose drift reaches its threshold (workloads_moved, gate) instead of passing it.
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
# CPUs a row's passes kept busy from which it runs threads (one thread reads 0.99-1.02, threaded rows 1.2-2.0 on a
# 2-vCPU VM): with fewer than GATE_PROCESSES processes a side it is not gated (docs/measurement.md, "The gate")
THREADED_CPUS = 1.15


@dataclass
class LoadedRun:
    run_id: str
    folder: Path
    machine: dict
    # KEY -> ns/op samples of a PASS measurement: a list of passes (arrays) per worker (sample_stats.Units); a
    # worker given as one flat array counts each sample as a pass
    blocks: dict[tuple, list]
    # the canary's view of the run (results.machine_steadiness); NaN for a run saved without one
    steadiness: dict = field(default_factory=lambda: results.machine_steadiness([]))
    # KEY -> the CPUs its timed passes kept busy (results.Measurement.cpus_busy); absent where not recorded
    cpus: dict = field(default_factory=dict)


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
        raise UsageError(
            f"run {folder.name} holds machines {', '.join(machines)}: compare one of them, e.g. {spec}@{machines[0]}"
        )
    if machine:
        records = [r for r in records if r.machine == machine]
    blocks, cpus = {}, {}
    for m in results.merge_records(records):
        if m.status is Status.PASS and m.samples_s:
            n = int(m.n or 1)
            blocks[m.key] = [[sample_stats.ns_per_op(p, n) for p in worker] for worker in m.unit_samples_s]
            cpus[m.key] = m.cpus_busy
    run_id = run.results()["run_id"].dropna().astype(str)
    run_id = run_id.iloc[0] if len(run_id) else folder.name
    if machine:
        return LoadedRun(
            f"{run_id}@{machine}",
            folder,
            run.machine_folder(machine).machine(),
            blocks,
            results.machine_steadiness(records),
            cpus,
        )
    return LoadedRun(run_id, folder, run.machine(), blocks, results.machine_steadiness(records), cpus)


def ratio_interval(x_blocks: list, y_blocks: list) -> tuple[float, float]:
    """95% interval of median(y) / median(x), each run's samples resampled by process and then by pass
    (sample_stats.units_ratio_interval); a block given as a flat array counts each of its samples as a pass."""
    return sample_stats.units_ratio_interval(sample_stats.as_units(x_blocks), sample_stats.as_units(y_blocks))


def unit_medians(blocks: list) -> np.ndarray:
    """The median of each unit (a pass of a process): what the rank test compares, as independent values."""
    return np.array([np.median(p) for worker in sample_stats.as_units(blocks) for p in worker if len(p)])


def at_two_speeds(blocks: list) -> bool:
    """Whether a measurement's passes ran at two speeds (results.two_speeds, over the passes of enough samples, as
    the run's own marks judge them): its median can move between the two from run to run."""
    medians = [float(np.median(p)) for w in sample_stats.as_units(blocks) for p in w if len(p) >= results.PASS_SAMPLES]
    return results.two_speeds(medians) is not None


def flat(blocks: list) -> np.ndarray:
    """Every sample of a measurement's blocks, whatever their nesting."""
    return np.concatenate([p for worker in sample_stats.as_units(blocks) for p in worker])


def drifts(a: LoadedRun, b: LoadedRun, keys: list[tuple]) -> dict[tuple, float]:
    """Per measurement, the change of median of the other implementations of its workload (kernel, workload kind,
    n) in both runs, the median of their densest half; NaN where there is none."""
    log_ratio = {k: math.log(np.median(flat(b.blocks[k])) / np.median(flat(a.blocks[k]))) for k in keys}
    out = {}
    for key in keys:
        others = [log_ratio[k] for k in keys if k != key and (k[0], k[2], k[3]) == (key[0], key[2], key[3])]
        out[key] = math.exp(sample_stats.densest_half_median(others)) if others else math.nan
    return out


def compare_pair(a: LoadedRun, b: LoadedRun, relative: bool = False) -> pd.DataFrame:
    rows = []
    keys = [k for k in sorted(set(a.blocks) & set(b.blocks), key=str) if k[0] != results.OVERHEAD_KERNEL]
    drift = drifts(a, b, keys) if relative else dict.fromkeys(keys, math.nan)
    for key in keys:
        scale = drift[key] if drift[key] == drift[key] else 1.0
        x, y = flat(a.blocks[key]), flat(b.blocks[key])
        raw = float(np.median(y) / np.median(x))
        ratio = raw / scale
        low, high = (v / scale for v in ratio_interval(a.blocks[key], b.blocks[key]))
        # the rank test over units, not samples: samples of one pass are not independent of each other
        ux, uy = unit_medians(a.blocks[key]), unit_medians(b.blocks[key]) / scale
        p = float(stats.mannwhitneyu(ux, uy, alternative="two-sided").pvalue) if len(ux) > 1 and len(uy) > 1 else 1.0
        significant = p < ALPHA and low == low and (low > 1 or high < 1)
        rows.append(
            dict(zip(KEY, key))
            | {
                "run_a": a.run_id,
                "run_b": b.run_id,
                "machine_a": a.machine.get("cpu", ""),
                "machine_b": b.machine.get("cpu", ""),
                "median_a": float(np.median(x)),
                "median_b": float(np.median(y)),
                "ci_a": _relative_halfwidth(a.blocks[key]),
                "ci_b": _relative_halfwidth(b.blocks[key]),
                "change": ratio - 1,
                "change_ci_low": low - 1,
                "change_ci_high": high - 1,
                "relative": relative,
                "drift": drift[key] - 1,
                "absolute_change": raw - 1,
                "p_value": p,
                "significant": significant,
                "samples_a": len(x),
                "samples_b": len(y),
                "units_a": len(ux),
                "units_b": len(uy),
                "processes_a": len(a.blocks[key]),
                "processes_b": len(b.blocks[key]),
                "two_speeds_a": at_two_speeds(a.blocks[key]),
                "two_speeds_b": at_two_speeds(b.blocks[key]),
                "cpus_a": a.cpus.get(key, math.nan),
                "cpus_b": b.cpus.get(key, math.nan),
            }
        )
    frame = pd.DataFrame(rows)
    if len(frame):
        frame = frame.assign(**machine_change(a.steadiness, b.steadiness))
    if relative and len(frame):  # for the report: each workload's drift, from all its implementations' changes
        frame["workload_drift"] = (
            np.exp(
                frame.assign(log_change=np.log1p(frame["absolute_change"]))
                .groupby(["kernel", "workload", "n"])["log_change"]
                .transform(sample_stats.densest_half_median)
            )
            - 1
        )
    return frame


def machine_change(a: dict, b: dict) -> dict:
    """How the machine itself moved between two runs: each run's canary median, slowed share (from its passes)
    and other programs' CPUs (its load lines), the change of the canary median, and whether the runs are unlike
    (that change beyond MACHINE_CHANGE, either run slowed for results.UNSTEADY_SHARE of it or more, or other
    programs' CPUs differing by results.OTHERS_SEEN * 5 or more). Unknown (NaN, False) for runs saved without
    these."""
    change = b["machine_canary_us"] / a["machine_canary_us"] - 1
    shares = (a["machine_slowed_share"], b["machine_slowed_share"])
    others = (a.get("machine_others_cpus", math.nan), b.get("machine_others_cpus", math.nan))
    unlike = bool(
        abs(change) > MACHINE_CHANGE
        or max(shares) >= results.UNSTEADY_SHARE
        or abs(others[1] - others[0]) >= results.OTHERS_SEEN * 5
    )
    return {
        "canary_us_a": a["machine_canary_us"],
        "canary_us_b": b["machine_canary_us"],
        "slowed_share_a": shares[0],
        "slowed_share_b": shares[1],
        "canary_change": change,
        "others_cpus_a": others[0],
        "others_cpus_b": others[1],
        "machine_changed": unlike,
    }


def _relative_halfwidth(blocks: list) -> float:
    low, high = sample_stats.units_interval(sample_stats.as_units(blocks))
    med = float(np.median(flat(blocks)))
    return (high - low) / 2 / med if med and low == low else math.nan


def compare(specs: list[str], reports_dir: Path, relative: bool = True) -> pd.DataFrame:
    """Every later run against the first, as `swarbench compare` does: one frame of compare_pair's rows."""
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
    return {
        run: float(np.exp(np.log1p(g["absolute_change"]).mean()) - 1) for run, g in frame.groupby("run_b", sort=False)
    }


def two_speeds(frame: pd.DataFrame) -> pd.Series:
    """Rows whose passes ran at two speeds in either run (none for a comparison saved without the columns)."""
    a, b = (
        frame[column].fillna(False).astype(bool) if column in frame else pd.Series(False, index=frame.index)
        for column in ("two_speeds_a", "two_speeds_b")
    )
    return a | b


def threaded(frame: pd.DataFrame) -> pd.Series:
    """Rows that kept THREADED_CPUS or more busy in either run, measured by fewer than GATE_PROCESSES processes a
    side (none for a comparison saved without the columns)."""
    if "cpus_a" not in frame or "cpus_b" not in frame:
        return pd.Series(False, index=frame.index)
    busy = frame[["cpus_a", "cpus_b"]].max(axis=1, skipna=True) >= THREADED_CPUS
    return busy & (frame[["processes_a", "processes_b"]].min(axis=1) < GATE_PROCESSES)


def regressions(frame: pd.DataFrame, threshold_pct: float) -> pd.DataFrame:
    """Rows slower by more than the threshold with the whole interval beyond it, their passes at one speed in
    both runs (a row at two speeds can move by the distance between them without any change of its code), not
    running threads on too few processes (threaded)."""
    beyond = frame["significant"] & (frame["change_ci_low"] > threshold_pct / 100)
    return frame[beyond & ~two_speeds(frame) & ~threaded(frame)]


def whole_run_moved(frame: pd.DataFrame, threshold_pct: float) -> dict[str, float]:
    """The compared runs whose rows moved together: each run's median change over every row, where it is half
    the threshold or more (a compare without ``relative``). A whole run that moved is the machine (a slower
    spell, another load) or a change to every row; either way no row's change can be told from it, and the gate
    says so instead of failing or passing every row on it."""
    if not len(frame) or frame["relative"].any():
        return {}
    moved = frame.groupby("run_b", sort=False)["absolute_change"].median()
    return {run: float(change) for run, change in moved.items() if abs(change) >= threshold_pct / 200}


def workloads_moved(frame: pd.DataFrame, threshold_pct: float) -> dict[tuple, float]:
    """In a ``relative`` compare, the workloads (run_b, kernel, workload, n) whose implementations moved together
    by the threshold or more, with their drift (the change of all of them at their densest). Each row there is judged
    against that drift, so a change of the threshold to every implementation alike would pass unseen: the gate
    names such a workload instead. A workload of one implementation keeps its absolute change, which is then
    also the whole workload's: it cannot be told from the machine either."""
    if not len(frame) or not frame["relative"].any():
        return {}
    drift = frame.groupby(["run_b", "kernel", "workload", "n"], sort=False)["workload_drift"].first()
    return {key: float(change) for key, change in drift.items() if abs(change) >= threshold_pct / 100}


@dataclass
class GateVerdict:
    """`compare --fail-on-regression`'s decision, made here once: the rows told to be regressions (exit 1), and
    what could not be told, each with why (exit 3 when nothing was told): rows (``unresolved``), runs whose every
    row moved together (absolute compares), workloads that moved as a whole (relative compares)."""

    threshold_pct: float
    regressions: pd.DataFrame
    unresolved: pd.DataFrame
    runs_moved: dict[str, float]
    workloads_moved: dict[tuple, float]
    # rows beyond the threshold in a workload that moved as a whole: said, not told (gate)
    set_aside: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def failed(self) -> bool:
        return not self.runs_moved and len(self.regressions) > 0

    @property
    def resolved(self) -> bool:
        return not (self.runs_moved or self.workloads_moved or len(self.unresolved))


def gate(frame: pd.DataFrame, threshold_pct: float) -> GateVerdict:
    """The regression gate over a comparison: a run that moved as a whole outweighs its rows (none of them can
    be told from the machine), and so does a workload that moved as a whole: a machine that ran a quarter slower
    does not slow every row alike (one bound by memory, another by its core), so a row's change against such a
    drift is not its own either. Every other regression is told."""
    moved = workloads_moved(frame, threshold_pct)
    beyond = regressions(frame, threshold_pct)
    where = zip(beyond["run_b"], beyond["kernel"], beyond["workload"], beyond["n"])
    inside = np.array([key in moved for key in where], dtype=bool)
    return GateVerdict(
        threshold_pct,
        beyond[~inside],
        unresolved(frame, threshold_pct),
        whole_run_moved(frame, threshold_pct),
        moved,
        beyond[inside],
    )


def unresolved(frame: pd.DataFrame, threshold_pct: float) -> pd.DataFrame:
    """Rows that cannot tell a change of the threshold from none, each with why in ``cannot_resolve``: "no
    interval" (too few units), "two speeds" (passes at two speeds in either run) or "threads" (threaded), these
    two with a change beyond the threshold, else "interval" (its half-width is the threshold or more).
    Regressions are left out: they were told."""
    half = (frame["change_ci_high"] - frame["change_ci_low"]) / 2
    beyond = frame.index.isin(regressions(frame, threshold_pct).index)
    moved = frame["change"].abs() > threshold_pct / 100
    split, busy = two_speeds(frame) & moved, threaded(frame) & moved
    narrow = half < threshold_pct / 100
    why = np.select([half.isna(), split, busy, ~narrow], ["no interval", "two speeds", "threads", "interval"], "")
    return frame.assign(cannot_resolve=why)[~beyond & (~narrow | split | busy)]
