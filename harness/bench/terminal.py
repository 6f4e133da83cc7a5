"""A worker's own progress line on stderr (--swarbench-progress), for plain ``pytest`` runs: ``swarbench run``
draws its display from the record file instead (swarbench.render.live)."""

from __future__ import annotations

import sys


class TerminalLine:
    def __init__(self, enabled: bool, worker: int):
        self.enabled, self.worker = enabled, worker
        self.done = 0
        self.total = 0

    def say(self, label: str, what: str, final: bool = False) -> None:
        """What the current case is doing; ``final``: how it ended, counted as done."""
        if final:
            self.done += 1
        if not self.enabled:
            return
        left = f" ({self.total - self.done - (0 if final else 1)} left)"
        line = f"[w{self.worker} {self.done + (0 if final else 1):>3}/{self.total}] {label}: {what}{left}"
        stream = sys.__stderr__
        if stream.isatty():  # one line that updates in place, kept when the case is done
            stream.write("\r\x1b[K" + line + ("\n" if final else ""))
        elif final:
            stream.write(line + "\n")
        stream.flush()
