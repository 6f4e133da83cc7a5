"""Reports never execute what came from a plugin or a results file: every renderer shows hostile names, reasons and
cells as text (HTML escaped in text and attributes alike, Markdown with no markup, the terminal with no control
sequence), the HTML page runs nothing in a real Chromium, and a hand-edited results.csv with cells no run writes
is one line naming the column and line, or renders safely."""

from __future__ import annotations

import html.parser
import json
import re
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import assert_one_line_error, cli_env, swarbench
from swarbench import results
from swarbench.render import RunView, render
from swarbench.runfolder import RECORDS, RunFolder

# a value of each kind that breaks out of an HTML text node, an attribute in either quote, a style or SVG element,
# a terminal, a Markdown table or code span; and one that is already an entity (it must show as written)
HOSTILE = [
    "x'><script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "</style><svg onload=alert(1)>",
    "\x1b]0;pwned\x07\x1b[2J",
    "a|b\nc `d`",
    "javascript:alert(1)",
    "&lt;script&gt;",
]


def hostile_records() -> list[dict]:
    """One kernel per hostile value, the value in every text field a result line has: two timed rows, a wrong
    one and a skipped one."""
    out = []
    for i, h in enumerate(HOSTILE):
        kernel = f"xss{i}.{h.replace(':', ';')}"  # (a colon would split the case id itself)
        impl, workload = h.replace(":", ";"), h.replace(":", ";")
        base = dict(
            event="result",
            kernel=kernel,
            workload=workload,
            n=64,
            worker=0,
            baseline=h,
            family=h,
            unit=h,
            iterations=1,
            params={h: h},
            summary={h: h},
            suite=h,
        )
        for prefix, status, samples in (
            ("", "PASS", [1e-6, 1.2e-6, 1.1e-6]),
            ("b", "PASS", [2e-6, 2.2e-6]),
            ("f", "FAIL", []),
            ("s", "SKIP", []),
        ):
            out.append(
                dict(
                    base,
                    case=f"{kernel}:{prefix}{impl}:{workload}:n=64",
                    implementation=prefix + impl,
                    status=status,
                    samples_s=samples,
                    reason=h if status != "PASS" else "",
                )
            )
    return out


HOSTILE_MACHINE = {
    "cpu": HOSTILE[0],
    "git_commit": HOSTILE[4],
    "simd_flags": [HOSTILE[1]],
    "hostname": HOSTILE[2],
    "packages": {HOSTILE[2]: HOSTILE[3]},
    "compiler": HOSTILE[5],
}
RUN_ID = "20260101-000000-x'><script>alert(2)</script>"


def hostile_view() -> RunView:
    frame = results.frame_from_records(hostile_records(), RUN_ID, HOSTILE_MACHINE)
    return RunView(frame, HOSTILE_MACHINE, notes=[HOSTILE[0], HOSTILE[3]])


class Tags(html.parser.HTMLParser):
    """Every element and attribute of a page, as a browser's parser sees them."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


def active_parts(page: str) -> list[str]:
    """What in a page could run: script-like elements, event-handler attributes, javascript: links."""
    parser = Tags()
    parser.feed(page)
    out = []
    for tag, attrs in parser.tags:
        if tag in ("script", "iframe", "object", "embed", "img", "base", "form", "link") or (
            tag == "meta" and any(k == "http-equiv" for k, _ in attrs)
        ):
            out.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (
                name in ("href", "src", "xlink:href", "action") and str(value).strip().lower().startswith("javascript")
            ):
                out.append(f"{tag} {name}={value!r}")
    return out


@pytest.mark.parametrize("fmt", ["text", "md", "csv", "html"])
def test_every_renderer_shows_hostile_cells_as_text(fmt):
    page = render(fmt, hostile_view())
    if fmt == "html":
        assert active_parts(page) == []
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text
        assert "&amp;lt;script&amp;gt;" in page  # an entity in a name is shown as written, not decoded
        ids = re.findall(r"\sid='([^']*)'", page)
        assert all(re.fullmatch(r"[A-Za-z0-9_-]+", i) for i in ids) and len(ids) == len(set(ids)), ids
    if fmt in ("text", "md"):
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", page), "a control character reaches the terminal"
        assert "\\x1b]0;pwned" in page  # written as an escape, not lost
    if fmt == "md":
        assert not re.search(r"<[A-Za-z/!]", page), re.search(r"<[A-Za-z/!].{0,40}", page).group()
        widths = [len(re.findall(r"(?<!\\)\|", line)) if line.startswith("| ") else None for line in page.splitlines()]
        for before, after in zip(widths, widths[1:]):  # a table's rows keep its columns: no cell breaks out
            assert before is None or after is None or before == after
    if fmt == "text":
        assert "xss0.x'><script>alert(1)</script>" in page  # plain text shows it as it is


def _saved(tmp_path: Path, frame: pd.DataFrame) -> Path:
    folder = tmp_path / "reports" / "20260101-000000-abcd"
    folder.mkdir(parents=True)
    run = RunFolder(folder)
    run.save(frame)
    run.write_machine(HOSTILE_MACHINE)
    (folder / RECORDS).write_text("".join(json.dumps(r) + "\n" for r in hostile_records()))
    return folder


@pytest.mark.slow
def test_a_hostile_results_file_renders_in_every_format_through_the_command_line(tmp_path):
    folder = _saved(tmp_path, results.frame_from_records(hostile_records(), "20260101-000000-abcd", {}))
    env = cli_env(tmp_path)
    for fmt in ("text", "md", "csv", "html"):
        shown = swarbench("report", str(folder), "-f", fmt, env=env)
        assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
        assert "\x1b" not in shown.stdout
        if fmt == "html":
            assert active_parts(shown.stdout) == []


def _frame(tmp_path) -> pd.DataFrame:
    return results.frame_from_records(hostile_records()[:8], "20260101-000000-abcd", {})


@pytest.mark.parametrize(
    "column, value, words",
    [
        ("kernel", "", ["column kernel is empty", "line 2"]),
        ("implementation", " ", ["column implementation is empty"]),
        ("n", 0, ["column n", "not a number of operations"]),
        ("n", -5, ["column n", "-5"]),
        ("n", 2.5, ["column n", "2.5"]),
        ("ns_per_op_median", float("inf"), ["column ns_per_op_median", "inf"]),
        ("ns_per_op_median", -1.0, ["column ns_per_op_median", "-1.0"]),
        ("speedup", float("-inf"), ["column speedup", "-inf"]),
        ("samples", -3, ["column samples"]),
        ("prepare_s", float("inf"), ["column prepare_s"]),
    ],
)
@pytest.mark.slow
def test_cells_no_run_writes_are_one_line_naming_column_and_line(tmp_path, column, value, words):
    frame = _frame(tmp_path)
    frame[column] = frame[column].astype(object)
    frame.loc[0, column] = value
    folder = _saved(tmp_path, frame)
    env = cli_env(tmp_path)
    for fmt in ("text", "html"):
        assert_one_line_error(swarbench("report", str(folder), "-f", fmt, env=env), *words)


@pytest.mark.slow
def test_a_row_of_unknown_size_and_a_status_no_run_writes_render_in_html(tmp_path):
    frame = _frame(tmp_path)
    frame.loc[0, "n"] = float("nan")  # an error before the size was known
    frame.loc[0, "samples"] = float("nan")  # a count left out by hand
    folder = _saved(tmp_path, frame)
    for fmt in ("html", "text", "md", "pytest-benchmark", "github-action-benchmark"):
        shown = swarbench("report", str(folder), "-f", fmt, env=cli_env(tmp_path))
        assert shown.returncode == 0 and "unknown" in shown.stdout, (fmt, shown.stderr)


@pytest.mark.slow
def test_compare_and_history_pages_of_hostile_runs_run_nothing(tmp_path):
    env = cli_env(tmp_path)
    reports = Path(env["SWARBENCH_REPORTS"])
    folders = []
    for run_id in ("20260101-000000-aaaa", "20260102-000000-bbbb"):
        folder = reports / run_id
        folder.mkdir(parents=True)
        run = RunFolder(folder)
        run.save(results.frame_from_records(hostile_records(), run_id, HOSTILE_MACHINE))
        run.write_machine(HOSTILE_MACHINE)
        (folder / RECORDS).write_text("".join(json.dumps(r) + "\n" for r in hostile_records()))
        folders.append(folder)
    compared = swarbench("compare", *map(str, folders), "-f", "html", env=env)
    assert compared.returncode == 0, compared.stderr
    assert active_parts(compared.stdout) == [] and "&lt;script&gt;" in compared.stdout
    for fmt in ("text", "md"):
        shown = swarbench("compare", *map(str, folders), "-f", fmt, env=env)
        assert shown.returncode == 0 and "\x1b" not in shown.stdout, shown.stderr
        if fmt == "md":
            assert not re.search(r"<[A-Za-z/!]", shown.stdout), shown.stdout
    history = swarbench("history", env=env)
    assert history.returncode == 0, history.stderr
    page = (reports / "history.html").read_text()
    assert active_parts(page) == [] and "&lt;script&gt;" in page


@pytest.mark.slow
def test_a_hostile_report_runs_nothing_in_chromium(tmp_path):
    from test_browser import Chromium, browser_path

    browser_path()
    folder = _saved(tmp_path, results.frame_from_records(hostile_records(), RUN_ID, HOSTILE_MACHINE))
    env = cli_env(tmp_path)
    pages = []
    for args, name in (
        (["report", str(folder), "-f", "html"], "report.html"),
        (["compare", str(folder), str(folder), "-f", "html"], "compare.html"),
    ):
        shown = swarbench(*args, env=env)
        assert shown.returncode == 0, shown.stderr
        (tmp_path / name).write_text(shown.stdout)
        pages.append(tmp_path / name)
    browser = Chromium(tmp_path / "profile")
    try:
        for page in pages:
            browser.load(page)
            time.sleep(0.5)  # any script would have run by now
            assert browser.evaluate("document.querySelectorAll('script, iframe, object, embed, img').length") == 0
            handlers = browser.evaluate(
                "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))"
                ".filter(n => n.startsWith('on')).length"
            )
            assert handlers == 0, page
            dialogs = [e for e in browser.events if e.get("method") == "Page.javascriptDialogOpening"]
            assert dialogs == [] and browser.problems() == [], (page, dialogs, browser.problems())
            shown = browser.evaluate("document.body.textContent")
            assert "xss0.x'><script>alert(1)</script>" in shown  # the name is there, as text
    finally:
        browser.close()
