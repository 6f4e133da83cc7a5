"""Watching one benchmark worker (a child ``python -m pytest``) through the record file it writes.

A ``start`` line goes before each pass of a case and a ``result`` line after its last: a worker killed by a
signal (a segfault in C) or stuck in one case past ``--timeout`` is stopped, and what ended it (``WorkerEnd``)
names the case it was in. An interrupted worker is given INTERRUPT_GRACE_S to write what it measured.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from swarbench.machine_load import LoadMonitor
from swarbench.runfolder import PYTEST_LOG, RECORD_FAILED_EXIT, PhaseLine, Record, ResultLine, RunFolder, StartLine
from swarbench.bench.isolation import PARENT_ENV
from swarbench.signals import Stopped

INTERRUPT_GRACE_S = 10  # an interrupted worker's time to write what it measured before it is stopped


@dataclass
class WorkerEnd:
    kind: str  # "done", "crashed", "timeout", "interrupted", "stuck" (outside any case)
    code: int
    case: Optional[str] = None
    detail: str = ""


class RecordTail:
    """Follows the record file as workers append to it: which case each worker is in, and since when."""

    def __init__(self, folder: RunFolder, listener: Optional[Callable[[Record], None]] = None):
        self.folder = folder
        self.listener = listener  # told of every event, for a progress display
        self.offset = 0
        self.running: dict[int, tuple[str, float]] = {}  # worker -> (case id, start time)
        self.finished: dict[int, set[str]] = {}

    def poll(self) -> list[Record]:
        """Read what was appended since the last poll; returns the new events."""
        events, self.offset = self.folder.records_after(self.offset)
        for event in events:
            if isinstance(event, StartLine):
                self.running[event.worker] = (event.case, event.t if event.t is not None else time.time())
            elif isinstance(event, ResultLine):
                self.finished.setdefault(event.worker, set()).add(event.case)
                if self.running.get(event.worker, ("",))[0] == event.case:
                    self.running.pop(event.worker)
        if self.listener:
            for event in events:
                self.listener(event)
        return events


def worker_env(environ) -> dict:
    """The worker's environment: this process's, less what would change the worker's own pytest session. Under
    pytest-xdist (swarbench.run called from a parallel test suite) PYTEST_XDIST_WORKER makes pytest-benchmark
    disable itself, and the worker would time nothing; PYTEST_ADDOPTS would add options its command line does
    not give."""
    return {k: v for k, v in environ.items() if not k.startswith("PYTEST_XDIST") and k != "PYTEST_ADDOPTS"}


def supervise(cmd: list[str], cwd: Path, log, tail: RecordTail, worker: int, timeout: float) -> WorkerEnd:
    # the worker stops when this process dies, even of SIGKILL (swarbench.bench.isolation.follow_parent)
    env = worker_env(os.environ) | {PARENT_ENV: str(os.getpid())}
    child = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=cwd, env=env)
    try:
        return _watch(child, tail, worker, timeout, LoadMonitor(tail.folder, worker))
    finally:  # whatever ends the watch (a second Ctrl-C in the middle of the first's handling), no worker outlives it
        if child.poll() is None:
            child.kill()
            child.wait()


def _watch(
    child: subprocess.Popen, tail: RecordTail, worker: int, timeout: float, load: Optional[LoadMonitor] = None
) -> WorkerEnd:
    heard = time.time()  # when the worker last wrote a line
    try:
        while True:
            try:
                code = child.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            if load is not None:  # what else the machine is doing meanwhile (swarbench.machine_load)
                load.poll(child.pid)
            if tail.poll():
                heard = time.time()
            running = tail.running.get(worker)
            if running and time.time() - running[1] > timeout:
                child.kill()
                child.wait()
                tail.poll()
                tail.running.pop(worker, None)
                return WorkerEnd("timeout", -9, running[0], f"timed out after {timeout:g} s")
            if not running and time.time() - heard > timeout:  # in no case, and silent: stuck outside them all
                child.kill()
                child.wait()
                tail.poll()
                return WorkerEnd(
                    "stuck",
                    -9,
                    None,
                    f"benchmark worker {worker} was stopped: it wrote nothing for "
                    f"{timeout:g} s outside any case (after its last case, or before "
                    f"its first)",
                )
    except KeyboardInterrupt as exc:
        if isinstance(exc, Stopped):  # the worker did not get it: tell it as Ctrl-C would have
            child.send_signal(signal.SIGINT)
        stop_interrupted(child, tail)
        return WorkerEnd("interrupted", 130)
    tail.poll()
    running = tail.running.pop(worker, None)
    if code in (2, -signal.SIGINT):
        # pytest's own exit for an interrupt that reached the worker and not us (a fleet's machine), or the
        # worker's death by one that escaped pytest (landing after its last case, in the session's end)
        return WorkerEnd("interrupted", code)
    if code < 0 and running:
        try:
            name = f", {signal.Signals(-code).name}"
        except ValueError:
            name = ""
        return WorkerEnd("crashed", code, running[0], f"crashed (signal {-code}{name})")
    if code > RECORD_FAILED_EXIT:  # the worker could not write its records: its error, where it wrote them
        errno = code - RECORD_FAILED_EXIT
        raise OSError(errno, os.strerror(errno), str(tail.folder.records_path))
    if running and running[0] not in tail.finished.get(worker, set()):
        # a worker that ends of itself in the middle of a case (os._exit, any other code): nobody interrupted it,
        # so the case it was in killed it. (A case already reported, failed in its first pass, starts its later
        # passes only to be skipped.)
        return WorkerEnd("crashed", code, running[0], f"crashed (its worker process exited with code {code})")
    return WorkerEnd("done", code)


def stop_interrupted(child: subprocess.Popen, tail: RecordTail) -> None:
    """The worker got the same Ctrl-C: give it INTERRUPT_GRACE_S to write the result lines of what it measured,
    then stop it. A worker that starts or times anything meanwhile did not get the interrupt (it was sent to this
    process alone: `kill -INT` of its pid), and is sent one. (A worker that got it and whose implementation
    swallowed it stops by itself before its next pass: swarbench.bench.session.run_case.)"""
    interrupted = time.time()
    deadline = interrupted + INTERRUPT_GRACE_S
    while child.poll() is None and time.time() < deadline:
        try:
            # (a line written as the interrupt arrived can carry a time just after it: only a later one counts)
            if any(
                isinstance(event, (StartLine, PhaseLine)) and (event.t or 0) - interrupted > 0.5
                for event in tail.poll()
            ):
                child.send_signal(signal.SIGINT)
            time.sleep(0.1)
        except KeyboardInterrupt:
            # Ctrl-C pressed again: the worker is writing what it measured, which stopping it now would lose;
            # it has INTERRUPT_GRACE_S in all, however often the key is pressed
            pass
    if child.poll() is None:
        child.kill()
        child.wait()
    tail.poll()


def worker_log_problem(run_dir: Path, code: int) -> str:
    """A line about a worker that ended for a reason other than test results (0 ok, 1 failures, 5 none)."""
    lines = (run_dir / PYTEST_LOG).read_text(errors="replace").strip().splitlines()
    said = [ln for ln in lines if "error" in ln.lower()] or lines[-1:] or ["no output"]
    return f"benchmark worker exited with {code}: {said[0].strip()} (see {run_dir}/pytest.log)"
