"""Statistics over one measurement's samples: pure functions, no files, no frames.

Samples are seconds per timed call (one round of ``iterations`` batch calls of ``n`` operations each); the
figures reported are nanoseconds per operation. compare.py and the frame both compute from here.

Samples come in units: each worker process times a case in several passes, and the samples of one pass share
what moves a median between runs (where the pass's arrays landed, the machine's speed in those milliseconds).
The interval of a median resamples those units, processes and then passes within them (a hierarchical
bootstrap, ``units_interval``), and is stretched for the few units there are (as Hesterberg's expanded
percentile interval is); docs/measurement.md says why, and what it was checked against.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 1000
UNITS_LEAST = 5  # a median resting on fewer independent units (passes) gets no interval, and a mark instead
NOISY_CV = 0.10  # a coefficient of variation over this is flagged as noisy
SHORT_ROUND_S = 1e-4  # a round shorter than this is flagged: the timer's resolution is a part of it

SUMMARY_COLUMNS = (
    "ns_per_op_median",
    "ns_per_op_ci_low",
    "ns_per_op_ci_high",
    "ns_per_op_min",
    "ns_per_op_q1",
    "ns_per_op_q3",
    "ns_per_op_iqr",
    "ns_per_op_mean",
    "cv",
    "s_per_call_median",
    "ops_per_s",
)


def bootstrap_interval(samples: tuple, statistic: Callable) -> tuple[float, float]:
    """95% percentile-bootstrap interval of ``statistic`` (scipy.stats.bootstrap), seeded so reports repeat;
    NaN where a sample set has fewer than two values."""
    if min(len(x) for x in samples) < 2:
        return math.nan, math.nan
    # Imported here: scipy.stats costs seconds to import, and benchmark workers never compute statistics.
    from scipy import stats

    res = stats.bootstrap(
        samples,
        statistic,
        confidence_level=CONFIDENCE,
        n_resamples=RESAMPLES,
        method="percentile",
        vectorized=True,
        paired=False,
        rng=np.random.default_rng(0),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def median(x, axis=-1):
    """The median along ``axis``: a vectorised statistic for ``bootstrap_interval``."""
    return np.median(x, axis=axis)


def densest_half_median(values) -> float:
    """The median of the densest half of ``values``: of the runs of more than half of them, in order, the one
    spanning the least, then its median (the location of Rousseeuw's shortest half). Where nearly half of them moved
    together, the plain median of an even count averages across the gap and lands between the two groups; this one
    stays in the tighter group. For unimodal values it is close to the median; NaN for none."""
    v = np.sort(np.asarray(values, dtype=float))
    if len(v) <= 2:
        return float(np.median(v)) if len(v) else math.nan
    h = len(v) // 2 + 1
    widths = v[h - 1 :] - v[: len(v) - h + 1]
    start = int(np.argmin(widths))
    return float(np.median(v[start : start + h]))


def ratio_of_medians(x, y, axis=-1):
    """median(x) / median(y) along ``axis``: a speedup, for ``bootstrap_interval`` over two sample sets."""
    return np.median(x, axis=axis) / np.median(y, axis=axis)


def ns_per_op(samples_s: list[float], n: int) -> np.ndarray:
    """Seconds per call of ``n`` operations as nanoseconds per operation."""
    return np.asarray(samples_s, dtype=float) * 1e9 / max(int(n), 1)


def summarize(samples_s: list[float], n: int, iterations: int, units: list | None = None) -> dict[str, Any]:
    """The frame's per-measurement figures (SUMMARY_COLUMNS) and ``stability``, the warnings they call for.
    ``units`` holds the same samples by process and pass (``Units``); without it every sample counts as a unit
    of its own, as in runs saved before passes were kept apart."""
    if not samples_s:
        return dict.fromkeys(SUMMARY_COLUMNS, math.nan) | {"stability": "", "units": 0}
    ns = ns_per_op(samples_s, n)
    q1, med, q3 = np.percentile(ns, [25, 50, 75])
    scaled = [[ns_per_op(p, n) for p in worker] for worker in units] if units is not None else [[ns]]
    count = unit_count(scaled) if units is not None else len(ns)
    low, high = units_interval(scaled, flat=units is None)
    cv = float(ns.std(ddof=1) / ns.mean()) if len(ns) > 1 and ns.mean() > 0 else math.nan
    warnings = []
    if len(ns) < 5:
        warnings.append(f"only {len(ns)} samples")
    elif count < UNITS_LEAST:
        warnings.append(f"{count} independent passes: too few for an interval")
    if float(np.median(samples_s)) * max(iterations, 1) < SHORT_ROUND_S:
        warnings.append("rounds under 0.1 ms: timer resolution matters")
    if cv == cv and cv > NOISY_CV:
        warnings.append(f"noisy: CV {cv:.0%}")
    return {
        "ns_per_op_median": med,
        "ns_per_op_ci_low": low,
        "ns_per_op_ci_high": high,
        "ns_per_op_min": ns.min(),
        "ns_per_op_q1": q1,
        "ns_per_op_q3": q3,
        "ns_per_op_iqr": q3 - q1,
        "ns_per_op_mean": ns.mean(),
        "cv": cv,
        "stability": "; ".join(warnings),
        "s_per_call_median": float(np.median(samples_s)),
        "ops_per_s": 1e9 / med if med > 0 else math.nan,
        "units": count,
    }


# A measurement's samples by unit: [process][pass] -> that pass's samples (an array each)
Units = list[list[np.ndarray]]


def unit_count(units: Units) -> int:
    """The independent units behind a median: the passes that hold samples, over every process."""
    return sum(1 for worker in units for p in worker if len(p))


def effective_units(units: Units) -> float:
    """The independent units a median rests on, counting a process's passes as less than independent where they
    share its draw: Kish's design effect 1 + (m - 1) rho, rho the share of the pass medians' (log) variance that
    lies between processes (a one-way random-effects ANOVA), m the passes a process. One process: its passes, as
    nothing can tell its draw apart."""
    medians = [w for w in ([float(np.median(p)) for p in worker if len(p)] for worker in units) if w]
    count = sum(len(w) for w in medians)
    if len(medians) < 2 or count <= len(medians) or min(min(w) for w in medians) <= 0:
        return float(count)  # (a median of no time has no log: its interval is NaN anyway)
    medians = [[math.log(v) for v in w] for w in medians]
    means = [float(np.mean(w)) for w in medians]
    grand = float(np.mean([x for w in medians for x in w]))
    within = sum((x - m) ** 2 for w, m in zip(medians, means) for x in w) / (count - len(medians))
    between = sum(len(w) * (m - grand) ** 2 for w, m in zip(medians, means)) / (len(medians) - 1)
    m0 = (count - sum(len(w) ** 2 for w in medians) / count) / (len(medians) - 1)
    var_b = max(0.0, (between - within) / m0)
    rho = var_b / (var_b + within) if var_b + within > 0 else 0.0
    deff = 1 + (count / len(medians) - 1) * rho
    return min(float(count), max(float(len(medians)), count / deff))


def as_units(blocks: list) -> Units:
    """``blocks``, one per process, as Units: a process given as a list of passes stays so; one given as a flat
    array of samples (its passes unknown) counts each sample as a pass of its own."""
    return [
        [np.atleast_1d(np.asarray(x, dtype=float)) for x in block]
        if isinstance(block, list)
        else [np.array([x], dtype=float) for x in np.asarray(block, dtype=float)]
        for block in blocks
    ]


def _nonempty(units: Units) -> Units:
    out = [[np.asarray(p, dtype=float) for p in worker if len(p)] for worker in units]
    return [worker for worker in out if worker]


def hierarchical_medians(units: Units, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Medians of ``resamples`` hierarchical resamples of ``units``: as many processes as there are, drawn with
    replacement, and within each drawn process as many of its passes as it has, with replacement, each pass
    whole. A process whose passes ran slow, or a pass whose arrays landed badly, is then in or out of a resample
    whole, as it is in or out of another run. Samples within a pass are not drawn again: the pass carries their
    noise, and drawing them as well counts it twice (the intervals covered 98% of synthetic runs, not 95%)."""
    units = _nonempty(units)
    passes = [p for worker in units for p in worker]
    first = np.cumsum([0] + [len(w) for w in units])[:-1]  # each process's first pass in ``passes``
    count = np.array([len(w) for w in units])
    width, most = max(len(p) for p in passes), int(count.max())
    padded = np.full((len(passes) + 1, width), np.nan)  # the last row: no pass (a slot a process leaves empty)
    for j, p in enumerate(passes):
        padded[j, : len(p)] = p
    out = np.empty(resamples)
    # in chunks, so that a measurement of thousands of samples stays within a few tens of MB
    chunk = max(1, min(resamples, 2_000_000 // (len(units) * most * width)))
    for start in range(0, resamples, chunk):
        r = min(chunk, resamples - start)
        workers = rng.integers(0, len(units), (r, len(units)))
        n = count[workers][..., None]  # (r, processes, 1): passes of each drawn process
        which = first[workers][..., None] + (rng.random((r, len(units), most)) * n).astype(int)
        which[~(np.arange(most) < n)] = len(passes)
        out[start : start + r] = _nan_median(padded[which].reshape(r, -1))
    return out


def _nan_median(x: np.ndarray) -> np.ndarray:
    """The median of each row, NaN left out: np.nanmedian's result, several times faster for many short rows."""
    x = np.sort(x, axis=1)  # NaN sorts last
    n = (~np.isnan(x)).sum(axis=1)
    rows = np.arange(len(x))
    return (x[rows, (n - 1) // 2] + x[rows, n // 2]) / 2


def expanded_t(units: float, other: float | None = None) -> float:
    """How many standard errors either side of a median its CONFIDENCE interval reaches, from ``units``
    independent units (two sets: ``units`` and ``other``): Student's t for so few units, and sqrt(n/(n-1)) to undo
    the bootstrap's n-1 over n shrinkage of a variance, as Hesterberg's expanded percentile interval does (The
    American Statistician 69(4), 2015). For two sets, n is the smaller and t has the degrees of freedom of both
    (n1 + n2 - 2)."""
    from scipy import stats

    n = units if other is None else min(units, other)
    dof = units - 1 if other is None else units + other - 2
    return math.sqrt(n / (n - 1)) * float(stats.t.ppf(0.5 + CONFIDENCE / 2, dof))


def units_interval(units: Units, flat: bool = False) -> tuple[float, float]:
    """CONFIDENCE interval of the median of ``units``'s samples: the median times exp(-+ t se), se the spread of
    log medians over hierarchical resamples and t from ``expanded_t``; NaN where there are fewer than
    UNITS_LEAST units. ``flat``: the samples are independent of each other (no passes known), the plain
    percentile bootstrap of scipy.stats."""
    if flat:
        return bootstrap_interval(tuple(p for worker in units for p in worker), median)
    count = unit_count(units)
    if count < UNITS_LEAST:
        return math.nan, math.nan
    center = float(np.median(np.concatenate([p for worker in units for p in worker])))
    if not center > 0:
        return math.nan, math.nan
    spread = np.log(hierarchical_medians(units, np.random.default_rng(0), RESAMPLES)).std(ddof=1)
    reach = math.exp(expanded_t(effective_units(units)) * spread)
    return center / reach, center * reach


def units_ratio_interval(x: Units, y: Units) -> tuple[float, float]:
    """CONFIDENCE interval of median(y) / median(x), by resampling both hierarchically as ``units_interval``
    does; NaN where either has fewer than UNITS_LEAST units."""
    nx, ny = unit_count(x), unit_count(y)
    if min(nx, ny) < UNITS_LEAST:
        return math.nan, math.nan
    mx = float(np.median(np.concatenate([p for w in x for p in w])))
    my = float(np.median(np.concatenate([p for w in y for p in w])))
    if not (mx > 0 and my > 0):
        return math.nan, math.nan
    rng = np.random.default_rng(0)
    spread = np.log(hierarchical_medians(y, rng, RESAMPLES) / hierarchical_medians(x, rng, RESAMPLES)).std(ddof=1)
    reach = math.exp(expanded_t(effective_units(x), effective_units(y)) * spread)
    return my / mx / reach, my / mx * reach
