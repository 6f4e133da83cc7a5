"""Numba family for Knuth's algorithm: each candidate guess scored against the possible secrets as one
byte-sliced row (jit.py's row kernel), parts counted from the row; both drivers (each game on its own, and the
tree of score histories walked once). Every score is computed: no shortcut of the fast C variants.
"""
import numpy as np

from harness.model import Implementation

from .spec import all_codewords, color_counts, digits
from .jit import _kernels as _score_kernels

_compiled = {}


def _kernels():
    if _compiled:
        return _compiled
    import numba

    sliced_row = _score_kernels()["sliced_row"]

    @numba.njit(nogil=True)
    def choose(pins_of, counts, poss, played, valid, strategy, colors):
        m = poss.shape[0]
        if m == 1:
            return poss[0]
        sp = np.ascontiguousarray(pins_of[poss].T)
        scn = np.ascontiguousarray(counts[poss].T)
        inposs = np.zeros(pins_of.shape[0], np.bool_)
        inposs[poss] = True
        row = np.empty(m, np.uint8)
        cnt = np.zeros(129, np.int64)
        best, best_key = -1, -1
        for g in range(pins_of.shape[0]):
            if played[g]:
                continue
            sliced_row(sp, scn, pins_of[g], counts[g], colors, row)
            cnt[valid] = 0
            for i in range(m):
                cnt[row[i]] += 1
            if strategy == 0:
                rank = m - cnt[valid].max()
            else:
                rank = (cnt[valid] > 0).sum()
            key = 2 * rank + (1 if inposs[g] else 0)
            if key > best_key:
                best, best_key = g, key
        return best

    @numba.njit(nogil=True)
    def scores_against(pins_of, counts, guess, poss, colors):
        sp = np.ascontiguousarray(pins_of[poss].T)
        scn = np.ascontiguousarray(counts[poss].T)
        row = np.empty(poss.shape[0], np.uint8)
        sliced_row(sp, scn, pins_of[guess], counts[guess], colors, row)
        return row

    @numba.njit(nogil=True)
    def play_each(pins_of, counts, first, targets, valid, win, strategy, colors, out):
        n = pins_of.shape[0]
        for t in range(targets.shape[0]):
            poss = np.arange(n)
            played = np.zeros(n, np.bool_)
            guess, count = first, 1
            played[first] = True
            while True:
                sc = scores_against(pins_of, counts, guess, np.array([targets[t]]), colors)[0]
                if sc == win:
                    break
                poss = poss[scores_against(pins_of, counts, guess, poss, colors) == sc]
                guess = choose(pins_of, counts, poss, played, valid, strategy, colors)
                played[guess] = True
                count += 1
            out[t] = count
        return out

    @numba.njit(nogil=True)
    def play_shared(pins_of, counts, first, want, valid, win, strategy, colors, out):
        n = pins_of.shape[0]
        stack_poss = [np.arange(n)]
        stack_path = [np.array([first])]
        while len(stack_poss):
            poss, path = stack_poss.pop(), stack_path.pop()
            guess = path[-1]
            played = np.zeros(n, np.bool_)
            played[path] = True
            row = scores_against(pins_of, counts, guess, poss, colors)
            for s in valid:
                part = poss[row == s]
                if part.shape[0] == 0 or not want[part].any():
                    continue
                if s == win:
                    out[guess] = path.shape[0]
                else:
                    nxt = choose(pins_of, counts, part, played, valid, strategy, colors)
                    stack_poss.append(part)
                    stack_path.append(np.append(path, nxt))
        return out

    _compiled.update(play_each=play_each, play_shared=play_shared)
    return _compiled


def _prepare(workload):
    inp = workload.inputs
    p, c = inp["pins"], inp["colors"]
    codes = all_codewords(p, c)
    pins_of, counts = np.ascontiguousarray(digits(codes, p)), np.ascontiguousarray(color_counts(codes, p))
    first = int(np.searchsorted(codes, inp["first"]))
    targets = np.searchsorted(codes, inp["secrets"]).astype(np.int64)
    valid = np.array([(b << 4) | w for b in range(p + 1) for w in range(p + 1 - b) if (b, w) != (p - 1, 1)])
    strategy = 0 if inp["strategy"] == "knuth" else 1
    k = _kernels()
    if inp["method"] == "each":
        out = np.zeros(len(targets), np.uint8)
        k["play_each"](pins_of, counts, first, targets[:1], valid, p << 4, strategy, c, out[:1])  # compile

        def batch():
            return k["play_each"](pins_of, counts, first, targets, valid, p << 4, strategy, c, out)
    else:
        want = np.zeros(len(codes), np.bool_)
        want[targets] = True
        by_code = np.zeros(len(codes), np.uint8)
        k["play_shared"](pins_of, counts, first, want & False, valid, p << 4, strategy, c, by_code)  # compile

        def batch():
            return k["play_shared"](pins_of, counts, first, want, valid, p << 4, strategy, c, by_code)[targets]

    return batch


IMPLEMENTATIONS = [
    Implementation("mastermind.knuth", "numba-sliced", "numba", _prepare, requires=("module:numba",),
                   description="byte-sliced rows of possible secrets, parts counted per candidate"),
]
