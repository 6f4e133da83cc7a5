"""The console table, in the style of `go test -bench` (the source post's own tool), with the interval of each
median, the speedup over the kernel's baseline with its interval, and an estimate of cycles per operation."""
from __future__ import annotations

from swarbench.render import (RunView, fmt_cycles, fmt_interval, fmt_ns, fmt_seconds, fmt_speedup, kernel_groups,
                            operation_name, steadiness_lines)


def _machine_line(m: dict) -> str:
    parts = [m.get("cpu", "?"), f"{m.get('cores', '?')} cores", f"{m['clock_ghz']:g} GHz" if m.get("clock_ghz") else "",
             m.get("python", ""), m.get("compiler", ""), f"commit {m['git_commit']}" if m.get("git_commit") else ""]
    return "  ".join(p for p in parts if p)


def _table(rows: list[tuple]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    left = {0, len(widths) - 2, len(widths) - 1}
    return ["  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def render(view: RunView) -> str:
    m = view.machine
    procs = m.get("cores") or 1
    out = [f"swarbench run {', '.join(view.run_ids)}", f"cpu: {_machine_line(m)}",
           f"simd: {' '.join(m.get('simd_flags', [])) or 'none detected'}",
           *(f"steadiness: {line}" for line in steadiness_lines(view)),
           "columns: ops timed, median ns/op [95% bootstrap CI], speedup over the baseline [95% CI], "
           "cycles/op (counted, with IPC, where hardware counters work; else ~ an estimate: ns x clock), net ns/op without the family's empty-call cost (where it is over 1% "
           "of a call), family, prepare time (and again: a fresh copy for a later pass)"]
    for (kernel, workload, n), group in kernel_groups(view.frame):
        first = group.iloc[0]
        base = first["baseline"]
        against = f"; speedup over {base}" if isinstance(base, str) and base else ""
        out += ["", f"{kernel}  {workload}/n={n:,}  (one op = one {first['unit']}{against})"]
        rows, notes = [], []
        bench = f"Benchmark{operation_name(kernel)}"
        for _, r in group.iterrows():
            name = f"{bench}/{view.label(r)}-{procs}"
            if r["status"] == "PASS":
                ops = int(r["samples"]) * int(r["iterations"]) * int(r["n"])
                rows.append((name, f"{ops}", f"{fmt_ns(r['ns_per_op_median'])} ns/op",
                             fmt_interval(r["ns_per_op_ci_low"], r["ns_per_op_ci_high"], fmt_ns),
                             fmt_speedup(r["speedup"]),
                             fmt_interval(r["speedup_ci_low"], r["speedup_ci_high"], fmt_speedup),
                             f"{cycles} cyc" if (cycles := fmt_cycles(r)) else "",
                             f"net {fmt_ns(r['ns_per_op_corrected'])}" if r["ns_per_op_corrected"] == r["ns_per_op_corrected"] else "",
                             r["family"],
                             f"prepare {fmt_seconds(r['prepare_s'])}"
                             + (f", again {fmt_seconds(again)}" if (again := r["reprepare_s"]) == again else "")))
                if r["stability"]:
                    notes.append(f"    (!) {name}: {r['stability']}")
            else:
                tag = "FAIL" if r["status"] in ("FAIL", "ERROR", "CRASH", "TIMEOUT") else "SKIP"
                why = f" (kept on purpose: {r['expected_to_fail']})" if r["expected_to_fail"] else ""
                notes.append(f"--- {tag}: {name} [{r['family']}]: {r['reason']}{why}")
        if rows:
            out += _table(rows)
        out += notes
    if len(view.run_ids) > 1:
        out += ["", "runs:"] + [f"  {rid}: {_machine_line(view.machines.get(rid, {}))}" for rid in view.run_ids]
    for section in view.sections:
        out += ["", f"== {section.title} ==", section.table.to_string(index=False)]
        out += [f"  {note}" for note in section.notes]
    out += [f"note: {n}" for n in view.notes]
    return "\n".join(out) + "\n"
