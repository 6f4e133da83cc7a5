"""Texas Hold'em hand ranking with SWAR (Eduardo Madrid's talk "How C++ beats other languages at card games", 2019): cards, rank codes, kernels.

Cards: the card of rank r (0 = deuce .. 12 = ace) and suit s (0..3 = s, h, d, c) is bit 4r + s of a uint64.

The canonical rank code (uint32), produced by EVERY implementation, is the talk's library layout read unsigned:
bits 0..12 a rank mask of the minor cards (kickers; for a straight or straight flush, 1 << its top rank, the five
for A-2-3-4-5), bits 14..26 a rank mask of the major cards (the rank of quads or trips, the pairs), bits 28..31
the category (0 high card .. 8 straight flush). Read as an unsigned number it is totally ordered: a bigger code is
a better hand, equal codes tie. Because every implementation must produce exactly this code, the oracle compares
codes for equality; the only thing the talk got wrong is reading it as a signed int32 (see ``equity``).
"""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import numpy as np

from swarbench.model import InvalidInput, Kernel, KnownAnswer, Mismatch, WorkloadKind

RANKS = "23456789TJQKA"
SUITS = "shdc"
CATEGORIES = [
    "high_card",
    "one_pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
]
DECK = (1 << 52) - 1
NIBBLE_LOW = 0x1111111111111  # bit 4r for r = 0..12
DATA = Path(__file__).parent / "data" / "poker_known.csv"
TALK = 'Eduardo Madrid, "How C++ beats other languages at card games" (2019, the Pokerbotic library)'

# -- cards in the talk's notation -------------------------------------------------------------------------
_CARD = re.compile(r"^(?:([shdc])(10|[2-9tjqka])|(10|[2-9tjqka])([shdc]))$", re.IGNORECASE)


def parse_card(name: str) -> int:
    """One card name, suit first (``sA``, the talk's way) or rank first (``7h``), to its bit index 4r + s."""
    m = _CARD.match(name.strip())
    if not m:
        raise InvalidInput(
            f"card {name!r} does not parse: expected a suit (s h d c) and a rank (2-9 T J Q K A), e.g. 'sA' or '7h'"
        )
    suit, rank = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    rank = "T" if rank == "10" else rank.upper()
    return 4 * RANKS.index(rank) + SUITS.index(suit.lower())


def card_name(index: int) -> str:
    return SUITS[index % 4] + RANKS[index // 4]


def parse_cards(text: str, what: str = "hand") -> int:
    """``"sA cA"`` (spaces or commas between cards) to a card set; a repeated card is InvalidInput."""
    names = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    cards = 0
    for name in names:
        bit = 1 << parse_card(name)
        if cards & bit:
            raise InvalidInput(f"{what} {text!r} repeats the card {name!r}")
        cards |= bit
    return cards


def describe(cards: int) -> str:
    return " ".join(card_name(i) for i in range(52) if (int(cards) >> i) & 1)


def hero_hand(text: str) -> int:
    cards = parse_cards(text, "hero hand")
    if bin(cards).count("1") != 2:
        raise InvalidInput(f"hero hand {text!r} has {bin(cards).count('1')} cards, not 2")
    return cards


def check_board(hero: int, board: int) -> None:
    if int(board) & ~DECK:
        raise InvalidInput(f"board 0x{int(board):x} has bits above the 52 cards")
    if bin(int(board)).count("1") != 5:
        raise InvalidInput(f"board {describe(board)} has {bin(int(board)).count('1')} cards, not 5")
    if int(board) & int(hero):
        raise InvalidInput(f"hero card {describe(int(board) & int(hero))} is on the board {describe(board)}")


# -- the plainest correct evaluator: best of the 21 five-card subsets ---------------------------------------
def code_of(category: int, major: int = 0, minor: int = 0) -> int:
    return (category << 28) | (major << 14) | minor


def category_of(code) -> np.ndarray:
    return np.asarray(code, dtype=np.uint32) >> np.uint32(28)


def five_key(cards: list[int]) -> tuple:
    """A scalar 5-card key by sorting (category, then ranks in tie-break order): the independent check of codes."""
    ranks = sorted((c // 4 for c in cards), reverse=True)
    flush = len({c % 4 for c in cards}) == 1
    groups = sorted(((ranks.count(r), r) for r in set(ranks)), reverse=True)
    shape = [g[0] for g in groups]
    order = [g[1] for g in groups]
    straight_top = None
    if len(groups) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:
            straight_top = 3
    if straight_top is not None:
        return (8 if flush else 4, straight_top)
    if flush:
        return (5, *order)
    cat = {(4, 1): 7, (3, 2): 6, (3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(shape), 0)
    return (cat, *order)


def _five_codes(ranks: np.ndarray, suits: np.ndarray) -> np.ndarray:
    """(N, 5) ranks and suits to canonical codes, by sorting the ranks and counting them."""
    n = ranks.shape[0]
    r = np.sort(ranks, axis=1)[:, ::-1]
    counts = np.zeros((n, 13), np.int64)
    np.add.at(counts, (np.arange(n)[:, None], r), 1)
    weight = np.int64(1) << np.arange(13, dtype=np.int64)
    masks = [((counts == k) * weight).sum(axis=1) for k in range(5)]  # masks[k]: ranks held exactly k times
    distinct = (counts > 0).sum(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1)
    wheel = (r == np.array([12, 3, 2, 1, 0])).all(axis=1)
    straight = (distinct == 5) & ((r[:, 0] - r[:, 4] == 4) | wheel)
    top = np.where(wheel, 3, r[:, 0])
    m1, m2, m3, m4 = masks[1], masks[2], masks[3], masks[4]
    npairs = (counts == 2).sum(axis=1)
    cat = np.select(
        [straight & flush, m4 > 0, (m3 > 0) & (m2 > 0), flush, straight, m3 > 0, npairs == 2, npairs == 1],
        [8, 7, 6, 5, 4, 3, 2, 1],
        0,
    )
    major = np.select([cat == 7, cat == 6, cat == 3, (cat == 2) | (cat == 1)], [m4, m3, m3, m2], 0)
    minor = np.select([(cat == 8) | (cat == 4), cat == 6], [np.int64(1) << top, m2], m1)
    return ((cat << 28) | (major << 14) | minor).astype(np.uint32)


SUBSETS = list(itertools.combinations(range(7), 5))


def card_indices(hands: np.ndarray, k: int) -> np.ndarray:
    """uint64[N] sets of exactly k cards to their (N, k) card indices, lowest first."""
    bits = ((hands[:, None] >> np.arange(52, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    return np.nonzero(bits)[1].reshape(len(hands), k)


def reference_rank(hands: np.ndarray, k: int = 7) -> np.ndarray:
    """The oracle: each hand's best code over its C(k, 5) five-card subsets (k = 5, 6 or 7)."""
    hands = np.asarray(hands, dtype=np.uint64)
    out = np.empty(len(hands), np.uint32)
    chunk = 1 << 17
    for lo in range(0, len(hands), chunk):
        idx = card_indices(hands[lo : lo + chunk], k)
        best = np.zeros(len(idx), np.uint32)
        for sub in itertools.combinations(range(k), 5):
            part = idx[:, sub]
            best = np.maximum(best, _five_codes(part // 4, part % 4))
        out[lo : lo + chunk] = best
    return out


# -- poker.rank7 -----------------------------------------------------------------------------------------
def random_hands(n: int, seed: int, k: int = 7) -> np.ndarray:
    """n uniformly random k-card sets (k distinct cards of a shuffled deck each)."""
    rng = np.random.default_rng(seed)
    out = np.empty(n, np.uint64)
    chunk = 1 << 16
    for lo in range(0, n, chunk):
        m = min(chunk, n - lo)
        cards = np.argsort(rng.random((m, 52)), axis=1)[:, :k].astype(np.uint64)
        out[lo : lo + m] = (np.uint64(1) << cards).sum(axis=1, dtype=np.uint64)
    return out


def validate_hands(hands, k: int = 7) -> None:
    hands = np.asarray(hands)
    if hands.dtype != np.uint64:
        raise InvalidInput(f"hands: expected a uint64 array, got {hands.dtype}")
    above = np.flatnonzero(hands & ~np.uint64(DECK))
    if above.size:
        i = int(above[0])
        raise InvalidInput(f"hand[{i}] = 0x{int(hands[i]):x} has bits above the 52 cards")
    counts = np.array(
        [bin(int(h)).count("1") for h in hands[:4096]]
        if len(hands) <= 4096
        else np.unpackbits(hands.view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)
    )
    bad = np.flatnonzero(counts != k)
    if bad.size:
        i = int(bad[0])
        raise InvalidInput(f"hand[{i}] {describe(hands[i])} has {int(counts[i])} cards, not {k}")


def _validate_rank7(inputs) -> None:
    if inputs.get("exhaustive"):
        return
    validate_hands(inputs["hands"], 7)


def _hands(text: list[str]) -> dict:
    return {"hands": np.array([parse_cards(t) for t in text], np.uint64)}


def _rank7_known():
    # Hand-checked cases of the spec's tie-break rules: the wheel's top card is the five, a second trips
    # serves as the pair of a full house, a third pair can be the kicker of two pair, suits never break ties.
    cases = [
        ("sA sK sQ sJ sT h2 d3", code_of(8, 0, 1 << 12)),
        ("hA h2 h3 h4 h5 sK dK", code_of(8, 0, 1 << 3)),
        ("sA hA dA cA s2 h3 d4", code_of(7, 1 << 12, 1 << 2)),
        ("s9 h9 d9 s5 h5 d5 c2", code_of(6, 1 << 7, 1 << 3)),
        ("sA s9 s7 s4 s2 hA dA", code_of(5, 0, (1 << 12) | (1 << 7) | (1 << 5) | (1 << 2) | 1)),
        ("sA h2 d3 c4 s5 hK dK", code_of(4, 0, 1 << 3)),
        ("s7 h7 d7 sA hK d4 c2", code_of(3, 1 << 5, (1 << 12) | (1 << 11))),
        ("s8 h8 d4 c4 s3 h3 cK", code_of(2, (1 << 6) | (1 << 2), 1 << 11)),
        ("s8 h8 d4 c4 s3 h3 c2", code_of(2, (1 << 6) | (1 << 2), 1 << 1)),
        ("s8 h8 dA cJ s4 h3 c2", code_of(1, 1 << 6, (1 << 12) | (1 << 9) | (1 << 2))),
        ("sA hJ d9 c7 s5 h3 c2", code_of(0, 0, (1 << 12) | (1 << 9) | (1 << 7) | (1 << 5) | (1 << 3))),
    ]
    return [
        KnownAnswer(
            "spec tie-break rules (hand-checked)",
            _hands([c for c, _ in cases]),
            np.array([v for _, v in cases], np.uint32),
            "the hand-ranking rules: category, then kickers",
            size=len(cases),
        )
    ]


def read_known(group: str) -> dict[str, int]:
    """One group of data/poker_known.csv as {item: value}."""
    import csv

    with open(DATA, newline="") as fh:
        return {row["item"]: row["value"] for row in csv.DictReader(fh) if row["group"] == group}


def category_table(group: str) -> np.ndarray:
    known = read_known(group)
    return np.array([int(known[c]) for c in CATEGORIES], np.int64)


def categories7_expected() -> np.ndarray:
    """What the exhaustive workload must produce: the 9 category counts over all 133,784,560 seven-card
    hands, then the number of distinct codes, all read from the data file (no reference could rank them all in
    reasonable time; the data's own sources are independent enumerators and combinatorics)."""
    counts = category_table("7card_count")
    distinct = int(read_known("7card_distinct_classes")["total"])
    return np.concatenate([counts, [distinct]]).astype(np.int64)


def reference_rank7(inputs):
    if inputs.get("exhaustive"):
        return categories7_expected()
    return reference_rank(inputs["hands"], 7)


def summarize_codes(codes: np.ndarray) -> np.ndarray:
    """Category counts and distinct-code count of a code array: the exhaustive workload's output layout."""
    cats = np.bincount(category_of(codes), minlength=9)[:9].astype(np.int64)
    return np.concatenate([cats, [len(np.unique(codes))]]).astype(np.int64)


N_ALL7 = math.comb(52, 7)


def _compare_rank7(expected, got, inputs):
    if not inputs.get("exhaustive"):
        return _first_mismatch(expected, got, inputs)
    got = np.asarray(got, dtype=np.int64)
    if got.shape != expected.shape:
        return Mismatch("shape", "all 7-card hands", f"shape {expected.shape}", f"shape {got.shape}")
    labels = CATEGORIES + ["distinct codes"]
    for i, (e, g) in enumerate(zip(expected, got)):
        if e != g:
            return Mismatch(labels[i], "all 133,784,560 seven-card hands", f"{int(e):,}", f"{int(g):,}")
    return None


def _first_mismatch(expected, got, inputs):
    from swarbench.model import first_array_mismatch

    return first_array_mismatch(expected, got, lambda i: describe(inputs["hands"][i]))


def _summarize_rank7(out):
    out = np.asarray(out)
    if out.dtype == np.int64 and out.shape == (10,):
        return {**{c: int(v) for c, v in zip(CATEGORIES, out[:9])}, "distinct_codes": int(out[9])}
    return {"hands": int(out.size)}


RANK7 = Kernel(
    id="poker.rank7",
    description="7-card sets (bit 4*rank+suit) to totally ordered rank codes (category<<28 | major<<14 | minor)",
    unit="hand",
    workloads=(
        WorkloadKind(
            "random",
            lambda n, seed: ({"hands": random_hands(n, seed)}, n),
            "uniformly random 7-card hands",
            default_size=1 << 15,
            test_size=2000,
            bytes_per_op=1200,
        ),
        WorkloadKind(
            "categories7",
            lambda n, seed: ({"exhaustive": True}, N_ALL7),
            "all 133,784,560 seven-card hands: category counts and distinct codes against the data",
            default_size=N_ALL7,
            default=False,
            fixed_size=True,
            bytes_per_op=0.01,
        ),
    ),
    reference=reference_rank7,
    known_answers=_rank7_known,
    validate=_validate_rank7,
    describe_input=lambda inputs, i: describe(inputs["hands"][i]),
    compare=_compare_rank7,
    baseline="naive",
    source=TALK,
    summarize=_summarize_rank7,
)


# -- poker.equity ----------------------------------------------------------------------------------------
def free_cards(hero: int) -> list[int]:
    return [i for i in range(52) if not (hero >> i) & 1]


def all_boards(hero: int) -> np.ndarray:
    """Every 5-card board from the 50 cards the hero does not hold, in the talk's order (increasing 5-subsets
    of the free positions, as nextSubset + deposit enumerate them)."""
    free = np.array(free_cards(hero), np.uint64)
    combos = np.array(list(itertools.combinations(range(len(free)), 5)), np.int64)
    # itertools gives lexicographic order; the talk's increasing-integer order sorts by the top card first.
    combos = combos[np.lexsort(combos.T)]
    return (np.uint64(1) << free[combos]).sum(axis=1, dtype=np.uint64)


_board_cache: dict[int, np.ndarray] = {}


def boards_of(hero: int) -> np.ndarray:
    if hero not in _board_cache:
        _board_cache.clear()
        _board_cache[hero] = all_boards(hero)
    return _board_cache[hero]


N_BOARDS = math.comb(50, 5)
OPPONENTS = math.comb(45, 2)
AA = "sA cA"


def colex_subset(index: int, k: int) -> list[int]:
    """The positions c_1 < ... < c_k of the index-th k-subset in increasing-integer (colex) order, where
    index = C(c_1, 1) + ... + C(c_k, k): the combinatorial number system, so no other subset is listed."""
    out = []
    for i in range(k, 0, -1):
        c = i - 1
        while math.comb(c + 1, i) <= index:
            c += 1
        index -= math.comb(c, i)
        out.append(c)
    return out[::-1]


def board_slice(hero: int, n: int) -> np.ndarray:
    """A fixed, evenly spaced slice of n boards (every k-th of the talk's order), so it spans every rank.
    Each board is unranked directly: the default workload does not build the 2,118,760 boards (seconds of work)."""
    free = free_cards(hero)
    total = math.comb(len(free), 5)
    n = max(1, min(n, total))
    picks = np.linspace(0, total - 1, n).astype(np.int64)
    return np.array([sum(1 << free[c] for c in colex_subset(int(i), 5)) for i in picks], np.uint64)


def equity_inputs(hero_text: str, n_boards: int | None) -> dict:
    hero = hero_hand(hero_text)
    boards = boards_of(hero).copy() if n_boards is None else board_slice(hero, n_boards)
    return {"hero": hero, "hero_text": hero_text, "boards": boards, "full": n_boards is None}


def validate_equity(inputs) -> None:
    hero = int(inputs["hero"])
    if bin(hero).count("1") != 2 or hero & ~DECK:
        raise InvalidInput(f"hero hand 0x{hero:x} is not two cards")
    boards = inputs["boards"]
    on = np.flatnonzero(boards & np.uint64(hero))
    if on.size:
        check_board(hero, int(boards[int(on[0])]))
    for b in boards[:64]:
        check_board(hero, int(b))


def opponents_of(dead: int) -> np.ndarray:
    free = np.array([i for i in range(52) if not (dead >> i) & 1], np.uint64)
    pairs = np.array(list(itertools.combinations(range(len(free)), 2)), np.int64)
    return (np.uint64(1) << free[pairs]).sum(axis=1, dtype=np.uint64)


def reference_equity(inputs) -> np.ndarray:
    """wins, ties, losses (int64[3]) of the hero against every opponent hand on every board of the workload.

    The full sA cA enumeration is checked against the data file's totals (no plain evaluator ranks 2.1 billion
    hands in reasonable time); every other workload is ranked here by the plain evaluator, one board at a time.
    """
    hero = int(inputs["hero"])
    if inputs.get("full"):
        if hero != hero_hand(AA):
            raise InvalidInput("the full enumeration is only checked for sA cA (the data holds its totals)")
        known = read_known("headsup_exact")
        key = "AA(sA cA) vs random hand [correct] "
        return np.array([int(known[key + w]) for w in ("wins", "ties", "losses")], np.int64)
    boards = np.asarray(inputs["boards"], np.uint64)
    total = np.zeros(3, np.int64)
    per = 64  # boards per chunk: 64 * 991 hands ranked at once
    for lo in range(0, len(boards), per):
        chunk = boards[lo : lo + per]
        opp = np.concatenate([opponents_of(hero | int(b)) | b for b in chunk])
        heroes = reference_rank(chunk | np.uint64(hero), 7)
        ranks = reference_rank(opp, 7).reshape(len(chunk), OPPONENTS)
        h = heroes[:, None]
        total += [(h > ranks).sum(), (h == ranks).sum(), (h < ranks).sum()]
    return total


def _compare_equity(expected, got, inputs):
    got = np.asarray(got, dtype=np.int64)
    if got.shape != (3,):
        return Mismatch("shape", inputs.get("hero_text", "hero"), "wins, ties, losses (3 counts)", f"shape {got.shape}")
    if (got == expected).all():
        return None
    diff = got - expected
    why = ""
    if diff[1] == 0 and diff[0] == -diff[2] and diff[0] < 0:
        why = (
            f"; {-int(diff[0]):,} games moved from win to loss: a straight flush coded with category 8 in "
            f"bits 28..31 is negative as int32, and code1 - code2 does not wrap against a no-pair code "
            f"below the hero's minor mask, so the royal flush loses"
        )
    what = f"hero {inputs.get('hero_text', describe(inputs['hero']))} on {len(inputs['boards']):,} boards"
    fmt = lambda v: "/".join(f"{int(x):,}" for x in v)  # noqa: E731
    return Mismatch("wins/ties/losses", what, fmt(expected), fmt(got) + f" (off by {fmt(diff)})" + why)


def _summarize_equity(out):
    w, t, lost = (int(x) for x in np.asarray(out, dtype=np.int64))
    return {"wins": w, "ties": t, "losses": lost, "comparisons": w + t + lost}


def _equity_kind(name, n_boards, default, description):
    def build(size, seed):
        n = None if n_boards is None else size
        inputs = equity_inputs(AA, n)
        return inputs, len(inputs["boards"]) * OPPONENTS

    return WorkloadKind(
        name,
        build,
        description,
        default_size=n_boards or N_BOARDS,
        test_size=40,
        default=default,
        fixed_size=n_boards is None,
        bytes_per_op=0.05,
        params={"hero": AA},
    )


def royal_boards(hero: int) -> np.ndarray:
    """Every board completing a royal flush with a hero card (for sA cA: sK sQ sJ sT or cK cQ cJ cT + any card)."""
    out = []
    for s in range(4):
        royal = sum(1 << (4 * r + s) for r in range(8, 13))
        need = royal & ~hero
        if royal & hero:  # the rest of the royal flush on the board, any other cards beside it, in the talk's order
            rest = itertools.combinations(free_cards(hero | need), 5 - bin(need).count("1"))
            out += sorted(need | sum(1 << c for c in cards) for cards in rest)
    return np.array(out, np.uint64)


def _equity_known():
    # Nothing beats or ties a royal flush: on every board where the hero sA cA holds one (4 royal cards of spades
    # or clubs on the board, plus any of the 46 other cards: 92 boards) the hero wins all 990 games. The talk's
    # signed comparison loses 5,670 of them.
    hero = hero_hand(AA)
    boards = royal_boards(hero)
    return [
        KnownAnswer(
            f"sA cA royal-flush boards: {len(boards) * OPPONENTS:,} wins",
            {"hero": hero, "hero_text": AA, "boards": boards, "full": False},
            np.array([len(boards) * OPPONENTS, 0, 0], np.int64),
            "the rules of hold'em: a royal flush is never beaten",
            size=len(boards) * OPPONENTS,
        )
    ]


EQUITY = Kernel(
    id="poker.equity",
    description="hero's wins, ties, losses against one random opponent over every board and opponent hand",
    unit="comparison",
    workloads=(
        _equity_kind("aa-slice", 128, True, "sA cA over a fixed slice of boards (every k-th), vs the reference"),
        _equity_kind(
            "aa-full", None, False, "sA cA over all 2,118,760 boards x 990 opponents, vs the correct totals in the data"
        ),
    ),
    reference=reference_equity,
    known_answers=_equity_known,
    validate=validate_equity,
    compare=_compare_equity,
    baseline="c-talk",
    source=TALK,
    summarize=_summarize_equity,
    op_is_element=False,  # a tally over boards and opponents, not an array element an op
)

KERNELS = [RANK7, EQUITY]
