"""The plugin contract: every hook a swarbench plugin may implement.

A plugin is any importable module (or object) advertised under the entry-point group ``swarbench``::

    [project.entry-points.swarbench]
    myplugin = "mypackage.swarbench_plugin"

The module marks its functions with ``swarbench.hookimpl``. The built-in suites in ``impls/`` are loaded exactly
this way, so every run exercises the path a third-party plugin takes.

Hooks run in phases, every plugin's kernels first, so a plugin may implement a kernel that another plugin
defines. Each hook receives the registry to add to; what a hook returns is ignored. A plugin whose import fails,
whose hook raises, or that marks a function whose name is none of the hooks below (``swarbench_add_implementation``)
is reported by name, everything it added is withdrawn, and the run goes on without it; ``swarbench list`` exits 1.
docs/plugins.md walks through a plugin; docs/reference.md lists every class, field and hook.
"""

import pluggy

hookspec = pluggy.HookspecMarker("swarbench")


@hookspec
def swarbench_add_kernels(registry):
    """Add kernels with ``registry.add_kernel(Kernel(...))``.

    Called once per session, before any implementation is added. A kernel id is ``<suite>.<operation>``
    (``cards.contains``) and must be unique across all plugins. The first time a run uses a plugin's kernel, its
    reference is run on its known answers: a disagreement leaves the kernel out with one line blaming its spec.
    """


@hookspec
def swarbench_add_implementations(registry):
    """Add implementations with ``registry.add_implementation(Implementation(...))``.

    Called after every plugin's kernels are registered, so ``Implementation.kernel`` may name a kernel of any
    plugin. Implementation names must be unique within their kernel. Do no heavy work here (no compiling, no
    JIT): that belongs in ``Implementation.prepare``, which runs only for implementations a run selects.
    """


@hookspec
def swarbench_add_reports(registry):
    """Add suite reports with ``registry.add_report(SuiteReport(...))``.

    A suite report presents a run the way the suite's source document does (the article's table of scoring
    variations, the talk's equity printout). Every renderer (text, md, html) shows it after the common tables.
    """


@hookspec
def swarbench_add_commands(registry):
    """Add CLI sub-commands with ``registry.add_command(Command(...))``, e.g. a suite's contest client."""
