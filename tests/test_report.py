"""The reports of a real (small) run: the terminal within 120 columns, markdown that reads as plain text, the HTML's
scoreboard, benchmark.json as pytest-benchmark reads it, the github-action-benchmark export, compare as HTML and
markdown, and report --against."""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_env, make_plugin_site, swarbench

pytestmark = pytest.mark.slow  # every test here reports on two whole runs

# kept wrong on purpose: the report must say so in one line, and never time it
WRONG_ON_PURPOSE = textwrap.dedent("""
    from swarbench import Implementation, hookimpl

    def prepare(workload):
        a, b = workload.inputs["a"], workload.inputs["b"]
        return lambda: a >= b  # compares whole words, not each rank's count

    @hookimpl
    def swarbench_add_implementations(registry):
        registry.add_implementation(Implementation(
            "cards.contains", "words-compared", "numpy", prepare,
            expected_to_fail="compares whole words: kept to show what the oracle catches"))
""")
IMPLS = ["naive", "swar", "c-swar", "c-loop", "numpy-swar", "c-swar-avx512", "words-compared"]
RUN = [
    "--kernel",
    "cards.*",
    "--size",
    "4096",
    "--max-time",
    "0.01",
    "--processes",
    "1",
    "--passes",
    "2",
    "--quiet",
    *[x for i in IMPLS for x in ("--impl", i)],
]


def run_twice(tmp_path) -> tuple[dict, list[Path]]:
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "purposely", WRONG_ON_PURPOSE))
    outs = []
    for _ in range(2):
        proc = swarbench("run", *RUN, env=env)
        assert proc.returncode == 0, proc.stderr
        outs.append(proc.stdout)
    runs = sorted(Path(env["SWARBENCH_REPORTS"]).iterdir())
    return env | {"_stdout": outs[-1]}, runs


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    return run_twice(tmp_path_factory.mktemp("report"))


def test_terminal_report_fits_120_columns_with_units_and_marks_explained_once(two_runs):
    env, (a, b) = two_runs
    out = env["_stdout"]
    lines = out.splitlines()
    within = [ln for ln in lines if not ln.startswith("saved ")]  # the run folder's path is as long as it is
    assert max(len(line) for line in within) <= 120, max(within, key=len)
    assert "NaN" not in out and "nan" not in out.replace("naive", "")
    assert re.search(r"BenchmarkContains/c-swar-\d+ +\d[\d.,]* (ns|us)", out), out
    # the wrong-on-purpose row is one line that says so
    (line,) = [ln.strip() for ln in lines if "--- FAIL: BenchmarkContains/words-compared" in ln]
    assert "as expected, kept wrong on purpose" in line
    # every mark a table uses is explained once, at the end, beside the machine's steadiness where it was seen
    marks = set("".join(re.findall(r"  ([fuvtwb2]+)$", out, re.M)))
    legend = out.split("Caveat marks:")[-1]
    for mark in marks:
        assert re.search(rf"^  {mark}   \w", legend, re.M), mark
    steadiness = re.search(r"^  \*   (the machine ran|other programs|no other program)", legend, re.M) is not None
    assert out.count("Caveat marks:") == (1 if marks or steadiness else 0)


def test_markdown_tables_are_padded_to_read_as_plain_text(two_runs):
    _, (a, b) = two_runs
    text = (b / "report.md").read_text()
    assert max(len(line) for line in text.splitlines()) <= 200
    # prose, the header and the machine's line (its name and SIMD flags vary by host) are wrapped at 120
    prose = [line for line in text.splitlines() if not line.startswith("|")]
    assert max(len(line) for line in prose) <= 120, max(prose, key=len)
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    assert len(tables) >= 3  # scoreboard and the two kernels at least
    for table in tables:
        assert len({len(line) for line in table}) == 1, table  # columns line up
        assert len({m.start() for line in table for m in re.finditer(r" \| ", line)}) <= len(table[0].split(" | "))


def test_html_leads_with_a_scoreboard_naming_each_kernels_fastest(two_runs):
    _, (a, b) = two_runs
    html = (b / "report.html").read_text()
    frame = pd.read_csv(b / "results.csv")
    board = html.split("<table class='score'>")[1].split("</table>")[0]
    assert html.index("Scoreboard") < html.index("<svg")
    for kernel in ("cards.contains", "cards.remove"):
        passed = frame[(frame.kernel == kernel) & (frame.status == "PASS")]
        fastest = passed.sort_values(["ns_per_op_median", "implementation"]).implementation.iloc[0]
        row = [r for r in board.split("<tr>") if f">{kernel}<" in r][0]
        assert f"<td>{fastest}</td>" in row
    assert "http" not in html.replace("http://www.w3.org", "") and "<script" not in html
    assert "words-compared: FAIL as expected" in html and "time per op, log scale" in html
    # the caveats, where there are any, are the marks' meanings and the canary's line on the run
    caveats = html.split("<b>Caveats</b>")[1].split("</ul>")[0] if "<b>Caveats</b>" in html else ""
    items = re.findall(r"<li>(.*?)</li>", caveats)
    assert bool(items) == bool(caveats), caveats
    for item in items:
        assert re.match(r"<b>\w</b>: ", item) or item.startswith(
            ("the machine ran", "other programs", "no other program")
        ), item


def _pytest_benchmark(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-c", "from pytest_benchmark.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def test_benchmark_json_shows_the_reports_medians_per_op_in_pytest_benchmark_compare(two_runs):
    _, (a, b) = two_runs
    data = json.loads((b / "benchmark.json").read_text())
    frame = pd.read_csv(b / "results.csv")
    timed = frame[(frame.status == "PASS") & (frame.kernel != "swarbench.overhead")]
    assert len(data["benchmarks"]) == len(timed)  # one entry per (kernel, implementation, workload, n)
    assert data["swarbench"]["command"].startswith("swarbench run --kernel 'cards.*'")
    by_name = {x["name"]: x for x in data["benchmarks"]}
    for r in timed.itertuples():
        stats = by_name[f"{r.kernel}[{r.implementation}-{r.workload}-{r.n}]"]["stats"]
        assert stats["median"] == pytest.approx(r.ns_per_op_median * 1e-9, rel=1e-9)
        assert stats["rounds"] == r.samples and len(stats["data"]) == r.samples
    proc = _pytest_benchmark("compare", str(b / "benchmark.json"), "--columns", "median", "--sort", "name")
    assert proc.returncode == 0, proc.stderr
    shown, scale = {}, None
    for line in proc.stdout.splitlines():  # each group's table has its own unit ("Name (time in us)")
        unit = re.search(r"\(time in (\w*?)s\)", line)
        if unit:
            scale = {"n": 1, "u": 1e3, "m": 1e6, "": 1e9}[unit.group(1)]
        elif line.startswith("cards."):
            shown[line.split()[0]] = (
                float(line.split()[2 if line.split()[1].startswith("(") else 1].replace(",", "")) * scale
            )
    for r in timed.itertuples():
        assert shown[f"{r.kernel}[{r.implementation}-{r.workload}-{r.n}]"] == pytest.approx(
            r.ns_per_op_median, rel=1e-4, abs=1e-4
        )


def test_github_action_benchmark_export_lists_each_median_smaller_is_better(two_runs):
    env, (a, b) = two_runs
    proc = swarbench("report", b.name, "--format", "github-action-benchmark", env=env)
    assert proc.returncode == 0, proc.stderr
    entries = json.loads(proc.stdout)
    frame = pd.read_csv(b / "results.csv")
    swar = frame[(frame.kernel == "cards.remove") & (frame.implementation == "swar")].iloc[0]
    entry = next(e for e in entries if e["name"].startswith("cards.remove/swar "))
    assert entry["unit"] == "ns/hand pair" and entry["value"] == pytest.approx(swar.ns_per_op_median)
    assert all(set(e) >= {"name", "unit", "value"} for e in entries)


def test_compare_renders_html_and_markdown_with_a_chart_and_report_against_adds_a_change_column(two_runs):
    env, (a, b) = two_runs
    html = swarbench("compare", a.name, b.name, "--format", "html", env=env)
    assert html.returncode == 0, html.stderr
    assert "<svg" in html.stdout and "verdict" in html.stdout and "95% interval" in html.stdout
    md = swarbench("compare", a.name, b.name, "--format", "md", env=env)
    assert "| verdict" in md.stdout and "```" in md.stdout and "cards.remove/swar" in md.stdout
    text = swarbench("report", b.name, "--against", a.name, env=env)
    assert text.returncode == 0, text.stderr
    header = next(ln for ln in text.stdout.splitlines() if ln.strip().startswith("benchmark "))
    assert header.rstrip().endswith("change")
    assert max(len(line) for line in text.stdout.splitlines() if not line.startswith("saved ")) <= 120
    page = swarbench("report", b.name, "--against", a.name, "--format", "html", env=env).stdout
    assert ">change</th>" in page
