"""One self-contained HTML file: tables, a log-axis bar chart of ns/op per kernel, suite sections, machine.

No scripts, fonts or stylesheets are fetched: the charts are inline SVG, so the file opens offline.
"""
from __future__ import annotations

import html
import math

from swarbench.model import LineChart
from swarbench.render import (RunView, fmt_interval, fmt_ns, fmt_seconds, fmt_speedup, kernel_groups, measurement_header,
                            measurement_rows, scaling_series, section_cells, steadiness_lines)

PALETTE = {"python": "#8c564b", "numpy": "#1f77b4", "numba": "#2ca02c", "cffi": "#d62728"}
SERIES = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:.5rem 0 1.5rem;font-size:.9rem}
td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}
td:first-child,th:first-child,td.l{text-align:left}
tr.FAIL td,tr.ERROR td{background:#fde0e0} tr.SKIP td{color:#888}
h2{border-bottom:1px solid #ddd;padding-bottom:.2rem} .note{color:#555;font-size:.9rem}
svg text{font-size:11px;font-family:inherit}
"""


def _e(x) -> str:
    return html.escape(str(x))


def _color(family: str) -> str:
    return next((c for k, c in PALETTE.items() if str(family).startswith(k)), "#7f7f7f")


def _decades(lo: float, hi: float) -> tuple[int, int]:
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    return a, max(b, a + 1)


def bar_chart(group, view) -> str:
    """Horizontal bars of median ns/op on a log axis, IQR as a whisker."""
    rows = group[group["status"] == "PASS"]
    if rows.empty:
        return ""
    lo = float(rows["ns_per_op_q1"].clip(lower=1e-6).min())
    hi = float(rows["ns_per_op_q3"].max())
    d0, d1 = _decades(lo, hi)
    left, width, bar, gap = 260, 520, 14, 6
    height = 30 + len(rows) * (bar + gap)

    def x(v: float) -> float:
        return left + width * (math.log10(max(v, 10 ** d0)) - d0) / (d1 - d0)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height}" '
             f'role="img" aria-label="ns per op, log scale">']
    for d in range(d0, d1 + 1):
        parts.append(f'<line x1="{x(10 ** d):.1f}" y1="0" x2="{x(10 ** d):.1f}" y2="{height - 18}" stroke="#ddd"/>'
                     f'<text x="{x(10 ** d):.1f}" y="{height - 4}" text-anchor="middle">{fmt_ns(10 ** d)}</text>')
    for i, (_, r) in enumerate(rows.iterrows()):
        y = 4 + i * (bar + gap)
        med = float(r["ns_per_op_median"])
        label = _e(view.label(r))
        parts.append(f'<text x="{left - 6}" y="{y + bar - 3}" text-anchor="end">{label}</text>'
                     f'<rect x="{left}" y="{y}" width="{max(x(med) - left, 1):.1f}" height="{bar}" '
                     f'fill="{_color(r["family"])}"><title>{label}: {fmt_ns(med)} ns/op</title>'
                     f'</rect><line x1="{x(float(r["ns_per_op_q1"])):.1f}" x2="{x(float(r["ns_per_op_q3"])):.1f}" '
                     f'y1="{y + bar / 2}" y2="{y + bar / 2}" stroke="#000"/>'
                     f'<text x="{x(med) + 4:.1f}" y="{y + bar - 3}">{fmt_ns(med)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def line_chart(table, chart) -> str:
    """One polyline per series value of the section's table (y against x), optionally log-scaled."""
    data = table[[chart.x, chart.y, chart.series]].dropna()
    data = data[(data[chart.y] > 0) | (not chart.logy)]
    if data.empty:
        return ""
    tx = (lambda v: math.log10(v)) if chart.logx else float
    ty = (lambda v: math.log10(v)) if chart.logy else float
    xs, ys = data[chart.x].astype(float).map(tx), data[chart.y].astype(float).map(ty)
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    left, top, w, h = 60, 10, 560, 300

    def px(v):
        return left + w * (tx(v) - x0) / (x1 - x0)

    def py(v):
        return top + h - h * (ty(v) - y0) / (y1 - y0)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + w + 200}" height="{top + h + 40}">',
             f'<rect x="{left}" y="{top}" width="{w}" height="{h}" fill="none" stroke="#ccc"/>']
    for frac in (0, 0.5, 1):
        yv, xv = y0 + frac * (y1 - y0), x0 + frac * (x1 - x0)
        ylab = 10 ** yv if chart.logy else yv
        xlab = 10 ** xv if chart.logx else xv
        parts.append(f'<text x="{left - 4}" y="{top + h - frac * h + 4:.1f}" text-anchor="end">{ylab:.3g}</text>'
                     f'<text x="{left + frac * w:.1f}" y="{top + h + 14}" text-anchor="middle">{xlab:.3g}</text>')
    parts.append(f'<text x="{left + w / 2}" y="{top + h + 32}" text-anchor="middle">{_e(chart.x)}</text>'
                 f'<text x="12" y="{top + h / 2}" transform="rotate(-90 12 {top + h / 2})" '
                 f'text-anchor="middle">{_e(chart.y)}</text>')
    for i, (name, series) in enumerate(data.groupby(chart.series, sort=True)):
        color = SERIES[i % len(SERIES)]
        series = series.sort_values(chart.x)
        pts = " ".join(f"{px(float(a)):.1f},{py(float(b)):.1f}" for a, b in zip(series[chart.x], series[chart.y]))
        parts.append(f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>'
                     f'<text x="{left + w + 8}" y="{top + 14 + 14 * i}" fill="{color}">{_e(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(header, rows, classes=None) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        cls = f' class="{_e(classes[i])}"' if classes else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render(view: RunView) -> str:
    m = view.machine
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>swarbench "
           f"{_e(', '.join(view.run_ids))}</title><style>{CSS}</style></head><body>",
           f"<h1>swarbench run {_e(', '.join(view.run_ids))}</h1>"]
    out += [f"<p class='note'>Steadiness: {_e(line)}.</p>" for line in steadiness_lines(view)]
    for (kernel, workload, n), group in kernel_groups(view.frame):
        first = group.iloc[0]
        out.append(f"<h2>{_e(kernel)} <small>{_e(workload)}, n = {n:,} ({_e(first['unit'])})</small></h2>")
        out.append(bar_chart(group, view))
        out.append(_table(measurement_header(group), measurement_rows(group, view), classes=group["status"].tolist()))
    for (kernel, workload), group in scaling_series(view.frame):
        out.append(f"<h2>{_e(kernel)} <small>{_e(workload)}: ns/op against N (log-log)</small></h2>")
        table = group.assign(label=[view.label(r) for _, r in group.iterrows()])
        out.append(line_chart(table, LineChart(x="n", y="ns_per_op_median", series="label", logx=True, logy=True)))
    for section in view.sections:
        out.append(f"<h2>{_e(section.title)}</h2>")
        if section.chart is not None:
            out.append(line_chart(section.table, section.chart))
        out.append(_table(list(section.table.columns), section_cells(section.table)))
        out += [f"<p class='note'>{_e(n)}</p>" for n in section.notes]
    for rid, machine in (view.machines.items() if len(view.run_ids) > 1 else [("", m)]):
        out.append(_machine_table(rid, machine))
    out += [f"<p class='note'>{_e(n)}</p>" for n in view.notes]
    out.append("</body></html>")
    return "\n".join(out)


def _machine_table(run_id: str, m: dict) -> str:
    info = [["CPU", m.get("cpu", "")], ["cores", m.get("cores", "")], ["system", m.get("system", "")],
            ["Python", m.get("python", "")], ["compiler", m.get("compiler", "")],
            ["SIMD", " ".join(m.get("simd_flags", []))], ["git commit", m.get("git_commit", "")]]
    info += [["clock (for cycle estimates)", f"{m.get('clock_ghz', '')} GHz"],
             ["hardware counters", m.get("hardware_counters", "")]]
    info += [[name, version] for name, version in sorted(m.get("packages", {}).items())]
    return f"<h2>Machine{' of ' + _e(run_id) if run_id else ''}</h2>" + _table(["", ""], info)
