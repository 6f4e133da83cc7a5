"""What a plugin registers, checked when it registers it (swarbench.registry's ``add_*``): a kernel, implementation,
report or command whose fields are not what the plugin contract says is refused in one line naming the field, and
the plugin fails alone, rather than ending a run later (a unit that is not text cannot be saved; a number of
operations that is not one cannot be divided by).

Names (kernel ids, implementation and workload names, families, report ids, command names) hold letters, digits
and ``. _ + -`` only: they become parts of case ids (``kernel:implementation:workload:n=N``), file names,
command-line patterns and anchors of the HTML report, where a quote, a colon, a slash or a space would break
them. Every other text is shown escaped wherever it is shown.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Any, Mapping

from swarbench.model import Command, Implementation, Kernel, Parameter, SuiteReport, WorkloadKind

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*\Z")
NAME_RULE = "letters, digits and . _ + - only, starting with a letter or digit"


def name(what: str, value: Any) -> None:
    if not isinstance(value, str) or not NAME.match(value):
        raise ValueError(f"{what} {value!r} is not a name: {NAME_RULE}")


def text(what: str, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be text (a str), got {type(value).__name__} {value!r}")


def function(what: str, value: Any, optional: bool = False) -> None:
    if not (callable(value) or (optional and value is None)):
        raise TypeError(f"{what} must be a function{' or None' if optional else ''}, got {type(value).__name__}")


def whole(what: str, value: Any, least: int = 1, optional: bool = False) -> None:
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(f"{what} must be a whole number of at least {least}, got {value!r}")


def check_kernel(kernel: Kernel) -> None:
    name("kernel id", kernel.id)
    for field in ("description", "unit", "baseline", "source"):
        text(f"kernel {kernel.id}'s {field}", getattr(kernel, field))
    for field in ("reference", "known_answers", "validate", "describe_input"):
        function(f"kernel {kernel.id}'s {field}", getattr(kernel, field))
    for field in ("compare", "summarize"):
        function(f"kernel {kernel.id}'s {field}", getattr(kernel, field), optional=True)
    if (
        isinstance(kernel.workloads, (str, bytes))
        or not isinstance(kernel.workloads, (list, tuple))
        or not kernel.workloads
    ):
        raise ValueError(f"kernel {kernel.id} needs a list of at least one WorkloadKind, got {kernel.workloads!r}")
    seen = set()
    for kind in kernel.workloads:
        if not isinstance(kind, WorkloadKind):
            raise TypeError(f"kernel {kernel.id}'s workloads must be WorkloadKind objects, got {type(kind).__name__}")
        _check_kind(kernel.id, kind)
        if kind.name in seen:
            raise ValueError(f"kernel {kernel.id} has two workloads named {kind.name!r}")
        seen.add(kind.name)


def _check_kind(kid: str, kind: WorkloadKind) -> None:
    where = f"workload {kind.name!r} of {kid}"
    name(f"workload name (of {kid})", kind.name)
    function(f"{where}: build", kind.build)
    function(f"{where}: expected", kind.expected, optional=True)
    text(f"{where}: description", kind.description)
    whole(f"{where}: default_size", kind.default_size)
    whole(f"{where}: test_size", kind.test_size)
    whole(f"{where}: max_size", kind.max_size, optional=True)
    for field in ("default", "fixed_size"):
        if not isinstance(getattr(kind, field), bool):
            raise TypeError(f"{where}: {field} must be True or False, got {getattr(kind, field)!r}")
    per_op = kind.bytes_per_op
    if isinstance(per_op, bool) or not isinstance(per_op, numbers.Real) or not (math.isfinite(per_op) and per_op > 0):
        raise ValueError(f"{where}: bytes_per_op must be a positive number, got {per_op!r}")
    _check_params(where, kind.params)
    if not isinstance(kind.parameters, Mapping):
        raise TypeError(f"{where}: parameters must be a dict of Parameter, got {type(kind.parameters).__name__}")
    for pname, param in kind.parameters.items():
        name(f"{where}: parameter", pname)
        if not isinstance(param, Parameter):
            raise TypeError(f"{where}: parameter {pname} must be a Parameter, got {type(param).__name__}")
        text(f"{where}: parameter {pname}'s default", param.default)
        function(f"{where}: parameter {pname}'s parse", param.parse)


def _check_params(where: str, params: Any) -> None:
    """A kind's fixed params are saved with every result line: JSON's scalars only."""
    if not isinstance(params, Mapping):
        raise TypeError(f"{where}: params must be a dict, got {type(params).__name__}")
    for key, value in params.items():
        if not isinstance(key, str):
            raise TypeError(f"{where}: params keys must be text, got {key!r}")
        ok = (
            value is None
            or isinstance(value, (str, bool))
            or (isinstance(value, numbers.Real) and math.isfinite(float(value)))
        )
        if not ok:
            raise TypeError(
                f"{where}: params[{key!r}] must be text, a finite number, True/False or None, got "
                f"{type(value).__name__}"
            )


def check_implementation(impl: Implementation) -> None:
    name(f"implementation name (of {impl.kernel})", impl.name)
    name(f"implementation {impl.name!r}'s family", impl.family)
    function(f"implementation {impl.key}'s prepare", impl.prepare)
    function(f"implementation {impl.key}'s build", impl.build, optional=True)
    text(f"implementation {impl.key}'s description", impl.description)
    text(f"implementation {impl.key}'s expected_to_fail", impl.expected_to_fail)
    if (
        isinstance(impl.requires, str)
        or not isinstance(impl.requires, (tuple, list))
        or not all(isinstance(r, str) for r in impl.requires)
    ):
        raise TypeError(f"implementation {impl.key}'s requires must be a tuple of strings, got {impl.requires!r}")


def check_report(report: SuiteReport) -> None:
    name("report id", report.id)
    function(f"report {report.id}'s build", report.build)


def check_command(command: Command) -> None:
    name("command name", command.name)
    text(f"command {command.name}'s help", command.help)
    function(f"command {command.name}'s add_arguments", command.add_arguments)
    function(f"command {command.name}'s run", command.run)
