"""What `pip install` puts into site-packages: one top-level package, swarbench, with every suite's C sources
and data, and dependencies that do not install the same top-level package twice."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
import zipfile
from collections import defaultdict
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
# the repository's folders and the package names they install as (pyproject.toml's package-dir)
INSTALLED_AS = {"harness": "swarbench", "impls": "swarbench/suites"}
NOT_SHIPPED = shutil.ignore_patterns(
    ".git", ".venv", "reports", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".benchmarks"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the checkout (the build writes build/ and egg-info beside its sources)."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SHIPPED)
    # without isolation when the build backend is at hand: the same build, without fetching setuptools again
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("wheel") else []
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *isolation, "-w", str(tmp / "dist"), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (built,) = (tmp / "dist").glob("swarbench-*.whl")
    with zipfile.ZipFile(built) as zf:
        yield zf


@pytest.mark.slow
def test_the_wheel_installs_one_top_level_package_swarbench(wheel):
    tops = {name.split("/", 1)[0] for name in wheel.namelist() if ".dist-info/" not in name}
    assert tops == {"swarbench"}, tops


@pytest.mark.slow
def test_the_wheel_holds_every_module_c_source_and_data_file(wheel):
    """Every file of harness/ and impls/ (sources, C, known answers) under its installed name: a package or a
    package-data pattern missing from pyproject.toml fails here."""
    shipped = set(wheel.namelist())
    expected = set()
    for folder, package in INSTALLED_AS.items():
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                expected.add(f"{package}/{path.relative_to(ROOT / folder).as_posix()}")
    assert {p for p in expected if p.endswith((".c", ".csv"))}, "no C sources or data found to check"
    assert not expected - shipped, sorted(expected - shipped)


def test_the_entry_points_name_the_installed_package(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert "swarbench.cli:main" in text and "harness" not in text and "impls" not in text


def _closure(name: str, seen: dict[str, importlib.metadata.Distribution]) -> None:
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return  # an optional or platform-specific requirement not installed here
    key = dist.metadata["Name"].lower().replace("_", "-")
    if key in seen:
        return
    seen[key] = dist
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            _closure(req.name, seen)


def _top_level(dist: importlib.metadata.Distribution) -> set[str]:
    names = set()
    for file in dist.files or []:
        first = file.parts[0]
        if len(file.parts) == 1 and first.endswith(".py"):  # a module of its own, six.py say
            names.add(first[:-3])
        elif (
            len(file.parts) > 1
            and not first.endswith((".dist-info", ".egg-info", ".data"))
            and first not in ("..", "__pycache__")
        ):
            names.add(first)
    return names


def test_no_two_dependencies_install_the_same_top_level_package():
    """py-cpuinfo and pytest-benchmark's py-cpuinfo2 both installed `cpuinfo/`, one over the other."""
    dists: dict[str, importlib.metadata.Distribution] = {}
    _closure("swarbench", dists)
    assert "pytest-benchmark" in dists and "numpy" in dists
    owners = defaultdict(set)
    for key, dist in dists.items():
        for top in _top_level(dist):
            owners[top].add(key)
    clashes = {top: sorted(keys) for top, keys in owners.items() if len(keys) > 1}
    assert not clashes, clashes
