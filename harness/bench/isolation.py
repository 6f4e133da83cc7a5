"""What one case may not do to the worker it shares with the others, and how the worker notices, blames the case
and goes on: patch state the harness and later cases rely on (``Snapshot``), leak file descriptors
(``open_fds``), leave threads that would keep the worker from ending (``ThreadWatch``), or outlive the engine
that started it (``follow_parent``).

A change is found after the case's step that made it, blamed on that case (an ERROR row naming what it changed)
and undone, so that no case after it is measured in a process it changed.
"""

from __future__ import annotations

import ctypes
import gc
import math
import os
import signal
import sys
import threading
import time
import types
from typing import Any, Callable, Optional

# Modules whose functions the harness calls (to time, check, write and signal) and that a case could replace
WATCHED = (
    "time",
    "os",
    "os.path",
    "builtins",
    "gc",
    "math",
    "json",
    "pickle",
    "signal",
    "threading",
    "numpy",
    "pytest_benchmark.fixture",
    "pytest_benchmark.timers",
)
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
FD_LEAK_LIMIT = 64  # descriptors a case may leave open (a cache file, a device) before it is blamed for a leak
_MISSING = object()


def _callables(holder) -> list[tuple[Any, str, Any]]:
    out = []
    for name, value in list(vars(holder).items()):
        if callable(value) and not name.startswith("__"):
            out.append((holder, name, value))
    return out


def _harness_modules() -> list[types.ModuleType]:
    return [
        m
        for name, m in list(sys.modules.items())
        if isinstance(m, types.ModuleType)
        and (name == "swarbench" or name.startswith("swarbench."))
        and not name.startswith("swarbench.suites")
    ]


def _fp_mode() -> tuple:
    """What the CPU's floating-point mode does to a subnormal and to a rounding: flush-to-zero or another
    rounding mode set by C code changes both, for every later case of the process."""
    import numpy as np

    tiny = np.array([1e-310], dtype=np.float64)
    third = np.divide(np.array([1.0]), np.array([3.0]))
    return float((tiny * 0.5)[0]), float(third[0]).hex(), float((-third)[0]).hex()


class Snapshot:
    """The state a case could change that the harness and the cases after it rely on: the functions of the
    modules the harness calls (and of its own modules and classes), the signal handlers, the garbage collector,
    trace and profile hooks, the working directory, the recursion limit and switch interval, NumPy's error
    handling, and the CPU's floating-point mode."""

    def __init__(self):
        self.functions: list[tuple[Any, str, Any]] = []
        for name in WATCHED:
            module = sys.modules.get(name)
            if module is not None:
                self.functions += _callables(module)
        for module in _harness_modules():
            for holder, name, value in _callables(module):
                self.functions.append((holder, name, value))
                if isinstance(value, type) and getattr(value, "__module__", "") == module.__name__:
                    self.functions += [(value, n, v) for _, n, v in _callables(value)]
        self.state = self._state()

    @staticmethod
    def _state() -> dict[str, Any]:
        import numpy as np

        return {
            "signal handlers": tuple(signal.getsignal(s) for s in SIGNALS),
            "gc enabled": gc.isenabled(),
            "trace hook": sys.gettrace(),
            "profile hook": sys.getprofile(),
            "working directory": _cwd(),
            "recursion limit": sys.getrecursionlimit(),
            "switch interval": sys.getswitchinterval(),
            "NumPy error handling": tuple(sorted(np.geterr().items())),
            "floating-point mode": _fp_mode(),
        }

    def changes(self) -> list[str]:
        """What differs from the snapshot, in words, after undoing it where it can be undone."""
        out = []
        for holder, name, value in self.functions:
            now = vars(holder).get(name, _MISSING)  # (as stored: a class's staticmethod is not what getattr gives)
            if now is not value:
                out.append(
                    f"{getattr(holder, '__name__', holder)}.{name} {'deleted' if now is _MISSING else 'replaced'}"
                )
                try:
                    setattr(holder, name, value)
                except (AttributeError, TypeError):
                    pass
        state = self._state()
        for what, before in self.state.items():
            if state[what] != before and not _same_nan(state[what], before):
                out.append(f"{what} changed")
                self._restore(what, before)
        return out

    @staticmethod
    def _restore(what: str, before: Any) -> None:
        import numpy as np

        try:
            if what == "signal handlers":
                for sig, handler in zip(SIGNALS, before):
                    if handler is not None:
                        signal.signal(sig, handler)
            elif what == "gc enabled":
                gc.enable() if before else gc.disable()
            elif what == "trace hook":
                sys.settrace(before)
            elif what == "profile hook":
                sys.setprofile(before)
            elif what == "working directory" and before:
                os.chdir(before)
            elif what == "recursion limit":
                sys.setrecursionlimit(before)
            elif what == "switch interval":
                sys.setswitchinterval(before)
            elif what == "NumPy error handling":
                np.seterr(**dict(before))
            # the floating-point mode has no way back from Python: blamed, and the worker says so
        except (OSError, ValueError, TypeError, RuntimeError):
            pass

    def refresh(self) -> None:
        """Take in what the harness itself changed on purpose (its signal handlers, once set)."""
        self.state = self._state()


def _same_nan(a, b) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""


def open_fds() -> Optional[int]:
    """How many file descriptors the process holds, where the system says cheaply (Linux); else None."""
    try:
        return len(os.listdir("/proc/self/fd")) - 1  # (the listing's own)
    except OSError:
        return None


def more_descriptors() -> None:
    """Raise the soft limit of open files to the hard one (or 65,536): a leaking case is blamed before the
    harness runs short of descriptors itself."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ImportError, ValueError, OSError):
        pass


class ThreadWatch:
    """Which case started each thread that is not a daemon: a worker does not end while one runs, so those still
    running at the end are named and the worker ends without waiting for them."""

    def __init__(self):
        self.known = {t.ident for t in threading.enumerate()}
        self.started_by: dict[int, tuple[str, str]] = {}  # ident -> (case, thread name)

    def after(self, case: str) -> None:
        for t in threading.enumerate():
            if t.ident not in self.known:
                self.known.add(t.ident)
                if not t.daemon:
                    self.started_by[t.ident] = (case, t.name)

    def left_running(self) -> list[tuple[str, str]]:
        alive = {t.ident for t in threading.enumerate() if t.is_alive() and not t.daemon}
        return [who for ident, who in self.started_by.items() if ident in alive]


PR_SET_PDEATHSIG = 1
PARENT_ENV = "SWARBENCH_ENGINE_PID"


def follow_parent() -> None:
    """End this worker (SIGTERM: it writes what it measured, as on Ctrl-C) when the engine that started it dies,
    even by SIGKILL: Linux's parent-death signal, else a thread that watches the parent's pid."""
    parent = os.environ.get(PARENT_ENV)
    if not parent or not parent.isdigit():
        return
    parent_pid = int(parent)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux") and libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
            if os.getppid() != parent_pid:  # it died before the signal was asked for
                os.kill(os.getpid(), signal.SIGTERM)
            return
    except (OSError, AttributeError):
        pass
    _watch_parent(parent_pid, lambda: os.kill(os.getpid(), signal.SIGTERM))


def _watch_parent(parent_pid: int, stop: Callable[[], None]) -> None:
    def watch():
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        stop()

    threading.Thread(target=watch, name="swarbench-parent-watch", daemon=True).start()
