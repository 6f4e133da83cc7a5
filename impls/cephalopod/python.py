"""Pure-Python families: every path one by one, breadth-first merging equal boards, and the same with symmetry.

- ``paths``: a depth-first walk of every move sequence on tuples, the readable statement of the problem. Its
  cost is the number of paths, so ``prepare`` counts them first (cheaply, merging boards) and refuses a
  workload with more than PATH_LIMIT of them.
- ``bfs``: one dict per layer from packed board (Python int, 3 bits a cell) to its path count; the moves into
  each empty cell come from a dict keyed by the neighbours' bits, as the write-up's lookup tables.
- ``bfs-sym``: one canonical board per class of the eight symmetries, with eight counts (one per orientation).
"""
from __future__ import annotations

from collections import defaultdict

from harness.model import Implementation, TooSlow

from . import tables
from .spec import COMPOSE, MASK, board_hash, path_count, run_cases, successors

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


def _prepare_paths(workload):
    cases = _cases(workload)
    for depth, board in cases:
        if path_count(depth, board, PATH_LIMIT) is None:
            raise TooSlow(f"path-by-path search of depth {depth} from {''.join(map(str, board))} "
                          f"walks more than {PATH_LIMIT:,} paths")

    def batch():
        return run_cases(lambda d, b: (walk(d, b) & MASK, None), cases)

    return batch


# -- breadth first with a dict -------------------------------------------------------------------------------
def _hasher():
    h0, h1, h2 = (list(map(int, row)) for row in tables.hash_chunks())
    return lambda s: h0[s & 511] + h1[(s >> 9) & 511] + h2[s >> 18]


def expand(layer, cells, nxt):
    """Add every move of every board of ``layer`` into ``nxt`` (a defaultdict(int)), carrying the board's value
    (a path count, or packed counts); return the full boards, where the game ended, with their values."""
    ended = []
    for s, value in layer.items():
        moved = False
        for cell_mask, nbr_mask, table in cells:
            if s & cell_mask:
                continue
            moved = True
            for delta in table[s & nbr_mask]:
                nxt[s + delta] += value
        if not moved:
            ended.append((s, value))
    return ended


def solve_bfs(depth, board, cells=None, state_hash=None):
    cells = cells or tables.python_moves()
    state_hash = state_hash or _hasher()
    layer = {tables.pack(board, zeros=False): 1}
    total = 0
    boards = 0  # distinct boards over layers 1..depth, as the spec counts them
    for _ in range(depth):
        nxt = defaultdict(int)
        for s, c in expand(layer, cells, nxt):
            total += c * state_hash(s)
        layer = {s: c & MASK for s, c in nxt.items()}
        boards += len(layer)
    for s, c in layer.items():
        total += c * state_hash(s)
    return total & MASK, boards


def _prepare_bfs(workload):
    cases = _cases(workload)
    cells, state_hash = tables.python_moves(), _hasher()

    def batch():
        return run_cases(lambda d, b: solve_bfs(d, b, cells, state_hash), cases)

    return batch


# -- breadth first over canonical boards ---------------------------------------------------------------------
def _canoniser():
    """A function from a packed board to (canonical board, k) with board = transform k of the canonical one."""
    chunks = tables.transform_chunks()
    t0, t1, t2 = (chunks[g].tolist() for g in range(3))
    # the inverse symmetry: transform k of canonical c is the board, when c is transform inv(k) of the board
    inverse = [COMPOSE[k].index(0) for k in range(8)]

    def canon(s):
        a, b, c = t0[s & 511], t1[(s >> 9) & 511], t2[s >> 18]
        forms = [x | y | z for x, y, z in zip(a, b, c)]
        best = min(forms)
        return best, inverse[forms.index(best)]

    return canon


LANE = 64


def solve_sym(depth, board, cells=None, state_hash=None, canon=None):
    """The eight counts of a board ride in one Python int, 64 bits each (count k in bits 64k..), so a move adds
    all eight with one addition; each distinct successor is canonicalised, and its counts permuted, once."""
    cells = cells or tables.python_moves()
    state_hash = state_hash or _hasher()
    canon = canon or _canoniser()
    # lanes[k] = paths reaching transform k of the canonical board
    start, k0 = canon(tables.pack(board, zeros=False))
    layer = {start: 1 << (LANE * k0)}
    total = 0
    boards = 0
    # where orientation k of a board lands when the successor is orientation j of its canonical board
    shifts = [[LANE * COMPOSE[k][j] for k in range(8)] for j in range(8)]
    lanes = [LANE * k for k in range(8)]
    forms_of = _forms_hasher(state_hash)
    for _ in range(depth):
        raw = defaultdict(int)
        for s, packed in expand(layer, cells, raw):
            total += sum(((packed >> sh) & MASK) * h for sh, h in zip(lanes, forms_of(s)))
        layer = defaultdict(int)
        for t, packed in raw.items():
            c, j = canon(t)
            layer[c] += sum(((packed >> sh) & MASK) << to for sh, to in zip(lanes, shifts[j]))
        boards += len(layer)
    for s, packed in layer.items():
        total += sum(((packed >> sh) & MASK) * h for sh, h in zip(lanes, forms_of(s)))
    return total & MASK, boards


def _forms_hasher(state_hash):
    chunks = tables.transform_chunks()
    t0, t1, t2 = (chunks[g].tolist() for g in range(3))

    def forms_of(s):
        return [state_hash(x | y | z) for x, y, z in zip(t0[s & 511], t1[(s >> 9) & 511], t2[s >> 18])]

    return forms_of


def _prepare_sym(workload):
    cases = _cases(workload)
    cells, state_hash, canon = tables.python_moves(), _hasher(), _canoniser()

    def batch():
        return run_cases(lambda d, b: solve_sym(d, b, cells, state_hash, canon), cases)

    return batch


K = "cephalopod.hashsum"
IMPLEMENTATIONS = [
    Implementation(K, "paths", "python-naive", _prepare_paths,
                   description="every move sequence one by one (depth-first); refuses workloads of over "
                               f"{PATH_LIMIT:,} paths"),
    Implementation(K, "bfs", "python-bfs", _prepare_bfs,
                   description="breadth-first, dict from packed board to path count, moves from lookup dicts"),
    Implementation(K, "bfs-sym", "python-bfs-sym", _prepare_sym,
                   description="breadth-first over canonical boards with eight orientation counts"),
]
