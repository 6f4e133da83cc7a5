"""cards.contains implementations that go wrong in the ways a plugin can: each is chosen with --impl NAME."""

import os
import signal
import sys
import time

import numpy as np

from swarbench import Implementation, hookimpl
from swarbench.suites.cards.spec import reference_contains


def floats(workload):
    """A bool kernel answered with floats: 0.5 for True would pass if cast."""
    inputs = workload.inputs
    return lambda: np.where(reference_contains(inputs), 0.5, 0.0)


def sleeper(workload):
    """Right, and quick while it is checked; its timed calls wait until the file $SBFAULT_RELEASE exists (an
    hour without it), so a test can act while the run is in them."""
    inputs, calls = workload.inputs, [0]

    def batch():
        calls[0] += 1
        if calls[0] > 11:  # past the check and the few calls that size its rounds
            release, deadline = os.environ.get("SBFAULT_RELEASE", ""), time.time() + 3600
            while not (release and os.path.exists(release)) and time.time() < deadline:
                time.sleep(0.05)
        return reference_contains(inputs)

    return batch


def writer(workload):
    """Answers right, then writes over its inputs."""
    inputs = workload.inputs

    def batch():
        out = reference_contains(inputs)
        inputs["a"][:] = 0
        return out

    return batch


def prepare_writer(workload):
    """Writes over its inputs while it prepares."""
    inputs = workload.inputs
    inputs["b"][:] = 0
    return lambda: reference_contains(inputs)


def flaky(workload):
    """Right on its first call, wrong on every call after it."""
    inputs, calls = workload.inputs, [0]

    def batch():
        calls[0] += 1
        out = reference_contains(inputs)
        return out if calls[0] == 1 else ~out

    return batch


def cached(workload):
    """Computes the answer in prepare and returns it without reading its inputs."""
    answer = reference_contains(workload.inputs)
    return lambda: answer


def exits(code):
    def prepare(workload):
        def batch():
            if code == "sys.exit":
                sys.exit(0)
            os._exit(code)

        return batch

    return prepare


def interrupts(workload):
    def batch():
        raise KeyboardInterrupt

    return batch


def dies_of_ctrl_c(workload):
    """Its process dies of a SIGINT, as a worker does when a Ctrl-C escapes pytest after its last case."""

    def batch():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)

    return batch


FAULTS = {
    "floats": floats,
    "sleeper": sleeper,
    "writer": writer,
    "prepare-writer": prepare_writer,
    "flaky": flaky,
    "cached": cached,
    "sys-exit": exits("sys.exit"),
    "os-exit": exits(3),
    "interrupts": interrupts,
    "dies-of-ctrl-c": dies_of_ctrl_c,
}


@hookimpl
def swarbench_add_implementations(registry):
    for name, prepare in FAULTS.items():
        registry.add_implementation(Implementation("cards.contains", name, "python-fault", prepare))
