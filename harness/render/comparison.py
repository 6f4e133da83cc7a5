"""`swarbench compare` output: benchstat-style rows per compared run, and the geometric mean."""

from __future__ import annotations

import math

from swarbench.run_comparison import GATE_PROCESSES
from swarbench.render import fmt_ns
from swarbench.render.markdown import markdown_text, table


def _pct(x: float) -> str:
    return "?" if x != x else f"{x * 100:+.1f}%"


def _label(r) -> str:
    return f"{r['kernel']}/{r['implementation']} {r['workload']}/n={r['n']}"


def _rows(group):
    for _, r in group.iterrows():
        name = _label(r)
        a, b = (f"{fmt_ns(r[f'median_{s}'])} {_plus_minus(r[f'ci_{s}'])}" for s in "ab")
        if r["significant"]:
            change = f"{_pct(r['change'])} [{_pct(r['change_ci_low'])} .. {_pct(r['change_ci_high'])}]"
        else:
            change = "~"
        yield name, a, b, change, f"p={r['p_value']:.3f} n={r['samples_a']}+{r['samples_b']}"


def _plus_minus(half: float) -> str:
    """A median's interval as its half-width; "±?" for a row with too few passes to have one."""
    return "±?" if math.isnan(half) else f"±{half * 100:.1f}%"


def render_text(frame, geomeans: dict, verdict=None) -> str:
    """compare's text; with ``verdict`` (run_comparison.gate), the gate's findings below the rows."""
    out = []
    for run_b, group in frame.groupby("run_b", sort=False):
        first = group.iloc[0]
        out.append(f"{first['run_a']} ({first['machine_a']})  vs  {run_b} ({first['machine_b']})")
        out += _steadiness_lines(first)
        relative = bool(group["relative"].any())
        rows = [("measurement", "A ns/op", "B ns/op", "change [95% CI]" + (" vs drift" if relative else ""), "")]
        rows += list(_rows(group))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        out += [
            "  ".join(c.ljust(w) if i in (0, 3) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows
        ]
        out.append(f"{'geomean'.ljust(widths[0])}  {'':>{widths[1]}}  {'':>{widths[2]}}  {_pct(geomeans[run_b])}")
        if relative:
            out += _drift_lines(group)
        out.append("")
    out.append(
        "~: no significant change (Mann-Whitney U p >= 0.05, or the interval of the ratio of medians includes 1)"
    )
    if verdict is not None:
        out += _gate_lines(verdict)
    return "\n".join(out) + "\n"


def _gate_lines(verdict) -> list[str]:
    out = []
    if len(verdict.regressions):
        out += ["", "regressions beyond the threshold (whole interval):"]
        out += [
            f"  {r.kernel}/{r.implementation} {r.workload}/n={r.n}: {_pct(r.change)} "
            f"[{_pct(r.change_ci_low)} .. {_pct(r.change_ci_high)}]{_few_processes(r)}"
            for r in verdict.regressions.itertuples()
        ]
    if verdict.runs_moved:
        return out + ["", moved_summary(verdict.runs_moved, verdict.threshold_pct, len(verdict.regressions))]
    if verdict.workloads_moved:
        out += ["", f"cannot resolve {verdict.threshold_pct:g}% here: {_moved_parts(verdict)[0]}"]
    if len(verdict.unresolved):
        out += [""] + unresolved_lines(verdict.unresolved, verdict.threshold_pct)
    return out


def gate_summary(verdict) -> str:
    """The gate's one line where it could not tell (exit 3): a run that moved as a whole, else the workloads that
    did and the rows it could not resolve."""
    if verdict.runs_moved:
        return moved_summary(verdict.runs_moved, verdict.threshold_pct, len(verdict.regressions))
    parts = _moved_parts(verdict) + _unresolved_parts(verdict.unresolved)
    return f"cannot resolve {verdict.threshold_pct:g}% here: {'; '.join(parts)}"


def moved_summary(moved: dict, threshold: float, beyond: int) -> str:
    """The gate's line for runs whose every row moved together (run_comparison.whole_run_moved)."""
    runs = ", ".join(f"{run} {_pct(change)}" for run, change in moved.items())
    told = f"{beyond} row{'s' * (beyond != 1)} beyond {threshold:g}%, but " if beyond else ""
    return (
        f"cannot resolve {threshold:g}% here: {told}every row moved together between the runs (median change "
        f"{runs}): the machine itself, or a change to every row; --relative (the default) takes each row "
        "against the others of its workload"
    )


def _moved_parts(verdict) -> list[str]:
    """What the gate says of workloads whose implementations moved together (run_comparison.workloads_moved),
    and of the rows beyond the threshold in them, which it did not gate."""
    moved = verdict.workloads_moved
    if not moved:
        return []
    named = ", ".join(f"{kernel} {workload}/n={n} {_pct(drift)}" for (_, kernel, workload, n), drift in moved.items())
    count, aside = len(moved), verdict.set_aside
    rows = ", ".join(f"{r.kernel}/{r.implementation} {_pct(r.change)}" for r in aside.itertuples())
    beyond = f"; not gated in them: {rows}" if len(aside) else ""
    return [
        f"{count} workload{'s' * (count != 1)} moved as a whole, every implementation alike ({named}): the "
        f"machine, or a change to all of them, which changes against the drift cannot show (--absolute shows "
        f"each row's own){beyond}"
    ]


def _unresolved_parts(unresolved) -> list[str]:
    why = unresolved["cannot_resolve"]
    half = ((unresolved["change_ci_high"] - unresolved["change_ci_low"]) / 2)[why == "interval"]
    parts = []
    if len(half):
        wide = (
            f"+-{half.min() * 100:.0f}%"
            if len(half) == 1 or round(half.min() * 100) == round(half.max() * 100)
            else f"+-{half.min() * 100:.0f}% to +-{half.max() * 100:.0f}%"
        )
        parts.append(f"intervals {wide} on {len(half)} row{'s' * (len(half) != 1)}")
    none, split = int((why == "no interval").sum()), int((why == "two speeds").sum())
    if none:
        parts.append(f"no interval on {none} row{'s' * (none != 1)} (timed in fewer than 5 passes)")
    if split:
        parts.append(f"passes at two speeds on {split} row{'s' * (split != 1)}")
    busy = int((why == "threads").sum())
    if busy:
        parts.append(
            f"threads on {busy} row{'s' * (busy != 1)} measured by fewer than {GATE_PROCESSES} processes a side"
        )
    return parts


def unresolved_summary(unresolved, threshold: float) -> str:
    """One line: the threshold the gate could not resolve, how wide the intervals were, and on how many rows."""
    return f"cannot resolve {threshold:g}% here: {'; '.join(_unresolved_parts(unresolved))}"


def unresolved_lines(unresolved, threshold: float) -> list[str]:
    """The gate's rows that cannot tell a change of ``threshold`` percent from none, each with its interval."""
    out = [unresolved_summary(unresolved, threshold) + ":"]
    for r in unresolved.itertuples():
        half = (r.change_ci_high - r.change_ci_low) / 2
        said = f"no interval ({min(r.units_a, r.units_b)} passes)" if math.isnan(half) else f"+-{half * 100:.0f}%"
        runs = " and ".join(side for side in ("A", "B") if getattr(r, f"two_speeds_{side.lower()}", False))
        if runs:
            lead = f"{_pct(r.change)} " if r.cannot_resolve == "two speeds" else ""
            said = f"{lead}{said}, passes at two speeds in {runs}"
        elif r.cannot_resolve == "threads":
            cpus = max(c for c in (r.cpus_a, r.cpus_b) if c == c)
            said = (
                f"{_pct(r.change)} {said}, on {cpus:.1f} CPUs ({r.processes_a:g}+{r.processes_b:g} processes: a "
                "host that slows one CPU through a whole run moves a row that runs threads alone)"
            )
        out.append(f"  {r.kernel}/{r.implementation} {r.workload}/n={r.n}: {said}")
    return out


def _few_processes(r) -> str:
    """A note on a gated row measured by fewer processes a side than compare.GATE_PROCESSES."""
    a, b = getattr(r, "processes_a", None), getattr(r, "processes_b", None)
    if a is None or b is None or min(a, b) >= GATE_PROCESSES:
        return ""
    return (
        f" ({a:g}+{b:g} processes: a slow spell of the machine through one whole run can look like this; "
        f"gate on runs of -p {GATE_PROCESSES} or more)"
    )


def _steadiness_lines(r) -> list[str]:
    """The two runs' machines: the canary's median (swarbench.bench.canary), the share of each run its passes
    ran slowed, and other programs' CPUs where the runs' load lines have them."""
    a, b = r["canary_us_a"], r["canary_us_b"]
    if a != a or b != b:
        return []

    def others(side: str) -> str:
        cpus = r.get(f"others_cpus_{side}", math.nan)
        return "" if math.isnan(cpus) else f", other programs {cpus:.1f} CPUs"

    line = (
        f"machine (canary): A {a:.0f} us, slowed during {r['slowed_share_a']:.0%} of the run{others('a')}; "
        f"B {b:.0f} us ({_pct(r['canary_change'])}), slowed during {r['slowed_share_b']:.0%}{others('b')}"
    )
    if r["machine_changed"]:
        divided = (
            "the changes below are against their workloads' drift, which divides out what moved a whole workload"
            if r["relative"]
            else "without --absolute, compare divides out what moved a whole workload"
        )
        return [
            line,
            f"  the machine itself was not the same in both runs: changes of that size may be its own ({divided})",
        ]
    return [line]


def _drift_lines(group) -> list[str]:
    """What was divided out: each workload's drift (its implementations' change at their densest), and the rows
    that had no other implementation to take it from."""
    lines = [
        "changes vs drift: each row's change divided by the change of the other implementations of its "
        "workload, the median of their densest half (geomean above: absolute)"
    ]
    for (kernel, workload, n), g in group.groupby(["kernel", "workload", "n"], sort=False):
        drift = float(g["workload_drift"].iloc[0])
        alone = " (one implementation: absolute)" if g["drift"].isna().all() else ""
        lines.append(f"  drift {kernel} {workload}/n={n}: {_pct(drift)}{alone}")
    return lines


def render_md(frame, geomeans: dict, regressions=None) -> str:
    out = []
    for run_b, group in frame.groupby("run_b", sort=False):
        out += [f"## {markdown_text(group.iloc[0]['run_a'])} vs {markdown_text(run_b)}", ""]
        out += table(
            ["measurement", "A ns/op", "B ns/op", "change [95% CI]", "test", "verdict"],
            [list(r) + [_verdict(g)] for r, (_, g) in zip(_rows(group), group.iterrows())],
            [False, True, True, True, False, False],
        )
        out += [
            "",
            f"geomean change: {_pct(geomeans[run_b])}",
            "",
            "Change of each median with its 95% interval (S slower, F faster, o no clear change):",
            "",
            "```",
        ]
        # the names as every markdown text from a run is written (entities, no backticks or line breaks): a
        # name holding a fence or a line break would otherwise end the code block and go on as markup
        out += ascii_chart(group, label=lambda r: markdown_text(_label(r))) + ["```", ""]
    return "\n".join(out) + "\n"


def _verdict(r) -> str:
    if not r["significant"]:
        return "same"
    return "slower" if r["change"] > 0 else "faster"


def render_html(frame, geomeans: dict, regressions=None) -> str:
    """One page: per compared run, a chart of every row's change with its interval, and the table (A, B, change,
    interval, p, verdict), regressions beyond the gate marked."""
    from swarbench.render.html_page import CSS, _e, _table
    from swarbench.render.svg import ChangeRow, change_chart

    gated = (
        set()
        if regressions is None
        else {
            tuple(r[k] for k in ("run_b", "kernel", "implementation", "workload", "n"))
            for _, r in regressions.iterrows()
        }
    )
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>swarbench compare</title>"
        f"<style>{CSS}</style></head><body><h1>swarbench compare</h1>"
    ]
    for run_b, group in frame.groupby("run_b", sort=False):
        first = group.iloc[0]
        out.append(
            f"<h2>{_e(first['run_a'])} → {_e(run_b)}</h2>"
            f"<p class='meta'>A: {_e(first['machine_a'])} · B: {_e(first['machine_b'])} · geometric mean "
            f"of the changes {_pct(geomeans[run_b])}</p>"
        )
        out += [f"<p class='note'>{_e(line.strip())}</p>" for line in _steadiness_lines(first)]
        rows, cells, classes = [], [], []
        for _, r in group.iterrows():
            label = _label(r)
            rows.append(ChangeRow(label, r["change"], r["change_ci_low"], r["change_ci_high"], _verdict(r)))
            gate = tuple(r[k] for k in ("run_b", "kernel", "implementation", "workload", "n")) in gated
            cells.append(
                [
                    label,
                    f"{fmt_ns(r['median_a'])}",
                    f"{fmt_ns(r['median_b'])}",
                    _pct(r["change"]),
                    f"[{_pct(r['change_ci_low'])} .. {_pct(r['change_ci_high'])}]",
                    f"{r['p_value']:.3f}",
                    _verdict(r) + (" (beyond the gate)" if gate else ""),
                ]
            )
            classes.append("bad" if gate or _verdict(r) == "slower" else "")
        out.append(change_chart(rows))
        out.append(
            _table(
                ["measurement", "A ns/op", "B ns/op", "change", "95% interval", "p", "verdict"],
                cells,
                [False, True, True, True, True, True, False],
                classes,
            )
        )
    out.append(
        "<p class='note'>same: no clear change (Mann-Whitney U p ≥ 0.05, or the interval of the ratio of "
        "medians includes no change).</p></body></html>"
    )
    return "\n".join(out) + "\n"


def ascii_chart(group, width: int = 41, label=_label) -> list[str]:
    """A plain-text chart of each row's change and interval around 0, for markdown (a code block), each row named
    by ``label``."""
    ext = max(
        [abs(v) for v in group[["change", "change_ci_low", "change_ci_high"]].to_numpy().ravel() if v == v] + [0.01]
    )
    half = width // 2

    def col(v):
        return half + round(max(min(v / ext, 1), -1) * half)

    lines = [f"{'-' + format(ext * 100, '.0f') + '%':<{half}}0{'+' + format(ext * 100, '.0f') + '%':>{half}}"]
    for _, r in group.iterrows():
        cells = [" "] * (width)
        cells[half] = "|"
        if r["change_ci_low"] == r["change_ci_low"]:
            for c in range(col(r["change_ci_low"]), col(r["change_ci_high"]) + 1):
                cells[min(c, width - 1)] = "-"
        cells[min(col(r["change"]), width - 1)] = {"slower": "S", "faster": "F"}.get(_verdict(r), "o")
        lines.append("".join(cells) + f"  {label(r)}")
    return lines
