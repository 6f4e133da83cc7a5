"""A strategy's rank of a guess from the sizes of the parts it splits the possible secrets into (spec.rank_parts),
as plain Python that numba compiles twice: for the CPU (jit_kernels) and as a CUDA device function (gpu_kernels),
so both players rank with the very same float sums."""
import math

import numpy as np


def rank_of(cnt, valid, m, strategy, terms):
    """Higher is better. ``cnt[score]`` is the part of each score in ``valid`` (ascending: the float sums of
    Expected Size and Entropy depend on the order); ``terms[c]`` the strategy's term for a part of size c."""
    if strategy == 0:  # Knuth: the largest part, smaller is better
        worst = 0
        for v in range(valid.shape[0]):
            worst = max(worst, cnt[valid[v]])
        return np.int64(m - worst)
    if strategy == 1:  # Most Parts
        parts = 0
        for v in range(valid.shape[0]):
            if cnt[valid[v]] > 0:
                parts += 1
        return np.int64(parts)
    total = np.float32(0.0)
    for v in range(valid.shape[0]):
        c = cnt[valid[v]]
        if c > 0:
            if strategy == 2:
                total = np.float32(total + np.float32(terms[c]))
            else:
                total = np.float32(np.float64(total) - terms[c])
    if strategy == 2:
        return -np.int64(math.floor(np.float64(total) * 1e6 + 0.5))
    return np.int64(math.floor(np.float64(total) * 1e9 + 0.5))
