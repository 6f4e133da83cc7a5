"""One self-contained HTML file that leads with the answer: a header, the scoreboard, the caveats once, contents,
then per kernel a chart of medians, intervals and samples, a compact table, and the rest behind a details element.

No scripts, fonts or stylesheets are fetched: the charts are inline SVG, so the file opens offline. Everything
shown was computed before (swarbench.results, swarbench.render.summary); this module lays it out.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

from swarbench.explain.listing import lines as listing_lines
from swarbench.model import LineChart
from swarbench.render import RunView, column_title, scaling_series, size_text, steadiness_lines
from swarbench.render import tables
from swarbench.render.summary import Summary, change_of, samples_of, strip_points, summarize
from swarbench.render.svg import DotRow, dot_chart, family_color, family_key
from swarbench.runfolder import MeasurementKey, Status

SERIES = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
SECTION_COLUMNS = 9  # a suite table wider than this is split, so that no table scrolls sideways at 1280 px
CSS = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;padding:1rem 1.5rem 3rem;color:#222;
max-width:1200px;line-height:1.4}
h1{font-size:1.5rem;margin:.5rem 0 .2rem} h2{border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
h2 small{font-weight:normal;color:#555;font-size:.95rem}
.meta{color:#444;font-size:.9rem;margin:.2rem 0 1rem;overflow-wrap:anywhere} .meta code{font-size:.85rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.88rem;max-width:100%}
td,th{border-bottom:1px solid #e2e2e2;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{border-bottom:2px solid #999;font-weight:600;background:#fafafa}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.w{overflow-wrap:anywhere;min-width:12rem}
table.score td:nth-child(3){font-weight:600}
tr.bad td{background:#fdecea;color:#8a1c1c} .bad{color:#b71c1c;font-weight:600}
.note,.muted{color:#555;font-size:.9rem} ul.plain{padding-left:1.2rem;margin:.3rem 0}
nav ol{columns:3;font-size:.9rem;margin:.3rem 0 1rem} .caveats{background:#f6f8fa;padding:.5rem .9rem;border-radius:4px}
svg.chart{width:100%;height:auto;display:block;margin:.5rem 0} svg text{font-size:12px;font-family:inherit;fill:#222}
svg .grid{stroke:#e4e4e4} svg .zero{stroke:#444} svg .band{fill:#f7f7f7} svg .frame{fill:none;stroke:#ccc}
svg text.muted{fill:#666}
details{margin:.3rem 0 1rem} summary{cursor:pointer;color:#1f5fa8}
details.asm{margin:.1rem 0} details.asm pre{font-size:.8rem;background:#f6f8fa;padding:.5rem;overflow-x:auto}
details.asm mark{background:#fff3b0}
"""


def _e(x) -> str:
    return html.escape(str(x))


def _table(header, rows, numeric=None, classes=None, css="") -> str:
    numeric = numeric or [False] * len(header)
    head = "".join(f"<th{' class=n' if numeric[i] else ''}>{_e(h)}</th>" for i, h in enumerate(header))
    body = []
    for j, row in enumerate(rows):
        cls = f' class="{_e(classes[j])}"' if classes and classes[j] else ""
        body.append(
            f"<tr{cls}>"
            + "".join(f"<td{' class=n' if numeric[i] else ''}>{_e(c)}</td>" for i, c in enumerate(row))
            + "</tr>"
        )
    return (
        f"<table{f' class={css}' if css else ''}><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def _header(s: Summary, view: RunView) -> list[str]:
    h = s.header
    when = " · ".join(_e(p) for p in (h["date"], f"took {h['duration']}" if h["duration"] else "") if p)
    if h["commit"]:
        when += f"{' · ' if when else ''}commit <code>{_e(h['commit'])}</code>"
    out = [
        f"<h1>{_e(h['title'])}</h1>",
        "<p class='meta'>"
        + "<br>".join(
            x
            for x in (
                when,
                f"<code>{_e(h['command'])}</code>" if h["command"] else "",
                f"{_e(h['machine'])} (<a href='#machine'>details</a>)",
                f"plugins: {_e(', '.join(h['plugins']))}" if h["plugins"] else "",
            )
            if x
        )
        + "</p>",
    ]
    out += [f"<p class='bad'>{_e(n)}</p>" for n in view.notes]
    return out


def _scoreboard(s: Summary, view: RunView) -> list[str]:
    header, rows = tables.scoreboard(s)
    body = []
    for b, row in zip(s.boards, rows):
        cells = (
            [f"<td><a href='#{_e(b.anchor)}'>{_e(row[0])}</a></td>", f"<td>{_e(row[1])}</td>", f"<td>{_e(row[2])}</td>"]
            + [f"<td class=n>{_e(c)}</td>" for c in row[3:6]]
            + [f"<td>{_e(row[6])}</td>"]
        )
        if b.failed:
            cells[-1] = cells[-1][:-5] + f" <span class='bad'>{_e('; '.join(b.failure_lines()))}</span></td>"
        cells.append(f"<td>{_e(row[7])}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    head = "".join(f"<th{' class=n' if 3 <= i <= 5 else ''}>{_e(c)}</th>" for i, c in enumerate(header))
    return [
        "<h2 id='scoreboard'>Scoreboard</h2>",
        "<p class='note'>Each kernel's fastest implementation that gave the right answers; speedups are ratios "
        "of medians; the interval holds the true median with 95% confidence; its limit: how close it came to "
        "the slower of its two limits, the core's (llvm-mca on the loop it ran) and the memory's.</p>",
        f"<table class='score'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>",
    ]


def _caveats(s: Summary, view: RunView) -> list[str]:
    items = [
        f"<li><b>{_e(mark)}</b>: {_e(words)} ({count} measurement{'s' if count != 1 else ''})</li>"
        for mark, words, count in s.caveats
    ]
    items += [f"<li>{_e(line)}</li>" for line in steadiness_lines(view)]
    if not items:
        return []
    return [
        "<div class='caveats'><b>Caveats</b> (marks in the tables)<ul class='plain'>" + "".join(items) + "</ul></div>"
    ]


def _contents(s: Summary, view: RunView) -> list[str]:
    items = [
        f"<li><a href='#{_e(tag)}'>{_e(k)} <small>{_e(w)}, n={size_text(n)}</small></a></li>"
        for (k, w, n), tag, _ in s.groups
    ]
    items += [
        f"<li><a href='#scaling-{i}'>{_e(k)}: scaling</a></li>"
        for i, ((k, w), _) in enumerate(scaling_series(view.frame))
    ]
    items += [f"<li><a href='#section-{i}'>{_e(sec.title)}</a></li>" for i, sec in enumerate(view.sections)]
    items.append("<li><a href='#machine'>Machine</a></li>")
    return ["<nav><b>Contents</b><ol>" + "".join(items) + "</ol></nav>"]


def _kernel(key, tag, group, s: Summary, view: RunView) -> list[str]:
    kernel, workload, n = key
    first = group.iloc[0]
    passed = group[group["status"] == Status.PASS]
    dots = [
        DotRow(
            view.label(r),
            family_color(r["family"]),
            float(r["ns_per_op_median"]),
            float(r["ns_per_op_ci_low"]),
            float(r["ns_per_op_ci_high"]),
            [float(x) for x in strip_points(samples_of(view, r))],
            _chart_note(s.marks.get(i, ""), change_of(view, r)),
        )
        for i, r in passed.iterrows()
    ]
    families = sorted({family_key(f) for f in passed["family"]})
    title = "time per op, log scale" + ("" if kernel == "swarbench.overhead" else f" (one op = one {first['unit']})")
    header, rows, statuses = tables.compact(group, view, s)
    numeric = [False, False, True, True, True, True, False, True][: len(header)]
    out = [
        f"<section id='{_e(tag)}'><h2>{_e(kernel)} <small>{_e(workload)}, n = {size_text(n)}; one op = one "
        f"{_e(first['unit'])}</small></h2>",
        dot_chart(dots, title, families),
    ]
    if rows:
        out.append(_table(header, rows, numeric, ["bad" if st != Status.PASS else "" for st in statuses]))
    out += [f"<p class='note'>{_e(line)}</p>" for line in tables.not_timed_lines(group, view)]
    out += _limits(group, view)
    d_header, d_rows = tables.details(group, view)
    if d_rows:
        out.append(
            f"<details><summary>all columns</summary>"
            f"{_table(d_header, d_rows, [False] + [True] * 7 + [False])}</details>"
        )
    out.append("</section>")
    return out


def _limits(group, view: RunView) -> list[str]:
    """The C and Numba rows against their limits, and under it each row's timed code, folded."""
    header, rows, notes = tables.limits(group, view)
    if not rows:
        return []
    out = [
        f"<p class='note'>{_e(tables.limits_model(group))}.</p>",
        _table(header, rows, [False, True, True, False, True, True, False, True], css="limits"),
    ]
    out += [f"<p class='note'>{_e(note)}</p>" for note in notes]
    for _, r in tables.explained_rows(group):
        explain = view.code.get((r["run_id"], *MeasurementKey.of(r)))
        if not explain:
            continue
        loop = explain.get("loop") or {}
        summary = f"timed code of {view.label(r)}: {explain.get('function', '?')}" + (
            f", hot loop of {loop['instructions']} instructions" if loop else ""
        )
        out.append(
            f"<details class='asm'><summary>{_e(summary)}</summary><pre>"
            + "\n".join(_asm_line(line) for line in listing_lines(explain, r.to_dict()))
            + "</pre></details>"
        )
    return out


def _asm_line(line: str) -> str:
    """A listing line, the hot loop's (marked ">") highlighted."""
    return f"<mark>{_e(line)}</mark>" if line.startswith(">") else _e(line)


def _chart_note(marks: str, change) -> str:
    note = f"  {marks}" if marks else ""
    if change:
        note += f"  {tables.fmt_change(change)}"
    return note


def line_chart(table, chart) -> str:
    """One polyline per series value of the section's table (y against x), optionally log-scaled."""
    data = table[[chart.x, chart.y, chart.series]].dropna()
    for col, log in ((chart.x, chart.logx), (chart.y, chart.logy)):  # what each axis can place, finite and all
        values = pd.to_numeric(data[col], errors="coerce")
        data = data[np.isfinite(values) & ((values > 0) | (not log))]
    if data.empty:
        return ""
    tx = (lambda v: math.log10(v)) if chart.logx else float
    ty = (lambda v: math.log10(v)) if chart.logy else float
    xs, ys = data[chart.x].astype(float).map(tx), data[chart.y].astype(float).map(ty)
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    left, top, w, h = 70, 10, 640, 300

    def px(v):
        return left + w * (tx(v) - x0) / (x1 - x0)

    def py(v):
        return top + h - h * (ty(v) - y0) / (y1 - y0)

    parts = [
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1000 {top + h + 44}">',
        f'<rect x="{left}" y="{top}" width="{w}" height="{h}" class="frame"/>',
    ]
    for frac in (0, 0.5, 1):
        yv, xv = y0 + frac * (y1 - y0), x0 + frac * (x1 - x0)
        ylab = 10**yv if chart.logy else yv
        xlab = 10**xv if chart.logx else xv
        parts.append(
            f'<text x="{left - 4}" y="{top + h - frac * h + 4:.1f}" text-anchor="end">{ylab:,.3g}</text>'
            f'<text x="{left + frac * w:.1f}" y="{top + h + 16}" text-anchor="middle">{xlab:,.3g}</text>'
        )
    scale = lambda log: " (log scale)" if log else ""  # noqa: E731
    parts.append(
        f'<text x="{left + w / 2}" y="{top + h + 36}" text-anchor="middle">'
        f"{_e(column_title(chart.x))}{scale(chart.logx)}</text>"
        f'<text x="14" y="{top + h / 2}" transform="rotate(-90 14 {top + h / 2})" '
        f'text-anchor="middle">{_e(column_title(chart.y))}{scale(chart.logy)}</text>'
    )
    for i, (name, series) in enumerate(data.groupby(chart.series, sort=True)):
        color = SERIES[i % len(SERIES)]
        series = series.sort_values(chart.x)
        pts = " ".join(f"{px(float(a)):.1f},{py(float(b)):.1f}" for a, b in zip(series[chart.x], series[chart.y]))
        parts.append(
            f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="1.5"/>'
            f'<text x="{left + w + 12}" y="{top + 14 + 15 * i}" fill="{color}">{_e(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _section(i, section) -> list[str]:
    out = [f"<section id='section-{i}'><h2>{_e(section.title)}</h2>"]
    if section.chart is not None:
        out.append(line_chart(section.table, section.chart))
    for header, rows, numeric in tables.section_chunks(section.table, SECTION_COLUMNS):
        out.append(_table(header, rows, numeric))
    out += [f"<p class='note'>{_e(n)}</p>" for n in section.notes]
    return out + ["</section>"]


def render(view: RunView) -> str:
    s = summarize(view)
    out = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<meta name='viewport' content='width=device-width'><title>{_e(s.header['title'])}</title>"
        f"<style>{CSS}</style></head><body>"
    ]
    out += _header(s, view) + _scoreboard(s, view) + _caveats(s, view) + _contents(s, view)
    for key, tag, group in s.groups:
        out += _kernel(key, tag, group, s, view)
    for i, ((kernel, workload), group) in enumerate(scaling_series(view.frame)):
        out.append(
            f"<section id='scaling-{i}'><h2>{_e(kernel)} <small>{_e(workload)}: ns/op against N (log-log)</small></h2>"
        )
        table = group.assign(implementation=[view.label(r) for _, r in group.iterrows()])
        out.append(
            line_chart(table, LineChart(x="n", y="ns_per_op_median", series="implementation", logx=True, logy=True))
            + "</section>"
        )
    for i, section in enumerate(view.sections):
        out += _section(i, section)
    if len(view.run_ids) > 1:
        out.append("<div id='machine'></div>")
        out += [_machine_table(rid, machine) for rid, machine in view.machines.items()]
    else:
        out.append(_machine_table("", view.machine))
    out.append("</body></html>")
    return "\n".join(out)


def _machine_table(run_id: str, m: dict) -> str:
    info = [
        ["CPU", m.get("cpu", "")],
        ["cores", m.get("cores", "")],
        ["system", m.get("system", "")],
        ["Python", m.get("python", "")],
        ["compiler", m.get("compiler", "")],
        ["SIMD", " ".join(m.get("simd_flags", []))],
        ["git commit", m.get("git_commit", "")],
        ["clock (for cycle estimates)", f"{m.get('clock_ghz', '')} GHz"],
        ["hardware counters", m.get("hardware_counters", "")],
    ]
    info += [[name, version] for name, version in sorted(m.get("packages", {}).items())]
    title = f"<h2>Machine of {_e(run_id)}</h2>" if run_id else "<h2 id='machine'>Machine</h2>"
    return title + _table(["", ""], info)
