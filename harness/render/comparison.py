"""`swarbench compare` output: benchstat-style rows per compared run, and the geometric mean."""
from __future__ import annotations

from swarbench.run_comparison import GATE_PROCESSES
from swarbench.render import fmt_ns
from swarbench.render.markdown import table


def _pct(x: float) -> str:
    return "?" if x != x else f"{x * 100:+.1f}%"


def _rows(group):
    for _, r in group.iterrows():
        name = f"{r['kernel']}/{r['implementation']} {r['workload']}/n={r['n']}"
        a = f"{fmt_ns(r['median_a'])} ±{r['ci_a'] * 100:.1f}%"
        b = f"{fmt_ns(r['median_b'])} ±{r['ci_b'] * 100:.1f}%"
        if r["significant"]:
            change = f"{_pct(r['change'])} [{_pct(r['change_ci_low'])} .. {_pct(r['change_ci_high'])}]"
        else:
            change = "~"
        yield name, a, b, change, f"p={r['p_value']:.3f} n={r['samples_a']}+{r['samples_b']}"


def render_text(frame, geomeans: dict, regressions=None) -> str:
    out = []
    for run_b, group in frame.groupby("run_b", sort=False):
        first = group.iloc[0]
        out.append(f"{first['run_a']} ({first['machine_a']})  vs  {run_b} ({first['machine_b']})")
        out += _steadiness_lines(first)
        relative = bool(group["relative"].any())
        rows = [("measurement", "A ns/op", "B ns/op", "change [95% CI]" + (" vs drift" if relative else ""), "")]
        rows += list(_rows(group))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        out += ["  ".join(c.ljust(w) if i in (0, 3) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
                .rstrip() for r in rows]
        out.append(f"{'geomean'.ljust(widths[0])}  {'':>{widths[1]}}  {'':>{widths[2]}}  {_pct(geomeans[run_b])}")
        if relative:
            out += _drift_lines(group)
        out.append("")
    out.append("~: no significant change (Mann-Whitney U p >= 0.05, or the interval of the ratio of medians "
               "includes 1)")
    if regressions is not None and len(regressions):
        out += ["", "regressions beyond the threshold (whole interval):"]
        out += [f"  {r.kernel}/{r.implementation} {r.workload}/n={r.n}: {_pct(r.change)} "
                f"[{_pct(r.change_ci_low)} .. {_pct(r.change_ci_high)}]{_few_processes(r)}"
                for r in regressions.itertuples()]
    return "\n".join(out) + "\n"


def _few_processes(r) -> str:
    """A note on a gated row measured by fewer processes a side than compare.GATE_PROCESSES."""
    a, b = getattr(r, "processes_a", None), getattr(r, "processes_b", None)
    if a is None or b is None or min(a, b) >= GATE_PROCESSES:
        return ""
    return (f" ({a:g}+{b:g} processes: a slow spell of the machine through one whole run can look like this; "
            f"gate on runs of -p {GATE_PROCESSES} or more)")


def _steadiness_lines(r) -> list[str]:
    """The two runs' canaries (swarbench.bench.canary): how fast the machine itself was in each."""
    a, b = r["canary_us_a"], r["canary_us_b"]
    if a != a or b != b:
        return []
    line = (f"machine (canary): A {a:.0f} us, slowed during {r['slowed_share_a']:.0%} of the run; "
            f"B {b:.0f} us ({_pct(r['canary_change'])}), slowed during {r['slowed_share_b']:.0%}")
    if r["machine_changed"]:
        return [line, "  the machine itself was not the same in both runs: changes of that size may be its own "
                      "(--relative divides out what moved a whole workload)"]
    return [line]


def _drift_lines(group) -> list[str]:
    """What was divided out: each workload's drift (its implementations' median change), and the rows that had
    no other implementation to take it from."""
    lines = ["changes vs drift: each row's change divided by the median change of the other implementations of "
             "its workload (geomean above: absolute)"]
    for (kernel, workload, n), g in group.groupby(["kernel", "workload", "n"], sort=False):
        drift = float(g["workload_drift"].iloc[0])
        alone = " (one implementation: absolute)" if g["drift"].isna().all() else ""
        lines.append(f"  drift {kernel} {workload}/n={n}: {_pct(drift)}{alone}")
    return lines


def render_md(frame, geomeans: dict, regressions=None) -> str:
    out = []
    for run_b, group in frame.groupby("run_b", sort=False):
        out += [f"## {group.iloc[0]['run_a']} vs {run_b}", ""]
        out += table(["measurement", "A ns/op", "B ns/op", "change [95% CI]", "test"], [list(r) for r in _rows(group)])
        out += ["", f"geomean change: {_pct(geomeans[run_b])}", ""]
    return "\n".join(out) + "\n"
