"""The packed board and the lookup tables the fast families share, built from the rules in spec.py.

Packed board (the write-up's layout): cell i in bits 3i..3i+2 (0 empty, 1..6 a die), the number of empty cells
in bits 27..31. A move is a *delta* added to the packed board (modulo 2^32): it removes the captured dice, puts
the new die, and adjusts the empty count. Tables are plain Python and NumPy data; each family copies them into
its own form in ``prepare``.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from swarbench.memory import as_aligned

from .spec import COMPOSE, NEIGHBOURS, PERMS, POW10, captures

ZERO_SHIFT = 27
CELL_BITS = (1 << ZERO_SHIFT) - 1
MAX_MOVES = (1, 4, 11)  # most moves into a corner, an edge, the centre (2, 3 or 4 neighbours)


def pack(cells, zeros: bool = True) -> int:
    s = 0
    for i, v in enumerate(cells):
        s |= int(v) << (3 * i)
    if zeros:
        s |= sum(1 for v in cells if not v) << ZERO_SHIFT
    return s


def unpack(state: int) -> tuple[int, ...]:
    return tuple((state >> (3 * i)) & 7 for i in range(9))


def move_deltas(cell: int, values: tuple[int, ...], zeros: bool = True) -> list[int]:
    """The deltas of the moves into empty ``cell`` when its neighbours hold ``values``."""
    nbrs = NEIGHBOURS[cell]
    out = []
    for subset, die in captures(values):
        d = die << (3 * cell)
        for j in subset:
            d -= values[j] << (3 * nbrs[j])
        if zeros:
            d += (len(subset) - 1) << ZERO_SHIFT
        out.append(d)
    return out


def neighbour_values(cell: int):
    """Every assignment of 0..6 to the neighbours of ``cell`` (first neighbour in the lowest bits of a key)."""
    return itertools.product(range(7), repeat=len(NEIGHBOURS[cell]))


@lru_cache(maxsize=None)
def python_moves(zeros: bool = False) -> tuple[tuple[int, int, dict], ...]:
    """Per cell: (its bits, its neighbours' bits, {those bits of a board: move deltas}) for dict look-ups."""
    out = []
    for cell in range(9):
        table = {}
        for values in neighbour_values(cell):
            key = sum(v << (3 * n) for v, n in zip(values, NEIGHBOURS[cell]))
            table[key] = tuple(move_deltas(cell, values, zeros))
        nmask = sum(7 << (3 * n) for n in NEIGHBOURS[cell])
        out.append((7 << (3 * cell), nmask, table))
    return tuple(out)


@lru_cache(maxsize=None)
def array_moves() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The move tables as flat arrays for compiled code.

    For cell c with k neighbours, the key is the neighbours' 3-bit values side by side (first neighbour lowest,
    3k bits). Row ``base[c] + key`` of ``moves`` (stride 12) holds the number of moves, then the deltas as uint32.
    ``nbr`` (9, 4) lists the neighbours of each cell, -1 padded.
    """
    rows = []
    base = np.zeros(9, np.int32)
    for cell in range(9):
        base[cell] = len(rows)
        k = len(NEIGHBOURS[cell])
        for key in range(1 << (3 * k)):
            values = tuple((key >> (3 * j)) & 7 for j in range(k))
            row = [0] * 12
            if max(values) <= 6:
                deltas = move_deltas(cell, values)
                row[0] = len(deltas)
                row[1 : 1 + len(deltas)] = [d & 0xFFFFFFFF for d in deltas]
            rows.append(row)
    nbr = np.full((9, 4), -1, np.int32)
    for cell in range(9):
        nbr[cell, : len(NEIGHBOURS[cell])] = NEIGHBOURS[cell]
    return np.array(rows, np.uint32), base, nbr


@lru_cache(maxsize=None)
def hash_chunks() -> np.ndarray:
    """(3, 512) int64: the base-10 hash of cells 3g..3g+2 given their 9 bits, so hash = sum of three look-ups."""
    out = np.zeros((3, 512), np.int64)
    for g in range(3):
        for bits in range(512):
            out[g, bits] = sum(((bits >> (3 * j)) & 7) * POW10[3 * g + j] for j in range(3))
    return out


@lru_cache(maxsize=None)
def transform_chunks() -> np.ndarray:
    """(3, 512, 8) uint32: where the 9 bits of cells 3g..3g+2 land under each symmetry (OR the three)."""
    out = np.zeros((3, 512, 8), np.uint32)
    for g in range(3):
        for bits in range(512):
            for k, perm in enumerate(PERMS):
                v = 0
                for j in range(3):
                    old = 3 * g + j
                    new = perm.index(old)  # new cell i takes old cell perm[i]
                    v |= ((bits >> (3 * j)) & 7) << (3 * new)
                out[g, bits, k] = v
    return out


def compose_array() -> np.ndarray:
    return np.array(COMPOSE, np.int32)


def state_hash(state: int) -> int:
    h = hash_chunks()
    return int(h[0, state & 511] + h[1, (state >> 9) & 511] + h[2, (state >> 18) & 511])


def _table_arrays() -> dict[str, np.ndarray]:
    """Every table compiled code needs, by the name of its ceph_tables field (c/search.h)."""
    moves, base, nbr = array_moves()
    xform = transform_chunks()
    h3 = hash_chunks()
    hash8 = np.zeros((3, 512, 8), np.uint32)
    for g in range(3):
        for bits in range(512):
            for k in range(8):  # the hash of three cells after symmetry k: they hash where they land
                hash8[g, bits, k] = state_hash(int(xform[g, bits, k]))
    # gather[j][to] = k: orientation k of a board feeds orientation COMPOSE[k][j] of its successor's class
    gather = np.zeros((8, 8), np.int32)
    for j in range(8):
        for k in range(8):
            gather[j, COMPOSE[k][j]] = k
    inverse = np.array([COMPOSE[k].index(0) for k in range(8)], np.int32)
    return {
        "moves": moves,
        "base": base,
        "nbr": nbr,
        "hash3": h3.astype(np.uint32),
        "hash8": hash8,
        "xform": xform,
        "inverse": inverse,
        "gather": gather,
    }


@lru_cache(maxsize=None)
def flat_tables() -> dict[str, np.ndarray]:
    return {k: as_aligned(v) for k, v in _table_arrays().items()}


# -- the tables of c/fast.c: the eight non-centre cells (24 bits) cut into three bytes ---------------------------
OUTER_MASK = 0x07FF8FFF  # cells 0-3 and 5-8; the centre (bits 12..14) never moves under a symmetry


def _outer_bit(q: int) -> int:
    """Bit q (0..23) of the 24 outer bits, as its position in the packed board."""
    return q if q < 12 else q + 3


def _weights() -> np.ndarray:
    """(8, 9): the base-10 weight cell c has in the hash of symmetry k of a board (it lands at perm.index(c))."""
    return np.array([[POW10[perm.index(c)] for c in range(9)] for perm in PERMS], np.int64)


@lru_cache(maxsize=None)
def byte_tables() -> dict[str, np.ndarray]:
    """Per byte g of the outer bits and each of its 256 values, for the eight symmetries k:

    ``land[g, b, k]``: where the bits of b land under symmetry k (in packed-board positions), so OR-ing the three
    bytes' entries gives the outer cells of symmetry k of the board (the centre and the empty count never move);
    ``hash[g, b, k]``: what those bits add to the hash of symmetry k of the board.
    """
    weights = _weights()
    land = np.zeros((3, 256, 8), np.uint32)
    hashes = np.zeros((3, 256, 8), np.uint32)
    for g in range(3):
        for b in range(256):
            for q in range(8):
                if not b >> q & 1:
                    continue
                pos = _outer_bit(8 * g + q)
                cell, bit = divmod(pos, 3)
                for k, perm in enumerate(PERMS):
                    land[g, b, k] |= 1 << (3 * perm.index(cell) + bit)
                    hashes[g, b, k] += weights[k, cell] << bit
    return {"land": land, "hash": hashes}


@lru_cache(maxsize=None)
def row_hash_changes() -> np.ndarray:
    """(rows of array_moves(), 8) uint32: for each row (an empty cell and its neighbours' values), the sum over the
    row's moves of how each move changes the hash of symmetry k of the board (modulo 2^32: captures lower it).

    So the hashes of all the successors of a board, in every orientation, are: moves x its own hashes + the sum
    of these rows over its empty cells. No successor needs to be built to be summed.
    """
    moves, base, _ = array_moves()
    weights = _weights()
    out = np.zeros((len(moves), 8), np.int64)
    for cell in range(9):
        nbrs = NEIGHBOURS[cell]
        for key in range(1 << (3 * len(nbrs))):
            values = tuple((key >> (3 * j)) & 7 for j in range(len(nbrs)))
            if max(values) > 6:
                continue
            row = out[base[cell] + key]
            for subset, die in captures(values):
                row += die * weights[:, cell]
                for j in subset:
                    row -= values[j] * weights[:, nbrs[j]]
    return (out % (1 << 32)).astype(np.uint32)


@lru_cache(maxsize=None)
def fast_tables() -> dict[str, np.ndarray]:
    """Every table c/fast.c reads, by the name of its fast_tables field."""
    flat = flat_tables()
    by_lane = flat["gather"][flat["inverse"]]  # the count permutation when lane k held the smallest form
    b = byte_tables()
    nmask = np.array([sum(7 << (3 * n) for n in NEIGHBOURS[c]) for c in range(9)], np.uint32)
    return {
        k: as_aligned(v)
        for k, v in {
            "moves": flat["moves"],
            "base": flat["base"],
            "nmask": nmask,
            "land": b["land"],
            "hash": b["hash"],
            "rowhash": row_hash_changes(),
            "perm": by_lane.astype(np.int32),
            "rowcount": np.ascontiguousarray(flat["moves"][:, 0]),
        }.items()
    }
