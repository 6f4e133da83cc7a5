"""Markdown that reads as plain text too: the header, the scoreboard, the caveat marks once, per kernel a compact
table with units, the suites' sections, and the machine. Every table's columns are padded to one width."""

from __future__ import annotations

import textwrap

from swarbench.render import RunView, fmt_cell, printable, size_text, steadiness_lines
from swarbench.render import tables
from swarbench.render.summary import summarize

SECTION_WIDTH = 150  # a suite table wider than this many characters is split, its first column in each piece


def markdown_text(text) -> str:
    """Text from a run (names, reasons, notes) as markdown shows it and never as markup: a viewer renders
    inline HTML, so ``<``, ``>`` and ``&`` are written as entities; backticks would open code."""
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("`", "'")
        .replace("\r", " ")
        .replace("\n", " ")
    )


def _cell(text) -> str:
    return markdown_text(text).replace("|", "\\|")


def table(
    header: list[str], rows: list[list], numeric: list[bool] | None = None, width: int | None = SECTION_WIDTH
) -> list[str]:
    numeric = numeric or [False] * len(header)
    # cells are padded for reading as plain text; a long text cell is cut to keep the row within ``width``
    cells = tables.padded(
        [_cell(h) for h in header],
        [[_cell(c) for c in r] for r in rows],
        numeric,
        None if width is None else width - 3 * len(header),
    )
    rule = ["-" * (len(c) - 1) + ":" if numeric[i] else "-" * len(c) for i, c in enumerate(cells[0])]
    return ["| " + " | ".join(r) + " |" for r in [cells[0], rule] + cells[1:]]


def _bullet(text: str) -> list[str]:
    return textwrap.wrap(markdown_text(text), 120, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)


def _paragraph(text: str) -> list[str]:
    # a machine's name and SIMD flags can run long; markdown joins the lines back into one paragraph
    return textwrap.wrap(markdown_text(text), 120, break_on_hyphens=False, break_long_words=False)


def render(view: RunView) -> str:
    s = summarize(view)
    h = s.header
    out = [f"# {markdown_text(h['title'])}", ""]
    out += _paragraph(
        " · ".join(
            p
            for p in (
                h["date"],
                f"took {h['duration']}" if h["duration"] else "",
                f"commit `{h['commit']}`" if h["commit"] else "",
                h["machine"],
            )
            if p
        )
    )
    if h.get("counters"):
        out += ["", *_paragraph(f"Hardware counters: {markdown_text(h['counters'])}.")]
    if h["command"]:
        # a long command line is continued with backslashes, as a shell reads it back
        parts = textwrap.wrap(h["command"].replace("`", "'"), 110, break_on_hyphens=False, break_long_words=False)
        out += ["", "Command:", "", "```sh", " \\\n    ".join(parts), "```"]
    if h["plugins"]:
        out += ["", "Plugins: " + ", ".join(f"`{p.replace('`', chr(39))}`" for p in h["plugins"])]
    out += [f"\n**Problem:** {markdown_text(n)}" for n in view.notes]
    if s.boards:
        header, rows = tables.scoreboard(s)
        out += ["", "## Scoreboard", ""]
        out += table(header, rows, [False, False, False, True, True, True, False, False])
    if s.caveats or steadiness_lines(view):
        out += ["", "Caveat marks:", ""]
        out += [x for mark, words, count in s.caveats for x in _bullet(f"**{mark}**: {words} ({count})")]
        out += [x for line in steadiness_lines(view) for x in _bullet(f"Steadiness: {line}.")]
    for (kernel, workload, n), _, group in s.groups:
        out += [
            "",
            f"## {markdown_text(kernel)}: {markdown_text(workload)}, n = {size_text(n)} (one op = one "
            f"{markdown_text(group.iloc[0]['unit'])})",
            "",
        ]
        header, rows, _ = tables.compact(group, view, s)
        if rows:
            out += table(header, rows, [False, False, True, True, True, True, False, True])
        lines = tables.not_timed_lines(group, view)
        out += ([""] if lines else []) + [x for line in lines for x in _bullet(line)]
        header, rows, notes = tables.limits(group, view)
        if rows:
            out += ["", *_paragraph(tables.limits_model(group) + ":"), ""]
            out += table(header, rows, [False, True, True, False, True, True, False, True])
            out += [x for note in notes for x in _bullet(note)]
    for section in view.sections:
        out += ["", f"## {markdown_text(section.title)}", ""]
        header = [tables.column_title(c) for c in section.table.columns]
        rows = [[fmt_cell(v) for v in row] for row in section.table.itertuples(index=False)]
        numeric = tables.numeric_columns(section.table)
        for cols in tables.width_chunks(header, rows, numeric, SECTION_WIDTH):
            out += table([header[c] for c in cols], [[r[c] for c in cols] for r in rows], [numeric[c] for c in cols])
            out.append("")
        out += [x for note in section.notes for x in _bullet(note)]
    m = view.machine
    out += ["", "## Machine", ""]
    out += _paragraph(
        f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores; {m.get('system', '')}; "
        f"{m.get('python', '')}; {m.get('compiler', '')}; SIMD: {' '.join(m.get('simd_flags', []))}; "
        f"commit {m.get('git_commit') or '-'}"
    )
    return printable("\n".join(out) + "\n")
