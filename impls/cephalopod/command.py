"""The contest program as a client: ``swarbench cephalopod solve [--impl NAME] < test.txt``.

Reads the contest's input (the depth, then three lines of three values) from standard input and prints the answer,
so the contest's own test files run unchanged. Malformed input raises InvalidInput, which the CLI prints as one
line before exiting with code 2.
"""

from __future__ import annotations

import sys

from swarbench.errors import UsageError
from swarbench.model import Command, TooSlow, Workload

# .spec (NumPy, the board tables) is imported by the functions that solve: `swarbench --help` lists this
# command without building them

# the first of these that runs on this machine answers when --impl is not given
PREFERRED = ("c-avx2-prefetch", "c-avx2", "c-direct", "c-lut", "numba-sym", "numba-bfs", "bfs")


def add_arguments(parser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    solve = actions.add_parser(
        "solve",
        help="read one contest input from stdin and print the answer",
        description="Read the depth, then three lines of three values (0..6), from "
        "standard input and print the sum of hashes modulo 2^30.",
    )
    solve.add_argument(
        "--impl",
        "-i",
        default=None,
        metavar="NAME",
        help=f"implementation to use (default: the first available of {', '.join(PREFERRED)})",
    )


def pick(registry, name):
    from .spec import HASHSUM

    return registry.choose(HASHSUM.id, name, PREFERRED)


def solve(text: str, impl) -> int:
    import numpy as np

    from .spec import HASHSUM, make_inputs, parse_contest_input

    depth, board = parse_contest_input(text)
    inputs = make_inputs([(depth, board)])
    HASHSUM.validate(inputs)
    try:
        batch = impl.prepare(Workload(HASHSUM.id, "stdin", 1, inputs))
    except TooSlow as exc:
        raise UsageError(f"{impl.name} is too slow for this input ({exc}); choose another --impl") from None
    return int(np.asarray(batch())[0])


def run(args, registry) -> int:
    if getattr(args, "action", None) != "solve":
        raise UsageError("expected an action: swarbench cephalopod solve [--impl NAME] < input")
    impl = pick(registry, args.impl)
    print(solve(sys.stdin.read(), impl))
    return 0


COMMAND = Command(
    "cephalopod", "the cephalopod contest client: `solve` answers a contest input from stdin", add_arguments, run
)
