"""The talk's SWAR building blocks as kernels (Eduardo Madrid's talk "How C++ beats other languages at card games", 2019), each with a plain reference.

- ``poker.popcount``: lane popcounts of random 64-bit words at lane widths 2..64 (the talk's Catch2 table: 1021
  words of mt19937_64). Output: each lane replaced by its count (uint64[N]). One workload per width.
- ``poker.rank_counts``: a 7-card set to its 13 per-rank counts, one per nibble (uint64[N]).
- ``poker.greater_equal``: per-nibble counts to greaterEqual<N> for N = 1..4: the top bit of each lane whose
  count is >= N ((N, 4) uint64).
- ``poker.straights``: 13-bit rank masks to the mask of straight starts (bit j: ranks j..j+4 present, the ace
  also below the deuce; uint32[N]).
- ``poker.next_subset``: every k-subset of n bits in increasing order (Gosper's hack against the plain way).
- ``poker.deposit``: scatter the low bits of a value into the set bits of a mask (BMI2 pdep).
- ``poker.atoi8``: eight ASCII digits (a little-endian uint64, as read from memory) to their value.
- ``poker.strlen``: lengths of NUL-terminated strings packed in one buffer, 8-byte aligned.

Only the 4-bit lane popcount (the talk's headline) runs by default; the others run when named with --workload
(lanes2 .. lanes64, random7, 5of30, free45, random), which keeps a plain `swarbench run` short.
References are deliberately plain: loops over bits, lanes or bytes in NumPy, never the SWAR trick under test.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from swarbench.model import InvalidInput, Kernel, KnownAnswer, WorkloadKind

from .spec import DECK, TALK, describe, random_hands

WIDTHS = (2, 4, 8, 16, 32, 64)
SRC = TALK
U = np.uint64


def _words(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**64, n, dtype=np.uint64, endpoint=False)


# -- popcount lanes ----------------------------------------------------------------------------------------
def lane_popcount_reference(words: np.ndarray, width: int) -> np.ndarray:
    bits = np.unpackbits(words.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    lanes = bits.reshape(len(words), 64 // width, width).sum(axis=2).astype(np.uint64)
    shifts = (np.arange(64 // width) * width).astype(np.uint64)
    return (lanes << shifts).sum(axis=1, dtype=np.uint64)


def _popcount_kind(width: int) -> WorkloadKind:
    return WorkloadKind(
        f"lanes{width}",
        lambda n, seed: ({"words": _words(n, seed), "width": width}, n),
        f"random 64-bit words, {64 // width} lanes of {width} bits",
        default_size=1021,
        test_size=257,
        default=width == 4,
        bytes_per_op=200,
        params={"width": width},
    )


def _popcount_known():
    words = np.array([0, 2**64 - 1, 0x8000000000000001, 0x0123456789ABCDEF], np.uint64)
    out = []
    full = {
        2: 0xAAAAAAAAAAAAAAAA,
        4: 0x4444444444444444,
        8: 0x0808080808080808,
        16: 0x0010001000100010,
        32: 0x0000002000000020,
        64: 64,
    }
    for w in WIDTHS:
        expected = lane_popcount_reference(words, w)
        assert int(expected[1]) == full[w]  # every lane full: its count is its width
        out.append(
            KnownAnswer(
                f"{w}-bit lanes of 0, ~0, 0x8000000000000001, 0x0123456789ABCDEF",
                {"words": words, "width": w},
                expected,
                "hand-checked",
                size=len(words),
            )
        )
    return out


POPCOUNT = Kernel(
    id="poker.popcount",
    description="popcount of every lane of a 64-bit word, at lane widths 2..64 bits",
    unit="word",
    workloads=tuple(_popcount_kind(w) for w in WIDTHS),
    reference=lambda inp: lane_popcount_reference(inp["words"], inp["width"]),
    known_answers=_popcount_known,
    describe_input=lambda inp, i: f"0x{int(inp['words'][i]):016x}",
    baseline="naive",
    source=SRC,
)


# -- rank counts and greaterEqual<N> ----------------------------------------------------------------------
def rank_counts_reference(hands: np.ndarray) -> np.ndarray:
    bits = ((hands[:, None] >> np.arange(52, dtype=np.uint64)) & U(1)).reshape(len(hands), 13, 4)
    counts = bits.sum(axis=2).astype(np.uint64)
    return (counts << (np.arange(13, dtype=np.uint64) * U(4))).sum(axis=1, dtype=np.uint64)


def _validate_cards(inp):
    bad = np.flatnonzero(inp["hands"] & ~U(DECK))
    if bad.size:
        raise InvalidInput(f"hand[{int(bad[0])}] = 0x{int(inp['hands'][bad[0]]):x} has bits above the 52 cards")


RANK_COUNTS = Kernel(
    id="poker.rank_counts",
    description="card set to 13 rank counts, one per nibble",
    unit="hand",
    workloads=(
        WorkloadKind(
            "random7",
            lambda n, seed: ({"hands": random_hands(n, seed)}, n),
            "uniformly random 7-card hands",
            default_size=1 << 14,
            test_size=300,
            bytes_per_op=600,
            default=False,
        ),
    ),
    reference=lambda inp: rank_counts_reference(inp["hands"]),
    validate=_validate_cards,
    known_answers=lambda: [
        KnownAnswer(
            "four aces and a pair of deuces",
            {"hands": np.array([(0xF << 48) | 0x3 | (1 << 20)], np.uint64)},
            np.array([(4 << 48) | (1 << 20) | 2], np.uint64),
            "spec",
        )
    ],
    describe_input=lambda inp, i: describe(inp["hands"][i]),
    baseline="naive",
    source=SRC,
)


def greater_equal_reference(counts: np.ndarray) -> np.ndarray:
    lanes = (counts[:, None] >> (np.arange(16, dtype=np.uint64) * U(4))) & U(15)  # (N, 16)
    out = np.empty((len(counts), 4), np.uint64)
    for k in range(1, 5):
        top = (lanes >= U(k)).astype(np.uint64) << (np.arange(16, dtype=np.uint64) * U(4) + U(3))
        out[:, k - 1] = top.sum(axis=1, dtype=np.uint64)
    return out


def _counts_inputs(n, seed):
    return {"counts": rank_counts_reference(random_hands(n, seed))}


def _validate_counts(inp):
    lanes = (inp["counts"][:, None] >> (np.arange(16, dtype=np.uint64) * U(4))) & U(15)
    bad = np.flatnonzero((lanes > U(7)).any(axis=1))
    if bad.size:
        raise InvalidInput(
            f"counts[{int(bad[0])}] = 0x{int(inp['counts'][bad[0]]):x} has a lane above 7 "
            "(greaterEqual borrows across lanes from the top bit)"
        )


GREATER_EQUAL = Kernel(
    id="poker.greater_equal",
    description="greaterEqual<N>, N = 1..4, on 13 nibble counts",
    unit="word",
    workloads=(
        WorkloadKind(
            "random7",
            lambda n, seed: (_counts_inputs(n, seed), n),
            "rank counts of uniformly random 7-card hands",
            default_size=1 << 14,
            test_size=300,
            bytes_per_op=800,
            default=False,
        ),
    ),
    reference=lambda inp: greater_equal_reference(inp["counts"]),
    validate=_validate_counts,
    describe_input=lambda inp, i: f"counts 0x{int(inp['counts'][i]):013x}",
    baseline="naive",
    source=SRC,
)


# -- straights -------------------------------------------------------------------------------------------
def straights_reference(masks: np.ndarray) -> np.ndarray:
    m = masks.astype(np.int64)
    present = np.stack([(m >> 12) & 1] + [(m >> r) & 1 for r in range(13)], axis=1)  # ace low, then 2..A
    out = np.zeros(len(m), np.int64)
    for j in range(10):
        out |= present[:, j : j + 5].all(axis=1).astype(np.int64) << j
    return out.astype(np.uint32)


def _rank_masks(n, seed):
    hands = random_hands(n, seed)
    bits = ((hands[:, None] >> (np.arange(13, dtype=np.uint64) * U(4))) & U(15)) > 0
    return {"masks": (bits * (1 << np.arange(13))).sum(axis=1).astype(np.uint32)}


STRAIGHTS = Kernel(
    id="poker.straights",
    description="13-bit rank mask to the starts of its straights (ace also low)",
    unit="mask",
    workloads=(
        WorkloadKind(
            "random7",
            lambda n, seed: (_rank_masks(n, seed), n),
            "rank masks of uniformly random 7-card hands",
            default_size=1 << 14,
            test_size=300,
            bytes_per_op=400,
            default=False,
        ),
    ),
    reference=lambda inp: straights_reference(inp["masks"]),
    known_answers=lambda: [
        KnownAnswer(
            "wheel, broadway, 2-to-7, none",
            {"masks": np.array([0x100F, 0x1F00, 0x3F, 0x1555], np.uint32)},
            np.array([1, 1 << 9, 0b110, 0], np.uint32),
            "spec",
        )
    ],
    describe_input=lambda inp, i: f"ranks 0b{int(inp['masks'][i]):013b}",
    baseline="naive",
    source=SRC,
)


# -- next subset -------------------------------------------------------------------------------------------
def subsets_reference(n: int, k: int) -> np.ndarray:
    combos = np.array(list(itertools.combinations(range(n), k)), np.uint64)
    values = (U(1) << combos).sum(axis=1, dtype=np.uint64)
    return np.sort(values)


def _subset_inputs(n, k):
    if not 0 < k <= n <= 63:
        raise InvalidInput(f"subsets of {k} of {n}: need 0 < k <= n <= 63")
    return {"n": n, "k": k}


NEXT_SUBSET = Kernel(
    id="poker.next_subset",
    description="every k-subset of n bits in increasing order",
    unit="subset",
    workloads=(
        WorkloadKind(
            "5of30",
            lambda size, seed: (_subset_inputs(30, 5), math.comb(30, 5)),
            "all 142,506 five-subsets of 30 bits",
            default_size=math.comb(30, 5),
            fixed_size=True,
            bytes_per_op=200,
            default=False,
        ),
        WorkloadKind(
            "2of45",
            lambda size, seed: (_subset_inputs(45, 2), 990),
            "the 990 opponent hands of the talk (2 of 45)",
            default_size=990,
            fixed_size=True,
            default=False,
            bytes_per_op=200,
        ),
    ),
    reference=lambda inp: subsets_reference(inp["n"], inp["k"]),
    known_answers=lambda: [
        KnownAnswer("2 of 4", {"n": 4, "k": 2}, np.array([3, 5, 6, 9, 10, 12], np.uint64), "hand-checked", size=6)
    ],
    describe_input=lambda inp, i: f"subset #{i} of {inp['k']} of {inp['n']}",
    baseline="naive",
    source=SRC,
)


# -- deposit ------------------------------------------------------------------------------------------------
def deposit_reference(values: np.ndarray, masks: np.ndarray) -> np.ndarray:
    out = np.zeros(len(values), np.uint64)
    taken = np.zeros(len(values), np.uint64)  # how many mask bits were used so far
    for b in range(64):
        bit = (masks >> U(b)) & U(1)
        src = (values >> taken) & U(1)
        out |= (src & bit) << U(b)
        taken += bit
    return out


def _deposit_inputs(n, seed):
    rng = np.random.default_rng(seed)
    hands = random_hands(n, seed, 7)
    return {"masks": (~hands) & U(DECK), "values": rng.integers(0, 2**45, n, dtype=np.uint64)}


DEPOSIT = Kernel(
    id="poker.deposit",
    description="pdep: the low bits of a value into the set bits of a mask",
    unit="word",
    workloads=(
        WorkloadKind(
            "free45",
            lambda n, seed: (_deposit_inputs(n, seed), n),
            "45-bit values into the 45 free cards of a 7-card deal",
            default_size=1 << 14,
            test_size=300,
            bytes_per_op=400,
            default=False,
        ),
    ),
    reference=lambda inp: deposit_reference(inp["values"], inp["masks"]),
    known_answers=lambda: [
        KnownAnswer(
            "0b101 into 0b11010",
            {"values": np.array([5], np.uint64), "masks": np.array([0b11010], np.uint64)},
            np.array([0b10010], np.uint64),
            "hand-checked",
        )
    ],
    describe_input=lambda inp, i: f"value 0x{int(inp['values'][i]):x} mask 0x{int(inp['masks'][i]):x}",
    baseline="naive",
    source=SRC,
)


# -- atoi8 ---------------------------------------------------------------------------------------------------
def digits_word(text: str) -> int:
    if len(text) != 8 or not text.isdigit():
        raise InvalidInput(f"{text!r} is not eight ASCII digits")
    return int.from_bytes(text.encode(), "little")


def atoi8_reference(words: np.ndarray) -> np.ndarray:
    digits = words.astype("<u8").view(np.uint8).reshape(-1, 8).astype(np.int64) - 48
    return (digits * (10 ** np.arange(7, -1, -1))).sum(axis=1).astype(np.uint32)


def _atoi_inputs(n, seed):
    values = np.random.default_rng(seed).integers(0, 10**8, n)
    text = "".join(f"{v:08d}" for v in values).encode()
    return {"words": np.frombuffer(text, "<u8").astype(np.uint64)}


def _validate_atoi(inp):
    b = inp["words"].astype("<u8").view(np.uint8).reshape(-1, 8)
    bad = np.flatnonzero(((b < 48) | (b > 57)).any(axis=1))
    if bad.size:
        raise InvalidInput(f"word[{int(bad[0])}] {bytes(b[bad[0]])!r} is not eight ASCII digits")


ATOI8 = Kernel(
    id="poker.atoi8",
    description="eight ASCII digits to their value",
    unit="number",
    workloads=(
        WorkloadKind(
            "random",
            lambda n, seed: (_atoi_inputs(n, seed), n),
            "uniform 8-digit numbers",
            default_size=1 << 14,
            test_size=300,
            bytes_per_op=300,
            default=False,
        ),
    ),
    reference=lambda inp: atoi8_reference(inp["words"]),
    validate=_validate_atoi,
    known_answers=lambda: [
        KnownAnswer(
            "12345678, 00000000, 99999999",
            {"words": np.array([digits_word(t) for t in ("12345678", "00000000", "99999999")], np.uint64)},
            np.array([12345678, 0, 99999999], np.uint32),
            "hand-checked",
            size=3,
        )
    ],
    describe_input=lambda inp, i: repr(int(inp["words"][i]).to_bytes(8, "little")),
    baseline="naive",
    source=SRC,
)


# -- strlen -------------------------------------------------------------------------------------------------
def pack_strings(strings: list[bytes]) -> dict:
    """Strings at 8-byte aligned offsets, each NUL-terminated; the gap after the NUL is filled with non-zero
    bytes (a word-at-a-time strlen must stop at the NUL, not at the end of the slot), plus 8 bytes of tail."""
    offsets, parts, pos = [], [], 0
    for s in strings:
        if 0 in s:
            raise InvalidInput(f"string {s[:20]!r} holds a NUL byte")
        slot = (len(s) + 1 + 7) // 8 * 8
        parts.append(s + b"\0" + b"\xff" * (slot - len(s) - 1))
        offsets.append(pos)
        pos += slot
    buf = np.frombuffer(b"".join(parts) + b"\xff" * 8, np.uint8).copy()
    return {"buffer": buf, "offsets": np.array(offsets, np.int64)}


def strlen_reference(inp) -> np.ndarray:
    buf = inp["buffer"]
    zeros = np.flatnonzero(buf == 0)
    return (zeros[np.searchsorted(zeros, inp["offsets"])] - inp["offsets"]).astype(np.int64)


def _strings(n, seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 64, n)
    return pack_strings([bytes(rng.integers(1, 256, k, dtype=np.uint8)) for k in lengths])


STRLEN = Kernel(
    id="poker.strlen",
    description="lengths of NUL-terminated strings (8-byte aligned)",
    unit="string",
    workloads=(
        WorkloadKind(
            "random",
            lambda n, seed: (_strings(n, seed), n),
            "random strings of 0..63 bytes",
            default_size=1 << 12,
            test_size=300,
            bytes_per_op=400,
            default=False,
        ),
    ),
    reference=strlen_reference,
    known_answers=lambda: [
        KnownAnswer(
            "'', 'a', 'seven77', 'eight888'",
            pack_strings([b"", b"a", b"seven77", b"eight888"]),
            np.array([0, 1, 7, 8], np.int64),
            "hand-checked",
            size=4,
        )
    ],
    describe_input=lambda inp, i: f"string at offset {int(inp['offsets'][i])}",
    baseline="naive",
    source=SRC,
)

KERNELS = [POPCOUNT, RANK_COUNTS, GREATER_EQUAL, STRAIGHTS, NEXT_SUBSET, DEPOSIT, ATOI8, STRLEN]
