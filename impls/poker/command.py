"""``swarbench poker equity``: one hand against a random hand the talk's way, or hands and ranges against each
other exactly, the way PokerStove answers; or the 169 starting-hand classes against a random hand.

- ``swarbench poker equity sA cA``: one hand (any two cards, ``sA cA`` or ``7h 2c``) against one random hand over
  every board and opponent hand, printed as the talk's program printed it (a poker.equity implementation).
- ``swarbench poker equity AdAc KhKs``, ``... AdAc "QQ+, AKs, AQo+, 76s"``, ``... AhKh 2d2c 5c6c``: two to ten
  players, each a hand or a range, over every board completing ``--board`` (a poker.versus implementation per
  distinct matchup; matchups equal up to a renaming of suits are enumerated once and counted as many times).
- ``swarbench poker classes``: the exact equity of all 169 starting-hand classes against one random hand, locally or
  spread over a Dask cluster (classes169.py).
"""

import sys
import time

from swarbench import fleet_options
from swarbench.errors import UsageError
from swarbench.model import Command, InvalidInput, TooSlow, Workload

# NumPy and the suite's modules are imported where a command runs: `swarbench --help` lists this command
# without them

DEFAULT_IMPL = ("c-smart-mt", "c-smart", "python-smart")
DEFAULT_VERSUS = ("c-versus-mt", "c-versus-bmi2", "c-versus", "numba-versus-prange", "python-swar")


def add_arguments(parser) -> None:
    parser.add_argument(
        "action",
        choices=["equity", "classes"],
        help="equity: one hand against a random hand (the talk's wins, ties, losses), or two to ten "
        "hands and ranges against each other, exactly; classes: the exact equity of each of "
        "the 169 starting-hand classes against one random hand",
    )
    parser.add_argument(
        "players",
        nargs="*",
        metavar="HAND",
        help="one hand (sA cA, 7h 2c) against a random hand; or a hand or a range per player: AdAc "
        "KhKs, or AdAc 'QQ+, AKs, AQo+, 76s', or AhKh 2d2c 5c6c ('random' is every hand)",
    )
    parser.add_argument(
        "--board",
        default="",
        metavar="CARDS",
        help="board cards already dealt (up to 5), for hands against hands: 'Jc 9h 2d'",
    )
    parser.add_argument(
        "--boards",
        type=int,
        default=None,
        metavar="N",
        help="one hand against a random hand: an evenly spaced slice of N boards (default: all "
        "2,118,760); classes: only the first N of the 2,598,960 boards, each checked against "
        "the plain evaluator",
    )
    parser.add_argument(
        "--shards",
        type=int,
        default=None,
        metavar="K",
        help="classes: pieces of work, spread over the cluster's machines (default 4 a machine)",
    )
    parser.add_argument(
        "--no-iso",
        action="store_true",
        help="classes: count every board, not one board of each suit permutation weighted by how "
        "many it stands for (the same table, about 19 times the work)",
    )
    fleet_options.add_arguments(parser)
    parser.add_argument(
        "--impl",
        default=None,
        help="a poker.equity implementation (one hand) or poker.versus one (hands against hands); "
        "default: the fastest one that runs locally",
    )


def _pick(registry, name):
    return registry.choose("poker.equity", name, DEFAULT_IMPL)


def warn_if_wrong(impl) -> None:
    """An implementation kept wrong on purpose says so wherever it is used, before its figures."""
    if impl.expected_to_fail:
        print(
            f"swarbench: warning: {impl.name} is known to be wrong, kept to show what the oracle catches: "
            f"{impl.expected_to_fail}",
            file=sys.stderr,
        )


def _named(impl) -> str:
    return f"{impl.name} (known to be wrong)" if impl.expected_to_fail else impl.name


def run(args, registry) -> int:
    import numpy as np

    from . import ranges, spec

    if args.action == "classes":
        return run_classes(args)
    if not args.players:
        raise UsageError("poker equity needs a hand, e.g. `swarbench poker equity sA cA` or `... AdAc KhKs`")
    players = ranges.players_of(args.players)
    lone_card = any(ranges.is_card(p) for p in players)  # a card left over: the talk's notation, mistyped
    if args.board or (len(players) > 1 and not lone_card):
        return run_versus(args, registry, players)
    hand = ranges.parse_hand(players[0]) if len(players) == 1 else None
    if hand is None and not lone_card:
        raise InvalidInput(
            f"{players[0]!r} alone: give one hand (sA cA) for its equity against a random hand, or "
            f"two or more hands or ranges to put against each other"
        )
    text = spec.describe(hand) if hand is not None else " ".join(args.players)
    if args.boards is not None and args.boards < 1:
        raise UsageError(f"--boards {args.boards}: need at least one board")
    inputs = spec.equity_inputs(text, args.boards)  # InvalidInput names a bad card or a repeated one
    spec.validate_equity(inputs)
    impl = _pick(registry, args.impl)
    warn_if_wrong(impl)
    n = len(inputs["boards"]) * spec.OPPONENTS
    batch = impl.prepare(Workload("poker.equity", "command", n, inputs))
    start = time.perf_counter()
    wins, ties, losses = (int(x) for x in np.asarray(batch()))
    seconds = time.perf_counter() - start
    for count in (wins, ties, losses):
        print(f"{count}:{100.0 * count / n:.6g}%")
    print(n)
    print(
        f"{spec.describe(inputs['hero'])} over {len(inputs['boards']):,} boards with {_named(impl)}: "
        f"{seconds:.3f} s, {n / seconds / 1e6:,.0f} million comparisons per second"
    )
    return 0


def run_versus(args, registry, players: list[str]) -> int:
    from . import ranges, spec

    if args.boards is not None:
        raise UsageError(
            "--boards slices one hand against a random hand; hands against hands are enumerated over every board"
        )
    board = spec.parse_cards(args.board, "board") if args.board.strip() else 0
    if bin(board).count("1") > 5:
        raise InvalidInput(f"board {args.board!r} has {bin(board).count('1')} cards, at most 5")
    if len(players) < 2:
        raise InvalidInput(f"{players[0]!r} alone on a board: give two or more hands or ranges")
    impl = registry.choose("poker.versus", args.impl, DEFAULT_VERSUS)
    warn_if_wrong(impl)
    start = time.perf_counter()
    hands, acc, games, total, classes, seconds = totals(players, board, impl)
    overall = time.perf_counter() - start
    print(versus_table(players, hands, acc, games))
    where = f" on {ranges.describe_cards(board)}" if board else ""
    deals = f"{total:,} deal{'s' if total > 1 else ''} of the players' hands, {classes:,} up to suits"
    print(
        f"{games:,} games{where} ({deals}), exact, with {_named(impl)}: {seconds:.3f} s "
        f"({overall:.3f} s with preparing each deal)"
    )
    return 0


def totals(players: list[str], board: int, impl):
    import numpy as np

    from . import ranges, versus

    """Every player's hands after card removal, their counts (int64[k, 3] as poker.versus gives them) summed over
    every deal of one hand per player, the games counted, the number of deals and of deals up to suits, and the
    seconds the enumerations took (preparing them, a JIT's compiling included, not counted)."""
    hands = ranges.resolve(players, board)
    classes, total = ranges.matchups(hands, board)
    if not classes:
        raise InvalidInput("no deal gives every player a hand: the ranges need the same cards")
    acc = np.zeros((len(players), 3), np.int64)
    games, seconds = 0, 0.0
    for deal, weight in classes:
        inputs = versus.versus_inputs(deal, board)
        versus.validate(inputs)
        try:
            batch = impl.prepare(Workload("poker.versus", "command", versus.n_boards(deal, board), inputs))
        except TooSlow as exc:
            raise UsageError(f"{impl.name} is too slow for this: {exc}") from None
        start = time.perf_counter()
        counts = np.asarray(batch(), np.int64)
        seconds += time.perf_counter() - start
        acc += weight * counts
        games += weight * versus.n_boards(deal, board)
    return hands, acc, games, total, len(classes), seconds


def versus_table(players, hands, acc, games) -> str:
    from . import versus

    """One line per player as PokerStove prints it: equity, the share won alone and the share from ties."""
    width = max(8, *(len(p) for p in players))
    lines = [f"{'':{width}}  {'equity':>9}  {'win':>7}  {'tie':>6}  {'wins':>14}  {'ties':>12}  hands"]
    for text, range_hands, (wins, ties, pots) in zip(players, hands, acc):
        equity = 100.0 * pots / (versus.LCM * games)
        win = 100.0 * wins / games
        lines.append(
            f"{text:{width}}  {equity:8.4f}%  {win:6.2f}%  {equity - win:5.2f}%  {int(wins):>14,}  "
            f"{int(ties):>12,}  {len(range_hands)}"
        )
    return "\n".join(lines)


def run_classes(args) -> int:
    """The 169-class table: all boards, checked against the data file; or the first --boards boards, checked
    against the plain evaluator on the same boards (both computed the same way, locally or over the cluster)."""
    from swarbench.fleet_divisible import compute

    from . import classes169

    if args.players:
        raise UsageError("poker classes takes no hand: it counts every class")
    if args.boards is not None and not 1 <= args.boards <= classes169.N_BOARDS:
        raise UsageError(f"--boards {args.boards}: give 1 to {classes169.N_BOARDS:,}")
    if args.shards is not None and args.shards < 1:
        raise UsageError(f"--shards {args.shards}: need at least one")
    if (args.machines or args.machine_names) and not args.cluster:
        raise UsageError("--machines and --machine-names choose workers of a --cluster; give --cluster ADDRESS")
    full = args.boards is None
    iso = full and not args.no_iso  # a range of boards is not made of whole suit orbits
    count = classes169.N_BOARDS if full else args.boards
    parts = args.shards or 4 * (
        len(fleet_options.local_names(args.cluster, args.machine_names))
        if args.cluster and args.cluster.startswith(fleet_options.LOCAL)
        else 2
    )
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
    print(
        f"{count:,} boards{' (one of each suit permutation, weighted)' if iso else ''} in {parts} "
        f"shards ({spread}): {done.wall_s:.1f} s"
    )
    if problems:
        print(f"swarbench: FAIL: {problems[0]}", file=sys.stderr)
        return 1
    print(f"checked against {against}: all agree")
    return 0


COMMAND = Command(
    "poker",
    "Hold'em equity, exactly: one hand against a random hand the talk's way "
    "(`swarbench poker equity 7h 2c`), or hands and ranges against each other "
    "(`swarbench poker equity AdAc KhKs`)",
    add_arguments,
    run,
)
