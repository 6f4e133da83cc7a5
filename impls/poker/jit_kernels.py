"""The numba kernels behind jit.py, each a module-level function compiled with ``cache=True``.

Why module level: numba keys a cached function on its bytecode and, for a closure, on its pickled closure cells.
A jitted function pickles with a uuid drawn afresh in every process, so a closure that calls another jitted
function gets a new key, and misses the cache, in every process (so does a function that takes a jitted function
as an argument: its type names the function's address). Here jitted functions call each other as globals, so each
is compiled once per machine and loaded from ``__pycache__`` by every later worker; the cache is invalidated when
this file changes. Globals are frozen into the compiled code: the constants below, and the 8,192-entry rank-mask
tables of vectorized.py (fixed functions of a 13-bit mask: top bit, top k bits, best straight, popcount).

Importing this module imports numba; jit.py imports it from ``prepare`` only. Every constant is a np.uint64 so
numba never mixes signed and unsigned (which it would do in float64).
"""

from __future__ import annotations

import numba
import numpy as np

from .spec import DECK as _DECK
from .spec import NIBBLE_LOW
from .vectorized import KEEP, POP, STRAIGHT, TOP

U = np.uint64
NIB, HIB, DECK = U(NIBBLE_LOW), U(NIBBLE_LOW << 3), U(_DECK)
M55, M33, M0F = U(0x5555555555555555), U(0x3333333333333333), U(0x0F0F0F0F0F0F0F0F)
M8, M16, M32 = U(0x00FF00FF00FF00FF), U(0x0000FFFF0000FFFF), U(0x00000000FFFFFFFF)
G1, G2, G3, G4 = U(0x0303030303030303), U(0x000F000F000F000F), U(0x000000FF000000FF), U(0xFFFF)
ONES4, TOPS4 = U(0x1111111111111111), U(0x8888888888888888)  # every nibble's low bit, every nibble's top bit
ONES8, TOPS8, ZERO8 = U(0x0101010101010101), U(0x8080808080808080), U(0x3030303030303030)
S1, S2, S3, S4, S6, S7, S8 = U(1), U(2), U(3), U(4), U(6), U(7), U(8)
S12, S16, S24, S32, S48, S56 = U(12), U(16), U(24), U(32), U(48), U(56)

INLINE = dict(cache=True, inline="always")
JIT = dict(cache=True, nogil=True)
PAR = dict(cache=True, nogil=True, parallel=True)


# -- the evaluator ------------------------------------------------------------------------------------------
@numba.njit(**INLINE)
def gather(x):
    """nibble bits (bit 4r) gathered to bit r"""
    x = (x | (x >> S3)) & G1
    x = (x | (x >> S6)) & G2
    x = (x | (x >> S12)) & G3
    return np.int64((x | (x >> S24)) & G4)


@numba.njit(**INLINE)
def rank_counts(h):
    """the first two levels of the SWAR popcount: each rank nibble holds its count"""
    c = h - ((h >> S1) & M55)
    return (c & M33) + ((c >> S2) & M33)


@numba.njit(**INLINE)
def flush_code(fm):
    st = STRAIGHT[fm]
    if st >= 0:
        return (8 << 28) | (1 << st)
    return (5 << 28) | KEEP[5, fm]


@numba.njit(**INLINE)
def rank_by_counts(c):
    """the code of a hand without a flush, from its rank counts: greaterEqual<N> decides the category"""
    v = c | HIB
    ranks = gather(((v - NIB) & HIB) >> S3)
    g2 = (v - U(2) * NIB) & HIB
    if g2:
        g3 = (v - U(3) * NIB) & HIB
        if g3:
            g4 = (v - U(4) * NIB) & HIB
            if g4:
                q = TOP[gather(g4 >> S3)]
                return (7 << 28) | ((1 << q) << 14) | KEEP[1, ranks & ~(1 << q)]
            t = TOP[gather(g3 >> S3)]
            pairs = gather(g2 >> S3) & ~(1 << t)
            if pairs:
                return (6 << 28) | ((1 << t) << 14) | (1 << TOP[pairs])
            st = STRAIGHT[ranks]
            if st >= 0:
                return (4 << 28) | (1 << st)
            return (3 << 28) | ((1 << t) << 14) | KEEP[2, ranks & ~(1 << t)]
        st = STRAIGHT[ranks]
        if st >= 0:
            return (4 << 28) | (1 << st)
        pm = gather(g2 >> S3)
        if POP[pm] >= 2:
            pm = KEEP[2, pm]
            return (2 << 28) | (pm << 14) | KEEP[1, ranks & ~pm]
        return (1 << 28) | (pm << 14) | KEEP[3, ranks & ~pm]
    st = STRAIGHT[ranks]
    if st >= 0:
        return (4 << 28) | (1 << st)
    return KEEP[5, ranks]


@numba.njit(**INLINE)
def rank7(h):
    for s in range(4):
        stripe = (h >> U(s)) & NIB
        if ((stripe * NIB) >> S48) & U(15) >= U(5):
            return flush_code(gather(stripe))
    return rank_by_counts(rank_counts(h))


@numba.njit(**JIT)
def rank_batch(hands, out):
    for i in range(hands.shape[0]):
        out[i] = rank7(hands[i])
    return out


@numba.njit(**PAR)
def rank_batch_prange(hands, out):
    for i in numba.prange(hands.shape[0]):
        out[i] = rank7(hands[i])
    return out


@numba.njit(**PAR)
def categories7(threads, top):
    """all 7-card hands of the cards below ``top`` (52: the deck): counts per category, and a bitmap of codes
    per thread (no two threads write one)"""
    counts = np.zeros((threads, 9), np.int64)
    seen = np.zeros((threads, (9 << 26) >> 3), np.uint8)
    for th in numba.prange(threads):
        for a in range(6 + th, top, threads):
            ha = U(1) << U(a)
            for b in range(5, a):
                hb = ha | (U(1) << U(b))
                for c in range(4, b):
                    hc = hb | (U(1) << U(c))
                    for d in range(3, c):
                        hd = hc | (U(1) << U(d))
                        for e in range(2, d):
                            he = hd | (U(1) << U(e))
                            for f in range(1, e):
                                hf = he | (U(1) << U(f))
                                for g in range(f):
                                    code = rank7(hf | (U(1) << U(g)))
                                    cat = code >> 28
                                    counts[th, cat] += 1
                                    idx = (cat << 26) | ((code >> 1) & (0x1FFF << 13)) | (code & 0x1FFF)
                                    seen[th, idx >> 3] |= np.uint8(1 << (idx & 7))
    out = np.zeros(10, np.int64)
    for k in range(9):
        out[k] = counts[:, k].sum()
    distinct = 0
    for i in range(seen.shape[1]):
        byte = 0
        for th in range(threads):
            byte |= seen[th, i]
        while byte:
            byte &= byte - 1
            distinct += 1
    out[9] = distinct
    return out


# -- equity: the talk's method, hoisted ----------------------------------------------------------------------
@numba.njit(**JIT)
def hoisted_boards(hero, boards, lo, hi, nib, rbit):
    """boards[lo:hi], the talk's way: the hero ranked once per board, then each of the 990 opponent hands
    classified, each from the board's rank counts plus its two rank nibbles; a flush is looked for only when the
    board holds three cards of one suit (at most one suit can) and the two hole cards bring it to five.
    ``nib`` and ``rbit`` are scratch rows (45 used) for each free card's rank nibble and, when it is of the
    board's three-card suit, its rank bit."""
    w = 0
    t = 0
    lose = 0
    for i in range(lo, hi):
        board = boards[i]
        dead = hero | board
        mine = rank7(dead)
        bc = rank_counts(board)
        fsuit = -1
        bsuit = 0
        for s in range(4):
            k = np.int64(((((board >> U(s)) & NIB) * NIB) >> S48) & U(15))
            if k >= 3:
                fsuit, bsuit = s, k
        bmask = gather((board >> U(max(fsuit, 0))) & NIB) if fsuit >= 0 else 0
        nf = 0
        for c in range(52):
            if not (dead >> U(c)) & U(1):
                nib[nf] = U(1) << U(c & ~3)
                rbit[nf] = 1 << (c >> 2) if (c & 3) == fsuit else 0
                nf += 1
        for a in range(1, nf):
            ca = bc + nib[a]
            ra = rbit[a]
            sa = bsuit + (1 if ra else 0)
            for b in range(a):
                if sa + (1 if rbit[b] else 0) >= 5:
                    theirs = flush_code(bmask | ra | rbit[b])
                else:
                    theirs = rank_by_counts(ca + nib[b])
                if mine > theirs:
                    w += 1
                elif mine == theirs:
                    t += 1
                else:
                    lose += 1
    return w, t, lose


@numba.njit(**JIT)
def equity_hoisted(hero, boards, nib, rbit):
    """one thread, a plain loop: no thread pool is woken and nothing is reduced across threads"""
    return hoisted_boards(hero, boards, np.int64(0), boards.shape[0], nib[0], rbit[0])  # no literal: one compile


@numba.njit(**PAR)
def equity_hoisted_prange(hero, boards, nib, rbit):
    """the boards in one slice per scratch row, the slices spread over numba's threads by prange; the three
    counts are prange reductions"""
    chunks, n = nib.shape[0], boards.shape[0]
    w = 0
    t = 0
    lose = 0
    for c in numba.prange(chunks):
        bw, bt, bl = hoisted_boards(hero, boards, n * c // chunks, n * (c + 1) // chunks, nib[c], rbit[c])
        w += bw
        t += bt
        lose += bl
    return w, t, lose


# -- the talk's building blocks (blocks.py), batch loops over uint64 arrays ----------------------------------
@numba.njit(**INLINE)
def lanes(x, width):
    """the levels of the SWAR popcount, stopping at the lane width"""
    x = x - ((x >> S1) & M55)
    if width == 2:
        return x
    x = (x & M33) + ((x >> S2) & M33)
    if width == 4:
        return x
    x = (x + (x >> S4)) & M0F
    if width == 8:
        return x
    x = (x + (x >> S8)) & M8
    if width == 16:
        return x
    x = (x + (x >> S16)) & M16
    if width == 32:
        return x
    return (x + (x >> S32)) & M32


@numba.njit(**INLINE)
def lanes_loop(words, out, width):
    for i in range(words.shape[0]):
        out[i] = lanes(words[i], width)


@numba.njit(**JIT)
def popcount_lanes(words, out, width):
    """one loop per width, each compiled with the width a literal, so its levels are fixed"""
    if width == 2:
        lanes_loop(words, out, 2)
    elif width == 4:
        lanes_loop(words, out, 4)
    elif width == 8:
        lanes_loop(words, out, 8)
    elif width == 16:
        lanes_loop(words, out, 16)
    elif width == 32:
        lanes_loop(words, out, 32)
    else:
        lanes_loop(words, out, 64)
    return out


@numba.njit(**JIT)
def greater_equal(counts, out):
    """greaterEqual<N>, N = 1..4: set every lane's top bit, subtract N from every lane, keep the top bits"""
    for i in range(counts.shape[0]):
        v = counts[i] | TOPS4
        out[i, 0] = (v - ONES4) & TOPS4
        out[i, 1] = (v - U(2) * ONES4) & TOPS4
        out[i, 2] = (v - U(3) * ONES4) & TOPS4
        out[i, 3] = (v - U(4) * ONES4) & TOPS4
    return out


@numba.njit(**JIT)
def straights_chain(masks, out):
    """runs of 2, then of 4, then of 5: three shift-AND pairs (the ace rotated in below the deuce)"""
    for i in range(masks.shape[0]):
        m = np.uint32(masks[i])
        x = (m << np.uint32(1)) | (m >> np.uint32(12))
        s = x & (x >> np.uint32(1))
        s &= s >> np.uint32(2)
        out[i] = s & (x >> np.uint32(4))
    return out


@numba.njit(**JIT)
def straights_shift5(masks, out):
    for i in range(masks.shape[0]):
        m = np.uint32(masks[i])
        x = (m << np.uint32(1)) | (m >> np.uint32(12))
        out[i] = x & (x >> np.uint32(1)) & (x >> np.uint32(2)) & (x >> np.uint32(3)) & (x >> np.uint32(4))
    return out


@numba.njit(**JIT)
def subsets_gosper(n, k, out):
    """every k-subset of n bits in increasing order by Gosper's hack; returns how many were written"""
    x = (U(1) << U(k)) - U(1)
    stop = U(1) << U(n)
    m = 0
    while x < stop and m < out.shape[0]:
        out[m] = x
        m += 1
        c = x & (~x + U(1))  # the lowest set bit
        r = x + c
        x = (((r ^ x) >> S2) // c) | r
    return m


@numba.njit(**JIT)
def deposit_loop(values, masks, out):
    """pdep without BMI2: one step per set bit of the mask"""
    for i in range(values.shape[0]):
        m = masks[i]
        v = values[i]
        r = U(0)
        bit = U(1)
        while m:
            low = m & (~m + U(1))
            if v & bit:
                r |= low
            m ^= low
            bit <<= S1
        out[i] = r
    return out


@numba.njit(**JIT)
def atoi8(words, out):
    """eight digits, most significant in the lowest byte: pairs, quads, then the eight, by multiply-add-mask"""
    for i in range(words.shape[0]):
        x = words[i] - ZERO8
        x = (x * U(10) + (x >> S8)) & M8
        x = (x * U(100) + (x >> S16)) & M16
        out[i] = np.uint32((x * U(10000) + (x >> S32)) & M32)
    return out


@numba.njit(**INLINE)
def zero_byte(w):
    """the index of the lowest zero byte of w, or 8: the top bit of each zero byte is set by
    (w - 0x01..) & ~w & 0x80.. (exact for the lowest one), and the full bytes below it are counted by one
    multiplication"""
    z = (w - ONES8) & ~w & TOPS8
    if not z:
        return 8
    z >>= S7
    below = (z & (~z + U(1))) - U(1)
    return np.int64(((below & ONES8) * ONES8) >> S56)


@numba.njit(**JIT)
def strlen_words(buf, words, offsets, out):
    """each string's length: byte by byte up to a word boundary, then a word at a time by the zero-byte test;
    ``words`` is ``buf`` (zero padded to whole words) viewed as uint64"""
    for i in range(offsets.shape[0]):
        p = offsets[i]
        k = p
        while k & 7 and buf[k]:
            k += 1
        if not k & 7:
            j = k >> 3
            z = zero_byte(words[j])
            while z == 8:
                j += 1
                z = zero_byte(words[j])
            k = (j << 3) + z
        out[i] = k - p
    return out


# -- poker.versus: given hands against each other --------------------------------------------------------------
LCM = 2520  # versus.LCM: a pot split w ways gives each winner LCM // w units


@numba.njit(**INLINE)
def versus_score(hands, board, acc, codes):
    best, ways = np.uint64(0), 0
    for p in range(hands.shape[0]):
        c = U(rank7(hands[p] | board))
        codes[p] = c
        if c > best:
            best, ways = c, 1
        elif c == best:
            ways += 1
    for p in range(hands.shape[0]):
        if codes[p] == best:
            acc[p, 0 if ways == 1 else 1] += 1
            acc[p, 2] += LCM // ways


@numba.njit(**JIT)
def versus_boards(hands, boards, acc):
    codes = np.zeros(hands.shape[0], np.uint64)
    for i in range(boards.shape[0]):
        versus_score(hands, boards[i], acc, codes)
    return acc


@numba.njit(**INLINE)
def versus_free(hands, known):
    used = known
    for p in range(hands.shape[0]):
        used |= hands[p]
    bits = np.zeros(52, np.uint64)
    n = 0
    for c in range(52):
        if not (used >> U(c)) & S1:
            bits[n] = S1 << U(c)
            n += 1
    return bits[:n]


@numba.njit(**INLINE)
def versus_walk(hands, board, bits, start, need, acc, codes):
    """every completion of ``board`` by ``need`` of bits[start:], in increasing order of the indices"""
    if need == 0:
        versus_score(hands, board, acc, codes)
        return
    idx = np.arange(start, start + need)
    last = bits.shape[0] - need
    while True:
        b = board
        for j in range(need):
            b |= bits[idx[j]]
        versus_score(hands, b, acc, codes)
        i = need - 1
        while i >= 0 and idx[i] == last + i:
            i -= 1
        if i < 0:
            return
        idx[i] += 1
        for j in range(i + 1, need):
            idx[j] = idx[j - 1] + 1


@numba.njit(**INLINE)
def versus_need(known):
    n = 0
    x = known
    while x:
        x &= x - S1
        n += 1
    return 5 - n


@numba.njit(**JIT)
def versus_all(hands, known, acc):
    bits = versus_free(hands, known)
    codes = np.zeros(hands.shape[0], np.uint64)
    versus_walk(hands, known, bits, 0, versus_need(known), acc, codes)
    return acc


@numba.njit(**PAR)
def versus_all_prange(hands, known, acc):
    """the first board card dealt out over the threads, one accumulator row per first card"""
    bits = versus_free(hands, known)
    need = versus_need(known)
    if need == 0:
        codes = np.zeros(hands.shape[0], np.uint64)
        versus_score(hands, known, acc, codes)
        return acc
    firsts = bits.shape[0] - need + 1
    rows = np.zeros((firsts, hands.shape[0], 3), np.int64)
    for i in numba.prange(firsts):
        codes = np.zeros(hands.shape[0], np.uint64)
        versus_walk(hands, known | bits[i], bits, i + 1, need - 1, rows[i], codes)
    for i in range(firsts):
        acc += rows[i]
    return acc
