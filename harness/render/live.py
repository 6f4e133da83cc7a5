"""The live display of `swarbench run`, fed by the engine with each worker event as it happens (the workers'
own progress reports are swarbench.progress; this draws them).

On a terminal one line is rewritten in place (which worker, which case, what it is doing, how many are left)
and each finished case leaves a line; elsewhere (CI logs) only the finished cases are written.
"""

from __future__ import annotations

import sys

from swarbench.runfolder import (
    BuildLine,
    CaseId,
    PhaseLine,
    PlanLine,
    ProgressLine,
    Record,
    ResultLine,
    StartLine,
    Status,
    record,
)

BAR_WIDTH = 24


def bar(done: int, total: int, what: str = "") -> str:
    """``[#########...............] 37% 400,000/1,073,741,824 scores``"""
    share = min(max(done / total, 0.0), 1.0) if total > 0 else 0.0
    filled = int(round(share * BAR_WIDTH))
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {share:4.0%} {done:,}/{total:,} {what}".rstrip()


class LiveDisplay:
    def __init__(self, workers: int, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.workers = workers
        self.planned: dict[int, int] = {}
        self.finished: dict[int, int] = {}
        self.current = ""

    def _left(self, worker: int) -> str:
        total = self.planned.get(worker, 0)
        done = self.finished.get(worker, 0)
        who = (
            f"worker {worker + 1}/{self.workers}"
            if worker < self.workers
            else f"extra worker {worker - self.workers + 1} (cases whose workers disagree)"
        )
        return f"{who}, {done}/{total} done, {max(total - done, 0)} left"

    @staticmethod
    def _label(case: str) -> str:
        try:
            c = CaseId.parse(case)
        except ValueError:  # (a line of a later version, or none yet)
            return case
        return f"{c.kernel} {c.implementation} ({c.workload}{'' if c.size is None else f', n={c.size}'})"

    def __call__(self, event: Record | dict) -> None:
        event = record(event)  # (a line as the engine reads it, or as JSON)
        if isinstance(event, PlanLine):
            # A resumed worker plans only what is left; count what it already finished on top.
            self.planned[event.worker] = self.finished.get(event.worker, 0) + len(event.cases)
            return
        if isinstance(event, BuildLine):  # the build step before the first worker (swarbench.prebuild)
            self._write(
                f"build step: {event.builds} builds (C, Numba) and {event.workloads} workloads in "
                f"{float(event.seconds or 0):.1f} s\n"
            )
            return
        if isinstance(event, (StartLine, PhaseLine, ProgressLine)):
            what = event.phase if not isinstance(event, StartLine) else "starting"
            if isinstance(event, ProgressLine):
                what += " " + bar(event.done, event.total, event.what)
            self.current = f"[{self._left(event.worker)}] {self._label(event.case)}: {what}"
            if self.tty:
                self._write("\r\x1b[K" + self.current)
            return
        if not isinstance(event, ResultLine):  # the run's first line, and whatever else a later version writes
            return
        worker = event.worker
        self.finished[worker] = self.finished.get(worker, 0) + 1
        if event.status is Status.PASS and event.samples_s:
            what = event.median_text()
        else:
            what = f"{event.status or '?'} {event.reason}".strip()
        line = f"[{self._left(worker)}] {self._label(event.case)}: {what}"
        self._write(("\r\x1b[K" if self.tty else "") + line + "\n")

    def _write(self, text: str) -> None:
        """Show ``text``; a display nobody reads any more (``swarbench run 2>&1 | head``: the pipe closed) is
        dropped, and the run it reports on goes on to its saved results."""
        if self.stream is None:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.stream = None
