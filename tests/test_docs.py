"""Every command README.md and docs/*.md show in a shell block (and every `run:` step of their CI example) runs
here, as shown, so the docs stay true: a heavy workload with a small size or one fast row, a placeholder (RUN_A,
BEFORE, DIR, <run-id>) with a saved run or a folder, `pip install` of a plugin as a wheel into a folder of its
own. A command the docs show that this table does not know fails the first test: add how it runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import pytest

from conftest import ROOT
from test_example_plugin import build_wheel, install_wheel, no_build_isolation

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BLOCKS = {"bash", "sh", "shell", "console"}
# A run kept small: few operations, one pass, no empty-call probes, no progress lines
SMALL = [
    "-n",
    "256",
    "--max-time",
    "0.002",
    "--passes",
    "1",
    "--min-rounds",
    "1",
    "--short-rounds",
    "1",
    "--no-overhead",
    "-q",
]
FIXED = SMALL[2:]  # for a workload whose size is its nature (-n does not apply): one fast row is named instead
SOLVE_INPUT = "40\n0 0 0\n0 0 0\n0 0 0\n"  # a cephalopod contest input (tests/test_cephalopod.py)


def documented() -> dict[str, str]:
    """Each command the docs show, without its trailing comment, and the file that shows it first."""
    out: dict[str, str] = {}
    for doc in DOCS:
        for lang, body in re.findall(r"^```(\w*)\n(.*?)^```", doc.read_text(), re.M | re.S):
            if lang in SHELL_BLOCKS:
                lines = [line for line in body.splitlines() if line.strip() and not line.startswith("#")]
            elif lang == "yaml":
                lines = [m for m in re.findall(r"^\s*- run: (.*)$", body, re.M)]
            else:
                continue
            for line in lines:
                out.setdefault(re.sub(r"\s+#\s.*$", "", line).strip(), doc.name)
    return out


@dataclass
class Step:
    argv: list[str]  # "sb" first: swarbench's command line; "py" first: this Python
    stdin: Optional[str] = None
    stdout: Optional[str] = None  # a file (in the working folder) the output goes to, as `> FILE` says
    cwd: Optional[str] = None  # a folder under the working folder
    returncode: int = 0
    says: tuple[str, ...] = ()  # words the output (stdout and stderr) holds


@dataclass
class Context:
    work: Path  # the working folder (the project a user is in); runs are saved in work/reports
    env: dict
    runs: Callable[[], list[str]] = field(default=lambda: [])  # two saved runs' ids, made when first asked
    site: Optional[Path] = None  # where plugins are installed (on PYTHONPATH)
    commits: list[str] = field(default_factory=list)  # a git repository's commits, oldest first

    def install(self, project: Path) -> None:
        """`pip install PROJECT`, as a user gets it: a wheel, installed into this context's site folder."""
        self.site = self.site or self.work / "site"
        install_wheel(build_wheel(project, self.work / f"build-{project.name}"), self.site)
        self.env["PYTHONPATH"] = os.pathsep.join([str(self.site), self.env.get("PYTHONPATH", "")]).strip(os.pathsep)


def sb(*args: str, **kw) -> Step:
    return Step(["sb", *args], **kw)


def py(*args: str, **kw) -> Step:
    return Step(["py", *args], **kw)


def new_plugin(name: str, kernel: str):
    def steps(ctx: Context) -> list[Step]:
        return [sb("new-plugin", name, "--kernel", kernel)]

    return steps


def installed(project: Callable[[Context], Path], *then: Callable[[Context], list[Step]], before=()):
    """Steps after the project is installed: ``before`` (steps that make it), the install, then ``then``."""

    def steps(ctx: Context) -> list[Step]:
        out = [s for b in before for s in b(ctx)]
        run(ctx, out)
        ctx.install(project(ctx))
        return [s for t in then for s in t(ctx)]

    return steps


def fixed(*steps: Step):
    return lambda ctx: list(steps)


def with_runs(make: Callable[[str, str], list[Step]]):
    """Steps that name two saved runs (RUN_A and RUN_B, BEFORE and AFTER, BASE and NEW)."""
    return lambda ctx: make(*ctx.runs())


def check(assertion: Callable[[Context], None]):
    """Not a command to run here (it would run this suite inside itself, or install from an index): what it
    relies on is checked instead."""

    def steps(ctx: Context) -> list[Step]:
        assertion(ctx)
        return []

    return steps


def _ci_runs_the_readme_test_command(ctx: Context) -> None:
    assert (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest"
        in (ROOT / ".ci" / "run").read_text().splitlines()
    )


def _the_quick_tier_is_the_suite_less_its_slow_tests(ctx: Context) -> None:
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"] and any(m.startswith("slow:") for m in options["markers"])


def _the_fleet_extra_installs_distributed(ctx: Context) -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(dep.startswith("distributed") for dep in extras["fleet"])


def zero_bytes_repo(commits: int = 1):
    """bench_zero.py as README.md shows it, in a git repository of its own (the working folder), committed
    ``commits`` times (a comment line more each time), each commit run once (small)."""
    from test_local_plugins import git, the_documented_file

    def steps(ctx: Context) -> list[Step]:
        source = the_documented_file()
        git(ctx.work, "init", "-q")
        for i in range(commits):
            (ctx.work / "bench_zero.py").write_text(source + "".join(f"# {j}\n" for j in range(i)))
            git(ctx.work, "add", "bench_zero.py")
            git(ctx.work, "commit", "-qm", f"commit {i}")
            run(ctx, [sb("run", "bench_zero.py", *SMALL)])
        ctx.commits = git(ctx.work, "log", "--format=%h", "bench_zero.py").split()[::-1]
        return []

    return steps


def then(*makers):
    """The steps of each maker run in turn, each made once the ones before it have run."""

    def steps(ctx: Context) -> list[Step]:
        for make in makers:
            run(ctx, make(ctx))
        return []

    return steps


PARSE8 = ROOT / "examples" / "swarbench-parse8"
INSTALL_CHECK = py("-m", "pip", "install", "--dry-run", "--no-deps", *no_build_isolation(), "-q", "-e", str(ROOT))

# documented command -> the steps that run it here
COMMANDS: dict[str, Callable[[Context], list[Step]]] = {
    # README.md
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/swarbench run": fixed(
        py("-m", "venv", "--without-pip", ".venv"), INSTALL_CHECK, sb("run", *SMALL)
    ),
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/pytest": check(
        _ci_runs_the_readme_test_command
    ),
    "swarbench list": fixed(sb("list")),
    "swarbench run -k cards.contains": fixed(sb("run", "-k", "cards.contains", *SMALL)),
    "swarbench run -k cards.contains -i 'c-*' -n 1e6": fixed(
        sb("run", "-k", "cards.contains", "-i", "c-*", "-n", "1e6", *SMALL[2:])
    ),
    "swarbench run -k mastermind.score -w all-pairs-5p8c": fixed(
        sb("run", "-k", "mastermind.score", "-w", "all-pairs-5p8c", "-i", "c-sse2", *FIXED)
    ),
    "swarbench run -k poker.equity -w aa-full": fixed(
        sb("run", "-k", "poker.equity", "-w", "aa-full", "-i", "c-talk", *FIXED)
    ),
    "swarbench mastermind play --pins 5 --colors 8 --strategy entropy": fixed(
        sb("mastermind", "play", "--pins", "3", "--colors", "4", "--strategy", "entropy")
    ),
    # docs/suites.md
    "swarbench mastermind play --strategy entropy --arithmetic cuda-fast-math": fixed(
        sb(
            "mastermind",
            "play",
            "--pins",
            "3",
            "--colors",
            "4",
            "--strategy",
            "entropy",
            "--arithmetic",
            "cuda-fast-math",
            says=("cuda-fast-math",),
        )
    ),
    "swarbench mastermind play --strategy entropy --explain": fixed(
        sb(
            "mastermind",
            "play",
            "--pins",
            "3",
            "--colors",
            "4",
            "--strategy",
            "entropy",
            "--explain",
            says=("exact ties against the tie-break",),
        )
    ),
    "swarbench poker equity AdAc KhKs": fixed(sb("poker", "equity", "AdAc", "KhKs", says=("1,712,304 games",))),
    'swarbench poker equity AdAc "QQ+, AKs, AQo+, 76s"': fixed(sb("poker", "equity", "AdAc", "QQ+, AKs, AQo+, 76s")),
    "swarbench poker classes": fixed(sb("poker", "classes", "--boards", "20")),
    "swarbench cephalopod solve < test.txt": fixed(sb("cephalopod", "solve", stdin=SOLVE_INPUT)),
    "swarbench new-plugin my-kernels --kernel mine.parse8": new_plugin("my-kernels", "mine.parse8"),
    "pip install ./my-kernels && swarbench run -k mine.parse8": installed(
        lambda ctx: ctx.work / "my-kernels",
        fixed(sb("run", "-k", "mine.parse8", *SMALL)),
        before=[new_plugin("my-kernels", "mine.parse8")],
    ),
    "swarbench report latest --format html -o out.html": with_runs(
        lambda a, b: [sb("report", "latest", "--format", "html", "-o", "out.html", says=("wrote",))]
    ),
    "swarbench compare RUN_A RUN_B --format html -o cmp.html": with_runs(
        lambda a, b: [sb("compare", a, b, "--format", "html", "-o", "cmp.html", says=("wrote",))]
    ),
    "swarbench run bench_zero.py": zero_bytes_repo(1),
    "pytest bench_zero.py": then(
        zero_bytes_repo(1),
        fixed(py("-m", "pytest", "-q", "-p", "no:cacheprovider", "bench_zero.py", says=("1 passed",))),
    ),
    "swarbench history --follow bench_zero.py": then(
        zero_bytes_repo(2), fixed(sb("history", "--follow", "bench_zero.py", says=("history.html",)))
    ),
    "swarbench asm cards.contains c-swar": fixed(
        sb("run", "-k", "cards.contains", "-i", "c-swar", *SMALL), sb("asm", "cards.contains", "c-swar")
    ),
    # docs/explain.md
    "swarbench run -k cards.contains -i c-swar -i numba-swar": fixed(
        sb("run", "-k", "cards.contains", "-i", "c-swar", "-i", "numba-swar", *SMALL)
    ),
    "swarbench asm cards.contains c-swar --now": fixed(sb("asm", "cards.contains", "c-swar", "--now")),
    # docs/plugins.md
    "swarbench report latest --format html -o zero.html": then(
        zero_bytes_repo(1), fixed(sb("report", "latest", "--format", "html", "-o", "zero.html", says=("wrote",)))
    ),
    "swarbench compare --follow bench_zero.py 1a2b3c4 5d6e7f8": then(
        zero_bytes_repo(2), lambda ctx: [sb("compare", "--follow", "bench_zero.py", *ctx.commits)]
    ),
    "swarbench history": with_runs(lambda a, b: [sb("history", says=("history.html",))]),
    # docs/design.md
    'pytest -m "not slow"': check(_the_quick_tier_is_the_suite_less_its_slow_tests),
    # docs/fleet.md
    "pip install 'swarbench[fleet]'": check(_the_fleet_extra_installs_distributed),
    "swarbench run -k 'cards.*' --cluster tcp://scheduler-host:8786":  # no such host here: one line, exit 2
    fixed(
        sb(
            "run",
            "-k",
            "cards.*",
            "--cluster",
            "tcp://scheduler-host:8786",
            *SMALL,
            returncode=2,
            says=("cannot reach the Dask scheduler at tcp://scheduler-host:8786",),
        )
    ),
    "swarbench run -k 'cards.*' --cluster local:2": fixed(sb("run", "-k", "cards.*", "--cluster", "local:2", *SMALL)),
    "dask scheduler --port 8786": fixed(py("-m", "distributed.cli.dask_scheduler", "--help", says=("--port",))),
    "dask worker tcp://scheduler-host:8786 --name epyc-9654 --nthreads 1 --resources swarbench=1": fixed(
        py("-m", "distributed.cli.dask_worker", "--help", says=("--name", "--nthreads", "--resources"))
    ),
    "swarbench poker classes --cluster local:2": fixed(
        sb("poker", "classes", "--boards", "6", "--shards", "2", "--cluster", "local:2")
    ),
    "swarbench poker classes --boards 20 --cluster local:2": fixed(
        sb("poker", "classes", "--boards", "20", "--cluster", "local:2")
    ),
    # docs/plugins.md
    "swarbench new-plugin swarbench-popcnt --kernel popcnt.bits": new_plugin("swarbench-popcnt", "popcnt.bits"),
    "pip install -e ./swarbench-popcnt": installed(
        lambda ctx: ctx.work / "swarbench-popcnt", before=[new_plugin("swarbench-popcnt", "popcnt.bits")]
    ),
    "swarbench run --kernel popcnt.bits": installed(
        lambda ctx: ctx.work / "swarbench-popcnt",
        fixed(sb("run", "--kernel", "popcnt.bits", *SMALL)),
        before=[new_plugin("swarbench-popcnt", "popcnt.bits")],
    ),
    "pytest swarbench-popcnt/tests": installed(
        lambda ctx: ctx.work / "swarbench-popcnt",
        fixed(py("-m", "pytest", "-q", "-p", "no:cacheprovider", "swarbench-popcnt/tests")),
        before=[new_plugin("swarbench-popcnt", "popcnt.bits")],
    ),
    "swarbench list --kernel cards.contains": fixed(sb("list", "--kernel", "cards.contains")),
    "pip install -e examples/swarbench-example": installed(
        lambda ctx: ROOT / "examples" / "swarbench-example",
        fixed(sb("list", "--kernel", "cards.contains", says=("example-bytewise",))),
    ),
    "swarbench run --kernel cards.contains --impl 'example-*' --impl naive": installed(
        lambda ctx: ROOT / "examples" / "swarbench-example",
        fixed(
            sb(
                "run",
                "--kernel",
                "cards.contains",
                "--impl",
                "example-*",
                "--impl",
                "naive",
                *SMALL,
                says=("example-bytewise",),
            )
        ),
    ),
    "cd examples/swarbench-parse8": check(lambda ctx: PARSE8.is_dir() or pytest.fail(f"no {PARSE8}")),
    "pip install -e . && pytest tests": installed(
        lambda ctx: PARSE8, fixed(py("-m", "pytest", "-q", "-p", "no:cacheprovider", str(PARSE8 / "tests"), cwd="site"))
    ),
    "pip wheel --no-deps -w dist . && pip install dist/swarbench_parse8-*.whl": installed(
        lambda ctx: PARSE8, fixed(sb("list", "--kernel", "parse8.*", says=("parse8.checked",)))
    ),
    "swarbench list --kernel 'parse8.*'": installed(
        lambda ctx: PARSE8, fixed(sb("list", "--kernel", "parse8.*", says=("parse8.checked",)))
    ),
    "swarbench run --kernel parse8.checked": installed(
        lambda ctx: PARSE8, fixed(sb("run", "--kernel", "parse8.checked", *SMALL))
    ),
    # docs/reports.md
    "swarbench compare BEFORE AFTER": with_runs(lambda a, b: [sb("compare", a, b)]),
    "swarbench compare BEFORE AFTER -f html > c.html": with_runs(
        lambda a, b: [sb("compare", a, b, "-f", "html", stdout="c.html")]
    ),
    "swarbench compare BEFORE AFTER -f md": with_runs(lambda a, b: [sb("compare", a, b, "-f", "md")]),
    "swarbench report AFTER --against BEFORE": with_runs(lambda a, b: [sb("report", b, "--against", a)]),
    "swarbench history --reports DIR -o history.html": with_runs(
        lambda a, b: [sb("history", "--reports", "reports", "-o", "history.html")]
    ),
    "pytest-benchmark compare reports/*/benchmark.json --columns median,iqr,min --group-by group": with_runs(
        lambda a, b: [
            py(
                "-m",
                "pytest_benchmark.cli",
                "compare",
                f"reports/{a}/benchmark.json",
                f"reports/{b}/benchmark.json",
                "--columns",
                "median,iqr,min",
                "--group-by",
                "group",
            )
        ]
    ),
    "mkdir -p .benchmarks/Linux-CPython-3.11-64bit": fixed(
        py(
            "-c",
            "import pathlib; pathlib.Path('.benchmarks/Linux-CPython-3.11-64bit').mkdir(parents=True, exist_ok=True)",
        )
    ),
    "cp reports/<run-id>/benchmark.json .benchmarks/Linux-CPython-3.11-64bit/0001_swarbench.json": with_runs(
        lambda a, b: [
            py(
                "-c",
                "import pathlib, shutil; d = pathlib.Path('.benchmarks/Linux-CPython-3.11-64bit'); "
                f"d.mkdir(parents=True, exist_ok=True); shutil.copy('reports/{a}/benchmark.json', "
                "d / '0001_swarbench.json')",
            )
        ]
    ),
    # docs/measurement.md (`swarbench noise` takes no sizes: its pair is its own small subset)
    "swarbench noise --system": fixed(sb("noise", "--system", says=("frequency scaling:",))),
    "swarbench noise": fixed(sb("noise", says=("false alarms:",))),
    "swarbench noise -k cards.contains -i 'c-*' --threshold 5": fixed(
        sb("noise", "-k", "cards.contains", "-i", "c-*", "--threshold", "5", says=("false alarms:",))
    ),
    # docs/reports.md, the CI example's steps
    "pip install .": fixed(INSTALL_CHECK),
    "swarbench run --kernel 'cards.*' --processes 4 --reports reports": fixed(
        sb("run", "--kernel", "cards.*", "--processes", "4", "--reports", "reports", *SMALL)
    ),
    "swarbench report latest --reports reports -f github-action-benchmark -o bench.json": with_runs(
        lambda a, b: [
            sb(
                "report",
                "latest",
                "--reports",
                "reports",
                "-f",
                "github-action-benchmark",
                "-o",
                "bench.json",
                says=("wrote",),
            )
        ]
    ),
}


def run(ctx: Context, steps: list[Step]) -> None:
    for step in steps:
        head = [sys.executable, "-m", "swarbench.cli"] if step.argv[0] == "sb" else [sys.executable]
        proc = subprocess.run(
            head + step.argv[1:],
            input=step.stdin,
            capture_output=True,
            text=True,
            env=ctx.env,
            cwd=ctx.work / step.cwd if step.cwd else ctx.work,
            timeout=1500,
        )
        said = proc.stdout + proc.stderr
        assert proc.returncode == step.returncode, (step.argv, proc.returncode, said[-3000:])
        assert "Traceback" not in said, said[-3000:]
        for words in step.says:
            assert words in said, (words, said[-3000:])
        if step.stdout:
            (ctx.work / step.stdout).write_text(proc.stdout)


def test_every_command_the_docs_show_is_run_here():
    shown = documented()
    assert len(shown) > 30  # the blocks were found
    unknown = {command: doc for command, doc in shown.items() if command not in COMMANDS}
    assert not unknown, f"commands the docs show with no way to run them in tests/test_docs.py: {unknown}"
    stale = sorted(set(COMMANDS) - set(shown))
    assert not stale, f"tests/test_docs.py runs commands no doc shows any more: {stale}"


@pytest.fixture(scope="module")
def saved_runs(tmp_path_factory):
    """Two small saved runs of cards.remove, in their own reports folder, made when a command names one."""
    reports = tmp_path_factory.mktemp("saved") / "reports"
    made: list[str] = []

    def runs() -> list[str]:
        if not made:
            for _ in range(2):
                proc = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "swarbench.cli",
                        "run",
                        "-k",
                        "cards.remove",
                        "-i",
                        "naive",
                        "-i",
                        "swar",
                        "-i",
                        "c-swar",
                        "--reports",
                        str(reports),
                        *SMALL[:-2],
                        "-q",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=900,
                    env=_env(),
                )
                assert proc.returncode == 0, proc.stderr
            made.extend(sorted(p.name for p in reports.iterdir() if p.is_dir()))
        return list(made)

    runs.folder = reports  # type: ignore[attr-defined]
    return runs


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if not k.startswith(("SWARBENCH_", "PYTEST_"))}


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_command_runs(command, tmp_path, saved_runs):
    env = _env()

    def runs() -> list[str]:
        ids = saved_runs()
        if not (tmp_path / "reports").exists():
            shutil.copytree(saved_runs.folder, tmp_path / "reports")
        return ids

    ctx = Context(tmp_path, env, runs)
    run(ctx, COMMANDS[command](ctx))
