"""The pytest plugin that turns every (kernel, implementation, workload, size) into pytest-benchmark benchmarks.

Loaded by pytest through the ``pytest11`` entry point, so the same benchmarks run under ``swarbench run`` and
under plain ``pytest --pyargs swarbench.bench.bench_kernels --benchmark-only`` (keeping pytest-benchmark's own
``--benchmark-compare``, ``--benchmark-histogram`` and the rest). Each case is one pytest item per pass
(swarbench.bench.cases); the work of each item is swarbench.bench.session's. docs/measurement.md tells how a
measurement is made.
"""
from __future__ import annotations

from typing import Optional

import pytest

from swarbench.bench.cases import Pass
from swarbench.bench.options import Options, add_options
from swarbench.bench.session import Session


def pytest_addoption(parser):
    add_options(parser)


@pytest.fixture(scope="session")
def swarbench_session(request):
    return _session(request.config)


def pytest_configure(config):
    config._swarbench_session = None


def _session(config) -> Session:
    if config._swarbench_session is None:
        config._swarbench_session = Session(Options.from_config(config))
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


def pytest_collection_finish(session):
    """Tell the engine what this worker is about to run, so progress can say how many are left."""
    state = session.config._swarbench_session
    if state is None:
        return
    # a case once, however many passes it has (an empty parametrisation leaves a placeholder item: not a case)
    state.writer.plan([p.case.id for item in session.items if (p := _pass_of(item)) and p.first])
