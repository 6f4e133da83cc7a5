"""The CardsVector suite: registered through the ``swarbench`` entry point like any plugin.

To add an implementation, write a prepare function in the module of its family (python.py, vectorized.py,
jit.py, native.py with its C source in c/) and append an ``Implementation`` to that module's list.
"""
from swarbench import hookimpl

from . import jit, native, python, report, spec, vectorized


@hookimpl
def swarbench_add_kernels(registry):
    for kernel in spec.KERNELS:
        registry.add_kernel(kernel)


@hookimpl
def swarbench_add_implementations(registry):
    for module in (python, vectorized, jit, native):
        for impl in module.IMPLEMENTATIONS:
            registry.add_implementation(impl)


@hookimpl
def swarbench_add_reports(registry):
    for suite_report in report.REPORTS:
        registry.add_report(suite_report)
