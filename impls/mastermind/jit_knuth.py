"""Numba family for Knuth's algorithm: each candidate guess scored against the possible secrets as one
byte-sliced row (the scoring family's row kernel), parts counted from the row; both drivers (each game on its own,
and the tree of score histories walked once). Every score is computed: no shortcut of the fast C variants. The
kernels are in jit_kernels.py, cached on disk by numba.
"""

import numpy as np

from swarbench.memory import as_aligned
from swarbench.model import Implementation
from swarbench.prebuild import build_by_preparing

from .spec import ARITHMETICS, KERNELS, STRATEGIES, all_codewords, color_counts, digits
from .jit import _kernels


def _prepare(workload):
    inp = workload.inputs
    p, c = inp["pins"], inp["colors"]
    codes = all_codewords(p, c)
    pins_of, counts = as_aligned(digits(codes, p)), as_aligned(color_counts(codes, p))
    first = int(np.searchsorted(codes, inp["first"]))
    targets = np.searchsorted(codes, inp["secrets"]).astype(np.int64)
    valid = np.array([(b << 4) | w for b in range(p + 1) for w in range(p + 1 - b) if (b, w) != (p - 1, 1)])
    strategy = STRATEGIES.index(inp["strategy"])
    arithmetic = ARITHMETICS.index(inp.get("arithmetic", "exact"))
    k = _kernels()
    if inp["method"] == "each":
        out = np.zeros(len(targets), np.uint8)
        k.play_each(pins_of, counts, first, targets[:1], valid, p << 4, strategy, arithmetic, c, out[:1])  # compile

        def batch():
            return k.play_each(pins_of, counts, first, targets, valid, p << 4, strategy, arithmetic, c, out)
    else:
        want = np.zeros(len(codes), np.bool_)
        want[targets] = True
        by_code = np.zeros(len(codes), np.uint8)
        k.play_shared(pins_of, counts, first, want & False, valid, p << 4, strategy, arithmetic, c, by_code)  # compile

        def batch():
            return k.play_shared(pins_of, counts, first, want, valid, p << 4, strategy, arithmetic, c, by_code)[targets]

    return batch


IMPLEMENTATIONS = [
    Implementation(
        "mastermind.knuth",
        "numba-sliced",
        "numba",
        _prepare,
        requires=("module:numba",),
        description="byte-sliced rows of possible secrets, parts counted per candidate",
    ),
]
IMPLEMENTATIONS = build_by_preparing(IMPLEMENTATIONS, KERNELS)  # compiled in the run's build step
