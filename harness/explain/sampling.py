"""Where the timed calls spend their time, measured: a software sampling profiler (c/sampler.c) run over extra
calls of the batch, after its timed passes, whose samples fall into the loops of the disassembled module. It
needs no hardware counters, so it works on the virtual machines that have none; where the helper cannot be built
(no compiler: then there are no C rows either), the hot loop is judged from the code alone (swarbench.explain.asm).

Numba's code lives in memory its JIT made, which no module file holds: those samples are kept by address (under
JIT), and swarbench.explain.case places them in the function it read from that memory.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from swarbench import cbuild

SOURCE = Path(__file__).parent / "c" / "sampler.c"
CDEF = """
int sampler_start(int interval_us);
size_t sampler_stop(void);
int sampler_where(size_t i, char *file, size_t file_size, uint64_t *offset);
uint64_t sampler_address(size_t i);
"""
JIT = ""  # the samples no module file holds (a JIT's code), by address
INTERVAL_US = 200  # the shortest interval between two samples
SAMPLE_FOR_S = 0.05  # calls of the batch until this much time has passed (at least one call)
MOST_CALLS = 1000
# Each tick costs the sampled thread a signal: microseconds on bare metal, a few hundred in a VM whose timer
# interrupts exit to its host. A long call is sampled more sparsely: a batch's sampling adds about this many
# ticks at most.
SAMPLES = 1000


def interval_us(call_s: float) -> int:
    """The interval between samples for batches of ``call_s`` s: INTERVAL_US, or longer where SAMPLES of
    them would not cover the calls sampled (a call of over SAMPLE_FOR_S)."""
    return max(INTERVAL_US, int(max(call_s, SAMPLE_FOR_S) * 1e6 / SAMPLES))


def sample(batch: Callable[[], Any], call_s: float) -> tuple[dict[str, Counter] | None, int, str]:
    """Samples of extra calls of ``batch`` by module file: ({file: Counter(offset), JIT: Counter(address)},
    samples in all, '') or (None, 0, why there are none)."""
    try:
        module = cbuild.build("explain_sampler", SOURCE, CDEF)
    except cbuild.BuildError as exc:
        return None, 0, f"no sampling profiler: {exc}"
    lib, ffi = module.lib, module.ffi
    calls = max(1, min(MOST_CALLS, int(SAMPLE_FOR_S / max(call_s, 1e-9))))
    if lib.sampler_start(interval_us(call_s)) != 0:
        lib.sampler_stop()
        return None, 0, f"no sampling profiler: its timer could not start ({os.strerror(ffi.errno)})"
    try:
        start = time.perf_counter()
        for _ in range(calls):
            batch()
            if time.perf_counter() - start > 2 * SAMPLE_FOR_S:
                break
    finally:
        taken = lib.sampler_stop()
    by_file: dict[str, Counter] = {}
    name, offset = ffi.new("char[4096]"), ffi.new("uint64_t *")
    for i in range(taken):
        if lib.sampler_where(i, name, 4096, offset):
            by_file.setdefault(os.path.realpath(ffi.string(name).decode(errors="replace")), Counter())[offset[0]] += 1
        else:
            by_file.setdefault(JIT, Counter())[lib.sampler_address(i)] += 1
    return by_file, taken, ""
