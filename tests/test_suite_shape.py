"""Every suite has one shape, with one set of module names (docs/design.md, "A suite's shape"): a reader who knows
one suite finds their way in any other, and a new plugin (`swarbench new-plugin`) starts the same way."""

import ast

import pytest

from conftest import ROOT

SUITES = sorted(p for p in (ROOT / "impls").iterdir() if p.is_dir() and (p / "__init__.py").exists())
REQUIRED = {"__init__.py", "spec.py", "report.py", "python.py", "native.py"}
FAMILIES = {"python.py", "vectorized.py", "jit.py", "native.py", "gpu.py"}  # one module per family
COMPILED = {"jit.py": "jit_kernels.py", "gpu.py": "gpu_kernels.py"}  # a family's compiled functions, apart
RETIRED = {"jitted.py": "jit_kernels.py", "client.py": "command.py"}  # names the suites once used


def _imports(init: str) -> dict[str, set[str]]:
    """Per hook of a suite's __init__.py, the modules of the suite it imports."""
    out = {}
    for node in ast.parse(init).body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("swarbench_"):
            out[node.name] = {
                alias.name
                for sub in ast.walk(node)
                if isinstance(sub, ast.ImportFrom) and sub.level
                for alias in sub.names
            }
    return out


def test_the_four_suites_are_checked():
    assert {p.name for p in SUITES} == {"cards", "cephalopod", "mastermind", "poker"}


@pytest.mark.parametrize("suite", SUITES, ids=lambda p: p.name)
def test_a_suite_has_the_shape_and_the_names_every_suite_has(suite):
    names = {p.name for p in suite.iterdir() if p.suffix == ".py"}
    assert REQUIRED <= names, f"{suite.name} lacks {sorted(REQUIRED - names)}"
    assert not names & set(RETIRED), {n: RETIRED[n] for n in names & set(RETIRED)}
    for family, compiled in COMPILED.items():
        if compiled in names:
            assert family in names, f"{suite.name}/{compiled} without {family}"
    assert sorted((suite / "c").glob("*.c")), f"{suite.name}/native.py builds C from c/*.c"
    hooks = _imports((suite / "__init__.py").read_text())
    families = {name + ".py" for name in hooks.get("swarbench_add_implementations", set())}
    assert families & FAMILIES == names & FAMILIES, "every family module is registered, and only those"
    assert hooks["swarbench_add_reports"] == {"report"} and hooks["swarbench_add_kernels"] >= {"spec"}
    if "swarbench_add_commands" in hooks:  # a suite's sub-command lives in command.py
        assert hooks["swarbench_add_commands"] == {"command"} and "command.py" in names
    else:
        assert "command.py" not in names
