"""Markdown: one table per (kernel, workload), the suites' sections, and the machine."""
from __future__ import annotations

from swarbench.render import (RunView, fmt_interval, fmt_ns, fmt_seconds, fmt_speedup, kernel_groups, measurement_header,
                            measurement_rows, section_cells, steadiness_lines)


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def render(view: RunView) -> str:
    m = view.machine
    out = [f"# swarbench run {', '.join(view.run_ids)}", "",
           f"{m.get('cpu', '?')}, {m.get('cores', '?')} cores; {m.get('python', '')}; {m.get('compiler', '')}; "
           f"SIMD: {' '.join(m.get('simd_flags', []))}; commit {m.get('git_commit') or '-'}"]
    out += [f"\nSteadiness: {line}." for line in steadiness_lines(view)]
    for (kernel, workload, n), group in kernel_groups(view.frame):
        out += ["", f"## {kernel}: {workload}, n = {n:,}", ""]
        out += table(measurement_header(group), measurement_rows(group, view))
    for section in view.sections:
        out += ["", f"## {section.title}", ""]
        out += table(list(map(str, section.table.columns)), section_cells(section.table))
        out += [""] + [f"- {note}" for note in section.notes]
    if view.notes:
        out += [""] + [f"> {n}" for n in view.notes]
    return "\n".join(out) + "\n"
