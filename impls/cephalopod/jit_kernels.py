"""The Numba kernels of jit.py, at module level so that numba's on-disk cache can serve them.

numba keys a cached function on its bytecode and on the values its closure captures; njit functions defined
inside another function capture each other as dispatchers, which pickle differently in every process, so every
worker compiled them again (about 6 s for numba-bfs). Defined here they refer to each other as module globals,
and ``cache=True`` compiles them once per machine. This module imports numba: jit.py imports it only inside
``prepare``, so a machine without numba can still list and run the other families.
"""
import numba
import numpy as np


# -- numba-bfs and numba-sym -----------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def insert(table, states, counts, n, t):
    """The index of board t in the layer being built (added with zero counts if new), and the new size."""
    mask = table.shape[0] - 1
    h = np.uint32(t * np.uint32(0x587A1437))
    h ^= h >> np.uint32(16)
    slot = np.int64(h) & mask
    while True:
        idx = table[slot]
        if idx == 0:
            n += 1
            table[slot] = n
            states[n] = t
            counts[n, :] = 0
            return n, n
        if states[idx] == t:
            return n, idx
        slot = (slot + 1) & mask

@numba.njit(cache=True, nogil=True)
def canonical(s, xform, inverse):
    best = np.uint32(0xFFFFFFFF)
    k = 0
    for q in range(8):
        f = xform[0, s & 511, q] | xform[1, (s >> 9) & 511, q] | xform[2, (s >> 18) & 511, q]
        if f < best:
            best = f
            k = q
    return np.uint32(best | (s & np.uint32(0xF8000000))), inverse[k]

@numba.njit(cache=True, nogil=True)
def board_sum(s, c, hashes, hash8):
    """paths times hash modulo 2^30: one count, or eight counts for the eight orientations"""
    if c.shape[0] == 1:
        h = hashes[0, s & 511] + hashes[1, (s >> 9) & 511] + hashes[2, (s >> 18) & 511]
        return (np.int64(c[0]) * h) & 0x3FFFFFFF
    total = np.int64(0)
    for k in range(8):
        h = hash8[0, s & 511, k] + hash8[1, (s >> 9) & 511, k] + hash8[2, (s >> 18) & 511, k]
        total += (np.int64(c[k]) * h) & 0x3FFFFFFF
    return total

@numba.njit(cache=True, nogil=True)
def solve_layers(depth, start, nc, moves, base, nbr, hashes, hash8, xform, inverse, gather):
    """nc = 1: one count per board; nc = 8: canonical boards with eight orientation counts, and full or
    last-layer boards summed as they are generated."""
    sym = nc == 8
    cap = 1 << 12
    states = np.empty(cap + 1, np.uint32)
    counts = np.zeros((cap + 1, nc), np.uint32)
    j0 = 0
    if sym:
        start, j0 = canonical(start, xform, inverse)
    states[1] = start
    counts[1, j0] = 1
    n = 1
    total = np.int64(0)
    boards = np.int64(0)
    for d in range(depth):
        last = d == depth - 1
        nstates = np.empty(cap + 1, np.uint32)
        ncounts = np.empty((cap + 1, nc), np.uint32)
        table = np.zeros(2 * cap, np.int32)
        m = 0
        for i in range(1, n + 1):
            s = states[i]
            c = counts[i]
            if (s >> 27) == 0:  # full board: the game ends, its paths count now
                total += board_sum(np.int64(s), c, hashes, hash8)
                continue
            for cell in range(9):
                if (s >> np.uint32(3 * cell)) & np.uint32(7):
                    continue
                key = 0
                for q in range(4):
                    nb = nbr[cell, q]
                    if nb < 0:
                        break
                    key |= np.int64((s >> np.uint32(3 * nb)) & np.uint32(7)) << (3 * q)
                row = base[cell] + key
                for k in range(moves[row, 0]):
                    t = np.uint32(s + moves[row, 1 + k])
                    if sym and (last or (t >> 27) == 0):
                        total += board_sum(np.int64(t), c, hashes, hash8)
                        continue
                    j = 0
                    if sym:
                        t, j = canonical(t, xform, inverse)
                    if m + 1 > cap:  # grow the layer and its table, re-inserting what is there
                        cap *= 2
                        grown_s = np.empty(cap + 1, np.uint32)
                        grown_c = np.empty((cap + 1, nc), np.uint32)
                        table = np.zeros(2 * cap, np.int32)
                        mm = 0
                        for q in range(1, m + 1):
                            mm, idx = insert(table, grown_s, grown_c, mm, nstates[q])
                            grown_c[idx, :] = ncounts[q, :]
                        nstates, ncounts = grown_s, grown_c
                    m, idx = insert(table, nstates, ncounts, m, t)
                    if sym:
                        for to in range(8):
                            ncounts[idx, to] += c[gather[j, to]]
                    else:
                        ncounts[idx, 0] += c[0]
        states, counts, n = nstates, ncounts, m
        boards += n
    for i in range(1, n + 1):
        total += board_sum(np.int64(states[i]), counts[i], hashes, hash8)
    return total & 0x3FFFFFFF, boards



# -- numba-fast: c/fast.c's search ------------------------------------------------------------------------------
# The same steps as c/fast.c (see there): a workspace made once in prepare, a table never cleared between
# layers (a slot holds board << 32 | layer tag << 24 | index), and the last two layers summed from the per-row
# hash changes instead of being built. Scalar: the eight forms are a loop, not a register. The row key of an
# empty cell is computed inline in three places on purpose: the same lines as an njit helper (even with
# inline="always") made the search three times slower.
@numba.njit(cache=True, nogil=True)
def forms_min(s, swap):
    u = (s & 0xFFF) | ((s >> 3) & 0xFFF000)  # the 24 bits of the eight outer cells
    best = np.int64(1) << 40
    lane = 0
    for k in range(8):
        f = s ^ swap[0, u & 255, k] ^ swap[1, (u >> 8) & 255, k] ^ swap[2, u >> 16, k]
        if f < best:
            best = f
            lane = k
    return best, lane

@numba.njit(cache=True, nogil=True)
def add_hashes(acc, s, c, hashes, scale):
    """acc[k] += c[k] * scale * (hash of form k of s), modulo 2^32"""
    u = (s & 0xFFF) | ((s >> 3) & 0xFFF000)
    centre = ((s >> 12) & 7) * 10000
    for k in range(8):
        h = hashes[0, u & 255, k] + hashes[1, (u >> 8) & 255, k] + hashes[2, u >> 16, k] + centre
        acc[k] = (acc[k] + c[k] * scale * h) & 0xFFFFFFFF

@numba.njit(cache=True, nogil=True)
def add_successors(acc, s, c, moves, base, nbr, hashes, rowhash):
    """acc[k] += c[k] * (sum of the hashes of form k of every successor of s); a full board counts itself."""
    n = 0
    for cell in range(9):
        if (s >> (3 * cell)) & 7:
            continue
        key = 0
        for q in range(4):
            nb = nbr[cell, q]
            if nb < 0:
                break
            key |= ((s >> (3 * nb)) & 7) << (3 * q)
        row = base[cell] + key
        n += moves[row, 0]
        for k in range(8):
            acc[k] = (acc[k] + c[k] * rowhash[row, k]) & 0xFFFFFFFF
    add_hashes(acc, s, c, hashes, n if n else 1)

@numba.njit(cache=True, nogil=True)
def solve_fast(depth, start, work_states, work_counts, table, tag, moves, base, nbr, hashes, rowhash, swap, perm):
    acc = np.zeros(8, np.int64)
    if depth == 0:
        add_hashes(acc, start, np.ones(8, np.int64), hashes, 1)
        return acc[0] & 0x3FFFFFFF, np.int64(0), tag
    cur = 0
    c0, lane = forms_min(start, swap)
    work_states[0, 1] = c0
    for to in range(8):
        work_counts[0, 1, to] = 1 if perm[lane, to] == 0 else 0
    n = 1
    boards = np.int64(0)
    for d in range(depth):
        states, counts = work_states[cur], work_counts[cur]
        if d >= depth - 2:  # the last two layers: summed, never built
            for i in range(1, n + 1):
                s = states[i]
                if d == depth - 1:
                    add_successors(acc, s, counts[i], moves, base, nbr, hashes, rowhash)
                    continue
                if s >> 27 == 0:
                    add_hashes(acc, s, counts[i], hashes, 1)
                for cell in range(9):
                    if (s >> (3 * cell)) & 7:
                        continue
                    key = 0
                    for q in range(4):
                        nb = nbr[cell, q]
                        if nb < 0:
                            break
                        key |= ((s >> (3 * nb)) & 7) << (3 * q)
                    row = base[cell] + key
                    for q in range(moves[row, 0]):
                        add_successors(acc, (s + moves[row, 1 + q]) & 0xFFFFFFFF, counts[i], moves, base,
                                       nbr, hashes, rowhash)
            break
        nxt = 1 - cur
        size = 4096
        while size < 4 * n:
            size *= 2
        tag += 1
        if tag > 255:
            table[:] = 0
            tag = 1
        m = 0
        for i in range(1, n + 1):
            s = states[i]
            c = counts[i]
            if s >> 27 == 0:
                add_hashes(acc, s, c, hashes, 1)
            for cell in range(9):
                if (s >> (3 * cell)) & 7:
                    continue
                key = 0
                for q in range(4):
                    nb = nbr[cell, q]
                    if nb < 0:
                        break
                    key |= ((s >> (3 * nb)) & 7) << (3 * q)
                row = base[cell] + key
                for q in range(moves[row, 0]):
                    t = (s + moves[row, 1 + q]) & 0xFFFFFFFF
                    if t >> 27 == 0:
                        add_hashes(acc, t, c, hashes, 1)
                        continue
                    t, lane = forms_min(t, swap)
                    if 2 * (m + 1) > size or m + 2 > work_states.shape[1] or size > table.shape[0]:
                        return np.int64(-1), boards, tag  # outgrew the workspace: prepare reserves more
                    h = (t * 0x587A1437) & 0xFFFFFFFF
                    slot = (h ^ (h >> 16)) & (size - 1)
                    while True:
                        e = table[slot]
                        if (e >> 24) & 255 != tag:
                            m += 1
                            table[slot] = (t << 32) | (tag << 24) | m
                            work_states[nxt, m] = t
                            for to in range(8):
                                work_counts[nxt, m, to] = c[perm[lane, to]]
                            break
                        if e >> 32 == t:
                            idx = e & 0xFFFFFF
                            for to in range(8):
                                work_counts[nxt, idx, to] = (work_counts[nxt, idx, to] + c[perm[lane, to]]) \
                                    & 0xFFFFFFFF
                            break
                        slot = (slot + 1) & (size - 1)
        cur, n = nxt, m
        boards += n
        if n == 0:
            break
    total = np.int64(0)
    for k in range(8):
        total += acc[k]
    return total & 0x3FFFFFFF, boards, tag

