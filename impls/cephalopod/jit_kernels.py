"""The Numba kernels of jit.py, at module level so that numba's on-disk cache can serve them.

numba keys a cached function on its bytecode and on the values its closure captures; njit functions defined
inside another function capture each other as dispatchers, which pickle differently in every process, so every
worker compiled them again (seconds per family). Defined here they refer to each other as module globals,
and ``cache=True`` compiles them once per machine. This module imports numba: jit.py imports it only inside
``prepare``, so a machine without numba can still list and run the other families.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


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
    n = np.int64(1)  # not a literal: a literal argument compiles the callee a second time
    total = np.int64(0)
    boards = np.int64(0)
    for d in range(depth):
        last = d == depth - 1
        nstates = np.empty(cap + 1, np.uint32)
        ncounts = np.empty((cap + 1, nc), np.uint32)
        table = np.zeros(2 * cap, np.int32)
        m = np.int64(0)
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
                        mm = np.int64(0)
                        for q in range(1, m + 1):
                            mm, idx = insert(table, grown_s, grown_c, mm, nstates[q])
                            for to in range(nc):  # a slice copy would compile numba's shape-mismatch message: seconds
                                grown_c[idx, to] = ncounts[q, to]
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
# layers (a slot holds board << 32 | layer tag << 24 | index), a move list in chunks (listed, canonicalised with
# their slots prefetched, then inserted without a branch on new or old), and the last two layers summed from
# the per-row hash changes instead of being built. Scalar: the eight forms are eight ORs, not a register.
#
# What it takes for numba to compile this well (docs/suites.md has the measurements):
#  - array indexes cast to unsigned (U(...)): numba wraps a negative signed index around, which costs a shift,
#    an AND and an add per access and keeps LLVM from unrolling the loops;
#  - helpers inlined at numba's level (inline="always"): a call passes every array as seven words;
#  - the row key of an empty cell without a loop: each cell's neighbours are read at fixed shifts (`nsh`), a
#    missing neighbour at bit 40, always zero; empty cells and the lowest of them from small tables;
#  - the layer before the last sums its successors' hashes per parent in `hs`, then multiplies by the
#    parent's counts once, not once per successor row;
#  - a corner has one move and an edge at most four: four deltas are copied per cell, the centre's other
#    seven only when it has more;
#  - the probe loop's test as one integer comparison, and the minimum of the eight forms as a tree: LLVM makes
#    the last step of a chain of minimums a branch, mispredicted whenever symmetry 7 wins;
#  - a prefetch of each table slot (LLVM's prefetch intrinsic; numba has none).
U = np.uint64  # index type: unsigned indexes skip numba's negative-index wraparound
CHUNK = 256
SLACK = 128
# table slots per parent, from TABLE_MIN up to TABLE_CAP (with the slot prefetch, larger tables gain nothing);
# arguments of the search rather than constants so that the tests can make layers outgrow their tables
TABLE_MIN, TABLE_MUL, TABLE_CAP = 4096, 8, 1 << 20


@intrinsic
def prefetch(typingctx, arr, idx):
    """Hint that arr[idx] will be read soon (LLVM's llvm.prefetch: read, keep in all cache levels)."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(arr)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, arr, ary, [args[1]])
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        # declared under its bare name: the full name carries the pointer type (.p0i8 with typed pointers, .p0
        # with opaque ones, which differ between LLVM versions), and LLVM's upgrader completes a bare one
        # (checked with llvmlite 0.50, LLVM 22)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch"
        )
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(arr, idx), codegen


@numba.njit(inline="always")
def form_offsets(t):
    """Where board t's eight outer cells index the per-form tables (land, hashes): three byte-wide pieces of
    their 24 bits, each a run of 8 entries (one per form) at its own 2048-entry section."""
    u = (t & 0xFFF) | ((t >> 3) & 0xFFF000)  # the 24 bits of the eight outer cells
    return (u & 255) * 8, 2048 + ((u >> 8) & 255) * 8, 4096 + (u >> 16) * 8


@numba.njit(inline="always")
def smallest_form(t, land):
    """The smallest of the eight forms of board t, and the symmetry (lane) that gives it. The forms are compared
    as (outer cells << 3 | lane), so the minimum carries its lane; the centre and the empty count are the same
    in every form and are put back at the end."""
    a, b, c = form_offsets(t)
    f0 = np.int64(land[U(a)] | land[U(b)] | land[U(c)]) << 3
    f1 = (np.int64(land[U(a + 1)] | land[U(b + 1)] | land[U(c + 1)]) << 3) | 1
    f2 = (np.int64(land[U(a + 2)] | land[U(b + 2)] | land[U(c + 2)]) << 3) | 2
    f3 = (np.int64(land[U(a + 3)] | land[U(b + 3)] | land[U(c + 3)]) << 3) | 3
    f4 = (np.int64(land[U(a + 4)] | land[U(b + 4)] | land[U(c + 4)]) << 3) | 4
    f5 = (np.int64(land[U(a + 5)] | land[U(b + 5)] | land[U(c + 5)]) << 3) | 5
    f6 = (np.int64(land[U(a + 6)] | land[U(b + 6)] | land[U(c + 6)]) << 3) | 6
    f7 = (np.int64(land[U(a + 7)] | land[U(b + 7)] | land[U(c + 7)]) << 3) | 7
    best = min(min(min(f0, f1), min(f2, f3)), min(min(f4, f5), min(f6, f7)))
    return (best >> 3) | (t & 0xF8007000), best & 7


@numba.njit(inline="always")
def add_hashes(acc, s, counts, c0, hashes, scale):
    """acc[k] += counts[c0 + k] * scale * (hash of form k of s), modulo 2^64"""
    a, b, c = form_offsets(s)
    centre = ((s >> 12) & 7) * 10000
    for k in range(8):
        h = np.int64(hashes[U(a + k)]) + hashes[U(b + k)] + hashes[U(c + k)] + centre
        acc[k] += np.int64(counts[U(c0 + k)]) * scale * h


@numba.njit(inline="always")
def row_of(s, cell, base, nsh):
    """The row of the move tables for empty `cell` of s: its neighbours' values side by side."""
    o = U(4 * cell)
    return (
        base[U(cell)]
        + ((s >> nsh[o]) & 7)
        + (((s >> nsh[o + U(1)]) & 7) << 3)
        + (((s >> nsh[o + U(2)]) & 7) << 6)
        + (((s >> nsh[o + U(3)]) & 7) << 9)
    )


@numba.njit(inline="always")
def empty_cells(s, e3):
    """bit c set when cell c of s is empty (e3: the same for three cells)"""
    return e3[U(s & 511)] | (e3[U((s >> 9) & 511)] << 3) | (e3[U((s >> 18) & 511)] << 6)


@numba.njit(cache=True, nogil=True)
def build_layer(
    states,
    counts,
    n,
    nstates,
    ncounts,
    table,
    tag,
    table_min,
    table_mul,
    acc,
    mvb,
    mvp,
    cb,
    cs,
    cl,
    cp,
    moves,
    base,
    nsh,
    hashes,
    land,
    perm,
    e3,
    low,
):
    """The layer after the n boards of states/counts, into nstates/ncounts: (boards, table tag), or boards -1
    when the workspace is too small. Counts of full successors go to acc."""
    size = table_min
    while size < table_mul * n and size < TABLE_CAP:
        size *= 2
    while size < 4 * n:
        size *= 2
    if size > table.shape[0]:
        return -1, tag
    tag += 1
    if tag > 255:  # the tags ran out: the only time the table is cleared
        table[:] = 0
        tag = 1
    m = 0
    for q in range(8):  # the count row of the next new board is kept zeroed ahead
        ncounts[U(8 + q)] = 0
    cap = nstates.shape[0]
    i = 1
    while i <= n:
        # 1. the moves of the next parents
        k = 0
        while i <= n and k < CHUNK:
            s = np.int64(states[U(i)])
            e = empty_cells(s, e3)
            if e == 0:  # only the start can be full
                add_hashes(acc, s, counts, 8 * i, hashes, 1)
            while e:
                r = row_of(s, low[U(e)], base, nsh) * 12
                e &= e - 1
                cnt = moves[U(r)]
                for q in range(4):  # a corner has one move, an edge at most four
                    mvb[U(k + q)] = s + moves[U(r + 1 + q)]
                    mvp[U(k + q)] = i
                if cnt > 4:  # the centre between three or four dice
                    for q in range(4, 11):
                        mvb[U(k + q)] = s + moves[U(r + 1 + q)]
                        mvp[U(k + q)] = i
                k += cnt
            i += 1
        if m + k + 2 > cap:
            return -1, tag
        if 2 * (m + k) > size:  # a layer much larger than its parents: a larger table, the boards re-placed
            while 2 * (m + k) > size:
                size *= 2
            if size > table.shape[0]:
                return -1, tag
            tag += 1
            if tag > 255:
                table[:] = 0
                tag = 1
            for q in range(1, m + 1):
                b = np.int64(nstates[U(q)])
                h = (b * 0x587A1437) & 0xFFFFFFFF
                slot = (h ^ (h >> 16)) & (size - 1)
                while (table[U(slot)] >> 24) & 255 == tag:
                    slot = (slot + 1) & (size - 1)
                table[U(slot)] = (b << 32) | (tag << 24) | q
        mask = size - 1
        # 2. canonical boards, their slots prefetched
        j = 0
        for q in range(k):
            t = np.int64(mvb[U(q)])
            if t >> 27 == 0:  # full: its paths end here
                add_hashes(acc, t, counts, 8 * np.int64(mvp[U(q)]), hashes, 1)
                continue
            b, lane = smallest_form(t, land)
            h = (b * 0x587A1437) & 0xFFFFFFFF
            slot = (h ^ (h >> 16)) & mask
            prefetch(table, U(slot))
            cb[U(j)] = b
            cs[U(j)] = slot
            cl[U(j)] = lane * 8
            cp[U(j)] = mvp[U(q)] * 8
            j += 1
        # 3. merged into the layer
        for q in range(j):
            b = np.int64(cb[U(q)])
            slot = np.int64(cs[U(q)])
            key = (b << 8) | tag
            x = (table[U(slot)] >> 24) ^ key  # 0: b is here; low byte 0 and more: another board of this layer
            while ((x & 255) | (((x - 1) >> 63) & 1)) == 0:
                slot = (slot + 1) & mask
                x = (table[U(slot)] >> 24) ^ key
            fresh = (x & 255) != 0
            idx = m + 1 if fresh else table[U(slot)] & 0xFFFFFF
            table[U(slot)] = (b << 32) | (tag << 24) | idx
            nstates[U(m + 1)] = b  # overwritten by the next new board unless b is new
            lb = np.int64(cl[U(q)])
            pb = np.int64(cp[U(q)])
            for to in range(8):
                ncounts[U(idx * 8 + to)] += counts[U(pb + perm[U(lb + to)])]
            m += fresh
            for to in range(8):
                ncounts[U((m + 1) * 8 + to)] = 0
    return m, tag


@numba.njit(cache=True, nogil=True)
def solve_fast(
    depth,
    start,
    wstates,
    wcounts,
    table,
    tag,
    table_min,
    table_mul,
    mvb,
    mvp,
    cb,
    cs,
    cl,
    cp,
    moves,
    base,
    nsh,
    hashes,
    rowhash,
    land,
    perm,
    e3,
    low,
):
    """(answer, boards stored, table tag), or answer -1 when the workspace is too small."""
    acc = np.zeros(8, np.int64)
    hs = np.zeros(8, np.int64)
    one = np.ones(8, np.uint32)
    if depth == 0:
        add_hashes(acc, start, one, 0, hashes, 1)
        return acc[0] & 0x3FFFFFFF, np.int64(0), tag
    cur = 0
    c0, lane = smallest_form(np.int64(start), land)
    wstates[0, 1] = c0
    for to in range(8):
        wcounts[0, 8 + to] = 1 if perm[lane * 8 + to] == 0 else 0
    n = np.int64(1)  # not a literal: a literal argument compiles the callee a second time
    boards = np.int64(0)
    for d in range(depth):
        states, counts = wstates[cur], wcounts[cur]
        if d >= depth - 2:  # the last two layers: summed, never built
            for i in range(1, n + 1):
                s = np.int64(states[U(i)])
                e = empty_cells(s, e3)
                if e == 0:
                    add_hashes(acc, s, counts, 8 * i, hashes, 1)
                for k in range(8):
                    hs[k] = 0
                while e:
                    r = row_of(s, low[U(e)], base, nsh) * 12
                    e &= e - 1
                    if d == depth - 1:  # depth 1: the successors' hashes from the row itself
                        for k in range(8):
                            hs[k] += rowhash[U(r // 12 * 8 + k)]
                        add_hashes(hs, s, one, 0, hashes, moves[U(r)])
                        continue
                    for q in range(moves[U(r)]):
                        # hs += the hashes of every successor of t (t itself when t is full)
                        t = (s + moves[U(r + 1 + q)]) & 0xFFFFFFFF
                        et = empty_cells(t, e3)
                        nt = 0
                        while et:
                            row = row_of(t, low[U(et)], base, nsh)
                            et &= et - 1
                            nt += moves[U(row * 12)]
                            for k in range(8):
                                hs[k] += rowhash[U(row * 8 + k)]
                        nt = max(nt, 1)
                        ha, hb, hc = form_offsets(t)
                        centre = ((t >> 12) & 7) * 10000
                        for k in range(8):
                            hs[k] += nt * (np.int64(hashes[U(ha + k)]) + hashes[U(hb + k)] + hashes[U(hc + k)] + centre)
                for k in range(8):
                    acc[k] += np.int64(counts[U(8 * i + k)]) * hs[k]
            break
        nxt = 1 - cur
        m, tag = build_layer(
            states,
            counts,
            n,
            wstates[nxt],
            wcounts[nxt],
            table,
            tag,
            table_min,
            table_mul,
            acc,
            mvb,
            mvp,
            cb,
            cs,
            cl,
            cp,
            moves,
            base,
            nsh,
            hashes,
            land,
            perm,
            e3,
            low,
        )
        if m < 0:
            return np.int64(-1), boards, tag
        cur, n = nxt, m
        boards += n
        if n == 0:
            break
    total = np.int64(0)
    for k in range(8):
        total += acc[k]
    return total & 0x3FFFFFFF, boards, tag
