"""The out-of-tree example plugins: swarbench-example loaded through its own entry point as `pip install` would
leave it; swarbench-parse8, a kernel of its own, built as a wheel, installed and run, its own tests too."""

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import FAST, ROOT, cli_env, swarbench

EXAMPLE = ROOT / "examples" / "swarbench-example"


def _installed_like_pip(site: Path) -> Path:
    """Copy the package and write the .dist-info its pyproject.toml describes (name, entry point)."""
    import tomllib

    meta = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    shutil.copytree(EXAMPLE / "swarbench_example", site / "swarbench_example")
    info = site / "swarbench_example-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    eps = meta["entry-points"]["swarbench"]
    (info / "entry_points.txt").write_text("[swarbench]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
    return site


@pytest.mark.slow
def test_the_example_plugin_adds_an_implementation_that_is_checked_and_timed(tmp_path):
    env = cli_env(tmp_path, _installed_like_pip(tmp_path / "site"))
    listing = swarbench("list", "--kernel", "cards.contains", env=env).stdout
    assert "example-bytewise" in listing
    proc = swarbench(
        "run", "--kernel", "cards.contains", "--impl", "example-*", "--impl", "naive", "--size", "300", *FAST, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert "BenchmarkContains/example-bytewise-" in proc.stdout
    (run,) = (tmp_path / "reports").iterdir()
    frame = pd.read_csv(run / "results.csv")
    row = frame[frame.implementation == "example-bytewise"].iloc[0]
    assert row.status == "PASS" and row.ns_per_op_median > 0 and row.speedup > 0


def test_without_the_plugin_the_implementation_is_absent(tmp_path):
    assert "example-bytewise" not in swarbench("list", env=cli_env(tmp_path)).stdout


# -- the second example, a kernel of its own, built and installed as a wheel -----------------------------------
PARSE8 = ROOT / "examples" / "swarbench-parse8"


def no_build_isolation() -> list[str]:
    """``--no-build-isolation`` where this environment can build a wheel itself. Without the ``wheel`` package,
    setuptools before 70.1 cannot: pip then builds in its own isolated environment from the configured index."""
    import importlib.util

    import setuptools

    offline = importlib.util.find_spec("wheel") or tuple(map(int, setuptools.__version__.split(".")[:2])) >= (70, 1)
    return ["--no-build-isolation"] if offline else []


def build_wheel(project: Path, work: Path) -> Path:
    """``pip wheel --no-deps`` of a copy of ``project`` (a build in place would leave build/ in the checkout)."""
    src = work / project.name
    shutil.copytree(project, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(work / "dist"),
            *no_build_isolation(),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = (work / "dist").glob("*.whl")
    return wheel


def install_wheel(wheel: Path, site: Path) -> Path:
    """``pip install --target``: the package and its .dist-info (with the entry point), as a user's install."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return site


def run_own_tests(tests: Path, env: dict, cwd: Path) -> subprocess.CompletedProcess:
    """A plugin's own tests against the installed package (run from ``cwd``, not beside the source copy)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )


@pytest.mark.slow
def test_the_parse8_example_installs_from_a_wheel_and_runs_with_its_c_source(tmp_path):
    import zipfile

    wheel = build_wheel(PARSE8, tmp_path / "build")
    assert "swarbench_parse8/c/parse8.c" in zipfile.ZipFile(wheel).namelist()  # the package-data line
    env = cli_env(tmp_path, install_wheel(wheel, tmp_path / "site"))
    listing = swarbench("list", "--kernel", "parse8.*", env=env)
    assert listing.returncode == 0, listing.stderr
    assert "parse8.checked: eight ASCII bytes" in listing.stdout and "in the default run" in listing.stdout
    proc = swarbench("run", "--kernel", "parse8.checked", "--size", "300", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr  # the wrong implementation is kept on purpose: no exit 1
    (run,) = (tmp_path / "reports").iterdir()
    frame = pd.read_csv(run / "results.csv").set_index("implementation")
    assert frame.loc["c-swar", "status"] == "PASS" and frame.loc["c-naive", "status"] == "PASS"
    assert frame.loc["swar", "status"] == "PASS" and frame.loc["naive", "status"] == "PASS"
    assert frame.loc["numba-swar", "status"] in ("PASS", "SKIP")  # SKIP only where numba is missing
    assert frame.loc["swar-nibble-check", "status"] == "FAIL"
    assert frame.loc["swar-nibble-check", "expected_to_fail"].startswith("checks only each byte's high nibble")
    own = run_own_tests(tmp_path / "build" / "swarbench-parse8" / "tests", env, tmp_path)
    assert own.returncode == 0, own.stdout[-3000:]
    assert "passed" in own.stdout and "failed" not in own.stdout
