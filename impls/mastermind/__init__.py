"""The Mastermind suite: scoring variations, batch SIMD scoring, Knuth's algorithm on all games.

To add an implementation, write its prepare function in the module of its family (python.py, vectorized.py,
jit.py, native.py with its C source in c/, gpu.py) and append an ``Implementation`` to that module's list.
"""
from swarbench import hookimpl

from . import command, gpu, jit, jit_knuth, native, python, report, spec, vectorized

FAMILIES = (python, vectorized, jit, jit_knuth, native, gpu)


@hookimpl
def swarbench_add_kernels(registry):
    for kernel in spec.KERNELS:
        registry.add_kernel(kernel)


@hookimpl
def swarbench_add_implementations(registry):
    for module in FAMILIES:
        for impl in module.IMPLEMENTATIONS:
            registry.add_implementation(impl)


@hookimpl
def swarbench_add_reports(registry):
    for suite_report in report.REPORTS:
        registry.add_report(suite_report)


@hookimpl
def swarbench_add_commands(registry):
    registry.add_command(command.COMMAND)
