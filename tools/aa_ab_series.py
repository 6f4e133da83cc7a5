"""Series of A-A and A/B pairs of `swarbench run`, each pair compared by `swarbench compare`, summed up: how
often unchanged rows are called changed, how often the regression gate trips on them, whether a row made 25%
slower is caught, and how long the runs took.

    python tools/aa_ab_series.py                         # 5 A-A and 3 A/B pairs of the default run
    python tools/aa_ab_series.py --aa 3 --ab 2 -- -k cards.contains -k mastermind.score
    python tools/aa_ab_series.py --first-run             # also one run on empty build caches (a first run)
    python tools/aa_ab_series.py --reread --reports DIR  # DIR's runs compared again, no new runs (--absolute too)

Every run has the example plugin examples/swarbench-slowed loaded (two cards.contains rows running the same
code, `steady` and `slowed`); in the B run of an A/B pair `slowed` does --factor times the work
($SWARBENCH_SLOWED). Runs use the options after `--` (none: the default run) and are kept under --reports.
The summary is printed and written to REPORTS/series.json; each pair's comparison is in REPORTS/pairs/.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
from swarbench import run_comparison

HERE = Path(__file__).resolve().parent.parent
PLUGIN = HERE / "examples" / "swarbench-slowed" / "swarbench_slowed"
SLOWED = "slowed"


def plugin_site(folder: Path) -> Path:
    """The example plugin where Python finds it, with the entry point an install would leave: no install."""
    site = folder / "site"
    shutil.copytree(PLUGIN, site / PLUGIN.name, dirs_exist_ok=True)
    info = site / "swarbench_slowed-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: swarbench-slowed\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[swarbench]\nslowed = swarbench_slowed\n")
    return site


def swarbench(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "swarbench.cli", *args], capture_output=True, text=True, env=env, check=False
    )


def run(options: list[str], env: dict, factor: float, reports: Path) -> tuple[str, float]:
    """One `swarbench run`: its run id and wall time."""
    started = time.perf_counter()
    proc = swarbench(["run", *options, "-q", "--reports", str(reports)], dict(env, SWARBENCH_SLOWED=str(factor)))
    took = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        sys.exit(f"swarbench run failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    run_id = proc.stdout.split("render again with `swarbench report ")[1].split("`")[0]
    return run_id, took


def compare(a: str, b: str, env: dict, reports: Path, threshold: float, out: Path, absolute: bool = False) -> dict:
    """One pair's figures: rows, rows called changed, gate exit code and the rows it tripped on."""
    how = ["--reports", str(reports)] + (["--absolute"] if absolute else [])
    table = swarbench(["compare", a, b, "--format", "csv", *how], env)
    frame = pd.read_csv(io.StringIO(table.stdout))
    gate = swarbench(["compare", a, b, "--fail-on-regression", f"{threshold:g}", *how], env)
    out.write_text(gate.stdout + gate.stderr)
    # the rows the gate told, from the gate itself over the same frame (its text is for people)
    verdict = run_comparison.gate(frame, threshold)
    told = verdict.regressions.itertuples() if verdict.failed else []
    tripped = [f"{r.kernel}/{r.implementation} {r.workload}/n={r.n}" for r in told]
    inside = mutual_coverage(reports / a / "results.csv", reports / b / "results.csv")
    slowed = frame[frame["implementation"] == SLOWED]
    unchanged = frame[frame["implementation"] != SLOWED]
    half = ((unchanged["change_ci_high"] - unchanged["change_ci_low"]) / 2).dropna()
    return {
        "a": a,
        "b": b,
        "rows": len(unchanged),
        "flagged": int(unchanged["significant"].sum()),
        "flagged_rows": [f"{r.kernel}/{r.implementation}" for r in unchanged[unchanged["significant"]].itertuples()],
        "gate_exit": gate.returncode,
        "gate_tripped_unchanged": [t for t in tripped if f"/{SLOWED} " not in t + " "],
        "gate_tripped_slowed": any(f"/{SLOWED} " in t + " " for t in tripped),
        "slowed_change": float(slowed["change"].iloc[0]) if len(slowed) else None,
        "slowed_called": bool(slowed["significant"].iloc[0]) if len(slowed) else None,
        "median_halfwidth": float(half.median()) if len(half) else None,
        "no_interval": int(unchanged["change_ci_low"].isna().sum()),
        "inside_other": inside,
        "gate_said": (gate.stderr.strip().splitlines() or [""])[-1],
    }


def mutual_coverage(a_csv: Path, b_csv: Path) -> list[int]:
    """[medians inside the other run's interval, medians with an interval to be inside] over the rows of both
    runs other than the slowed one: how often two runs of the same code agree within their intervals."""
    key = ["kernel", "implementation", "workload", "n"]
    a, b = (pd.read_csv(p) for p in (a_csv, b_csv))
    both = a.merge(b, on=key, suffixes=("_a", "_b"))
    both = both[(both["status_a"] == "PASS") & (both["status_b"] == "PASS") & (both["implementation"] != SLOWED)]
    inside = total = 0
    for mine, other in (("a", "b"), ("b", "a")):
        known = both[both[f"ns_per_op_ci_low_{other}"].notna()]
        total += len(known)
        inside += int(
            (
                (known[f"ns_per_op_median_{mine}"] >= known[f"ns_per_op_ci_low_{other}"])
                & (known[f"ns_per_op_median_{mine}"] <= known[f"ns_per_op_ci_high_{other}"])
            ).sum()
        )
    return [inside, total]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--aa", type=int, default=5, help="A-A pairs (default 5)")
    parser.add_argument("--ab", type=int, default=3, help="A/B pairs, the slowed row slower in B (default 3)")
    parser.add_argument("--factor", type=float, default=1.25, help="the slowed row's work in B (default 1.25)")
    parser.add_argument("--threshold", type=float, default=10, help="--fail-on-regression PCT (default 10)")
    parser.add_argument(
        "--first-run",
        action="store_true",
        help="also time one run on empty C and Numba caches, as a first run on a machine",
    )
    parser.add_argument("--reports", type=Path, default=None, help="where runs go (default: a fresh temp folder)")
    parser.add_argument(
        "--reread",
        action="store_true",
        help="no new runs: compare the pairs of --reports' series.json again (with this swarbench) and sum up",
    )
    parser.add_argument("--absolute", action="store_true", help="compare with --absolute (and gate so)")
    parser.add_argument("options", nargs="*", help="after --: options for every `swarbench run`")
    args = parser.parse_args()
    reports = (args.reports or Path(tempfile.mkdtemp(prefix="swarbench-series-"))).resolve()
    pairs = reports / ("pairs-absolute" if args.absolute else "pairs")
    pairs.mkdir(parents=True, exist_ok=True)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in (str(plugin_site(reports)), os.environ.get("PYTHONPATH", "")) if p),
    )
    summary: dict = {
        "options": args.options,
        "host": os.uname().nodename,
        "cpus": os.cpu_count(),
        "runs_s": [],
        "aa": [],
        "ab": [],
    }
    if args.reread:
        summary = json.loads((reports / "series.json").read_text())
        for kind, first in (("aa", 0), ("ab", 2 * len(summary["aa"]))):
            summary[kind] = [
                compare(p["a"], p["b"], env, reports, args.threshold, pairs / f"{kind}{i + 1}.txt", args.absolute)
                for i, p in enumerate(summary[kind])
            ]
            for i, pair in enumerate(summary[kind]):
                print(pair_line(kind, i, pair, *summary["runs_s"][first + 2 * i : first + 2 * i + 2]), flush=True)
        sum_up(summary, args, reports)
        return
    if args.first_run:
        cold = reports / "cold-caches"
        first_env = dict(env, SWARBENCH_CACHE=str(cold / "c"), NUMBA_CACHE_DIR=str(cold / "numba"))
        _, took = run(args.options, first_env, 1.0, reports)
        summary["first_run_s"] = round(took, 1)
        print(f"first run (empty caches): {took:.1f} s", flush=True)
    run(args.options, env, 1.0, reports)  # warms what a first run fills, and is not counted
    for kind, count, factor in (("aa", args.aa, 1.0), ("ab", args.ab, args.factor)):
        for i in range(count):
            a, ta = run(args.options, env, 1.0, reports)
            b, tb = run(args.options, env, factor, reports)
            summary["runs_s"] += [round(ta, 1), round(tb, 1)]
            pair = compare(a, b, env, reports, args.threshold, pairs / f"{kind}{i + 1}.txt", args.absolute)
            summary[kind].append(pair)
            print(pair_line(kind, i, pair, ta, tb), flush=True)
    sum_up(summary, args, reports)


def pair_line(kind: str, i: int, pair: dict, ta: float, tb: float) -> str:
    return (
        f"{kind.upper()} {i + 1}: {pair['flagged']}/{pair['rows']} unchanged rows called changed, gate exit "
        f"{pair['gate_exit']} (tripped on {len(pair['gate_tripped_unchanged'])} unchanged), slowed "
        f"{pair['slowed_change'] * 100 if pair['slowed_change'] is not None else float('nan'):+.1f}% "
        f"{'called' if pair['slowed_called'] else 'not called'}"
        f"{', gated' if pair['gate_tripped_slowed'] else ''}; runs {ta:.0f} s + {tb:.0f} s"
    )


def sum_up(summary: dict, args, reports: Path) -> None:
    """The series' summary lines, printed and written to REPORTS/series.json with the pairs."""
    aa, ab = summary["aa"], summary["ab"]
    rows = sum(p["rows"] for p in aa + ab)
    flagged = sum(p["flagged"] for p in aa + ab)
    tripped = sum(bool(p["gate_tripped_unchanged"]) for p in aa + ab)
    caught = sum(bool(p["slowed_called"]) and p["slowed_change"] > 0 for p in ab)
    changes = [round(p["slowed_change"] * 100, 1) for p in ab if p["slowed_change"] is not None]
    times = pd.Series(summary["runs_s"], dtype=float)
    first = f"; first run {summary['first_run_s']:.0f} s" if "first_run_s" in summary else ""
    inside = [sum(p["inside_other"][i] for p in aa) for i in (0, 1)]
    lines = [
        (
            f"unchanged rows called changed: {flagged} of {rows} ({flagged / max(rows, 1):.1%}) over "
            f"{len(aa)} A-A and {len(ab)} A/B pairs"
        ),
        (
            f"gate (--fail-on-regression {args.threshold:g}) tripped on unchanged rows in {tripped} of "
            f"{len(aa + ab)} pairs; exit codes A-A {[p['gate_exit'] for p in aa]}, "
            f"A/B {[p['gate_exit'] for p in ab]}"
        ),
        (
            f"slowed row ({args.factor:g}x work) called slower in {caught} of {len(ab)} A/B pairs, past the gate "
            f"in {sum(p['gate_tripped_slowed'] for p in ab)}; its changes {changes}%"
        ),
        (
            f"A-A pairs: a run's median inside the other run's 95% interval for {inside[0]} of {inside[1]} rows "
            f"({inside[0] / max(inside[1], 1):.0%}; two runs of equal spread: about 83%)"
        ),
        f"slowed row called changed in A-A pairs: {sum(bool(p['slowed_called']) for p in aa)} of {len(aa)}",
        f"run times (warm): {times.min():.0f} to {times.max():.0f} s, median {times.median():.0f} s{first}",
    ]
    summary["summary"] = lines
    (reports / ("series-absolute.json" if args.absolute else "series.json")).write_text(json.dumps(summary, indent=2))
    print("\n".join(lines))
    print(f"(runs, pairs and series.json under {reports})")


if __name__ == "__main__":
    main()
