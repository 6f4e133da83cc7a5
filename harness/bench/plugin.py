"""The pytest plugin swarbench installs (entry point ``pytest11``): light, since pytest loads it into every
session of the environment, swarbench's or not.

It adds the ``--swarbench-*`` options and the ``swarbench_benchmark`` fixture (swarbench.bench.fixture, which
imports pytest alone; what it checks and times with loads when a test asks for it). The benchmark session
(swarbench.bench.session_hooks) loads when one of the options is given or when the benchmark module,
swarbench.bench.bench_kernels, is collected (it names the hooks in ``pytest_plugins``). Standard library imports
only: another project's pytest pays nothing for it.
"""

from __future__ import annotations

from swarbench.bench.options import add_options, given

SESSION_HOOKS = "swarbench.bench.session_hooks"
FIXTURE = "swarbench.bench.fixture"


def pytest_addoption(parser):
    add_options(parser)


def pytest_configure(config):
    config.pluginmanager.import_plugin(FIXTURE)
    if given(config):
        config.pluginmanager.import_plugin(SESSION_HOOKS)
