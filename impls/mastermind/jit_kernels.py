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

from . import gpu_sfu


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
        fused_row(sp, pin_ids, scn, gpins[j], slot, cnt, out[j * n : (j + 1) * n])
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


# -- a strategy's comparison of two splits, in every arithmetic ------------------------------------------------
# How a strategy compares two guesses from the sizes of the parts they split the possible secrets into, in every
# arithmetic spec.py names: exact (Knuth, Most Parts and Expected Size by integers, Entropy's S = sum of s ln s by
# entropy_order, as the integer products of s^s compare), and the mikemag/Mastermind project's float keys as
# spec.ARITHMETICS models them, bit for bit (float_rank). A split is sizes[0..parts), its non-empty parts in
# ascending score order (the float sums depend on the order). Higher ranks are better.
KNUTH, MOST_PARTS, EXPECTED_SIZE, ENTROPY = 0, 1, 2, 3
EXACT, CPU_FLOAT, CUDA_FAST_MATH = 0, 1, 2  # spec.ARITHMETICS, in order
LN2_F32 = np.float32(math.log(2))
# |D - S| <= ENTROPY_SLACK * S for the double sum D of the terms s * log(s), s <= 2^26, over at most 44 parts: each term
# within a few ulps (2^-50), the sum within 43 roundings (2^-47); this leaves room for a libm several ulps off.
ENTROPY_SLACK = 2.0**-40


# -- the float variants ---------------------------------------------------------------------------------------
# The GPU's reciprocal and log2 (cuda-fast-math), compiled from gpu_sfu.py as they are.
sfu_rcp = numba.njit(nogil=True, cache=True)(gpu_sfu.rcp)
sfu_lg2 = numba.njit(nogil=True, cache=True)(gpu_sfu.lg2)


@numba.njit(nogil=True, cache=True)
def fma32(a, b, c):
    """float32 fused multiply-add of float32 a, b, c, rounded once: the exact a * b (a double holds it) plus c,
    rounded to odd in double (TwoSum gives the error) and then to nearest float32, which rounds as once would."""
    p = np.float64(a) * np.float64(b)
    c64 = np.float64(c)
    s = p + c64
    bb = s - p
    err = (p - (s - bb)) + (c64 - bb)
    if err != 0.0:
        cell = np.empty(1, np.float64)
        cell[0] = s
        bits = cell.view(np.int64)
        if bits[0] & 1 == 0:  # even: step to the odd neighbour on the exact value's side
            bits[0] += 1 if (err > 0.0) == (s > 0.0) else -1
        s = cell[0]
    return np.float32(s)


@numba.njit(nogil=True, cache=True)
def round_half_away(x):
    """C's round() of a double."""
    return math.floor(x + 0.5) if x >= 0.0 else -math.floor(-x + 0.5)


@numba.njit(nogil=True, cache=True)
def saturate_u32(x):
    """A double's conversion to uint32 as CUDA's: clamped to 0..2^32 - 1 (spec.ARITHMETICS)."""
    if not x > 0.0:
        return np.int64(0)
    if x >= 4294967295.0:
        return np.int64(4294967295)
    return np.int64(x)


@numba.njit(nogil=True, cache=True)
def float_terms(m, strategy, arithmetic):
    """The float terms of a search of m secrets, a and b per part size s = 0..m, once a search (c/knuth_rank.h's
    make_terms): cpu-float Expected Size adds a[s] = s*s/m; cuda-fast-math Expected Size adds fma(a[s] = s*s,
    b[s] = the GPU's 1/m, acc); cpu-float Entropy subtracts a[s] = p log p, p = s/m; cuda-fast-math Entropy adds
    fma(a[s] = -p, b[s] = log p, acc), p = s times the GPU's 1/m, log p the GPU's log2 of p times ln 2."""
    a = np.zeros(m + 1, np.float32)
    b = np.zeros(m + 1, np.float32)
    n = np.float32(m)
    r = np.float32(sfu_rcp(n)) if m > 0 else np.float32(0.0)  # (m = 0: no terms, and no reciprocal of 0)
    for i in range(1, m + 1):
        s = np.float32(i)
        if strategy == EXPECTED_SIZE:
            a[i] = np.float32(np.float32(s * s) / n) if arithmetic == CPU_FLOAT else np.float32(s * s)
            b[i] = r
        elif arithmetic == CPU_FLOAT:
            p = np.float32(s / n)
            a[i] = np.float32(p * np.float32(math.log(p)))
        else:
            p = np.float32(s * r)
            a[i] = -p
            b[i] = np.float32(np.float32(sfu_lg2(p)) * LN2_F32)
    return a, b


@numba.njit(nogil=True, cache=True)
def float_rank(sizes, parts, a, b, strategy, arithmetic):
    """The project's rank of an Expected Size or Entropy split in a float arithmetic, from its search's terms
    (float_terms), as an int64 (higher is better): its uint32 key, compared as unsigned (spec.ARITHMETICS)."""
    acc = np.float32(0.0)
    for i in range(parts):
        s = sizes[i]
        if arithmetic == CPU_FLOAT:
            acc = np.float32(acc + a[s]) if strategy == EXPECTED_SIZE else np.float32(acc - a[s])
        else:
            acc = fma32(a[s], b[s], acc)
    if strategy == EXPECTED_SIZE:  # (uint32)round(1e6 * sum), negated as a uint32
        key = round_half_away(np.float64(acc) * 1e6)
        return (np.int64(4294967296) - saturate_u32(key)) & 0xFFFFFFFF
    return saturate_u32(round_half_away(np.float64(acc) * 1e9))


# -- exact ----------------------------------------------------------------------------------------------------
@numba.njit(nogil=True, cache=True)
def int_rank(sizes, parts, m, strategy):
    """Knuth: m minus the largest part; Most Parts: the number of parts; Expected Size: minus the sum of s * s."""
    if strategy == MOST_PARTS:
        return np.int64(parts)
    total = np.int64(0)
    for i in range(parts):
        s = np.int64(sizes[i])
        if strategy == KNUTH:
            total = max(total, s)
        else:
            total += s * s
    return np.int64(m) - total if strategy == KNUTH else -total


@numba.njit(nogil=True, cache=True)
def entropy_sum(sizes, parts):
    """The double sum of s * log(s): within ENTROPY_SLACK of S, relatively."""
    total = 0.0
    for i in range(parts):
        s = np.float64(sizes[i])
        total += s * math.log(s)
    return total


@numba.njit(nogil=True, cache=True)
def smallest_factors(n):
    """spf[s] for s <= n: the least prime dividing s (spf[0] = spf[1] = 0)."""
    spf = np.zeros(n + 1, np.int64)
    for p in range(2, n + 1):
        if spf[p] == 0:
            for q in range(p, n + 1, p):
                if spf[q] == 0:
                    spf[q] = p
    return spf


@numba.njit(nogil=True, cache=True)
def add_exponents(sizes, parts, sign, spf, exps, touched, count):
    """exps[p] += sign * s * v_p(s) for every part s and prime p (the exponents of the product of s^s); each prime
    touched first is listed in touched. Returns the new count of touched."""
    for i in range(parts):
        s = np.int64(sizes[i])
        rest = s
        while rest > 1:
            p = spf[rest]
            if exps[p] == 0:
                touched[count] = p
                count += 1
            exps[p] += sign * s
            rest //= p
    return count


@numba.njit(nogil=True, cache=True)
def mul_small(limbs, length, factor):
    """limbs[0..length) (32-bit digits, low first) times factor < 2^32; returns the new length."""
    carry = np.uint64(0)
    f = np.uint64(factor)
    for i in range(length):
        v = limbs[i] * f + carry
        limbs[i] = v & np.uint64(0xFFFFFFFF)
        carry = v >> np.uint64(32)
    while carry:
        limbs[length] = carry & np.uint64(0xFFFFFFFF)
        carry >>= np.uint64(32)
        length += 1
    return length


@numba.njit(nogil=True, cache=True)
def power_product(primes, exps, count, sign, bits):
    """The integer product of p^e over the primes whose exponent has this sign (e taken as |e|), as 32-bit digits
    (room for ``bits`` bits), and its length."""
    limbs = np.zeros(bits // 32 + 2, np.uint64)
    limbs[0] = 1
    length = 1
    for i in range(count):
        e = exps[i] * sign
        p = np.uint64(primes[i])
        chunk = np.uint64(1)
        for _ in range(e):
            if chunk * p >= np.uint64(1 << 32):
                length = mul_small(limbs, length, chunk)
                chunk = np.uint64(1)
            chunk *= p
        length = mul_small(limbs, length, chunk)
    return limbs, length


@numba.njit(nogil=True, cache=True)
def sign_of_log_product(primes, exps, count):
    """The sign of sum e_i ln p_i (distinct primes p_i), exactly: a double sum where it is far from 0, else the
    sign of the product of p^e over the positive exponents minus that over the negative ones, in integers."""
    total = 0.0
    scale = 0.0
    for i in range(count):
        term = exps[i] * math.log(primes[i])
        total += term
        scale += abs(term)
    if abs(total) > scale * ENTROPY_SLACK:
        return 1 if total > 0 else -1
    bits = 0
    for i in range(count):
        bits += abs(exps[i]) * (int(math.log2(primes[i])) + 1)
    high, nh = power_product(primes, exps, count, 1, bits)
    low, nl = power_product(primes, exps, count, -1, bits)
    if nh != nl:
        return 1 if nh > nl else -1
    for i in range(nh - 1, -1, -1):
        if high[i] != low[i]:
            return 1 if high[i] > low[i] else -1
    return 0


@numba.njit(nogil=True, cache=True)
def entropy_order(a, na, da, b, nb, db, spf, exps, touched):
    """-1, 0 or 1 as S(a) is below, equal to or above S(b), exactly; da, db: their entropy_sum. Equal S is equal
    products of s^s, so equal prime exponents: those decide a tie, and the sign of the log of their quotient an
    order. spf covers every part size; exps (as long as spf) and touched are scratch, left zero."""
    if abs(da - db) > (da + db) * ENTROPY_SLACK:
        return -1 if da < db else 1
    count = add_exponents(a, na, 1, spf, exps, touched, 0)
    count = add_exponents(b, nb, -1, spf, exps, touched, count)
    primes = np.empty(count, np.int64)
    diff = np.empty(count, np.int64)
    nonzero = 0
    for i in range(count):  # a prime may be listed twice if its exponent came back to 0 on the way
        p = touched[i]
        if exps[p] != 0:
            primes[nonzero] = p
            diff[nonzero] = exps[p]
            nonzero += 1
            exps[p] = 0
    return sign_of_log_product(primes, diff, nonzero) if nonzero else 0


# -- Knuth's search on byte-sliced rows ---------------------------------------------------------------------------
@numba.njit(nogil=True, cache=True)
def best_of(counts, open_, inposs, m, strategy, arithmetic, spf):
    """The index of the best row of part counts (rows: candidates, columns: the scores in ascending order) among
    the open ones: the strategy's rank in the arithmetic (above), then a possible secret, then the lowest
    index; -1 if none is open. The GPU player ranks its device's counts with it too."""
    exact_entropy = strategy == ENTROPY and arithmetic == EXACT
    sizes = np.empty(counts.shape[1], np.int64)
    best_sizes = np.empty(counts.shape[1], np.int64)
    exps = np.zeros(spf.shape[0] if exact_entropy else 1, np.int64)
    touched = np.empty(4096, np.int64)
    best, best_key, best_parts, best_d, best_poss = -1, np.int64(-(1 << 62)), 0, 0.0, False
    floats = strategy >= EXPECTED_SIZE and arithmetic != EXACT
    terms_a, terms_b = float_terms(m if floats else 0, strategy, arithmetic)
    for g in range(counts.shape[0]):
        if not open_[g]:
            continue
        parts = 0
        for v in range(counts.shape[1]):
            if counts[g, v] > 0:
                sizes[parts] = counts[g, v]
                parts += 1
        if exact_entropy:  # a lower S wins; an equal one only as a possible secret against one that is not
            d = entropy_sum(sizes, parts)
            order = (
                -1 if best < 0 else entropy_order(sizes, parts, d, best_sizes, best_parts, best_d, spf, exps, touched)
            )
            if order < 0 or (order == 0 and inposs[g] and not best_poss):
                best, best_parts, best_d, best_poss = g, parts, d, inposs[g]
                best_sizes[:parts] = sizes[:parts]
            continue
        if floats:
            rank = float_rank(sizes, parts, terms_a, terms_b, strategy, arithmetic)
        else:
            rank = int_rank(sizes, parts, m, strategy)
        key = 2 * rank + (1 if inposs[g] else 0)
        if key > best_key:
            best, best_key = g, key
    return best


@numba.njit(nogil=True, cache=True)
def split_counts(pins_of, counts, poss, played, valid, colors):
    """parts[g, v]: how many of the possible secrets poss codeword g gives score valid[v] (rows of played
    codewords left 0)."""
    m = poss.shape[0]
    sp = np.ascontiguousarray(pins_of[poss].T)
    scn = np.ascontiguousarray(counts[poss].T)
    row = np.empty(m, np.uint8)
    cnt = np.zeros(129, np.int64)
    parts = np.zeros((pins_of.shape[0], valid.shape[0]), np.int64)
    for g in range(pins_of.shape[0]):
        if played[g]:
            continue
        sliced_row(sp, scn, pins_of[g], counts[g], colors, row)
        cnt[valid] = 0
        for i in range(m):
            cnt[row[i]] += 1
        for v in range(valid.shape[0]):
            parts[g, v] = cnt[valid[v]]
    return parts


@numba.njit(nogil=True, cache=True)
def choose(pins_of, counts, poss, played, valid, strategy, arithmetic, colors, spf):
    m = poss.shape[0]
    if m == 1:
        return poss[0]
    inposs = np.zeros(pins_of.shape[0], np.bool_)
    inposs[poss] = True
    parts = split_counts(pins_of, counts, poss, played, valid, colors)
    return best_of(parts, ~played, inposs, m, strategy, arithmetic, spf)


@numba.njit(nogil=True, cache=True)
def scores_against(pins_of, counts, guess, poss, colors):
    sp = np.ascontiguousarray(pins_of[poss].T)
    scn = np.ascontiguousarray(counts[poss].T)
    row = np.empty(poss.shape[0], np.uint8)
    sliced_row(sp, scn, pins_of[guess], counts[guess], colors, row)
    return row


@numba.njit(nogil=True, cache=True)
def play_each(pins_of, counts, first, targets, valid, win, strategy, arithmetic, colors, out):
    n = pins_of.shape[0]
    spf = smallest_factors(n)
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
            guess = choose(pins_of, counts, poss, played, valid, strategy, arithmetic, colors, spf)
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
def play_shared(pins_of, counts, first, want, valid, win, strategy, arithmetic, colors, out):
    n = pins_of.shape[0]
    spf = smallest_factors(n)
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
                nxt = choose(pins_of, counts, part, played, valid, strategy, arithmetic, colors, spf)
                stack_poss.append(part)
                stack_path.append(extended(path, nxt))
    return out
