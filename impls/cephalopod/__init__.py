"""The cephalopod suite: registered through the ``swarbench`` entry point like any plugin.

To add an implementation, write a prepare function in the module of its family (python.py, jit.py, native.py
with its C source in c/) and append an ``Implementation`` to that module's list.
"""
from swarbench import hookimpl

from . import client, jit, native, python, report as reports, spec

MODULES = (python, jit, native)


@hookimpl
def swarbench_add_kernels(registry):
    for kernel in spec.KERNELS:
        registry.add_kernel(kernel)


@hookimpl
def swarbench_add_implementations(registry):
    for module in MODULES:
        for impl in module.IMPLEMENTATIONS:
            registry.add_implementation(impl)


@hookimpl
def swarbench_add_reports(registry):
    for report in reports.REPORTS:
        registry.add_report(report)


@hookimpl
def swarbench_add_commands(registry):
    registry.add_command(client.COMMAND)
