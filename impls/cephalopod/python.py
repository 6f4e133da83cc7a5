"""Pure-Python families: every path one by one, breadth-first merging equal boards, and the same with symmetry.

- ``paths``: a depth-first walk of every move sequence on tuples, the readable statement of the problem. Its
  cost is the number of paths, so ``prepare`` counts them first (merging boards, one search per start board
  kept for the process, stopped as soon as the count passes PATH_LIMIT) and refuses a workload with more.
- ``bfs``: one dict per layer from packed board (Python int, 3 bits a cell) to its path count; the moves into
  each empty cell come from a dict keyed by the neighbours' bits, as the write-up's lookup tables. The last
  layer is summed from its parents, never built (endings_by_occupancy).
- ``bfs-sym``: one canonical board per class of the eight symmetries, with eight counts (one per orientation).
  It stores about a third as many boards as ``bfs`` on the official tests (608,865 against 1,595,937) but runs
  only about as fast, even with its canonical forms and counts read with struct: the successors of a canonical
  layer, merged before canonicalisation, are still about three quarters as many as ``bfs``'s boards (successors
  of different representatives rarely coincide), and canonicalising one (eight forms, minimum, eight counts
  moved) costs about what the dict work it saves.

The breadth-first searches and the path walk report progress per layer (per first move) through
swarbench.progress, which draws a bar in ``swarbench run`` while a case is checked (a no-op while timed).
"""

from __future__ import annotations

import operator
import struct
from collections import defaultdict
from functools import lru_cache

from swarbench import progress
from swarbench.model import Implementation, TooSlow

from . import tables
from .spec import MASK, NEIGHBOURS, board_hash, run_cases, step, successors

PATH_LIMIT = 300_000  # about a second of path-by-path walking


def _cases(workload):
    return [(int(d), tuple(int(v) for v in c)) for d, c in zip(workload.inputs["depth"], workload.inputs["cells"])]


# -- path by path --------------------------------------------------------------------------------------------
def walk(depth: int, board: tuple[int, ...]) -> int:
    """Sum of the final boards' hashes over every path, one path at a time."""
    if depth == 0:
        return board_hash(board)
    moves = successors(board)
    if not moves:
        return board_hash(board)
    return sum(walk(depth - 1, b) for b in moves)


def walk_case(depth: int, board: tuple[int, ...]) -> int:
    """walk(), saying after each first move how many of them are done."""
    moves = successors(board) if depth else []
    if not moves:
        return board_hash(board)
    total = 0
    for i, b in enumerate(moves, start=1):
        total += walk(depth - 1, b)
        progress.advance(i, len(moves), "first moves")
    return total


@lru_cache(maxsize=64)
def path_counts(board: tuple[int, ...], limit: int = PATH_LIMIT) -> tuple[tuple[int, ...], bool]:
    """The exact number of paths of 0, 1, 2, ... moves from ``board``, as far as they stay within ``limit``,
    and whether every game had ended by then (so deeper searches walk no more paths than the last count).

    One breadth-first search merging equal boards per start board, kept for the process: deciding whether a
    workload of forty cases from one board is walkable costs one search, not forty.
    """
    layer, ended, counts = {board: 1}, 0, [1]
    while layer and counts[-1] <= limit:
        layer, done = step(layer)
        ended += sum(count for _, count in done)
        counts.append(ended + sum(layer.values()))
    return tuple(counts), not layer


def paths_of(depth: int, board: tuple[int, ...]):
    """The paths of ``depth`` moves, or None when there are more than PATH_LIMIT."""
    counts, finished = path_counts(board)
    if depth < len(counts):
        return counts[depth] if counts[depth] <= PATH_LIMIT else None
    return counts[-1] if finished and counts[-1] <= PATH_LIMIT else None


def _prepare_paths(workload):
    cases = _cases(workload)
    for depth, board in cases:
        if paths_of(depth, board) is None:
            raise TooSlow(
                f"path-by-path search of depth {depth} from {''.join(map(str, board))} "
                f"walks more than {PATH_LIMIT:,} paths"
            )

    def batch():
        return run_cases(lambda d, b: (walk_case(d, b) & MASK, None), cases)

    return batch


# -- breadth first with a dict -------------------------------------------------------------------------------
def _hasher():
    h0, h1, h2 = (list(map(int, row)) for row in tables.hash_chunks())
    return lambda s: h0[s & 511] + h1[(s >> 9) & 511] + h2[s >> 18]


LOW_BITS = sum(1 << (3 * c) for c in range(9))  # bit 0 of each cell


@lru_cache(maxsize=None)
def moves_by_occupancy() -> dict[int, tuple]:
    """For each pattern of occupied cells (bit 3c set when cell c holds a die, as (s | s>>1 | s>>2) & LOW_BITS
    gives it): the (neighbours' bits, {those bits: move deltas}) of its empty cells, so a board finds its empty
    cells with one look-up instead of testing nine."""
    cells = tables.python_moves()
    out = {}
    for pattern in range(512):
        occupied = sum(1 << (3 * c) for c in range(9) if pattern >> c & 1)
        out[occupied] = tuple((nbr_mask, table) for c, (_, nbr_mask, table) in enumerate(cells) if not pattern >> c & 1)
    return out


def expand(layer, cells, nxt):
    """Add every move of every board of ``layer`` into ``nxt`` (a defaultdict(int)), carrying the board's value
    (a path count, or packed counts); return the full boards, where the game ended, with their values.
    ``cells`` is moves_by_occupancy()."""
    ended = []
    for s, value in layer.items():
        empty = cells[(s | s >> 1 | s >> 2) & LOW_BITS]
        if not empty:
            ended.append((s, value))
            continue
        for nbr_mask, table in empty:
            for delta in table[s & nbr_mask]:
                nxt[s + delta] += value
    return ended


@lru_cache(maxsize=None)
def endings_by_occupancy() -> dict[int, tuple]:
    """moves_by_occupancy() for the last layer: per empty cell, (neighbours' bits, {those bits: (number of moves,
    how they change the eight orientation hashes of the board, summed, LANE bits a lane)}). The base-10 hash is
    linear in the cells, so a board's successors' hashes are (moves) x (its own) + these sums over its empty
    cells: the last layer is summed from its parents, never built (the write-up's step 6 taken one further, as
    c/fast.c takes it)."""
    _, base, _ = tables.array_moves()
    changes = tables.row_hash_changes()
    cells = tables.python_moves()
    per_cell = []
    for c, (_, nbr_mask, table) in enumerate(cells):
        ends = {}
        for key, deltas in table.items():
            compact = sum(((key >> (3 * n)) & 7) << (3 * j) for j, n in enumerate(NEIGHBOURS[c]))
            row = changes[int(base[c]) + compact]
            ends[key] = (len(deltas), sum(int(row[k]) << (LANE * k) for k in range(8)))
        per_cell.append((nbr_mask, ends))
    out = {}
    for pattern in range(512):
        occupied = sum(1 << (3 * c) for c in range(9) if pattern >> c & 1)
        out[occupied] = tuple(per_cell[c] for c in range(9) if not pattern >> c & 1)
    return out


def successor_changes(s, ends):
    """(moves from s, the packed hash changes of its successors summed); (0, 0) for a full board."""
    n = change = 0
    for nbr_mask, table in ends[(s | s >> 1 | s >> 2) & LOW_BITS]:
        k, d = table[s & nbr_mask]
        n += k
        change += d
    return n, change


def solve_bfs(depth, board, cells=None, state_hash=None, ends=None):
    cells = cells or moves_by_occupancy()
    state_hash = state_hash or _hasher()
    ends = ends or endings_by_occupancy()
    layer = {tables.pack(board, zeros=False): 1}
    total = 0
    boards = 0  # distinct boards stored, over layers 1..depth-1 (the last is summed from its parents)
    for d in range(depth - 1):
        nxt = defaultdict(int)
        for s, c in expand(layer, cells, nxt):
            total += c * state_hash(s)
        layer = {s: c & MASK for s, c in nxt.items()}
        boards += len(layer)
        progress.advance(d + 1, depth, "layers")
    for s, c in layer.items():
        n, change = successor_changes(s, ends) if depth else (0, 0)
        # a full board ends its game: its own hash once (n = 0); lane 0 of the changes is the board as it stands
        total += c * ((n or 1) * state_hash(s) + (change & 0xFFFFFFFF))
    if depth:
        progress.advance(depth, depth, "layers")
    return total & MASK, boards


def _prepare_bfs(workload):
    cases = _cases(workload)
    cells, state_hash, ends = moves_by_occupancy(), _hasher(), endings_by_occupancy()

    def batch():
        return run_cases(lambda d, b: solve_bfs(d, b, cells, state_hash, ends), cases)

    return batch


# -- breadth first over canonical boards ---------------------------------------------------------------------
LANE = 64  # the eight orientation counts of a board ride in one Python int, 64 bits each
_COUNTS = struct.Struct("<8Q")
_FORMS = struct.Struct("<8I")
LANE_MASK = sum(MASK << (LANE * k) for k in range(8))


@lru_cache(maxsize=None)
def _sym_tables():
    """Per chunk g of 9 bits and its 512 values: the eight forms packed 32 bits a lane (OR the three chunks and
    read all eight forms of a board at once), and the eight forms' hashes packed 64 bits a lane (add the three).
    ``moves[k]`` permutes eight counts when lane k held the smallest form (tables.fast_tables()['perm'])."""
    xform = tables.transform_chunks()
    hash8 = tables.flat_tables()["hash8"].reshape(3, 512, 8)
    forms = [[sum(int(xform[g, b, k]) << (32 * k) for k in range(8)) for b in range(512)] for g in range(3)]
    hashes = [[sum(int(hash8[g, b, k]) << (LANE * k) for k in range(8)) for b in range(512)] for g in range(3)]
    moves = [operator.itemgetter(*map(int, row)) for row in tables.fast_tables()["perm"]]
    return forms, hashes, moves


def _symmetric(forms, hashes, moves):
    f0, f1, f2 = forms
    h0, h1, h2 = hashes
    unpack_forms, unpack_counts, pack_counts = _FORMS.unpack, _COUNTS.unpack, _COUNTS.pack
    from_bytes = int.from_bytes

    def canon(t, packed):
        """(canonical form of t, the counts of t moved to the orientations of that form); a lane over 64 bits
        would raise OverflowError in to_bytes rather than spill into the next"""
        all8 = unpack_forms((f0[t & 511] | f1[(t >> 9) & 511] | f2[t >> 18]).to_bytes(32, "little"))
        best = min(all8)
        k = all8.index(best)
        if k == 0:  # t is its own canonical form: the counts stay where they are
            return best, packed
        return best, from_bytes(pack_counts(*moves[k](unpack_counts(packed.to_bytes(64, "little")))), "little")

    def weigh(s, packed, moves=1, changes=0):
        """sum over the eight orientations of paths x hash (not reduced); with the moves from s and their packed
        hash changes (successor_changes), the same over all of s's successors"""
        counts = unpack_counts((packed & LANE_MASK).to_bytes(64, "little"))
        hashes = moves * (h0[s & 511] + h1[(s >> 9) & 511] + h2[s >> 18]) + changes
        return sum(map(operator.mul, counts, unpack_counts(hashes.to_bytes(64, "little"))))

    return canon, weigh


def solve_sym(depth, board, cells=None, tabs=None, ends=None):
    """Breadth-first over canonical boards. The successors of a layer are merged first as they are (a dict of
    packed counts, one addition per move); then each distinct successor is canonicalised and its counts moved
    to the canonical orientations once, with the eight forms and the eight counts each read in one C call."""
    cells = cells or moves_by_occupancy()
    ends = ends or endings_by_occupancy()
    canon, weigh = _symmetric(*(tabs or _sym_tables()))
    start, packed = canon(tables.pack(board, zeros=False), 1)
    layer = {start: packed}
    total = 0
    boards = 0
    for d in range(depth - 1):
        raw = defaultdict(int)
        for s, packed in expand(layer, cells, raw):
            total += weigh(s, packed)
        nxt = defaultdict(int)
        for t, packed in raw.items():
            c, moved = canon(t, packed)
            nxt[c] += moved
        layer = {c: v & LANE_MASK for c, v in nxt.items()}  # lanes stay far below 2^64
        boards += len(layer)
        progress.advance(d + 1, depth, "layers")
    for s, packed in layer.items():  # the last layer, from its parents (a full board counts once, as it is)
        n, changes = successor_changes(s, ends) if depth else (0, 0)
        total += weigh(s, packed, n or 1, changes)
    if depth:
        progress.advance(depth, depth, "layers")
    return total & MASK, boards


def _prepare_sym(workload):
    cases = _cases(workload)
    cells, tabs, ends = moves_by_occupancy(), _sym_tables(), endings_by_occupancy()

    def batch():
        return run_cases(lambda d, b: solve_sym(d, b, cells, tabs, ends), cases)

    return batch


K = "cephalopod.hashsum"
IMPLEMENTATIONS = [
    Implementation(
        K,
        "paths",
        "python-naive",
        _prepare_paths,
        description=f"every move sequence one by one (depth-first); refuses workloads of over {PATH_LIMIT:,} paths",
    ),
    Implementation(
        K,
        "bfs",
        "python-bfs",
        _prepare_bfs,
        description="breadth-first, dict from packed board to path count, moves from lookup dicts",
    ),
    Implementation(
        K,
        "bfs-sym",
        "python-bfs-sym",
        _prepare_sym,
        description="breadth-first over canonical boards with eight orientation counts",
    ),
]
