"""A row against its two limits, as a roofline sets it: the core's (llvm-mca's cycles for the hot loop, over the
operations an iteration does) and the memory's (the bytes an op must move, over the bandwidth of the level its
batch's arrays fit in). The larger of the two is the one that binds; the share reached is that limit over the
measured time. Pure arithmetic over a case's ``explain`` record and the machine's figures, called once per
measurement by swarbench.results.frame; renderers only format the columns it returns.
"""

from __future__ import annotations

import math

from swarbench.explain.bandwidth import level_for
from swarbench.runfolder import EXPLAIN_COLUMNS, EXPLAIN_TEXT_COLUMNS

NEAR = 0.5  # a row at this share of its limit or more is "at N% of" it; below, "Nx over" it
# A row faster than this share of its predicted core limit did not run the loop as judged (the hot loop, or the
# operations an iteration, were misjudged; or its batch ran on several cores): the limit is not claimed
BEYOND = 1.5


def core_limit(
    cycles_per_iteration: float | None, ops_per_iteration: float | None, clock_ghz: float
) -> tuple[float, float]:
    """(cycles, ns) per op the core needs at the least, by llvm-mca's figure for the hot loop; NaN where unknown."""
    if not _positive(cycles_per_iteration) or not _positive(ops_per_iteration):
        return math.nan, math.nan
    cycles = cycles_per_iteration / ops_per_iteration
    return cycles, cycles / clock_ghz if _positive(clock_ghz) else math.nan


def memory_limit(read_per_op: float, written_per_op: float, level: dict | None) -> float:
    """ns per op that moving an op's bytes at the level's bandwidth takes (bytes / (GB/s) = ns); NaN unknown."""
    if level is None or not _positive(level.get("read_gbs")) or not _positive(level.get("write_gbs")):
        return math.nan
    if not (read_per_op >= 0 and written_per_op >= 0) or read_per_op + written_per_op <= 0:
        return math.nan
    return read_per_op / level["read_gbs"] + written_per_op / level["write_gbs"]


def binding(core_ns: float, memory_ns: float) -> tuple[str, float]:
    """Which limit binds (the slower one: a row can go no faster than either) and its ns per op."""
    known = [(ns, name) for ns, name in ((core_ns, "core"), (memory_ns, "memory")) if _positive(ns)]
    if not known:
        return "", math.nan
    ns, name = max(known)
    return name, ns


def verdict(bound: str, level: str, share: float) -> str:
    """ "at 85% of the predicted core limit", or "3.1x over: memory-bound (L3)"."""
    if not bound or not _positive(share):
        return ""
    limit = "predicted core limit" if bound == "core" else f"memory limit ({level})"
    if share >= NEAR:
        return f"at {share:.0%} of the {limit}"
    return f"{1 / share:.1f}x over: {bound}-bound" + (f" ({level})" if bound == "memory" else "")


def columns(explain: dict | None, machine: dict, measured_ns: float, clock_ghz: float, counts: dict) -> dict:
    """The frame's columns for one measurement: its code, both limits, which binds, the share reached."""
    out: dict = {name: (math.nan if name not in EXPLAIN_TEXT_COLUMNS else "") for name in EXPLAIN_COLUMNS}
    for name in ("hw_branch_misses_per_op", "hw_cache_misses_per_op"):
        if isinstance(counts.get(name), (int, float)):
            out[name] = float(counts[name])
    if not isinstance(explain, dict):
        return out
    missing = [explain["missing"]] if explain.get("missing") else []
    mca = explain.get("mca") or {}
    out.update(
        code_function=explain.get("function") or "",
        code_origin=explain.get("origin") or "",
        code_sha256=explain.get("sha256") or "",
        loop_instructions=_number((explain.get("loop") or {}).get("instructions")),
        ops_per_iteration=_number(explain.get("ops_per_iteration")),
        instructions_per_op=_number(explain.get("instructions_per_op")),
        core_cycles_per_iteration=_number(mca.get("cycles_per_iteration")),
        core_bottleneck=mca.get("bottleneck") or "",
        core_model=(f"{mca['tool']} -mcpu={mca['cpu']}" + (f" ({mca['cpu_note']})" if mca.get("cpu_note") else ""))
        if mca
        else "",
    )
    cycles, core_ns = core_limit(mca.get("cycles_per_iteration"), explain.get("ops_per_iteration"), clock_ghz)
    if mca and not _positive(explain.get("ops_per_iteration")):
        missing.append(f"no core limit per op: operations an iteration {explain.get('ops_from') or 'unknown'}")
    if _positive(cycles) and not _positive(clock_ghz):
        missing.append("no core limit in ns: the clock is unknown")
    read, written = explain.get("bytes_read_per_op"), explain.get("bytes_written_per_op")
    memory_ns, level_name = math.nan, ""
    bandwidth = machine.get("bandwidth") if isinstance(machine.get("bandwidth"), dict) else {}
    if isinstance(read, (int, float)) and isinstance(written, (int, float)):
        out["memory_bytes_per_op"] = read + written
        level = level_for(bandwidth.get("levels") or [], explain.get("working_set_bytes") or 0)
        if level is None:
            missing.append(bandwidth.get("missing") or "no bandwidth measured on this machine")
        else:
            level_name = level["level"]
            memory_ns = memory_limit(read, written, level)
    bound, limit_ns = binding(core_ns, memory_ns)
    share = limit_ns / measured_ns if _positive(limit_ns) and _positive(measured_ns) else math.nan
    text = verdict(bound, level_name, share)
    if _positive(core_ns) and _positive(measured_ns) and core_ns / measured_ns > BEYOND:
        missing.append(
            f"measured {core_ns / measured_ns:.1f}x faster than its predicted core limit: the hot loop "
            "or its operations an iteration were misjudged, or its batch ran on several cores"
        )
        text = f"faster than its predicted core limit ({core_ns / measured_ns:.1f}x): the prediction does not hold"
        bound, limit_ns, share = "", math.nan, math.nan
        if explain.get("nest"):  # the estimate of the loops' runs an op is what failed: its figures go with it
            out.update(instructions_per_op=math.nan, ops_per_iteration=math.nan)
    elif bound == "memory" and not _positive(core_ns):  # which binds is unknown without the core's limit
        bound, text = (
            "",
            verdict("memory", level_name, share).replace(": memory-bound", " the memory limit")
            + ("; no core limit" if explain.get("function") else ""),
        )
    out.update(
        core_limit_cycles_per_op=cycles,
        core_limit_ns_per_op=core_ns,
        memory_level=level_name,
        memory_limit_ns_per_op=memory_ns,
        limit_bound=bound,
        limit_ns_per_op=limit_ns,
        limit_share=share,
        limit_text=text,
        explain_missing="; ".join(missing),
    )
    return out


def _positive(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def _number(x) -> float:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan
