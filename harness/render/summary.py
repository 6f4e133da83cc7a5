"""What a report leads with, worked out once before any renderer runs: the scoreboard (each kernel's winner, its
speedups, how steady it was), the caveats as short marks with their counts, and the run's header.

Renderers only lay these out. The one figure computed here that swarbench.results does not hold is the speedup
over the best portable scalar C row, a ratio of two medians the frame already has. What the frame does not keep
(each sample, the run's start and command line) comes attached to the view (swarbench.api reads it from the run
folder): no renderer opens a file.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from swarbench import provenance, results
from swarbench.render import RunView, kernel_groups
from swarbench.runfolder import MeasurementKey, Status, status_of

# The family of portable scalar C: what "how much faster than plain C" is measured against
PORTABLE_C = "cffi-scalar"
# Caveats a measurement's stability note can carry (swarbench.results writes them), each as a one-letter mark:
# (mark, a phrase the note holds, what it means in plain words)
CAVEATS = (
    ("f", "only ", "fewer than 5 timed samples, so its interval is rough"),
    (
        "u",
        "independent passes",
        (
            "its samples came from fewer than 5 passes, and samples of one pass rise and fall "
            "together (where its arrays landed, the machine's speed then): no interval is given"
        ),
    ),
    ("t", "rounds under", "each timed call took under 0.1 ms, close to what the clock can resolve"),
    ("v", "noisy", "its samples vary by more than 10% around their mean"),
    ("w", "workers differ", "the separate worker processes disagree by more than 10%"),
    (
        "b",
        "least slowed",
        "too few samples were timed while the machine was free of other work, so some timed while it was busy are used",
    ),
    (
        "2",
        "two speeds",
        "its timed passes ran at two distinct speeds (memory layout or machine), so its median can "
        "jump between them from run to run",
    ),
)
UNSTEADY_MARKS = {"v", "w", "2"}


@dataclass
class Board:
    """One scoreboard row: a (kernel, workload, n) and its fastest correct implementation."""

    kernel: str
    workload: str
    n: float  # a whole number; NaN for a row whose size is unknown (size_text says so)
    op: str  # what one op is ("hand pair")
    anchor: str
    fastest: str
    family: str
    median: float
    low: float
    high: float
    baseline: str
    speedup: float  # over the kernel's baseline (swarbench.results)
    speedup_low: float
    speedup_high: float
    best_c: str  # the fastest portable scalar C row, "" where none passed
    speedup_c: float
    steadiness: str
    marks: str
    # implementations that failed (wrong answers, errors, crashes, time-outs) not on purpose, by how they failed
    failed: dict[Status, list[str]] = field(default_factory=dict)
    limit_share: float = math.nan  # of its binding limit (swarbench.explain.limits), and which one binds
    limit_bound: str = ""
    limit_text: str = ""

    def failure_lines(self) -> list[str]:
        """A line per way of failing: "WRONG ANSWERS from a, b", "crashed: c"."""
        return [f"{status.summary_words} {', '.join(names)}" for status, names in self.failed.items()]


@dataclass
class Summary:
    boards: list[Board]
    groups: list[tuple[tuple, str, pd.DataFrame]]  # ((kernel, workload, n), anchor, rows fastest first)
    marks: dict  # frame index -> its caveat marks ("vb")
    caveats: list[tuple[str, str, int]]  # (mark, plain words, measurements carrying it), only those that occur
    header: dict  # title, date, duration, command, commit, machine


def caveat_marks(stability: str) -> str:
    parts = [p for p in str(stability or "").split("; ") if p]
    marks = ""
    for mark, phrase, _ in CAVEATS:
        if any(phrase in p for p in parts):
            marks += mark
    return marks


def steadiness_words(median: float, low: float, high: float, marks: str) -> str:
    """Plain words for how far a median can be trusted: its interval's half-width and its caveats."""
    half = (high - low) / 2 / median if median and low == low and high == high else math.nan
    width = f", ±{half:.0%}" if half == half and half >= 0.01 else (", ±<1%" if half == half else "")
    if set(marks) & UNSTEADY_MARKS or not half <= 0.10:
        return "unsteady" + width
    if marks or half > 0.03:
        return "fairly steady" + width
    return "steady" + width


def anchor(*parts) -> str:
    """An id for a kernel's section: its parts, readable where they are plain names; anything else (a hand-edited
    results file's cells, say) kept out of the id, with a hash of the parts so that ids stay apart."""
    raw = "-".join(str(p) for p in parts)
    readable = "k-" + raw.replace(".", "-").replace(" ", "-").replace("=", "")
    if re.fullmatch(r"[A-Za-z0-9_-]+", readable):
        return readable
    plain = re.sub(r"[^A-Za-z0-9_-]+", "-", readable)[:60].strip("-")
    return f"{plain}-{hashlib.blake2b(raw.encode(), digest_size=4).hexdigest()}"


def _is_portable_c(row) -> bool:
    # the -mt rows split a batch over every core: not what one core of plain C does
    return row["family"] == PORTABLE_C and not str(row["implementation"]).endswith("-mt")


def summarize(view: RunView) -> Summary:
    frame = view.frame
    marks = {
        i: caveat_marks(s) if status == Status.PASS else ""
        for i, s, status in zip(frame.index, frame["stability"], frame["status"])
    }
    groups, boards = [], []
    for key, group in kernel_groups(frame):
        kernel, workload, n = key
        tag = anchor(kernel, workload, n, *(view.run_ids if len(view.run_ids) > 1 else []))
        groups.append((key, tag, group))
        if kernel == results.OVERHEAD_KERNEL:
            continue
        passed = group[group["status"] == Status.PASS]
        failed: dict[Status, list[str]] = {}
        for _, r in group.iterrows():
            status = status_of(r["status"])
            if status is not None and status.failed and not r["expected_to_fail"]:
                failed.setdefault(status, []).append(view.label(r))
        if passed.empty:
            boards.append(
                Board(
                    kernel,
                    workload,
                    n,
                    str(group.iloc[0]["unit"]),
                    tag,
                    "",
                    "",
                    *[math.nan] * 3,
                    "",
                    *[math.nan] * 3,
                    "",
                    math.nan,
                    "nothing passed",
                    "",
                    failed,
                )
            )
            continue
        best = passed.iloc[0]
        c_rows = passed[[_is_portable_c(r) for _, r in passed.iterrows()]]
        best_c = c_rows.iloc[0] if len(c_rows) else None
        base = best["baseline"] if isinstance(best["baseline"], str) else ""
        boards.append(
            Board(
                kernel,
                workload,
                n,
                str(best["unit"]),
                tag,
                view.label(best),
                str(best["family"]),
                float(best["ns_per_op_median"]),
                float(best["ns_per_op_ci_low"]),
                float(best["ns_per_op_ci_high"]),
                base,
                float(best["speedup"]),
                float(best["speedup_ci_low"]),
                float(best["speedup_ci_high"]),
                view.label(best_c) if best_c is not None else "",
                float(best_c["ns_per_op_median"] / best["ns_per_op_median"]) if best_c is not None else math.nan,
                steadiness_words(
                    float(best["ns_per_op_median"]),
                    float(best["ns_per_op_ci_low"]),
                    float(best["ns_per_op_ci_high"]),
                    marks[best.name],
                ),
                marks[best.name],
                failed,
                float(best.get("limit_share", math.nan)),
                str(best.get("limit_bound") or ""),
                str(best.get("limit_text") or ""),
            )
        )
    counts = {mark: sum(mark in m for m in marks.values()) for mark, _, _ in CAVEATS}
    caveats = [(mark, words, counts[mark]) for mark, _, words in CAVEATS if counts[mark]]
    return Summary(boards, groups, marks, caveats, header(view))


def header(view: RunView) -> dict:
    m, info = view.machine, view.info
    started = info.get("started")
    if started is None and view.run_ids:  # a run id starts with its local start time
        try:
            started = time.mktime(time.strptime(view.run_ids[0][:15], "%Y%m%d-%H%M%S"))
        except ValueError:
            started = None
    machine = ", ".join(
        str(p)
        for p in (
            m.get("cpu"),
            f"{m['cores']} cores" if m.get("cores") else "",
            " ".join(m.get("simd_flags", [])),
            m.get("python"),
            m.get("compiler"),
        )
        if p
    )
    counters = str(m.get("hardware_counters") or "")
    return {
        "title": f"swarbench run {', '.join(view.run_ids)}",
        "counters": "" if not counters or counters.startswith("available") else counters,
        "date": time.strftime("%Y-%m-%d %H:%M %Z", time.localtime(started)) if started else "",
        "duration": _duration(info.get("duration_s")),
        "command": info.get("command", ""),
        "commit": m.get("git_commit", "") or "",
        "machine": machine,
        "plugins": provenance.not_builtin(m),
    }


def _duration(seconds) -> str:
    if seconds is None or seconds != seconds:
        return ""
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def change_of(view: RunView, row) -> dict | None:
    """This row's entry of `report --against` (swarbench.run_comparison's columns), or None."""
    return view.changes.get(MeasurementKey.of(row))


def samples_of(view: RunView, row) -> np.ndarray:
    return view.samples.get((row["run_id"], *MeasurementKey.of(row)), np.empty(0))


def change_rows(frame: pd.DataFrame) -> dict:
    """swarbench.run_comparison's rows by MeasurementKey, for `report --against`."""
    return {MeasurementKey.of(r): r.to_dict() for _, r in frame.iterrows()}


def strip_points(samples: np.ndarray, most: int = 120) -> np.ndarray:
    """At most ``most`` of a measurement's samples, evenly spread over their sorted order, for a strip chart."""
    x = np.sort(np.asarray(samples, dtype=float))
    if len(x) <= most:
        return x
    return x[np.linspace(0, len(x) - 1, most).round().astype(int)]
