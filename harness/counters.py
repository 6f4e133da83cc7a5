"""Hardware counters (cycles, instructions) around a batch call, through Linux's perf_event_open.

Written here with ctypes because no maintained Python binding of perf_event_open exists on PyPI, and running
`perf stat` around a worker would count the harness's own Python along with the kernel. The counters are read
after timing, over a few extra calls of the batch, never inside pytest-benchmark's timed rounds.

Counting needs a CPU whose counters the kernel exposes: most virtual machines expose none (perf_event_open
then fails with ENOENT), and ``kernel.perf_event_paranoid`` above 2 forbids it. ``unavailable()`` says why,
and the results keep only the estimate from the clock.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import os
import platform
import struct
from typing import Callable, Optional

# perf_event_attr: type (u32), size (u32), config (u64), ..., the flag bits at offset 40.
ATTR_SIZE = 128
TYPE_HARDWARE, TYPE_SOFTWARE = 0, 1
HW_CPU_CYCLES, HW_INSTRUCTIONS, HW_CACHE_MISSES, HW_BRANCH_MISSES = 0, 1, 3, 5
SW_TASK_CLOCK = 1
FLAG_DISABLED, FLAG_EXCLUDE_KERNEL, FLAG_EXCLUDE_HV = 1 << 0, 1 << 5, 1 << 6
IOC_ENABLE, IOC_DISABLE, IOC_RESET = 0x2400, 0x2401, 0x2403
SYSCALL = {"x86_64": 298, "aarch64": 241}

HARDWARE = {"cycles": (TYPE_HARDWARE, HW_CPU_CYCLES), "instructions": (TYPE_HARDWARE, HW_INSTRUCTIONS)}
# Counted too where the machine has them (a virtual machine may expose cycles and instructions alone)
MISSES = {"branch_misses": (TYPE_HARDWARE, HW_BRANCH_MISSES), "cache_misses": (TYPE_HARDWARE, HW_CACHE_MISSES)}
COUNT_FOR_S = 0.02  # count over about this much of the batch (at least one call)


class CounterError(OSError):
    pass


def _open(kind: int, config: int) -> int:
    number = SYSCALL.get(platform.machine())
    if number is None or os.name != "posix":
        raise CounterError(errno.ENOSYS, f"perf_event_open is not wired for {platform.machine()}")
    attr = bytearray(ATTR_SIZE)
    struct.pack_into("IIQ", attr, 0, kind, ATTR_SIZE, config)
    struct.pack_into("Q", attr, 40, FLAG_DISABLED | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV)
    libc = ctypes.CDLL(None, use_errno=True)
    buf = (ctypes.c_char * ATTR_SIZE).from_buffer(attr)
    fd = libc.syscall(number, buf, 0, -1, -1, 0)  # this thread, any CPU, no group, no flags
    if fd < 0:
        code = ctypes.get_errno()
        raise CounterError(code, os.strerror(code))
    return fd


class Counters:
    """Open counters for this thread: ``with Counters(events) as c: work(); c.read() -> {name: count}``."""

    def __init__(self, events: dict[str, tuple[int, int]], optional: Optional[dict[str, tuple[int, int]]] = None):
        self.fds: dict[str, int] = {}
        try:
            for name, (kind, config) in events.items():
                self.fds[name] = _open(kind, config)
        except CounterError:
            self.close()
            raise
        for name, (kind, config) in (optional or {}).items():  # left out where the machine lacks them
            try:
                self.fds[name] = _open(kind, config)
            except CounterError:
                pass

    def __enter__(self):
        for fd in self.fds.values():
            fcntl.ioctl(fd, IOC_RESET, 0)
            fcntl.ioctl(fd, IOC_ENABLE, 0)
        return self

    def __exit__(self, *exc):
        for fd in self.fds.values():
            fcntl.ioctl(fd, IOC_DISABLE, 0)

    def read(self) -> dict[str, int]:
        return {name: struct.unpack("Q", os.read(fd, 8))[0] for name, fd in self.fds.items()}

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}


@functools.lru_cache(maxsize=None)
def unavailable() -> str:
    """'' when cycles and instructions can be counted here, else why not (one line)."""
    try:
        Counters(HARDWARE).close()
    except CounterError as exc:
        if exc.errno == errno.ENOENT:
            return "no hardware counters exposed to this system (perf_event_open: ENOENT; a virtual machine?)"
        if exc.errno in (errno.EACCES, errno.EPERM):
            return "perf_event_open not permitted (kernel.perf_event_paranoid)"
        return f"perf_event_open failed: {exc.strerror}"
    return ""


def count(
    batch: Callable[[], object], call_s: float, events: Optional[dict[str, tuple[int, int]]] = None
) -> tuple[dict[str, int], int]:
    """Count ``events`` (default cycles and instructions, and the misses where the machine counts them) over
    enough calls of ``batch`` to last about COUNT_FOR_S; returns (counts, calls)."""
    calls = max(1, min(1000, int(COUNT_FOR_S / max(call_s, 1e-9))))
    counters = Counters(events or HARDWARE, None if events else MISSES)
    try:
        with counters:
            for _ in range(calls):
                batch()
        return counters.read(), calls
    finally:
        counters.close()


def per_op(counts: dict[str, int], calls: int, n: int) -> dict[str, float]:
    """Counts per operation: what the results keep (``hw_cycles_per_op``, ``hw_instructions_per_op``,
    ``hw_branch_misses_per_op``, ``hw_cache_misses_per_op``)."""
    ops = max(calls, 1) * max(int(n), 1)
    return {f"hw_{name}_per_op": value / ops for name, value in counts.items()}


def software_clock_events() -> dict[str, tuple[int, int]]:
    """The task clock (ns on CPU): a software event that works where hardware counters do not, so tests can
    prove the counting path on any Linux machine."""
    return {"task_clock_ns": (TYPE_SOFTWARE, SW_TASK_CLOCK)}
