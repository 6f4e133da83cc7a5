"""Your own kernels in one file (docs/plugins.md, "One file"): a local plugin checked and timed with no package,
the same file as a pytest test, its history across its own commits; ./benchmarks/ found and a broken module
isolated; rows as plain functions refused in one line where they do not fit; a registry that cannot reach the
workers refused, never run without its kernel."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from conftest import FAST, ROOT, cli_env, swarbench

SMALL = ["-n", "300", "--max-time", "0.005", "--min-rounds", "1", "--quiet", "--processes", "1"]


def the_documented_file() -> str:
    """bench_zero.py exactly as README.md and docs/plugins.md show it (the same file in both)."""
    shown = []
    for page, before in (("README.md", "`bench_zero.py` counts"), ("docs/plugins.md", "`bench_zero.py`, counting")):
        after = (ROOT / page).read_text().split(before, 1)[1]
        shown.append(after.split("```python\n", 1)[1].split("\n```", 1)[0] + "\n")
    assert shown[0] == shown[1], "README.md and docs/plugins.md show two different bench_zero.py"
    return shown[0]


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.mark.slow
def test_one_file_is_checked_timed_tested_and_followed_across_its_own_commits(tmp_path):
    home = tmp_path / "zero-bytes"
    home.mkdir()
    env = cli_env(tmp_path)
    env["SWARBENCH_REPORTS"] = str(home / "reports")
    (home / "bench_zero.py").write_text(the_documented_file())
    git(home, "init", "-q")
    git(home, "add", "bench_zero.py")
    git(home, "commit", "-qm", "three rows")
    commits = [git(home, "rev-parse", "--short=12", "HEAD")]

    first = swarbench("run", "bench_zero.py", *SMALL, env=env, cwd=home)
    assert first.returncode == 0, first.stdout + first.stderr
    out = first.stdout
    assert f"plugins: bench_zero.py (local, commit {commits[0]})" in out
    board = next(line for line in out.splitlines() if line.strip().startswith("zero.bytes  random"))
    assert "c-swar" in board.split()[-4:] or " is C " in board  # the scoreboard names the C it divides by
    assert "x C: over the fastest" in out and "cffi-scalar" in out
    # only the families this run used have an empty-call row, and they come after the kernel
    probes = re.findall(r"BenchmarkOverhead/(\w+)-", out)
    assert sorted(probes) == ["cffi", "numpy", "python"]
    assert out.index("zero.bytes  random, n=300") < out.index("swarbench.overhead")
    assert "cards." not in out  # a file named on the command line is what the run measures
    html = swarbench("report", "latest", "--format", "html", "-o", "zero.html", env=env, cwd=home)
    assert html.returncode == 0 and "zero.bytes" in (home / "zero.html").read_text()

    # a row wrong on purpose, committed: its first mismatch is shown, in text and in HTML
    source = (
        (home / "bench_zero.py")
        .read_text()
        .replace(
            "def test_swar(",
            textwrap.dedent("""\
        @zero.numpy(expected_to_fail="a zero byte's borrow marks a 0x01 byte above it")
        def borrow(words):
            found = (words - np.uint64(0x0101010101010101)) & ~words & np.uint64(0x8080808080808080)
            return ((found >> np.uint64(7)) * np.uint64(0x0101010101010101) >> np.uint64(56)).astype(np.uint8)


        def test_swar("""),
        )
    )
    (home / "bench_zero.py").write_text(source)
    git(home, "commit", "-qam", "a borrow row")
    commits.append(git(home, "rev-parse", "--short=12", "HEAD"))
    second = swarbench("run", "bench_zero.py", *SMALL, "--no-overhead", env=env, cwd=home)
    assert second.returncode == 0, second.stdout + second.stderr
    caught = re.search(
        r"BenchmarkBytes/borrow-\d+ \[numpy\]: as expected, kept wrong on purpose \(.*?\): at \d+: "
        r"input words=0x[0-9a-f]+: expected \d",
        " ".join(second.stdout.split()),
    )
    assert caught, second.stdout
    saved = sorted((home / "reports").glob("*/report.html"))[-1].read_text()
    assert re.search(r"borrow: FAIL as expected \(kept wrong on purpose: .*?\): at \d+: input words=0x", saved)

    (home / "bench_zero.py").write_text(source.replace("range(0, 64, 8)", "(0, 8, 16, 24, 32, 40, 48, 56)"))
    git(home, "commit", "-qam", "the loop unrolled")
    commits.append(git(home, "rev-parse", "--short=12", "HEAD"))
    third = swarbench("run", "bench_zero.py", *SMALL, "--no-overhead", env=env, cwd=home)
    assert third.returncode == 0, third.stdout + third.stderr

    history = swarbench("history", "--follow", "bench_zero.py", env=env, cwd=home)
    assert history.returncode == 0, history.stderr
    page = (home / "reports" / "history.html").read_text()
    assert "swarbench history of bench_zero.py" in page
    assert re.findall(r"<th class=n>(\w{10}) ", page) == [c[:10] for c in commits]  # the file's own commits
    compared = swarbench("compare", "--follow", "bench_zero.py", commits[0][:7], commits[2][:7], env=env, cwd=home)
    assert compared.returncode == 0, compared.stderr
    assert f"(bench_zero.py {commits[0]})" in compared.stdout and f"(bench_zero.py {commits[2]})" in compared.stdout

    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "bench_zero.py", "-q", "-p", "no:cacheprovider", "--benchmark-disable"],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert tested.returncode == 0 and "1 passed" in tested.stdout, tested.stdout + tested.stderr


TINY = """
    import numpy as np
    import swarbench


    def words(n, rng):
        return {"x": rng.integers(0, 2**32, n, dtype=np.uint64)}


    def reference(x):
        return x + np.uint64(1)


    tiny = swarbench.declare("tiny.next", words, reference, unit="word")


    @tiny.numpy
    def plus(x):
        return x + np.uint64(1)
"""


@pytest.mark.slow
def test_a_benchmarks_folder_is_what_a_plain_run_measures_and_a_broken_module_is_one_line(tmp_path):
    home = tmp_path / "project"
    (home / "benchmarks").mkdir(parents=True)
    (home / "benchmarks" / "tiny.py").write_text(textwrap.dedent(TINY))
    (home / "benchmarks" / "broken.py").write_text("import numpy\nundefined_name\n")
    (home / "benchmarks" / "_helper.py").write_text("raise RuntimeError('a helper is not a plugin')\n")
    env = cli_env(tmp_path)

    listed = swarbench("list", "-k", "tiny.*", env=env, cwd=home)
    assert listed.returncode == 1  # a plugin failed: listed, then exit 1
    assert listed.stdout.splitlines()[0] == "tiny  (local plugin benchmarks/tiny.py)"
    assert "cards" not in listed.stdout  # --kernel shows only what matches
    assert (
        "plugin failed: plugin 'benchmarks/broken.py' failed in import: NameError: name 'undefined_name' is not "
        "defined (broken.py:2)"
    ) in listed.stdout

    run = swarbench("run", *FAST, env=env, cwd=home)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [line for line in run.stderr.splitlines() if line.strip()] == [
        "swarbench: warning: plugin 'benchmarks/broken.py' failed in import: NameError: name 'undefined_name' is "
        "not defined (broken.py:2); skipped"
    ]
    assert "BenchmarkNext/plus-" in run.stdout and "cards." not in run.stdout and "helper" not in run.stdout

    wanted = swarbench(
        "--disable-plugin",
        "benchmarks/broken.py",
        "run",
        "-k",
        "cards.contains",
        "-i",
        "naive",
        *FAST,
        env=env,
        cwd=home,
    )
    assert wanted.returncode == 0 and "BenchmarkContains/naive-" in wanted.stdout and "tiny" not in wanted.stdout
    assert wanted.stderr.strip() == ""


def test_a_registry_the_workers_cannot_load_is_refused_and_a_local_one_runs(tmp_path):
    from swarbench import api
    from swarbench.errors import UsageError
    from swarbench.model import Implementation

    reg = api.plugins()
    reg.add_implementation(Implementation("cards.contains", "by-hand", "numpy", lambda w: lambda: None))
    with pytest.raises(UsageError) as refused:
        api.run("cards.contains", registry=reg, reports=tmp_path / "r", max_time=0.005, processes=1)
    assert "cards.contains/by-hand" in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "r").exists()  # nothing ran

    (tmp_path / "tiny.py").write_text(textwrap.dedent(TINY))
    assert api.plugins(local=[str(tmp_path / "tiny.py")]).local_kernels() == ["tiny.next"]
    frame = api.run(
        plugins=[str(tmp_path / "tiny.py")],
        reports=tmp_path / "r",
        max_time=0.005,
        min_rounds=1,
        processes=1,
        size=64,
        overhead=False,
    )
    assert frame[["kernel", "implementation", "status"]].values.tolist() == [["tiny.next", "plus", "PASS"]]
    # a file outside the folder run from is named by its whole path
    assert frame.attrs["machine"]["plugins"][str(tmp_path / "tiny.py")]["rows"] == ["tiny.next/plus"]


# -- rows as plain functions, without a run -------------------------------------------------------------------


def _declared(tmp_path, extra: str):
    """A module of a declared kernel plus ``extra`` rows, imported from a file (as a local plugin is)."""
    from swarbench import local

    path = tmp_path / f"decl_{abs(hash(extra)) % 10**8}.py"
    path.write_text(textwrap.dedent(TINY) + textwrap.dedent(extra))
    return local.import_file(path).tiny


def _verdicts(declared):
    from swarbench import testing

    kernel = declared.kernel()
    return {
        impl.name: [v for _, v in testing.verdicts(impl, sizes=(1, 9), seeds=(0,), against=kernel)][-1]
        for impl in declared.implementations
    }


C_ROWS = '''
    C = """
    #include <stdint.h>
    #include <stddef.h>
    void next(const uint64_t *restrict x, uint64_t *out, size_t n) { for (size_t i = 0; i < n; i++) out[i] = x[i] + 1; }
    void narrow(const uint64_t *x, uint32_t *out, size_t n) { for (size_t i = 0; i < n; i++) out[i] = x[i] + 1; }
    void writes(uint64_t *x, uint64_t *out, size_t n) { for (size_t i = 0; i < n; i++) out[i] = x[i] + 1; }
    void named(const uint64_t *y, uint64_t *out, size_t n) { for (size_t i = 0; i < n; i++) out[i] = y[i] + 1; }
    """
    tiny.c("c-next", C, "next")
    tiny.c("c-narrow", C, "narrow")
    tiny.c("c-writes", C, "writes")
    tiny.c("c-named", C, "named")


    @tiny.python
    def loop(x):
        return [v + 1 for v in x]


    @tiny.numpy
    def wrong_names(y):
        return y + 1


    @tiny.numpy
    def into(x, out):
        np.add(x, np.uint64(1), out=out)


    @tiny.numba(name="numba-loop")
    def jit_loop(x, out):
        for i in range(x.shape[0]):
            out[i] = x[i] + np.uint64(1)
'''


def test_rows_as_plain_functions_are_checked_and_what_does_not_fit_is_one_line(tmp_path):
    from swarbench import features

    declared = _declared(tmp_path, C_ROWS)
    assert [(i.name, i.family) for i in declared.implementations] == [
        ("plus", "numpy"),
        ("c-next", "cffi-scalar"),
        ("c-narrow", "cffi-scalar"),
        ("c-writes", "cffi-scalar"),
        ("c-named", "cffi-scalar"),
        ("loop", "python"),
        ("wrong_names", "numpy"),
        ("into", "numpy"),
        ("numba-loop", "numba"),
    ]
    assert declared.kernel().baseline == "plus"
    verdicts = _verdicts(declared)
    assert [verdicts[name].status for name in ("plus", "loop", "into")] == ["PASS"] * 3, verdicts
    if not features.unavailable(("module:numba",)):
        assert verdicts["numba-loop"].status == "PASS", verdicts["numba-loop"].reason
    assert "must take the inputs by their names: x" in verdicts["wrong_names"].reason
    if features.unavailable(("cc", "module:cffi")):
        pytest.skip("no C compiler here")
    assert verdicts["c-next"].status == "PASS", verdicts["c-next"].reason
    assert (
        "out is uint32_t *, but the reference returns uint64 (declare it uint64_t *out)" in verdicts["c-narrow"].reason
    )
    assert "parameter x must be const uint64_t *: inputs are read-only" in verdicts["c-writes"].reason
    assert "parameter y names no input array (inputs: x; out for the output)" in verdicts["c-named"].reason


def test_a_c_compile_error_names_the_python_file_and_line_of_the_c_text(tmp_path):
    from swarbench import features

    if features.unavailable(("cc", "module:cffi")):
        pytest.skip("no C compiler here")
    declared = _declared(
        tmp_path,
        '''
        tiny.c("c-broken", r"""
        #include <stdint.h>
        #include <stddef.h>
        void broken(const uint64_t *x, uint64_t *out, size_t n) { out[0] = x[0] + 1 }
        """, "broken")
    ''',
    )
    verdict = _verdicts(declared)["c-broken"]
    assert verdict.status == "ERROR"
    file, line = re.search(r"C compile error: (\S+?\.py):(\d+):", verdict.reason).groups()
    assert Path(file).name.startswith("decl_")
    assert "out[0] = x[0] + 1 }" in Path(file).read_text().splitlines()[int(line) - 1]


def test_the_fixture_checks_then_times_and_a_wrong_row_fails_with_its_input(tmp_path):
    (tmp_path / "test_rows.py").write_text(
        textwrap.dedent(TINY)
        + textwrap.dedent("""

        @tiny.numpy
        def off(x):
            return x + np.uint64(2)


        @tiny.numpy(expected_to_fail="adds two")
        def off_on_purpose(x):
            return x + np.uint64(2)


        def test_right(swarbench_benchmark):
            assert swarbench_benchmark(plus, size=100).dtype == np.uint64


        def test_wrong(swarbench_benchmark):
            swarbench_benchmark(off)


        def test_on_purpose(swarbench_benchmark):
            swarbench_benchmark(off_on_purpose)


        def test_a_plain_function_for_an_installed_kernel(swarbench_benchmark):
            def contains(a, b):
                return ((a & b) == b)
            swarbench_benchmark(contains, kernel="cards.contains", size=64)
    """)
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfx", "--benchmark-disable", "test_rows.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout
    assert "2 failed, 1 passed, 1 xfailed" in out, out
    assert re.search(
        r"\ntiny.next/off FAIL on random/n=64 seed 0: at 0: input x=0x[0-9a-f]+: expected \d+ "
        r"\(0x[0-9a-f]+\), got",
        out,
    ), out
    assert "XFAIL test_rows.py::test_on_purpose - tiny.next/off_on_purpose is wrong on purpose (adds two)" in out
    # cards.contains asks whether hand b is within hand a, nibble by nibble: a bitwise AND is wrong, and said so
    assert "\ncards.contains/contains FAIL on known answers: known answer " in out, out


def test_rows_as_plain_functions_give_the_reference_dtype_to_an_out_parameter(tmp_path):
    declared = _declared(tmp_path, "")
    out = declared.output_array(5)
    assert out.dtype == np.uint64 and out.shape == (5,) and out.ctypes.data % 64 == 0


def test_build_by_preparing_takes_the_registry_kernels():
    from swarbench import prebuild, registry

    reg = registry.load()
    impls = reg.implementations_of("cards.contains")[:2]
    built = prebuild.build_by_preparing(impls, reg.kernels)
    assert [i.build.args[0].id for i in built] == ["cards.contains"] * 2
