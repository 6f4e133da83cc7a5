"""``swarbench poker equity sA cA``: any hero hand against one random hand, printed the way the talk printed it.

The hero hand is the parameter the benchmark workloads fix to sA cA (whose totals the data file holds). Here it
is any two cards in the talk's notation (``sA cA``, ``7h 2c``); the implementation is one the oracle verifies on
sA cA and on board slices, and the command prints its counts, percents and time, as the talk's program did.
"""
import time

from swarbench.errors import UsageError
from swarbench.model import Command, Workload

# NumPy and .spec are imported where a command runs: `swarbench --help` lists this command without them

DEFAULT_IMPL = ("c-smart-mt", "c-smart", "python-smart")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=["equity"], help="equity: wins, ties, losses against one random hand")
    parser.add_argument("hero", nargs="+", help="two cards in the talk's notation: sA cA, or 7h 2c")
    parser.add_argument("--boards", type=int, default=None, metavar="N",
                        help="an evenly spaced slice of N boards (default: all 2,118,760)")
    parser.add_argument("--impl", default=None, help="a poker.equity implementation (default: the fastest here)")


def _pick(registry, name):
    return registry.choose("poker.equity", name, DEFAULT_IMPL)


def run(args, registry) -> int:
    import numpy as np

    from . import spec

    text = " ".join(args.hero)
    if args.boards is not None and args.boards < 1:
        raise UsageError(f"--boards {args.boards}: need at least one board")
    inputs = spec.equity_inputs(text, args.boards)  # InvalidInput names a bad card or a repeated one
    spec.validate_equity(inputs)
    impl = _pick(registry, args.impl)
    n = len(inputs["boards"]) * spec.OPPONENTS
    batch = impl.prepare(Workload("poker.equity", "command", n, inputs))
    start = time.perf_counter()
    wins, ties, losses = (int(x) for x in np.asarray(batch()))
    seconds = time.perf_counter() - start
    for count in (wins, ties, losses):
        print(f"{count}:{100.0 * count / n:.6g}%")
    print(n)
    print(f"{spec.describe(inputs['hero'])} over {len(inputs['boards']):,} boards with {impl.name}: {seconds:.3f} s, "
          f"{n / seconds / 1e6:,.0f} million comparisons per second")
    return 0


COMMAND = Command("poker", "Hold'em equity of any two cards against one random hand, the talk's way: "
                  "`swarbench poker equity 7h 2c`", add_arguments, run)
