"""Renderers: each turns a finished run (the tidy frame, machine info, suite sections) into one format.

They format and lay out; they never compute statistics (swarbench.results did that once).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from swarbench.model import ReportSection
from swarbench.results import SLOWED, UNSTEADY_SHARE


@dataclass
class RunView:
    frame: pd.DataFrame
    machine: dict  # the first run's machine
    sections: list[ReportSection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    machines: dict = field(default_factory=dict)  # run id -> machine, when several runs are shown together

    def label(self, row) -> str:
        """An implementation's name, with its run when rows of several runs share a table."""
        if len(self.run_ids) < 2:
            return str(row["implementation"])
        hosts = {m.get("hostname", "") for m in self.machines.values()}
        if len(hosts) > 1:  # runs from several machines: the machine is what tells rows apart
            return f"{row['implementation']}@{self.machines.get(row['run_id'], {}).get('hostname', '?')}"
        return f"{row['implementation']}@{str(row['run_id'])[-11:]}"

    @property
    def run_ids(self) -> list[str]:
        return sorted(self.frame["run_id"].dropna().unique().tolist()) if len(self.frame) else []


FORMATS = ("text", "md", "csv", "html")


def steadiness_lines(view: RunView) -> list[str]:
    """Per run, what its canary saw (swarbench.results.machine_steadiness); nothing for a run without one."""
    out = []
    for run_id, group in view.frame.groupby("run_id", sort=True):
        share, canary_us = (float(group[c].iloc[0]) for c in ("machine_slowed_share", "machine_canary_us"))
        if share != share:
            continue
        line = (f"{run_id + ': ' if len(view.run_ids) > 1 else ''}the machine itself ran {SLOWED:.0%} or more "
                f"slower than its best during {share:.0%} of the run (canary median {canary_us:.0f} us)")
        if share > 0 and group["samples_slowed"].notna().any():  # not in a run saved before, or --keep-slowed
            line += "; samples timed then are set aside (samples_slowed)"
        if share >= UNSTEADY_SHARE:
            line += "; what is left can still move by more than its interval: measure again on a quieter machine"
        out.append(line)
    return out


def render(fmt: str, view: RunView) -> str:
    from swarbench.render import csv_file, html_page, markdown, text

    return {"text": text.render, "md": markdown.render, "csv": csv_file.render, "html": html_page.render}[fmt](view)


def scaling_series(frame: pd.DataFrame):
    """(kernel, workload) groups measured at several sizes: what a scaling chart plots (ns/op against N)."""
    passed = frame[frame["status"] == "PASS"]
    for key, group in passed.groupby(["kernel", "workload"], sort=True):
        if group["n"].nunique() > 1:
            yield key, group


def kernel_groups(frame: pd.DataFrame):
    """(kernel, workload, n) groups in a stable order, each sorted fastest first, unmeasured last."""
    order = {"PASS": 0, "FAIL": 1, "ERROR": 2, "CRASH": 2, "TIMEOUT": 2, "SKIP": 3}
    # dropna=False: a row whose n is unknown (an ERROR before its workload was built) is shown like any other
    for key, group in frame.groupby(["kernel", "workload", "n"], sort=True, dropna=False):
        ranked = group.assign(_o=group["status"].map(order).fillna(9)).sort_values(
            ["_o", "ns_per_op_median", "implementation"], na_position="last")
        yield key, ranked.drop(columns="_o")


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


def fmt_cell(value) -> str:
    """A suite section's cell: whole numbers with thousands separators, other numbers to four significant
    digits (one decimal from 100 up), missing ones blank; anything else as it is."""
    if isinstance(value, (float, np.floating)):
        x = float(value)
        if x != x:
            return ""
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        return f"{x:,.1f}" if abs(x) >= 100 else f"{x:.4g}"
    return str(value)


def section_cells(table) -> list[list[str]]:
    return [[fmt_cell(v) for v in row] for row in table.itertuples(index=False)]


def operation_name(kernel: str) -> str:
    op = kernel.split(".", 1)[-1]
    return "".join(part[:1].upper() + part[1:] for part in op.replace("-", "_").split("_"))


MEASUREMENT_HEADER = ["implementation", "family", "status", "ns/op (median)", "95% CI", "min", "IQR", "speedup",
                      "95% CI", "cycles/op", "net ns/op", "prepare", "note"]


def fmt_cycles(r) -> str:
    """Counted cycles per op with instructions per cycle where the hardware counters were read, else the
    estimate from the clock, marked with ``~``."""
    counted = r.get("hw_cycles_per_op", float("nan"))
    if counted is not None and counted == counted:
        ipc = r.get("hw_instructions_per_op", float("nan")) / counted if counted > 0 else float("nan")
        return f"{fmt_ns(counted)} ({ipc:.2f} IPC)" if ipc == ipc else fmt_ns(counted)
    estimate = r.get("cycles_per_op_est", float("nan"))
    return f"~{fmt_ns(estimate)}" if estimate is not None and estimate == estimate else ""


def measurement_rows(group, view) -> list[list[str]]:
    """The cells of one (kernel, workload, n) table, shared by the markdown and HTML renderers."""
    return [[view.label(r), r["family"], r["status"], fmt_ns(r["ns_per_op_median"]),
             fmt_interval(r["ns_per_op_ci_low"], r["ns_per_op_ci_high"], fmt_ns), fmt_ns(r["ns_per_op_min"]),
             fmt_ns(r["ns_per_op_iqr"]), fmt_speedup(r["speedup"]),
             fmt_interval(r["speedup_ci_low"], r["speedup_ci_high"], fmt_speedup),
             fmt_cycles(r), fmt_ns(r["ns_per_op_corrected"]), fmt_seconds(r["prepare_s"]),
             "; ".join(x for x in (r["reason"], r["stability"]) if x)] for _, r in group.iterrows()]


def measurement_header(group) -> list[str]:
    header = list(MEASUREMENT_HEADER)
    base = group.iloc[0]["baseline"]
    header[7] = f"speedup vs {base if isinstance(base, str) and base else '-'}"
    return header
