"""Cephalopod: the reachable-state hash of CodinGame's Spring Challenge 2025 (Jeremy Sawicki's write-up of his CodinGame Spring Challenge 2025 entry).

A board is 3x3 cells numbered 0..8 row by row; a cell holds 0 (empty) or a die 1..6. A move fills one empty cell:
with every subset of two or more occupied orthogonal neighbours whose pips sum to 6 or less it captures them (one
move per such subset, the new die shows the sum), and without any such subset it places a 1. A full board ends
the game. ``cephalopod.hashsum`` sums the base-10 hash of the final board of every path of ``depth`` moves
(fewer when a full board ends it) modulo 2^30.

A workload's inputs are ``{"depth": int32[N], "cells": uint8[N, 9]}``; the outputs are int64[N] answers.
The reference is the plainest exact method: breadth-first, one layer per move, a dict from board to the number of
paths reaching it (mod 2^30), so equal boards are expanded once.
"""

from __future__ import annotations

import itertools
import operator
from functools import lru_cache

import numpy as np

from swarbench import progress
from swarbench.model import InvalidInput, Kernel, KnownAnswer, Parameter, WorkloadKind

MOD = 1 << 30
MASK = MOD - 1
MAX_DEPTH = 1000  # anything deeper is refused as input; the families decide what they can finish

NEIGHBOURS = tuple(
    tuple(
        r * 3 + c
        for r, c in ((row - 1, col), (row, col - 1), (row, col + 1), (row + 1, col))
        if 0 <= r < 3 and 0 <= c < 3
    )
    for row in range(3)
    for col in range(3)
)
POW10 = tuple(10 ** (8 - i) for i in range(9))

# The eight symmetries of the square as in the spec: new cell i takes old cell PERMS[k][i].
PERMS = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8),  # identity
    (6, 3, 0, 7, 4, 1, 8, 5, 2),  # rot90
    (8, 7, 6, 5, 4, 3, 2, 1, 0),  # rot180
    (2, 5, 8, 1, 4, 7, 0, 3, 6),  # rot270
    (2, 1, 0, 5, 4, 3, 8, 7, 6),  # mirror, vertical axis
    (8, 5, 2, 7, 4, 1, 6, 3, 0),  # anti-diagonal
    (6, 7, 8, 3, 4, 5, 0, 1, 2),  # mirror, horizontal axis
    (0, 3, 6, 1, 4, 7, 2, 5, 8),  # main diagonal
)


def _compose_table() -> tuple[tuple[int, ...], ...]:
    """COMPOSE[a][b] = c where applying b, then a, is c: board[PERMS[b][PERMS[a][i]]] = board[PERMS[c][i]]."""
    out = []
    for a in range(8):
        row = []
        for b in range(8):
            perm = tuple(PERMS[b][PERMS[a][i]] for i in range(9))
            row.append(PERMS.index(perm))
        out.append(tuple(row))
    return tuple(out)


COMPOSE = _compose_table()


# -- the rules -----------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def captures(values: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The moves into an empty cell whose neighbours hold ``values`` (0 = empty), as (neighbour indexes, new die).

    Indexes are positions in ``values``. No capturing subset gives the single move ((), 1).
    """
    occupied = [j for j, v in enumerate(values) if v]
    moves = []
    for k in range(2, len(occupied) + 1):
        for subset in itertools.combinations(occupied, k):
            total = sum(values[j] for j in subset)
            if total <= 6:
                moves.append((subset, total))
    return tuple(moves) if moves else (((), 1),)


@lru_cache(maxsize=None)
def _edits(cell: int, values: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """captures() in board terms: (the cells a move empties, the die it puts in ``cell``)."""
    nbrs = NEIGHBOURS[cell]
    return tuple((tuple(nbrs[j] for j in subset), die) for subset, die in captures(values))


_NEIGHBOUR_VALUES = tuple(operator.itemgetter(*nbrs) for nbrs in NEIGHBOURS)  # every cell has 2 to 4


def successors(board: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every board one move away (one entry per move, so a board reached by two moves appears twice)."""
    out = []
    for cell in range(9):
        if board[cell]:
            continue
        for emptied, die in _edits(cell, _NEIGHBOUR_VALUES[cell](board)):
            new = list(board)
            for n in emptied:
                new[n] = 0
            new[cell] = die
            out.append(tuple(new))
    return out


def board_hash(board) -> int:
    return sum(int(v) * p for v, p in zip(board, POW10))


def transform(board, k: int) -> tuple[int, ...]:
    return tuple(board[PERMS[k][i]] for i in range(9))


def step(layer: dict, modulus: int = 0) -> tuple[dict, list]:
    """One move from every board of a layer: the next layer {board: paths}, and the boards whose game ended
    (full) with their paths. Paths are kept modulo ``modulus`` when it is given, else exact."""
    nxt: dict[tuple[int, ...], int] = {}
    ended = []
    get = nxt.get
    for b, count in layer.items():
        moves = successors(b)
        if not moves:  # full board: the game ends here
            ended.append((b, count))
        for s in moves:
            nxt[s] = get(s, 0) + count
    if modulus:
        nxt = {s: c % modulus for s, c in nxt.items()}
    return nxt, ended


def solve_reference(depth: int, board: tuple[int, ...]) -> int:
    """Breadth-first with a dict merging equal boards and carrying path counts modulo 2^30."""
    return answers_by_depth(depth, board)[depth]


def answers_by_depth(depth: int, board: tuple[int, ...], wanted=None, layers_done=None) -> dict[int, int]:
    """The answers for 0..depth moves from ``board`` (only the depths in ``wanted``, when given), all from one
    breadth-first search: after k layers, the boards whose game ended earlier plus the boards of layer k are
    exactly the final boards of k moves. ``layers_done`` is called after each layer (for progress)."""
    layer = {tuple(board): 1}
    ended = 0  # sum of count * hash over the boards whose game ended so far
    answers = {0: board_hash(board) % MOD}
    for k in range(1, depth + 1):
        layer, done = step(layer, MOD)
        ended += sum(count * board_hash(b) for b, count in done)
        if wanted is None or k in wanted:
            answers[k] = (ended + sum(count * board_hash(b) for b, count in layer.items())) % MOD
        if layers_done is not None:
            layers_done()
    return answers


def path_count(depth: int, board: tuple[int, ...], limit: float = float("inf")):
    """The exact number of paths (arbitrary precision), or None as soon as it exceeds ``limit``.

    Paths never decrease from one layer to the next (a board with no move ends its paths, it does not drop them),
    so a layer over the limit means the whole search is.
    """
    layer = {tuple(board): 1}
    ended = 0
    for _ in range(depth):
        layer, done = step(layer)
        ended += sum(count for _, count in done)
        if ended + sum(layer.values()) > limit:
            return None
    return ended + sum(layer.values())


def reference(inputs) -> np.ndarray:
    """Cases from one start board (the empty-board series) share a single search up to their deepest case."""
    cases = [(int(d), tuple(int(v) for v in c)) for d, c in zip(inputs["depth"], inputs["cells"])]
    wanted: dict[tuple[int, ...], set] = {}
    for d, b in cases:
        wanted.setdefault(b, set()).add(d)
    total = sum(max(depths) for depths in wanted.values())
    done = 0

    def layer_done():
        nonlocal done
        done += 1
        progress.advance(done, total, "layers")

    by_board = {b: answers_by_depth(max(depths), b, depths, layer_done) for b, depths in wanted.items()}
    return np.array([by_board[b][d] for d, b in cases], dtype=np.int64)


# -- validation and parsing ----------------------------------------------------------------------------------
def validate(inputs) -> None:
    depth = np.asarray(inputs["depth"])
    cells = np.asarray(inputs["cells"])
    if cells.ndim != 2 or cells.shape[1:] != (9,) or depth.shape != cells.shape[:1]:
        raise InvalidInput(f"expected depth[N] and cells[N, 9], got shapes {depth.shape} and {cells.shape}")
    bad = np.flatnonzero((depth < 0) | (depth > MAX_DEPTH))
    if bad.size:
        i = int(bad[0])
        raise InvalidInput(f"case {i}: depth {int(depth[i])} is not in 0..{MAX_DEPTH}")
    bad_cells = np.argwhere((cells.astype(np.int64) < 0) | (cells.astype(np.int64) > 6))
    if bad_cells.size:
        i, j = (int(x) for x in bad_cells[0])
        raise InvalidInput(f"case {i}: cell {j} holds {int(cells[i, j])}, not a value in 0..6")


def parse_board(text: str) -> tuple[int, ...]:
    """Nine digits ('060222161', '060 222 161') or nine values apart, to the cells; InvalidInput names a bad
    value."""
    tokens = text.split()
    joined = "".join(tokens)
    if len(tokens) in (1, 3) and len(joined) == 9 and joined.isdigit():
        tokens = list(joined)
    if len(tokens) != 9:
        raise InvalidInput(f"a board has 9 values, got {len(tokens)}: {text.strip()!r}")
    return tuple(_cell(t) for t in tokens)


def _cell(token: str) -> int:
    try:
        v = int(token)
    except ValueError:
        raise InvalidInput(f"board value {token!r} is not a number in 0..6") from None
    if not 0 <= v <= 6:
        raise InvalidInput(f"board value {v} is not in 0..6")
    return v


def parse_depth(token: str) -> int:
    try:
        d = int(token)
    except ValueError:
        raise InvalidInput(f"depth {token!r} is not a whole number") from None
    if d < 0:
        raise InvalidInput(f"depth {d} is negative")
    if d > MAX_DEPTH:
        raise InvalidInput(f"depth {d} is above {MAX_DEPTH}")
    return d


def parse_contest_input(text: str) -> tuple[int, tuple[int, ...]]:
    """The contest's input: the depth on the first line, then three lines of three values."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise InvalidInput("empty input: expected the depth, then three lines of three values")
    depth = parse_depth(lines[0].strip())
    rows = lines[1:]
    if len(rows) < 3:
        raise InvalidInput(f"missing board line: got {len(rows)} of 3 lines after the depth")
    if len(rows) > 3:
        raise InvalidInput(f"unexpected extra line {len(rows) + 1} after the board: {rows[3].strip()!r}")
    cells = []
    for n, row in enumerate(rows, start=1):
        values = row.split()
        if len(values) != 3:
            raise InvalidInput(f"board line {n} has {len(values)} values, expected 3: {row.strip()!r}")
        cells += [_cell(v) for v in values]
    return depth, tuple(cells)


def make_inputs(cases) -> dict[str, np.ndarray]:
    """[(depth, cells), ...] to the kernel's layout."""
    cases = list(cases)
    return {
        "depth": np.array([d for d, _ in cases], dtype=np.int32).reshape(len(cases)),
        "cells": np.array([c for _, c in cases], dtype=np.uint8).reshape(len(cases), 9),
    }


def describe_input(inputs, i: int) -> str:
    cells = "".join(str(int(v)) for v in inputs["cells"][i])
    return f"depth {int(inputs['depth'][i])}, board {cells[:3]}/{cells[3:6]}/{cells[6:]}"


# -- workloads -----------------------------------------------------------------------------------------------
# The twelve official tests of the contest, their inputs and expected outputs as the contest published them
# (data/cephalopod_cases.csv, with their path counts).
OFFICIAL = (
    ("cg_test_01", 20, "060222161", 322444322),
    ("cg_test_02", 20, "506450064", 951223336),
    ("cg_test_03", 1, "555005555", 36379286),
    ("cg_test_04", 1, "616101616", 264239762),
    ("cg_test_05", 8, "606000615", 76092874),
    ("cg_test_06", 24, "300362102", 661168294),
    ("cg_test_07", 36, "604202400", 350917228),
    ("cg_test_08", 32, "000054105", 999653138),
    ("cg_test_09", 40, "004024134", 521112022),
    ("cg_test_10", 40, "054030030", 667094338),
    ("cg_test_11", 20, "051000401", 738691369),
    ("cg_test_12", 20, "100352100", 808014757),
)
OFFICIAL_SOURCE = "CodinGame Spring Challenge 2025, official tests 1-12"
# Small cases made by hand in the spec, checkable on paper.
HANDMADE = (
    ("empty board, one move", 1, "000000000", 111111111),
    ("full but one: no capture", 1, "666666660", 666666661),
    ("single capture", 1, "666666101", 666666020),
    ("three captures", 1, "666656101", 926126417),
)
EMPTY = (0,) * 9
EMPTY_DEPTHS = 40  # the empty series stops at the depth of the contest's deepest tests


def official_inputs() -> dict[str, np.ndarray]:
    return make_inputs((d, parse_board(b)) for _, d, b, _ in OFFICIAL)


def _official(size, seed):
    return official_inputs(), len(OFFICIAL)


def official_answers(inputs) -> np.ndarray:
    """The contest's published outputs, the oracle of the official workload (the tests show the reference's
    breadth-first search reaching the same twelve values, so no run pays seconds of pure Python for them)."""
    published = {(d, parse_board(b)): v for _, d, b, v in OFFICIAL}
    return np.array(
        [published[(int(d), tuple(int(v) for v in c))] for d, c in zip(inputs["depth"], inputs["cells"])],
        dtype=np.int64,
    )


def _empty_series(size, seed):
    return make_inputs([(d, EMPTY) for d in range(1, int(size) + 1)]), int(size)


def parse_case(text: str) -> tuple[int, tuple[int, ...]]:
    """--param case='DEPTH BOARD' (e.g. '20 060222161') to (depth, board); InvalidInput names what is wrong."""
    parts = text.split(None, 1)
    if len(parts) != 2:
        raise InvalidInput(f"case {text!r}: expected 'DEPTH BOARD', e.g. '20 060222161'")
    return parse_depth(parts[0]), parse_board(parts[1])


def _single(size, seed, values):
    return make_inputs([values["case"]]), 1


WORKLOADS = (
    WorkloadKind(
        "official",
        _official,
        "the contest's twelve official tests, one batch",
        default_size=12,
        test_size=12,
        fixed_size=True,
        bytes_per_op=1 << 26,
        expected=official_answers,
    ),
    WorkloadKind(
        "empty",
        _empty_series,
        "the empty board at depths 1..N, one case per depth (N = --size, 20 by "
        f"default, up to {EMPTY_DEPTHS}; the per-case times chart time against depth)",
        default_size=20,
        test_size=6,
        default=False,
        bytes_per_op=1 << 25,
        max_size=EMPTY_DEPTHS,
    ),
    WorkloadKind(
        "single",
        _single,
        "one case given with --param case='DEPTH BOARD'",
        default_size=1,
        test_size=1,
        default=False,
        fixed_size=True,
        bytes_per_op=1 << 29,
        parameters={
            "case": Parameter(
                "depth, then the nine cells, e.g. '20 060222161'", f"{OFFICIAL[0][1]} {OFFICIAL[0][2]}", parse_case
            )
        },
    ),
)


def depth_of(workload) -> int:
    """The deepest case of a workload: what decides whether a slow family can finish it."""
    return int(np.max(workload.inputs["depth"])) if len(workload.inputs["depth"]) else 0


def _known():
    out = [
        KnownAnswer(name, make_inputs([(d, parse_board(b))]), np.array([v], np.int64), "spec, hand-made cases")
        for name, d, b, v in HANDMADE
    ]
    out.append(
        KnownAnswer(
            "depth 0 is the board's own hash",
            make_inputs([(0, parse_board("123456012"))]),
            np.array([123456012], np.int64),
            "spec, 'Depth 0 gives the input board's hash'",
        )
    )
    return out


# -- what a batch returns --------------------------------------------------------------------------------------
class Answers:
    """The answers of a batch (read as an int64 array by the oracle), with what each case cost the family.

    ``case_s``: seconds per case as the batch measured them; ``boards``: the distinct boards the family stored,
    summed over its layers (canonical boards for a family using symmetry), or None when it does not count;
    ``page_faults``: pages the kernel had to map (and zero) during the batch, where the family counts them.
    """

    def __init__(self, answers, case_s, boards=None, page_faults=None):
        self.answers = np.asarray(answers, dtype=np.int64)
        self.case_s = list(case_s)
        self.boards = None if boards is None else [int(b) for b in boards]
        self.page_faults = page_faults  # the process's minor page faults during the batch, where counted

    def __array__(self, dtype=None, copy=None):
        return self.answers if dtype is None else self.answers.astype(dtype)

    def __len__(self):
        return len(self.answers)


def run_cases(solve, cases) -> Answers:
    """Solve each (depth, board) with ``solve(depth, board) -> (answer, boards)``, timing every case."""
    from time import perf_counter

    answers, times, boards = [], [], []
    for depth, board in cases:
        start = perf_counter()
        answer, stored = solve(depth, board)
        times.append(perf_counter() - start)
        answers.append(answer)
        boards.append(stored)
    return Answers(answers, times, None if any(b is None for b in boards) else boards)


def summarize(outputs) -> dict:
    out = {"answers": [int(v) for v in np.asarray(outputs)]}
    if isinstance(outputs, Answers):
        out["case_ms"] = [round(t * 1e3, 4) for t in outputs.case_s]
        out["total_ms"] = round(sum(outputs.case_s) * 1e3, 4)
        if outputs.boards is not None:
            out["boards"] = sum(outputs.boards)
            out["case_boards"] = outputs.boards
        if outputs.page_faults is not None:
            out["page_faults"] = int(outputs.page_faults)
    return out


HASHSUM = Kernel(
    id="cephalopod.hashsum",
    description="sum of the hashes of every board reached by every path of d moves, modulo 2^30",
    unit="case",
    workloads=WORKLOADS,
    reference=reference,
    known_answers=_known,
    validate=validate,
    describe_input=describe_input,
    baseline="bfs",
    source="Jeremy Sawicki's write-up of his CodinGame Spring Challenge 2025 entry",
    summarize=summarize,
    op_is_element=False,  # a case is a whole search of the boards it reaches
)

KERNELS = (HASHSUM,)
