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
    seconds = {r.implementation: _num(r.s_per_call_median) if r.status == "PASS" else math.nan
               for r in rows.itertuples()}
    status = {r.implementation: r.status for r in rows.itertuples()}
    base, article_base = seconds.get(BASELINE, math.nan), ARTICLE_TABLE[0][1]
    table = pd.DataFrame([{
        "variation": variation,
        "implementation": impl,
        "status": status.get(impl, "not run"),
        "time_s": seconds.get(impl, math.nan),
        "speedup": base / seconds[impl] if seconds.get(impl) else math.nan,
        "article_s": article if article is not None else math.nan,
        "article_speedup": article_base / article if article else math.nan,
    } for variation, article, impl in ARTICLE_TABLE]).round({"time_s": 4, "speedup": 2, "article_speedup": 2})
    return ReportSection(
        title="Knuth 4p6c, each game on its own, by scoring variation (the article's table)",
        table=table,
        notes=(f"time_s: median seconds to play all 1296 games (workload {WORKLOAD}); speedup over {BASELINE} "
               "in this run. article_s: the article's figures on its own machine.",
               "Run it with: swarbench run --kernel mastermind.knuth --workload each-4p6c"),
    )


REPORTS = [SuiteReport("mastermind.article-table", build)]
