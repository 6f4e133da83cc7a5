"""Numba families: pin-by-pin loops, SWAR on the packed words, and byte-sliced rows (one byte array per pin and
per color count across codewords, so LLVM vectorises the loops over secrets).

numba is imported inside ``prepare`` (via ``_kernels``) so listing and other families work without it; the first
compile happens there too, on a one-element batch, never inside the timed call.
"""
import numpy as np

from harness.model import Implementation

from .spec import color_counts, digits
from .vectorized import count_words

_compiled = {}


def _kernels():
    if _compiled:
        return _compiled
    import numba

    @numba.njit(nogil=True, inline="always")
    def naive_one(s, g, pins, colors):
        black = 0
        hits = 0
        for k in range(pins):
            if (s >> (4 * k)) & 15 == (g >> (4 * k)) & 15:
                black += 1
        for c in range(1, colors + 1):
            ns = 0
            ng = 0
            for k in range(pins):
                ns += (s >> (4 * k)) & 15 == c
                ng += (g >> (4 * k)) & 15 == c
            hits += min(ns, ng)
        return (black << 4) | (hits - black)

    @numba.njit(nogil=True, inline="always")
    def swar_one(s, sc, g, gc, unused):
        v = (s ^ g) | unused
        r = ~((((v & 0x77777777) + 0x77777777) | v) | 0x77777777) & 0xFFFFFFFF
        black = (((r >> 3) * 0x11111111) >> 28) & 15  # one bit per nibble: the nibbles summed into the top one
        hits = 0
        for w in range(2):
            ge = (((sc[w] | np.uint64(0x8080808080808080)) - gc[w]) & np.uint64(0x8080808080808080)) >> np.uint64(7)
            mask = ge * np.uint64(0xFF)
            low = (gc[w] & mask) | (sc[w] & ~mask)
            hits += np.int64((low * np.uint64(0x0101010101010101)) >> np.uint64(56))
        return (black << 4) | (hits - black)

    @numba.njit(nogil=True)
    def naive_cross(s, g, pins, colors, out):
        for j in range(g.shape[0]):
            for i in range(s.shape[0]):
                out[j * s.shape[0] + i] = naive_one(np.int64(s[i]), np.int64(g[j]), pins, colors)
        return out

    @numba.njit(nogil=True)
    def naive_pairs(s, g, pins, colors, out):
        for i in range(s.shape[0]):
            out[i] = naive_one(np.int64(s[i]), np.int64(g[i]), pins, colors)
        return out

    @numba.njit(nogil=True)
    def swar_cross(s, sc, g, gc, unused, out):
        for j in range(g.shape[0]):
            for i in range(s.shape[0]):
                out[j * s.shape[0] + i] = swar_one(np.int64(s[i]), sc[i], np.int64(g[j]), gc[j], unused)
        return out

    @numba.njit(nogil=True)
    def swar_pairs(s, sc, g, gc, unused, out):
        for i in range(s.shape[0]):
            out[i] = swar_one(np.int64(s[i]), sc[i], np.int64(g[i]), gc[i], unused)
        return out

    @numba.njit(nogil=True)
    def sliced_row(sp, scn, gp, gc, colors, row):
        """One guess (pins gp, counts gc) against every secret: row = 15 b + all hits = (b << 4) | w."""
        n = row.shape[0]
        for i in range(n):
            row[i] = 0
        for k in range(sp.shape[0]):
            pk = sp[k]
            x = gp[k]
            for i in range(n):
                row[i] += np.uint8(15) if pk[i] == x else np.uint8(0)
        for c in range(1, colors + 1):
            y = gc[c]
            if y == 0:
                continue
            cc = scn[c]
            for i in range(n):
                row[i] += min(cc[i], y)

    @numba.njit(nogil=True)
    def sliced_cross(sp, scn, gpins, gcounts, colors, out):
        n = sp.shape[1]
        for j in range(gpins.shape[0]):
            sliced_row(sp, scn, gpins[j], gcounts[j], colors, out[j * n:(j + 1) * n])
        return out

    @numba.njit(nogil=True)
    def sliced_pairs(sp, scn, gp, gcn, colors, out):
        n = out.shape[0]
        for i in range(n):
            out[i] = 0
        for k in range(sp.shape[0]):
            a = sp[k]
            b = gp[k]
            for i in range(n):
                out[i] += np.uint8(15) if a[i] == b[i] else np.uint8(0)
        for c in range(1, colors + 1):
            a = scn[c]
            b = gcn[c]
            for i in range(n):
                out[i] += min(a[i], b[i])
        return out

    _compiled.update(naive_cross=naive_cross, naive_pairs=naive_pairs, swar_cross=swar_cross,
                     swar_pairs=swar_pairs, sliced_cross=sliced_cross, sliced_pairs=sliced_pairs,
                     sliced_row=sliced_row)
    return _compiled


def _args(kind, inp):
    """The kernel's arguments for the workload's layout, built outside the timed call."""
    p, c, s, g = inp["pins"], inp["colors"], inp["secrets"], inp["guesses"]
    if kind == "naive":
        return (s, g, p, c)
    if kind == "swar":
        unused = np.int64((0xFFFFFFFF << (4 * p)) & 0xFFFFFFFF)
        return (s, count_words(s, p), g, count_words(g, p), unused)
    sp, scn = np.ascontiguousarray(digits(s, p).T), np.ascontiguousarray(color_counts(s, p).T)
    if inp["cross"]:
        return (sp, scn, digits(g, p), color_counts(g, p), c)
    return (sp, scn, np.ascontiguousarray(digits(g, p).T), np.ascontiguousarray(color_counts(g, p).T), c)


def _tiny(inp):
    one = inp["secrets"][:1]
    return dict(inp, secrets=one, guesses=one)


def _family(kind):
    def prepare(workload):
        inp = workload.inputs
        fn = _kernels()[f"{kind}_{'cross' if inp['cross'] else 'pairs'}"]
        fn(*_args(kind, _tiny(inp)), np.empty(1, np.uint8))  # compile for these types, outside the timed call
        args = _args(kind, inp)
        out = np.empty(len(inp["secrets"]) * (len(inp["guesses"]) if inp["cross"] else 1), np.uint8)

        def batch():
            return fn(*args, out)

        return batch

    return prepare


_NUMBA = ("module:numba",)
IMPLEMENTATIONS = [
    Implementation("mastermind.score", "numba-naive", "numba", _family("naive"), requires=_NUMBA,
                   description="pin-by-pin loops, every color counted in both codewords"),
    Implementation("mastermind.score", "numba-swar", "numba", _family("swar"), requires=_NUMBA,
                   description="nibble zero test, byte-wise SWAR min over two uint64 count words"),
    Implementation("mastermind.score", "numba-sliced", "numba", _family("sliced"), requires=_NUMBA,
                   description="byte-sliced: one byte array per pin and color, vectorised over secrets"),
]
