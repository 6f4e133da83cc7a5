"""Which samples the machine slowed: the canary's readings around each pass, judged against the run's fastest.

Every pass of a case is bracketed by two canary readings (swarbench.bench.canary). A pass whose slower reading
is more than SLOWED over the run's fastest tenth ran while something else had the machine; its samples are set
aside before medians are taken, unless too few would be left (least_slowed). docs/measurement.md tells why.
"""
from __future__ import annotations

import math
from typing import Iterable, NamedTuple, Optional

import numpy as np

from swarbench.runfolder import CanaryLine, Record, ResultLine, record

SLOWED = 0.15  # a canary timing this much over the run's fastest tenth is a moment the machine was slowed
UNSTEADY_SHARE = 0.25  # a run slowed this much of the time is one to measure again
JUDGING_READINGS = 20  # canary readings a run needs before any is called slowed
TWO_SPEEDS = 0.08  # passes in two groups further apart than this are flagged (see two_speeds)
PASS_SAMPLES = 3  # a pass's median stands for it from this many samples
STEADY_ENOUGH = 5  # samples that stand for a measurement (so do half of its samples); see least_slowed


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
    as one pass the machine did not slow (reading 0), as does every sample of a line whose readings do not add
    up to its samples."""
    samples, tags = list(rec.samples_s or []), pass_tags(rec)
    untagged = len(samples) - sum(n for *_, n in tags)
    if not tags or untagged < 0:
        return [TimedPass(0.0, samples)] if samples else []
    out, at = ([TimedPass(0.0, samples[:untagged])] if untagged else []), untagged
    for before, after, n in tags:
        out.append(TimedPass(max(before, after), samples[at:at + n]))
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
    """The canary's view of a run: its median time, and the share of its readings over ``slowed_limit``, which
    is the share of the run the machine itself was slowed. A run slowed from end to end shows a small share and
    a long median: compare sets medians of runs side by side for that."""
    s = canary_readings(records)
    if len(s) < JUDGING_READINGS:
        return {"machine_canary_us": math.nan, "machine_slowed_share": math.nan}
    return {"machine_canary_us": float(np.median(s)) * 1e6,
            "machine_slowed_share": float(np.mean(s > slowed_limit(s)))}


def pass_tags(rec: ResultLine) -> list:
    """A result line's ``pass_canary_s`` as [before_s, after_s, samples] triples; none if any is malformed (a
    results file is input, and a hand-edited one must not end a report in a traceback)."""
    tags = rec.pass_canary_s or []
    ok = isinstance(tags, list) and all(
        isinstance(t, list) and len(t) == 3 and all(seconds(v) is not None for v in t[:2])
        and isinstance(t[2], int) and t[2] >= 0 for t in tags)
    return [[float(t[0]), float(t[1]), t[2]] for t in tags] if ok else []


def seconds(value) -> Optional[float]:
    """A positive, finite number of seconds from a records field, or None for anything else."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and x > 0 else None
