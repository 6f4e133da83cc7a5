"""Progress from inside long work: ``swarbench.progress.advance(done, total)``.

A reference over a billion pairs or a search forty moves deep can take minutes in one call; this lets it say how
far it got. In a benchmark worker the session (swarbench.bench.session) installs a reporter while inputs are
generated and checked (never while a batch is timed), which writes ``progress`` events to the record file; the
live display of ``swarbench run`` (swarbench.render.live) draws them as a bar. Anywhere else ``advance`` does
nothing unless a reporter is set.

A call costs a function call and a clock read: make one per chunk of work, not one per operation.
"""

from __future__ import annotations

import contextlib
import time
from typing import Callable, Iterator, Optional

Reporter = Callable[[int, int, str], None]
INTERVAL_S = 0.5  # at most two reports a second reach the reporter (and the last one always does)

_reporter: Optional[Reporter] = None
_last = 0.0


def advance(done: int, total: int, what: str = "") -> None:
    """Say that ``done`` of ``total`` units of the current work are finished (``what`` names the unit)."""
    global _last
    if _reporter is None:
        return
    now = time.monotonic()
    if done < total and now - _last < INTERVAL_S:
        return
    _last = now
    _reporter(int(done), int(total), what)


@contextlib.contextmanager
def reporting(reporter: Optional[Reporter]) -> Iterator[None]:
    """Route ``advance`` calls to ``reporter`` inside the block (None silences them)."""
    global _reporter, _last
    saved, _reporter, _last = _reporter, reporter, 0.0
    try:
        yield
    finally:
        _reporter = saved
