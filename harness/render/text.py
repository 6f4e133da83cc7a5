"""The console report, within 120 columns: the header, the scoreboard, then per kernel an aligned table with
units (median, its 95% interval, speedup over the baseline with its interval, cycles per op, caveat marks), the
suites' sections as aligned tables, and what each caveat mark means, once, at the end."""

from __future__ import annotations

import textwrap

from swarbench.render import (
    RunView,
    fmt_cell,
    fmt_cycles,
    fmt_interval,
    fmt_speedup,
    fmt_time,
    fmt_time_interval,
    operation_name,
    printable,
    steadiness_lines,
    time_unit,
)
from swarbench.render import size_text, tables
from swarbench.render.summary import PORTABLE_C, change_of, summarize
from swarbench.runfolder import Status

WIDTH = 120


def _wrap(text: str, indent: str = "", first: str = "") -> list[str]:
    return textwrap.wrap(
        text, WIDTH, initial_indent=first or indent, subsequent_indent=indent, break_on_hyphens=False
    ) or [first.rstrip()]


def _lines(header, rows, numeric, indent: str = "") -> list[str]:
    return [indent + "  ".join(r).rstrip() for r in tables.padded(header, rows, numeric, WIDTH - len(indent))]


def _kernel_rows(group, view, summary) -> tuple[list, list, list, list]:
    """The aligned rows of one kernel's timed implementations, named as `go test -bench` names its benchmarks,
    and one line for each implementation that was not timed."""
    against = bool(view.changes)
    base = group.iloc[0]["baseline"]
    header = [
        "benchmark",
        "time/op",
        "95% interval",
        f"x {base}" if isinstance(base, str) and base else "speedup",
        "95% interval",
        "cycles/op",
        "marks",
    ] + (["change"] if against else [])
    rows, lines = [], []
    bench, procs = f"Benchmark{operation_name(group.iloc[0]['kernel'])}", view.machine.get("cores") or 1
    for i, r in group.iterrows():
        name = f"{bench}/{view.label(r)}-{procs}"
        if r["status"] == Status.PASS:
            unit = time_unit(r["ns_per_op_median"])
            rows.append(
                [
                    name,
                    fmt_time(r["ns_per_op_median"], unit),
                    fmt_time_interval(r["ns_per_op_ci_low"], r["ns_per_op_ci_high"], unit),
                    fmt_speedup(r["speedup"]),
                    fmt_interval(r["speedup_ci_low"], r["speedup_ci_high"], fmt_speedup),
                    fmt_cycles(r),
                    summary.marks.get(i, ""),
                ]
                + ([tables.fmt_change(change_of(view, r))] if against else [])
            )
        elif r["expected_to_fail"]:  # wrong on purpose: it says so, and where the oracle caught it
            lines += _wrap(
                f"--- {r['status']}: {name} [{r['family']}]: as expected, kept wrong on purpose "
                f"({r['expected_to_fail']}): {r['reason']}",
                "      ",
            )
        elif r["status"] == Status.SKIP:
            lines.append(_cut(f"--- SKIP: {name} [{r['family']}]: {r['reason']}"))
        else:
            lines += _wrap(f"--- {r['status']}: {name} [{r['family']}]: {r['reason']}", "      ")
    numeric = [False, True, True, True, True, True, False, False][: len(header)]
    return header, rows, numeric, lines


def _limits(group, view) -> list[str]:
    """The kernel's C and Numba rows against their limits, the reasons for any limit missing below."""
    header, rows, notes = tables.limits(group, view)
    if not rows:
        return []
    out = _wrap(tables.limits_model(group), "    ", "  ")
    out += _lines(header, rows, [False, True, True, False, True, True, False, True], "  ")
    return out + [line for note in notes for line in _wrap(note, "      ", "    - ")]


def _cut(line: str) -> str:
    return line if len(line) <= WIDTH else line[: WIDTH - 3] + "..."


def _scoreboard(s) -> tuple[list, list, list]:
    header = [
        "kernel",
        "workload",
        "fastest",
        "time/op",
        "95% interval",
        "x base",
        "x C",
        "C",
        "of limit",
        "steadiness",
    ]
    rows = []
    for b in s.boards:
        unit = time_unit(b.median)
        rows.append(
            [
                b.kernel,
                b.workload,
                b.fastest or "(none passed)",
                fmt_time(b.median, unit),
                fmt_time_interval(b.low, b.high, unit),
                fmt_speedup(b.speedup),
                "is C" if b.best_c and b.best_c == b.fastest else fmt_speedup(b.speedup_c),
                b.best_c or "-",
                tables.limit_cell(b),
                b.steadiness.replace(", ", " ") + (f" {b.marks}" if b.marks else ""),
            ]
        )
    return header, rows, [False, False, False, True, True, True, True, False, True, False]


def render(view: RunView) -> str:
    s = summarize(view)
    h = s.header
    out = _wrap(
        ", ".join(
            p
            for p in (
                h["title"],
                h["date"],
                f"took {h['duration']}" if h["duration"] else "",
                f"commit {h['commit']}" if h["commit"] else "",
            )
            if p
        )
    )
    if h["command"]:
        out += _wrap(h["command"], "    ", "command: ")
    out += _wrap(h["machine"], "    ", "machine: ")
    if h["plugins"]:
        out += _wrap(", ".join(h["plugins"]), "    ", "plugins: ")
    if h.get("counters"):
        out += _wrap(h["counters"], "    ", "counters: ")
    out += [line for n in view.notes for line in _wrap(n, "    ", "problem: ")]
    if s.boards:
        out += [""] + _wrap(
            "Fastest correct implementation of each kernel; x base: speedup over the kernel's "
            f"baseline, x C: over the fastest portable scalar C, the row of family {PORTABLE_C} "
            "named under C; of limit: the share of its binding limit (core or memory) it reached"
        )
        out += _lines(*_scoreboard(s), "  ")
        for b in s.boards:
            for failure in b.failure_lines():
                out += _wrap(f"{b.kernel}: {failure}", "    ", "  ! ")
    for (kernel, workload, n), _, group in s.groups:
        first = group.iloc[0]
        out += ["", f"{kernel}  {workload}, n={size_text(n)}  (one op = one {first['unit']})"]
        header, rows, numeric, lines = _kernel_rows(group, view, s)
        if rows:
            out += _lines(header, rows, numeric, "  ")
        out += lines
        out += _limits(group, view)
    for section in view.sections:
        out += ["", f"== {section.title} =="]
        header = [tables.column_title(c) for c in section.table.columns]
        rows = [[fmt_cell(v) for v in row] for row in section.table.itertuples(index=False)]
        numeric = tables.numeric_columns(section.table)
        for cols in tables.width_chunks(header, rows, numeric, WIDTH - 2):
            out += _lines(
                [header[c] for c in cols], [[r[c] for c in cols] for r in rows], [numeric[c] for c in cols], "  "
            )
            out.append("")
        for note in section.notes:
            out += _wrap(note, "    ", "  ")
    if s.caveats or steadiness_lines(view):
        out += ["", "Caveat marks:"]
        for mark, words, count in s.caveats:
            out += _wrap(f"{words} ({count} measurement{'s' if count != 1 else ''})", "      ", f"  {mark}   ")
        for line in steadiness_lines(view):
            out += _wrap(line, "      ", "  *   ")
    if len(view.run_ids) > 1:
        out += ["", "runs:"]
        for rid in view.run_ids:
            m = view.machines.get(rid, {})
            out += _wrap(
                f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores, commit {m.get('git_commit') or '-'}",
                "    ",
                f"  {rid}: ",
            )
    return printable("\n".join(out) + "\n")
