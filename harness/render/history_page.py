"""The page `swarbench history` writes: per machine, per kernel, a chart of each implementation's median across
commits with its interval, and a table with the change `compare` found from the commit before (slower ones in
red). It lays out swarbench.history's model; nothing is computed here."""

from __future__ import annotations

from swarbench.render import fmt_time, fmt_time_interval, size_text, time_unit
from swarbench.render.html_page import CSS, _e
from swarbench.render.svg import Series, series_chart
from swarbench.render.tables import fmt_change, verdict


def _cell(point) -> str:
    if point is None:
        return "<td class=n>-</td>"
    unit = time_unit(point.median)
    text = f"{fmt_time(point.median, unit)} {fmt_time_interval(point.low, point.high, unit)}".strip()
    v = verdict(point.change)
    mark = ""
    if point.change is not None:
        mark = f"<br><span class='{'bad' if v == 'slower' else 'muted'}'>{_e(fmt_change(point.change))} {v}</span>"
    return f"<td class=n>{_e(text.replace(' us', ' µs'))}{mark}</td>"


def render(machines, generated: str, follow: str | None = None, left_out: str = "") -> str:
    title = f"swarbench history of {follow}" if follow else "swarbench history"
    out = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>"
        f"<style>{CSS}</style></head><body><h1>{_e(title)}</h1>",
        (
            f"<p class='meta'>Commits are those of plugin <code>{_e(follow)}</code>'s repository; only its rows are "
            "shown, from the runs that measured it.</p>"
            if follow
            else ""
        ),
        f"<p class='meta'>written {_e(generated)} · {sum(sum(m.runs) for m in machines)} runs on "
        f"{len(machines)} machine(s). Each commit shows its latest run (runs per commit under its name); a change "
        "is the one <code>swarbench compare</code> finds from the commit before, <span class='bad'>slower</span> "
        "where it is clear. A red ring in a chart marks a slower point.</p>",
    ]
    if left_out:
        out.append(f"<p class='bad'>{_e(left_out)}</p>")
    toc = []
    for i, m in enumerate(machines):
        toc.append(f"<li><a href='#m{i}'>{_e(m.machine)}</a></li>")
    out.append("<nav><ol>" + "".join(toc) + "</ol></nav>")
    for i, m in enumerate(machines):
        out.append(f"<section id='m{i}'><h2>{_e(m.machine)}</h2>")
        kernels: dict = {}
        for line in m.lines:
            kernels.setdefault((line.kernel, line.workload, line.n), []).append(line)
        for (kernel, workload, n), lines in kernels.items():
            out.append(f"<h3>{_e(kernel)} <small>{_e(workload)}, n = {size_text(n)}</small></h3>")
            series = [
                Series(
                    line.implementation,
                    [(p.slot, p.median, p.low, p.high, verdict(p.change) == "slower") for p in line.points],
                )
                for line in lines
            ]
            out.append(series_chart(m.commits, series, "time per op (log scale) by commit, oldest left"))
            head = "".join(
                f"<th class=n>{_e(c)}<br><small>{r} run{'s' if r != 1 else ''}</small></th>"
                for c, r in zip(m.commits, m.runs)
            )
            body = []
            for line in lines:
                by_slot = {p.slot: p for p in line.points}
                body.append(
                    f"<tr><td>{_e(line.implementation)}</td>"
                    + "".join(_cell(by_slot.get(s)) for s in range(len(m.commits)))
                    + "</tr>"
                )
            out.append(
                f"<table><thead><tr><th>implementation</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
            )
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
