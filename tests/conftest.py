"""Shared helpers: run the real CLI in a subprocess, and install throw-away plugins through entry points."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Tests press Ctrl-C on the CLI they start (SIGINT to its process group). A shell without job control starts a
# background command with SIGINT ignored, and every process below inherits that, so the CLI would never hear
# it: here the tests' own SIGINT is Python's again, and their children start with the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

FAST = ["--max-time", "0.005", "--min-rounds", "1", "--quiet", "--processes", "1", "--no-overhead"]


def make_plugin_site(site: Path, name: str, source: str, module: str | None = None) -> Path:
    """A module plus a minimal .dist-info advertising it under the ``swarbench`` entry-point group: what
    ``pip install`` of a plugin package leaves behind, without the install."""
    module = module or f"sbtest_{name}"
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{module}-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[swarbench]\n{name} = {module}\n")
    return site


def contains_plugin(name: str, family: str, prepare: str, body: str) -> str:
    """The source of a plugin adding one cards.contains implementation, ``name`` of ``family``, whose prepare is
    ``prepare`` as ``body`` defines it."""
    return textwrap.dedent(body) + textwrap.dedent(f"""
        from swarbench import Implementation, hookimpl

        @hookimpl
        def swarbench_add_implementations(registry):
            registry.add_implementation(Implementation("cards.contains", {name!r}, {family!r}, {prepare}))
        """)


def cli_env(tmp_path: Path, *sites: Path, **extra: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(s) for s in sites] + [env.get("PYTHONPATH", "")]).strip(os.pathsep)
    env["SWARBENCH_REPORTS"] = str(tmp_path / "reports")
    env.update(extra)
    return env


def swarbench(*args: str, env: dict | None = None, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "swarbench.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=kw.pop("cwd", None),
        **kw,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    """Bad input: exit 2, one line on stderr naming the problem, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("swarbench: error: "), lines
    assert "Traceback" not in proc.stderr + proc.stdout
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.fixture
def env(tmp_path):
    return cli_env(tmp_path)
