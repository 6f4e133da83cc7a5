"""Inline SVG charts for the HTML pages: dots with intervals and samples on a log time axis, changes on a
percentage axis, and series across commits. They place what they are given; every figure is computed before.

Hand-written SVG rather than a plotting library: the page must stay one file that opens offline and needs no
script, and matplotlib's SVG (the one well-kept choice) is tens of kilobytes a chart with its glyph paths.
"""

from __future__ import annotations

import html
import math
import numbers
from dataclasses import dataclass, field

from swarbench.render import fmt_time, time_unit

# Colour is the family; red is left for regressions and failures
FAMILY_COLORS = (
    ("python", "#8c564b"),
    ("numpy", "#1f77b4"),
    ("numba-cuda", "#bcbd22"),
    ("numba", "#2ca02c"),
    ("cffi-scalar", "#ff7f0e"),
    ("cffi-avx512", "#e377c2"),
    ("cffi-avx2", "#9467bd"),
    ("cffi-bmi2", "#17becf"),
    ("cffi-sse2", "#d4a017"),
)
SERIES = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")
WIDTH, LEFT, RIGHT = 1000, 210, 120  # viewBox width, label column, value column
SLOWER, FASTER, SAME = "#c62828", "#2e7d32", "#757575"


def family_key(family: str) -> tuple[str, str]:
    """The legend entry a family falls under (python-naive and python-swar are both "python") and its colour."""
    return next(((k, c) for k, c in FAMILY_COLORS if str(family).startswith(k)), (str(family), "#7f7f7f"))


def family_color(family: str) -> str:
    return family_key(family)[1]


def _e(x) -> str:
    return html.escape(str(x))


def time_label(ns: float) -> str:
    return fmt_time(ns).replace(" us", " µs")


def tick_label(ns: float) -> str:
    """A tick of a time axis: "10 ns", "2 µs" (no trailing zeros)."""
    scale, name = time_unit(ns)
    return f"{ns / scale:g} {name}".replace(" us", " µs")


def _nice(value: float, up: bool) -> float:
    """The next 1-2-5 value at or beyond ``value`` (upward or downward)."""
    d = 10 ** math.floor(math.log10(value))
    steps = [d * m for m in (0.5, 1, 2, 5, 10, 20)]
    return min(s for s in steps if s >= value) if up else max(s for s in steps if s <= value)


@dataclass
class LogAxis:
    """A log axis from lo to hi (both >0), widened to 1-2-5 values, placed over [x0, x1] pixels."""

    lo: float
    hi: float
    x0: float
    x1: float
    ticks: list[float] = field(default_factory=list)

    def __post_init__(self):
        self.lo, self.hi = _nice(self.lo / 1.05, up=False), _nice(self.hi * 1.05, up=True)
        if self.hi <= self.lo:
            self.hi = self.lo * 10
        decades = range(math.floor(math.log10(self.lo)), math.ceil(math.log10(self.hi)) + 1)
        multiples = (1,) if math.log10(self.hi / self.lo) > 2.5 else (1, 2, 5)
        self.ticks = [10**d * m for d in decades for m in multiples if self.lo <= 10**d * m <= self.hi * 1.0001]

    def __call__(self, v: float) -> float:
        v = min(max(v, self.lo), self.hi)
        return self.x0 + (self.x1 - self.x0) * math.log10(v / self.lo) / math.log10(self.hi / self.lo)


def _plottable(v) -> bool:
    """A value a log axis can place: a finite number above 0 (a hand-edited results file may hold others)."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v) and v > 0


def _svg(height: float, label: str, body: list[str]) -> str:
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'role="img" aria-label="{_e(label)}">' + "".join(body) + "</svg>"
    )


def legend(items: list[tuple[str, str]], y: float, extra: str = "") -> str:
    """Swatches in one row from the plot's left edge, (name, colour) each, and a glyph key at the right."""
    out, x = [], LEFT
    for name, color in items:
        out.append(
            f'<circle cx="{x + 5}" cy="{y - 4}" r="5" fill="{color}"/><text x="{x + 14}" y="{y}">{_e(name)}</text>'
        )
        x += 28 + 7 * len(name)
    if extra:
        out.append(f'<text x="{WIDTH - 4}" y="{y}" text-anchor="end" class="muted">{_e(extra)}</text>')
    return "".join(out)


@dataclass
class DotRow:
    label: str
    color: str
    median: float
    low: float
    high: float
    samples: list[float] = field(default_factory=list)
    note: str = ""  # after the value: a mark, a change


def dot_chart(rows: list[DotRow], axis_title: str, families: list[tuple[str, str]]) -> str:
    """Per row: its samples as faint dots, its 95% interval as a bar, its median as a large dot, on a log axis of
    time per op with the unit in each tick label."""
    if not rows:
        return ""
    values = [v for r in rows for v in (r.median, r.low, r.high, *r.samples) if _plottable(v)]
    if not values:
        return ""
    axis = LogAxis(min(values), max(values), LEFT, WIDTH - RIGHT)
    rows = [r for r in rows if _plottable(r.median)]
    top, step = 48, 24
    bottom = top + step * len(rows)
    body = [legend(families, 14), legend([], 34, "● median    ━ 95% interval    · each sample (faint)")]
    for t in axis.ticks:
        body.append(
            f'<line x1="{axis(t):.1f}" y1="{top - 4}" x2="{axis(t):.1f}" y2="{bottom}" class="grid"/>'
            f'<text x="{axis(t):.1f}" y="{bottom + 15}" text-anchor="middle">{tick_label(t)}</text>'
        )
    body.append(
        f'<text x="{(LEFT + WIDTH - RIGHT) / 2}" y="{bottom + 34}" text-anchor="middle">{_e(axis_title)}</text>'
    )
    for i, r in enumerate(rows):
        y = top + step * i + step / 2
        if i % 2:
            body.append(f'<rect x="0" y="{y - step / 2}" width="{WIDTH}" height="{step}" class="band"/>')
        body.append(f'<text x="{LEFT - 8}" y="{y + 4}" text-anchor="end">{_e(r.label)}</text>')
        for j, s in enumerate(x for x in r.samples if _plottable(x)):  # spread by a fixed pattern: equal values apart
            dy = ((j * 0.618034) % 1 - 0.5) * (step - 8)
            body.append(f'<circle cx="{axis(s):.1f}" cy="{y + dy:.1f}" r="1.8" fill="{r.color}" fill-opacity=".35"/>')
        if _plottable(r.low) and _plottable(r.high):
            body.append(
                f'<line x1="{axis(r.low):.1f}" y1="{y}" x2="{axis(r.high):.1f}" y2="{y}" '
                f'stroke="#222" stroke-width="3"/>'
            )
        body.append(
            f'<circle cx="{axis(r.median):.1f}" cy="{y}" r="5" fill="{r.color}" stroke="#222">'
            f"<title>{_e(r.label)}: {time_label(r.median)}</title></circle>"
            f'<text x="{WIDTH - RIGHT + 8}" y="{y + 4}">{time_label(r.median)}{_e(r.note)}</text>'
        )
    return _svg(bottom + 42, axis_title, body)


@dataclass
class ChangeRow:
    label: str
    change: float  # -0.1 is 10% faster
    low: float
    high: float
    verdict: str  # "slower", "faster" or "same"


RATIO_TICKS = (1.01, 1.02, 1.05, 1.1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100)


def change_chart(rows: list[ChangeRow], title: str = "change of the median, with its 95% interval (log scale)") -> str:
    """Each row's change on a log axis of the ratio B/A around no change (so "twice as slow" and "twice as
    fast" lie equally far out), coloured by its verdict; ticks read as percentages."""
    if not rows:
        return ""
    logs = [abs(math.log1p(v)) for r in rows for v in (r.change, r.low, r.high) if v == v and v > -1]
    ext = max(logs + [math.log(1.01)]) * 1.05
    outer = max([t for t in RATIO_TICKS if math.log(t) <= ext] or [1.01])
    inner = max([t for t in RATIO_TICKS if math.log(t) <= math.log(outer) / 1.8] or [outer])
    ticks = sorted({1.0, outer, 1 / outer, inner, 1 / inner})
    left = min(max(LEFT, 12 + 7 * max(len(r.label) for r in rows)), 430)
    x0, x1 = left, WIDTH - RIGHT

    def x(v):  # v: a change (-0.5 is half the time)
        lg = max(min(math.log1p(v) if v > -1 else -ext, ext), -ext)
        return x0 + (x1 - x0) * (lg + ext) / (2 * ext)

    top, step = 30, 22
    bottom = top + step * len(rows)
    color = {"slower": SLOWER, "faster": FASTER}
    body = [legend([("slower", SLOWER), ("faster", FASTER), ("no clear change", SAME)], 14)]
    for t in ticks:
        pct = (t - 1) * 100
        body.append(
            f'<line x1="{x(t - 1):.1f}" y1="{top - 4}" x2="{x(t - 1):.1f}" y2="{bottom}" '
            f'class="{"zero" if t == 1 else "grid"}"/>'
            f'<text x="{x(t - 1):.1f}" y="{bottom + 15}" text-anchor="middle">{pct:+.{0 if abs(pct) >= 10 or pct == 0 else 1}f}%</text>'
        )
    body.append(f'<text x="{(x0 + x1) / 2}" y="{bottom + 34}" text-anchor="middle">{_e(title)}</text>')
    for i, r in enumerate(rows):
        y = top + step * i + step / 2
        c = color.get(r.verdict, SAME)
        body.append(f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{_e(r.label)}</text>')
        if r.low == r.low and r.high == r.high:
            body.append(
                f'<line x1="{x(r.low):.1f}" y1="{y}" x2="{x(r.high):.1f}" y2="{y}" stroke="{c}" stroke-width="3"/>'
            )
        if r.change == r.change:
            body.append(
                f'<circle cx="{x(r.change):.1f}" cy="{y}" r="5" fill="{c}"/>'
                f'<text x="{WIDTH - RIGHT + 8}" y="{y + 4}">{r.change * 100:+.1f}% {_e(r.verdict)}</text>'
            )
    return _svg(bottom + 42, title, body)


@dataclass
class Series:
    label: str
    points: list[tuple[int, float, float, float, bool]]  # (x slot, median, low, high, regression there)


def series_chart(slots: list[str], series: list[Series], axis_title: str) -> str:
    """Medians with intervals across ``slots`` (commits, left to right), one line per series, on a log axis;
    a regression is a red ring."""
    values = [v for s in series for _, *vals, _ in s.points for v in vals if _plottable(v)]
    if not values or not slots:
        return ""
    series = [Series(s.label, [p for p in s.points if _plottable(p[1])]) for s in series]
    left, right, top = 80, 220, 10
    height = 260
    axis = LogAxis(min(values), max(values), top + height, top)  # upward
    span = WIDTH - left - right

    def x(slot):
        return left + span * ((slot + 0.5) / len(slots))

    body = [f'<rect x="{left}" y="{top}" width="{span}" height="{height}" class="frame"/>']
    for t in axis.ticks:
        body.append(
            f'<line x1="{left}" y1="{axis(t):.1f}" x2="{left + span}" y2="{axis(t):.1f}" class="grid"/>'
            f'<text x="{left - 6}" y="{axis(t) + 4:.1f}" text-anchor="end">{tick_label(t)}</text>'
        )
    for slot, name in enumerate(slots):
        body.append(f'<text x="{x(slot):.1f}" y="{top + height + 16}" text-anchor="middle">{_e(name)}</text>')
    body.append(f'<text x="{left + span / 2}" y="{top + height + 36}" text-anchor="middle">{_e(axis_title)}</text>')
    for i, s in enumerate(series):
        color = SERIES[i % len(SERIES)]
        pts = sorted(s.points)
        if len(pts) > 1:
            body.append(
                '<polyline fill="none" stroke-width="1.5" stroke="{}" points="{}"/>'.format(
                    color, " ".join(f"{x(p[0]):.1f},{axis(p[1]):.1f}" for p in pts)
                )
            )
        for slot, med, low, high, regressed in pts:
            if _plottable(low) and _plottable(high):
                body.append(
                    f'<line x1="{x(slot):.1f}" x2="{x(slot):.1f}" y1="{axis(low):.1f}" '
                    f'y2="{axis(high):.1f}" stroke="{color}" stroke-width="2"/>'
                )
            body.append(
                f'<circle cx="{x(slot):.1f}" cy="{axis(med):.1f}" r="4" fill="{color}">'
                f"<title>{_e(s.label)}: {time_label(med)}</title></circle>"
            )
            if regressed:
                body.append(
                    f'<circle cx="{x(slot):.1f}" cy="{axis(med):.1f}" r="8" fill="none" '
                    f'stroke="{SLOWER}" stroke-width="2"/>'
                )
        body.append(
            f'<circle cx="{left + span + 16}" cy="{top + 10 + 16 * i}" r="5" fill="{color}"/>'
            f'<text x="{left + span + 26}" y="{top + 14 + 16 * i}">{_e(s.label)}</text>'
        )
    return _svg(max(top + height + 44, top + 20 + 16 * len(series)), axis_title, body)
