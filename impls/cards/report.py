"""The post's view of a run (compares its three versions with ``go test -bench``, in ns/op).

``cards.post``: for contains and remove, each of the post's benchmarks beside our C implementation of the same
method (its loop over 16 ints, its unrolled version, its uint64 SWAR), then the fastest implementation of the run,
each with its speedup over the loop, which is how the post reads its own figures.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from swarbench.model import ReportSection, SuiteReport

if TYPE_CHECKING:  # the functions that build a section import pandas: `swarbench list` need not wait for it
    import pandas as pd

# The post's figures (sections 0x02 and 0x03; Go, GOMAXPROCS 2): each loop and unrolled benchmark was
# run twice, once per section, and we keep both.
POST = [
    ("cards.contains", "BenchmarkVecContainsUsingForLoop-2", (73.9, 64.3), "c-loop"),
    ("cards.contains", "BenchmarkVecContainsNoForLoop-2", (34.0, 44.5), "c-unrolled"),
    ("cards.contains", "BenchmarkVecBContains-2", (1.09,), "c-swar"),
    ("cards.remove", "BenchmarkVecRemoveUsingForLoop-2", (82.7, 92.8), "c-loop"),
    ("cards.remove", "BenchmarkVecRemoveNoForLoop-2", (57.3, 63.9), "c-unrolled"),
    ("cards.remove", "BenchmarkVecBRemove-2", (1.15,), "c-swar"),
]


def post_table(frame: pd.DataFrame):
    import pandas as pd

    if frame is None or frame.empty:
        return None
    rows = frame[frame["kernel"].isin(["cards.contains", "cards.remove"]) & (frame["status"] == "PASS")]
    if rows.empty:
        return None
    # a scaling run holds several sizes: the post's comparison is made at each implementation's largest
    rows = rows.sort_values("n").groupby(["kernel", "implementation"], as_index=False).tail(1)
    ours = rows.set_index(["kernel", "implementation"])
    out = []
    for kernel in ("cards.contains", "cards.remove"):
        mine = [p for p in POST if p[0] == kernel]
        post_loop = min(mine[0][2])
        loop = ours["ns_per_op_median"].get((kernel, "c-loop"), math.nan)
        for _, bench, figures, impl in mine:
            ns = ours["ns_per_op_median"].get((kernel, impl), math.nan)
            out.append(
                {
                    "kernel": kernel,
                    "post_benchmark": bench,
                    "post_ns_per_op": " / ".join(f"{x:g}" for x in figures),
                    "post_speedup_over_loop": post_loop / min(figures),
                    "implementation": impl,
                    "n": ours["n"].get((kernel, impl), math.nan),
                    "ns_per_op": ns,
                    "speedup_over_loop": loop / ns,
                }
            )
        kernel_rows = rows[rows["kernel"] == kernel]
        if not kernel_rows.empty:
            best = kernel_rows.loc[kernel_rows["ns_per_op_median"].idxmin()]
            out.append(
                {
                    "kernel": kernel,
                    "post_benchmark": "(fastest of this run)",
                    "post_ns_per_op": "",
                    "post_speedup_over_loop": math.nan,
                    "implementation": best["implementation"],
                    "n": best["n"],
                    "ns_per_op": best["ns_per_op_median"],
                    "speedup_over_loop": loop / best["ns_per_op_median"],
                }
            )
    notes = [
        "post_ns_per_op: the post's go test -bench figures, one call per operation (both of its runs where it "
        "ran a benchmark twice); ns_per_op: ours, the median batch call over N hand pairs divided by N, so the "
        "call's fixed cost is spread over the batch, which the post's one-pair calls could not do.",
        "speedup_over_loop: each method against the loop over 16 counts, the post's against its faster loop run "
        "and ours against c-loop; the post's conclusion is the SWAR row.",
        "c-sliced* keep the 3 bits per rank the post considered (3 x 16 = 48) and set aside, as bit planes of "
        "512 hands; the transposition is done in prepare, so their ns/op holds for hands already in that layout.",
    ]
    return ReportSection("CardsVector: the post's benchmarks beside ours", pd.DataFrame(out), notes)


REPORTS = (SuiteReport("cards.post", post_table),)
