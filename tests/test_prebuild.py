"""A run builds the C modules its implementations declare (``Implementation.build``) side by side before its first
worker, into cbuild's cache; a build that fails there changes nothing: the implementation's prepare reports it."""

import io
import json
import textwrap
from functools import partial
from pathlib import Path

import pandas as pd
import pytest

from conftest import FAST, cli_env, make_plugin_site, swarbench
from swarbench import Implementation, cbuild, engine, features, hookimpl, prebuild, registry
from swarbench.render.live import LiveDisplay
from swarbench.run_request import RunRequest
from swarbench.runfolder import CACHE

needs_cc = pytest.mark.skipif(not features.compiler()[0], reason="no C compiler here")

TINY_C = """\
#include <stdint.h>
#include <stddef.h>
void contains(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = (a[i] & b[i]) == b[i];
}
"""
TINY_CDEF = "void contains(const uint64_t *, const uint64_t *, uint8_t *, size_t);"


def _modules(cache: Path) -> list[str]:
    """The rows' built modules in the cache (not the bandwidth probe every run builds: swarbench.explain)."""
    folder = cache / "cffi"
    found = folder.glob("_swarbench_*") if folder.exists() else []
    return sorted(p.name for p in found if not p.name.startswith("_swarbench_explain_"))


@pytest.mark.slow
@needs_cc
def test_the_run_builds_a_declared_module_before_its_first_worker(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SWARBENCH_CACHE", str(cache))
    source = tmp_path / "tiny.c"
    source.write_text(TINY_C)
    build = partial(cbuild.build, "sbtest_tiny", source, TINY_CDEF)

    class Plugin:
        @hookimpl
        def swarbench_add_implementations(self, registry):
            registry.add_implementation(
                Implementation("cards.contains", "tiny-c", "cffi", lambda w: build(), requires=("cc",), build=build)
            )

    reg = registry.load(extra_plugins=[("sbtest_tiny", Plugin())])
    seen = []

    def no_workers(request, registry, folder, tail, problems):  # what the first worker would find
        seen.append(_modules(cache))
        return True

    monkeypatch.setattr(engine, "run_workers", no_workers)
    assert _modules(cache) == []
    request = RunRequest(
        kernels=["cards.contains"], impls=["tiny-c"], reports_dir=tmp_path / "reports", processes=1, overhead=False
    )
    outcome = engine.run(request, reg)
    assert len(seen) == 1 and [m.startswith("_swarbench_sbtest_tiny_") for m in seen[0]] == [True]
    (line,) = [
        r
        for r in map(json.loads, (outcome.run_dir / "records.jsonl").read_text().splitlines())
        if r.get("event") == "build"
    ]
    assert line["builds"] == 1 and line["failed"] == 0 and line["seconds"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("sizes, built", [([], 1), ([256], 0)])
def test_the_build_step_builds_the_default_workloads_for_the_first_worker(tmp_path, monkeypatch, sizes, built):
    # the default workloads (with their references) are left in the run's cache before any worker; a size
    # named on the command line may be huge, so its worker builds it, as before
    seen = []

    def no_workers(request, registry, folder, tail, problems):
        seen.append(sorted(p.name for p in (folder.path / CACHE).glob("*.pickle")))
        return True

    monkeypatch.setattr(engine, "run_workers", no_workers)
    request = RunRequest(
        kernels=["cards.contains"],
        impls=["naive"],
        sizes=sizes,
        reports_dir=tmp_path / "reports",
        processes=1,
        overhead=False,
    )
    outcome = engine.run(request, registry.load())
    assert [name.startswith("cards.contains~deals~default~0~") for name in seen[0]] == [True] * built
    (line,) = [
        r
        for r in map(json.loads, (outcome.run_dir / "records.jsonl").read_text().splitlines())
        if r.get("event") == "build"
    ] or [{"workloads": 0}]
    assert line["workloads"] == built


BAD_C = TINY_C.replace("== b[i];", "== b[i]")  # line 5 lacks its semicolon
BAD_PLUGIN = """
    from functools import partial
    from pathlib import Path
    from swarbench import Implementation, cbuild, hookimpl

    build = partial(cbuild.build, "sbtest_bad", Path(__file__).parent / "sbtest_bad.c",
                    "void contains(const uint64_t *, const uint64_t *, uint8_t *, size_t);")

    def prepare(workload):
        build()
        return lambda: None

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("cards.contains", "bad-c", "cffi", prepare, build=build))
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "env, status, code", [({}, "ERROR", 1), ({"SWARBENCH_NO_CC": "1"}, "SKIP", 0)], ids=["compile-error", "no-compiler"]
)
def test_a_build_that_fails_before_the_workers_ends_as_it_always_did(tmp_path, env, status, code):
    if not env and not features.compiler()[0]:
        pytest.skip("no C compiler here")
    site = make_plugin_site(tmp_path / "site", "bad", textwrap.dedent(BAD_PLUGIN))
    (site / "sbtest_bad.c").write_text(BAD_C)
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "bad-c",
        "-i",
        "naive",
        "--size",
        "64",
        *FAST,
        env=cli_env(tmp_path, site, SWARBENCH_CACHE=str(tmp_path / "cache"), **env),
    )
    assert proc.returncode == code, proc.stderr
    (run,) = (tmp_path / "reports").iterdir()
    row = pd.read_csv(run / "results.csv").set_index("implementation").loc["bad-c"]
    assert row.status == status
    assert ("sbtest_bad.c:5:" in row.reason) if status == "ERROR" else ("no C compiler" in row.reason), row.reason
    builds = [r for r in map(json.loads, (run / "records.jsonl").read_text().splitlines()) if r.get("event") == "build"]
    assert [(b["builds"], b["failed"]) for b in builds] == [(1, 1)]
    assert _modules(tmp_path / "cache") == []


def test_implementations_that_share_a_module_build_it_once():
    calls = []

    def module(isa):
        calls.append(isa)

    impls = [
        Implementation("k.op", name, "cffi", lambda w: None, build=partial(module, isa))
        for name, isa in (("a", "avx2"), ("b", "avx2"), ("c", "sse2"))
    ]
    impls.append(Implementation("k.op", "d", "numpy", lambda w: None))  # nothing to build
    builds = prebuild.distinct_builds([i for i in impls if i.build])
    assert len(builds) == 2
    assert prebuild.build_all(builds, workers=2).failed == 0


def test_the_progress_display_says_what_the_builds_took():
    out = io.StringIO()
    LiveDisplay(1, out)({"event": "build", "builds": 7, "failed": 0, "seconds": 3.25})
    assert out.getvalue() == "build step: 7 builds (C, Numba) and 0 workloads in 3.2 s\n"


INTERRUPTED = """
import os, signal, sys, threading, time
from swarbench import prebuild

def slow():
    time.sleep(30)

threading.Timer(1.0, lambda: os.killpg(os.getpgrp(), signal.SIGINT)).start()  # Ctrl-C reaches the whole group
try:
    prebuild.build_all([slow, slow, slow], workers=2)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
"""


def test_ctrl_c_during_the_builds_interrupts_the_run_without_a_traceback(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, start_new_session=True
    )
    assert proc.stderr.strip() == "interrupted", proc.stderr
