"""The tidy results frame: one row per (kernel, implementation, workload, n), built from a run's records.

The records are the workers' result lines (swarbench.runfolder); the workers of a run each time every case,
so a case's lines are merged first (merge_records), its slowed samples set aside (steadiness), and its figures
computed once (sample_stats). Renderers only format these columns.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Optional, Union

import numpy as np

from swarbench.explain import limits as explain_limits
from swarbench.results import sample_stats
from swarbench.results.steadiness import (
    PASS_SAMPLES,
    TimedPass,
    canary_readings,
    least_slowed,
    machine_steadiness,
    passes_of,
    seconds,
    slowed_limit,
    two_speeds,
)
from swarbench.runfolder import (
    EXPLAIN_COLUMNS,
    FAILED,
    RESULTS_FORMAT,
    MeasurementKey,
    Record,
    ResultLine,
    Status,
    keeps_slowed,
    record,
    results_of,
)

if TYPE_CHECKING:
    import pandas as pd

FORMAT_VERSION = RESULTS_FORMAT  # results.csv's, in its format_version column (swarbench.runfolder)
COLUMNS = [
    "run_id",
    "kernel",
    "suite",
    "implementation",
    "family",
    "workload",
    "n",
    "unit",
    "seed",
    "status",
    "reason",
    "expected_to_fail",
    "prepare_s",
    "reprepare_s",
    "processes",
    "rounds",
    "iterations",
    "samples",
    "samples_slowed",
    "ns_per_op_median",
    "ns_per_op_ci_low",
    "ns_per_op_ci_high",
    "ns_per_op_min",
    "ns_per_op_q1",
    "ns_per_op_q3",
    "ns_per_op_iqr",
    "ns_per_op_mean",
    "cv",
    "units",
    "cpus_busy",
    "stability",
    "s_per_call_median",
    "ops_per_s",
    "overhead_ns_per_call",
    "ns_per_op_corrected",
    "cycles_per_op_est",
    "clock_ghz",
    "hw_cycles_per_op",
    "hw_instructions_per_op",
    "worker_medians",
    "worker_spread",
    "ns_per_op_best_worker",
    "ns_per_op_median_all",
    "baseline",
    "speedup",
    "speedup_ci_low",
    "speedup_ci_high",
    "params",
    "summary",
    "machine",
    "machine_cpu",
    "machine_python",
    "machine_compiler",
    "machine_host",
    "machine_canary_us",
    "machine_slowed_share",
    "machine_slowdown",
    "machine_others_cpus",
    "machine_steal_share",
    "machine_queue",
    "git_commit",
    "format_version",
    *EXPLAIN_COLUMNS,
]
# (LATER_COLUMNS, those added within format 2, are swarbench.runfolder's: it reads older files)
OVERHEAD_KERNEL = "swarbench.overhead"
SPLIT_WORKERS = 0.10  # worker medians further apart than this (relative to the merged median) are flagged
# No core reads more than this from its L1 cache a cycle (two 64-byte loads; AVX-512 cores): a batch that
# reads its inputs faster than that did not read them (an answer cached or computed in prepare).
MAX_READ_BYTES_PER_CYCLE = 128
FASTEST_CLOCK_GHZ = 6.0  # the clock assumed where the machine's is unknown: a bound no core passes


@dataclass
class Measurement:
    """One measurement (kernel, implementation, workload, n) over every worker's result lines: the first line's
    fields with the worst status any line had, and every worker's samples judged as one."""

    line: ResultLine  # the first line, its status, reason, rounds, iterations, summary and counts merged
    samples_s: list  # those its median is taken over
    samples_slowed_s: list  # set aside: timed while the machine was slowed
    samples_all_s: list  # every sample either way
    worker_samples_s: list  # the kept samples, one list per worker
    unit_samples_s: list  # the kept samples, a list per pass in a list per worker: the units of the intervals
    filled_in: int  # samples of slowed passes kept since too few others were left
    processes: int  # workers that timed it
    set_aside: bool  # whether slowed samples were judged (not a --keep-slowed run)
    two_speeds: Optional[tuple]
    cpus_busy: float  # the median over its timed passes of the CPUs each kept busy (NaN: not recorded)
    prepare_s: float
    reprepare_s: float

    # what it measures, as its line says
    key = property(lambda self: self.line.key)
    status = property(lambda self: self.line.status)
    case = property(lambda self: self.line.case)
    kernel = property(lambda self: self.line.kernel)
    implementation = property(lambda self: self.line.implementation)
    workload = property(lambda self: self.line.workload)
    n = property(lambda self: self.line.n)


@dataclass
class _Merging:
    """One measurement's result lines, gathered before their samples are judged."""

    first: ResultLine
    status: Optional[Status] = None  # the worst any line had
    reason: Optional[str] = None  # the worst line's, once a line worse than the first came
    rounds: int = 0
    iterations: int = 0
    summary: object = None
    explain: Optional[dict] = None  # the line's that read the code, else the first line's
    passes: list[tuple[int, TimedPass]] = field(default_factory=list)  # (worker, pass) in the lines' order
    prepare_s: list[float] = field(default_factory=list)
    reprepare_s: list[float] = field(default_factory=list)  # preparing a fresh copy for a later pass
    hw: list[tuple[float, float]] = field(default_factory=list)  # (cycles, instructions) per op, by worker
    samples_all_s: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)  # each timed pass's CPUs kept busy

    def add(self, rec: ResultLine) -> None:
        if _severity(rec.status) > _severity(self.status):
            self.status, self.reason = rec.status, rec.reason
        self.passes += [(rec.worker, p) for p in passes_of(rec)]
        self.rounds += rec.rounds or 0
        self.iterations = max(self.iterations, rec.iterations or 0)
        self.summary = self.summary or rec.summary
        if not self.explain or ("called" not in self.explain and rec.explain and "called" in rec.explain):
            self.explain = rec.explain  # the line of the worker that read the code (the first), else any
        if rec.prepare_s is not None:
            self.prepare_s.append(rec.prepare_s)
        again = rec.reprepare_s
        self.reprepare_s += [s for s in map(seconds, again if isinstance(again, list) else []) if s is not None]
        if rec.counts.get("hw_cycles_per_op") is not None:
            self.hw.append((rec.counts["hw_cycles_per_op"], rec.counts.get("hw_instructions_per_op", math.nan)))
        self.samples_all_s += rec.samples_s
        cpus = rec.pass_cpus if isinstance(rec.pass_cpus, list) else []
        self.cpus += [
            float(c)
            for c in cpus
            if isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) and c >= 0
        ]

    def merged(self, limit: float, keep_all: bool) -> Measurement:
        """The measurement: the first line's fields, every worker's samples judged as one."""
        keeps = least_slowed([(p.reading_s, len(p.samples_s)) for _, p in self.passes], limit)
        kept = [wp for k, wp in zip(keeps, self.passes) if k]
        workers: dict = {}
        units: dict = {}  # worker -> its kept passes' samples, a list each: the units of the median's interval
        for worker, p in kept:
            if p.samples_s:  # (a pass whose rounds all fell in other passes has none)
                workers.setdefault(worker, []).extend(p.samples_s)
                units.setdefault(worker, []).append(list(p.samples_s))
        line = dataclasses.replace(
            self.first, rounds=self.rounds, iterations=self.iterations, summary=self.summary, explain=self.explain
        )
        if self.reason is not None:
            line.status, line.reason = self.status, self.reason
        if self.hw:  # the median over the workers that could count
            cycles, instructions = (float(x) for x in np.median(self.hw, axis=0))
            line.counts = dict(line.counts, hw_cycles_per_op=cycles, hw_instructions_per_op=instructions)
        return Measurement(
            line,
            samples_s=[x for _, p in kept for x in p.samples_s],
            samples_slowed_s=[x for k, (_, p) in zip(keeps, self.passes) if not k for x in p.samples_s],
            samples_all_s=self.samples_all_s,
            worker_samples_s=[workers[w] for w in sorted(workers)],
            unit_samples_s=[units[w] for w in sorted(units)],
            filled_in=sum(len(p.samples_s) for _, p in kept if p.reading_s > limit),
            processes=len({worker for worker, p in self.passes if p.samples_s}),
            set_aside=not keep_all,
            two_speeds=two_speeds([float(np.median(p.samples_s)) for _, p in kept if len(p.samples_s) >= PASS_SAMPLES]),
            cpus_busy=float(np.median(self.cpus)) if self.cpus else math.nan,
            prepare_s=float(np.median(self.prepare_s)) if self.prepare_s else math.nan,
            reprepare_s=float(np.median(self.reprepare_s)) if self.reprepare_s else math.nan,
        )


def _severity(status: Optional[Status]) -> int:
    return status.severity if status is not None else 0


def merge_records(records: Iterable[Union[dict, Record]]) -> list[Measurement]:
    """One measurement per (kernel, implementation, workload, n): the samples of every worker that ran it, the
    worst status any worker saw. ``records`` are a run's lines, typed (runfolder.read_records) or as JSON.

    Samples of a pass that a canary reading on either side found the machine slowed (see swarbench.bench.canary)
    are set aside, in ``samples_slowed_s``: they measured a neighbour's load as much as the kernel. Where that
    would leave too few (see steadiness.least_slowed), the least slowed of those passes fill in, and the
    measurement says so (``filled_in``). ``samples_all_s`` has every sample either way. A run made with
    ``--keep-slowed`` (its ``run`` line says so) sets nothing aside."""
    records = [record(r) for r in records]
    keep_all = keeps_slowed(records)
    limit = math.inf if keep_all else slowed_limit(canary_readings(records))
    merging: dict[MeasurementKey, _Merging] = {}
    for rec in results_of(records):
        if rec.key not in merging:
            merging[rec.key] = _Merging(rec, status=rec.status)
        merging[rec.key].add(rec)
    return [m.merged(limit, keep_all) for m in merging.values()]


def _worker_split(worker_samples_s: list[list[float]], n: int, row: dict) -> dict:
    """Each worker's own median (ns/op, JSON list) and how far apart they lie relative to the merged median: a
    difference between processes (memory layout, frequency, a neighbour) that more rounds in one process cannot
    show."""
    ns = [float(np.median(s)) * 1e9 / n for s in worker_samples_s]
    two = len(ns) > 1 and row["ns_per_op_median"] > 0
    spread = (max(ns) - min(ns)) / row["ns_per_op_median"] if two else math.nan
    # The least disturbed worker's median: slow spells only ever add time (timeit's argument for its minimum)
    out = {
        "worker_medians": json.dumps([round(x, 6) for x in ns]),
        "worker_spread": spread,
        "ns_per_op_best_worker": min(ns) if ns else math.nan,
    }
    if spread > SPLIT_WORKERS:
        out["stability"] = "; ".join(x for x in (row["stability"], f"workers differ by {spread:.0%}") if x)
    return out


def _stability(warnings: str, m: Measurement, n: int) -> str:
    """The statistics' warnings, and what judging the machine's steadiness changed or could not settle."""
    notes = [warnings]
    if m.filled_in:
        notes.append(
            f"{m.filled_in} of its {len(m.samples_s)} samples from the least slowed of the "
            "passes the machine slowed: too few were taken while it was not"
        )
    if m.two_speeds:
        low, high = (x * 1e9 / n for x in m.two_speeds)
        notes.append(
            f"passes ran at two speeds, {low:.4g} and {high:.4g} ns/op (memory layout or machine): "
            "its median can move between them from run to run"
        )
    return "; ".join(x for x in notes if x)


def _line_columns(m: Measurement) -> dict:
    """The columns a measurement takes from its lines as they are; a field no line had is left empty."""
    line = m.line
    row = {
        "kernel": line.kernel,
        "suite": line.suite,
        "implementation": line.implementation,
        "family": line.family,
        "workload": line.workload,
        "n": line.n,
        "unit": line.unit,
        "seed": line.seed,
        "status": line.status.value if line.status is not None else None,
        "reason": line.reason,
        "baseline": line.baseline,
        "prepare_s": m.prepare_s,
        "reprepare_s": m.reprepare_s,
        "processes": m.processes,
        "rounds": line.rounds,
        "iterations": line.iterations,
        **{k: v for k, v in line.counts.items() if k in COLUMNS},
    }
    return {k: v for k, v in row.items() if v is not None}


def frame_from_records(records: Iterable[Union[dict, Record]], run_id: str, machine: dict) -> pd.DataFrame:
    """The run's frame: a row per measurement, with the machine it ran on and the speedups over baselines."""
    import pandas as pd  # here: merging records (the engine's and compare's use) needs no pandas

    clock = machine.get("clock_ghz") or math.nan
    records = [record(r) for r in records]
    steadiness = machine_steadiness(records)
    rows, samples = [], {}
    for m in merge_records(records):
        row = _line_columns(m)
        n = int(m.n or 1)
        row.update(sample_stats.summarize(m.samples_s, n, int(m.line.iterations or 1), units=m.unit_samples_s))
        row["stability"] = _stability(row["stability"], m, n)
        row["cpus_busy"] = m.cpus_busy
        every = m.samples_all_s
        row.update(
            run_id=run_id,
            samples=len(m.samples_s),
            # unknown for a run that kept every sample: it never judged any
            samples_slowed=len(m.samples_slowed_s) if m.set_aside else math.nan,
            ns_per_op_median_all=float(np.median(every)) * 1e9 / n if every else math.nan,
            params=json.dumps(m.line.params or {}, sort_keys=True),
            summary=json.dumps(m.line.summary, sort_keys=True) if m.line.summary is not None else "",
            expected_to_fail=m.line.expected_to_fail or "",
            clock_ghz=clock,
            cycles_per_op_est=row["ns_per_op_median"] * clock
            if row["ns_per_op_median"] == row["ns_per_op_median"]
            else math.nan,
            # the fleet's name of the machine (swarbench.fleet); a local run's is its host name
            machine=machine.get("name") or machine.get("hostname", ""),
            machine_cpu=machine.get("cpu", ""),
            machine_python=machine.get("python", ""),
            machine_compiler=machine.get("compiler", ""),
            machine_host=machine.get("hostname", ""),
            **steadiness,
            git_commit=machine.get("git_commit", ""),
            format_version=FORMAT_VERSION,
        )
        row.update(_worker_split(m.worker_samples_s, n, row))
        row.update(explain_limits.columns(m.line.explain, machine, row["ns_per_op_median"], clock, m.line.counts))
        impossible = beyond_any_machine(row, m.line.input_bytes, n, clock)
        if impossible:
            row.update(status=Status.FAIL.value, reason=impossible)
        samples[len(rows)] = [[sample_stats.ns_per_op(p, n) for p in worker] for worker in m.unit_samples_s]
        rows.append(row)
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame = add_speedups(frame, samples)
    return add_overheads(frame)


def beyond_any_machine(row: dict, input_bytes, n: int, clock_ghz: float) -> str:
    """Why a PASS's median is faster than any machine could read the inputs its batch must read; "" if it is
    not (or the size of its inputs is unknown)."""
    median = row.get("ns_per_op_median", math.nan)
    if (
        row.get("status") != Status.PASS
        or not isinstance(input_bytes, (int, float))
        or not input_bytes > 0
        or not median == median
    ):
        return ""
    clock = clock_ghz if clock_ghz == clock_ghz and clock_ghz > 0 else FASTEST_CLOCK_GHZ
    least_cycles = input_bytes / max(n, 1) / MAX_READ_BYTES_PER_CYCLE
    if median * clock >= least_cycles:
        return ""
    return (
        f"faster than any machine: {median * clock:.3g} cycles/op, where reading its {input_bytes / max(n, 1):g} "
        f"input bytes per op takes at least {least_cycles:.3g} ({MAX_READ_BYTES_PER_CYCLE} bytes a cycle); "
        "it cannot be reading its inputs (an answer cached, or computed in prepare?)"
    )


def add_speedups(frame: pd.DataFrame, samples: dict[int, list]) -> pd.DataFrame:
    """speedup = the baseline's median ns/op / this median, within one (run, kernel, workload, n), with its
    interval from both measurements' units (sample_stats.Units; a flat array of samples counts each sample as
    a unit)."""
    frame = frame.copy()
    for col in ("speedup", "speedup_ci_low", "speedup_ci_high"):
        frame[col] = math.nan
    for _, group in frame.groupby(["run_id", "kernel", "workload", "n"], dropna=False):
        base = group[(group["implementation"] == group["baseline"]) & (group["status"] == Status.PASS)]
        if not len(base):
            continue
        b = base.index[0]
        frame.loc[group.index, "speedup"] = frame.loc[b, "ns_per_op_median"] / group["ns_per_op_median"]
        for i in group.index:
            if frame.loc[i, "status"] == Status.PASS and len(samples.get(i, ())) and len(samples.get(b, ())):
                low, high = sample_stats.units_ratio_interval(
                    sample_stats.as_units(_blocks(samples[i])), sample_stats.as_units(_blocks(samples[b]))
                )
                frame.loc[i, ["speedup_ci_low", "speedup_ci_high"]] = [low, high]
    return frame


def _blocks(samples) -> list:
    """A measurement's samples as blocks for sample_stats.as_units: Units as they are, a flat array as one."""
    return samples if isinstance(samples, list) else [samples]


def add_overheads(frame: pd.DataFrame) -> pd.DataFrame:
    """The empty-call cost of each row's family, and ns/op without it where it is over 1% of a call."""
    from swarbench.bench.overhead import probe_family

    frame = frame.copy()
    probes = frame[(frame["kernel"] == OVERHEAD_KERNEL) & (frame["status"] == Status.PASS)]
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


def summary_of(value: Optional[str]) -> dict:
    """A frame's ``summary`` cell (JSON) as a dict; empty for none or a malformed one."""
    if not value:
        return {}
    try:
        return json.loads(value)
    except (TypeError, json.JSONDecodeError):
        return {}


def failed_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Wrong or broken implementations that are not kept wrong on purpose: these make a run exit non-zero."""
    bad = frame["status"].isin(FAILED) & (frame["expected_to_fail"].fillna("") == "")
    return frame[bad]
