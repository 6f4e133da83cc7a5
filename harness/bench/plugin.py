"""The pytest plugin swarbench installs (entry point ``pytest11``): light, since pytest loads it into every
session of the environment, swarbench's or not.

It only adds the ``--swarbench-*`` options. The benchmark session (swarbench.bench.session_hooks) loads when
one of them is given or when the benchmark module, swarbench.bench.bench_kernels, is collected (it names the
hooks in ``pytest_plugins``). Standard library imports only: another project's pytest pays nothing for it.
"""
from __future__ import annotations

from swarbench.bench.options import add_options, given

SESSION_HOOKS = "swarbench.bench.session_hooks"


def pytest_addoption(parser):
    add_options(parser)


def pytest_configure(config):
    if given(config):
        config.pluginmanager.import_plugin(SESSION_HOOKS)
