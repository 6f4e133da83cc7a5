"""The CardsVector suite: registered through the ``swarbench`` entry point like any plugin.

To add an implementation, write a prepare function in the module of its family (python.py, vectorized.py,
jit.py, native.py with its C source in c/) and append an ``Implementation`` to that module's list.
"""

from swarbench import hookimpl

# Each hook imports the modules it registers: parsing a command line needs only the commands, and the
# suite's kernels, families (NumPy, tables) and reports load when a command uses the registry.


@hookimpl
def swarbench_add_kernels(registry):
    from . import spec

    for kernel in spec.KERNELS:
        registry.add_kernel(kernel)


@hookimpl
def swarbench_add_implementations(registry):
    from . import jit, native, python, vectorized

    for module in (python, vectorized, jit, native):
        for impl in module.IMPLEMENTATIONS:
            registry.add_implementation(impl)


@hookimpl
def swarbench_add_reports(registry):
    from . import report

    for suite_report in report.REPORTS:
        registry.add_report(suite_report)
