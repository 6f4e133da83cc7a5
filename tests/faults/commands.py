"""Sub-commands that fail: one raises when run, one when it adds its arguments."""

from swarbench import hookimpl
from swarbench.model import Command


def _raise(args, registry):
    raise RuntimeError("the command's own bug")


def _bad_arguments(parser):
    parser.add_argument("--x")
    raise ValueError("cannot add its arguments")


@hookimpl
def swarbench_add_commands(registry):
    registry.add_command(Command("fault-raises", "raises when run", lambda parser: None, _raise))
    registry.add_command(Command("fault-arguments", "raises adding its arguments", _bad_arguments, _raise))
