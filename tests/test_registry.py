"""The plugin path: entry points load built-ins and third-party plugins alike, and broken ones are contained."""
import importlib.metadata
import types

import pytest

from swarbench import Implementation, Kernel, WorkloadKind, hookimpl, registry
from swarbench.suites.cards import spec


def test_builtin_suites_load_through_the_entry_point_group():
    names = {ep.name for ep in importlib.metadata.entry_points(group="swarbench")}
    assert "cards" in names
    reg = registry.load()
    assert reg.owners["cards.contains"] == "cards"
    assert {"naive", "swar", "c-swar-avx2"} <= {i.name for i in reg.implementations_of("cards.contains")}


def _plugin(**hooks):
    return types.SimpleNamespace(**{k: hookimpl(v) for k, v in hooks.items()})


def _impl(name, kernel="cards.contains"):
    return Implementation(kernel, name, "python-naive", lambda w: (lambda: None))


def test_a_plugin_raising_in_a_hook_is_reported_by_name_and_withdrawn():
    def add(registry):
        registry.add_implementation(_impl("half-added"))
        raise RuntimeError("boom")

    reg = registry.load(extra_plugins=[("broken", _plugin(swarbench_add_implementations=add))])
    assert [(f.plugin, f.stage) for f in reg.failures] == [("broken", "swarbench_add_implementations")]
    assert "RuntimeError: boom" in str(reg.failures[0])
    assert "cards.contains/half-added" not in reg.implementations
    assert "cards.contains/naive" in reg.implementations  # the run goes on


def test_an_implementation_for_an_unknown_kernel_is_a_plugin_failure():
    reg = registry.load(extra_plugins=[("lost", _plugin(
        swarbench_add_implementations=lambda registry: registry.add_implementation(_impl("x", "no.such"))))])
    assert reg.failures and "unknown kernel 'no.such'" in reg.failures[0].error


def test_duplicate_kernel_ids_are_refused():
    dup = _plugin(swarbench_add_kernels=lambda registry: registry.add_kernel(spec.CONTAINS))
    reg = registry.load(extra_plugins=[("dup", dup)])
    assert reg.failures[0].plugin == "dup" and "already registered by plugin 'cards'" in reg.failures[0].error


def test_a_plugin_may_implement_a_kernel_another_plugin_defines():
    kind = WorkloadKind("w", lambda size, seed: ({"x": list(range(size))}, size), "numbers", 4)
    kernel = Kernel("other.double", "doubles", "number", (kind,), reference=lambda i: [2 * x for x in i["x"]])
    definer = _plugin(swarbench_add_kernels=lambda registry: registry.add_kernel(kernel))
    # registered first, yet it implements a kernel of a plugin registered after it
    implementer = _plugin(swarbench_add_implementations=lambda registry: registry.add_implementation(
        Implementation("other.double", "naive", "python-naive", lambda w: (lambda: [x + x for x in w.inputs["x"]]))))
    reg = registry.load(extra_plugins=[("implementer", implementer), ("definer", definer)])
    assert not reg.failures
    assert "other.double/naive" in reg.implementations


def test_plugins_can_be_disabled_by_name(monkeypatch):
    reg = registry.load(disable=["cards"])
    assert "cards.contains" not in reg.kernels and "cards" in reg.disabled
    monkeypatch.setenv("SWARBENCH_DISABLE_PLUGINS", "cards")
    assert "cards.contains" not in registry.load().kernels


def test_wrong_objects_are_refused_with_a_clear_message():
    reg = registry.Registry()
    with pytest.raises(TypeError, match="expects a swarbench.Kernel"):
        reg.add_kernel("cards.contains")


def test_progress_reaches_the_reporter_only_inside_reporting():
    from swarbench import progress
    from swarbench.render.live import bar

    seen = []
    progress.advance(1, 2)  # no reporter: nothing happens, nothing raises
    with progress.reporting(lambda d, t, w: seen.append((d, t, w))):
        progress.advance(1, 4, "rows")
        progress.advance(2, 4, "rows")  # within the interval: dropped
        progress.advance(4, 4, "rows")  # the last one always arrives
    progress.advance(3, 4)
    assert seen == [(1, 4, "rows"), (4, 4, "rows")]
    assert bar(1, 4, "rows").startswith("[######..................]  25% 1/4 rows")
    assert bar(0, 0).startswith("[" + "." * 24 + "]")


def test_a_misspelt_hook_fails_its_plugin_and_names_the_hook():
    typo = _plugin(swarbench_add_implementation=lambda registry: registry.add_implementation(_impl("lost")))
    reg = registry.load(extra_plugins=[("typo", typo)])
    (failure,) = reg.failures
    assert (failure.plugin, failure.stage) == ("typo", "register")
    assert failure.error.startswith("unknown hook 'swarbench_add_implementation'; did you mean "
                                    "'swarbench_add_implementations'?")
    assert "typo" not in reg.plugins and "cards.contains/naive" in reg.implementations


def test_a_hook_without_its_marker_or_a_plugin_without_hooks_is_a_failure():
    unmarked = types.SimpleNamespace(swarbench_add_implementations=lambda registry: None)
    empty = types.SimpleNamespace(helper=lambda: None)
    reg = registry.load(extra_plugins=[("unmarked", unmarked), ("empty", empty)])
    errors = {f.plugin: f.error for f in reg.failures}
    assert errors["unmarked"] == "swarbench_add_implementations not marked with @swarbench.hookimpl, so never called"
    assert errors["empty"].startswith("no hook:")
    assert not {"unmarked", "empty"} & set(reg.plugins)
