"""The HTML pages in a real headless Chromium, driven over the DevTools protocol: no console error, no network
request, no sideways scrolling at 1280 px, and a scoreboard that names each kernel's fastest implementation as
results.csv does. The test leaves a screenshot of the report's top and prints its path."""

import base64
import json
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_env, make_plugin_site, swarbench
from test_report import RUN, WRONG_ON_PURPOSE

pytestmark = pytest.mark.slow  # every test here renders whole runs (and a browser)

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
WIDTH = 1280


def browser_path() -> str:
    found = next((p for p in map(shutil.which, BROWSERS) if p), None)
    if found is None:
        pytest.skip("no Chromium here (Debian: apt-get install chromium; .ci/run installs it where missing)")
    return found


class Chromium:
    """A headless Chromium and one page of it, over the DevTools protocol (websocket-client carries it)."""

    def __init__(self, profile: Path):
        import websocket

        self.proc = subprocess.Popen(
            [
                browser_path(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                f"--window-size={WIDTH},1100",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        port = None
        deadline = time.time() + 60
        while port is None and time.time() < deadline:  # it says where it listens on stderr
            line = self.proc.stderr.readline()
            if not line and self.proc.poll() is not None:
                break
            found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            port = int(found.group(1)) if found else None
        if port is None:
            self.close()
            pytest.fail("Chromium started but never opened its DevTools port")
        pages = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30).read())
        url = next(p["webSocketDebuggerUrl"] for p in pages if p.get("type") == "page")
        self.ws = websocket.create_connection(url, timeout=60, suppress_origin=True)
        self.next_id, self.events = 0, []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=1100, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                assert "error" not in message, message
                return message.get("result", {})
            self.events.append(message)

    def load(self, page: Path) -> None:
        self.events.clear()
        self.call("Page.navigate", url=page.resolve().as_uri())
        deadline = time.time() + 60
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events) and time.time() < deadline:
            self.events.append(json.loads(self.ws.recv()))

    def evaluate(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, and requests for anything but the file itself."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                out.append(f"exception: {params}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(f"log: {params['entry'].get('text')}")
            elif method == "Network.requestWillBeSent" and not params["request"]["url"].startswith(("file:", "data:")):
                out.append(f"request: {params['request']['url']}")
        return out

    def screenshot(self, path: Path) -> Path:
        data = self.call(
            "Page.captureScreenshot", format="png", clip={"x": 0, "y": 0, "width": WIDTH, "height": 1100, "scale": 1}
        )["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        if getattr(self, "ws", None) is not None:
            self.ws.close()
        self.proc.kill()
        self.proc.wait(timeout=30)


@pytest.fixture
def chromium(tmp_path):
    browser_path()
    page = Chromium(tmp_path / "profile")
    yield page
    page.close()


def test_report_html_in_chromium_has_no_errors_no_requests_no_overflow_and_names_each_winner(tmp_path, chromium):
    env = cli_env(tmp_path, make_plugin_site(tmp_path / "site", "purposely", WRONG_ON_PURPOSE))
    for _ in range(2):  # two runs: the second page is the report with a change column (--against)
        proc = swarbench("run", *RUN, env=env)
        assert proc.returncode == 0, proc.stderr
    a, b = sorted(Path(env["SWARBENCH_REPORTS"]).iterdir())
    pages = [b / "report.html"]
    for args, name in (
        (["report", b.name, "--against", a.name, "-f", "html"], "against.html"),
        (["compare", a.name, b.name, "-f", "html"], "compare.html"),
    ):
        out = swarbench(*args, env=env)
        assert out.returncode == 0, out.stderr
        (tmp_path / name).write_text(out.stdout)
        pages.append(tmp_path / name)
    for page in pages:
        chromium.load(page)
        assert chromium.problems() == [], page
        width = chromium.evaluate("document.documentElement.scrollWidth")
        assert width <= WIDTH, (page.name, width)
        if page == pages[0]:
            shot = chromium.screenshot(tmp_path / "report-top.png")
            print(f"screenshot of the report's top: {shot}")
    chromium.load(pages[0])
    board = chromium.evaluate(
        "JSON.stringify([...document.querySelectorAll('table.score tbody tr')]"
        ".map(tr => [...tr.cells].map(td => td.textContent.trim())))"
    )
    shown = {row[0]: row[2] for row in json.loads(board)}
    frame = pd.read_csv(b / "results.csv")
    passed = frame[(frame.status == "PASS") & (frame.kernel != "swarbench.overhead")]
    for kernel, group in passed.groupby("kernel"):
        fastest = group.sort_values(["ns_per_op_median", "implementation"]).implementation.iloc[0]
        assert shown[kernel] == fastest, (kernel, shown)
    assert chromium.evaluate("document.querySelectorAll('svg.chart').length") >= 2


def test_report_html_folds_each_rows_timed_code_and_its_limits_in_chromium(tmp_path, chromium):
    """A run's report in Chromium: the limits table under the kernel, one folded pane of timed code per C and
    Numba row, closed until opened, then showing the listing with its hot loop highlighted."""
    from swarbench import features

    why = features.unavailable(("cc", "module:numba"))
    if why:
        pytest.skip(why)
    env = cli_env(tmp_path)
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "c-swar",
        "-i",
        "numba-swar",
        "-n",
        "4096",
        "--max-time",
        "0.005",
        "--passes",
        "2",
        "--no-overhead",
        "-q",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    page = next(Path(env["SWARBENCH_REPORTS"]).iterdir()) / "report.html"
    chromium.load(page)
    assert chromium.problems() == []
    assert chromium.evaluate("document.querySelectorAll('table.limits tbody tr').length") == 2
    panes = json.loads(
        chromium.evaluate(
            "JSON.stringify([...document.querySelectorAll('details.asm')].map(d => "
            "[d.querySelector('summary').textContent, d.open, "
            "d.querySelector('pre').checkVisibility()]))"
        )
    )
    assert sorted(p[0].split(":")[0] for p in panes) == ["timed code of c-swar", "timed code of numba-swar"]
    assert all(not is_open and not visible for _, is_open, visible in panes), panes  # folded
    chromium.evaluate("document.querySelectorAll('details.asm').forEach(d => d.open = true)")
    shown = json.loads(
        chromium.evaluate(
            "JSON.stringify([...document.querySelectorAll('details.asm')].map(d => [d.querySelector('pre')"
            ".checkVisibility(), d.querySelectorAll('pre mark').length, d.querySelector('pre').textContent"
            ".includes('sha256: ')]))"
        )
    )
    assert all(visible and marked > 0 and hashed for visible, marked, hashed in shown), shown
    assert chromium.evaluate("document.documentElement.scrollWidth") <= WIDTH
    shot = chromium.screenshot(tmp_path / "timed-code.png")
    print(f"screenshot: {shot}")
