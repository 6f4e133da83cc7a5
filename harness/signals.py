"""The signals that end a run: Ctrl-C, and those taken as one (``kill``, a CI job's time-out, a closed terminal),
so that what was measured is saved; and, while the results file is written, none at all."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

# Signals that end a run the way Ctrl-C does (what measured so far is saved): `kill`, a CI job's timeout, a
# closed terminal
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A stop signal other than Ctrl-C (STOP_SIGNALS), taken as one. Unlike Ctrl-C from a terminal it reaches
    this process alone, so the worker has to be told."""


@contextmanager
def stop_signals_interrupt():
    """STOP_SIGNALS raise Stopped (a KeyboardInterrupt) while the workers run, so they end a run as Ctrl-C
    does. Signal handlers can only be set in the main thread; elsewhere (a test's thread) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Stopped(signal.Signals(signum).name)

    before = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


@contextmanager
def signals_deferred():
    """Ctrl-C and STOP_SIGNALS are held back while the results file is written, and reported afterwards in the
    list this yields (non-empty: the run was interrupted)."""
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield caught
        return
    before = {
        sig: signal.signal(sig, lambda signum, frame: caught.append(signum)) for sig in (signal.SIGINT, *STOP_SIGNALS)
    }
    try:
        yield caught
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
