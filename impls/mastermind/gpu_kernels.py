"""The CUDA scoring kernels (numba.cuda), imported only by gpu.py's prepare: importing numba.cuda looks for a
driver, and NUMBA_ENABLE_CUDASIM must be set before it is imported for the simulator to stand in.

One thread per secret; it loads its secret once and walks a strided set of guesses (grid y), writing
out[g * S + s] so neighbouring threads write neighbouring bytes. A score is SWAR on the packed words, with no
table and no branch: b by the nibble zero test and popc, all hits by a byte-wise min of the two uint64 words of
color counts (colors 0..7 and 8..15, one byte each), summed by shifts. Every constant is typed (numba turns
uint64 mixed with int64 into float64).

Whole games: count_parts splits the possible secrets of one node of the tree of score histories by every candidate
guess, one thread per candidate; the host walks the tree (spec.play_tree) and ranks the counts (jit_kernels.best_of,
in any arithmetic).
"""

import numpy as np
from numba import cuda


M7 = np.uint32(0x77777777)
LOW32 = np.uint32(0xFFFFFFFF)
H8 = np.uint64(0x8080808080808080)
BYTE = np.uint64(0xFF)
U7, U8, U16, U32 = np.uint64(7), np.uint64(8), np.uint64(16), np.uint64(32)


@cuda.jit(device=True, inline=True, cache=True)
def min_sum(a, b):
    """Sum over the 8 bytes of min(a byte, b byte); every byte is at most 8, so no byte sum overflows."""
    ge = (((a | H8) - b) & H8) >> U7  # 1 in each byte where a >= b
    mask = ge * BYTE
    low = (b & mask) | (a & ~mask)
    low += low >> U32
    low += low >> U16
    low += low >> U8
    return np.int64(low & BYTE)


@cuda.jit(device=True, inline=True, cache=True)
def score_one(s, sc0, sc1, g, gc0, gc1, unused):
    v = (s ^ g) | unused
    r = ~((((v & M7) + M7) | v) | M7) & LOW32  # the top bit of every nibble where s and g agree
    black = np.int64(cuda.popc(r))
    hits = min_sum(sc0, gc0) + min_sum(sc1, gc1)
    return (black << 4) | (hits - black)


@cuda.jit(cache=True)
def score_cross(s, sc, g, gc, unused, out):
    i = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    n = s.shape[0]
    if i >= n:
        return
    si, a0, a1 = s[i], sc[i, 0], sc[i, 1]
    for j in range(cuda.blockIdx.y, g.shape[0], cuda.gridDim.y):
        out[np.int64(j) * n + i] = score_one(si, a0, a1, g[j], gc[j, 0], gc[j, 1], unused)


@cuda.jit(cache=True)
def score_pairs(s, sc, g, gc, unused, out):
    start = cuda.grid(1)
    for i in range(start, s.shape[0], cuda.gridsize(1)):
        out[i] = score_one(s[i], sc[i, 0], sc[i, 1], g[i], gc[i, 0], gc[i, 1], unused)


# -- whole games: every candidate guess splits the possible secrets, one thread per candidate --------------------
@cuda.jit(cache=True)
def count_parts(codes, cw, poss, valid_at, unused, parts):
    """parts[g, v] = how many possible secrets guess g gives the score of index v (valid_at maps a score byte to
    its index among the scores that occur, ascending)."""
    g = cuda.grid(1)
    if g >= codes.shape[0]:
        return
    for v in range(parts.shape[1]):
        parts[g, v] = 0
    cg, g0, g1 = codes[g], cw[g, 0], cw[g, 1]
    for i in range(poss.shape[0]):
        s = poss[i]
        parts[g, valid_at[score_one(codes[s], cw[s, 0], cw[s, 1], cg, g0, g1, unused)]] += 1
