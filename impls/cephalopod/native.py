"""C families through cffi, one per step of the write-up's progression (its submission list).

All share ``c/search.h`` (the breadth-first search over packed boards with a linear-probing hash table); which
steps a build takes is chosen with -D flags. ``c/scalar.c`` holds the scalar symmetry helpers and is built with
-fno-tree-vectorize; ``c/avx2.c`` holds the AVX2 ones. The lookup tables are built in Python from the rules
(tables.py) and handed to C as pointers, so the C code never restates the rules' tables.

Write-up steps:  1 hash table with linear probing (c-hash);  2 move lookup tables (c-lut);  3 symmetry (c-sym);
6 full and last-depth boards summed without insertion (c-direct);  5 SIMD canonicalisation (c-avx2);
4 prefetching (c-avx2-prefetch); 7-16 in ``c/fast.c`` (c-fast), with the last two layers summed from per-row hash
changes instead of being built (see the comment at the top of that file for what it takes and leaves). The rows
c-fast-* take c-fast's memory steps away (c-fast-fresh: none; c-fast-mmap: step 7 without 16) or add one (c-fast-nt:
step 17), or change its chunk of moves (c-fast-pf32, c-fast-pf1024), or take back one of its own steps
(c-fast-byte-forms: the write-up's step 10, forms from byte tables one move at a time; c-fast-cell-loop).
"""

import itertools
import os
import platform
from functools import partial
from pathlib import Path

import numpy as np

from swarbench import features
from swarbench.cbuild import CannotBuildHere, build
from swarbench.model import Implementation

from . import tables
from .spec import Answers, run_cases

C_DIR = Path(__file__).parent / "c"
CDEF = """
typedef struct {
    const uint32_t *moves; const int32_t *base; const int32_t *nbr; const uint32_t *hash3; const uint32_t *hash8;
    const uint32_t *xform; const int32_t *inverse; const int32_t *gather;
} ceph_tables;
typedef ... ceph_work;
ceph_work *ceph_new(void);
void ceph_free(ceph_work *w);
int64_t ceph_solve(ceph_work *w, const ceph_tables *T, uint32_t start, int depth, int64_t *boards);
"""


def _header_flag(included: str = "search.h") -> str:
    """swarbench.cbuild keys its cache on the .c file only; the digest of a file it includes joins the flags so an
    edit to that file (search.h, or fast.c under split.c) rebuilds every module that includes it."""
    import hashlib

    macro = "-D" + included.upper().replace(".", "_")
    return macro + "=0x" + hashlib.sha256((C_DIR / included).read_bytes()).hexdigest()[:12]


def _bind(ffi, struct, arrays):
    """The tables as a C struct of pointers into the NumPy arrays (which the caller keeps alive)."""
    t = ffi.new(struct + " *")
    for field, arr in arrays.items():
        ctype = "int32_t *" if arr.dtype == np.int32 else "uint32_t *"
        setattr(t, field, ffi.cast(ctype, ffi.from_buffer(arr)))
    return t


try:
    import resource
except ImportError:  # not a Unix: no fault counts
    resource = None


def _minor_faults() -> int:
    """Pages the kernel has mapped for this process so far (zero-filled on a first write): what steps 7 and 16
    save a solve shows in them whatever else the machine runs, where a time does not. 0 where nothing counts them."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt if resource else 0


def _batch(workload, solve, work, tables_ptr, ffi, keep):
    """The timed call: every case of the workload through ``solve``, timed one by one."""
    boards = ffi.new("int64_t *")
    cases = [(int(d), tables.pack(c)) for d, c in zip(workload.inputs["depth"], workload.inputs["cells"])]

    def one(depth, start):
        answer = solve(work, tables_ptr, start, depth, boards)
        if answer < 0:
            raise MemoryError("the C search ran out of memory")
        return answer, boards[0]

    for depth, start in cases:  # size and touch the workspace for this very workload, outside the timed call
        one(depth, start)

    def batch():
        faults = _minor_faults()
        answers = run_cases(one, cases)
        answers.page_faults = _minor_faults() - faults
        return answers

    batch.keepalive = keep
    return batch


def module(source, isa, flags):
    name = "cephalopod_" + "_".join(
        [Path(source).stem] + [f.lstrip("-D").split("=")[0].lower() for f in flags if f.endswith("=1")]
    )
    return build(name[:60], C_DIR / source, CDEF, isa, tuple(flags) + (_header_flag(),))


def _prepare(source, isa, flags):
    def prepare(workload):
        mod = module(source, isa, flags)
        ffi, lib = mod.ffi, mod.lib
        arrays = tables.flat_tables()
        t = _bind(ffi, "ceph_tables", arrays)
        work = ffi.gc(lib.ceph_new(), lib.ceph_free)
        return _batch(workload, lib.ceph_solve, work, t, ffi, (arrays, t, work))

    return prepare


SCALAR = ("-fno-tree-vectorize",)
# name, family, source, instruction sets, flags, what the step adds
VARIANTS = [
    (
        "c-hash",
        "cffi-scalar",
        "scalar.c",
        (),
        SCALAR,
        "step 1: hash table with linear probing, moves found by trying neighbour subsets",
    ),
    (
        "c-lut",
        "cffi-scalar",
        "scalar.c",
        (),
        SCALAR + ("-DMOVES_LUT=1",),
        "step 2: + move lookup tables (deltas added to the packed board)",
    ),
    (
        "c-sym",
        "cffi-scalar",
        "scalar.c",
        (),
        SCALAR + ("-DMOVES_LUT=1", "-DSYMMETRY=1"),
        "step 3: + symmetry, one canonical board and eight counts",
    ),
    (
        "c-direct",
        "cffi-scalar",
        "scalar.c",
        (),
        SCALAR + ("-DMOVES_LUT=1", "-DSYMMETRY=1", "-DDIRECT_SUM=1"),
        "step 6: + full and last-depth boards summed without insertion",
    ),
    (
        "c-avx2",
        "cffi-avx2",
        "avx2.c",
        ("avx2",),
        (),
        "step 5: + AVX2 canonicalisation of all eight forms, vpermd count permutation, SIMD hash sums",
    ),
    (
        "c-avx2-prefetch",
        "cffi-avx2",
        "avx2.c",
        ("avx2",),
        ("-DPREFETCH=1",),
        "step 4: + prefetch of the hash table slot of the next move",
    ),
]

IMPLEMENTATIONS = [
    Implementation(
        "cephalopod.hashsum",
        name,
        family,
        _prepare(source, isa, flags),
        requires=("cc", *isa),
        description=f"C ({source}), {what}",
        build=partial(module, source, isa, flags),
    )
    for name, family, source, isa, flags, what in VARIANTS
]


# -- c/fast.c: the write-up's later steps and the summed last layers -----------------------------------------
FAST_CDEF = """
typedef struct {
    const uint32_t *moves; const int32_t *base; const uint32_t *nmask; const uint32_t *land; const uint32_t *hash;
    const uint32_t *rowhash; const int32_t *perm; const uint32_t *rowcount;
} fast_tables;
typedef ... fast_work;
fast_work *fast_new(void);
void fast_free(fast_work *w);
int fast_reserve(fast_work *w, size_t states, size_t slots);
int64_t fast_solve(fast_work *w, const fast_tables *T, uint32_t start, int depth, int64_t *boards);
int fast_solve_many(fast_work **works, int threads, const fast_tables *T, const uint32_t *starts,
                    const int32_t *depths, const int32_t *order, int n, int64_t *answers, int64_t *boards,
                    double *seconds);
"""


# Boards per layer and table slots reserved (and touched) in prepare: the largest canonical layer this search
# builds is 149,105 boards (the empty board, layer 36 of 40; the official tests' largest is 31,557), and the
# layer after n boards uses a table of the power of two at or above 16n, capped at 2^20 slots but never under
# 4n (fast.c, TABLE_MUL and TABLE_CAP). A larger layer still works: the buffers grow.
RESERVE_STATES, RESERVE_SLOTS = 1 << 18, 1 << 20


def posix() -> bool:
    return os.name == "posix"


def _need_posix():
    """c/fast.c maps its buffers (mmap) and starts threads (pthreads), and c/split.c keeps them: elsewhere its rows
    are a SKIP with the reason, not a compile error."""
    if not posix():
        raise CannotBuildHere(f"needs POSIX mmap and threads, this is {platform.system() or os.name}")


def fast_module(module: str = "cephalopod_fast", flags: tuple[str, ...] = ()):
    _need_posix()
    return build(module, C_DIR / "fast.c", FAST_CDEF, ("avx2", "bmi2"), flags)


def _prepare_fast(module: str, flags: tuple[str, ...] = (), reserve: bool = True):
    def prepare(workload):
        mod = fast_module(module, flags)
        ffi, lib = mod.ffi, mod.lib
        arrays = tables.fast_tables()
        t = _bind(ffi, "fast_tables", arrays)
        work = ffi.gc(lib.fast_new(), lib.fast_free)
        if reserve and lib.fast_reserve(work, RESERVE_STATES, RESERVE_SLOTS):
            raise MemoryError("cannot reserve the C search's buffers")
        return _batch(workload, lib.fast_solve, work, t, ffi, (arrays, t, work))

    return prepare


def _prepare_fast_cores(workload):
    """c-fast with the tests dealt out over every core, in deal_order's order (from their times in untimed calls)."""
    mod = fast_module()
    ffi, lib = mod.ffi, mod.lib
    arrays = tables.fast_tables()
    t = _bind(ffi, "fast_tables", arrays)
    threads = max(1, min(features.cores(), 16))
    works = [ffi.gc(lib.fast_new(), lib.fast_free) for _ in range(threads)]
    for w in works:
        if lib.fast_reserve(w, RESERVE_STATES, RESERVE_SLOTS):
            raise MemoryError("cannot reserve the C search's buffers")
    work_ptrs = ffi.new("fast_work *[]", works)
    n = len(workload.inputs["depth"])
    starts = np.array([tables.pack(c) for c in workload.inputs["cells"]], np.uint32)
    depths = np.asarray(workload.inputs["depth"], np.int32)
    answers, boards, seconds = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.float64)
    order = np.arange(n, dtype=np.int32)
    cast = lambda ctype, a: ffi.cast(ctype, ffi.from_buffer(a))  # noqa: E731
    args = (
        work_ptrs,
        threads,
        t,
        cast("uint32_t *", starts),
        cast("int32_t *", depths),
        cast("int32_t *", order),
        n,
        cast("int64_t *", answers),
        cast("int64_t *", boards),
        cast("double *", seconds),
    )

    def batch():
        faults = _minor_faults()
        if lib.fast_solve_many(*args):
            raise MemoryError("the C search ran out of memory")
        return Answers(answers.copy(), seconds.tolist(), boards.tolist(), _minor_faults() - faults)

    # untimed: sizes and touches every workspace, and times each test for the order
    order[:] = deal_order(best_times(batch, seconds), range(n), threads)
    batch.keepalive = (arrays, t, works, work_ptrs, starts, depths, answers, boards, seconds, order)
    return batch


# -- c/split.c: one test's layers built by two threads -----------------------------------------------------------
SPLIT_CDEF = (
    FAST_CDEF
    + """
typedef ... split_pool;
split_pool *split_new(int threads, size_t states, size_t slots);
void split_free(split_pool *P);
int split_solve_many(split_pool *P, const fast_tables *T, const uint32_t *starts, const int32_t *depths,
                     const int32_t *order, int n, int n_split, int64_t *answers, int64_t *boards, double *seconds);
"""
)


def split_module():
    _need_posix()
    return build("cephalopod_split", C_DIR / "split.c", SPLIT_CDEF, ("avx2", "bmi2"), (_header_flag("fast.c"),))


def dealt_time(seconds: np.ndarray, order, threads: int) -> float:
    """The estimated wall time of the tests of ``order`` dealt out as the C code does: the next test to the thread
    that is free first."""
    loads = [0.0] * max(1, threads)
    for c in order:
        loads[loads.index(min(loads))] += seconds[c]
    return max(loads)


DEAL_SEARCHED = 7  # the longest tests whose every order is tried (7! = 5040 estimates, about 20 ms)


def deal_order(seconds: np.ndarray, tests, threads: int) -> list:
    """``tests`` in the order whose dealing gives the shortest estimated call. Longest first is not it: with two
    threads and tests of 3, 3, 2, 2, 2 it ends at 7 where 3, 2, 2, 3, 2 ends at 6 (each thread 6). Every order of
    the DEAL_SEARCHED longest is tried, the rest following longest first; ties keep longest first."""
    tests = sorted(tests, key=lambda c: -seconds[c])
    head, tail = tests[:DEAL_SEARCHED], tests[DEAL_SEARCHED:]
    return list(min(itertools.permutations(head), key=lambda p: dealt_time(seconds, p + tuple(tail), threads))) + tail


def best_times(batch, seconds: np.ndarray, calls: int = 3) -> np.ndarray:
    """Each test's best time over a few untimed calls of ``batch``, which writes them into ``seconds``: one call's
    times may catch the machine busy."""
    best = np.full(len(seconds), np.inf)
    for _ in range(calls):
        batch()
        best = np.minimum(best, seconds)
    return best


def split_plan(single: np.ndarray, split: np.ndarray, threads: int) -> tuple[np.ndarray, int]:
    """The order of a batch's tests and how many of its first ones to split over the threads, from each test's time
    alone on one thread and split: the k longest split one after the other, then the rest dealt out (deal_order),
    with the k that gives the shortest estimated call."""
    longest = [int(c) for c in np.argsort(-single, kind="stable")]
    best = (float("inf"), 0, longest)
    for k in range(len(longest) + 1):
        dealt = deal_order(single, longest[k:], threads)
        estimate = split[longest[:k]].sum() + dealt_time(single, dealt, threads)
        if estimate < best[0]:
            best = (estimate, k, longest[:k] + dealt)
    return np.array(best[2], np.int32), best[1]


def _prepare_fast_split(workload, plan: str = "split"):
    """c-fast over two kept threads: with ``plan`` "split", every test split over both (every layer built by the
    two); "deal", every test dealt out whole in deal_order's order (each test's best of untimed calls); "mixed",
    only the longest tests split and the rest dealt out whole, where to stop splitting chosen from two untimed
    calls (every test alone on a thread, then every test split)."""
    mod = split_module()
    ffi, lib = mod.ffi, mod.lib
    arrays = tables.fast_tables()
    t = _bind(ffi, "fast_tables", arrays)
    threads = 2 if features.cores() >= 2 else 1
    pool = lib.split_new(threads, RESERVE_STATES, RESERVE_SLOTS)
    if pool == ffi.NULL:
        raise MemoryError("cannot reserve the C search's buffers")
    pool = ffi.gc(pool, lib.split_free)
    n = len(workload.inputs["depth"])
    starts = np.array([tables.pack(c) for c in workload.inputs["cells"]], np.uint32)
    depths = np.asarray(workload.inputs["depth"], np.int32)
    answers, boards, seconds = np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.float64)
    order = np.arange(n, dtype=np.int32)
    n_split = ffi.new("int *")
    cast = lambda ctype, a: ffi.cast(ctype, ffi.from_buffer(a))  # noqa: E731
    args = (pool, t, cast("uint32_t *", starts), cast("int32_t *", depths), cast("int32_t *", order), n)
    outs = (cast("int64_t *", answers), cast("int64_t *", boards), cast("double *", seconds))

    def batch():
        faults = _minor_faults()
        if lib.split_solve_many(*args, n_split[0], *outs):
            raise MemoryError("the C search ran out of memory, or its second thread could not be started")
        return Answers(answers.copy(), seconds.tolist(), boards.tolist(), _minor_faults() - faults)

    # untimed (this also starts the second thread and touches whatever the workload needs beyond the reservation)
    if plan != "split":
        single = best_times(batch, seconds)
    if plan != "deal":
        n_split[0] = n
        split = best_times(batch, seconds)
    if plan == "mixed":
        order[:], n_split[0] = split_plan(single, split, threads)
    elif plan == "deal":
        order[:] = deal_order(single, range(n), threads)
    batch.keepalive = (arrays, t, pool, starts, depths, answers, boards, seconds, order, n_split)
    return batch


FAST_NEEDS = ("cc", "avx2", "bmi2")
FAST_WHAT = (
    "the table never zeroed (13-bit layer tags), byte tables for hashes, lane sums reduced once, "
    "a move list in L1-sized chunks (each parent's empty cells listed from a table without a branch on how "
    "many, then the moves listed, canonicalised eight at a time by turning the outer ring of cells, "
    "inserted without a branch on new or old, each slot prefetched 32 insertions ahead), table at load "
    "1/16; and the last two layers summed from per-row hash changes without building their boards"
)
# name, -D flags, reserved in prepare, what the row adds (the write-up's memory steps and non-temporal stores, then
# what it did not measure alone: the chunk of moves, and c-fast's own steps taken back one at a time)
FAST_VARIANTS = [
    (
        "c-fast-fresh",
        ("-DFRESH_MAPS=1", "-DTOUCH=0"),
        False,
        "before step 7: each solve maps small buffers, grows them by doubling (copying) and returns them at its end, "
        "so the kernel zero-fills every page it uses during the solve, again after every growth",
    ),
    (
        "c-fast-mmap",
        ("-DTOUCH=0",),
        True,
        "step 7: buffers mapped once at the largest size the searches need and kept; each page is zero-filled at "
        "its first use, which is the first (untimed) call",
    ),
    ("c-fast", (), True, "step 16: + every page of those buffers written in prepare, before any solve"),
    (
        "c-fast-nt",
        ("-DNT_MOVES=1",),
        True,
        "step 17: + the move list written with non-temporal stores (4-byte movnti: a list row starts anywhere)",
    ),
    ("c-fast-pf32", ("-DCHUNK=32",), True, "moves listed, canonicalised and inserted 32 at a time instead of 256"),
    (
        "c-fast-pf1024",
        ("-DCHUNK=1024",),
        True,
        "moves listed, canonicalised and inserted 1024 at a time instead of 256",
    ),
    (
        "c-fast-byte-forms",
        ("-DRING_FORMS=0",),
        True,
        "c-fast with each move's eight forms ORed from three byte tables (the write-up's step 10) one move at a time, "
        "its slot prefetched there, instead of eight moves' forms at once by turning the ring of outer cells",
    ),
    (
        "c-fast-cell-loop",
        ("-DCELL_LISTS=0",),
        True,
        "c-fast with each parent's empty cells visited by a loop, whose exit (after one to nine cells) mispredicts "
        "about once a parent, instead of listed from a table of each set's cells",
    ),
]

IMPLEMENTATIONS.append(
    Implementation(
        "cephalopod.hashsum",
        "c-fast-cores",
        "cffi-avx2",
        _prepare_fast_cores,
        requires=FAST_NEEDS,
        description="C (fast.c), c-fast with the tests of a batch dealt out over every core, the longest first "
        "unless another order ends sooner (each core its own workspace); a test's time is its own, so they "
        "overlap",
        build=partial(fast_module, "cephalopod_fast", ()),
    )
)

IMPLEMENTATIONS.append(
    Implementation(
        "cephalopod.hashsum",
        "c-fast-kept",
        "cffi-avx2",
        partial(_prepare_fast_split, plan="deal"),
        requires=FAST_NEEDS,
        description="C (split.c over fast.c), c-fast-cores on two threads kept between calls (c-fast-cores starts its "
        "threads in every call): the tests dealt out whole in the same order as c-fast-cores",
        build=split_module,
    )
)

SPLIT_WHAT = (
    "each thread lists and canonicalises the moves of its half of a layer's boards, keeps those its half "
    "owns by a hash bit, hands the others over, and sums its half of the last two layers"
)
IMPLEMENTATIONS.append(
    Implementation(
        "cephalopod.hashsum",
        "c-fast-split",
        "cffi-avx2",
        _prepare_fast_split,
        requires=FAST_NEEDS,
        description=f"C (split.c over fast.c), c-fast with every test split over two kept threads ({SPLIT_WHAT})",
        build=split_module,
    )
)
IMPLEMENTATIONS.append(
    Implementation(
        "cephalopod.hashsum",
        "c-fast-split-deal",
        "cffi-avx2",
        partial(_prepare_fast_split, plan="mixed"),
        requires=FAST_NEEDS,
        description=f"C (split.c over fast.c), c-fast on two kept threads, the longest tests split over both "
        f"({SPLIT_WHAT}) and the rest dealt out whole; how many to split chosen in prepare from each "
        f"test's time alone and split",
        build=split_module,
    )
)

for _name, _flags, _reserve, _what in FAST_VARIANTS:
    _module = "cephalopod_" + _name.replace("c-", "").replace("-", "_")
    IMPLEMENTATIONS.append(
        Implementation(
            "cephalopod.hashsum",
            _name,
            "cffi-avx2",
            _prepare_fast(_module, _flags, _reserve),
            requires=FAST_NEEDS,
            description=f"C (fast.c), {_what}" + (f"; with {FAST_WHAT}" if _name == "c-fast" else ""),
            build=partial(fast_module, _module, _flags),
        )
    )
