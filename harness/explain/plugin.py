"""``swarbench asm KERNEL IMPL``: the code a run timed for one row, its hot loop marked, with the row's limits.

Registered through the plugin hook the suites use for their own commands. By default it reads the latest run
that measured the row (the listing is in its records); ``--now`` prepares the implementation here on the
kernel's default workload and reads the code it calls, for a row no run has measured yet.
"""

from __future__ import annotations

import sys
import time

from swarbench import hookimpl
from swarbench.model import Command


def add_arguments(p) -> None:
    from pathlib import Path

    p.add_argument("kernel", help="kernel id, e.g. cards.contains")
    p.add_argument("implementation", help="implementation name, e.g. c-swar")
    p.add_argument(
        "--run",
        default="latest",
        metavar="RUN",
        help="the run whose timed code to show (run id, run folder or 'latest', the default)",
    )
    p.add_argument("--workload", "-w", default=None, help="the workload of the row (default: the first measured)")
    p.add_argument(
        "--now",
        action="store_true",
        help="prepare the implementation here on the kernel's default workload instead of reading a run",
    )
    p.add_argument(
        "--reports",
        type=Path,
        default=None,  # resolved when the command runs: a bad $SWARBENCH_REPORTS is then asm's error, not list's
        metavar="DIR",
        help="where runs are saved (default ./reports or $SWARBENCH_REPORTS)",
    )


def run(args, registry) -> int:
    from swarbench.errors import UsageError
    from swarbench.explain.listing import lines

    kernel = registry.kernels.get(args.kernel)
    if kernel is None:
        raise UsageError(f"no kernel {args.kernel!r}; kernels: {', '.join(sorted(registry.kernels))}")
    impl = registry.implementations.get(f"{args.kernel}/{args.implementation}")
    if impl is None:
        names = ", ".join(sorted(i.name for i in registry.implementations_of(args.kernel)))
        raise UsageError(f"kernel {args.kernel} has no implementation {args.implementation!r}; it has: {names}")
    found = None if args.now else _from_run(args)
    if found is None:
        header, explain, row = _prepared_now(args, kernel, impl)
    else:
        header, explain, row = found
    sys.stdout.write("\n".join([header, *lines(explain, row)]) + "\n")
    return 0


def _from_run(args):
    """(header, explain, frame row) of the row in the run, or None where the run has no code for it."""
    from swarbench import api
    from swarbench.errors import UsageError
    from swarbench.runfolder import MeasurementKey, RunFolder

    try:
        folder = RunFolder.find(args.run, api.reports_folder(args.reports))
    except UsageError:
        if args.run != "latest":
            raise
        return None
    code = folder.timed_code(folder.run_id)
    keys = [
        k
        for k in code
        if k[1] == args.kernel and k[2] == args.implementation and (args.workload is None or k[3] == args.workload)
    ]
    if not keys:
        if args.run != "latest":
            raise UsageError(
                f"run {folder.run_id} has no timed code of {args.kernel} {args.implementation}"
                + (f" on workload {args.workload}" if args.workload else "")
                + " (not run, not passed, or run before swarbench kept it)"
            )
        return None
    key = keys[0]
    row = {}
    try:
        frame = folder.results()
        match = frame[(frame[list(MeasurementKey._fields)] == list(key[1:])).all(axis=1)]
        row = match.iloc[0].to_dict() if len(match) else {}
    except UsageError:
        pass
    header = f"{key[1]} {key[2]}: the code timed by run {folder.run_id}, workload {key[3]}, n={key[4]:,}"
    return header, code[key], row


def _prepared_now(args, kernel, impl):
    from swarbench import features, oracle
    from swarbench.errors import UsageError
    from swarbench.explain.case import explain_case

    why = features.unavailable(impl.requires)
    if why:
        raise UsageError(f"{impl.kernel} {impl.name} cannot run on this machine: {why}")
    kind = kernel.workload_kind(args.workload) if args.workload else kernel.workloads[0]
    try:
        workload = kernel.make_workload(kind).read_only()
        batch = impl.prepare(workload)
        start = time.perf_counter()
        outputs = batch()
        call_s = time.perf_counter() - start
    except Exception as exc:
        raise UsageError(
            f"{impl.kernel} {impl.name} could not be prepared here: {oracle.describe_error(exc)}"
        ) from None
    explain = explain_case(
        batch, call_s, impl.family, workload, outputs, workload.size, op_is_element=kernel.op_is_element
    )
    header = (
        f"{impl.kernel} {impl.name}: the code it calls, prepared now (no run measured it) on workload "
        f"{workload.name}, n={workload.size:,}"
    )
    return header, explain, {}


@hookimpl
def swarbench_add_commands(registry):
    registry.add_command(
        Command(
            "asm",
            "the code a run timed for one row: its disassembly, the hot loop marked, "
            "what it should cost and how far the row is from it",
            add_arguments,
            run,
        )
    )
