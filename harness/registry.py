"""Load plugins from the ``swarbench`` entry-point group and collect their kernels and implementations.

Registration is pluggy's own: each phase is one hook call (``pm.hook.swarbench_add_kernels(registry=...)``), so
tryfirst, trylast, old-style hookwrappers (``hookwrapper=True``) and new-style wrappers (``wrapper=True``) order
and wrap the implementations of every plugin as pluggy's documentation says. A benchmark run must survive one
broken plugin, and a pluggy call stops at the first implementation that raises; so each plugin is registered
with its hook functions guarded (``Guarded``): an implementation that raises is recorded as its plugin's failure,
everything the plugin added is withdrawn at once, and pluggy's call goes on to the next implementation. A wrapper
therefore sees the call of the implementations it wraps end normally, whatever one of them did.

pluggy's ``load_setuptools_entrypoints`` stops at the first plugin that fails to import, so the entry points are
walked here, one plugin at a time; local modules (swarbench.local: ./benchmarks/, a file named on the command
line) join them the same way, each under its path. A plugin is its module's hook functions and the kernels
declared in it with ``swarbench.declare`` (each such object is a plugin of its own to pluggy, registered under
the module's name). ``check_pending`` catches a misspelt hook name (it would otherwise never be
called). The command names a plugin may not take are the command line's own (swarbench.cli.builtin_commands).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
import sys
import time
import traceback
import types
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

import pluggy

from swarbench import contract, hookspecs
from swarbench.declared import Declared
from swarbench.local import LocalSource
from swarbench.model import Command, Implementation, Kernel, SuiteReport

ENTRY_POINT_GROUP = "swarbench"
DISABLE_ENV = "SWARBENCH_DISABLE_PLUGINS"
# the registration phases, in the order they are called
STAGES = ("swarbench_add_kernels", "swarbench_add_implementations", "swarbench_add_reports", "swarbench_add_commands")
COMMANDS_ONLY = ("swarbench_add_commands",)  # enough to parse a command line: no suite builds its kernels
SLOW_IMPORT_S = 2.0  # a plugin whose import takes longer is named by the command line (swarbench.cli)


@dataclass(frozen=True)
class PluginFailure:
    plugin: str
    stage: str  # "import", "register", "swarbench_add_kernels", "swarbench_add_implementations", ...
    error: str  # one line: exception type and message

    def __str__(self) -> str:
        return f"plugin {self.plugin!r} failed in {self.stage}: {self.error}"


@dataclass(frozen=True)
class PluginSource:
    """Where a plugin came from, for what a run records of it (swarbench.provenance): its module's file, and the
    distribution and version of an installed one; ``local`` for a local module (swarbench.local)."""

    file: str = ""
    distribution: str = ""
    version: str = ""
    local: Optional[LocalSource] = None


@dataclass
class Registry:
    """What the loaded plugins registered. Hooks receive this object and call its ``add_*`` methods."""

    kernels: dict[str, Kernel] = field(default_factory=dict)
    implementations: dict[str, Implementation] = field(default_factory=dict)  # key: "<kernel>/<name>"
    reports: dict[str, SuiteReport] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)  # kernel id or impl key -> plugin name
    failures: list[PluginFailure] = field(default_factory=list)
    plugins: list[str] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    builtin: set[str] = field(default_factory=set)  # plugins that are swarbench's own suites
    # plugin name -> where it came from; a plugin passed in as an object (extra_plugins) has none: a benchmark
    # worker, a fresh process, could not load it again
    sources: dict[str, PluginSource] = field(default_factory=dict)
    reserved_commands: set[str] = field(default_factory=set)  # the command line's own commands
    import_s: dict[str, float] = field(default_factory=dict)  # how long each plugin's import took
    _current: Optional[str] = None  # the plugin whose hook is running: it owns what is added

    # -- the API hooks call -------------------------------------------------------------------------------
    def add_kernel(self, kernel: Kernel) -> None:
        if not isinstance(kernel, Kernel):
            raise TypeError(f"add_kernel expects a swarbench.Kernel, got {type(kernel).__name__}")
        if not isinstance(kernel.id, str) or "." not in kernel.id:
            raise ValueError(f"kernel id {kernel.id!r} must be '<suite>.<operation>'")
        contract.check_kernel(kernel)
        self._claim(kernel.id, f"kernel {kernel.id!r}", "swarbench_add_kernels", self.kernels)
        self.kernels[kernel.id] = kernel
        self.owners[kernel.id] = self._current or "?"

    def add_implementation(self, impl: Implementation) -> None:
        if not isinstance(impl, Implementation):
            raise TypeError(f"add_implementation expects a swarbench.Implementation, got {type(impl).__name__}")
        if impl.kernel not in self.kernels:
            close = difflib.get_close_matches(str(impl.kernel), self.kernels, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else " (`swarbench list` shows every kernel)"
            raise ValueError(f"implementation {impl.name!r} is for unknown kernel {impl.kernel!r}{hint}")
        contract.check_implementation(impl)
        self._claim(impl.key, f"implementation {impl.key!r}", "swarbench_add_implementations", self.implementations)
        self.implementations[impl.key] = impl
        self.owners[impl.key] = self._current or "?"

    def add_report(self, report: SuiteReport) -> None:
        if not isinstance(report, SuiteReport):
            raise TypeError(f"add_report expects a swarbench.SuiteReport, got {type(report).__name__}")
        contract.check_report(report)
        self._claim(report.id, f"report {report.id!r}", "swarbench_add_reports", self.reports)
        self.reports[report.id] = report
        self.owners[report.id] = self._current or "?"

    def add_command(self, command: Command) -> None:
        if not isinstance(command, Command):
            raise TypeError(f"add_command expects a swarbench.Command, got {type(command).__name__}")
        contract.check_command(command)
        if command.name in self.reserved_commands:
            raise ValueError(f"command {command.name!r} is one of swarbench's own")
        self._claim(
            f"command:{command.name}",
            f"command {command.name!r}",
            "swarbench_add_commands",
            {f"command:{name}": c for name, c in self.commands.items()},
        )
        self.commands[command.name] = command
        self.owners[f"command:{command.name}"] = self._current or "?"

    def _claim(self, key: str, what: str, stage: str, taken: dict) -> None:
        """Refuse ``key`` to the plugin registering it where another holds it. A built-in suite's names are its
        own whichever plugin is called first (a plugin named before it, or one marked tryfirst): the plugin that
        took one is refused, and the suite registers it as if that had never happened."""
        if key not in taken:
            return
        owner = self.owners.get(key, "?")
        if self._current in self.builtin and owner not in self.builtin:
            self.fail(
                owner, stage, ValueError(f"{what} is swarbench's own (suite {self._current!r}); choose another name")
            )
            return
        if owner in self.builtin:
            raise ValueError(f"{what} is swarbench's own (suite {owner!r}); choose another name")
        raise ValueError(f"{what} is already registered by plugin {owner!r}")

    # -- queries -----------------------------------------------------------------------------------------
    def implementations_of(self, kernel_id: str) -> list[Implementation]:
        return [i for i in self.implementations.values() if i.kernel == kernel_id]

    def choose(self, kernel_id: str, name: Optional[str], preferred: Sequence[str]) -> Implementation:
        """The implementation a command runs: the one named, else the first of ``preferred`` that can run here.

        Raises UsageError (one line for the CLI) for an unknown name or one this machine cannot run.
        """
        from swarbench import features
        from swarbench.errors import UsageError

        impls = {i.name: i for i in self.implementations_of(kernel_id)}
        if name is not None:
            if name not in impls:
                raise UsageError(f"no implementation {name!r} of {kernel_id} (have: {', '.join(sorted(impls))})")
            why = features.unavailable(impls[name].requires)
            if why:
                raise UsageError(f"implementation {name!r} cannot run here: {why}")
            return impls[name]
        for candidate in preferred:
            if candidate in impls and not features.unavailable(impls[candidate].requires):
                return impls[candidate]
        raise UsageError(f"none of {', '.join(preferred)} ({kernel_id}) can run on this machine")

    @property
    def local_asked(self) -> list[str]:
        """The local plugins asked for, loaded or not."""
        return [name for name, source in self.sources.items() if source.local is not None]

    @property
    def local(self) -> dict[str, LocalSource]:
        """The local plugins that loaded, by name (swarbench.local)."""
        return {
            name: self.sources[name].local
            for name in self.plugins
            if name in self.sources and self.sources[name].local is not None
        }

    def local_kernels(self) -> list[str]:
        """The kernels local plugins define or add rows to: what a plain run measures where there are any."""
        local = set(self.local)
        return sorted(
            {i.kernel for key, i in self.implementations.items() if self.owners.get(key) in local}
            | {k for k in self.kernels if self.owners.get(k) in local}
        )

    def unloadable(self) -> list[str]:
        """What a benchmark worker (a fresh process, which loads the plugins again) could not load: kernels and
        implementations added outside a plugin's hook, or by a plugin given as an object."""
        return sorted(
            key
            for key, owner in self.owners.items()
            if not key.startswith("command:")
            and (key in self.kernels or key in self.implementations)
            and owner not in self.sources
        )

    def is_builtin(self, key: str) -> bool:
        """Whether a kernel id or implementation key comes from one of swarbench's own suites."""
        return self.owners.get(key) in self.builtin

    def in_default_run(self, kernel_id: str) -> bool:
        """Whether a plain ``swarbench run`` measures this kernel: it does when any of its workloads is a default."""
        return any(kind.default for kind in self.kernels[kernel_id].workloads)

    def fail(self, plugin: str, stage: str, exc: BaseException) -> None:
        """``plugin`` raised in ``stage``: recorded by name, and everything it added withdrawn."""
        if plugin not in self.plugins:  # failed already: its first failure is the one to tell
            return
        self.failures.append(PluginFailure(plugin, stage, one_line(exc)))
        self._withdraw(plugin)
        self.plugins.remove(plugin)

    def _withdraw(self, plugin: str) -> None:
        for key in [k for k, owner in self.owners.items() if owner == plugin]:
            self.kernels.pop(key, None)
            self.implementations.pop(key, None)
            self.reports.pop(key, None)
            self.commands.pop(key.removeprefix("command:"), None)
            del self.owners[key]
        # Implementations of other plugins for a withdrawn kernel cannot run either.
        for key in [k for k, i in self.implementations.items() if i.kernel not in self.kernels]:
            self.implementations.pop(key)
            self.owners.pop(key, None)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    # the plugin's own line, not the line of this module's add_* that refused what it was given
    frames = [f for f in traceback.extract_tb(exc.__traceback__)] if exc.__traceback__ else []
    where = [f for f in frames if f.filename != __file__][-1:] or frames[-1:]
    at = f" ({os.path.basename(where[0].filename)}:{where[0].lineno})" if where else ""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r}){at}"
    return f"{type(exc).__name__}: {text[0] if text else ''}{at}"


def _unknown_hook(pm: pluggy.PluginManager) -> str:
    """'' when every hook implementation registered so far has a spec, else a line naming the hook. Plugins are
    checked as each is registered, so a misspelt hook is the plugin just registered."""
    try:
        pm.check_pending()
    except pluggy.PluginValidationError:
        name = next(
            (
                n
                for n, caller in vars(pm.hook).items()
                if not n.startswith("_") and not caller.has_spec() and caller.get_hookimpls()
            ),
            "?",
        )
        hooks = [n for n in dir(hookspecs) if n.startswith("swarbench_")]
        close = difflib.get_close_matches(name, hooks, n=1)
        return (
            f"unknown hook {name!r}"
            + (f"; did you mean {close[0]!r}?" if close else "")
            + f" (hooks: {', '.join(hooks)})"
        )
    return ""


def _unmarked_hooks(pm: pluggy.PluginManager, plugin: object, declared: bool = False) -> str:
    """'' unless the plugin defines hook functions without ``@swarbench.hookimpl`` (pluggy passes over those in
    silence), or has no hook at all and declares no kernel (an entry point naming the wrong module)."""
    unmarked = [
        n
        for n in dir(plugin)
        if n.startswith("swarbench_")
        and callable(getattr(plugin, n, None))
        and pm.parse_hookimpl_opts(plugin, n) is None
    ]
    if unmarked:
        return f"{', '.join(unmarked)} not marked with @swarbench.hookimpl, so never called"
    if not declared and not any(pm.parse_hookimpl_opts(plugin, n) is not None for n in dir(plugin)):
        return (
            "no hook: the module its entry point names has no function marked with @swarbench.hookimpl and "
            "no kernel declared with swarbench.declare"
        )
    return ""


def _has_hooks(pm: pluggy.PluginManager, plugin: object) -> bool:
    return any(pm.parse_hookimpl_opts(plugin, n) is not None for n in dir(plugin))


def parts(plugin: object) -> tuple[object, list[Declared]]:
    """A loaded plugin as pluggy gets it: the object itself (a module, an object with hook methods) and the
    declarations made in its module (``swarbench.declare``), each an object with hooks of its own. A declaration
    imported from another module belongs to that one."""
    if isinstance(plugin, Declared):
        return None, [plugin]
    if not isinstance(plugin, types.ModuleType):
        return plugin, []
    name = plugin.__name__
    declared = [v for v in vars(plugin).values() if isinstance(v, Declared) and v.module == name]
    return plugin, declared


def disabled_from_env() -> list[str]:
    return [n.strip() for n in os.environ.get(DISABLE_ENV, "").split(",") if n.strip()]


class Guarded:
    """A plugin as registered with pluggy: its hook functions, each guarded so that what it raises is its plugin's
    failure (``Registry.fail``) and never ends the hook call, with the markers (tryfirst, trylast, hookwrapper,
    wrapper, specname) and the signature pluggy reads from the original. A wrapper's part before its ``yield``
    and its part after are guarded alike, and a failed plugin's functions do nothing for the rest of the call."""

    def __init__(self, pm: pluggy.PluginManager, name: str, plugin: object, registry: Registry):
        self.name, self.registry = name, registry
        for attr in dir(plugin):
            opts = pm.parse_hookimpl_opts(plugin, attr)
            if opts is None:
                continue
            function, hook = getattr(plugin, attr), opts.get("specname") or attr
            wrapping = opts.get("wrapper") or opts.get("hookwrapper")
            if wrapping and not inspect.isgeneratorfunction(function):
                guarded = function  # pluggy refuses it at registration, naming what is wrong
            elif opts.get("hookwrapper"):
                guarded = self._old_style_wrapper(function, hook)
            elif opts.get("wrapper"):
                guarded = self._wrapper(function, hook)
            else:
                guarded = self._implementation(function, hook)
            if guarded is not function:
                functools.update_wrapper(guarded, function, updated=())
                setattr(guarded, f"{ENTRY_POINT_GROUP}_impl", opts)
            setattr(self, attr, guarded)

    def _running(self) -> bool:
        """Whether this plugin still stands; if so, what it adds from now on is its own."""
        self.registry._current = self.name
        return self.name in self.registry.plugins

    def _failed(self, hook: str, exc: BaseException) -> None:
        if isinstance(exc, KeyboardInterrupt):
            raise exc
        self.registry.fail(self.name, hook, exc)

    def _implementation(self, function, hook: str):
        def implementation(*args, **kwargs):
            if not self._running():
                return None
            try:
                return function(*args, **kwargs)
            except BaseException as exc:  # SystemExit from a plugin's hook too: its plugin fails, not the run
                self._failed(hook, exc)
            finally:
                self.registry._current = None

        return implementation

    def _start(self, function, hook: str, args, kwargs):
        """A wrapper's generator run to its ``yield``; None where it failed or had no yield."""
        if not self._running():
            return None
        try:
            teardown = function(*args, **kwargs)
            next(teardown)
            return teardown
        except StopIteration:
            self._failed(hook, RuntimeError(f"wrapper {function.__name__} did not yield"))
        except BaseException as exc:
            self._failed(hook, exc)
        finally:
            self.registry._current = None
        return None

    def _finish(self, function, hook: str, teardown, sent) -> tuple[bool, object]:
        """A wrapper's part after its ``yield``, given ``sent``: (whether it ended well, what it returned)."""
        if teardown is None or not self._running():
            return False, None
        try:
            teardown.send(sent)
        except StopIteration as stop:
            return True, stop.value
        except BaseException as exc:
            self._failed(hook, exc)
        else:
            teardown.close()
            self._failed(hook, RuntimeError(f"wrapper {function.__name__} yielded twice"))
        finally:
            self.registry._current = None
        return False, None

    def _old_style_wrapper(self, function, hook: str):
        def hookwrapper(*args, **kwargs):
            teardown = self._start(function, hook, args, kwargs)
            outcome = yield  # pluggy's Result of the implementations it wraps
            self._finish(function, hook, teardown, outcome)

        return hookwrapper

    def _wrapper(self, function, hook: str):
        def wrapper(*args, **kwargs):
            teardown = self._start(function, hook, args, kwargs)
            result = yield  # the implementations' results, as pluggy hands them to a wrapper
            ended, returned = self._finish(function, hook, teardown, result)
            return returned if ended else result  # a failed wrapper passes the call's result on untouched

        return wrapper


def _register(pm: pluggy.PluginManager, name: str, plugin: object, registry: Registry) -> str:
    """Register a plugin (its hooks and its declarations), guarded; '' or why it was refused."""
    own, declared = parts(plugin)
    objects = declared if own is None else ([own] if not declared or _has_hooks(pm, own) else []) + declared
    wrong = _unmarked_hooks(pm, own, bool(declared)) if own is not None else ""
    if wrong:
        return wrong
    registered = []
    for i, obj in enumerate(objects):  # pluggy's own names must differ: the first is the plugin's name
        pm_name = name if i == 0 else f"{name}#{i}"
        try:
            pm.register(Guarded(pm, name, obj, registry), name=pm_name)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # bad hook signatures are caught by pluggy's validation
            wrong = one_line(exc)
        else:
            registered.append(pm_name)
            wrong = _unknown_hook(pm)
        if wrong:
            for done in registered:
                pm.unregister(name=done)
            return wrong
    return ""


def load(
    disable: Sequence[str] = (),
    extra_plugins: Iterable[tuple[str, object]] = (),
    entry_points: bool = True,
    stages: Sequence[str] = STAGES,
    reserved_commands: Optional[Iterable[str]] = None,
    local: Sequence[LocalSource] = (),
) -> Registry:
    """Load every plugin of the entry-point group, the ``local`` modules (swarbench.local.sources) and
    ``extra_plugins`` (as (name, module or object) pairs), then call the registration phases ``stages``, each a
    pluggy hook call over every plugin. Plugins named in ``disable`` or in $SWARBENCH_DISABLE_PLUGINS are not
    imported. ``reserved_commands``: the command names no plugin may take (default: the command line's own).
    """
    pm = pluggy.PluginManager(ENTRY_POINT_GROUP)
    pm.add_hookspecs(hookspecs)
    registry = Registry()
    blocked = set(disable) | set(disabled_from_env())
    registry.disabled = sorted(blocked)
    if reserved_commands is None and "swarbench_add_commands" in stages:
        from swarbench.cli import builtin_commands  # here: the command line imports this module

        reserved_commands = builtin_commands()
    registry.reserved_commands = set(reserved_commands or ())

    candidates: list[tuple[str, object]] = []
    if entry_points:
        import importlib.metadata  # here: it imports email, zipfile and more, which `import swarbench.cli` skips

        seen = set()
        for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name in blocked or ep.name in seen:
                continue
            seen.add(ep.name)
            started = time.perf_counter()
            try:
                candidates.append((ep.name, ep.load()))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # an import that fails, or calls sys.exit, must not end the run
                registry.failures.append(PluginFailure(ep.name, "import", one_line(exc)))
            else:
                dist = getattr(ep, "dist", None)
                registry.sources[ep.name] = PluginSource(
                    _file_of(candidates[-1][1]), dist.name if dist else "", dist.version if dist else ""
                )
            finally:
                registry.import_s[ep.name] = time.perf_counter() - started
            if ep.value.startswith("swarbench."):
                registry.builtin.add(ep.name)
    for source in local:
        if source.name in blocked or any(source.name == n for n, _ in candidates):
            continue
        try:
            candidates.append((source.name, source.load()))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # as an entry point's: one line naming the module, and the run goes on
            registry.failures.append(PluginFailure(source.name, "import", one_line(exc)))
            registry.sources[source.name] = PluginSource(source.path, local=source)
        else:
            version = getattr(candidates[-1][1], "__version__", "")
            registry.sources[source.name] = PluginSource(
                _file_of(candidates[-1][1]) or source.path,
                version=version if isinstance(version, str) else "",
                local=source,
            )
    candidates += [(n, p) for n, p in extra_plugins if n not in blocked]

    # pluggy calls the plugin registered last first: registered in reverse, they are called in the order they
    # load (entry points by name, then extra plugins), as tryfirst, trylast and the wrappers leave it
    refused = {}
    for name, plugin in reversed(candidates):
        refused[name] = _register(pm, name, plugin, registry)
    registry.failures += [PluginFailure(name, "register", refused[name]) for name, _ in candidates if refused[name]]
    registry.plugins += [name for name, _ in candidates if not refused[name]]

    for stage in [s for s in STAGES if s in stages]:
        getattr(pm.hook, stage)(registry=registry)
        for pm_name, guarded in pm.list_name_plugin():
            if guarded.name not in registry.plugins:
                pm.unregister(name=pm_name)  # failed in this phase: none of its hooks is called again
    return registry


def _file_of(plugin: object) -> str:
    """The file of a plugin's module: where its version control is found (swarbench.provenance)."""
    module = plugin if isinstance(plugin, types.ModuleType) else sys.modules.get(getattr(plugin, "__module__", ""))
    return str(getattr(module, "__file__", "") or "")
