"""Renderers: each turns a finished run (the tidy frame, machine info, suite sections) into one format.

They format and lay out; they never compute statistics (swarbench.results did that once).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from swarbench.model import ReportSection
from swarbench.results import OVERHEAD_KERNEL, SLOWED, UNSTEADY_SHARE
from swarbench.results.steadiness import OTHERS_SEEN
from swarbench.runfolder import Status, status_of
from swarbench.terminal_text import printable  # noqa: F401  (the renderers' own name for it)


@dataclass
class RunView:
    frame: pd.DataFrame
    machine: dict  # the first run's machine
    sections: list[ReportSection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    machines: dict = field(default_factory=dict)  # run id -> machine, when several runs are shown together
    # read beside the frame by swarbench.render.summary (renderers read no files): each measurement's kept
    # samples in ns/op by (kernel, implementation, workload, n), and the run's start, length and command line
    samples: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    # `report --against OTHER`: swarbench.run_comparison's rows of this run against OTHER, by the same key
    changes: dict = field(default_factory=dict)
    # each measurement's timed code (RunFolder.timed_code: its result line's ``explain``), by (run id, *key)
    code: dict = field(default_factory=dict)

    def label(self, row) -> str:
        """An implementation's name, with its run when rows of several runs share a table."""
        if len(self.run_ids) < 2:
            return str(row["implementation"])
        hosts = {m.get("hostname", "") for m in self.machines.values()}
        if len(hosts) > 1:  # runs from several machines: the machine is what tells rows apart
            return f"{row['implementation']}@{self.machines.get(row['run_id'], {}).get('hostname', '?')}"
        return f"{row['implementation']}@{str(row['run_id'])[-11:]}"

    @functools.cached_property
    def run_ids(self) -> list[str]:  # asked for every row's label: computed once
        return sorted(self.frame["run_id"].dropna().unique().tolist()) if len(self.frame) else []


FORMATS = ("text", "md", "csv", "html")


def steadiness_lines(view: RunView) -> list[str]:
    """Per run, in plain words, how steady the machine was: how much slower its benchmarks' passes ran in the
    slowed stretches of the run and for how much of it (swarbench.results.machine_speed), and other programs
    only where the machine showed them (machine_load); nothing for a run saved without either."""
    out = []
    for run_id, group in view.frame.groupby("run_id", sort=True):
        first = group.iloc[0]
        share, slowdown = float(first["machine_slowed_share"]), float(first.get("machine_slowdown", math.nan))
        said = []
        if not math.isnan(share):
            said.append(
                "the machine ran at one speed through the run"
                if share == 0
                else f"the machine ran {SLOWED:.0%} or more slower during {share:.0%} of the run"
                if math.isnan(slowdown)
                else f"the machine ran {slowdown:.0%} slower during {share:.0%} of the run"
            )
        others = load_words(first)
        if others:
            said.append(others)
        if not said:
            continue
        line = (run_id + ": " if len(view.run_ids) > 1 else "") + "; ".join(said)
        if share > 0 and group["samples_slowed"].notna().any():  # only a run made with --set-aside-slowed
            line += (
                f"; the {int(group['samples_slowed'].sum()):,} samples the canary found slowed are set aside, "
                "out of the medians"
            )
        if share >= UNSTEADY_SHARE:
            line += "; medians may move by more than their intervals: measure again on a quieter machine"
        out.append(line)
    return out


def load_words(row) -> str:
    """Other programs on the machine during a run, as its load lines showed them; "" where they showed none (or
    the run has none)."""
    others, steal, queue = (
        float(row.get(k, math.nan)) for k in ("machine_others_cpus", "machine_steal_share", "machine_queue")
    )
    if math.isnan(others):  # a run without load lines (no /proc): nothing said either way
        return ""
    parts = []
    if queue >= OTHERS_SEEN * 5:
        parts.append(f"{queue:.1f} waited to run")
    if steal >= OTHERS_SEEN / 10:
        parts.append(f"the hypervisor took {steal:.0%} of the CPUs (steal)")
    if others < OTHERS_SEEN and not parts:
        return "no other program was seen running"
    # the CPUs others kept busy lead even when few, so a queue or steal figure is never said without its subject
    return ", ".join([f"other programs kept {others:.1f} CPUs busy on average", *parts])


def render(fmt: str, view: RunView) -> str:
    from swarbench.render import csv_file, html_page, markdown, text

    return {"text": text.render, "md": markdown.render, "csv": csv_file.render, "html": html_page.render}[fmt](view)


def scaling_series(frame: pd.DataFrame):
    """(kernel, workload) groups measured at several sizes: what a scaling chart plots (ns/op against N)."""
    passed = frame[frame["status"] == Status.PASS]
    for key, group in passed.groupby(["kernel", "workload"], sort=True):
        if group["n"].nunique() > 1:
            yield key, group


def kernel_groups(frame: pd.DataFrame):
    """(kernel, workload, n) groups in a stable order, the empty-call probes after every kernel, each sorted
    fastest first, unmeasured last."""
    # dropna=False: a row whose n is unknown (an ERROR before its workload was built) is shown like any other
    groups = list(frame.groupby(["kernel", "workload", "n"], sort=True, dropna=False))
    for key, group in sorted(groups, key=lambda item: item[0][0] == OVERHEAD_KERNEL):  # (a stable sort)
        rank = [status.rank if status is not None else 9 for status in map(status_of, group["status"])]
        ranked = group.assign(_o=rank).sort_values(["_o", "ns_per_op_median", "implementation"], na_position="last")
        yield key, ranked.drop(columns="_o")


TIME_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1.0, "ns"))


def time_unit(ns: float) -> tuple[float, str]:
    """The unit a time in ns reads best in (ns, us, ms or s), as (ns per unit, name)."""
    for scale, name in TIME_UNITS:
        if ns == ns and abs(ns) >= scale:
            return scale, name
    return TIME_UNITS[-1]


def fmt_number(x: float) -> str:
    """Three significant digits, never in exponent form: 1.23, 12.3, 123, 1,234."""
    if x != x:
        return "-"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    return f"{x:#.3g}" if x else "0"


def fmt_time(ns: float, unit: tuple[float, str] | None = None) -> str:
    """A time given in ns, in the unit that reads best (or the one given): "252 ms", "1.23 ns"."""
    if ns != ns or ns is None:
        return "-"
    scale, name = unit or time_unit(ns)
    return f"{fmt_number(ns / scale)} {name}"


def fmt_time_interval(low: float, high: float, unit: tuple[float, str]) -> str:
    """A 95% interval in a given unit without repeating it: "[248 .. 257]"."""
    if low != low or high != high:
        return ""
    return f"[{fmt_number(low / unit[0])} .. {fmt_number(high / unit[0])}]"


def column_title(name) -> str:
    """A suite table's column name as a header: words, with its unit in brackets (``time_s`` -> "time (s)",
    ``wins_%`` -> "wins (%)", ``ns_per_op`` -> "ns/op")."""
    text = str(name).replace("_per_", "/")
    words = text.split("_")
    if len(words) > 1 and words[-1] in ("s", "ms", "us", "ns", "%", "cycles", "x"):
        return " ".join(words[:-1]) + f" ({words[-1]})"
    return " ".join(words)


def fmt_ns(ns: float) -> str:
    if ns != ns:  # NaN
        return "-"
    if ns < 10:
        return f"{ns:.3f}"
    if ns < 1000:
        return f"{ns:.1f}"
    return f"{ns:,.0f}"


def fmt_speedup(x: float) -> str:
    return "-" if x != x else (f"{x:,.0f}x" if x >= 100 else f"{x:.2f}x")


def fmt_interval(low: float, high: float, fmt) -> str:
    if low != low or high != high:
        return ""
    return f"[{fmt(low).rstrip('x')} .. {fmt(high)}]"


def fmt_seconds(s: float) -> str:
    if s != s or s is None:
        return "-"
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def size_text(n) -> str:
    """A batch's operation count for a heading; a row that failed before its size was known has none."""
    return f"{int(n):,}" if n == n and n is not None else "unknown"


def fmt_cell(value) -> str:
    """A suite section's cell: whole numbers with thousands separators, other numbers to four significant
    digits (one decimal from 100 up), missing ones blank; anything else as it is."""
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if x != x:
            return ""
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        return f"{x:,.1f}" if abs(x) >= 100 else f"{x:.4g}"
    return str(value)


def is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def operation_name(kernel: str) -> str:
    op = kernel.split(".", 1)[-1]
    return "".join(part[:1].upper() + part[1:] for part in op.replace("-", "_").split("_"))


def fmt_cycles(r) -> str:
    """Counted cycles per op with instructions per cycle where the hardware counters were read, else the
    estimate from the clock, marked with ``~``."""
    counted = r.get("hw_cycles_per_op", float("nan"))
    if counted is not None and counted == counted:
        ipc = r.get("hw_instructions_per_op", float("nan")) / counted if counted > 0 else float("nan")
        return f"{fmt_ns(counted)} ({ipc:.2f} IPC)" if ipc == ipc else fmt_ns(counted)
    estimate = r.get("cycles_per_op_est", float("nan"))
    return f"~{fmt_ns(estimate)}" if estimate is not None and estimate == estimate else ""
