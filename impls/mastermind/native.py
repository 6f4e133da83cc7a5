"""C families through cffi: the article's four scoring variations, byte-sliced batch SIMD, and Knuth's algorithm
with each of them plugged in.

One module per C file in ``c/``, built for its instruction set. The files share headers (mm_score.h and the
drivers); their hash goes into the build flags so a header change rebuilds every module that includes it.
"""

import hashlib
import re
import threading
import time
from functools import partial
from pathlib import Path

import numpy as np

from swarbench import progress
from swarbench.cbuild import build
from swarbench.memory import aligned_copy, aligned_empty, as_aligned
from swarbench.model import Implementation

from . import gpu_sfu
from .spec import ARITHMETICS, KNUTH, STRATEGIES, all_codewords, color_counts, cross_parts, digits, parts_batch

C_DIR = Path(__file__).parent / "c"
SCALAR = ("-fno-tree-vectorize",)
# The cut players' loops that matter are written with intrinsics; the compiler's own loop vectorising only
# touched set-up loops and cost compile time on every fresh machine.
CUT = ("-fno-tree-loop-vectorize",)

PACKED_CDEF = """
void score_pairs(const uint32_t *s, const uint8_t *sc, const uint32_t *g, const uint8_t *gc, uint8_t *out,
                 size_t n, int pins, int colors);
void score_cross(const uint32_t *s, const uint8_t *sc, size_t ns, const uint32_t *g, const uint8_t *gc,
                 size_t ng, uint8_t *out, int pins, int colors);
"""
SLICED_CDEF = """
void score_cross_sliced(const uint8_t *sp, const uint8_t *scn, size_t ns, const uint32_t *g, const uint8_t *gc,
                        size_t ng, uint8_t *out, int pins, int colors);
void score_pairs_sliced(const uint8_t *sp, const uint8_t *scn, const uint8_t *gp, const uint8_t *gcn, size_t n,
                        uint8_t *out, int pins, int colors);
"""
LOOKUP_CDEF = """
size_t lk_plan_bytes(void);
int lk_make_plan(int pins, int colors, void *plan);
int lk_pays(const void *plan);
int lk_index(const void *plan, const uint32_t *codes, size_t n, uint8_t *idx, size_t stride);
void score_cross_lookup(const void *plan, const uint8_t *idx, size_t stride, size_t ns, const uint32_t *g,
                        size_t ng, uint8_t *out);
void score_pairs_sliced(const uint8_t *sp, const uint8_t *scn, const uint8_t *gp, const uint8_t *gcn, size_t n,
                        uint8_t *out, int pins, int colors);
void score_cross_sliced(const uint8_t *sp, const uint8_t *scn, size_t ns, const uint32_t *g, const uint8_t *gc,
                        size_t ng, uint8_t *out, int pins, int colors);
"""
KNUTH_CDEF = """
int knuth_each(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy,
               int arithmetic, const int32_t *sfu, int first, const int32_t *targets, int nt, uint8_t *out,
               int threads, int64_t *status);
int knuth_shared(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy,
                 int arithmetic, const int32_t *sfu, int first, const uint8_t *want, uint8_t *out, int threads,
                 int64_t *status);
"""
# The float arithmetics sum in a set order (spec.py): no fused multiply-add but those written (fmaf) may change a
# rounding.
KNUTH_FLAGS = ("-ffp-contract=off",)
POLL_S = 0.1


def _included(source: Path, seen: set) -> list[Path]:
    """The headers of c/ that ``source`` includes, directly or through another, each once."""
    found = []
    for name in re.findall(r'^#include "([^"]+)"', source.read_text(), re.M):
        header = C_DIR / name
        if header.exists() and header not in seen:
            seen.add(header)
            found += [header, *_included(header, seen)]
    return found


def _headers_flag(source: str) -> str:
    """A flag naming the hash of the headers the source includes: a header change rebuilds the modules that use
    it, and only those (the article's variants do not include the pruned search's headers)."""
    h = hashlib.sha256()
    for header in sorted(_included(C_DIR / source, set())):
        h.update(header.name.encode() + header.read_bytes())
    return f"-DMM_HEADERS={h.hexdigest()[:12]}"


def module(source: str, isa: tuple, flags: tuple, cdef: str):
    return build(f"mm_{Path(source).stem}", C_DIR / source, cdef, isa, (*flags, _headers_flag(source)))


def _ptr(ffi, ctype, arr):
    return ffi.cast(ctype, ffi.from_buffer(arr))


def sliced(codes: np.ndarray, pins: int) -> tuple[np.ndarray, np.ndarray]:
    """(pins, N) pin bytes and (16, N) color-count bytes: one byte array per pin and per color."""
    return aligned_copy(digits(codes, pins).T), aligned_copy(color_counts(codes, pins).T)


def _prepare_score(source, isa, flags, layout):
    def prepare(workload):
        inp = workload.inputs
        p, c, s, g = inp["pins"], inp["colors"], inp["secrets"], inp["guesses"]
        mod = module(source, isa, flags, SLICED_CDEF if layout == "sliced" else PACKED_CDEF)
        ffi, lib = mod.ffi, mod.lib
        out = aligned_empty(len(s) * len(g) if inp["cross"] else len(s))
        keep = [out]

        def P(ctype, arr):
            arr = as_aligned(arr)  # the output buffer passes through as itself
            keep.append(arr)
            return _ptr(ffi, ctype, arr)

        po = P("uint8_t *", out)
        if layout == "sliced":
            sp, scn = sliced(s, p)
            if inp["cross"]:
                args = (
                    P("uint8_t *", sp),
                    P("uint8_t *", scn),
                    len(s),
                    P("uint32_t *", g),
                    P("uint8_t *", color_counts(g, p)),
                    len(g),
                    po,
                    p,
                    c,
                )
                fn = lib.score_cross_sliced
            else:
                gp, gcn = sliced(g, p)
                args = (
                    P("uint8_t *", sp),
                    P("uint8_t *", scn),
                    P("uint8_t *", gp),
                    P("uint8_t *", gcn),
                    len(s),
                    po,
                    p,
                    c,
                )
                fn = lib.score_pairs_sliced
        else:
            ps, psc = P("uint32_t *", s), P("uint8_t *", color_counts(s, p))
            pg, pgc = P("uint32_t *", g), P("uint8_t *", color_counts(g, p))
            if inp["cross"]:
                args, fn = (ps, psc, len(s), pg, pgc, len(g), po, p, c), lib.score_cross
            else:
                args, fn = (ps, psc, pg, pgc, po, len(s), p, c), lib.score_pairs

        parts = [(args, len(out))]
        if inp["cross"]:  # huge crosses run in parts of guesses: g, gc, ng and out are arguments 3 to 6
            S = len(s)
            parts = [
                (args[:3] + (args[3] + lo, args[4] + 16 * lo, hi - lo, po + lo * S) + args[7:], hi * S)
                for lo, hi in cross_parts(len(g), S)
            ]
        batch = parts_batch(fn, parts, len(out), out)
        batch.keepalive = keep  # the C pointers borrow these buffers
        return batch

    return prepare


# name, family, source, instruction sets, extra flags, layout
SCORE_VARIANTS = [
    ("c-simple-loops", "cffi-scalar", "score_simple.c", (), SCALAR, "packed"),
    ("c-counting", "cffi-scalar", "score_counting.c", (), SCALAR, "packed"),
    ("c-counting-autovec", "cffi-autovec", "score_autovec.c", ("sse2",), (), "packed"),
    ("c-sse2", "cffi-sse2", "score_sse2.c", ("sse2", "popcnt"), (), "packed"),
    ("c-sliced-avx2", "cffi-avx2", "score_avx2.c", ("avx2",), (), "sliced"),
    ("c-sliced-avx512", "cffi-avx512", "score_avx512.c", ("avx512bw",), (), "sliced"),
]


def _prepare_lookup(source, isa):
    """Table lookups (c/score_lookup_vbmi.c): the game's plan and the secrets' group indices are built here, the
    guesses' tables in the timed call. Where the lookups would not pay (lk_pays: many pins, one per group) and for
    explicit pairs (no guess shared by many secrets), the module's byte-sliced code runs instead."""

    def prepare(workload):
        inp = workload.inputs
        p, c = inp["pins"], inp["colors"]
        s, g = as_aligned(inp["secrets"], np.uint32), as_aligned(inp["guesses"], np.uint32)
        S = len(s)
        mod = module(source, isa, (), LOOKUP_CDEF)
        ffi, lib = mod.ffi, mod.lib
        keep = [s, g]

        def P(ctype, arr):
            keep.append(arr)
            return _ptr(ffi, ctype, arr)

        plan = aligned_empty(lib.lk_plan_bytes())
        pplan = P("void *", plan)
        planes = lib.lk_make_plan(p, c, pplan)
        if not planes:
            raise MemoryError(f"lk_make_plan: no plan for {p}p{c}c")  # every valid game has one
        if not inp["cross"]:
            out = np.empty(S, np.uint8)
            sp, scn = sliced(s, p)
            gp, gcn = sliced(g, p)
            args = (
                P("uint8_t *", sp),
                P("uint8_t *", scn),
                P("uint8_t *", gp),
                P("uint8_t *", gcn),
                S,
                P("uint8_t *", out),
                p,
                c,
            )
            parts = [(args, S)]
            fn = lib.score_pairs_sliced
        else:
            out = aligned_empty(S * len(g))
            po, pg = P("uint8_t *", out), P("uint32_t *", g)
            if lib.lk_pays(pplan):
                stride = -(-S // 64) * 64  # planes start 64-byte aligned
                idx = aligned_empty(planes * stride)
                pidx = P("uint8_t *", idx)
                if lib.lk_index(pplan, P("uint32_t *", s), S, pidx, stride):
                    raise MemoryError("lk_index: out of memory")
                parts = [
                    ((pplan, pidx, stride, S, pg + lo, hi - lo, po + lo * S), hi * S)
                    for lo, hi in cross_parts(len(g), S)
                ]
                fn = lib.score_cross_lookup
            else:
                sp, scn = sliced(s, p)
                psp, pscn, pgc = P("uint8_t *", sp), P("uint8_t *", scn), P("uint8_t *", color_counts(g, p))
                parts = [
                    ((psp, pscn, S, pg + lo, pgc + 16 * lo, hi - lo, po + lo * S, p, c), hi * S)
                    for lo, hi in cross_parts(len(g), S)
                ]
                fn = lib.score_cross_sliced
        batch = parts_batch(fn, parts, len(out), out)
        batch.keepalive = keep  # the C pointers borrow these buffers
        return batch

    return prepare


# name, family, source, instruction sets
LOOKUP_VARIANTS = [
    ("c-lookup-avx512vbmi", "cffi-avx512", "score_lookup_vbmi.c", ("avx512vbmi",)),
]


def run_stoppable(call, status: np.ndarray, total: int) -> int:
    """``call()``, a C search that counts finished games in status[0] and stops soon after status[1] is set, run
    on a worker thread (cffi lets go of the GIL during the call) while this thread reports its progress; Ctrl-C
    here sets status[1], waits for the search to stop (well within a second) and is raised again.

    This thread waits on an Event, not in Thread.join: a join that a KeyboardInterrupt breaks into can take the
    thread for finished while the C search still runs on memory the interpreter then frees."""
    status[:] = 0
    rc = []
    done = threading.Event()

    def work():
        try:
            rc.append(call())
        finally:
            done.set()

    threading.Thread(target=work, daemon=True).start()
    try:
        while not done.wait(POLL_S):  # returns as soon as the search ends: no poll interval added to a timing
            progress.advance(int(status[0]), total, "games")
    except KeyboardInterrupt:
        status[1] = 1
        while not done.is_set():
            try:
                time.sleep(0.01)
            except KeyboardInterrupt:  # a second Ctrl-C while the search stops changes nothing
                pass
        raise
    progress.advance(int(status[0]), total, "games")  # the last count always reaches the reporter
    if rc[0] == 1:
        raise KeyboardInterrupt  # stopped from outside this thread: report it as the interruption it was
    if rc[0] == 2:
        raise ValueError("mastermind search: the module was built for another number of pins")
    if rc[0]:
        raise MemoryError("mastermind search: out of memory")
    return 0


def knuth_module(source: str, isa: tuple, flags: tuple, pins: int):
    """The player for games of ``pins`` pins: one module per number of pins (knuth_game.h's KNUTH_PINS)."""
    return module(source, isa, (*flags, *KNUTH_FLAGS, f"-DKNUTH_PINS={pins}"), KNUTH_CDEF)


def _build_knuth(source: str, isa: tuple, flags: tuple) -> None:
    """The modules a default run prepares: the pins of the kernel's default workloads and of its known answers.
    Other games build theirs in their own prepare."""
    pins = {kind.params["pins"] for kind in KNUTH.workloads if kind.default}
    for pin_count in sorted(pins | {answer.inputs["pins"] for answer in KNUTH.known_answers()}):
        knuth_module(source, isa, flags, pin_count)


def _prepare_knuth(source, isa, flags, threads):
    def prepare(workload):
        inp = workload.inputs
        p, c = inp["pins"], inp["colors"]
        mod = knuth_module(source, isa, flags, p)
        ffi, lib = mod.ffi, mod.lib
        codes = all_codewords(p, c)
        counts = as_aligned(color_counts(codes, p))
        first = int(np.searchsorted(codes, inp["first"]))
        targets = np.searchsorted(codes, inp["secrets"]).astype(np.int32)
        strategy = STRATEGIES.index(inp["strategy"])
        arithmetic = ARITHMETICS.index(inp.get("arithmetic", "exact"))
        n = len(codes)
        pc, pcn = _ptr(ffi, "uint32_t *", codes), _ptr(ffi, "uint8_t *", counts)
        want = np.zeros(n, np.uint8)
        want[targets] = 1
        by_code = np.zeros(n, np.uint8)
        out = np.zeros(len(targets), np.uint8)
        status = np.zeros(2, np.int64)
        ps = _ptr(ffi, "int64_t *", status)
        sfu = _ptr(ffi, "int32_t *", gpu_sfu.TABLES)
        if inp["method"] == "each":
            po, pt = _ptr(ffi, "uint8_t *", out), _ptr(ffi, "int32_t *", targets)

            def batch():
                run_stoppable(
                    lambda: lib.knuth_each(
                        p, c, pc, pcn, n, strategy, arithmetic, sfu, first, pt, len(targets), po, threads, ps
                    ),
                    status,
                    len(targets),
                )
                return out
        else:
            po, pw = _ptr(ffi, "uint8_t *", by_code), _ptr(ffi, "uint8_t *", want)

            def batch():
                run_stoppable(
                    lambda: lib.knuth_shared(p, c, pc, pcn, n, strategy, arithmetic, sfu, first, pw, po, threads, ps),
                    status,
                    len(targets),
                )
                return by_code[targets]

        batch.keepalive = (codes, counts, targets, want, by_code, out, status)  # borrowed by C
        return batch

    return prepare


# name, family, source, instruction sets, flags, what, threads (0: every core)
KNUTH_VARIANTS = [
    ("c-simple-loops", "cffi-scalar", "knuth_simple.c", (), SCALAR, "the article's simple loops", 1),
    ("c-counting", "cffi-scalar", "knuth_counting.c", (), SCALAR, "the article's counting, scalar", 1),
    (
        "c-counting-autovec",
        "cffi-autovec",
        "knuth_autovec.c",
        ("sse2",),
        (),
        "the article's counting, auto-vectorised",
        1,
    ),
    ("c-sse2", "cffi-sse2", "knuth_sse2.c", ("sse2", "popcnt"), (), "the article's hand-vectorised SSE2", 1),
    ("c-sliced-avx2-full", "cffi-avx2", "knuth_sliced_full.c", ("avx2",), (), "byte-sliced AVX2 rows, every score", 1),
    (
        "c-sliced-avx512-full",
        "cffi-avx512",
        "knuth_sliced_full.c",
        ("avx512bw", "popcnt"),
        (),
        "byte-sliced AVX-512 rows, every score",
        1,
    ),
    (
        "c-sliced-avx2",
        "cffi-avx2",
        "knuth_sliced.c",
        ("avx2",),
        CUT,
        "byte-sliced AVX2 rows, candidates cut (hopeless, equivalent colors, symmetric, alike-scoring)",
        1,
    ),
    (
        "c-sliced-avx512",
        "cffi-avx512",
        "knuth_sliced.c",
        ("avx512bw", "popcnt"),
        CUT,
        "byte-sliced AVX-512 rows, candidates cut (hopeless, equivalent colors, symmetric, alike-scoring)",
        1,
    ),
    (
        "c-sliced-avx2-mt",
        "cffi-avx2",
        "knuth_sliced.c",
        ("avx2",),
        CUT,
        "byte-sliced AVX2 rows, candidates cut, subtrees of games on every core",
        0,
    ),
    (
        "c-sliced-avx512-mt",
        "cffi-avx512",
        "knuth_sliced.c",
        ("avx512bw", "popcnt"),
        CUT,
        "byte-sliced AVX-512 rows, candidates cut, subtrees of games on every core",
        0,
    ),
]

# The article's table: the variation it names, its time for Knuth 4p6c, and our implementation.
ARTICLE_TABLE = [
    ("simple loops", 4.4948, "c-simple-loops"),
    ("counting, scalar", 3.1218, "c-counting"),
    ("counting, auto-vectorised", 2.2948, "c-counting-autovec"),
    ("counting, hand-vectorised SSE2", 0.9237, "c-sse2"),
    ("ours: byte-sliced AVX-512 rows", None, "c-sliced-avx512-full"),
    ("ours: the same, candidates cut (hopeless, equivalent colors)", None, "c-sliced-avx512"),
]


def _requires(isa):
    return ("cc", *isa)


IMPLEMENTATIONS = (
    [
        Implementation(
            "mastermind.score",
            name,
            family,
            _prepare_score(source, isa, flags, layout),
            requires=_requires(isa),
            build=partial(module, source, isa, flags, SLICED_CDEF if layout == "sliced" else PACKED_CDEF),
            description=f"C, {source}" + (f" built for {', '.join(isa)}" if isa else ""),
        )
        for name, family, source, isa, flags, layout in SCORE_VARIANTS
    ]
    + [
        Implementation(
            "mastermind.score",
            name,
            family,
            _prepare_lookup(source, isa),
            requires=_requires(isa),
            build=partial(module, source, isa, (), LOOKUP_CDEF),
            description=f"C, {source} built for {', '.join(isa)}: byte-permute lookups of pin groups and "
            "color-count groups",
        )
        for name, family, source, isa in LOOKUP_VARIANTS
    ]
    + [
        Implementation(
            "mastermind.knuth",
            name,
            family,
            _prepare_knuth(source, isa, flags, threads),
            requires=_requires(isa),
            build=partial(_build_knuth, source, isa, flags),
            description=f"C, {source}: {what}",
        )
        for name, family, source, isa, flags, what, threads in KNUTH_VARIANTS
    ]
)
