"""How steady the machine was during a run, and (asked for) which samples it slowed.

The machine's speed through a run is read from the benchmarks' own passes (``machine_speed``): each pass's
median against its case's median over every pass, and in each second of the run the median of those ratios
over the cases timed in it. What else the machine did comes from the engine's ``load`` lines
(swarbench.machine_load): other programs' CPU time, steal, the run queue. docs/measurement.md tells why the
canary no longer judges samples by default.

With --set-aside-slowed, every pass of a case is bracketed by two canary readings (swarbench.bench.canary). A
pass whose slower reading is more than SLOWED over the run's fastest tenth ran while something else had the
machine; its samples are set aside before medians are taken, unless too few would be left (least_slowed).
"""

from __future__ import annotations

import math
from typing import Iterable, NamedTuple, Optional

import numpy as np

from swarbench.runfolder import CanaryLine, LoadLine, Record, ResultLine, Status, record

SLOWED = 0.15  # a canary timing this much over the run's fastest tenth is a moment the machine was slowed
UNSTEADY_SHARE = 0.25  # a run slowed this much of the time is one to measure again
JUDGING_READINGS = 20  # canary readings a run needs before any is called slowed
TWO_SPEEDS = 0.08  # passes in two groups further apart than this are flagged (see two_speeds)
PASS_SAMPLES = 3  # a pass's median stands for it from this many samples
STEADY_ENOUGH = 5  # samples that stand for a measurement (so do half of its samples); see least_slowed
WINDOW_S = 1.0  # the machine's speed is read second by second ...
WINDOW_PASSES = 5  # ... from the passes of at least this many cases' timed in it
CASE_PASSES = 3  # a case with fewer timed passes has no median to hold a pass against
OTHERS_SEEN = 0.1  # other programs' CPUs, steal's, or programs waiting, from which a report names them


class TimedPass(NamedTuple):
    """One pass's samples from a result line, with the slower of the canary readings taken around it."""

    reading_s: float
    samples_s: list


def least_slowed(passes: list[tuple[float, int]], limit: float) -> list[bool]:
    """Which passes, each (its canary reading, its sample count), a measurement keeps: every one the machine did
    not slow (reading up to ``limit``) and, where those hold fewer than STEADY_ENOUGH samples and fewer than half,
    the least slowed of the others, in order of their readings, until they do. Filling in from the least slowed
    moves the median by as little as the shortfall needs (docs/measurement.md)."""
    every = sum(n for _, n in passes)
    keep = [reading <= limit for reading, _ in passes]
    count = sum(n for k, (_, n) in zip(keep, passes) if k)
    for i in sorted(range(len(passes)), key=lambda i: passes[i][0]):
        if count >= STEADY_ENOUGH or 2 * count >= every:
            break
        if not keep[i]:
            keep[i], count = True, count + passes[i][1]
    return keep


def canary_readings(records: Iterable[Record | dict]) -> np.ndarray:
    """Every canary reading of a run, in seconds: the two around each pass (a result line's ``pass_canary_s``)
    and, in runs saved before those, the canary lines timed between passes."""
    out: list[float] = []
    for rec in map(record, records):
        if isinstance(rec, CanaryLine):
            out += [x for x in (seconds(rec.s),) if x is not None]
        elif isinstance(rec, ResultLine):
            out += [before_after for tag in pass_tags(rec) for before_after in tag[:2]]  # checked there
    return np.array(out, dtype=float)


def slowed_limit(readings: np.ndarray) -> float:
    """A canary reading over this says the machine was slowed: SLOWED over the run's fastest tenth. Fewer than
    JUDGING_READINGS readings (a run of a few cases) cannot tell a slow spell from a reading's own noise, and
    nothing is called slowed."""
    return float(np.quantile(readings, 0.1)) * (1 + SLOWED) if len(readings) >= JUDGING_READINGS else math.inf


def passes_of(rec: ResultLine) -> list[TimedPass]:
    """A result line's samples pass by pass, each with its canary reading: the slower of the two taken before
    and after it. Samples no reading covers come first in the line (a long batch's verification call) and count
    as one pass the machine did not slow (reading 0). A line without readings, or whose readings do not add up to
    its samples (a run saved before passes were kept apart, a hand-edited file), has no passes to tell: each
    sample counts as a pass of its own, as its intervals were made then."""
    samples, tags = list(rec.samples_s or []), pass_tags(rec)
    untagged = len(samples) - sum(n for *_, n in tags)
    if not tags or untagged < 0:
        return [TimedPass(0.0, [x]) for x in samples]
    out, at = ([TimedPass(0.0, samples[:untagged])] if untagged else []), untagged
    for before, after, n in tags:
        out.append(TimedPass(max(before, after), samples[at : at + n]))
        at += n
    return out


def two_speeds(pass_medians: list[float]) -> Optional[tuple[float, float]]:
    """The two speeds a measurement's passes ran at, where they fall into two groups more than TWO_SPEEDS apart,
    each of at least a fifth of the passes (and two): memory layout drawing one of two speeds per preparation,
    or a slow spell the canary missed. A median over such passes moves between runs by the distance between
    the groups, so the report flags it."""
    x = sorted(pass_medians)
    least = max(2, math.ceil(len(x) / 5))
    splits = [(x[i] / x[i - 1] - 1, i) for i in range(least, len(x) - least + 1) if x[i - 1] > 0]
    if not splits:
        return None
    gap, i = max(splits)
    return (float(np.median(x[:i])), float(np.median(x[i:]))) if gap > TWO_SPEEDS else None


def machine_steadiness(records: Iterable[Record | dict]) -> dict[str, float]:
    """How steady the machine was through a run: its speed from the benchmarks' passes (machine_speed), what
    else ran on it (machine_load), and the canary's median time. A run slowed from end to end shows no slowed
    share, only a long canary median: compare sets the medians of two runs side by side for that. A run saved
    before passes kept their times reads its slowed share from the canary, as it was made."""
    records = [record(r) for r in records]
    s = canary_readings(records)
    out = {"machine_canary_us": float(np.median(s)) * 1e6 if len(s) >= JUDGING_READINGS else math.nan}
    out |= machine_speed(records) | machine_load(records)
    timed = any(r.pass_t for r in records if isinstance(r, ResultLine))
    if not timed and len(s) >= JUDGING_READINGS:  # a run saved before passes kept their times: as it was made
        out["machine_slowed_share"] = float(np.mean(s > slowed_limit(s)))
    return out


def pass_tags(rec: ResultLine) -> list:
    """A result line's ``pass_canary_s`` as [before_s, after_s, samples] triples; none if any is malformed (a
    results file is input, and a hand-edited one must not end a report in a traceback)."""
    tags = rec.pass_canary_s or []
    ok = isinstance(tags, list) and all(
        isinstance(t, list)
        and len(t) == 3
        and all(seconds(v) is not None for v in t[:2])
        and isinstance(t[2], int)
        and t[2] >= 0
        for t in tags
    )
    return [[float(t[0]), float(t[1]), t[2]] for t in tags] if ok else []


def seconds(value) -> Optional[float]:
    """A positive, finite number of seconds from a records field, or None for anything else."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x > 0 else None


def pass_spans(rec: ResultLine) -> list[tuple[float, float]]:
    """A result line's ``pass_t`` as (start, end) pairs, one per ``pass_canary_s`` tag; none if any is malformed
    or they do not pair up (a run saved before them)."""
    spans = rec.pass_t or []
    ok = isinstance(spans, list) and all(
        isinstance(t, list) and len(t) == 2 and all(seconds(v) is not None for v in t) for t in spans
    )
    return [(float(a), float(b)) for a, b in spans] if ok and len(spans) == len(pass_tags(rec)) else []


def pass_ratios(records: Iterable[Record | dict]) -> list[tuple[int, float, float]]:
    """(worker, when, ratio) of every timed pass of a passed case with CASE_PASSES or more: the pass's median
    over the median of its case's pass medians (every worker's), and the middle of its span."""
    by_case: dict = {}
    for rec in map(record, records):
        if not isinstance(rec, ResultLine) or rec.status is not Status.PASS:
            continue
        spans, samples, tags = pass_spans(rec), list(rec.samples_s or []), pass_tags(rec)
        at = len(samples) - sum(n for *_, n in tags)
        if not spans or at < 0:
            continue
        for (_, _, n), (start, end) in zip(tags, spans):
            if n:
                by_case.setdefault((rec.case, rec.n), []).append(
                    (rec.worker, (start + end) / 2, float(np.median(samples[at : at + n])))
                )
            at += n
    out = []
    for passes in by_case.values():
        middle = float(np.median([m for *_, m in passes]))
        if len(passes) >= CASE_PASSES and middle > 0:
            out += [(worker, when, m / middle) for worker, when, m in passes]
    return out


def machine_speed(records: Iterable[Record | dict]) -> dict[str, float]:
    """The machine's speed through the run, from the benchmarks' own passes: per WINDOW_S of each worker's
    run, the median ratio of the passes timed in it (pass_ratios) from WINDOW_PASSES or more; the share of
    those windows over 1 + SLOWED (``machine_slowed_share``) and their median slowdown (``machine_slowdown``).
    Every case is timed in passes spread over the run and judged against itself, so a window that ran slow
    is the machine's, not one case's; NaN for a run too short, or saved before passes kept their times."""
    windows: dict = {}
    for worker, when, ratio in pass_ratios(records):
        windows.setdefault((worker, math.floor(when / WINDOW_S)), []).append(ratio)
    speeds = np.array([np.median(r) for r in windows.values() if len(r) >= WINDOW_PASSES])
    if not len(speeds):
        return {"machine_slowed_share": math.nan, "machine_slowdown": math.nan}
    slowed = speeds[speeds > 1 + SLOWED]
    return {
        "machine_slowed_share": float(len(slowed) / len(speeds)),
        "machine_slowdown": float(np.median(slowed)) - 1 if len(slowed) else 0.0,
    }


def machine_load(records: Iterable[Record | dict]) -> dict[str, float]:
    """What else the machine did through the run, from the engine's ``load`` lines (swarbench.machine_load):
    the CPUs other programs kept busy on average (``machine_others_cpus``), the share of the machine steal took
    (``machine_steal_share``), and the programs waiting to run (``machine_queue``), each weighted by the time
    its line covers; NaN where there are none (no /proc, or a run saved before them)."""
    weights, others, steal, queue = [], [], [], []
    for line in map(record, records):
        if not isinstance(line, LoadLine) or len(line.t) != 2:
            continue
        try:
            span = float(line.t[1]) - float(line.t[0])
            values = float(line.others_cpus), float(line.steal_cpus) / max(float(line.cpus or 1), 1), float(line.queue)
        except (TypeError, ValueError):
            continue
        if span > 0 and all(math.isfinite(v) for v in values):
            weights.append(span)
            for column, v in zip((others, steal, queue), values):
                column.append(v)
    if not weights:
        return dict.fromkeys(("machine_others_cpus", "machine_steal_share", "machine_queue"), math.nan)
    return {
        name: float(np.average(v, weights=weights))
        for name, v in (("machine_others_cpus", others), ("machine_steal_share", steal), ("machine_queue", queue))
    }
