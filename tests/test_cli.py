"""The command line end to end: list, run, report, and bad input as one line with exit code 2."""

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from swarbench.run_request import RunRequest

from conftest import FAST, assert_one_line_error, cli_env, contains_plugin, make_plugin_site, swarbench

SMALL = ["--kernel", "cards.*", "--size", "256", *FAST]
FULL = ["--kernel", "cards.*", "--size", "256", "--max-time", "0.01", "--min-rounds", "2", "--quiet"]


def _run_dir(env):
    reports = os.path.join(env["SWARBENCH_REPORTS"])
    (name,) = os.listdir(reports)
    return os.path.join(reports, name)


@pytest.mark.slow
def test_run_checks_times_saves_and_reports(env):
    proc = swarbench("run", *FULL, "--processes", "2", env=env)  # two workers, call overhead measured by default
    assert proc.returncode == 0, proc.stderr
    assert "BenchmarkContains/naive-" in proc.stdout and "ns/op" in proc.stdout
    run_dir = _run_dir(env)
    for name in (
        "results.csv",
        "report.html",
        "report.md",
        "benchmark-w0.json",
        "benchmark-w1.json",
        "machine.json",
        "records.jsonl",
    ):
        assert os.path.exists(os.path.join(run_dir, name)), name
    frame = pd.read_csv(os.path.join(run_dir, "results.csv"))
    passed = frame[(frame.status == "PASS") & (frame.kernel != "swarbench.overhead")]
    assert set(frame.kernel) == {"cards.contains", "cards.remove", "swarbench.overhead"}
    assert (passed.n == 256).all() and (passed.ns_per_op_median > 0).all()
    base = passed[passed.implementation == "naive"]
    assert (base.speedup == 1.0).all()
    assert frame.machine_cpu.notna().all() and frame.git_commit.notna().all()
    # pytest-benchmark's own files hold the same measurements: a benchmark per pass that has rounds
    rounds = {}
    for worker in (0, 1):
        bench = json.load(open(os.path.join(run_dir, f"benchmark-w{worker}.json")))
        for b in bench["benchmarks"]:
            if b["extra_info"]["kernel"] != "swarbench.overhead":
                case = b["param"].split("~pass")[0]
                passes = RunRequest().passes  # the default
                assert b["param"].split("~pass")[1] in {f"{k}of{passes}" for k in range(1, passes + 1)}
                rounds[case] = rounds.get(case, 0) + b["stats"]["rounds"]
    assert len(rounds) == len(passed)
    for row in passed.itertuples():
        assert rounds[f"{row.kernel}:{row.implementation}:deals:n=256"] == row.rounds
    assert (passed.processes == 2).all()  # two fresh workers, samples merged
    assert (passed.ns_per_op_ci_low <= passed.ns_per_op_median).all()
    assert (passed.ns_per_op_median <= passed.ns_per_op_ci_high).all()
    html = open(os.path.join(run_dir, "report.html")).read()
    assert "<svg" in html and "cards.contains" in html and "http" not in html.replace("http://www.w3.org", "")


@pytest.mark.slow
@pytest.mark.parametrize(
    "fmt, marker",
    [
        ("text", "BenchmarkRemove/"),
        ("md", "| implementation "),
        ("csv", "ns_per_op_median"),
        ("html", "<!doctype html>"),
    ],
)
def test_report_renders_a_saved_run_in_every_format(env, fmt, marker):
    assert (
        swarbench("run", "--kernel", "cards.remove", "--impl", "*swar*", "--size", "64", *FAST, env=env).returncode == 0
    )
    run_id = os.path.basename(_run_dir(env))
    proc = swarbench("report", run_id, "--format", fmt, env=env)
    assert proc.returncode == 0 and marker in proc.stdout, proc.stderr


def test_list_says_what_cannot_run_here_and_why(env):
    env.update(SWARBENCH_CPU_FLAGS="sse2 popcnt")  # pretend to be an older machine
    out = swarbench("list", env=env).stdout
    assert "c-swar-avx512" in out and "unavailable: needs avx512bw" in out
    assert "unavailable: needs avx2" in out
    env.update(SWARBENCH_NO_CC="1")
    assert "unavailable: no C compiler" in swarbench("list", env=env).stdout


@pytest.mark.slow
def test_missing_features_skip_with_a_reason_and_never_crash(env):
    env.update(SWARBENCH_CPU_FLAGS="sse2", SWARBENCH_NO_CC="1")
    proc = swarbench("run", "--kernel", "cards.contains", "--size", "64", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "--- SKIP: BenchmarkContains/c-swar-avx512-2 [cffi-avx512]: no C compiler" in proc.stdout
    assert "BenchmarkContains/numba-swar" in proc.stdout


WRONG_PLUGIN = contains_plugin(
    "wrong",
    "numpy",
    "prepare",
    """
    import numpy as np

    def prepare(workload):
        a, b = workload.inputs["a"], workload.inputs["b"]
        return lambda: a >= b  # wrong: compares whole words
""",
)


@pytest.mark.slow
def test_a_wrong_plugin_implementation_is_reported_fail_never_ranked_and_the_run_exits_1(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "wrongdoer", WRONG_PLUGIN))
    proc = swarbench(
        "run", "--kernel", "cards.contains", "--impl", "wrong", "--impl", "naive", "--size", "128", *FAST, env=env
    )
    assert proc.returncode == 1, proc.stderr
    assert "--- FAIL: BenchmarkContains/wrong-" in proc.stdout and "expected" in proc.stdout
    assert "FAIL: cards.contains/wrong" in proc.stderr
    frame = pd.read_csv(os.path.join(_run_dir(env), "results.csv"))
    wrong = frame[frame.implementation == "wrong"].iloc[0]
    assert wrong.status == "FAIL" and pd.isna(wrong.ns_per_op_median) and pd.isna(wrong.speedup)


BROKEN_IMPORT = "raise ImportError('this plugin needs a package that is not here')\n"


@pytest.mark.slow
def test_a_plugin_that_fails_to_import_is_named_and_the_run_goes_on(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "shaky", BROKEN_IMPORT))
    proc = swarbench("run", "--kernel", "cards.contains", "--impl", "swar", "--size", "64", *FAST, env=env)
    assert proc.returncode == 0
    assert "plugin 'shaky' failed in import: ImportError: this plugin needs a package" in proc.stderr
    assert "BenchmarkContains/swar-" in proc.stdout
    quiet = swarbench("--disable-plugin", "shaky", "list", env=env)
    assert "shaky" not in quiet.stderr and "disabled plugins: shaky" in quiet.stdout


@pytest.mark.parametrize(
    "args, words",
    [
        (["run", "--kernel", "nope.*"], ["no kernel matches 'nope.*'", "cards.contains"]),
        (["run", "--kernel", "cards.contains", "--impl", "c-quantum"], ["no implementation", "'c-quantum'"]),
        (["run", "--size", "0"], ["--size", "'0' is not a positive integer"]),
        (["run", "--size", "lots"], ["'lots' is not a positive integer"]),
        (["run", "--size", "1e15"], ["--size 1000000000000000 needs about", "GiB"]),
        (["run", "--workload", "marathon"], ["no workload 'marathon'"]),
        (["run", "--max-time", "-1"], ["must be above 0"]),
        (["run", "--short-rounds", "-1"], ["--short-rounds", "'-1'"]),
        (["report", "no-such-run"], ["no run 'no-such-run'"]),
        (["frobnicate"], ["invalid choice: 'frobnicate'"]),
    ],
)
@pytest.mark.slow
def test_bad_arguments_are_one_line_and_exit_2(env, args, words):
    assert_one_line_error(swarbench(*args, env=env), *words)


def test_an_unwritable_reports_folder_is_one_line(env, tmp_path):
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("")
    assert_one_line_error(
        swarbench("run", *SMALL, "--reports", str(blocker / "sub"), env=env), "cannot write to the reports folder"
    )


@pytest.mark.parametrize(
    "content, words",
    [
        ("\x00\x01garbage\xff", ["not a swarbench results file"]),
        ("name,value\nx,1\n", ["not a swarbench results file", "missing column"]),
        ("", ["not a swarbench results file"]),
    ],
)
def test_corrupt_or_foreign_results_files_are_refused(env, tmp_path, content, words):
    path = tmp_path / "results.csv"
    path.write_text(content, errors="surrogateescape")
    assert_one_line_error(swarbench("report", str(path), env=env), *words)


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_measured(env):
    # Interrupted in its second pass (wherever that lands: Python, C or Numba code), a run keeps the samples of
    # every case its first pass timed.
    cmd = [
        sys.executable,
        "-m",
        "swarbench.cli",
        "run",
        "--kernel",
        "cards.remove",
        "--impl",
        "*swar*",
        "--impl",
        "naive",
        "--impl",
        "unrolled",
        "--size",
        "200000",
        "--min-rounds",
        "50",
        "--max-time",
        "6",
        "--quiet",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    deadline, records = time.time() + 240, None
    second_pass = f'"timing (pass 2 of {RunRequest().passes})"'  # of the default number
    while time.time() < deadline:
        reports = env["SWARBENCH_REPORTS"]
        runs = os.listdir(reports) if os.path.isdir(reports) else []
        if runs:
            records = os.path.join(reports, runs[0], "records.jsonl")
            lines = open(records).read().splitlines() if os.path.exists(records) else []
            if sum(second_pass in ln and "cards.remove" in ln for ln in lines) >= 2:
                break
        time.sleep(0.2)
    else:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("the run never reached its second pass")
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    frame = pd.read_csv(os.path.join(os.path.dirname(records), "results.csv"))
    kept = frame[frame.kernel == "cards.remove"]
    passed = kept[kept.status == "PASS"]
    assert len(passed) >= 2 and passed.reason.str.startswith("stopped after").all() and "interrupted" in out, kept[
        ["implementation", "status", "reason"]
    ]
    assert not kept.status.isin(["ERROR", "FAIL"]).any(), kept[["implementation", "status", "reason"]]


@pytest.mark.slow
def test_a_reader_that_stops_reading_does_not_stop_the_run(env):
    # `swarbench run 2>&1 | head -1`: the progress display loses its pipe after one line; the run goes on.
    cmd = [
        sys.executable,
        "-m",
        "swarbench.cli",
        "run",
        "--kernel",
        "cards.contains",
        "--impl",
        "c-swar*",
        "--size",
        "256",
        "--max-time",
        "0.005",
        "--min-rounds",
        "1",
        "--no-overhead",
        "--processes",
        "2",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=300) == 0  # every implementation passed, as the exit code still says
    frame = pd.read_csv(os.path.join(_run_dir(env), "results.csv"))
    ran = frame[frame.status != "SKIP"]  # a machine without AVX-512 skips those rows
    assert len(ran) >= 2 and (ran.processes == 2).all()  # both workers ran to the end


TOY_KERNEL = """
    import numpy as np
    from swarbench import Implementation, Kernel, WorkloadKind, hookimpl

    from swarbench import InvalidInput, Parameter

    def build(size, seed):
        return {"x": np.random.default_rng(seed).integers(0, 100, size)}, size

    def build_from(size, seed, values):
        return {"x": np.random.default_rng(seed).integers(values["low"], values["low"] + 10, size)}, size

    def parse_low(text):
        if not text.isdigit():
            raise InvalidInput(f"low {text!r} is not a whole number")
        return int(text)

    FROM = WorkloadKind("from", build_from, "numbers from LOW", default_size=64, default=False,
                        parameters={"low": Parameter("smallest number", "0", parse_low)})
    TOY = Kernel(id="toy.double", description="2x", unit="number", baseline="right",
                 workloads=(WorkloadKind("random", build, "random numbers", default_size=64), FROM),
                 reference=lambda inputs: inputs["x"] * 2,
                 summarize=lambda out: {"total": int(np.asarray(out).sum())})

    def right(workload):
        x = workload.inputs["x"]
        return lambda: x * 2

    def off_by_one(workload):
        x = workload.inputs["x"]
        return lambda: x * 2 + 1

    @hookimpl
    def swarbench_add_kernels(registry):
        registry.add_kernel(TOY)

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation("toy.double", "right", "numpy", right))
        registry.add_implementation(Implementation("toy.double", "off-by-one", "numpy", off_by_one))
"""


@pytest.mark.slow
def test_a_failing_implementation_keeps_the_summary_of_what_it_computed(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "toy", TOY_KERNEL))
    proc = swarbench("run", "--kernel", "toy.*", "--size", "64", *FAST, env=env)
    assert proc.returncode == 1, proc.stderr
    frame = pd.read_csv(os.path.join(_run_dir(env), "results.csv")).set_index("implementation")
    right, wrong = (json.loads(frame.loc[name, "summary"])["total"] for name in ("right", "off-by-one"))
    assert frame.loc["off-by-one", "status"] == "FAIL" and wrong == right + 64


@pytest.mark.slow
def test_workload_parameters_reach_the_generator_and_bad_values_are_one_line(tmp_path):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "toy", TOY_KERNEL))
    listed = swarbench("list", "--kernel", "toy.*", env=env)
    assert "--param low=...: smallest number (default '0')" in listed.stdout
    proc = swarbench(
        "run",
        "--kernel",
        "toy.*",
        "--impl",
        "right",
        "--workload",
        "from",
        "--param",
        "low=1000",
        "--size",
        "64",
        *FAST,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    row = pd.read_csv(os.path.join(_run_dir(env), "results.csv")).iloc[0]
    assert json.loads(row.params) == {"low": "1000"} and json.loads(row.summary)["total"] >= 2 * 1000 * 64
    assert_one_line_error(
        swarbench("run", "--kernel", "toy.*", "--workload", "from", "--param", "low=ten", env=env),
        "low 'ten' is not a whole number",
    )
    assert_one_line_error(
        swarbench("run", "--kernel", "toy.*", "--param", "high=3", env=env), "takes --param high", "parameters: low"
    )
    assert_one_line_error(
        swarbench("run", "--kernel", "toy.*", "--param", "low=3", env=env),
        "--param low is for workload from",
        "add --workload",
    )


def test_suite_section_cells_are_formatted_not_dumped():
    import numpy as np

    from swarbench.render import fmt_cell

    assert [
        fmt_cell(x)
        for x in (
            1783570.0,
            3667.5384905,
            0.76950333,
            float("nan"),
            np.float64(58.990825),
            np.int64(65536),
            "73.9 / 64.3",
        )
    ] == ["1,783,570", "3,667.5", "0.7695", "", "58.99", "65,536", "73.9 / 64.3"]
