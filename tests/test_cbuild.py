"""C builds: cached by source and flags, safe when two processes build at once, and honest when they fail."""

import subprocess
import sys
import textwrap

import pytest

from swarbench import cbuild, features

pytestmark = pytest.mark.skipif(not features.compiler()[0], reason="no C compiler here")

SOURCE = "int add(int a, int b) { return a + b; }\n"
CDEF = "int add(int a, int b);"


def test_a_module_is_built_once_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("SWARBENCH_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "add.c"
    src.write_text(SOURCE)
    mod = cbuild.build("t_add", src, CDEF)
    assert mod.lib.add(2, 3) == 5
    built = sorted((tmp_path / "cache" / "cffi").glob("_swarbench_t_add_*"))
    assert len(built) == 1
    cbuild._loaded.clear()
    cbuild.build("t_add", src, CDEF)
    assert sorted((tmp_path / "cache" / "cffi").glob("_swarbench_t_add_*")) == built  # cache hit
    cbuild.build("t_add", src, CDEF, extra_flags=["-O1"])
    assert len(list((tmp_path / "cache" / "cffi").glob("_swarbench_t_add_*"))) == 2  # new flags, new module


def test_two_processes_building_the_same_module_at_once_both_succeed(tmp_path):
    src = tmp_path / "mul.c"
    src.write_text("int mul(int a, int b) { return a * b; }\n")
    script = textwrap.dedent(f"""
        import os
        os.environ["SWARBENCH_CACHE"] = {str(tmp_path / "cache")!r}
        from swarbench import cbuild
        print(cbuild.build("t_mul", {str(src)!r}, "int mul(int a, int b);").lib.mul(6, 7))
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(3)]
    assert [p.communicate(timeout=120)[0].strip() for p in procs] == ["42"] * 3
    assert not list((tmp_path / "cache" / "cffi").glob(".build-*"))  # no temporary folders left behind


def test_a_compile_error_names_the_compilers_complaint(tmp_path, monkeypatch):
    monkeypatch.setenv("SWARBENCH_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "bad.c"
    src.write_text("int add(int a, int b) { return a + ; }\n")
    with pytest.raises(cbuild.BuildError, match="error"):
        cbuild.build("t_bad", src, CDEF)


def test_requirements_explain_themselves(monkeypatch):
    assert features.why_unavailable("module:surely_not_a_module_xyz").startswith(
        "surely_not_a_module_xyz not importable"
    )
    assert features.why_unavailable("warp-drive") == "unknown requirement 'warp-drive'"
    monkeypatch.setenv("SWARBENCH_CPU_FLAGS", "sse2")
    features.cpu_flags.cache_clear()
    try:
        assert features.why_unavailable("avx2") == "needs avx2"
        assert features.why_unavailable("sse2") == ""
    finally:
        features.cpu_flags.cache_clear()
