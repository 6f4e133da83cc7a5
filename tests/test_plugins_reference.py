"""docs/reference.md keeps up with the code: every public field of the model's dataclasses, every hook, and every
name `swarbench` exports has an entry there."""

import dataclasses
import inspect

import pytest

import swarbench
from conftest import ROOT
from swarbench import hookspecs, model, testing

REFERENCE = (ROOT / "docs" / "reference.md").read_text()
DATACLASSES = [
    cls
    for _, cls in inspect.getmembers(model, inspect.isclass)
    if dataclasses.is_dataclass(cls) and cls.__module__ == model.__name__
]


def test_the_required_classes_are_among_those_checked():
    assert {"Kernel", "WorkloadKind", "KnownAnswer", "Implementation"} <= {cls.__name__ for cls in DATACLASSES}


@pytest.mark.parametrize("cls", DATACLASSES, ids=lambda cls: cls.__name__)
def test_every_public_field_has_an_entry(cls):
    missing = [
        f.name
        for f in dataclasses.fields(cls)
        if not f.name.startswith("_") and f"`{cls.__name__}.{f.name}`" not in REFERENCE
    ]
    assert not missing, f"docs/reference.md has no entry for {', '.join(f'{cls.__name__}.{m}' for m in missing)}"


def test_every_hook_has_an_entry():
    hooks = [name for name, _ in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("swarbench_")]
    assert len(hooks) >= 4
    assert [h for h in hooks if f"`{h}(registry)`" not in REFERENCE] == []


def test_every_exported_name_and_testing_helper_has_an_entry():
    names = [n for n in swarbench.__all__ if n != "hookimpl"] + ["hookimpl"]
    assert [n for n in names if n not in REFERENCE] == []
    helpers = [
        f"swarbench.testing.{n}"
        for n, fn in inspect.getmembers(testing, inspect.isfunction)
        if fn.__module__ == testing.__name__ and not n.startswith("_") and n not in ("verdicts", "registry")
    ]
    assert [h for h in helpers if h not in REFERENCE] == []
