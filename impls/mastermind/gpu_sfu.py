"""The reciprocal and log2 of NVIDIA's special function unit (MUFU.RCP, MUFU.LG2), bit for bit, as cuda-fast-math
needs them (spec.ARITHMETICS): under ``nvcc --use_fast_math`` a float division is a multiplication by the unit's
reciprocal and ``logf`` is its log2 times ln 2, and neither is correctly rounded.

The unit splits the significand's range into slices (128 for the reciprocal, 64 for log2) and evaluates, in fixed
point, a quadratic from a table row per slice: value + slope * r + curvature * r^2, r the significand's low bits, the
square itself formed from truncated partial products. The reciprocal keeps the top 24 bits of the result; log2 adds
the input's exponent in fixed point (36 fraction bits), takes a negative result's ones' complement and keeps the top
24 bits of the magnitude. The tables and the steps are envytools' (data/gpu_sfu_tables.csv names the source), measured
there on Tesla GPUs; the published Expected Size and Entropy totals, made on a later GPU, come out of them exactly
(docs/suites.md), which says the unit kept them.

Plain Python on integers, so the reference calls these as they are and jit_kernels compiles the same functions.
Inputs are positive normal floats (1 / n and s / n with 1 <= s <= n); C's copy is c/gpu_sfu.h.

The table rows are envytools' (https://github.com/envytools/envytools, nvhw/sfu_tab.c), under its licence:

    Copyright (C) 2013 Marcelina Kościelnicka and the envytools authors

    Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
    documentation files (the "Software"), to deal in the Software without restriction, including without limitation
    the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and
    to permit persons to whom the Software is furnished to do so, subject to the following conditions:

    The above copyright notice and this permission notice shall be included in all copies or substantial portions
    of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO
    THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
    AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF
    CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
    DEALINGS IN THE SOFTWARE.
"""

import csv
import math
from pathlib import Path

import numpy as np

TABLES_CSV = Path(__file__).parent / "data" / "gpu_sfu_tables.csv"


def _read_tables() -> np.ndarray:
    """The unit's table rows, reciprocal's slices first, then log2's: (192, 3) int32 (value, slope, curvature)."""
    rows = {"rcp": [], "lg2": []}
    with TABLES_CSV.open(newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            rows[row["function"]].append(
                (int(row["slice"]), int(row["value"]), int(row["slope"]), int(row["curvature"]))
            )
    table = []
    for name, slices in (("rcp", RCP_SLICES), ("lg2", LG2_SLICES)):
        got = sorted(rows[name])
        if [s[0] for s in got] != list(range(slices)):
            raise ValueError(f"{TABLES_CSV.name}: {name} needs slices 0..{slices - 1}")
        table += [s[1:] for s in got]
    return np.ascontiguousarray(table, dtype=np.int32)


RCP_SLICES, LG2_SLICES = 128, 64
TABLES = _read_tables()  # C takes these rows as they are (native.py); LG2_AT is where log2's start
LG2_AT = RCP_SLICES
RCP = TABLES[:RCP_SLICES].astype(np.int64)
LG2 = TABLES[RCP_SLICES:].astype(np.int64)


# Each function stands alone (no call but math's), so jit_kernels compiles them as they are; numba's cache of its
# kernels does not see an edit here (it keys on jit_kernels.py): clear numba's cache after one.
def rcp(x):
    """MUFU.RCP of a positive normal float32, as a float (a float32 value)."""
    m, e = math.frexp(x)
    f = int(m * 16777216.0) - 8388608  # x = (1 + f 2^-23) 2^(e - 1)
    k, r = f >> 16, f & 0xFFFF
    r2, sq = r << 1, 0  # the square of r2 (17 bits), from truncated partial products
    for i in range(17):
        if (r2 >> i) & 1:
            sq += r2 >> (18 - i)
    top = ((RCP[k, 0] << 13) + RCP[k, 1] * r + RCP[k, 2] * (sq >> 1) + 0x47E7) >> 15
    return math.ldexp(float(top), -23 - e)  # top is 2^23..2^24: 1 / 1.f in 24 bits


def lg2(x):
    """MUFU.LG2 of a positive normal float32, as a float (a float32 value)."""
    m, e = math.frexp(x)
    f, e = int(m * 16777216.0) - 8388608, e - 1  # x = (1 + f 2^-23) 2^e
    if f == 0 and e == 0:
        return 0.0
    k, r = f >> 17, f & 0x1FFFF
    sq = 0  # the square of r, from truncated partial products
    for i in range(17):
        if (r >> i) & 1:
            sq += r >> (18 - i)
    v = ((LG2[k, 0] << 12) + LG2[k, 1] * r + ((LG2[k, 2] * (sq >> 1)) << 1) + 0x3345) >> 2
    v += e * 68719476736  # the exponent, in units of 2^-36
    sign = 1.0
    if v < 0:
        sign, v = -1.0, -v - 1  # ones' complement
    if v == 0:
        return 0.0
    shift = 0
    while v >> (24 + shift):
        shift += 1
    return sign * math.ldexp(float(v >> shift), shift - 36)  # the top 24 bits, truncated
