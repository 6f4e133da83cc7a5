"""GPU family through numba.cuda: SWAR scoring, one thread per secret; and whole games of every strategy, one
thread per candidate guess at each node of the tree of score histories (kernels in gpu_kernels.py).

Timed only where numba finds a real CUDA GPU (requirement "cuda"); elsewhere it is listed and skipped with the
reason. Its correctness is checked in the tests on numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1 in a fresh
process), which runs the same kernel source thread by thread in Python.

prepare copies the codewords and their count words to the device, allocates the device output and a pinned host
buffer, and compiles by launching once on a one-secret view. The timed call launches the kernel and copies the
scores back into the pinned buffer (the copy waits for the kernel): the oracle and the caller need them on the
host, as every other family delivers them. For 5p8c all pairs that copy (1 GiB over PCIe) dominates.
"""

import numpy as np

from swarbench.model import Implementation

from . import spec
from .vectorized import count_words

THREADS = 256
GUESS_BLOCKS = 4096  # grid y: each thread walks its secret against every GUESS_BLOCKS-th guess


def _launch(n_secrets: int, n_guesses: int, cross: bool):
    """(grid, block) for the workload: enough threads per block for the secrets, at most THREADS."""
    threads = min(THREADS, max(32, -(-n_secrets // 32) * 32))
    blocks = -(-n_secrets // threads)
    if cross:
        return (blocks, max(1, min(n_guesses, GUESS_BLOCKS))), (threads,)
    return (max(1, min(blocks, 65535)),), (threads,)


def _prepare(workload):
    from numba import cuda

    from . import gpu_kernels

    inp = workload.inputs
    p, s, g, cross = inp["pins"], inp["secrets"], inp["guesses"], inp["cross"]
    unused = np.uint32((0xFFFFFFFF << (4 * p)) & 0xFFFFFFFF)
    host = [np.ascontiguousarray(s), count_words(s, p), np.ascontiguousarray(g), count_words(g, p)]
    dev = [cuda.to_device(a) for a in host]
    n = len(s) * len(g) if cross else len(s)
    d_out = cuda.device_array(max(n, 1), np.uint8)
    out = cuda.pinned_array(n, np.uint8)
    kernel = gpu_kernels.score_cross if cross else gpu_kernels.score_pairs
    if len(s) and len(g):  # compile for these types on one secret and one guess, outside the timed call
        kernel[(1, 1) if cross else (1,), (32,)](*[d[:1] for d in dev], unused, d_out[:1])
        cuda.synchronize()
    grid, block = _launch(len(s), len(g), cross)

    def batch():
        if n:
            kernel[grid, block](*dev, unused, d_out)
            d_out[:n].copy_to_host(out)
        return out

    batch.keepalive = (dev, d_out)
    return batch


def _prepare_play(workload):
    """Whole games: the host walks the tree (spec.play_tree); at each node the device splits the possible secrets by
    every codeword (count_parts) and the host ranks the splits in the workload's arithmetic (jit_kernels.best_of:
    the strategy's rank, then a possible secret, then the lowest codeword)."""
    from numba import cuda

    from . import gpu_kernels
    from .jit import _kernels

    inp = workload.inputs
    p, c, strategy = inp["pins"], inp["colors"], inp["strategy"]
    codes = spec.all_codewords(p, c)
    n = len(codes)
    valid = [(b << 4) | w for b in range(p + 1) for w in range(p + 1 - b) if (b, w) != (p - 1, 1)]
    valid_at = np.zeros(256, np.int32)
    valid_at[valid] = np.arange(len(valid))
    d_codes, d_cw, d_valid_at = cuda.to_device(codes), cuda.to_device(count_words(codes, p)), cuda.to_device(valid_at)
    d_parts = cuda.device_array((n, len(valid)), np.int32)
    unused = np.uint32((0xFFFFFFFF << (4 * p)) & 0xFFFFFFFF)
    code, arithmetic = spec.STRATEGIES.index(strategy), spec.ARITHMETICS.index(inp.get("arithmetic", "exact"))
    blocks = -(-n // THREADS)
    k = _kernels()
    spf = k.smallest_factors(n)

    def choose(codes_, possible, played, pins, colors, strategy_):
        gpu_kernels.count_parts[blocks, THREADS](
            d_codes, d_cw, cuda.to_device(np.asarray(possible, np.int64)), d_valid_at, unused, d_parts
        )
        open_ = np.ones(n, np.bool_)
        open_[list(played)] = False
        inposs = np.zeros(n, np.bool_)
        inposs[possible] = True
        return int(
            k.best_of(d_parts.copy_to_host().astype(np.int64), open_, inposs, len(possible), code, arithmetic, spf)
        )

    choose(codes, np.arange(min(n, 2)), [], p, c, strategy)  # compile outside the timed call

    def batch():
        seqs = spec.play_tree(p, c, inp["first"], strategy, inp["secrets"], choose=choose)
        return np.array([len(seqs[int(s)]) for s in inp["secrets"]], np.uint8)

    batch.keepalive = (d_codes, d_cw, d_valid_at, d_parts)
    return batch


IMPLEMENTATIONS = [
    Implementation(
        "mastermind.score",
        "cuda-swar",
        "numba-cuda",
        _prepare,
        requires=("module:numba", "cuda"),
        description="one GPU thread per secret: nibble test + popc, SWAR byte min of uint64 counts; "
        "the timed call includes copying the scores back to host memory",
    ),
    Implementation(
        "mastermind.knuth",
        "cuda-swar",
        "numba-cuda",
        _prepare_play,
        requires=("module:numba", "cuda"),
        description="every strategy: one GPU thread per candidate guess at each node of the tree counts "
        "its parts; the host walks the tree and ranks them",
    ),
]
