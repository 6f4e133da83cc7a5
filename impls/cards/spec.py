"""CardsVector: the card counts of a Dou Di Zhu hand (the post 棋牌AI手记——高性能计数器).

Layout: count of kind i (1 = A, 2..13, 14 small joker, 15 big joker) in nibble i of a uint64; nibble 0 is 0.
A workload's inputs are ``{"a": uint64[N], "b": uint64[N]}``: hand a, play b.
- ``cards.contains``: out[i] = every count of a[i] >= the count of b[i] (bool[N]).
- ``cards.remove``: out[i] = the counts a[i] - b[i] (uint64[N]), only defined where contains holds.

The reference works count by count with plain comparisons, deliberately not with the SWAR trick the
competitors use, so the oracle does not share their assumptions.
"""

from __future__ import annotations

import numpy as np

from swarbench.model import InvalidInput, Kernel, KnownAnswer, WorkloadKind

KINDS = 15
HIGH = 0x8888888888888888  # the top bit of every nibble
FULL_DECK = 0x1144444444444440
MAX_COUNT = np.array([0] + [4] * 13 + [1, 1], dtype=np.uint64)  # per nibble 0..15
NAMES = ["-", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "small joker", "big joker"]
# The 54 cards of a deck by kind: four of each rank, one of each joker.
DECK_KINDS = np.array([k for k in range(1, 14) for _ in range(4)] + [14, 15], dtype=np.uint64)
_SHIFTS = np.arange(16, dtype=np.uint64) * np.uint64(4)


def pack(counts: dict[int, int]) -> int:
    """{kind: count} to the packed uint64, e.g. pack({3: 2, 4: 2}) == 0x22000 (two 3s, two 4s)."""
    v = 0
    for kind, n in counts.items():
        if not 1 <= kind <= KINDS:
            raise InvalidInput(f"card kind {kind} is not in 1..15")
        if not 0 <= n <= int(MAX_COUNT[kind]):
            raise InvalidInput(f"count {n} of kind {kind} ({NAMES[kind]}) is not in 0..{int(MAX_COUNT[kind])}")
        v |= n << (4 * kind)
    return v


def unpack(v: int) -> list[int]:
    """The 16 counts (index 0 unused) of a packed vector."""
    return [(int(v) >> (4 * i)) & 15 for i in range(16)]


def counts_of(vectors: np.ndarray) -> np.ndarray:
    """uint64[N] to the (N, 16) count matrix."""
    return ((vectors[:, None] >> _SHIFTS) & np.uint64(15)).astype(np.int64)


def packed_of(counts) -> np.ndarray:
    """The (N, 16) count matrix (an array, or rows of 16 ints) to uint64[N]: counts_of's inverse."""
    return (np.asarray(counts, dtype=np.int64).astype(np.uint64) << _SHIFTS).sum(axis=1, dtype=np.uint64)


class PackedOnRead:
    """The (N, 16) counts a count-layout remove returned, packed to uint64 only when the oracle reads them:
    packing is not part of the post's remove, so it stays out of the timed call."""

    def __init__(self, counts):
        self.counts = counts

    def __array__(self, dtype=None, copy=None):
        packed = packed_of(self.counts)
        return packed.astype(dtype) if dtype else packed


def describe(v: int) -> str:
    c = unpack(v)
    inner = ", ".join(f"{NAMES[i]}:{c[i]}" for i in range(1, 16) if c[i])
    return f"0x{int(v):016x} {{{inner}}}"


def validate_vectors(vectors: np.ndarray, what: str) -> None:
    """Every nibble within the deck's counts and nibble 0 empty; names the first bad vector otherwise."""
    vectors = np.asarray(vectors)
    if vectors.dtype != np.uint64:
        raise InvalidInput(f"{what}: expected a uint64 array, got {vectors.dtype}")
    # One nibble at a time over the whole batch: the (N, 16) count matrix would cost seconds at a million hands.
    bad = np.zeros(vectors.shape, dtype=bool)
    for kind in range(16):
        bad |= ((vectors >> _SHIFTS[kind]) & np.uint64(15)) > MAX_COUNT[kind]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        c = unpack(vectors[i])
        kind = next(k for k in range(16) if c[k] > int(MAX_COUNT[k]))
        where = "nibble 0 (unused)" if kind == 0 else f"kind {kind} ({NAMES[kind]})"
        raise InvalidInput(f"{what}[{i}] = 0x{int(vectors[i]):016x} is not a hand: {where} has count {c[kind]}")


def validate(inputs) -> None:
    a, b = inputs["a"], inputs["b"]
    if np.shape(a) != np.shape(b):
        raise InvalidInput(f"hands and plays differ in length: {np.shape(a)} vs {np.shape(b)}")
    validate_vectors(a, "hand")
    validate_vectors(b, "play")


def validate_remove(inputs) -> None:
    validate(inputs)
    ok = reference_contains(inputs)
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise InvalidInput(
            f"remove is undefined for pair {i}: play {describe(inputs['b'][i])} "
            f"is not contained in hand {describe(inputs['a'][i])}"
        )


# -- the user-facing operations ---------------------------------------------------------------------------
def contains(a: int, b: int) -> bool:
    validate({"a": np.array([a], np.uint64), "b": np.array([b], np.uint64)})
    return all(x >= y for x, y in zip(unpack(a), unpack(b)))


def remove(a: int, b: int) -> int:
    """a - b; raises InvalidInput (never a silently corrupt vector) when b is not contained in a."""
    validate_remove({"a": np.array([a], np.uint64), "b": np.array([b], np.uint64)})
    return a - b


# -- references -------------------------------------------------------------------------------------------
def reference_contains(inputs) -> np.ndarray:
    return (counts_of(inputs["a"]) >= counts_of(inputs["b"])).all(axis=1)


def reference_remove(inputs) -> np.ndarray:
    diff = (counts_of(inputs["a"]) - counts_of(inputs["b"])).astype(np.uint64)
    return (diff << _SHIFTS).sum(axis=1, dtype=np.uint64)


# -- workloads --------------------------------------------------------------------------------------------
def deal(n: int, seed: int, failing: bool) -> dict[str, np.ndarray]:
    """n hand pairs: a real hand (17 or 20 cards of a shuffled 54-card deck) and a play.

    A play is a random subset of the hand's cards; with ``failing`` half of the plays also take one to three
    cards from outside the hand, so most of those fail contains (a card outside the hand may still be of a
    kind the hand holds enough of, as in a real game).
    """
    rng = np.random.default_rng(seed)
    a = np.empty(n, np.uint64)
    b = np.empty(n, np.uint64)
    chunk = 1 << 16
    for lo in range(0, n, chunk):
        m = min(chunk, n - lo)
        order = np.argsort(rng.random((m, 54)), axis=1)  # one shuffled deck per row
        bits = np.uint64(1) << (DECK_KINDS[order] * np.uint64(4))  # (m, 54) one card each
        hand_size = np.where(rng.random(m) < 0.5, 17, 20)[:, None]
        col = np.arange(54)[None, :]
        in_hand = col < hand_size
        keep = rng.random((m, 1)) * 0.9 + 0.05  # how much of the hand the play takes
        in_play = in_hand & (rng.random((m, 54)) < keep)
        if failing:
            extra = rng.integers(1, 4, size=(m, 1))
            outsider = (col >= hand_size) & (col < hand_size + extra) & (rng.random((m, 1)) < 0.5)
            in_play |= outsider
        a[lo : lo + m] = np.where(in_hand, bits, np.uint64(0)).sum(axis=1, dtype=np.uint64)
        b[lo : lo + m] = np.where(in_play, bits, np.uint64(0)).sum(axis=1, dtype=np.uint64)
    return {"a": a, "b": b}


def _describe_pair(inputs, i: int) -> str:
    return f"hand {describe(inputs['a'][i])}, play {describe(inputs['b'][i])}"


def _pairs(*pairs: tuple[dict, dict]) -> dict[str, np.ndarray]:
    return {
        "a": np.array([pack(x) for x, _ in pairs], np.uint64),
        "b": np.array([pack(y) for _, y in pairs], np.uint64),
    }


# The post's own examples (the post, section 0x00): A = {3:2, 4:2, 5:2} contains A and X, not Y nor Z,
# and A remove {3:1, 4:1} = {3:1, 4:1, 5:2}.
POST_A = {3: 2, 4: 2, 5: 2}
POST = "棋牌AI手记——高性能计数器, section 0x00"


def _contains_known():
    cases = [(POST_A, POST_A), (POST_A, {3: 1, 4: 1, 5: 1}), (POST_A, {4: 3, 5: 3}), (POST_A, {4: 1, 5: 1, 6: 1})]
    return [
        KnownAnswer(
            "post A contains A, X; not Y, Z", _pairs(*cases), np.array([True, True, False, False]), POST, size=4
        )
    ]


def _remove_known():
    return [
        KnownAnswer(
            "post A remove {3:1, 4:1}",
            _pairs((POST_A, {3: 1, 4: 1})),
            np.array([pack({3: 1, 4: 1, 5: 2})], np.uint64),
            POST,
            size=1,
        )
    ]


# 65,536 pairs keep the pure-Python families (seconds of list conversion at a million) inside the one-minute
# default run; the million-pair figure is measured with `swarbench run -k 'cards.*' -n 1048576`.
DEFAULT_N = 1 << 16


def _kind(failing: bool) -> WorkloadKind:
    return WorkloadKind(
        name="deals",
        build=lambda size, seed: (deal(size, seed, failing), size),
        description="dealt hands of 17 or 20 cards and plays drawn from them"
        + (", half with outside cards (most fail)" if failing else " (contains always holds)"),
        default_size=DEFAULT_N,
        test_size=256,
        bytes_per_op=600,  # inputs and outputs, plus the reference's (N, 16) count matrices
    )


CONTAINS = Kernel(
    id="cards.contains",
    description="can play b be played out of hand a: every count of a >= the count of b",
    unit="hand pair",
    workloads=(_kind(failing=True),),
    reference=reference_contains,
    known_answers=_contains_known,
    validate=validate,
    describe_input=_describe_pair,
    baseline="naive",
    source="the post 棋牌AI手记——高性能计数器",
)

REMOVE = Kernel(
    id="cards.remove",
    description="the hand left after playing b out of a: counts a - b (only where a contains b)",
    unit="hand pair",
    workloads=(_kind(failing=False),),
    reference=reference_remove,
    known_answers=_remove_known,
    validate=validate_remove,
    describe_input=_describe_pair,
    baseline="naive",
    source="the post 棋牌AI手记——高性能计数器",
)

KERNELS = (CONTAINS, REMOVE)
