"""The machines of a run side by side (a fleet run, swarbench.fleet, or several runs reported together).

Per kernel and workload: each implementation's median ns/op on every machine, its speedup over that machine's
own baseline (the frame's ``speedup``, computed per machine), and the machines it is the fastest on. Registered
as a report through the plugin hook every suite uses, so each format shows it; a run of one machine has none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from swarbench import hookimpl
from swarbench.model import ReportSection, SuiteReport
from swarbench.runfolder import Status

if TYPE_CHECKING:  # a plugin module: loading it (as `swarbench --help` does) must import nothing heavy
    import pandas as pd

KEY = ["kernel", "workload", "n", "implementation"]


def machine_labels(frame: pd.DataFrame) -> pd.Series:
    """The machine of each row; where one machine appears in several runs, with the run beside it."""
    machines = frame["machine"].fillna("?").astype(str)
    runs_per_machine = frame.groupby(machines)["run_id"].nunique()
    if (runs_per_machine > 1).any():
        return machines + "@" + frame["run_id"].astype(str).str[-4:]
    return machines


def build(frame: pd.DataFrame) -> Optional[ReportSection]:
    if "machine" not in frame.columns or not len(frame):
        return None
    from swarbench.results import OVERHEAD_KERNEL

    rows = frame[frame["kernel"] != OVERHEAD_KERNEL].copy()
    rows["where"] = machine_labels(rows)
    machines = sorted(rows["where"].unique())
    if len(machines) < 2:
        return None
    passed = rows[rows["status"] == Status.PASS]
    fastest = passed.loc[passed.groupby(["kernel", "workload", "n", "where"])["ns_per_op_median"].idxmin()]
    wins = fastest.groupby(KEY)["where"].agg(lambda s: ", ".join(sorted(s)))
    ns = passed.pivot_table(index=KEY, columns="where", values="ns_per_op_median", aggfunc="first")
    speedup = passed.pivot_table(index=KEY, columns="where", values="speedup", aggfunc="first")
    status = rows.pivot_table(index=KEY, columns="where", values="status", aggfunc="first")
    import pandas as pd

    table = pd.DataFrame(index=status.index)
    for m in machines:
        table[f"{m} ns/op"] = ns.get(m)
        table[f"{m} speedup"] = speedup.get(m)
        # a row that did not pass on a machine says why not, where its figures would be
        other = status.get(m)
        if other is not None:
            table[f"{m} status"] = other.where(other != Status.PASS, "")
    table["fastest on"] = wins.reindex(table.index).fillna("")
    table = table.reset_index().sort_values(["kernel", "workload", "n", f"{machines[0]} ns/op"], na_position="last")
    notes = [
        f"speedup: over each machine's own baseline; fastest on: the machines where the row is the fastest of "
        f"its kernel and workload ({', '.join(machines)})"
    ]
    for (kernel, workload, n), group in fastest.groupby(["kernel", "workload", "n"]):
        notes.append(
            f"{kernel} {workload}/n={int(n):,}: "
            + "; ".join(f"{r.where}: {r.implementation} {r.ns_per_op_median:.4g} ns/op" for r in group.itertuples())
        )
    return ReportSection("Machines compared", table.reset_index(drop=True), notes)


REPORT = SuiteReport("swarbench.machines", build)


@hookimpl
def swarbench_add_reports(registry):
    registry.add_report(REPORT)
