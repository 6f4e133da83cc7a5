"""Markdown: one table per (kernel, workload), the suites' sections, and the machine."""
from __future__ import annotations

from harness.render import RunView, fmt_ns, fmt_seconds, fmt_speedup, kernel_groups


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
    for (kernel, workload, n), group in kernel_groups(view.frame):
        out += ["", f"## {kernel}: {workload}, n = {n:,}", ""]
        rows = [[r["implementation"], r["family"], r["status"], fmt_ns(r["ns_per_op_median"]),
                 fmt_ns(r["ns_per_op_min"]), fmt_ns(r["ns_per_op_iqr"]), fmt_speedup(r["speedup"]),
                 fmt_seconds(r["prepare_s"]), r["reason"]] for _, r in group.iterrows()]
        out += table(["implementation", "family", "status", "ns/op (median)", "min", "IQR",
                      f"speedup vs {group.iloc[0]['baseline']}", "prepare", "note"], rows)
    for section in view.sections:
        out += ["", f"## {section.title}", ""]
        out += table(list(map(str, section.table.columns)), section.table.astype(str).values.tolist())
        out += [""] + [f"- {note}" for note in section.notes]
    if view.notes:
        out += [""] + [f"> {n}" for n in view.notes]
    return "\n".join(out) + "\n"
