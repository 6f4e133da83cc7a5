"""The live display of `swarbench run`, fed by the engine with each worker event as it happens (the workers'
own progress reports are swarbench.progress; this draws them).

On a terminal one line is rewritten in place (which worker, which case, what it is doing, how many are left)
and each finished case leaves a line; elsewhere (CI logs) only the finished cases are written.
"""
from __future__ import annotations

import sys


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
        who = f"worker {worker + 1}/{self.workers}" if worker < self.workers else \
            f"extra worker {worker - self.workers + 1} (cases whose workers disagree)"
        return f"{who}, {done}/{total} done, {max(total - done, 0)} left"

    @staticmethod
    def _label(case: str) -> str:
        kernel, impl, workload, size = (case.split(":", 3) + ["", "", ""])[:4]
        return f"{kernel} {impl} ({workload}{'' if size.endswith('default') else ', ' + size})"

    def __call__(self, event: dict) -> None:
        kind, worker = event.get("event", "result"), event.get("worker", 0)
        if kind == "plan":
            # A resumed worker plans only what is left; count what it already finished on top.
            self.planned[worker] = self.finished.get(worker, 0) + len(event.get("cases", []))
            return
        if kind == "build":  # the build step before the first worker (swarbench.prebuild)
            self._write(f"build step: {event.get('builds', 0)} builds (C, Numba) and {event.get('workloads', 0)} "
                        f"workloads in {float(event.get('seconds') or 0):.1f} s\n")
            return
        label = self._label(str(event.get("case", "")))
        if kind in ("start", "phase", "progress"):
            what = event.get("phase", "starting")
            if kind == "progress":
                what += " " + bar(event.get("done", 0), event.get("total", 0), event.get("what", ""))
            self.current = f"[{self._left(worker)}] {label}: {what}"
            if self.tty:
                self._write("\r\x1b[K" + self.current)
            return
        if kind != "result":  # the run's first line, and whatever else a later engine or worker writes
            return
        self.finished[worker] = self.finished.get(worker, 0) + 1
        status = event.get("status", "?")
        samples = sorted(event.get("samples_s") or [])
        if status == "PASS" and samples:
            what = f"PASS {samples[len(samples) // 2] * 1e9 / max(int(event.get('n') or 1), 1):.4g} ns/op"
        else:
            what = f"{status} {event.get('reason', '')}".strip()
        line = f"[{self._left(worker)}] {label}: {what}"
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
