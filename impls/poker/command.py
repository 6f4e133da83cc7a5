"""``swarbench poker equity sA cA``: any hero hand against one random hand, printed the way the talk printed it.
``swarbench poker classes``: the exact equity of all 169 starting-hand classes against one random hand, here or
spread over a Dask cluster (classes169.py).

The hero hand is the parameter the benchmark workloads fix to sA cA (whose totals the data file holds). Here it
is any two cards in the talk's notation (``sA cA``, ``7h 2c``); the implementation is one the oracle verifies on
sA cA and on board slices, and the command prints its counts, percents and time, as the talk's program did.
"""
import sys
import time

import numpy as np

from swarbench import fleet
from swarbench.errors import UsageError
from swarbench.fleet_divisible import compute
from swarbench.model import Command, Workload

from . import classes169, spec

DEFAULT_IMPL = ("c-smart-mt", "c-smart", "python-smart")


def add_arguments(parser) -> None:
    parser.add_argument("action", choices=["equity", "classes"],
                        help="equity: wins, ties, losses of HERO against one random hand; classes: the exact equity "
                             "of each of the 169 starting-hand classes against one random hand")
    parser.add_argument("hero", nargs="*", help="two cards in the talk's notation: sA cA, or 7h 2c")
    parser.add_argument("--boards", type=int, default=None, metavar="N",
                        help="equity: an evenly spaced slice of N boards (default: all 2,118,760); classes: only the "
                             "first N of the 2,598,960 boards, each checked against the plain evaluator")
    parser.add_argument("--shards", type=int, default=None, metavar="K",
                        help="classes: pieces of work, spread over the cluster's machines (default 4 a machine)")
    parser.add_argument("--no-iso", action="store_true",
                        help="classes: count every board, not one board of each suit permutation weighted by how "
                             "many it stands for (the same table, about 19 times the work)")
    fleet.add_arguments(parser)
    parser.add_argument("--impl", default=None, help="a poker.equity implementation (default: the fastest here)")


def _pick(registry, name):
    return registry.choose("poker.equity", name, DEFAULT_IMPL)


def run(args, registry) -> int:
    if args.action == "classes":
        return run_classes(args)
    if not args.hero:
        raise UsageError("poker equity needs a hero hand, e.g. `swarbench poker equity sA cA`")
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


def run_classes(args) -> int:
    """The 169-class table: all boards, checked against the data file; or the first --boards boards, checked
    against the plain evaluator on the same boards (both computed the same way, here or over the cluster)."""
    if args.hero:
        raise UsageError("poker classes takes no hero hand: it counts every class")
    if args.boards is not None and not 1 <= args.boards <= classes169.N_BOARDS:
        raise UsageError(f"--boards {args.boards}: give 1 to {classes169.N_BOARDS:,}")
    if args.shards is not None and args.shards < 1:
        raise UsageError(f"--shards {args.shards}: need at least one")
    if (args.machines or args.machine_names) and not args.cluster:
        raise UsageError("--machines and --machine-names choose workers of a --cluster; give --cluster ADDRESS")
    full = args.boards is None
    iso = full and not args.no_iso  # a range of boards is not made of whole suit orbits
    count = classes169.N_BOARDS if full else args.boards
    parts = args.shards or 4 * (len(fleet.local_names(args.cluster, args.machine_names))
                                if args.cluster and args.cluster.startswith(fleet.LOCAL) else 2)
    where = dict(cluster=args.cluster, machines=args.machines, machine_names=args.machine_names)
    done = compute(classes169.work(parts, count, iso), **where)
    counts = done.output
    if full:
        problems = classes169.check_full(counts)
        against = "the data file's sA cA counts and each class's 2,097,572,400 games a hand"
    else:
        reference = compute(classes169.work(parts, count, False, reference=True), **where).output
        wrong = [classes169.class_name(i) for i in range(169) if (counts[i] != reference[i]).any()]
        problems = [f"classes {', '.join(wrong[:5])} differ from the plain evaluator"] if wrong else []
        against = f"the plain evaluator on the same {count:,} boards"
    table = classes169.table(counts)
    print(table.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    spread = ", ".join(f"{name}: {n}" for name, n in sorted(done.shards_by_machine.items()))
    print(f"{count:,} boards{' (one of each suit permutation, weighted)' if iso else ''} in {parts} "
          f"shards ({spread}): {done.wall_s:.1f} s")
    if problems:
        print(f"swarbench: FAIL: {problems[0]}", file=sys.stderr)
        return 1
    print(f"checked against {against}: all agree")
    return 0


COMMAND = Command("poker", "Hold'em equity of any two cards against one random hand, the talk's way: "
                  "`swarbench poker equity 7h 2c`", add_arguments, run)
