"""The article's own table: Knuth 4p6c, every game on its own, timed with each scoring variation
plugged in, with its speedup over simple loops, next to the article's figures."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

from swarbench.model import ReportSection, SuiteReport

if TYPE_CHECKING:  # the functions that build a section import pandas: `swarbench list` need not wait for it
    import pandas as pd

from .native import ARTICLE_TABLE

KERNEL = "mastermind.knuth"
WORKLOAD = "each-4p6c"
BASELINE = ARTICLE_TABLE[0][2]


def _num(v) -> float:
    return float(v) if v is not None and not (isinstance(v, float) and math.isnan(v)) else math.nan


def build(frame: pd.DataFrame) -> Optional[ReportSection]:
    import pandas as pd

    rows = frame[(frame["kernel"] == KERNEL) & (frame["workload"] == WORKLOAD)]
    if rows.empty:
        return None
    rows = rows[rows["run_id"] == rows["run_id"].iloc[-1]]  # one run: ratios only mean something within it
    seconds = {
        r.implementation: _num(r.s_per_call_median) if r.status == "PASS" else math.nan for r in rows.itertuples()
    }
    status = {r.implementation: r.status for r in rows.itertuples()}
    base, article_base = seconds.get(BASELINE, math.nan), ARTICLE_TABLE[0][1]
    table = pd.DataFrame(
        [
            {
                "variation": variation,
                "implementation": impl,
                "status": status.get(impl, "not run"),
                "time_s": seconds.get(impl, math.nan),
                "speedup": base / seconds[impl] if seconds.get(impl) else math.nan,
                "article_s": article if article is not None else math.nan,
                "article_speedup": article_base / article if article else math.nan,
            }
            for variation, article, impl in ARTICLE_TABLE
        ]
    ).round({"time_s": 4, "speedup": 2, "article_speedup": 2})
    return ReportSection(
        title="Knuth 4p6c, each game on its own, by scoring variation (the article's table)",
        table=table,
        notes=(
            f"time_s: median seconds to play all 1296 games (workload {WORKLOAD}); speedup over {BASELINE} "
            "in this run. article_s: the article's figures on its own machine.",
            "Run it with: swarbench run --kernel mastermind.knuth --workload each-4p6c",
        ),
    )


def played(frame: pd.DataFrame) -> Optional[ReportSection]:
    """Every game of a size played at once (the default run's Knuth workload among them): each implementation's
    total and worst game beside the mikemag/Mastermind project's published figures, when they start from the same
    first guess, with the arithmetic it ranked in and, where the totals differ, why (from the suite's data)."""
    import pandas as pd

    from swarbench.results import summary_of

    from .command import published, why_it_differs
    from .spec import KNUTH, show

    kinds = {kind.name: kind for kind in KNUTH.workloads}
    rows = frame[
        (frame["kernel"] == KERNEL)
        & frame["workload"]
        .astype(str)
        .isin([name for name, kind in kinds.items() if kind.params["method"] == "shared"])
    ]
    if rows.empty:
        return None
    rows = rows[rows["run_id"] == rows["run_id"].iloc[-1]]
    table = []
    for r in rows.sort_values(["workload", "ns_per_op_median"]).itertuples():
        params = kinds[str(r.workload)].params
        pins, colors = params["pins"], params["colors"]
        summary = summary_of(r.summary if isinstance(r.summary, str) else "")
        known = published(pins, colors, params["strategy"], show(params["first"], pins))
        total = summary.get("total")
        why = (
            why_it_differs(known, params["strategy"], params["arithmetic"])
            if known and total is not None and total != int(known["total_guesses"])
            else ""
        )
        table.append(
            {
                "workload": r.workload,
                "implementation": r.implementation,
                "status": r.status,
                "arithmetic": params["arithmetic"],
                "ms_per_call": _num(r.s_per_call_median) * 1e3,
                "total_guesses": total,
                "worst_game": summary.get("max"),
                "published_total": int(known["total_guesses"]) if known else None,
                "why_it_differs": why,
            }
        )
    return ReportSection(
        title="Mastermind: every game at once, beside the published totals",
        table=pd.DataFrame(table),
        notes=(
            "total_guesses and worst_game: what each implementation's games added up to in this run; "
            "published_total: the mikemag/Mastermind project's total for that game, strategy and first guess; "
            "arithmetic: how Expected Size and Entropy ranked (exact, or one of the project's float arithmetics; "
            "docs/suites.md); why_it_differs: what made the published total another, from the suite's data.",
        ),
    )


# The article's claim for its fastest scoring function (scoreCountingHandVec, the hand-vectorised SSE2 one): "it's
# only 21 instructions", on Compiler Explorer; and which of our score rows is each of its four variations.
ARTICLE_INSTRUCTIONS = {"c-sse2": 21}
SCORE_VARIATIONS = {
    "c-simple-loops": "simple loops",
    "c-counting": "counting, scalar",
    "c-counting-autovec": "counting, auto-vectorised",
    "c-sse2": "counting, hand-vectorised SSE2",
}


def instructions(frame: pd.DataFrame) -> Optional[ReportSection]:
    """The compiled scoring code of each C and Numba mastermind.score row (swarbench.explain's columns) beside the
    article's instruction count for its scoring function."""
    import pandas as pd

    rows = frame[(frame["kernel"] == "mastermind.score") & (frame["status"] == "PASS")]
    if "instructions_per_op" not in rows.columns:
        return None
    rows = rows[rows["code_function"].fillna("").astype(str) != ""]
    if rows.empty:
        return None
    rows = rows[rows["run_id"] == rows["run_id"].iloc[-1]].sort_values("ns_per_op_median")
    table = pd.DataFrame(
        [
            {
                "implementation": r.implementation,
                "article_variation": SCORE_VARIATIONS.get(r.implementation, ""),
                "instructions_per_score": _num(r.instructions_per_op),
                "counted_per_score": _num(r.hw_instructions_per_op),
                "article_instructions": ARTICLE_INSTRUCTIONS.get(r.implementation),
                "core_limit_cycles": _num(r.core_limit_cycles_per_op),
                "measured_cycles": _num(r.cycles_per_op_est),
                "reached": r.limit_text or "",
            }
            for r in rows.itertuples()
        ]
    ).round({"instructions_per_score": 2, "counted_per_score": 2, "core_limit_cycles": 3, "measured_cycles": 3})
    table["article_instructions"] = table["article_instructions"].astype("Int64")
    ours = table[table["implementation"] == "c-sse2"]["instructions_per_score"]
    said = (
        f"our c-sse2, the same pminub/psadbw function inlined into the batch's loop, runs {ours.iloc[0]:g} "
        "instructions a score there, its loads, store and loop counter included"
        if len(ours) and ours.iloc[0] == ours.iloc[0]
        else "our c-sse2 is not in this run"
    )
    return ReportSection(
        title="Mastermind: instructions per score, beside the article's 21",
        table=table,
        notes=(
            "The article counts its hand-vectorised scoring function alone, compiled for one pair on Compiler "
            f'Explorer: "only 21 instructions". {said[0].upper() + said[1:]}.',
            "instructions_per_score: the hot loop of the code each row timed (swarbench asm mastermind.score "
            "IMPL shows it); counted_per_score: hardware counters, where the machine has them; core_limit_cycles: "
            "llvm-mca's prediction for that loop; measured_cycles: the median time per score times the clock.",
        ),
    )


REPORTS = [
    SuiteReport("mastermind.article-table", build),
    SuiteReport("mastermind.played", played),
    SuiteReport("mastermind.instructions", instructions),
]
