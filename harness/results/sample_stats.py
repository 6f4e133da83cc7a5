"""Statistics over one measurement's samples: pure functions, no files, no frames.

Samples are seconds per timed call (one round of ``iterations`` batch calls of ``n`` operations each); the
figures reported are nanoseconds per operation. compare.py and the frame both compute from here.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 1000
NOISY_CV = 0.10  # a coefficient of variation over this is flagged as noisy
SHORT_ROUND_S = 1e-4  # a round shorter than this is flagged: the timer's resolution is a part of it

SUMMARY_COLUMNS = ("ns_per_op_median", "ns_per_op_ci_low", "ns_per_op_ci_high", "ns_per_op_min", "ns_per_op_q1",
                   "ns_per_op_q3", "ns_per_op_iqr", "ns_per_op_mean", "cv", "s_per_call_median", "ops_per_s")


def bootstrap_interval(samples: tuple, statistic: Callable) -> tuple[float, float]:
    """95% percentile-bootstrap interval of ``statistic`` (scipy.stats.bootstrap), seeded so reports repeat;
    NaN where a sample set has fewer than two values."""
    if min(len(x) for x in samples) < 2:
        return math.nan, math.nan
    # Imported here: scipy.stats costs seconds to import, and benchmark workers never compute statistics.
    from scipy import stats

    res = stats.bootstrap(samples, statistic, confidence_level=CONFIDENCE, n_resamples=RESAMPLES,
                          method="percentile", vectorized=True, paired=False, rng=np.random.default_rng(0))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def median(x, axis=-1):
    """The median along ``axis``: a vectorised statistic for ``bootstrap_interval``."""
    return np.median(x, axis=axis)


def ratio_of_medians(x, y, axis=-1):
    """median(x) / median(y) along ``axis``: a speedup, for ``bootstrap_interval`` over two sample sets."""
    return np.median(x, axis=axis) / np.median(y, axis=axis)


def ns_per_op(samples_s: list[float], n: int) -> np.ndarray:
    """Seconds per call of ``n`` operations as nanoseconds per operation."""
    return np.asarray(samples_s, dtype=float) * 1e9 / max(int(n), 1)


def summarize(samples_s: list[float], n: int, iterations: int) -> dict[str, Any]:
    """The frame's per-measurement figures (SUMMARY_COLUMNS) and ``stability``, the warnings they call for."""
    if not samples_s:
        return dict.fromkeys(SUMMARY_COLUMNS, math.nan) | {"stability": ""}
    ns = ns_per_op(samples_s, n)
    q1, med, q3 = np.percentile(ns, [25, 50, 75])
    low, high = bootstrap_interval((ns,), median)
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
