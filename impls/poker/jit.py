"""Numba family: the SWAR evaluator compiled to machine code; ``prange`` spreads batches and boards over cores.

numba is imported inside the builder (called from ``prepare``), and the first compile happens there on a tiny
input, never inside the timed call. Every constant is a np.uint64 so numba never mixes signed and unsigned
(which it would do in float64).
"""
from __future__ import annotations

import numpy as np

from harness.model import Implementation, TooSlow

from .spec import NIBBLE_LOW
from .vectorized import KEEP, POP, STRAIGHT, TOP

_compiled: dict = {}


def kernels():
    if _compiled:
        return _compiled
    import numba

    U = np.uint64
    NIB, HIB = U(NIBBLE_LOW), U(NIBBLE_LOW << 3)
    M55, M33 = U(0x5555555555555555), U(0x3333333333333333)
    G1, G2, G3, G4 = U(0x0303030303030303), U(0x000F000F000F000F), U(0x000000FF000000FF), U(0xFFFF)
    S3, S6, S12, S24, S48, S1, S2 = U(3), U(6), U(12), U(24), U(48), U(1), U(2)
    top_t, keep_t, straight_t, pop_t = TOP, KEEP, STRAIGHT, POP

    @numba.njit(inline="always")
    def gather(x):
        x = (x | (x >> S3)) & G1
        x = (x | (x >> S6)) & G2
        x = (x | (x >> S12)) & G3
        return np.int64((x | (x >> S24)) & G4)

    @numba.njit(inline="always")
    def rank_by_counts(c):
        v = c | HIB
        ranks = gather(((v - NIB) & HIB) >> S3)
        g2 = (v - U(2) * NIB) & HIB
        if g2:
            g3 = (v - U(3) * NIB) & HIB
            if g3:
                g4 = (v - U(4) * NIB) & HIB
                if g4:
                    q = top_t[gather(g4 >> S3)]
                    return (7 << 28) | ((1 << q) << 14) | keep_t[1, ranks & ~(1 << q)]
                t = top_t[gather(g3 >> S3)]
                pairs = gather(g2 >> S3) & ~(1 << t)
                if pairs:
                    return (6 << 28) | ((1 << t) << 14) | (1 << top_t[pairs])
                st = straight_t[ranks]
                if st >= 0:
                    return (4 << 28) | (1 << st)
                return (3 << 28) | ((1 << t) << 14) | keep_t[2, ranks & ~(1 << t)]
            st = straight_t[ranks]
            if st >= 0:
                return (4 << 28) | (1 << st)
            pm = gather(g2 >> S3)
            if pop_t[pm] >= 2:
                pm = keep_t[2, pm]
                return (2 << 28) | (pm << 14) | keep_t[1, ranks & ~pm]
            return (1 << 28) | (pm << 14) | keep_t[3, ranks & ~pm]
        st = straight_t[ranks]
        if st >= 0:
            return (4 << 28) | (1 << st)
        return keep_t[5, ranks]

    @numba.njit(inline="always")
    def rank7(h):
        for s in range(4):
            stripe = (h >> U(s)) & NIB
            if ((stripe * NIB) >> S48) & U(15) >= U(5):
                fm = gather(stripe)
                st = straight_t[fm]
                if st >= 0:
                    return (8 << 28) | (1 << st)
                return (5 << 28) | keep_t[5, fm]
        c = h - ((h >> S1) & M55)
        c = (c & M33) + ((c >> S2) & M33)
        return rank_by_counts(c)

    @numba.njit(nogil=True)
    def rank_batch(hands, out):
        for i in range(hands.shape[0]):
            out[i] = rank7(hands[i])
        return out

    @numba.njit(nogil=True, parallel=True)
    def rank_batch_par(hands, out):
        for i in numba.prange(hands.shape[0]):
            out[i] = rank7(hands[i])
        return out

    @numba.njit(nogil=True, parallel=True)
    def over_boards(board_fn, hero, boards):
        n = boards.shape[0]
        res = np.zeros((n, 3), np.int64)
        for i in numba.prange(n):
            w, t, lose = board_fn(hero, boards[i])
            res[i, 0] = w
            res[i, 1] = t
            res[i, 2] = lose
        return res.sum(axis=0)

    @numba.njit(inline="always")
    def rank_counts(h):
        c = h - ((h >> S1) & M55)
        return (c & M33) + ((c >> S2) & M33)

    @numba.njit
    def hoisted_board(hero, board):
        """the talk's method, 990 classifications, each from the board's rank counts plus two nibbles; a flush is
        looked for only when the board holds three cards of a suit and the hand adds enough of them"""
        dead = hero | board
        mine = rank7(dead)
        bc = rank_counts(board)
        fsuit = -1
        bsuit = 0
        for s in range(4):
            k = np.int64(((((board >> U(s)) & NIB) * NIB) >> S48) & U(15))
            if k >= 3:
                fsuit = s
                bsuit = k
        nib = np.empty(45, np.uint64)  # each free card's rank nibble bit, its card bit, and its suit count
        card = np.empty(45, np.uint64)
        suited = np.empty(45, np.int64)
        nf = 0
        for i in range(52):
            bit = U(1) << U(i)
            if not (dead & bit):
                nib[nf] = U(1) << U(i & ~3)
                card[nf] = bit
                suited[nf] = 1 if (i & 3) == fsuit else 0
                nf += 1
        w = 0
        t = 0
        lose = 0
        for a in range(1, nf):
            ba = bc + nib[a]
            sa = bsuit + suited[a]
            for b in range(a):
                if sa + suited[b] >= 5:
                    fm = gather(((board | card[a] | card[b]) >> U(fsuit)) & NIB)
                    st = straight_t[fm]
                    theirs = (8 << 28) | (1 << st) if st >= 0 else (5 << 28) | keep_t[5, fm]
                else:
                    theirs = rank_by_counts(ba + nib[b])
                if mine > theirs:
                    w += 1
                elif mine == theirs:
                    t += 1
                else:
                    lose += 1
        return w, t, lose

    @numba.njit(nogil=True)
    def equity_hoisted(hero, boards):
        return over_boards(hoisted_board, hero, boards)

    @numba.njit(nogil=True, parallel=True)
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

    _compiled.update(rank_batch=rank_batch, rank_batch_par=rank_batch_par, equity_hoisted=equity_hoisted,
                     categories7=categories7)
    return _compiled


_warm: set = set()


def compiled(name: str):
    """One jitted function, compiled on a tiny input the first time it is asked for (untimed, in prepare)."""
    fn = kernels()[name]
    if name not in _warm:
        if name.startswith("equity"):
            fn(np.uint64(3 << 48), np.array([0x1F], np.uint64))
        elif name == "categories7":
            fn(1, 7)  # the seven lowest cards: one hand
        else:
            fn(np.array([0x7F], np.uint64), np.empty(1, np.int64))
        _warm.add(name)
    return fn


def _rank7(parallel):
    def prepare(workload):
        if workload.inputs.get("exhaustive"):
            if not parallel:
                raise TooSlow("133,784,560 hands on one thread: the prange variant enumerates them")
            import numba

            fn, threads = compiled("categories7"), numba.get_num_threads()
            return lambda: fn(threads, 52)
        fn = compiled("rank_batch_par" if parallel else "rank_batch")
        hands = np.ascontiguousarray(workload.inputs["hands"])
        out = np.empty(len(hands), np.int64)
        return lambda: fn(hands, out)

    return prepare


def _equity(name):
    def prepare(workload):
        fn = compiled(name)
        boards = np.ascontiguousarray(workload.inputs["boards"])
        hero = np.uint64(workload.inputs["hero"])
        return lambda: fn(hero, boards)

    return prepare


IMPLEMENTATIONS = [
    Implementation("poker.rank7", "numba-swar", "numba", _rank7(False), ("module:numba",),
                   "the SWAR evaluator compiled by numba; one thread"),
    Implementation("poker.rank7", "numba-swar-prange", "numba", _rank7(True), ("module:numba",),
                   "the SWAR evaluator with prange over the batch"),
    Implementation("poker.equity", "numba-talk-hoisted-prange", "numba", _equity("equity_hoisted"),
                   ("module:numba",), "the talk's 990 classifications per board, each from the board's rank "
                   "counts, flushes only where possible; prange over the boards"),
]

