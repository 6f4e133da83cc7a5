"""poker.versus: given hands against each other over every board, exactly: the question PokerStove and the tools
after it answer (AhKh against 2d2c, all 1,712,304 boards of the 48 other cards).

Inputs: ``hands`` (uint64[k], 2 <= k <= 10, each two cards, no card shared) and either ``boards`` (uint64[n],
five cards each, none a hand's) or ``full`` with ``known`` (0 to 5 board cards dealt): every board that
completes ``known`` from the cards nobody holds. Output int64[k, 3]: per hand the boards it wins alone, the
boards it shares the best hand on, and its pots in units of 1/LCM (a pot split w ways gives each winner LCM / w),
so the equity is pots / (LCM * boards), exact in integers.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from swarbench.model import InvalidInput, Kernel, KnownAnswer, Mismatch, WorkloadKind

from .ranges import parse_hand
from .spec import DECK, TALK, colex_subset, describe, parse_cards, reference_rank

LCM = 2520  # lcm(1..10): a pot split among up to ten hands is a whole number of units each
MAX_HANDS = 10
DATA = Path(__file__).parent / "data" / "versus_published.csv"
HEADS_UP = ("AhKh", "2d2c")
THREE_WAY = ("AhKh", "2d2c", "5c6c")


def hand_set(text: str) -> int:
    cards = parse_hand(text)
    if cards is None:
        raise InvalidInput(f"hand {text!r} is not two cards")
    return cards


def free_cards(used: int) -> list[int]:
    return [i for i in range(52) if not (used >> i) & 1]


def n_boards(hands, known: int = 0) -> int:
    used = known
    for h in hands:
        used |= int(h)
    return math.comb(52 - bin(used).count("1"), 5 - bin(known).count("1"))


def board_slice(hands, known: int, n: int) -> np.ndarray:
    """n evenly spaced boards of the full enumeration (every k-th, in increasing-integer order), so a small
    workload spans every rank; each board is unranked directly, never by listing them all."""
    used = known
    for h in hands:
        used |= int(h)
    free = free_cards(used)
    need = 5 - bin(known).count("1")
    total = math.comb(len(free), need)
    picks = np.linspace(0, total - 1, max(1, min(n, total))).astype(np.int64)
    return np.array([known | sum(1 << free[c] for c in colex_subset(int(i), need)) for i in picks], np.uint64)


def all_boards(hands, known: int = 0) -> np.ndarray:
    """Every board of the full enumeration (for the reference on small enumerations: a known flop or turn)."""
    return board_slice(hands, known, n_boards(hands, known))


def versus_inputs(hands, known: int = 0, n: int | None = None) -> dict:
    arr = np.array([int(h) for h in hands], np.uint64)
    inputs = {"hands": arr, "known": int(known), "full": n is None}
    if n is not None:
        inputs["boards"] = board_slice(arr, known, n)
    return inputs


def validate(inputs) -> None:
    hands = [int(h) for h in inputs["hands"]]
    if not 2 <= len(hands) <= MAX_HANDS:
        raise InvalidInput(f"{len(hands)} hands: need 2 to {MAX_HANDS}")
    used = int(inputs.get("known", 0))
    if bin(used).count("1") > 5 or used & ~DECK:
        raise InvalidInput(f"board {describe(used)} is not 0 to 5 cards")
    for h in hands:
        if bin(h).count("1") != 2 or h & ~DECK:
            raise InvalidInput(f"hand 0x{h:x} is not two cards")
        if h & used:
            raise InvalidInput(f"card {describe(h & used)} is dealt twice (hand {describe(h)})")
        used |= h
    if not inputs.get("full"):
        boards = np.asarray(inputs["boards"], np.uint64)
        clash = np.flatnonzero(boards & np.uint64(used & ~int(inputs.get("known", 0))))
        if clash.size:
            raise InvalidInput(f"board {describe(int(boards[clash[0]]))} holds a card of a hand")


def score(codes: np.ndarray) -> np.ndarray:
    """(k, n) rank codes to int64[k, 3]: wins alone, boards shared, pots in 1/LCM units."""
    best = codes.max(axis=0)
    top = codes == best
    ways = top.sum(axis=0)
    wins = (top & (ways == 1)).sum(axis=1)
    ties = (top & (ways > 1)).sum(axis=1)
    pots = (top * (LCM // ways)).sum(axis=1)
    return np.stack([wins, ties, pots], axis=1).astype(np.int64)


def reference(inputs) -> np.ndarray:
    """The plain evaluator of spec.py (best of the 21 five-card subsets) on every hand and board."""
    boards = (
        np.asarray(inputs["boards"], np.uint64)
        if not inputs.get("full")
        else all_boards(inputs["hands"], int(inputs["known"]))
    )
    return score(np.stack([reference_rank(boards | np.uint64(h), 7) for h in inputs["hands"]]))


# -- published results --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Published:
    """One published result: per hand its wins and ties where the source gives them exactly, its equity in
    percent as printed (``decimals`` places), the games counted, and the source."""

    case: str
    players: tuple[str, ...]
    board: str
    games: int
    wins: tuple
    ties: tuple
    equity: tuple
    decimals: int
    source: str

    def check(self, counts: np.ndarray, games: int) -> str | None:
        """What differs between ``counts`` (int64[k, 3] summed over the games) and this result, or None."""
        if games != self.games:
            return f"{games:,} games counted, the source counts {self.games:,}"
        for i, name in enumerate(self.players):
            w, t, pots = (int(x) for x in counts[i])
            if self.wins[i] is not None and w != self.wins[i]:
                return f"{name}: {w:,} wins, the source {self.wins[i]:,}"
            if self.ties[i] is not None and t != self.ties[i]:
                return f"{name}: {t:,} ties, the source {self.ties[i]:,}"
            if self.equity[i] is not None:
                pct = 100.0 * pots / (LCM * games)
                if abs(pct - self.equity[i]) > 0.5 * 10.0**-self.decimals + 1e-12:
                    places = self.decimals
                    return f"{name}: equity {pct:.{places + 2}f}%, the source {self.equity[i]:.{places}f}%"
        return None


def published() -> dict[str, Published]:
    rows: dict[str, list[dict]] = {}
    with open(DATA, newline="") as fh:
        for row in csv.DictReader(fh):
            rows.setdefault(row["case"], []).append(row)
    out = {}
    for case, rs in rows.items():
        players = tuple(p.strip() for p in rs[0]["players"].split("|"))
        k = len(players)
        wins, ties, equity = [None] * k, [None] * k, [None] * k
        for r in rs:
            i = int(r["player"])
            wins[i] = int(r["wins"]) if r["wins"] else None
            ties[i] = int(r["ties"]) if r["ties"] else None
            equity[i] = float(r["equity_pct"]) if r["equity_pct"] else None
        out[case] = Published(
            case,
            players,
            rs[0]["board"],
            int(rs[0]["games"]),
            tuple(wins),
            tuple(ties),
            tuple(equity),
            int(rs[0]["decimals"]),
            rs[0]["source"],
        )
    return out


def _expected_published(case: str):
    def expected(inputs):
        return published()[case]

    return expected


def compare(expected, got, inputs):
    got = np.asarray(got, dtype=np.int64)
    k = len(inputs["hands"])
    names = [describe(int(h)) for h in inputs["hands"]]
    if got.shape != (k, 3):
        return Mismatch("shape", " vs ".join(names), f"({k}, 3): wins, ties, pots per hand", f"shape {got.shape}")
    if isinstance(expected, Published):
        games = n_boards(inputs["hands"], int(inputs["known"]))
        why = expected.check(got, games)
        return None if why is None else Mismatch(expected.case, " vs ".join(names), expected.source, why)
    for i in range(k):
        if not (got[i] == expected[i]).all():
            fmt = lambda v: "/".join(f"{int(x):,}" for x in v)  # noqa: E731
            return Mismatch(names[i], " vs ".join(names), f"wins/ties/pots {fmt(expected[i])}", fmt(got[i]))
    return None


def summarize(out) -> dict:
    out = np.asarray(out, dtype=np.int64)
    fields = {}
    for i, (w, t, pots) in enumerate(out):
        fields.update({f"wins_{i}": int(w), f"ties_{i}": int(t), f"pots_{i}": int(pots)})
    return fields


def _kind(name, hands, default, description, full=False):
    def build(size, seed):
        sets = [hand_set(h) for h in hands]
        inputs = versus_inputs(sets, 0, None if full else size)
        boards = n_boards(sets) if full else len(inputs["boards"])
        return inputs, boards * len(sets)

    case = "ahkh_2c2d" if len(hands) == 2 else "ahkh_2c2d_5c6c"
    total = n_boards([hand_set(h) for h in hands])
    return WorkloadKind(
        name,
        build,
        description,
        default_size=total if full else 4096,
        test_size=40,
        default=default,
        fixed_size=full,
        bytes_per_op=0.05 if full else 16,
        params={"hands": " vs ".join(hands)},
        expected=_expected_published(case) if full else None,
    )


def known_answers():
    # Hand-checked boards: a royal flush on the board splits every pot; a board pairing the deuces three times
    # gives 2d2c quads against AhKh's full house; a heart flush on the board is AhKh's alone (its ace).
    ahkh, twos, sixes = hand_set("AhKh"), hand_set("2d2c"), hand_set("5c6c")
    cases = [
        (
            "a royal flush on the board: every hand ties",
            [ahkh, twos],
            "sA sK sQ sJ sT",
            [[0, 1, LCM // 2], [0, 1, LCM // 2]],
        ),
        ("2d2c quads beat AhKh's full house", [ahkh, twos], "s2 h2 sA dA cK", [[0, 0, 0], [1, 0, LCM]]),
        (
            "a heart flush on the board: the ace of hearts takes it",
            [ahkh, twos, sixes],
            "h3 h7 h9 hT hJ",
            [[1, 0, LCM], [0, 0, 0], [0, 0, 0]],
        ),
    ]
    out = []
    for name, hands, board, expected in cases:
        inputs = {
            "hands": np.array(hands, np.uint64),
            "known": 0,
            "full": False,
            "boards": np.array([parse_cards(board)], np.uint64),
        }
        out.append(KnownAnswer(name, inputs, np.array(expected, np.int64), "the rules of hold'em", size=len(hands)))
    return out


VERSUS = Kernel(
    id="poker.versus",
    description="given hands against each other over every board: wins, shared pots and exact equity per hand",
    unit="hand",
    workloads=(
        _kind("hu-slice", HEADS_UP, True, "AhKh vs 2d2c over a fixed slice of boards (every k-th), vs the reference"),
        _kind("three-slice", THREE_WAY, False, "AhKh vs 2d2c vs 5c6c over a fixed slice of boards, vs the reference"),
        _kind("hu-full", HEADS_UP, False, "AhKh vs 2d2c over all 1,712,304 boards, vs the published counts", full=True),
        _kind(
            "three-full",
            THREE_WAY,
            False,
            "AhKh vs 2d2c vs 5c6c over all 1,370,754 boards, vs the published counts",
            full=True,
        ),
    ),
    reference=reference,
    known_answers=known_answers,
    validate=validate,
    compare=compare,
    baseline="python-swar",
    source=TALK + "; the results of PokerStove and the tools after it (data/versus_published.csv)",
    summarize=summarize,
    op_is_element=False,  # a tally of wins and shared pots over boards
)
