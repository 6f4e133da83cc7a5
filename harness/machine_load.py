"""What else the machine did while a worker ran, as the kernel counts it: other programs' CPU time, time the
hypervisor gave to other guests (steal), and how many other programs waited to run.

The engine polls this while it waits on a worker (``LoadMonitor.poll``, every few tenths of a second): it reads
/proc/stat and the worker's and its own /proc/PID/stat, costs the worker nothing, and writes a ``load`` line to
the records each second. A report names other programs only where these lines show them
(swarbench.results.steadiness); a machine without /proc (macOS, Windows) writes none, and nothing is named.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Optional

from swarbench.runfolder import LoadLine, RunFolder

LINE_EVERY_S = 1.0  # a load line covers this much of the run, or the rest of a worker's run

try:
    TICKS_PER_S = os.sysconf("SC_CLK_TCK")
except (ValueError, OSError, AttributeError):
    TICKS_PER_S = 100


def cpu_ticks() -> Optional[tuple[int, int, int]]:
    """(busy, steal, procs_running) of the whole machine from /proc/stat: busy and steal in clock ticks summed
    over every CPU; None where there is no /proc/stat."""
    try:
        text = Path("/proc/stat").read_text()
    except OSError:
        return None
    busy = steal = running = 0
    for line in text.splitlines():
        if line.startswith("cpu "):
            v = [int(x) for x in line.split()[1:]]
            # user nice system idle iowait irq softirq steal (guest time is counted in user already)
            busy, steal = v[0] + v[1] + v[2] + v[5] + v[6], v[7] if len(v) > 7 else 0
        elif line.startswith("procs_running "):
            running = int(line.split()[1])
    return busy, steal, running


def process_ticks(pid, children: bool = True) -> int:
    """A process's user and system time in clock ticks, its threads' included and, with ``children``, that of
    the children it waited for (a worker's compiler); 0 for one that is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = text[text.rfind(")") + 2 :].split()  # (the command name may hold spaces)
    return sum(int(x) for x in fields[11 : 15 if children else 13])  # utime stime cutime cstime


class LoadMonitor:
    """Polled by the engine while worker ``worker`` runs; appends a ``load`` line (runfolder.LoadLine) to the
    run folder's records each LINE_EVERY_S: the span it covers, the CPUs other programs kept busy (``others_cpus``, the machine's busy time
    less the worker's and the engine's), those steal took (``steal_cpus``), the mean number of other programs
    ready to run (``queue``) and the machine's CPUs."""

    def __init__(self, folder: RunFolder, worker: int):
        self.folder, self.worker = folder, worker
        self.cpus = os.cpu_count() or 1
        self._start: Optional[tuple] = None  # (time, busy, steal, own ticks) at the line's start
        self._queue: list[int] = []

    def _own_ticks(self, pid) -> int:
        # (not the engine's children: a worker it has waited for moves all its time there at once)
        return process_ticks(pid) + process_ticks("self", children=False)

    def poll(self, pid: int) -> None:
        machine = cpu_ticks()
        if machine is None:
            return
        now = time.time()
        busy, steal, running = machine
        # the worker (when running) and this process, reading, are in procs_running
        self._queue.append(max(running - 2, 0))
        if self._start is None:
            self._start = (now, busy, steal, self._own_ticks(pid))
            return
        if now - self._start[0] >= LINE_EVERY_S:
            self._write(now, busy, steal, self._own_ticks(pid))

    def close(self, pid: int) -> None:
        """The worker ended: a last line for the time since the last one."""
        machine = cpu_ticks()
        if machine is not None and self._start is not None and time.time() - self._start[0] > 0.1:
            self._write(time.time(), machine[0], machine[1], self._own_ticks(pid))

    def _write(self, now: float, busy: int, steal: int, own: int) -> None:
        t0, busy0, steal0, own0 = self._start
        span = max(now - t0, 1e-3) * TICKS_PER_S
        line = LoadLine(
            worker=self.worker,
            t=[round(t0, 3), round(now, 3)],
            # (clock ticks are counted per CPU at 100 Hz: a second's count can run a tick over)
            others_cpus=round(min(max(busy - busy0 - (own - own0), 0) / span, self.cpus), 3),
            steal_cpus=round((steal - steal0) / span, 3),
            queue=round(sum(self._queue) / len(self._queue), 2),
            cpus=self.cpus,
        )
        try:
            self.folder.append(line, durable=False)
        except OSError:  # a full disk: the worker's own lines say so; this line only adds colour
            pass
        self._start, self._queue = (now, busy, steal, own), []
