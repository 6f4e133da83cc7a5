"""Every mistake a plugin author makes is named and fails loudly: a C compile error, a kernel whose reference
and known answers disagree, a misspelt hook, an implementation of an unknown kernel. What the machine lacks (a
compiler, its flags) stays a SKIP."""

import pandas as pd
import pytest

from conftest import FAST, assert_one_line_error, cli_env, make_plugin_site, swarbench
from swarbench import cbuild, features, oracle, registry

needs_cc = pytest.mark.skipif(not features.compiler()[0], reason="no C compiler here")

BAD_C = """\
#include <stdint.h>
#include <stddef.h>
void contains(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = (a[i] & b[i]) == b[i]
}
"""

C_PLUGIN = """
    from pathlib import Path
    import numpy as np
    from swarbench import Implementation, cbuild, hookimpl

    def prepare(workload):
        lib = cbuild.build("sbtest_bad", Path(__file__).parent / "sbtest_bad.c",
                           "void contains(const uint64_t *, const uint64_t *, uint8_t *, size_t);").lib
        return lambda: None

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("cards.contains", "bad-c", "cffi", prepare))
"""


def _c_plugin_env(tmp_path, **extra):
    site = make_plugin_site(tmp_path / "site", "badc", C_PLUGIN)
    (site / "sbtest_bad.c").write_text(BAD_C)
    return cli_env(tmp_path, site, SWARBENCH_CACHE=str(tmp_path / "cache"), **extra)


def _frame(tmp_path) -> pd.DataFrame:
    (run,) = (tmp_path / "reports").iterdir()
    return pd.read_csv(run / "results.csv").set_index("implementation")


@pytest.mark.slow
@needs_cc
def test_a_compile_error_in_a_plugins_c_is_an_error_at_its_own_file_and_line(tmp_path):
    proc = swarbench(
        "run", "-k", "cards.contains", "-i", "bad-c", "-i", "naive", "--size", "64", *FAST, env=_c_plugin_env(tmp_path)
    )
    assert proc.returncode == 1, proc.stderr
    row = _frame(tmp_path).loc["bad-c"]
    assert row.status == "ERROR"
    assert "sbtest_bad.c:5:" in row.reason and "error:" in row.reason, row.reason  # not cffi's generated file
    assert "sbtest_bad.c:5:" in proc.stdout
    assert "bad-c" in proc.stderr


@pytest.mark.slow
def test_a_machine_without_a_compiler_skips_the_c_implementation(tmp_path):
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
        env=_c_plugin_env(tmp_path, SWARBENCH_NO_CC="1"),
    )
    assert proc.returncode == 0, proc.stderr
    row = _frame(tmp_path).loc["bad-c"]
    assert row.status == "SKIP" and "no C compiler" in row.reason


@needs_cc
def test_a_compiler_without_the_flags_is_the_machines_fault_not_the_sources(tmp_path, monkeypatch):
    monkeypatch.setenv("SWARBENCH_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "fine.c"
    src.write_text("int add(int a, int b) { return a + b; }\n")
    with pytest.raises(cbuild.CannotBuildHere, match="no-such-isa"):
        cbuild.build("t_flags", src, "int add(int a, int b);", extra_flags=["-mno-such-isa-xyz"])
    src.write_text("int add(int a, int b) { return a + ; }\n")
    with pytest.raises(cbuild.BuildError, match=r"fine\.c:1:\d+: error") as caught:
        cbuild.build("t_src", src, "int add(int a, int b);")
    assert not isinstance(caught.value, cbuild.CannotBuildHere)


TYPO_KERNEL = """
    import numpy as np
    from swarbench import Implementation, Kernel, KnownAnswer, WorkloadKind, hookimpl

    def double(inputs):
        return inputs["x"] * 2

    KERNEL = Kernel(
        "typo.double", "twice each number", "number",
        (WorkloadKind("w", lambda n, seed: ({"x": np.arange(n, dtype=np.int64)}, n), "0..n-1", 64, test_size=8),),
        reference=double,
        known_answers=lambda: [KnownAnswer("two and three", {"x": np.array([2, 3])}, np.array([4, 7]),
                                           "hand-checked")])

    @hookimpl
    def swarbench_add_kernels(registry):
        registry.add_kernel(KERNEL)

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("typo.double", "naive", "python-naive",
                                                   lambda w: (lambda: double(w.inputs))))
"""


@pytest.mark.slow
def test_a_wrong_known_answer_blames_the_kernels_spec_once(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "typo", TYPO_KERNEL))
    alone = swarbench("run", "-k", "typo.double", *FAST, env=env)
    assert_one_line_error(
        alone,
        "kernel typo.double's spec is wrong",
        "known answer 'two and three'",
        "the known answer says 7",
        "the reference gives 6",
    )
    both = swarbench("run", "-k", "typo.double", "-k", "cards.contains", "-i", "naive", "--size", "64", *FAST, env=env)
    assert both.returncode == 1
    errors = [ln for ln in both.stderr.splitlines() if "typo.double" in ln]
    assert len(errors) == 1 and errors[0].startswith("swarbench: error: kernel typo.double's spec is wrong")
    frame = _frame(tmp_path)
    assert set(frame.kernel) == {"cards.contains"} and (frame.status == "PASS").all()  # nothing blamed on naive


def test_the_spec_check_finds_what_is_wrong_and_passes_the_builtin_kernels():
    reg = registry.load()
    assert oracle.spec_problems(reg.kernels.values()) == {}  # what a run takes on trust for the built-in suites
    assert reg.is_builtin("cards.contains")


UNKNOWN_HOOK = """
    from swarbench import hookimpl

    @hookimpl
    def swarbench_add_implementation(registry):
        pass
"""

UNKNOWN_KERNEL = """
    from swarbench import Implementation, hookimpl

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("card.contains", "mine", "python-naive", lambda w: None))
"""


def test_a_misspelt_hook_fails_its_plugin_by_name_and_list_exits_non_zero(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "typo_hook", UNKNOWN_HOOK))
    proc = swarbench("list", "-k", "cards.contains", env=env)
    assert proc.returncode == 1
    assert "cards.contains:" in proc.stdout  # what loaded is still listed
    said = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(said) == 1 and "plugin 'typo_hook'" in said[0]
    assert "unknown hook 'swarbench_add_implementation'" in said[0]
    assert "did you mean 'swarbench_add_implementations'" in said[0]


def test_an_implementation_of_an_unknown_kernel_is_named(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "lost", UNKNOWN_KERNEL))
    proc = swarbench("list", "-k", "cards.contains", env=env)
    assert proc.returncode == 1
    assert "plugin 'lost'" in proc.stderr
    assert "implementation 'mine' is for unknown kernel 'card.contains'; did you mean 'cards.contains'?" in proc.stderr
    assert "sbtest_lost.py:" in proc.stderr  # the plugin's own line, not the registry's


def test_list_says_of_every_kernel_whether_the_default_run_includes_it(env):
    proc = swarbench("list", env=env)
    assert proc.returncode == 0, proc.stderr
    lines = {
        ln.split(":")[0].strip(): ln
        for ln in proc.stdout.splitlines()
        if ln.startswith("  ") and not ln.startswith("    ")
    }
    reg = registry.load()
    assert set(lines) == set(reg.kernels)
    assert "not in the default run: -k poker.atoi8" in lines["poker.atoi8"]
    assert lines["cards.contains"].endswith("; in the default run]")
