"""NumPy family: whole rows at once. b by the nibble zero test and ``np.bitwise_count``; all hits by a SWAR
byte-wise min of the color counts held in two uint64 words per codeword, summed by one multiply.

About 100 ns a score here (a dozen uint64 temporaries per score), so it declines batches over ``MAX_OPS`` with
TooSlow: 5p8c all pairs (1.07e9 scores) would take nearly two minutes a call, checked and timed at least twice."""

import numpy as np

from swarbench.memory import as_aligned
from swarbench.model import Implementation, TooSlow

from .spec import color_counts

M7 = np.uint32(0x77777777)
H8 = np.uint64(0x8080808080808080)
ONES8 = np.uint64(0x0101010101010101)
ROW_BLOCK = 1 << 16  # scores computed per NumPy expression
MAX_OPS = 1 << 27  # about 13 s a call at 100 ns a score


def count_words(codes: np.ndarray, pins: int) -> np.ndarray:
    """(N, 2) uint64: colors 0..7 in the first word, 8..15 in the second, one byte each."""
    return as_aligned(color_counts(codes, pins)).view(np.uint64).reshape(-1, 2)


def _score(s, sc, g, gc, unused):
    """Arrays broadcast together: codewords s, g and their count words sc, gc (last axis 2)."""
    v = (s ^ g) | unused
    black = np.bitwise_count(~((((v & M7) + M7) | v) | M7)).astype(np.uint8)
    ge = (((sc | H8) - gc) & H8) >> np.uint64(7)
    mask = ge * np.uint64(0xFF)
    low = (gc & mask) | (sc & ~mask)
    hits = ((low * ONES8) >> np.uint64(56)).astype(np.uint8).sum(axis=-1, dtype=np.uint8)
    return (black << np.uint8(4)) | (hits - black)


def _prepare(workload):
    if workload.size > MAX_OPS:
        raise TooSlow(
            f"NumPy SWAR takes about 100 ns a score (a dozen uint64 temporaries each); {workload.size:,} "
            f"scores is over its limit of {MAX_OPS:,} (about 13 s a call)"
        )
    inp = workload.inputs
    p, s, g = inp["pins"], inp["secrets"], inp["guesses"]
    unused = np.uint32((0xFFFFFFFF << (4 * p)) & 0xFFFFFFFF)
    sc, gc = count_words(s, p), count_words(g, p)
    if inp["cross"]:
        out = np.empty((len(g), len(s)), np.uint8)
        rows = max(1, ROW_BLOCK // max(len(s), 1))

        def batch():
            for lo in range(0, len(g), rows):
                hi = min(lo + rows, len(g))
                out[lo:hi] = _score(s[None, :], sc[None, :, :], g[lo:hi, None], gc[lo:hi, None, :], unused)
            return out.ravel()
    else:
        out = np.empty(len(s), np.uint8)

        def batch():
            for lo in range(0, len(s), ROW_BLOCK):
                hi = lo + ROW_BLOCK
                out[lo:hi] = _score(s[lo:hi], sc[lo:hi], g[lo:hi], gc[lo:hi], unused)
            return out

    return batch


IMPLEMENTATIONS = [
    Implementation(
        "mastermind.score",
        "numpy-swar",
        "numpy",
        _prepare,
        description="whole rows: nibble zero test + bitwise_count, SWAR byte min of uint64 counts",
    ),
]
