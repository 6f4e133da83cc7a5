"""``swarbench mastermind play``: every game of any pPcC game played by one strategy's implementation, timed.

For games whose reference would take hours (5p8c: 32,768 games), so no benchmark workload can verify them:
the implementation is the same code the oracle verifies on 4p6c and on small games, and the command prints
the total, the worst game and the time of one call, beside the mikemag/Mastermind project's published total
where the suite's data has one. Progress goes to stderr on a terminal; Ctrl-C stops the search within a second.

Expected Size and Entropy play in exact arithmetic unless ``--arithmetic`` names one of the project's float
arithmetics (spec.ARITHMETICS). Where a total differs from the published one, the command says what happened, from
the suite's data (the decisions where the project's float keys split exact ties), or, with ``--explain``, by
replaying the game in the arithmetic that made the published figure (audit.py).
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
DEFAULT_IMPL = (
    "c-sliced-avx2-mt",
    "c-sliced-avx512-mt",
    "c-sliced-avx2",
    "c-sliced-avx512",
    "c-sse2",
    "c-counting",
    "numba-sliced",
)
PUBLISHED = Path(__file__).parent / "data" / "mastermind_published_totals.csv"
# The arithmetic the project's published Expected Size and Entropy figures were made in (its CUDA build).
PUBLISHED_ARITHMETIC = "cuda-fast-math"


def add_arguments(parser) -> None:
    from . import spec

    parser.add_argument("action", choices=["play"], help="play: every secret of the game, one timed call")
    parser.add_argument("--pins", type=int, default=4)
    parser.add_argument("--colors", type=int, default=6)
    parser.add_argument(
        "--first",
        default=None,
        help="first guess, e.g. 1122 (default: the published one where known, else 1122 / 11223 ...)",
    )
    parser.add_argument("--strategy", default="knuth", help=f"one of {', '.join(spec.STRATEGIES)}")
    parser.add_argument(
        "--arithmetic",
        default="exact",
        help=f"Expected Size and Entropy: one of {', '.join(spec.ARITHMETICS)} (exact: the strategy "
        "as defined; the others: the mikemag/Mastermind project's float keys, docs/suites.md)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help=f"replay Expected Size or Entropy in {PUBLISHED_ARITHMETIC} beside the exact rule and "
        "list where its float keys split exact ties (plays every score: minutes above 8,192 "
        "codewords)",
    )
    parser.add_argument("--method", default="shared", help="each (every game on its own) or shared")
    parser.add_argument("--impl", default=None, help="a mastermind.knuth implementation (default: the fastest here)")


def _pick(registry, name):
    return registry.choose("mastermind.knuth", name, DEFAULT_IMPL)


def default_first(pins: int) -> str:
    """1122 for 4 pins, 11223 for 5, 112233 for 6: pairs of colors, the customary opening."""
    return "".join(str(1 + k // 2) for k in range(pins))


def published(pins: int, colors: int, strategy: str, first=None):
    """The data's row for this game and strategy (first guess, totals, how they were checked), or None: the row of
    that first guess where given, else the game's first row (its published sample game's first guess)."""
    with open(PUBLISHED) as fh:
        for row in csv.DictReader(fh):
            if (int(row["pins"]), int(row["colors"]), row["strategy"]) == (pins, colors, strategy) and (
                first is None or row["first_guess"] == first
            ):
                return row
    return None


# Where its total is not the published one: what the model of the published arithmetic leaves out (spec.ARITHMETICS).
MODEL = (
    f"this suite's model of {PUBLISHED_ARITHMETIC} (the GPU's reciprocal and log2 emulated from its special "
    "function unit's tables, gpu_sfu.py)"
)


def why_it_differs(row: dict, strategy: str, arithmetic: str) -> str:
    """What made the published total other than the one played (``strategy`` in ``arithmetic``), from the data's row:
    its own reason, else, for Expected Size and Entropy, the published arithmetic's float keys, which split exact
    ties against the tie-break (counted in this suite's model of that arithmetic, where the row has the count).
    Knuth and Most Parts rank by integers: a total of theirs that differs has nothing to excuse it."""
    from .spec import FLOAT_RANKED

    if row.get("why_it_differs"):
        return row["why_it_differs"]
    model = row.get("cuda_fast_math_total")
    if strategy not in FLOAT_RANKED or not model:
        return ""
    reached = model == row["total_guesses"]
    if arithmetic == PUBLISHED_ARITHMETIC:
        return "" if reached else f"{MODEL} rounds otherwise than the GPU did"
    if arithmetic != "exact":
        return f"the published total was made in {PUBLISHED_ARITHMETIC} arithmetic" + (
            f", which gives it (--arithmetic {PUBLISHED_ARITHMETIC})" if reached else f"; {MODEL} gives {model}"
        )
    ties = row.get("ties_split")
    split = (
        f"{ties} exact tie{'s' if ties != '1' else ''} against the documented tie-break; the first: "
        f"{row['first_split']}"
        if ties
        else "exact ties against the documented tie-break (not counted at this size: --explain counts them)"
    )
    if reached:
        return f"the project's float keys ({PUBLISHED_ARITHMETIC}, which gives the published total) split {split}"
    return (
        f"the published total was made in {PUBLISHED_ARITHMETIC} arithmetic, whose float keys split exact ties "
        f"against the documented tie-break; {MODEL} reaches {model}, not the published total, and splits {split}"
    )


def _show_progress(done: int, total: int, what: str) -> None:
    print(f"\r  {done:,} / {total:,} {what}", end="\n" if done >= total else "", file=sys.stderr, flush=True)


def explain(pins: int, colors: int, first: str, strategy: str) -> list[str]:
    """The audit's lines: the published arithmetic's total and where its float keys left the exact rule."""
    from .audit import audit

    a = audit(pins, colors, first, strategy, PUBLISHED_ARITHMETIC)
    lines = [
        f"  {PUBLISHED_ARITHMETIC}: {a.total} guesses, at most {a.worst}; of its {a.decisions} decisions, "
        f"{len(a.split_ties)} split exact ties against the tie-break and {len(a.reversed)} reversed an exact "
        "order"
    ]
    if a.split_ties:
        lines.append(f"  the first: {a.first().describe()}")
    return lines


def run(args, registry) -> int:
    import numpy as np

    from swarbench.model import InvalidInput

    from . import spec

    spec.check_game(args.pins, args.colors)
    if args.explain and args.strategy not in spec.FLOAT_RANKED:
        raise InvalidInput(f"--explain: {args.strategy} ranks by integers, in one way only")
    first = spec.show(spec.pack(args.first, args.pins, args.colors), args.pins) if args.first else None
    known = published(args.pins, args.colors, args.strategy, first)
    first = first or (known["first_guess"] if known else default_first(args.pins))
    inputs = spec.knuth_inputs(
        args.pins,
        args.colors,
        spec.pack(first, args.pins, args.colors),
        strategy=args.strategy,
        method=args.method,
        arithmetic=args.arithmetic,
    )
    spec.validate_knuth(inputs)
    impl = _pick(registry, args.impl)
    batch = impl.prepare(Workload("mastermind.knuth", "play", len(inputs["secrets"]), inputs))
    with progress.reporting(_show_progress if sys.stderr.isatty() else None):
        start = time.perf_counter()
        out = np.asarray(batch())
        seconds = time.perf_counter() - start
    s = spec.summarize_knuth(out)
    same_game = known and spec.pack(known["first_guess"], args.pins, args.colors) == inputs["first"]
    note = f" (published: {known['total_guesses']}, at most {known['max_guesses']})" if same_game else ""
    if note and args.strategy in spec.FLOAT_RANKED and args.arithmetic != "exact" and known.get("exact_total"):
        exact = f"{known['exact_total']}, at most {known['exact_max']}"
        note = f"{note[:-1]}; the exact rule, as the data file has it: {exact})"
    arithmetic = f", {args.arithmetic}" if args.strategy in spec.FLOAT_RANKED else ""
    print(
        f"{args.strategy} {args.pins}p{args.colors}c from {first} ({args.method}{arithmetic}, {impl.name}): "
        f"{s['games']} games, {s['total']} guesses, average {s['total'] / s['games']:.5f}, at most {s['max']}"
        f"{note}; {seconds:.3f} s"
    )
    if same_game and s["total"] != int(known["total_guesses"]):
        why = why_it_differs(known, args.strategy, args.arithmetic)
        if why:
            print(f"  why the published total differs: {why}")
    if args.explain:
        with progress.reporting(_show_progress if sys.stderr.isatty() else None):
            for line in explain(args.pins, args.colors, first, args.strategy):
                print(line)
    return 0


COMMAND = Command(
    "mastermind",
    "play every game of a Mastermind game with Knuth's algorithm or another strategy: "
    "`swarbench mastermind play --pins 5 --colors 8 --strategy entropy`",
    add_arguments,
    run,
)
