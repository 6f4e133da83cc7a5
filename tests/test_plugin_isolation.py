"""swarbench's pytest plugin leaves other projects alone: pytest loads it into every session of the
environment, so it must neither break nor slow a project that has nothing to do with swarbench."""

import os
import subprocess
import sys
import textwrap

# What the plugin must not bring into another project's session: swarbench's heavy parts and their libraries.
HEAVY = (
    "swarbench.bench.session",
    "swarbench.registry",
    "swarbench.model",
    "swarbench.results.frame",
    "numpy",
    "pandas",
    "scipy",
    "numba",
    "cffi",
)


def test_a_project_with_its_own_harness_package_runs_its_own_pytest_untouched(tmp_path):
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "__init__.py").write_text("def answer():\n    return 42\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_own.py").write_text(
        textwrap.dedent(f"""
        import sys

        from harness import answer


        def test_own_harness():
            assert answer() == 42


        def test_swarbench_stays_out():
            loaded = [m for m in {HEAVY!r} if m in sys.modules]
            assert not loaded, loaded
    """)
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "SWARBENCH_"))}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 passed" in proc.stdout
    assert (
        "swarbench"
        in subprocess.run(
            [sys.executable, "-m", "pytest", "--help"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
    )  # yet it is loaded


def test_the_plugin_imports_only_the_standard_library():
    code = (
        "import sys; before = set(sys.modules); import swarbench.bench.plugin; "
        "print(' '.join(sorted(m.split('.')[0] for m in set(sys.modules) - before)))"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        ).stdout.split()
    )
    assert loaded - set(sys.stdlib_module_names) == {"swarbench"}


def test_the_package_imports_what_a_name_needs_when_it_is_first_used():
    code = (
        "import sys; before = set(sys.modules); from swarbench import hookimpl; "
        "hooks = {m.split('.')[0] for m in set(sys.modules) - before}; "
        "import swarbench; from swarbench import Implementation; "
        "print(' '.join(sorted(hooks)), '|', 'swarbench.model' in sys.modules, "
        "sorted(swarbench.__all__) == sorted(n for n in swarbench.__all__ if hasattr(swarbench, n)))"
    )
    hooks, model = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split("|")
    assert set(hooks.split()) - set(sys.stdlib_module_names) == {"swarbench", "pluggy"}
    assert model.split() == ["True", "True"]
