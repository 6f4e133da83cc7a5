"""The cells of the report's tables, shared by the text, markdown and HTML renderers: the scoreboard, the compact
table of a kernel (about seven columns), the rest of its columns, and a suite section's typeset table."""

from __future__ import annotations

from swarbench.render import (
    RunView,
    column_title,
    fmt_cell,
    fmt_cycles,
    fmt_interval,
    fmt_ns,
    fmt_number,
    fmt_seconds,
    fmt_speedup,
    fmt_time,
    fmt_time_interval,
    is_number,
    size_text,
    time_unit,
)
from swarbench.render.summary import Board, Summary, change_of
from swarbench.runfolder import Status, status_of


def not_timed(status) -> str:
    """A row without a time, in words: "WRONG ANSWER", "crashed"."""
    known = status_of(status)
    return known.words if known is not None else str(status)


def fmt_change(change: dict | None) -> str:
    """A `compare` row as a cell: the change and its interval where it is clear, "~" where it is not."""
    if not change:
        return ""
    if not change.get("significant"):
        return "~"
    pct = lambda x: f"{x * 100:+.0f}" if abs(x) >= 0.1 else f"{x * 100:+.1f}"  # noqa: E731
    return f"{pct(change['change'])}% [{pct(change['change_ci_low'])} .. {pct(change['change_ci_high'])}]"


def verdict(change: dict | None) -> str:
    if not change:
        return ""
    if not change.get("significant"):
        return "same"
    return "slower" if change["change"] > 0 else "faster"


def limit_cell(b: Board) -> str:
    """The fastest row's share of its binding limit: "73% core", "2.5x over memory"; "-" where none binds."""
    return f"{_share(b.limit_share)} {b.limit_bound}" if b.limit_bound else "-"


def scoreboard(summary: Summary) -> tuple[list, list]:
    header = [
        "kernel",
        "workload",
        "fastest",
        "time per op [95%]",
        "vs baseline",
        "vs best plain C",
        "steadiness",
        "its limit",
    ]
    rows = []
    for b in summary.boards:
        unit = time_unit(b.median)
        time = f"{fmt_time(b.median, unit)} {fmt_time_interval(b.low, b.high, unit)}".strip() if b.fastest else "-"
        rows.append(
            [
                b.kernel,
                f"{b.workload}, n={size_text(b.n)}",
                b.fastest or "(none passed)",
                time,
                f"{fmt_speedup(b.speedup)} over {b.baseline}" if b.speedup == b.speedup else "-",
                _vs_c(b),
                b.steadiness + (f" [{b.marks}]" if b.marks else ""),
                b.limit_text or "-",
            ]
        )
    return header, rows


def _vs_c(b: Board) -> str:
    if b.speedup_c != b.speedup_c:
        return "-"
    if b.best_c == b.fastest:
        return "is plain C"
    return f"{fmt_speedup(b.speedup_c)} over {b.best_c}"


def compact(group, view: RunView, summary: Summary) -> tuple[list, list, list]:
    """The kernel's table, one row per implementation that ran (PASS or wrong): (header, rows, status of each)."""
    against = bool(view.changes)
    base = group.iloc[0]["baseline"]
    header = [
        "implementation",
        "family",
        "time per op",
        "95% interval",
        f"speedup vs {base}" if isinstance(base, str) and base else "speedup",
        "cycles/op",
        "caveats",
    ]
    header += ["change"] if against else []
    rows, statuses = [], []
    for i, r in group.iterrows():
        if r["status"] == Status.SKIP or (r["expected_to_fail"] and r["status"] != Status.PASS):
            continue  # listed in a line below the table (not_timed_lines)
        if r["status"] == Status.PASS:
            unit = time_unit(r["ns_per_op_median"])
            cells = [
                view.label(r),
                r["family"],
                fmt_time(r["ns_per_op_median"], unit),
                fmt_time_interval(r["ns_per_op_ci_low"], r["ns_per_op_ci_high"], unit),
                fmt_speedup(r["speedup"]),
                fmt_cycles(r),
                summary.marks.get(i, ""),
            ]
        else:
            cells = [view.label(r), r["family"], not_timed(r["status"]), "", "", "", _first_clause(r["reason"])]
        rows.append(cells + ([fmt_change(change_of(view, r))] if against else []))
        statuses.append(r["status"])
    return header, rows, statuses


def _first_clause(text: str, most: int = 60) -> str:
    text = str(text or "").split("; ")[0]
    return text if len(text) <= most else text[: most - 3].rstrip() + "..."


def details(group, view: RunView) -> tuple[list, list]:
    """The columns the compact table leaves out, for a details element (the CSV has them all)."""
    header = [
        "implementation",
        "samples",
        "processes",
        "fastest sample",
        "IQR (ns)",
        "speedup interval",
        "net ns/op",
        "prepare",
        "notes",
    ]
    rows = []
    for _, r in group.iterrows():
        if r["status"] != Status.PASS:
            continue
        samples = f"{int(r['samples'])}" if r["samples"] == r["samples"] else "unknown"  # (left out by hand)
        rows.append(
            [
                view.label(r),
                samples,
                f"{r['processes']:g}" if r["processes"] == r["processes"] else "",
                fmt_time(r["ns_per_op_min"]),
                fmt_ns(r["ns_per_op_iqr"]),
                fmt_interval(r["speedup_ci_low"], r["speedup_ci_high"], fmt_speedup),
                fmt_ns(r["ns_per_op_corrected"]),
                fmt_seconds(r["prepare_s"]),
                r["stability"],
            ]
        )
    return header, rows


def not_timed_lines(group, view: RunView) -> list[str]:
    """One line per kind of row that was not timed: wrong or broken (each, with its whole reason, which the
    table cuts short), wrong on purpose (each), and skipped (by reason)."""
    out = []
    for _, r in group.iterrows():
        if r["status"] not in (Status.PASS, Status.SKIP) and not r["expected_to_fail"]:
            out.append(f"{view.label(r)}: {not_timed(r['status'])}: {r['reason']}")
    for _, r in group.iterrows():
        if r["expected_to_fail"] and r["status"] != Status.PASS:
            out.append(
                f"{view.label(r)}: {r['status']} as expected (kept wrong on purpose: "
                f"{_first_clause(r['expected_to_fail'], 90)}): {r['reason']}"
            )
    skipped: dict[str, list[str]] = {}
    for _, r in group.iterrows():
        if r["status"] == Status.SKIP and not r["expected_to_fail"]:
            skipped.setdefault(str(r["reason"]), []).append(view.label(r))
    out += [f"not run here ({reason}): {', '.join(names)}" for reason, names in skipped.items()]
    return out


def numeric_columns(table) -> list[bool]:
    """Columns whose every present value is a number: right-aligned."""
    return [
        all(is_number(v) for v in table[c] if fmt_cell(v)) and any(fmt_cell(v) for v in table[c]) for c in table.columns
    ]


def section_chunks(table, most: int) -> list[tuple[list[str], list[list[str]], list[bool]]]:
    """A suite section's table as typeset tables of at most ``most`` columns each, the first column repeated in
    every one, so that no table is wider than the page: (header, rows, numeric) per piece."""
    names = list(table.columns)
    numeric = numeric_columns(table)
    cells = [[fmt_cell(v) for v in row] for row in table.itertuples(index=False)]
    keep = [0] if len(names) > most else []
    rest = [i for i in range(len(names)) if i not in keep]
    step = max(most - len(keep), 1)
    out = []
    for start in range(0, len(rest), step):
        cols = keep + rest[start : start + step]
        out.append(
            (
                [column_title(names[c]) for c in cols],
                [[row[c] for c in cols] for row in cells],
                [numeric[c] for c in cols],
            )
        )
    return out


def padded(header: list[str], rows: list[list[str]], numeric: list[bool], width: int | None = None) -> list[list[str]]:
    """Header and rows with every column padded to one width (numbers right-aligned), the widest text column
    cut short with "..." where the whole would pass ``width`` characters (columns joined by two spaces)."""
    table = [[_one_line(c) for c in header]] + [[_one_line(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    if width is not None:
        while sum(widths) + 2 * (len(widths) - 1) > width:
            text = [i for i in range(len(widths)) if not numeric[i] and widths[i] > 12]
            if not text:
                break
            widest = max(text, key=lambda i: widths[i])
            widths[widest] -= sum(widths) + 2 * (len(widths) - 1) - width
            widths[widest] = max(widths[widest], 12)
    out = []
    for row in table:
        cells = []
        for i, cell in enumerate(row):
            if len(cell) > widths[i]:
                cell = cell[: widths[i] - 3] + "..."
            cells.append(cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i]))
        out.append(cells)
    return out


def _one_line(cell) -> str:
    """A cell on one line: a line break in a name or a reason would start a row of its own."""
    return str(cell).replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def width_chunks(header: list[str], rows: list[list[str]], numeric: list[bool], width: int) -> list[list[int]]:
    """Column index groups that each fit ``width`` characters, the first column repeated in each."""
    widths = [max([len(str(header[i]))] + [len(str(r[i])) for r in rows]) for i in range(len(header))]
    if sum(widths) + 2 * (len(widths) - 1) <= width:
        return [list(range(len(header)))]
    groups, current = [], [0]
    for i in range(1, len(header)):
        if len(current) > 1 and sum(widths[c] + 2 for c in current) + widths[i] > width:
            groups.append(current)
            current = [0]
        current.append(i)
    return groups + [current]


def explained_rows(group):
    """The rows of a kernel whose compiled code was read (C and Numba): those the limits table lists."""
    return [
        (i, r)
        for i, r in group.iterrows()
        if r["status"] == Status.PASS
        and (
            r.get("code_function")
            or (r.get("explain_missing") and not str(r["explain_missing"]).startswith("no compiled code"))
        )
    ]


def limits(group, view: RunView) -> tuple[list, list, list[str]]:
    """The kernel's C and Numba rows against their limits, in cycles per op: (header, rows, notes). A limit
    that could not be found is "-" in the table and its reason a note, once for the rows it shares."""
    header = ["implementation", "instr/op", "core limit", "bound by", "memory limit", "measured", "binds", "reached"]
    rows, why = [], {}
    for _, r in explained_rows(group):
        clock = r.get("clock_ghz", float("nan"))
        memory = r.get("memory_limit_ns_per_op", float("nan"))
        memory_cycles = memory * clock if clock == clock and clock else float("nan")
        counted = r.get("hw_instructions_per_op", float("nan"))
        instr = fmt_number(r.get("instructions_per_op", float("nan")))
        if counted == counted and counted is not None:
            instr += f" ({fmt_number(counted)} counted)"
        rows.append(
            [
                view.label(r),
                instr,
                _cycles(r.get("core_limit_cycles_per_op")),
                _bound(r.get("core_bottleneck") or ""),
                _cycles(memory_cycles) + (f" ({r['memory_level']})" if r.get("memory_level") else ""),
                fmt_cycles(r),
                _binds(r),
                _share(r.get("limit_share")) if r.get("limit_bound") else "-",
            ]
        )
        for reason in filter(None, str(r.get("explain_missing") or "").split("; ")):
            why.setdefault(reason, []).append(view.label(r))
    notes = [f"{reason}: {', '.join(names)}" for reason, names in why.items()]
    return header, rows, notes


def limits_model(group) -> str:
    """What the kernel's limits are made of, said once above its table."""
    models = sorted({str(m) for m in group.get("core_model", []) if isinstance(m, str) and m})
    core = f"core: {', '.join(models)} on each row's hot loop" if models else "core: no prediction"
    return (
        f"Limits of the timed code in cycles per op ({core}; memory: the bytes an op moves at this machine's "
        "bandwidth); `swarbench asm KERNEL IMPL` prints the code"
    )


def _binds(r) -> str:
    bound = r.get("limit_bound") or ""
    return f"memory ({r['memory_level']})" if bound == "memory" else bound or "-"


def _share(x) -> str:
    """The share of the binding limit reached: "65%"; "3.1x over" where it is far from it."""
    if not isinstance(x, (int, float)) or not x == x or x <= 0:
        return "-"
    return f"{x:.0%}" if x >= 0.5 else f"{1 / x:.1f}x over"


def _cycles(x) -> str:
    return f"{fmt_number(x)} cyc" if isinstance(x, (int, float)) and x == x else "-"


def _bound(text: str) -> str:
    """The bottleneck's name without its figures ("Zn4ALU0, Zn4ALU3", "dispatch", "dependencies")."""
    return text.split(" (")[0].replace("dependencies from one iteration to the next", "dependencies") or "-"
