"""The exact equity of each of the 169 starting-hand classes against one random hand, as a divisible workload.

Each class's hands play 2,097,572,400 games apiece (every board of the 50 other cards, every opponent hand of
the 45 left). c/classes169.c counts them board first, for every class at once; a shard is a range of boards, the
merge a sum (swarbench.fleet_divisible spreads the shards over a Dask cluster). Over all boards the table is
checked against the data file's exact sA cA counts and each row's game count; over the first N boards the C
counts are checked, board by board, against the plain evaluator of spec.py counting the same games.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from functools import lru_cache

import numpy as np
import pandas as pd

from swarbench.cbuild import build
from swarbench.fleet_divisible import Divisible

from . import spec

N_BOARDS = math.comb(52, 5)
GAMES = math.comb(50, 5) * math.comb(45, 2)  # per hero hand: 2,097,572,400
CDEF = "int64_t classes169(uint64_t first, uint64_t count, int iso, int64_t *out);"


@lru_cache(maxsize=1)
def module():
    from pathlib import Path

    c_dir = Path(__file__).parent / "c"
    core = hashlib.sha256((c_dir / "poker_core.c").read_bytes()).hexdigest()[:12]
    return build("poker_classes169", c_dir / "classes169.c", CDEF, (), (f"-DPOKER_CORE_SHA={core}",))


def class_index(a: int, b: int) -> int:
    """The class of two cards (bit 4*rank + suit), as c/classes169.c numbers them."""
    hi, lo = max(a // 4, b // 4), min(a // 4, b // 4)
    return hi * 13 + lo if a % 4 == b % 4 else lo * 13 + hi


def class_name(index: int) -> str:
    row, col = divmod(index, 13)
    if row == col:
        return spec.RANKS[row] * 2
    return spec.RANKS[row] + spec.RANKS[col] + "s" if row > col else spec.RANKS[col] + spec.RANKS[row] + "o"


def combos(index: int) -> int:
    row, col = divmod(index, 13)
    return 6 if row == col else 4 if row > col else 12


def count_boards(shard: tuple[int, int, bool]) -> np.ndarray:
    """wins, ties, losses (169 x 3) over boards [first, first + count) of colex order; with iso, over whole
    suit orbits (exact only for all boards together)."""
    first, count, iso = shard
    m = module()
    out = np.zeros((169, 3), np.int64)
    m.lib.classes169(first, count, int(iso), m.ffi.cast("int64_t *", out.ctypes.data))
    return out


def reference_boards(shard: tuple[int, int, bool]) -> np.ndarray:
    """The same counts by the plain evaluator (spec.reference_rank), each board's 1081 holdings against each
    other directly; no iso. Slow (milliseconds a board): for checking a few boards."""
    first, count, iso = shard
    if iso:
        raise ValueError("the plain reference counts boards one by one, not orbits")
    out = np.zeros((169, 3), np.int64)
    for index in range(first, first + count):
        cards = spec.colex_subset(index, 5)
        board = sum(1 << c for c in cards)
        free = [c for c in range(52) if c not in cards]
        pairs = list(itertools.combinations(free, 2))
        masks = np.array([board | 1 << a | 1 << b for a, b in pairs], np.uint64)
        codes = spec.reference_rank(masks, 7).astype(np.int64)
        cards_of = np.array(pairs)
        for i, (a, b) in enumerate(pairs):
            disjoint = (cards_of[:, 0] != a) & (cards_of[:, 0] != b) & (cards_of[:, 1] != a) & (cards_of[:, 1] != b)
            theirs = codes[disjoint]
            out[class_index(a, b)] += [(theirs < codes[i]).sum(), (theirs == codes[i]).sum(), (theirs > codes[i]).sum()]
    return out


def shards(parts: int, count: int = N_BOARDS, iso: bool = True) -> list[tuple[int, int, bool]]:
    """``parts`` ranges of boards (from the first) covering ``count`` boards."""
    edges = np.linspace(0, count, max(1, min(parts, count)) + 1).astype(np.int64)
    return [(int(lo), int(hi - lo), iso) for lo, hi in zip(edges[:-1], edges[1:])]


def merge(outputs: list) -> np.ndarray:
    return np.sum(outputs, axis=0, dtype=np.int64)


def work(parts: int, count: int = N_BOARDS, iso: bool = True, reference: bool = False) -> Divisible:
    return Divisible(
        "poker-classes169" + ("-reference" if reference else ""),
        shards(parts, count, iso),
        reference_boards if reference else count_boards,
        merge,
    )


def table(counts: np.ndarray) -> pd.DataFrame:
    """Per class: wins, ties, losses of one of its hands, and its equity (wins + ties / 2) in percent."""
    rows = []
    for i in range(169):
        w, t, lost = (int(x) // combos(i) for x in counts[i])
        games = w + t + lost
        rows.append(
            {
                "class": class_name(i),
                "combos": combos(i),
                "wins": w,
                "ties": t,
                "losses": lost,
                "equity_pct": 100.0 * (w + t / 2) / games if games else math.nan,
            }
        )
    return pd.DataFrame(rows).sort_values("equity_pct", ascending=False, ignore_index=True)


def check_full(counts: np.ndarray) -> list[str]:
    """What is wrong with a table over all boards: a class whose games do not add up, or whose hands did not
    all play alike, or sA cA's counts other than the data file's."""
    problems = []
    for i in range(169):
        if counts[i].sum() != combos(i) * GAMES:
            problems.append(f"{class_name(i)}: {int(counts[i].sum()):,} games, not {combos(i)} x {GAMES:,}")
        if (counts[i] % combos(i)).any():
            problems.append(f"{class_name(i)}: counts {counts[i].tolist()} do not divide among its {combos(i)} hands")
    known = spec.read_known("headsup_exact")
    key = "AA(sA cA) vs random hand [correct] "
    expected = [int(known[key + w]) for w in ("wins", "ties", "losses")]
    got = [int(x) // 6 for x in counts[class_index(48, 49)]]
    if got != expected:
        problems.append(f"AA: {got} per hand, the data file has {expected}")
    return problems
