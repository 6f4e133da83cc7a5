"""Renderers: each turns a finished run (the tidy frame, machine info, suite sections) into one format.

They format and lay out; they never compute statistics (harness.results did that once).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from harness.model import ReportSection


@dataclass
class RunView:
    frame: pd.DataFrame
    machine: dict
    sections: list[ReportSection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def run_ids(self) -> list[str]:
        return sorted(self.frame["run_id"].dropna().unique().tolist()) if len(self.frame) else []


FORMATS = ("text", "md", "csv", "html")


def render(fmt: str, view: RunView) -> str:
    from harness.render import csv, html, markdown, text

    return {"text": text.render, "md": markdown.render, "csv": csv.render, "html": html.render}[fmt](view)


def kernel_groups(frame: pd.DataFrame):
    """(kernel, workload, n) groups in a stable order, each sorted fastest first, unmeasured last."""
    order = {"PASS": 0, "FAIL": 1, "ERROR": 2, "SKIP": 3}
    for key, group in frame.groupby(["kernel", "workload", "n"], sort=True):
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


def fmt_seconds(s: float) -> str:
    if s != s or s is None:
        return "-"
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def operation_name(kernel: str) -> str:
    op = kernel.split(".", 1)[-1]
    return "".join(part[:1].upper() + part[1:] for part in op.replace("-", "_").split("_"))
