"""``swarbench mastermind play``: every game of any pPcC game played by one strategy's implementation, timed.

For games whose reference would take hours (5p8c: 32,768 games), so no benchmark workload can verify them:
the implementation is the same code the oracle verifies on 4p6c and on small games, and the command prints
the total, the worst game and the time of one call, beside the mikemag/Mastermind project's published total
where the suite's data has one. Progress goes to stderr on a terminal; Ctrl-C stops the search within a second.
"""
import csv
import sys
import time
from pathlib import Path

from swarbench import progress
from swarbench.model import Command, Workload

# NumPy and .spec are imported where a command runs: `swarbench --help` lists this command without them

# AVX2 first even where AVX-512 runs: on the AVX-512 machine measured (docs/suites.md) the AVX2 player was as fast
# or faster for every strategy; --impl c-sliced-avx512-mt names the other.
DEFAULT_IMPL = ("c-sliced-avx2-mt", "c-sliced-avx512-mt", "c-sliced-avx2", "c-sliced-avx512", "c-sse2",
                "c-counting")
PUBLISHED = Path(__file__).parent / "data" / "mastermind_published_totals.csv"
# Why a float-ranked total may differ from the published one where its row names no other reason. Knuth and Most
# Parts rank by integers, so a total of theirs that differs is a fault, with nothing to excuse it.
FLOAT_RANKED = ("expected_size", "entropy")
FLOAT_ROUNDING = ("this strategy ranks by float sums, and the project's GPU build (nvcc --use_fast_math) rounds "
                  "near-equal sums differently, so at some sizes its games, and total, differ by a few guesses "
                  "(docs/suites.md)")


def add_arguments(parser) -> None:
    from . import spec

    parser.add_argument("action", choices=["play"], help="play: every secret of the game, one timed call")
    parser.add_argument("--pins", type=int, default=4)
    parser.add_argument("--colors", type=int, default=6)
    parser.add_argument("--first", default=None,
                        help="first guess, e.g. 1122 (default: the published one where known, else 1122 / 11223 ...)")
    parser.add_argument("--strategy", default="knuth", help=f"one of {', '.join(spec.STRATEGIES)}")
    parser.add_argument("--method", default="shared", help="each (every game on its own) or shared")
    parser.add_argument("--impl", default=None, help="a mastermind.knuth implementation (default: the fastest here)")


def _pick(registry, name):
    return registry.choose("mastermind.knuth", name, DEFAULT_IMPL)


def default_first(pins: int) -> str:
    """1122 for 4 pins, 11223 for 5, 112233 for 6: pairs of colors, the customary opening."""
    return "".join(str(1 + k // 2) for k in range(pins))


def published(pins: int, colors: int, strategy: str):
    """The data's row for this game and strategy (first guess, total, worst game), or None."""
    with open(PUBLISHED) as fh:
        for row in csv.DictReader(fh):
            if (int(row["pins"]), int(row["colors"]), row["strategy"]) == (pins, colors, strategy):
                return row
    return None


def _show_progress(done: int, total: int, what: str) -> None:
    print(f"\r  {done:,} / {total:,} {what}", end="\n" if done >= total else "", file=sys.stderr, flush=True)


def run(args, registry) -> int:
    import numpy as np

    from . import spec

    spec.check_game(args.pins, args.colors)
    known = published(args.pins, args.colors, args.strategy)
    first = args.first or (known["first_guess"] if known else default_first(args.pins))
    inputs = spec.knuth_inputs(args.pins, args.colors, spec.pack(first, args.pins, args.colors),
                               strategy=args.strategy, method=args.method)
    spec.validate_knuth(inputs)
    impl = _pick(registry, args.impl)
    batch = impl.prepare(Workload("mastermind.knuth", "play", len(inputs["secrets"]), inputs))
    with progress.reporting(_show_progress if sys.stderr.isatty() else None):
        start = time.perf_counter()
        out = np.asarray(batch())
        seconds = time.perf_counter() - start
    s = spec.summarize_knuth(out)
    same_game = known and spec.pack(known["first_guess"], args.pins, args.colors) == inputs["first"]
    note = (f" (published: {known['total_guesses']}, at most {known['max_guesses']})"
            if same_game else "")
    print(f"{args.strategy} {args.pins}p{args.colors}c from {first} ({args.method}, {impl.name}): "
          f"{s['games']} games, {s['total']} guesses, average {s['total'] / s['games']:.5f}, at most {s['max']}"
          f"{note}; {seconds:.3f} s")
    if same_game and s["total"] != int(known["total_guesses"]):
        why = known.get("why_it_differs") or (FLOAT_ROUNDING if args.strategy in FLOAT_RANKED else "")
        if why:
            print(f"  why the published total differs: {why}")
    return 0


COMMAND = Command("mastermind", "play every game of a Mastermind game with Knuth's algorithm or another strategy: "
                  "`swarbench mastermind play --pins 5 --colors 8 --strategy entropy`", add_arguments, run)
