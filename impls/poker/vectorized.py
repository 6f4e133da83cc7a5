"""NumPy family: the SWAR evaluator over a whole batch at once, and equity over blocks of boards.

Branches become masks: every candidate code is computed for every hand and ``np.select`` keeps the best rule
that applies. Questions about a 13-bit rank mask (its top card, its top k cards, its best straight) are answered
by 8,192-entry tables built once.
"""

from __future__ import annotations

import itertools

import numpy as np

from swarbench.memory import as_aligned
from swarbench.model import Implementation, TooSlow

from .spec import NIBBLE_LOW, OPPONENTS, card_indices

U = np.uint64
NIB, HIB = U(NIBBLE_LOW), U(NIBBLE_LOW << 3)
M55, M33 = U(0x5555555555555555), U(0x3333333333333333)


def _tables():
    # built with whole-array operations: a Python loop over the 8,192 masks cost every start of swarbench
    masks = np.arange(1 << 13, dtype=np.int64)
    pop = ((masks[:, None] >> np.arange(13)) & 1).sum(axis=1)
    top = np.frexp(masks)[1].astype(np.int64) - 1  # frexp's exponent is the bit length; 0 has none, so -1
    keep = np.empty((6, 1 << 13), np.int64)
    for k in range(6):
        v = masks.copy()
        for _ in range(13):  # drop the lowest card while more than k remain
            v = np.where(pop[v] > k, v & (v - 1), v)
        keep[k] = v
    x = (masks << 1) | (masks >> 12)  # the ace also plays low
    s = x & x >> 1 & x >> 2 & x >> 3 & x >> 4
    straight = np.where(s > 0, np.frexp(s)[1].astype(np.int64) + 2, -1)
    return top, keep, straight, pop


TOP, KEEP, STRAIGHT, POP = _tables()


def gather(x: np.ndarray) -> np.ndarray:
    x = (x | x >> U(3)) & U(0x0303030303030303)
    x = (x | x >> U(6)) & U(0x000F000F000F000F)
    x = (x | x >> U(12)) & U(0x000000FF000000FF)
    return ((x | x >> U(24)) & U(0xFFFF)).astype(np.int64)


def rank_numpy(h: np.ndarray) -> np.ndarray:
    h = np.asarray(h, np.uint64)
    one = np.int64(1)
    # flush: the suit stripe whose 13 bits sum (by one multiplication) to 5 or more
    stripe = np.zeros_like(h)
    for s in range(4):
        st = (h >> U(s)) & NIB
        stripe = np.where(((st * NIB) >> U(48)) & U(15) >= U(5), st, stripe)
    fm = gather(stripe)
    has_flush = fm > 0
    fst = STRAIGHT[fm]
    flush_code = np.where(fst >= 0, (8 << 28) | (one << np.maximum(fst, 0)), (5 << 28) | KEEP[5][fm])
    # rank counts, greaterEqual<N> for N = 1..4, gathered to 13-bit masks
    c = h - ((h >> U(1)) & M55)
    c = (c & M33) + ((c >> U(2)) & M33)
    v = c | HIB
    ranks, m2, m3, m4 = (gather(((v - U(n) * NIB) & HIB) >> U(3)) for n in (1, 2, 3, 4))
    q, t = np.maximum(TOP[m4], 0), np.maximum(TOP[m3], 0)
    pairs_fh = m2 & ~(one << t)
    st = STRAIGHT[ranks]
    two = KEEP[2][m2]
    choices = [
        (has_flush, flush_code),
        (m4 > 0, (7 << 28) | (one << q) << 14 | KEEP[1][ranks & ~(one << q)]),
        ((m3 > 0) & (pairs_fh > 0), (6 << 28) | (one << t) << 14 | (one << np.maximum(TOP[pairs_fh], 0))),
        (st >= 0, (4 << 28) | (one << np.maximum(st, 0))),
        (m3 > 0, (3 << 28) | (one << t) << 14 | KEEP[2][ranks & ~(one << t)]),
        (POP[m2] >= 2, (2 << 28) | two << 14 | KEEP[1][ranks & ~two]),
        (m2 > 0, (1 << 28) | m2 << 14 | KEEP[3][ranks & ~m2]),
    ]
    code = np.select([w for w, _ in choices], [x for _, x in choices], KEEP[5][ranks])
    return code.astype(np.uint32)


def _rank7(workload):
    if workload.inputs.get("exhaustive"):
        raise TooSlow("133,784,560 hands through NumPy temporaries (about a minute)")
    hands = as_aligned(workload.inputs["hands"])
    return lambda: rank_numpy(hands)


PAIRS = np.array(list(itertools.combinations(range(45), 2)), np.int64)


def equity_block(hero: int, boards: np.ndarray) -> np.ndarray:
    """wins, ties, losses over a block of boards: the talk's method, one block of boards at a time"""
    free = card_indices(~(boards | U(hero)) & U((1 << 52) - 1), 45)  # (B, 45) free cards of each board
    bits = U(1) << free.astype(np.uint64)
    opp = boards[:, None] | bits[:, PAIRS[:, 0]] | bits[:, PAIRS[:, 1]]  # (B, 990)
    theirs = rank_numpy(opp.ravel()).reshape(opp.shape)
    mine = rank_numpy(boards | U(hero))[:, None]
    return np.array([(mine > theirs).sum(), (mine == theirs).sum(), (mine < theirs).sum()], np.int64)


def _equity(workload):
    boards = as_aligned(workload.inputs["boards"])
    if len(boards) > 20000:
        raise TooSlow(f"{len(boards) * OPPONENTS:,} comparisons through NumPy temporaries")
    hero = int(workload.inputs["hero"])

    def batch():
        total = np.zeros(3, np.int64)
        for lo in range(0, len(boards), 256):
            total += equity_block(hero, boards[lo : lo + 256])
        return total

    return batch


IMPLEMENTATIONS = [
    Implementation(
        "poker.rank7",
        "numpy-swar",
        "numpy",
        _rank7,
        description="SWAR over the whole batch; 13-bit rank-mask questions by table",
    ),
    Implementation(
        "poker.equity",
        "numpy-talk",
        "numpy",
        _equity,
        description="the talk's method over blocks of 256 boards x 990 opponents",
    ),
]


# -- the talk's building blocks (blocks.py): the SWAR step over the whole array ---------------------------------
_LEVELS = [
    (1, 0x5555555555555555),
    (2, 0x3333333333333333),
    (4, 0x0F0F0F0F0F0F0F0F),
    (8, 0x00FF00FF00FF00FF),
    (16, 0x0000FFFF0000FFFF),
    (32, 0x00000000FFFFFFFF),
]


def lanes(x: np.ndarray, width: int) -> np.ndarray:
    for shift, mask in _LEVELS:
        if shift == width:
            break
        x = (x & U(mask)) + ((x >> U(shift)) & U(mask))
    return x


def greater_equal(counts: np.ndarray) -> np.ndarray:
    v = counts | U(0x8888888888888888)
    return np.stack([(v - U(k * 0x1111111111111111)) & U(0x8888888888888888) for k in range(1, 5)], axis=1)


def straights_chain(masks: np.ndarray) -> np.ndarray:
    x = (masks << np.uint32(1)) | (masks >> np.uint32(12))
    s = x & (x >> np.uint32(1))
    s &= s >> np.uint32(2)
    return s & (x >> np.uint32(4))


def atoi8(words: np.ndarray) -> np.ndarray:
    x = words - U(0x3030303030303030)
    x = (x * U(10) + (x >> U(8))) & U(0x00FF00FF00FF00FF)
    x = (x * U(100) + (x >> U(16))) & U(0x0000FFFF0000FFFF)
    return ((x * U(10000) + (x >> U(32))) & U(0xFFFFFFFF)).astype(np.uint32)


def _block(key, fn):
    def prepare(workload):
        data = as_aligned(workload.inputs[key])
        width = workload.inputs.get("width", 4)
        return lambda: fn(data, width)

    return prepare


BLOCKS = [
    Implementation("poker.popcount", "numpy-swar", "numpy", _block("words", lanes), description="SWAR levels"),
    Implementation(
        "poker.rank_counts",
        "numpy-swar",
        "numpy",
        _block("hands", lanes),
        description="the first two SWAR popcount levels",
    ),
    Implementation(
        "poker.greater_equal",
        "numpy-swar",
        "numpy",
        _block("counts", lambda c, w: greater_equal(c)),
        description="set the top bits, subtract N, keep the top bits",
    ),
    Implementation(
        "poker.straights",
        "numpy-chain",
        "numpy",
        _block("masks", lambda m, w: straights_chain(m)),
        description="the addition chain",
    ),
    Implementation(
        "poker.atoi8",
        "numpy-swar",
        "numpy",
        _block("words", lambda x, w: atoi8(x)),
        description="three multiply-add-mask steps",
    ),
]
