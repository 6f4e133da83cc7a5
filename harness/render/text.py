"""The console table, in the style of `go test -bench` (the source post's own tool), plus a speedup column."""
from __future__ import annotations

from harness.render import RunView, fmt_ns, fmt_seconds, fmt_speedup, kernel_groups, operation_name


def _machine_line(m: dict) -> str:
    parts = [m.get("cpu", "?"), f"{m.get('cores', '?')} cores", m.get("python", ""), m.get("compiler", ""),
             f"commit {m['git_commit']}" if m.get("git_commit") else ""]
    return "  ".join(p for p in parts if p)


def render(view: RunView) -> str:
    m = view.machine
    procs = m.get("cores") or 1
    out = [f"swarbench run {', '.join(view.run_ids)}", f"cpu: {_machine_line(m)}",
           f"simd: {' '.join(m.get('simd_flags', [])) or 'none detected'}"]
    for (kernel, workload, n), group in kernel_groups(view.frame):
        first = group.iloc[0]
        out += ["", f"{kernel}  {workload}/n={n:,}  (one op = one {first['unit']}; speedup over "
                    f"{first['baseline']})"]
        rows, notes = [], []
        bench = f"Benchmark{operation_name(kernel)}"
        for _, r in group.iterrows():
            name = f"{bench}/{r['implementation']}-{procs}"
            if r["status"] == "PASS":
                ops = int(r["samples"]) * int(r["iterations"]) * int(r["n"])
                rows.append((name, f"{ops:>14,}".replace(",", ""), f"{fmt_ns(r['ns_per_op_median'])} ns/op",
                             f"±{fmt_ns(r['ns_per_op_iqr'] / 2)}", fmt_speedup(r["speedup"]), r["family"],
                             f"prepare {fmt_seconds(r['prepare_s'])}"))
            else:
                tag = "FAIL" if r["status"] in ("FAIL", "ERROR") else "SKIP"
                why = f" (kept on purpose: {r['expected_to_fail']})" if r["expected_to_fail"] else ""
                notes.append(f"--- {tag}: {name} [{r['family']}]: {r['reason']}{why}")
        if rows:
            widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
            for row in rows:
                out.append("  ".join(cell.ljust(w) if i in (0, 5, 6) else cell.rjust(w)
                                     for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
        out += notes
    for section in view.sections:
        out += ["", f"== {section.title} ==", section.table.to_string(index=False)]
        out += [f"  {note}" for note in section.notes]
    out += [f"note: {n}" for n in view.notes]
    return "\n".join(out) + "\n"
