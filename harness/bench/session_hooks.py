"""The pytest hooks of a benchmark session: every case becomes one pytest item per pass, ordered pass by pass,
and the work of each item is swarbench.bench.session's. Loaded by swarbench.bench.plugin only where a benchmark
runs; docs/measurement.md tells how a measurement is made."""

from __future__ import annotations

import collections
import os
import sys
from typing import Optional

import pytest

from swarbench.bench.cases import Pass
from swarbench.bench.request import WorkerRequest
from swarbench.bench.session import Session
from swarbench.runfolder import CaseId


@pytest.fixture(scope="session")
def swarbench_session(request):
    return _session(request.config)


def pytest_configure(config):
    config._swarbench_session = None


def _session(config) -> Session:
    if config._swarbench_session is None:
        timer = getattr(config, "_benchmarksession", None)
        if timer is None or timer.disabled:  # every row would pass with no figure
            raise pytest.UsageError(
                "pytest-benchmark is disabled in this benchmark worker (--benchmark-disable, or under "
                "pytest-xdist): nothing could be timed"
            )
        config._swarbench_session = Session(WorkerRequest.from_config(config))
    return config._swarbench_session


def pytest_generate_tests(metafunc):
    if "swarbench_case" in metafunc.fixturenames:
        passes, _ = _session(metafunc.config).passes
        metafunc.parametrize("swarbench_case", passes, ids=[p.id for p in passes])
    elif "swarbench_probe" in metafunc.fixturenames:
        _, passes = _session(metafunc.config).passes
        metafunc.parametrize("swarbench_probe", passes, ids=[p.id for p in passes])


def _pass_of(item) -> Optional[Pass]:
    params = getattr(getattr(item, "callspec", None), "params", {})
    found = params.get("swarbench_case") or params.get("swarbench_probe")
    return found if isinstance(found, Pass) else None


@pytest.hookimpl(trylast=True)  # after any plugin that deselects items
def pytest_collection_modifyitems(session, config, items):
    """Pass by pass: the probes' pass k (collected first) just before the kernels' pass k."""
    items.sort(key=lambda item: p.index if (p := _pass_of(item)) else 0)  # stable: each pass keeps its order


@pytest.hookimpl(tryfirst=True)  # before pytest-benchmark's own, which writes its JSON file
def pytest_sessionfinish(session, exitstatus):
    state = getattr(session.config, "_swarbench_session", None)
    if state is not None:
        state.flush_unfinished()
    session.config._swarbench_exitstatus = int(exitstatus)


@pytest.hookimpl(trylast=True)  # the last thing pytest does: its reports and pytest-benchmark's file are written
def pytest_unconfigure(config):
    """A worker of a run ends here, without waiting on threads a case left running (Python would join them at
    exit, forever for one that never ends) or on exit handlers a plugin registered; those threads are named."""
    state = getattr(config, "_swarbench_session", None)
    if state is None or not state.options.record_path:
        return
    left = state.threads.left_running()
    if left:
        counts = collections.Counter((CaseId.parse(case).key, name) for case, name in left)
        names = "; ".join(
            f"{key} left {count} thread{'s' if count > 1 else ''} {name!r}" for (key, name), count in counts.items()
        )
        state.writer.note(f"a case left a thread running, and its worker ended without waiting for it: {names}")
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    os._exit(getattr(config, "_swarbench_exitstatus", 0))


def pytest_collection_finish(session):
    """Tell the engine what this worker is about to run, so progress can say how many are left."""
    state = getattr(session.config, "_swarbench_session", None)
    if state is None:
        return
    # a case once, however many passes it has (an empty parametrisation leaves a placeholder item: not a case)
    state.writer.plan([p.case.id for item in session.items if (p := _pass_of(item)) and p.first])
