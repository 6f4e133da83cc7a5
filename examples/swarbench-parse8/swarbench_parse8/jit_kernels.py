"""The Numba-compiled loop. Importing this module imports numba, so only jit.py's prepare imports it."""

import numba
import numpy as np

HIGH = np.uint64(0xF0F0F0F0F0F0F0F0)


@numba.njit(cache=True)  # compiled once per machine; later runs load it from numba's cache
def parse_all(words, out):
    for i in range(words.size):
        w = words[i]
        checked = (w & HIGH) | (((w + np.uint64(0x0606060606060606)) & HIGH) >> np.uint64(4))
        if checked != np.uint64(0x3333333333333333):
            out[i] = -1
            continue
        w = ((w & np.uint64(0x0F0F0F0F0F0F0F0F)) * np.uint64(2561)) >> np.uint64(8)
        w = ((w & np.uint64(0x00FF00FF00FF00FF)) * np.uint64(6553601)) >> np.uint64(16)
        out[i] = ((w & np.uint64(0x0000FFFF0000FFFF)) * np.uint64(42949672960001)) >> np.uint64(32)
    return out
