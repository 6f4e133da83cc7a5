"""Pure Python families: pin-by-pin loops, and SWAR on Python ints (nibble zero test + ``int.bit_count`` for b,
byte-wise min and sum over a 128-bit int of color counts for all hits).

Both take about a second per million pairs or more (naive ~2 us, SWAR ~0.9 us a score here), so beyond
``MAX_OPS`` they decline with TooSlow: the default all-pairs 4p6c workload (1.68 million scores, verified and
timed several times) would cost them most of the suite's time budget. They run on small and --size workloads.
"""

import numpy as np

from swarbench.model import Implementation, TooSlow

from .spec import color_counts

MAX_OPS = {"naive": 300_000, "swar": 300_000}
M7 = 0x77777777
H8 = int("80" * 16, 16)  # the high bit of every byte of a 128-bit int
ONES8 = int("01" * 16, 16)


def _naive(s: int, g: int, pins: int, colors: int) -> int:
    sp = [(s >> (4 * k)) & 15 for k in range(pins)]
    gp = [(g >> (4 * k)) & 15 for k in range(pins)]
    black = sum(1 for a, b in zip(sp, gp) if a == b)
    hits = sum(min(sp.count(c), gp.count(c)) for c in range(1, colors + 1))
    return (black << 4) | (hits - black)


def _count_ints(codes: np.ndarray, pins: int) -> list[int]:
    """Each codeword's 16 8-bit color counts as one 128-bit int (count of color c in byte c)."""
    return [int.from_bytes(row.tobytes(), "little") for row in color_counts(codes, pins)]


def _swar_scorer(pins: int):
    unused = (0xFFFFFFFF << (4 * pins)) & 0xFFFFFFFF

    def score(s: int, sc: int, g: int, gc: int) -> int:
        v = (s ^ g) | unused
        black = (~((((v & M7) + M7) | v) | M7) & 0xFFFFFFFF).bit_count()
        ge = (((sc | H8) - gc) & H8) >> 7  # 1 in each byte where the secret's count >= the guess's
        mask = ge * 0xFF
        low = (gc & mask) | (sc & ~mask & ((1 << 128) - 1))
        hits = ((low * ONES8) >> 120) & 0xFF
        return (black << 4) | (hits - black)

    return score


def _prepare(kind):
    def prepare(workload):
        if workload.size > MAX_OPS[kind]:
            raise TooSlow(
                f"pure Python {kind} scores about a million pairs a second at best; "
                f"{workload.size:,} is over its limit of {MAX_OPS[kind]:,}"
            )
        inp = workload.inputs
        p, c, cross = inp["pins"], inp["colors"], inp["cross"]
        s, g = [int(x) for x in inp["secrets"]], [int(x) for x in inp["guesses"]]
        if kind == "naive":

            def one(i, j):
                return _naive(s[i], g[j], p, c)
        else:
            sc, gc, f = _count_ints(inp["secrets"], p), _count_ints(inp["guesses"], p), _swar_scorer(p)

            def one(i, j):
                return f(s[i], sc[i], g[j], gc[j])

        def batch():
            if cross:
                out = bytearray(len(s) * len(g))
                k = 0
                for j in range(len(g)):
                    for i in range(len(s)):
                        out[k] = one(i, j)
                        k += 1
            else:
                out = bytearray(one(i, i) for i in range(len(s)))
            return np.frombuffer(out, np.uint8)

        return batch

    return prepare


IMPLEMENTATIONS = [
    Implementation(
        "mastermind.score",
        "naive",
        "python-naive",
        _prepare("naive"),
        description="pin-by-pin comparison, then every color counted in both codewords",
    ),
    Implementation(
        "mastermind.score",
        "python-swar",
        "python-swar",
        _prepare("swar"),
        description="nibble zero test + int.bit_count; byte-wise min and sum of 128-bit count ints",
    ),
]
