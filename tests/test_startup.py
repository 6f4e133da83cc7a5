"""A fast start: help, listing and the contest clients import only what they use (never timed here: what is
imported is what decides the time, and a test of the time itself would fail on a busy machine)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = {"pandas", "scipy", "numba"}


def imported(*args: str, stdin: str = "") -> set[str]:
    """Every module a fresh interpreter imports to run ``python -X importtime ARGS``."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args], input=stdin, capture_output=True, text=True, timeout=300
    )
    modules = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "swarbench" in modules, proc.stderr[-2000:]
    return modules


def top_level(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_help_imports_no_pandas_scipy_or_numba():
    modules = imported("-m", "swarbench.cli", "--help")
    assert not top_level(modules) & HEAVY, sorted(top_level(modules) & HEAVY)
    assert "swarbench.suites.poker.spec" not in modules  # the suites' kernels are not built to show help


def test_importing_the_cli_imports_no_numpy():
    assert not top_level(imported("-c", "import swarbench.cli")) & (HEAVY | {"numpy"})


def test_list_imports_no_pandas_or_scipy():
    # listing C implementations only: checking a numba family's availability imports numba (and numba scipy)
    modules = top_level(imported("-m", "swarbench.cli", "list", "--impl", "c-*"))
    assert not modules & HEAVY, sorted(modules & HEAVY)


@pytest.mark.parametrize(
    "args, stdin",
    [
        (["cephalopod", "solve", "--impl", "bfs"], "2\n0 0 0\n0 0 0\n0 0 0\n"),
        (["poker", "equity", "sA", "cA", "--boards", "3", "--impl", "python-smart"], ""),
    ],
)
def test_contest_clients_import_no_pandas_scipy_or_numba(args, stdin):
    assert not top_level(imported("-m", "swarbench.cli", *args, stdin=stdin)) & HEAVY


def test_the_format_names_parsing_knows_are_the_renderers():
    from swarbench import config, render

    assert config.FORMATS == render.FORMATS
