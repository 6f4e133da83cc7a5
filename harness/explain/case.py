"""A case's explanation, made in the worker after its timed passes: the bytes an op must move, the compiled code
its batch called, that code's hot loop, and llvm-mca's prediction for the loop. One JSON-able dict, the
``explain`` field of the case's result line; what could not be found says why in ``missing``.

llvm-mca's prediction for a loop is kept in the cache folder under the tool, the CPU model and the loop's text; the
whole reading of a case's code (its hot loop, found by sampling, and what it costs) is kept there too, under the
code's identity (timed_code.identity), the machine and the bytes an op moves, so the next run of the same code on
the same machine reads it back instead of sampling the batch again, and says the same of it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import platform
from collections import Counter
from collections.abc import Callable
from typing import Any

from swarbench import files
from swarbench.explain import asm, mca, sampling
from swarbench.explain.timed_code import Called, called_by, code_of, identity, objdump, short_name

SCHEMA = 2  # raise when the analysis changes, so kept analyses are made again
CALL_LIMIT_S = 1.0  # a batch slower than this is not called again to see what it calls
# The samples a nest's outer loop needs in its own instructions: they divide every inner loop's count, and k
# samples are off by about 1/sqrt(k) (1, 2 and 13 made poker.popcount c-naive's inner loop 99, 33 and 8 runs).
MIN_OWN_SAMPLES = 30
NOT_COMPILED = ("python", "numpy")  # families whose batches call no compiled kernel of their own
NO_EXPLAIN = "its code was not read: the run was given --no-explain"
# A case's code and hot loop are the same in every worker of a run: the first reads them (sampling costs a twentieth
# of a second a case), the others keep to their timing.
READ_BY_FIRST_WORKER = "its code is read by the run's first worker"
WHOLE_OP = "not counted: an op of this kernel is a whole computation of its own, not an element its loop streams"


def _arrays(value: Any) -> list:
    from swarbench.model import _arrays as arrays

    return arrays(value)


def traffic(workload, expected: Any, n: int) -> dict:
    """The bytes an op must move at the least, from the workload's arrays: its inputs read once, its outputs
    written once (the reference's outputs stand for them), and the bytes a batch keeps in play."""
    read = workload.input_bytes
    written = sum(a.nbytes for a in _arrays(expected) if a.dtype != object)
    n = max(int(n), 1)
    return {"bytes_read_per_op": read / n, "bytes_written_per_op": written / n, "working_set_bytes": read + written}


def explain_case(
    batch: Callable[[], Any],
    call_s: float,
    family: str,
    workload,
    expected: Any,
    n: int,
    code: bool = True,
    op_is_element: bool = True,
    code_not_read: str = NO_EXPLAIN,
) -> dict:
    """Everything the results need to set the case beside its limits; never raises for a case it cannot read.
    Without ``code`` (`swarbench run --no-explain`, or a worker after the first), only the traffic: the batch is
    not called again, and ``code_not_read`` says why. Without ``op_is_element`` (the kernel's
    Kernel.op_is_element), no operations an iteration are counted."""
    out: dict = traffic(workload, expected, n)
    if str(family).startswith(NOT_COMPILED):
        out["missing"] = "no compiled code of its own (a Python or NumPy family)"
        return out
    if not code:
        out["missing"] = code_not_read
        return out
    if platform.machine().lower() not in ("x86_64", "amd64"):
        out["missing"] = f"the disassembly is read for x86-64 only, not {platform.machine()}"
        return out
    if math.isnan(call_s) or call_s > CALL_LIMIT_S:
        out["missing"] = f"a batch of {call_s:.3g} s is not called again to see what it calls"
        return out
    try:
        called = called_by(batch)
    except Exception as exc:  # the batch raised on this extra call: its timed calls did not, so say it
        out["missing"] = f"calling the batch once more to see what it calls raised {type(exc).__name__}: {exc}"
        return out
    if not called:
        out["missing"] = "its batch called no cffi function and no Numba function"
        return out
    written = out["bytes_written_per_op"]
    read = _prepared_read_per_op(batch, written, n)
    path = _kept_path(called, n, written, read, op_is_element)
    kept = _read_kept(path)
    if kept is not None:
        out.update(kept)
        return out
    samples, _, why = sampling.sample(batch, call_s)
    reading = analyse(called, written, read, samples, why, op_is_element)
    if samples is not None and "hot_from" in reading:  # a reading from the code alone is made again next time
        _keep(path, reading)
    out.update(reading)
    return out


def _kept_path(called: list[Called], n: int, written: float, read: float | None, op_is_element: bool):
    """Where the reading of this code is kept: under what decides every called entry's code (a C module's digest,
    a Numba function's source, signature and target: timed_code.identity), the machine's CPU, its disassembler and
    llvm-mca, the batch's size and the bytes an op moves."""
    from swarbench.cbuild import cache_dir

    tool, _ = mca.find()
    machine = [platform.machine(), _cpu_model(), os.cpu_count(), tool.label if tool else "", objdump()[0]]
    codes = [identity(c) for c in called]
    key = json.dumps([SCHEMA, codes, machine, int(n), written, read, op_is_element], default=str)
    return cache_dir().parent / "explain" / f"case-{hashlib.sha256(key.encode()).hexdigest()[:24]}.json"


@functools.cache
def _cpu_model() -> str:
    """The CPU's model name (the analysis names the llvm-mca model chosen for it)."""
    try:
        with open("/proc/cpuinfo") as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        return ""


def _read_kept(path) -> dict | None:
    if path is None:
        return None
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and "hot_from" in kept else None


def _keep(path, reading: dict) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, json.dumps(reading))
    except (OSError, TypeError, ValueError):
        pass  # a reading not kept is made again next time


def _prepared_read_per_op(batch, written_per_op: float, n: int) -> float | None:
    """Bytes an op reads in the layout the implementation prepared: the arrays its batch holds whose first
    dimension is the batch's size (its converted inputs and its outputs; a table it looks up is not read whole
    every op), less what an op writes; None where that leaves nothing (no input streams an element an op)."""
    from swarbench.explain.timed_code import _reachable_objects

    arrays = {
        id(a): a for a in _reachable_objects(batch) if type(a).__name__ == "ndarray" and a.ndim and a.shape[0] == n
    }
    per_op = sum(a.nbytes for a in arrays.values()) / max(n, 1) - written_per_op
    return per_op if per_op > 0 else None


def analyse(
    called: list[Called],
    written_per_op: float,
    read_per_op: float | None,
    samples: dict[str, Counter] | None = None,
    sampled_why: str = "",
    op_is_element: bool = True,
) -> dict:
    """The hot loop of the code ``called`` and what it costs: the innermost loop most samples fell in where the
    batch was sampled, else the one the code alone points at (asm.hot_loop)."""
    tool, tool_missing = mca.find()
    cpu, cpu_note = mca.choose_cpu(tool) if tool else ("", tool_missing)
    codes, missing = [], []
    for c in called:
        code, why = code_of(c)
        if code is None:
            missing.append(why)
        else:
            codes.append((c, code))
    if not codes:
        return {"missing": "; ".join(missing), "called": [c.name for c in called]}
    first_called, first_code = codes[0]
    out: dict = {
        "kind": first_called.kind,
        "called": [c.name for c, _ in codes],
        "origin": first_code.origin,
        "sha256": first_code.sha256,
    }
    found, taken_in = None, Counter()
    for c, code in codes:
        if code.loaded_at:  # a JIT's code: its samples by address, placed at offsets from its start
            end = max(i.address for f in code.functions.values() for i in f.instructions)
            taken = Counter(
                {
                    a - code.loaded_at: k
                    for a, k in (samples or {}).get(sampling.JIT, {}).items()
                    if 0 <= a - code.loaded_at <= end
                }
            )
        else:
            taken = (samples or {}).get(os.path.realpath(c.path)) if c.kind == "c" and c.path else None
        if taken:
            hit = asm.sampled_hot_loop([code.functions[n] for n in code.entry], taken)
            if hit and (found is None or hit[2] > found[3]):
                found, taken_in = (code, hit[0], hit[1], hit[2], sum(taken.values())), taken
    if found is not None:
        code, function, loop, hits, in_module = found
        out["hot_from"] = (
            f"sampled: {hits:,} of the {in_module:,} samples in this code, over extra calls of the "
            "batch, fell in this loop"
        )
        out["loop_share"] = hits / in_module
    else:
        reached = [(code, code.functions[name]) for _, code in codes for name in code.entry]
        best = asm.hot_loop(f for _, f in reached)
        if best is None:
            function = first_code.functions[first_code.entry[0]]
            out.update(
                function=short_name(function.name),
                listing=asm.listing(function, None),
                missing="; ".join(missing + ["no loop in the code it called"]),
            )
            return out
        function, loop = best
        code = next(code for code, f in reached if f is function)
        why = sampled_why or "no sample fell in any of its loops"
        out["hot_from"] = (
            f"judged from the code ({why}): the innermost loop with the widest vectors, then the "
            "most bytes moved an iteration"
        )
    cost = asm.cost(function, loop)
    ops, ops_from = ops_per_iteration(cost, written_per_op, read_per_op) if op_is_element else (None, WHOLE_OP)
    out.update(
        origin=code.origin,
        sha256=code.sha256,
        function=short_name(function.name),
        loop={
            "header": _address(function, loop.header),
            "instructions": cost.instructions,
            "loaded": cost.loaded,
            "stored": cost.stored,
            "vector_bytes": cost.vector_bytes,
            "calls": cost.calls,
        },
        ops_per_iteration=ops,
        ops_from=ops_from,
        instructions_per_op=cost.instructions / ops if ops else None,
        listing=asm.listing(function, loop),
    )
    speed = (lambda addresses: predicted(tool, cpu, asm.mca_source(function, addresses))) if tool and cpu else None
    if tool is None or not cpu:
        missing.append(cpu_note or "no llvm-mca")
    else:
        prediction, why = speed(loop.addresses)
        if prediction is None:
            missing.append(why)
        else:
            out["mca"] = {"tool": tool.label, "cpu": cpu, "cpu_note": cpu_note, **prediction}
    if ops is None and taken_in and op_is_element:
        around = nested(function, loop, taken_in, written_per_op, speed)
        if isinstance(around, str):
            out["ops_from"] = f"{ops_from}; {around}"
        elif around:
            outer, estimate = around
            out.update(estimate, listing=asm.listing(function, loop, around=outer))
            if "mca" in out and "cycles_per_iteration" in estimate.get("nest", {}):
                out["mca"]["cycles_per_iteration"] = estimate["nest"]["cycles_per_iteration"]
    if missing:
        out["missing"] = "; ".join(missing)
    return out


def _address(function: asm.Function, address: int) -> str:
    return str(address) if function.numbered else f"{address:x}"


def nested(
    function: asm.Function, loop: asm.Loop, taken: Counter, written_per_op: float, speed
) -> tuple[asm.Loop, dict] | str | None:
    """A hot loop that runs inside one op, set in the nearest loop around it whose own instructions store the
    outputs: an iteration of that loop is ``ops`` operations, and each of its child loops runs as many times an
    iteration as its samples say, at the speed llvm-mca gives it (the instructions' count where there is no
    llvm-mca) against that of the loop's own instructions. The figures are then per iteration of that loop.
    None where no loop around it stores the outputs; where one does but too few samples fell in its own
    instructions to tell how often the hot loop runs in it, the reason."""
    for outer, children, own in asm.nest(function, loop):
        stored = asm.cost(function, own).stored
        if not stored or written_per_op <= 0:
            continue
        ops = _round(stored / written_per_op)
        own_samples = sum(taken.get(a, 0) for a in own)
        if own_samples < MIN_OWN_SAMPLES:
            return (
                f"the loop around it, at {_address(function, outer.header)}, stores the outputs, but "
                f"{own_samples} of the samples fell in its own instructions, too few to tell how often this one "
                f"runs in it ({MIN_OWN_SAMPLES} needed)"
            )
        parts = [(own, 1.0)]
        for child in children:
            parts.append((child.addresses, None))
        figures = []
        for addresses, _ in parts:
            instructions = asm.cost(function, addresses).instructions
            cycles = None
            if speed is not None:
                prediction, _ = speed(addresses)
                cycles = prediction["cycles_per_iteration"] if prediction else None
            figures.append((addresses, instructions, cycles))
        use_cycles = all(f[2] for f in figures)
        own_speed = figures[0][2] if use_cycles else figures[0][1]
        per_outer, instructions, cycles = [], 0.0, 0.0
        for (addresses, count, c), _ in zip(figures, parts):
            samples = sum(taken.get(a, 0) for a in addresses)
            runs = 1.0 if addresses is own else (samples / (c if use_cycles else count)) / (own_samples / own_speed)
            instructions += runs * count
            cycles += runs * (c or 0.0)
            if addresses is not own:
                per_outer.append(
                    {
                        "header": _address(function, addresses[0]),
                        "instructions": count,
                        "runs_per_outer_iteration": round(runs, 3),
                    }
                )
        estimate = {
            "ops_per_iteration": ops,
            "instructions_per_op": instructions / ops,
            "ops_from": (
                f"the loop around it, at {_address(function, outer.header)}, stores {stored} bytes "
                f"an iteration ({written_per_op:g} an op); its inner loops' runs an iteration "
                "estimated from their samples at "
                + ("llvm-mca's speeds" if use_cycles else "one speed for every instruction")
            ),
            "nest": {
                "outer_header": _address(function, outer.header),
                "instructions": instructions,
                "inner": per_outer,
            },
        }
        if use_cycles:
            estimate["nest"]["cycles_per_iteration"] = cycles
        return outer, estimate
    return None


def predicted(tool: mca.Tool, cpu: str, source: str) -> tuple[dict | None, str]:
    """llvm-mca's prediction for a loop, kept in the cache folder by tool, CPU and source."""
    from swarbench.cbuild import cache_dir

    key = hashlib.sha256(json.dumps([SCHEMA, tool.label, cpu, source]).encode()).hexdigest()[:24]
    path = cache_dir().parent / "explain" / f"mca-{key}.json"
    try:
        kept = json.loads(path.read_text())
        if isinstance(kept, dict) and "cycles_per_iteration" in kept:
            return kept, ""
    except (OSError, ValueError):
        pass
    prediction, why = mca.predict(tool, cpu, source)
    if prediction is None:
        return None, why
    result = {k: v for k, v in prediction.to_json().items() if k != "pressure"}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, json.dumps(result))
    except OSError:
        pass
    return result, ""


def ops_per_iteration(cost: asm.LoopCost, written_per_op: float, read_per_op: float | None) -> tuple[float | None, str]:
    """How many operations one iteration of the loop does: its stored bytes over the bytes an op writes, or
    where it stores nothing, its loaded bytes over the bytes an op reads from arrays of one element an op; None
    where neither tells (a loop that stores nothing and streams no such array runs inside one op)."""
    if cost.stored and written_per_op > 0:
        return _round(cost.stored / written_per_op), (
            f"its stores: {cost.stored} bytes an iteration, {written_per_op:g} an op"
        )
    if cost.loaded and read_per_op:
        return _round(cost.loaded / read_per_op), (
            f"its loads: {cost.loaded} bytes an iteration, {read_per_op:g} an op"
        )
    return None, (
        "unknown: the loop stores nothing and streams no array of one element an op, so it runs "
        "inside one op, as many times as the op needs"
    )


def _round(x: float) -> float:
    """A whole number of operations where it is nearly one (a loop of 4 stores of 1 byte is 4 ops, not 3.99)."""
    return float(round(x)) if x >= 1 and abs(x - round(x)) < 0.05 * x else round(x, 4)


def finite(x) -> float | None:
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None
