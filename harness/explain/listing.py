"""The timed code of a run's rows as text: what ``swarbench asm`` prints and the HTML report folds under each row.

The listings themselves live in the run's records (each result line's ``explain``), not in the results frame,
whose CSV stays one short row per measurement: ``RunFolder.timed_code`` reads them, keyed like the report's
samples (run id, kernel, implementation, workload, n).
"""

from __future__ import annotations

import math


def lines(explain: dict, row: dict | None = None) -> list[str]:
    """A row's timed code as text: what was called, the hot loop and its cost, both limits, then the listing with
    the hot loop marked ``>``."""
    row = row or {}
    out = []
    if explain.get("origin"):
        out.append(f"code: {explain.get('function', '?')}, from {explain['origin']}")
    if explain.get("sha256"):
        out.append(f"sha256: {explain['sha256']}")
    loop = explain.get("loop") or {}
    if loop:
        ops = explain.get("ops_per_iteration")
        per_op = explain.get("instructions_per_op")
        out.append(
            f"hot loop at {loop['header']}: {loop['instructions']} instructions an iteration, "
            f"{_n(ops)} op{'' if ops == 1 else 's'} an iteration ({explain.get('ops_from', '')})"
            + (f": {per_op:.3g} instructions per op" if isinstance(per_op, (int, float)) else "")
        )
        if explain.get("hot_from"):
            out.append(f"  found by: {explain['hot_from']}")
    mca = explain.get("mca") or {}
    if mca:
        out.append(
            f"core: {mca['tool']} -mcpu={mca['cpu']}"
            + (f" ({mca['cpu_note']})" if mca.get("cpu_note") else "")
            + f": {mca['cycles_per_iteration']:.3g} cycles an iteration, bound by {mca['bottleneck']}"
        )
    if isinstance(explain.get("bytes_read_per_op"), (int, float)):
        out.append(
            f"memory: {explain['bytes_read_per_op']:.3g} bytes read and {explain['bytes_written_per_op']:.3g} "
            f"written an op, {explain.get('working_set_bytes', 0) / 1e6:.3g} MB in play a batch"
        )
    limit_lines = _limits(row)
    out += limit_lines
    if explain.get("missing"):
        out.append(f"missing: {explain['missing']}")
    listing = explain.get("listing") or []
    if listing:
        out.append("")
        width = max(len(str(r[0])) for r in listing)
        for address, text, mark in listing:
            mark = ">" if mark is True else mark or " "  # (a listing kept before marks were characters)
            out.append(f"{mark} {address!s:>{width}}  {text}" if address else f"  {text}")
    return out


def _limits(row: dict) -> list[str]:
    if not row:
        return []
    out = []
    clock = row.get("clock_ghz", math.nan)
    core, memory = row.get("core_limit_ns_per_op", math.nan), row.get("memory_limit_ns_per_op", math.nan)
    measured = row.get("ns_per_op_median", math.nan)
    if _finite(core):
        out.append(f"core limit: {row['core_limit_cycles_per_op']:.3g} cycles/op ({core:.3g} ns at {clock:g} GHz)")
    if _finite(memory):
        out.append(f"memory limit: {memory:.3g} ns/op ({row.get('memory_level', '')})")
    if _finite(measured):
        cycles = f" ({measured * clock:.3g} cycles)" if _finite(clock) else ""
        out.append(
            f"measured: {measured:.3g} ns/op{cycles}" + (f": {row['limit_text']}" if row.get("limit_text") else "")
        )
    return out


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def _n(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) else "unknown"
