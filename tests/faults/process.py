"""cards.contains implementations that harm the worker they share with the others, or end in a way no Exception
says: each is chosen with --impl NAME. Each is blamed alone; the rows around it are measured as usual."""

import gc
import os
import signal
import threading
import time

import numpy as np
import pytest

import swarbench.model
from swarbench import Implementation, hookimpl
from swarbench.suites.cards.vectorized import IMPLEMENTATIONS

NUMPY_SWAR = next(i for i in IMPLEMENTATIONS if i.kernel == "cards.contains").prepare  # right, and quick


class OwnBaseException(BaseException):
    """A class of its own, not an Exception."""


def raising(exc, after=0):
    """Right for ``after`` calls, then raises ``exc()``."""

    def prepare(workload):
        right, calls = NUMPY_SWAR(workload), [0]

        def batch():
            calls[0] += 1
            if calls[0] > after:
                raise exc()
            return right()

        return batch

    return prepare


def prepare_raising(exc):
    def prepare(workload):
        raise exc()

    return prepare


def skips(workload):
    def batch():
        pytest.skip("an implementation's own skip")

    return batch


def returning(value):
    return lambda workload: value


def patching(patch):
    """Right, after ``patch()`` in its prepare has changed what the harness and every later case rely on."""

    def prepare(workload):
        patch()
        return NUMPY_SWAR(workload)

    return prepare


def _hide_mismatches():
    np.flatnonzero = lambda a: np.zeros(0, dtype=np.intp)  # every comparison would find nothing wrong


def _pass_everything():
    swarbench.model.Kernel.check = lambda self, expected, got, inputs: None


PATCHES = {
    "patch-timer": lambda: setattr(time, "perf_counter", lambda: 0.0),
    "patch-numpy": _hide_mismatches,
    "patch-harness": _pass_everything,
    "patch-cwd": lambda: os.chdir("/"),
    "patch-sigint": lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    "patch-gc": gc.disable,
}


def always_wrong(workload):
    right = NUMPY_SWAR(workload)
    return lambda: ~right()


def leaks_per_call(workload):
    """Opens a descriptor in every call and never closes it."""
    right, held = NUMPY_SWAR(workload), []

    def batch():
        held.append(os.open(os.devnull, os.O_RDONLY))
        return right()

    return batch


def leaks_in_prepare(workload):
    for _ in range(200):
        os.open(os.devnull, os.O_RDONLY)
    return NUMPY_SWAR(workload)


def leaves_a_thread(workload):
    """Starts a thread that is not a daemon and never ends: Python would wait for it at exit, forever."""
    threading.Thread(target=lambda: [time.sleep(0.2) for _ in iter(int, 1)], name="never-ends").start()
    return NUMPY_SWAR(workload)


FAULTS = {
    "base-exception": raising(OwnBaseException),
    "generator-exit": raising(GeneratorExit),
    "base-exception-late": raising(OwnBaseException, after=40),
    "generator-exit-late": raising(GeneratorExit, after=40),
    "prepare-base-exception": prepare_raising(OwnBaseException),
    "prepare-generator-exit": prepare_raising(GeneratorExit),
    "pytest-skip": skips,
    "prepare-none": returning(None),
    "prepare-number": returning(42),
    "always-wrong": always_wrong,
    "leaks-per-call": leaks_per_call,
    "leaks-in-prepare": leaks_in_prepare,
    "leaves-a-thread": leaves_a_thread,
    "right": NUMPY_SWAR,
    **{name: patching(patch) for name, patch in PATCHES.items()},
}


@hookimpl
def swarbench_add_implementations(registry):
    for name, prepare in FAULTS.items():
        registry.add_implementation(Implementation("cards.contains", name, "python-fault", prepare))
