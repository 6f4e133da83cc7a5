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
    return Implementation(kernel, name, "python-naive", lambda w: lambda: None)


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
    reg = registry.load(
        extra_plugins=[
            (
                "lost",
                _plugin(
                    swarbench_add_implementations=lambda registry: registry.add_implementation(_impl("x", "no.such"))
                ),
            )
        ]
    )
    assert reg.failures and "unknown kernel 'no.such'" in reg.failures[0].error


def test_duplicate_kernel_ids_are_refused():
    dup = _plugin(swarbench_add_kernels=lambda registry: registry.add_kernel(spec.CONTAINS))
    reg = registry.load(extra_plugins=[("dup", dup)])
    assert reg.failures[0].plugin == "dup" and "is swarbench's own (suite 'cards')" in reg.failures[0].error


def test_a_plugin_may_implement_a_kernel_another_plugin_defines():
    kind = WorkloadKind("w", lambda size, seed: ({"x": list(range(size))}, size), "numbers", 4)
    kernel = Kernel("other.double", "doubles", "number", (kind,), reference=lambda i: [2 * x for x in i["x"]])
    definer = _plugin(swarbench_add_kernels=lambda registry: registry.add_kernel(kernel))
    # registered first, yet it implements a kernel of a plugin registered after it
    implementer = _plugin(
        swarbench_add_implementations=lambda registry: registry.add_implementation(
            Implementation("other.double", "naive", "python-naive", lambda w: lambda: [x + x for x in w.inputs["x"]])
        )
    )
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
    assert failure.error.startswith(
        "unknown hook 'swarbench_add_implementation'; did you mean 'swarbench_add_implementations'?"
    )
    assert "typo" not in reg.plugins and "cards.contains/naive" in reg.implementations


def test_a_hook_without_its_marker_or_a_plugin_without_hooks_is_a_failure():
    unmarked = types.SimpleNamespace(swarbench_add_implementations=lambda registry: None)
    empty = types.SimpleNamespace(helper=lambda: None)
    reg = registry.load(extra_plugins=[("unmarked", unmarked), ("empty", empty)])
    errors = {f.plugin: f.error for f in reg.failures}
    assert errors["unmarked"] == "swarbench_add_implementations not marked with @swarbench.hookimpl, so never called"
    assert errors["empty"].startswith("no hook:")
    assert not {"unmarked", "empty"} & set(reg.plugins)


# pluggy's own calling: the order and wrapping its documentation describes (pluggy.readthedocs.io, "Call time
# order" and "Wrappers"), with one broken plugin still withdrawn alone.


def _recording(order, name, **opts):
    """A plugin whose kernels hook, marked with ``opts``, notes its name in ``order`` when called."""

    def add(registry):
        order.append(name)

    return types.SimpleNamespace(swarbench_add_kernels=hookimpl(**opts)(add) if opts else hookimpl(add))


def _load(*plugins):
    return registry.load(extra_plugins=list(plugins), entry_points=False, stages=("swarbench_add_kernels",))


def test_plugins_are_called_in_the_order_they_load():
    order = []
    _load(("a", _recording(order, "a")), ("b", _recording(order, "b")), ("c", _recording(order, "c")))
    assert order == ["a", "b", "c"]  # (pluggy calls the last registered first: swarbench registers in reverse)


def test_tryfirst_runs_before_and_trylast_after_every_other_implementation():
    order = []
    _load(
        ("first", _recording(order, "first", tryfirst=True)),
        ("last", _recording(order, "last", trylast=True)),
        ("a", _recording(order, "a")),
        ("b", _recording(order, "b")),
    )
    assert order == ["first", "a", "b", "last"]


def test_an_old_style_hookwrapper_runs_around_every_implementation_and_sees_their_outcome():
    order = []

    def wrap(registry):
        order.append("before")
        outcome = yield
        order.append(f"after, {len(outcome.get_result())} results")

    def first(registry):
        order.append("first")
        return "a result"

    wrapper = types.SimpleNamespace(swarbench_add_kernels=hookimpl(hookwrapper=True)(wrap))
    tried = types.SimpleNamespace(swarbench_add_kernels=hookimpl(tryfirst=True)(first))
    reg = _load(("wrapper", wrapper), ("a", _recording(order, "a")), ("tried", tried))
    assert order == ["before", "first", "a", "after, 1 results"] and not reg.failures


def test_a_new_style_wrapper_runs_around_every_implementation_and_passes_their_result_on():
    order = []

    def wrap(registry):
        order.append("before")
        result = yield
        order.append(f"after {result}")
        return result

    wrapper = types.SimpleNamespace(swarbench_add_kernels=hookimpl(wrapper=True)(wrap))
    reg = _load(("a", _recording(order, "a")), ("wrapper", wrapper), ("b", _recording(order, "b")))
    assert order == ["before", "a", "b", "after []"] and not reg.failures


def test_a_plugin_with_tryfirst_and_a_hookwrapper_adds_its_kernels_and_implementations():
    kind = WorkloadKind("w", lambda size, seed: ({"x": list(range(size))}, size), "numbers", 4)
    kernel = Kernel("mine.double", "doubles", "number", (kind,), reference=lambda i: [2 * x for x in i["x"]])
    seen = {}

    class Plugin:
        @hookimpl(tryfirst=True)
        def swarbench_add_kernels(self, registry):
            registry.add_kernel(kernel)

        @hookimpl(hookwrapper=True)
        def swarbench_add_implementations(self, registry):
            yield  # every plugin's implementations are added by now
            seen["implementations"] = len(registry.implementations)
            registry.add_implementation(
                Implementation("mine.double", "naive", "python-naive", lambda w: lambda: [x + x for x in w.inputs["x"]])
            )

    reg = registry.load(extra_plugins=[("mine", Plugin())])
    assert not reg.failures and reg.owners["mine.double/naive"] == "mine" and reg.owners["mine.double"] == "mine"
    assert seen["implementations"] == len(reg.implementations) - 1 > 100  # the built-in suites' were there


@pytest.mark.parametrize("style", ["hookwrapper", "wrapper"])
@pytest.mark.parametrize("where", ["before", "after", "no-yield"])
def test_a_broken_wrapper_is_withdrawn_alone_and_the_implementations_it_wraps_still_run(style, where):
    order = []

    def wrap(registry):
        registry.add_kernel(spec.CONTAINS)  # withdrawn with it
        if where == "before":
            raise RuntimeError("before its yield")
        if where == "no-yield":
            return
        yield
        raise RuntimeError("after its yield")

    broken = types.SimpleNamespace(swarbench_add_kernels=hookimpl(**{style: True})(wrap))
    reg = _load(("a", _recording(order, "a")), ("broken", broken), ("b", _recording(order, "b")))
    assert order == ["a", "b"]
    (failure,) = reg.failures
    assert failure.plugin == "broken" and "cards.contains" not in reg.kernels and "broken" not in reg.plugins
    assert ("did not yield" if where == "no-yield" else f"RuntimeError: {where} its yield") in failure.error


def test_an_implementation_that_raises_does_not_stop_the_call_for_the_others():
    order = []

    def boom(registry):
        order.append("boom")
        raise SystemExit(3)  # a plugin that exits fails; the run goes on

    broken = types.SimpleNamespace(swarbench_add_kernels=hookimpl(boom))
    reg = _load(("a", _recording(order, "a")), ("broken", broken), ("b", _recording(order, "b")))
    assert order == ["a", "boom", "b"] and [f.plugin for f in reg.failures] == ["broken"]
    assert "called sys.exit(3)" in reg.failures[0].error


def test_a_plugin_command_named_like_a_command_of_swarbench_is_refused_in_one_line(tmp_path):
    from conftest import cli_env, make_plugin_site, swarbench

    site = make_plugin_site(
        tmp_path / "site",
        "squatter",
        """
        from swarbench import Command, hookimpl

        @hookimpl
        def swarbench_add_commands(registry):
            registry.add_command(Command("history", "not swarbench's history", lambda p: None,
                                         lambda args, registry: 0))
        """,
    )
    env = cli_env(tmp_path, site)
    helped = swarbench("--help", env=env)
    assert helped.returncode == 0 and "Traceback" not in helped.stderr + helped.stdout
    assert "history" in helped.stdout
    listed = swarbench("list", "-k", "cards.contains", env=env)
    assert listed.returncode == 1 and "Traceback" not in listed.stderr + listed.stdout
    (line,) = [ln for ln in listed.stdout.splitlines() if "squatter" in ln]
    assert line.startswith(
        "plugin failed: plugin 'squatter' failed in swarbench_add_commands: ValueError: "
        "command 'history' is one of swarbench's own"
    )
    from swarbench import cli

    assert {"list", "run", "report", "compare", "history", "new-plugin"} <= cli.builtin_commands()
