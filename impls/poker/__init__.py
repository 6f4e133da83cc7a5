"""The poker suite: SWAR Hold'em hand ranking, the talk's building blocks, equity by enumeration.

Kernels: poker.rank7 (7-card sets to canonical rank codes; workloads random, categories7), poker.equity (hero
sA cA against one random hand; workloads aa-slice, aa-full), poker.versus (given hands against each other over
every board, exactly: versus.py; workloads hu-slice, three-slice, hu-full, three-full), and the building blocks of
blocks.py. Every implementation produces the same canonical code (spec.py), so the oracle compares codes for
equality; the talk's signed comparison is kept as c-talk-signed, expected to fail. `swarbench poker equity 7h 2c`
takes any hero hand; `swarbench poker equity AdAc "QQ+, AKs"` puts hands and ranges (ranges.py) against each other.

Registered through the ``swarbench`` entry point like any plugin. To add an implementation, write a prepare
function in the module of its family (python.py, vectorized.py, jit.py, native.py with C in c/) and append an
``Implementation`` to that module's list. Numba code goes in jit_kernels.py, at module level with ``cache=True`` (a
closure calling another jitted function would miss numba's cache in every worker: see jit_kernels.py).
"""

from swarbench import hookimpl

# Each hook imports the modules it registers: parsing a command line needs only the commands, and the
# suite's kernels, families (NumPy, tables) and reports load when a command uses the registry.


@hookimpl
def swarbench_add_kernels(registry):
    from . import blocks, spec, versus

    for kernel in spec.KERNELS + blocks.KERNELS + [versus.VERSUS]:
        registry.add_kernel(kernel)


@hookimpl
def swarbench_add_implementations(registry):
    from . import jit, native, python, vectorized

    for module in (python, vectorized, jit, native):
        for impl in module.IMPLEMENTATIONS + getattr(module, "BLOCKS", []) + getattr(module, "VERSUS", []):
            registry.add_implementation(impl)


@hookimpl
def swarbench_add_reports(registry):
    from . import report

    for r in report.REPORTS:
        registry.add_report(r)


@hookimpl
def swarbench_add_commands(registry):
    from . import command

    registry.add_command(command.COMMAND)
