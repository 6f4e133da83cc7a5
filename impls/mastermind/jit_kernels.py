"""Every Numba kernel of the suite, at module level and compiled with ``cache=True``.

They live in one file, imported only when a numba family prepares (jit.py, jit_knuth.py), for two reasons:
- numba's on-disk cache is keyed on the function's own source file (its timestamp and size) and, for a
  closure, on the pickled closure variables. A jitted function captured by a closure pickles with a random
  per-process id, so closures over other jitted functions would never hit the cache. Module globals are not
  part of the key, so here every compile happens once per machine, not once per worker process.
- a caller's cached code includes the callees it inlined or linked (sliced_row inside Knuth's search): with
  caller and callees in one file, any edit here invalidates all of them together.
"""
import math

import numba
import numpy as np

from . import ranking

H8 = np.uint64(0x8080808080808080)
ONES8 = np.uint64(0x0101010101010101)


# -- one score ------------------------------------------------------------------------------------------------
@numba.njit(nogil=True, inline="always", cache=True)
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


@numba.njit(nogil=True, inline="always", cache=True)
def swar_one(s, sc, g, gc, unused):
    v = (s ^ g) | unused
    r = ~((((v & 0x77777777) + 0x77777777) | v) | 0x77777777) & 0xFFFFFFFF
    black = (((r >> 3) * 0x11111111) >> 28) & 15  # one bit per nibble: the nibbles summed into the top one
    hits = 0
    for w in range(2):
        ge = (((sc[w] | H8) - gc[w]) & H8) >> np.uint64(7)
        mask = ge * np.uint64(0xFF)
        low = (gc[w] & mask) | (sc[w] & ~mask)
        hits += np.int64((low * ONES8) >> np.uint64(56))
    return (black << 4) | (hits - black)


# -- batches: every guess against every secret (cross), or explicit pairs --------------------------------------
@numba.njit(nogil=True, cache=True)
def naive_cross(s, g, pins, colors, out):
    for j in range(g.shape[0]):
        for i in range(s.shape[0]):
            out[j * s.shape[0] + i] = naive_one(np.int64(s[i]), np.int64(g[j]), pins, colors)
    return out


@numba.njit(nogil=True, cache=True)
def naive_pairs(s, g, pins, colors, out):
    for i in range(s.shape[0]):
        out[i] = naive_one(np.int64(s[i]), np.int64(g[i]), pins, colors)
    return out


@numba.njit(nogil=True, cache=True)
def swar_cross(s, sc, g, gc, unused, out):
    for j in range(g.shape[0]):
        for i in range(s.shape[0]):
            out[j * s.shape[0] + i] = swar_one(np.int64(s[i]), sc[i], np.int64(g[j]), gc[j], unused)
    return out


@numba.njit(nogil=True, cache=True)
def swar_pairs(s, sc, g, gc, unused, out):
    for i in range(s.shape[0]):
        out[i] = swar_one(np.int64(s[i]), sc[i], np.int64(g[i]), gc[i], unused)
    return out


@numba.njit(nogil=True, cache=True)
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


@numba.njit(nogil=True, inline="always", cache=True)
def fused_row(sp, pin_ids, scn, gp, slot, cnt, row):
    """One guess against every secret in a single pass: row = 15 b + all hits, each byte computed once and
    stored once (sliced_row loads and stores the row again for every pin and color).

    The pin count is the length of the tuple pin_ids, a compile-time constant: numba compiles one version per
    game width, the pin loop unrolls, and the loop over secrets is a straight run of byte compares, masked adds
    and mins that LLVM vectorises. The guess's colors are its distinct ones only (at most one per pin): slot[k]
    is the secrets' count plane of the k-th (plane 0, all zeros, past the last) and cnt[k] its count in the
    guess (0 past the last); the planes are bound to locals before the loop, so the loop reads eight fixed
    arrays rather than indexing by a value it would have to reload."""
    n = row.shape[0]
    P = len(pin_ids)
    c0, c1, c2, c3 = scn[slot[0]], scn[slot[1]], scn[slot[2]], scn[slot[3]]
    c4, c5, c6, c7 = scn[slot[4]], scn[slot[5]], scn[slot[6]], scn[slot[7]]
    y0, y1, y2, y3, y4, y5, y6, y7 = cnt[0], cnt[1], cnt[2], cnt[3], cnt[4], cnt[5], cnt[6], cnt[7]
    for i in range(n):
        acc = np.uint8(0)
        for k in range(P):
            acc += np.uint8(15) if sp[k, i] == gp[k] else np.uint8(0)
        # a guess of P pins has at most P colors: the slots beyond P are known empty when this is compiled
        acc += min(c0[i], y0)
        if P > 1:
            acc += min(c1[i], y1)
        if P > 2:
            acc += min(c2[i], y2)
        if P > 3:
            acc += min(c3[i], y3)
        if P > 4:
            acc += min(c4[i], y4)
        if P > 5:
            acc += min(c5[i], y5)
        if P > 6:
            acc += min(c6[i], y6)
        if P > 7:
            acc += min(c7[i], y7)
        row[i] = acc


@numba.njit(nogil=True, cache=True)
def sliced_cross(sp, scn, gpins, gcounts, pin_ids, out):
    """Every guess against every secret, one fused pass per guess (fused_row); pin_ids = tuple(range(pins))."""
    n = sp.shape[1]
    slot = np.zeros(8, np.int64)
    cnt = np.zeros(8, np.uint8)
    for j in range(gpins.shape[0]):
        gc = gcounts[j]
        m = 0
        for c in range(1, 16):  # the guess's colors, in order; the rest of the slots stay empty
            if gc[c]:
                slot[m] = c
                cnt[m] = gc[c]
                m += 1
        for k in range(m, 8):
            slot[k] = 0
            cnt[k] = 0
        fused_row(sp, pin_ids, scn, gpins[j], slot, cnt, out[j * n:(j + 1) * n])
    return out


@numba.njit(nogil=True, cache=True)
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


# -- Knuth's search on byte-sliced rows ---------------------------------------------------------------------------
@numba.njit(nogil=True, cache=True)
def strategy_terms(strategy, m):
    """The term a part of size s adds to a float strategy's sum, as spec.strategy_terms: float32 s*s/m (held in
    a float64, exactly) for Expected Size, the float64 p * log(p) of the float32 p = s/m for Entropy."""
    terms = np.zeros(m + 1, np.float64)
    n = np.float32(m)
    for s in range(1, m + 1):
        f = np.float32(s)
        if strategy == 2:
            terms[s] = np.float32(np.float32(f * f) / n)
        else:
            p = np.float64(np.float32(f / n))
            terms[s] = p * math.log(p)
    return terms


rank_of = numba.njit(nogil=True, cache=True)(ranking.rank_of)  # the same body the GPU player compiles


@numba.njit(nogil=True, cache=True)
def choose(pins_of, counts, poss, played, valid, strategy, colors):
    m = poss.shape[0]
    if m == 1:
        return poss[0]
    sp = np.ascontiguousarray(pins_of[poss].T)
    scn = np.ascontiguousarray(counts[poss].T)
    inposs = np.zeros(pins_of.shape[0], np.bool_)
    inposs[poss] = True
    terms = strategy_terms(strategy, m) if strategy >= 2 else np.zeros(1, np.float64)
    row = np.empty(m, np.uint8)
    cnt = np.zeros(129, np.int64)
    best, best_key = -1, np.int64(-(1 << 62))
    for g in range(pins_of.shape[0]):
        if played[g]:
            continue
        sliced_row(sp, scn, pins_of[g], counts[g], colors, row)
        cnt[valid] = 0
        for i in range(m):
            cnt[row[i]] += 1
        key = 2 * rank_of(cnt, valid, m, strategy, terms) + (1 if inposs[g] else 0)
        if key > best_key:
            best, best_key = g, key
    return best


@numba.njit(nogil=True, cache=True)
def scores_against(pins_of, counts, guess, poss, colors):
    sp = np.ascontiguousarray(pins_of[poss].T)
    scn = np.ascontiguousarray(counts[poss].T)
    row = np.empty(poss.shape[0], np.uint8)
    sliced_row(sp, scn, pins_of[guess], counts[guess], colors, row)
    return row


@numba.njit(nogil=True, cache=True)
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


@numba.njit(nogil=True, cache=True)
def extended(path, last):
    """``path`` with ``last`` after it; np.append (and a slice copy) would compile numba's shape-mismatch message,
    about a second of every fresh machine's build."""
    out = np.empty(path.shape[0] + 1, path.dtype)
    for i in range(path.shape[0]):
        out[i] = path[i]
    out[-1] = last
    return out


@numba.njit(nogil=True, cache=True)
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
                stack_path.append(extended(path, nxt))
    return out
