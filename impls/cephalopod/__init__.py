"""The cephalopod suite: registered through the ``swarbench`` entry point like any plugin.

To add an implementation, write a prepare function in the module of its family (python.py, jit.py, native.py
with its C source in c/) and append an ``Implementation`` to that module's list.
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
    from . import jit, native, python

    for module in (python, jit, native):
        for impl in module.IMPLEMENTATIONS:
            registry.add_implementation(impl)


@hookimpl
def swarbench_add_reports(registry):
    from . import report as reports

    for report in reports.REPORTS:
        registry.add_report(report)


@hookimpl
def swarbench_add_commands(registry):
    from . import command

    registry.add_command(command.COMMAND)
