"""A run's results in other tools' formats, written from the results frame after the run.

``benchmark.json``: pytest-benchmark's own file layout, one entry per (kernel, implementation, workload, n)
with per-op statistics in seconds, so ``pytest-benchmark compare`` and ``pytest --benchmark-compare`` read a
swarbench run beside their own. The workers' benchmark-wN.json (one entry per pass per worker, per batch call)
stay as pytest-benchmark wrote them. Its extra "swarbench" entry keeps the run's command line and length.

``github-action-benchmark``: the ``customSmallerIsBetter`` list that benchmark-action/github-action-benchmark
charts across commits (name, unit, value, range, extra).
"""

from __future__ import annotations

import datetime
import json
import math
import platform
from typing import Optional

import numpy as np
import pandas as pd

from swarbench import results
from swarbench.runfolder import BENCHMARK_FORMAT, VERSION_KEY, MeasurementKey, RunFolder, Status

FORMATS = ("pytest-benchmark", "github-action-benchmark")


def _timed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[(frame["status"] == Status.PASS) & (frame["kernel"] != results.OVERHEAD_KERNEL)]


def _whole(value) -> Optional[int]:
    """A count from the frame; None where a hand-edited results file left it out (NaN)."""
    return int(value) if value == value and value is not None else None


def _size(value) -> str:
    whole = _whole(value)
    return str(whole) if whole is not None else "unknown"


def _key(r) -> tuple:
    return (r["run_id"], *MeasurementKey.of(r))


def _per_op_stats(r, samples_ns: np.ndarray) -> dict:
    """pytest-benchmark's statistics of one measurement, per op in seconds. Its own Stats class computes them
    from the samples, so outliers and the like mean what they mean there; the figures the report shows
    (median, quartiles, minimum, mean) are then taken from the results frame, so both tools agree on them."""
    from pytest_benchmark.stats import Stats

    stats = Stats()
    for x in samples_ns:
        stats.update(float(x) * 1e-9)
    out = stats.as_dict() if len(samples_ns) else {}
    ours = {
        "median": r["ns_per_op_median"],
        "q1": r["ns_per_op_q1"],
        "q3": r["ns_per_op_q3"],
        "iqr": r["ns_per_op_iqr"],
        "min": r["ns_per_op_min"],
        "mean": r["ns_per_op_mean"],
    }
    out.update({k: float(v) * 1e-9 for k, v in ours.items() if v == v})
    out.setdefault("max", out.get("q3", math.nan))
    out.setdefault("stddev", float(r["cv"] * r["ns_per_op_mean"] * 1e-9) if r["cv"] == r["cv"] else 0.0)
    for name, value in (
        ("outliers", "0;0"),
        ("iqr_outliers", 0),
        ("stddev_outliers", 0),
        ("total", 0.0),
        ("ld15iqr", out.get("min")),
        ("hd15iqr", out.get("max")),
    ):
        out.setdefault(name, value)
    out["ops"] = 1 / out["mean"] if out.get("mean") else 0.0
    out["rounds"] = _whole(r["samples"])
    out["iterations"] = 1
    out["data"] = [float(x) * 1e-9 for x in samples_ns]
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}


def pytest_benchmark(frame: pd.DataFrame, samples: dict, machine: dict, info: dict) -> dict:
    """The run as one pytest-benchmark JSON document. ``samples``: ns/op by (run_id, kernel, impl, workload, n)."""
    import pytest_benchmark as pb

    benchmarks = []
    for _, r in _timed(frame).iterrows():
        n = _whole(r["n"])
        param = f"{r['implementation']}-{r['workload']}-{_size(r['n'])}"
        benchmarks.append(
            {
                "group": f"{r['kernel']} {r['workload']} n={_size(r['n'])}",
                "name": f"{r['kernel']}[{param}]",
                "fullname": f"swarbench::{r['kernel']}[{param}]",
                "params": {"implementation": r["implementation"], "workload": r["workload"], "n": n},
                "param": param,
                "extra_info": {
                    "family": r["family"],
                    "unit": f"seconds per {r['unit']}",
                    "ns_per_op_ci_low": _num(r["ns_per_op_ci_low"]),
                    "ns_per_op_ci_high": _num(r["ns_per_op_ci_high"]),
                    "speedup": _num(r["speedup"]),
                    "baseline": r["baseline"] or "",
                },
                "options": {
                    "timer": "perf_counter",
                    "disable_gc": True,
                    "min_rounds": None,
                    "max_time": None,
                    "warmup": False,
                },
                "stats": _per_op_stats(r, np.asarray(samples.get(_key(r), []), dtype=float)),
            }
        )
    started = info.get("started")
    when = (
        datetime.datetime.fromtimestamp(started, datetime.timezone.utc)
        if started
        else datetime.datetime.now(datetime.timezone.utc)
    )
    return {
        "machine_info": {
            "node": machine.get("hostname", ""),
            "processor": machine.get("cpu", ""),
            "machine": machine.get("machine", platform.machine()),
            "python_implementation": platform.python_implementation(),
            "python_version": platform.python_version(),
            "python_compiler": machine.get("compiler", ""),
            "release": machine.get("system", ""),
            "system": platform.system(),
            "cpu": {"brand_raw": machine.get("cpu", ""), "count": machine.get("cores")},
        },
        "commit_info": {
            "id": machine.get("git_commit", "") or "",
            "dirty": False,
            "project": "swarbench",
            "branch": "",
            "time": "",
            "author_time": "",
        },
        "benchmarks": benchmarks,
        "datetime": when.isoformat(),
        "version": pb.__version__,
        "swarbench": {
            **{k: info[k] for k in ("command", "duration_s", "started") if info.get(k) is not None},
            VERSION_KEY: BENCHMARK_FORMAT,
        },
    }


def github_action_benchmark(frame: pd.DataFrame) -> list[dict]:
    """``customSmallerIsBetter`` entries: median ns per op, the 95% interval as its range."""
    out = []
    for _, r in _timed(frame).iterrows():
        low, high, med = r["ns_per_op_ci_low"], r["ns_per_op_ci_high"], r["ns_per_op_median"]
        entry = {
            "name": f"{r['kernel']}/{r['implementation']} ({r['workload']}, n={_size(r['n'])})",
            "unit": f"ns/{r['unit']}",
            "value": float(med),
        }
        if low == low and high == high:
            entry["range"] = f"± {max(med - low, high - med):.4g}"
            entry["extra"] = f"95% interval {low:.4g} .. {high:.4g} ns; {_size(r['samples'])} samples"
        out.append(entry)
    return out


def _num(x):
    return float(x) if x == x and x is not None else None


def render(fmt: str, frame: pd.DataFrame, samples: dict, machine: dict, info: dict) -> str:
    if fmt == "github-action-benchmark":
        return json.dumps(github_action_benchmark(frame), indent=2) + "\n"
    return json.dumps(pytest_benchmark(frame, samples, machine, info), indent=1) + "\n"


def render_view(fmt: str, view) -> str:
    return render(fmt, view.frame, view.samples, view.machine, view.info)


def write(run_dir, view) -> None:
    """The run's benchmark.json, from the view's frame and samples (attached from the run folder)."""
    RunFolder(run_dir).write_benchmark(pytest_benchmark(view.frame, view.samples, view.machine, view.info))
