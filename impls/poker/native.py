"""C families through cffi: the SWAR evaluator of c/poker_core.c, built once per instruction set.

c/swar.c and c/bmi2.c only include c/poker_core.c (with or without POKER_BMI2). The core's hash is passed as
a define so that editing the core rebuilds both modules (the build cache keys on the .c file given and flags).
Threaded variants ("-2t") split the batch (or the boards) over every core this process may use.
"""

import hashlib
from functools import partial
from pathlib import Path

import numpy as np

from swarbench import features
from swarbench.cbuild import build
from swarbench.memory import aligned_empty, as_aligned
from swarbench.model import Implementation

C_DIR = Path(__file__).parent / "c"
CDEF = """
void rank7_batch(const uint64_t *hands, uint32_t *out, size_t n);
void rank7_batch_mt(const uint64_t *hands, uint32_t *out, size_t n, int threads);
int categories7(int64_t *out, int threads);
void equity(uint64_t hero, const uint64_t *boards, size_t n, int mode, int threads, int64_t *out);
int hoisted_codes(uint64_t hero, uint64_t board, uint64_t *hands, uint32_t *codes);
"""
TALK, TALK_SIGNED, SMART, SMART_ISO, TALK_HOISTED = 0, 1, 2, 3, 4


def module(isa: str):
    core = hashlib.sha256((C_DIR / "poker_core.c").read_bytes()).hexdigest()[:12]
    source, flags = ("bmi2.c", ("bmi2", "popcnt")) if isa == "bmi2" else ("swar.c", ())
    return build(f"poker_{isa}", C_DIR / source, CDEF, flags, (f"-DPOKER_CORE_SHA={core}", "-fno-tree-vectorize"))


AVX512_RANK_CDEF = """
void rank7_avx512(const uint64_t *hands, uint32_t *out, size_t n);
void equity_talk_avx512(uint64_t hero, const uint64_t *boards, size_t n, int threads, int64_t *out);
int categories7_avx512(int64_t *out, int threads);
void rank7_avx512_mt(const uint64_t *hands, uint32_t *out, size_t n, int threads);
int talk_codes_avx512(uint64_t hero, uint64_t board, uint64_t *hands, uint32_t *codes);
"""
AVX512_RANK_NEEDS = ("cc", "avx512f", "avx512cd", "avx512_vpopcntdq")


def avx512_module():
    return build(
        "poker_rank7_avx512",
        C_DIR / "rank7_avx512.c",
        AVX512_RANK_CDEF,
        ("avx512f", "avx512_vpopcntdq"),
        ("-mavx512cd",),
    )


def _rank7_avx512(threads):
    def prepare(workload):
        mod = avx512_module()
        n_threads = features.cores() if threads == 0 else threads
        if workload.inputs.get("exhaustive"):
            out = np.zeros(10, np.int64)
            po = mod.ffi.cast("int64_t *", mod.ffi.from_buffer(out))

            def exhaustive():
                if mod.lib.categories7_avx512(po, n_threads):
                    raise MemoryError("categories7: no memory for the 72 MiB code bitmap")
                return out.copy()

            return exhaustive
        hands = as_aligned(workload.inputs["hands"])
        out = aligned_empty(len(hands), np.uint32)
        ph = mod.ffi.cast("uint64_t *", mod.ffi.from_buffer(hands))
        po = mod.ffi.cast("uint32_t *", mod.ffi.from_buffer(out))

        def batch():
            if n_threads == 1:
                mod.lib.rank7_avx512(ph, po, len(hands))
            else:
                mod.lib.rank7_avx512_mt(ph, po, len(hands), n_threads)
            return out

        batch.keepalive = (hands, out)
        return batch

    return prepare


def _equity_avx512(threads):
    def prepare(workload):
        mod = avx512_module()
        n_threads = features.cores() if threads == 0 else threads
        boards = as_aligned(workload.inputs["boards"])
        hero = int(workload.inputs["hero"])
        out = np.zeros(3, np.int64)
        pb = mod.ffi.cast("uint64_t *", mod.ffi.from_buffer(boards))
        po = mod.ffi.cast("int64_t *", mod.ffi.from_buffer(out))

        def batch():
            mod.lib.equity_talk_avx512(hero, pb, len(boards), n_threads, po)
            return out.copy()

        batch.keepalive = (boards, out)
        return batch

    return prepare


def _rank7(isa, threads):
    def prepare(workload):
        lib, ffi = module(isa).lib, module(isa).ffi
        n_threads = features.cores() if threads == 0 else threads
        if workload.inputs.get("exhaustive"):
            out = np.zeros(10, np.int64)
            po = ffi.cast("int64_t *", ffi.from_buffer(out))

            def batch():
                if lib.categories7(po, n_threads):
                    raise MemoryError("categories7: no memory for the 72 MiB code bitmap")
                return out.copy()
        else:
            hands = as_aligned(workload.inputs["hands"])
            out = aligned_empty(len(hands), np.uint32)
            ph = ffi.cast("uint64_t *", ffi.from_buffer(hands))
            po = ffi.cast("uint32_t *", ffi.from_buffer(out))

            def batch():
                lib.rank7_batch_mt(ph, po, len(hands), n_threads)
                return out

        batch.keepalive = (out,)
        return batch

    return prepare


def _equity(isa, mode, threads):
    def prepare(workload):
        lib, ffi = module(isa).lib, module(isa).ffi
        n_threads = features.cores() if threads == 0 else threads
        boards = as_aligned(workload.inputs["boards"])
        hero = int(workload.inputs["hero"])
        # suit isomorphism is exact only when the board list is closed under the hero's suit symmetries
        m = SMART_ISO if mode == SMART and workload.inputs.get("full") else mode
        out = np.zeros(3, np.int64)
        pb = ffi.cast("uint64_t *", ffi.from_buffer(boards))
        po = ffi.cast("int64_t *", ffi.from_buffer(out))

        def batch():
            lib.equity(hero, pb, len(boards), m, n_threads, po)
            return out.copy()

        batch.keepalive = (boards, out)
        return batch

    return prepare


SIGNED_BUG = (
    "reproduces the talk's comparison: codes as signed int32 compared by the sign of code1 - code2; a "
    "straight flush (category 8 in bits 28..31) is negative and loses to a no-pair hand whose code is "
    "below its minor mask, so the royal flush loses 5,670 games it wins"
)

IMPLEMENTATIONS = [
    Implementation(
        "poker.rank7",
        "c-swar",
        "cffi-scalar",
        _rank7("scalar", 1),
        ("cc",),
        "SWAR rank counts, greaterEqual<N>, straights by the addition chain; one thread",
        build=partial(module, "scalar"),
    ),
    Implementation(
        "poker.rank7",
        "c-bmi2",
        "cffi-bmi2",
        _rank7("bmi2", 1),
        ("cc", "bmi2", "popcnt"),
        "pext gathers rank masks, popcnt counts suits; one thread",
        build=partial(module, "bmi2"),
    ),
    Implementation(
        "poker.rank7",
        "c-bmi2-mt",
        "cffi-bmi2",
        _rank7("bmi2", 0),
        ("cc", "bmi2", "popcnt"),
        "the BMI2 evaluator with the batch split over every core",
        build=partial(module, "bmi2"),
    ),
    Implementation(
        "poker.rank7",
        "c-avx512",
        "cffi-avx512",
        _rank7_avx512(1),
        AVX512_RANK_NEEDS,
        "eight hands per zmm register: every category's code under a lane mask, VPOPCNTQ, VPLZCNTQ",
        build=avx512_module,
    ),
    Implementation(
        "poker.rank7",
        "c-avx512-mt",
        "cffi-avx512",
        _rank7_avx512(0),
        AVX512_RANK_NEEDS,
        "the AVX-512 evaluator, the batch (or the exhaustive enumeration) split over every core",
        build=avx512_module,
    ),
    Implementation(
        "poker.equity",
        "c-talk",
        "cffi-scalar",
        _equity("scalar", TALK, 1),
        ("cc",),
        "the talk's method: hero ranked once per board, 990 opponent hands ranked; one thread",
        build=partial(module, "scalar"),
    ),
    Implementation(
        "poker.equity",
        "c-talk-hoisted-bmi2",
        "cffi-bmi2",
        _equity("bmi2", TALK_HOISTED, 1),
        ("cc", "bmi2", "popcnt"),
        "the talk's 990 classifications per board, each from the rank masks "
        "(greaterEqual<k>) of the board plus the first hole card, a straight looked for only where the "
        "second card completes one, a flush only where the board allows one; one thread",
        build=partial(module, "bmi2"),
    ),
    Implementation(
        "poker.equity",
        "c-talk-hoisted-bmi2-mt",
        "cffi-bmi2",
        _equity("bmi2", TALK_HOISTED, 0),
        ("cc", "bmi2", "popcnt"),
        "the hoisted talk loop, boards split over every core",
        build=partial(module, "bmi2"),
    ),
    Implementation(
        "poker.equity",
        "c-talk-avx512",
        "cffi-avx512",
        _equity_avx512(1),
        AVX512_RANK_NEEDS,
        "the talk's method, the 990 opponent hands classified sixteen at a time (32-bit lanes) from the "
        "rank masks of the board plus the first hole card; one thread",
        build=avx512_module,
    ),
    Implementation(
        "poker.equity",
        "c-talk-avx512-mt",
        "cffi-avx512",
        _equity_avx512(0),
        AVX512_RANK_NEEDS,
        "the same, boards split over every core",
        build=avx512_module,
    ),
    Implementation(
        "poker.equity",
        "c-talk-signed",
        "cffi-scalar",
        _equity("scalar", TALK_SIGNED, 0),
        ("cc",),
        "the talk's program as printed, including its signed comparison; boards split over every core",
        expected_to_fail=SIGNED_BUG,
        build=partial(module, "scalar"),
    ),
    Implementation(
        "poker.equity",
        "c-smart",
        "cffi-scalar",
        _equity("scalar", SMART, 1),
        ("cc",),
        "91 rank classes per board + flush hands one by one, memo per rank multiset, suit "
        "isomorphism on the full enumeration; one thread",
        build=partial(module, "scalar"),
    ),
    Implementation(
        "poker.equity",
        "c-smart-mt",
        "cffi-bmi2",
        _equity("bmi2", SMART, 0),
        ("cc", "bmi2", "popcnt"),
        "the smart method with the BMI2 evaluator, boards split over every core",
        build=partial(module, "bmi2"),
    ),
]


# -- poker.versus: given hands against each other (c/versus.c includes the evaluator of c/poker_core.c) -------------
VERSUS_CDEF = """
void versus_boards(const uint64_t *hands, int k, const uint64_t *boards, size_t n, int64_t *out);
void versus_all(const uint64_t *hands, int k, uint64_t known, int threads, int64_t *out);
"""


def versus_module(isa: str):
    core = hashlib.sha256((C_DIR / "poker_core.c").read_bytes()).hexdigest()[:12]
    flags = ("bmi2", "popcnt") if isa == "bmi2" else ()
    defines = ("-DPOKER_BMI2=1",) if isa == "bmi2" else ()
    return build(
        f"poker_versus_{isa}",
        C_DIR / "versus.c",
        VERSUS_CDEF,
        flags,
        (f"-DPOKER_CORE_SHA={core}", "-fno-tree-vectorize", *defines),
    )


def _versus(isa, threads):
    def prepare(workload):
        mod = versus_module(isa)
        ffi, lib = mod.ffi, mod.lib
        n_threads = features.cores() if threads == 0 else threads
        hands = as_aligned(np.asarray(workload.inputs["hands"], np.uint64))
        k = len(hands)
        out = np.zeros((k, 3), np.int64)
        ph = ffi.cast("uint64_t *", ffi.from_buffer(hands))
        po = ffi.cast("int64_t *", ffi.from_buffer(out))
        if workload.inputs.get("full"):
            known = int(workload.inputs["known"])

            def batch():
                lib.versus_all(ph, k, known, n_threads, po)
                return out.copy()
        else:
            boards = as_aligned(workload.inputs["boards"])
            pb = ffi.cast("uint64_t *", ffi.from_buffer(boards))

            def batch():
                lib.versus_boards(ph, k, pb, len(boards), po)
                return out.copy()

        batch.keepalive = (hands, out, workload.inputs)
        return batch

    return prepare


VERSUS = [
    Implementation(
        "poker.versus",
        "c-versus",
        "cffi-scalar",
        _versus("scalar", 1),
        ("cc",),
        "every hand ranked by the SWAR evaluator on every board; the full enumeration walks the boards "
        "itself (nested first-to-fifth card loops over the free cards); one thread",
        build=partial(versus_module, "scalar"),
    ),
    Implementation(
        "poker.versus",
        "c-versus-bmi2",
        "cffi-bmi2",
        _versus("bmi2", 1),
        ("cc", "bmi2", "popcnt"),
        "the same with the BMI2 evaluator (pext rank masks, popcnt suits); one thread",
        build=partial(versus_module, "bmi2"),
    ),
    Implementation(
        "poker.versus",
        "c-versus-mt",
        "cffi-bmi2",
        _versus("bmi2", 0),
        ("cc", "bmi2", "popcnt"),
        "the BMI2 walk, the first board card dealt out over every core (a slice: one thread)",
        build=partial(versus_module, "bmi2"),
    ),
]


# -- the talk's building blocks (blocks.py) ---------------------------------------------------------------------
BLOCKS_CDEF = """
void popcount_swar(const uint64_t *in, uint64_t *out, size_t n, int width);
void popcount_builtin(const uint64_t *in, uint64_t *out, size_t n, int width);
void popcount_naive(const uint64_t *in, uint64_t *out, size_t n, int width);
void rank_counts_swar(const uint64_t *in, uint64_t *out, size_t n);
void rank_counts_naive(const uint64_t *in, uint64_t *out, size_t n);
void greater_equal_swar(const uint64_t *in, uint64_t *out, size_t n);
void greater_equal_naive(const uint64_t *in, uint64_t *out, size_t n);
void straights_shift5(const uint32_t *in, uint32_t *out, size_t n);
void straights_chain(const uint32_t *in, uint32_t *out, size_t n);
void straights_naive(const uint32_t *in, uint32_t *out, size_t n);
size_t subsets_gosper(int n, int k, uint64_t *out);
size_t subsets_naive(int n, int k, uint64_t *out);
void deposit_loop(const uint64_t *values, const uint64_t *masks, uint64_t *out, size_t n);
void atoi8_swar(const uint64_t *in, uint32_t *out, size_t n);
void atoi8_naive(const uint64_t *in, uint32_t *out, size_t n);
void strlen_swar(const uint8_t *buf, const int64_t *offsets, int64_t *out, size_t n);
void strlen_naive(const uint8_t *buf, const int64_t *offsets, int64_t *out, size_t n);
"""
PDEP_CDEF = "void deposit_pdep(const uint64_t *values, const uint64_t *masks, uint64_t *out, size_t n);"
AVX512_CDEF = "void popcount_avx512(const uint64_t *in, uint64_t *out, size_t n, int width);"
AVX2_CDEF = "void popcount_avx2(const uint64_t *in, uint64_t *out, size_t n, int width);"


def blocks_module(isa: str):
    if isa == "avx512":
        return build(
            "poker_blocks_avx512",
            C_DIR / "blocks_avx512.c",
            AVX512_CDEF,
            ("avx512_vpopcntdq", "avx512_bitalg", "avx512bw"),
        )
    if isa == "avx2":
        return build("poker_blocks_avx2", C_DIR / "blocks_avx2.c", AVX2_CDEF, ("avx2",))
    if isa == "bmi2":
        return build("poker_blocks_bmi2", C_DIR / "blocks.c", BLOCKS_CDEF + PDEP_CDEF, ("bmi2", "popcnt"))
    return build("poker_blocks", C_DIR / "blocks.c", BLOCKS_CDEF, (), ("-fno-tree-vectorize",))


# how each block kernel's inputs and outputs map to its C signature: input keys, output dtype and shape
_BLOCK_IO = {
    "poker.popcount": (("words",), np.uint64, 1, True),
    "poker.rank_counts": (("hands",), np.uint64, 1, False),
    "poker.greater_equal": (("counts",), np.uint64, 4, False),
    "poker.straights": (("masks",), np.uint32, 1, False),
    "poker.deposit": (("values", "masks"), np.uint64, 1, False),
    "poker.atoi8": (("words",), np.uint32, 1, False),
    "poker.strlen": (("buffer", "offsets"), np.int64, 1, False),
}
_CTYPES = {
    np.dtype(np.uint64): "uint64_t *",
    np.dtype(np.uint32): "uint32_t *",
    np.dtype(np.int64): "int64_t *",
    np.dtype(np.uint8): "uint8_t *",
}


def _block(kernel, isa, fn_name):
    def prepare(workload):
        mod = blocks_module(isa)
        ffi, fn = mod.ffi, getattr(mod.lib, fn_name)
        if kernel == "poker.next_subset":
            n, k = workload.inputs["n"], workload.inputs["k"]
            out = np.empty(workload.size, np.uint64)
            po = ffi.cast("uint64_t *", ffi.from_buffer(out))
            return lambda: out[: fn(n, k, po)]
        keys, dtype, per, width = _BLOCK_IO[kernel]
        arrays = [as_aligned(workload.inputs[k]) for k in keys]
        count = len(arrays[-1])
        out = aligned_empty((count, per) if per > 1 else count, dtype)
        args = [ffi.cast(_CTYPES[a.dtype], ffi.from_buffer(a)) for a in arrays]
        args += [ffi.cast(_CTYPES[out.dtype], ffi.from_buffer(out)), count]
        if width:
            args.append(int(workload.inputs["width"]))

        def batch():
            fn(*args)
            return out

        batch.keepalive = (arrays, out)
        return batch

    return prepare


def _c_pair(kernel, naive, swar, swar_name="c-swar"):
    return [
        Implementation(
            kernel,
            "c-naive",
            "cffi-scalar",
            _block(kernel, "scalar", naive),
            ("cc",),
            "the naive loop in C",
            build=partial(blocks_module, "scalar"),
        ),
        Implementation(
            kernel,
            swar_name,
            "cffi-scalar",
            _block(kernel, "scalar", swar),
            ("cc",),
            "the SWAR way in C",
            build=partial(blocks_module, "scalar"),
        ),
    ]


BLOCKS = [
    *_c_pair("poker.popcount", "popcount_naive", "popcount_swar"),
    Implementation(
        "poker.popcount",
        "c-builtin",
        "cffi-bmi2",
        _block("poker.popcount", "bmi2", "popcount_builtin"),
        ("cc", "popcnt"),
        "the builtin (one POPCNT instruction) per lane, as the talk's benchmark",
        build=partial(blocks_module, "bmi2"),
    ),
    Implementation(
        "poker.popcount",
        "c-avx512",
        "cffi-avx512",
        _block("poker.popcount", "avx512", "popcount_avx512"),
        ("cc", "avx512_vpopcntdq", "avx512_bitalg", "avx512bw"),
        "8 words at once: VPOPCNTQ/D/W/B per lane width; 4-bit lanes from two byte counts",
        build=partial(blocks_module, "avx512"),
    ),
    Implementation(
        "poker.popcount",
        "c-avx2",
        "cffi-avx2",
        _block("poker.popcount", "avx2", "popcount_avx2"),
        ("cc", "avx2"),
        "4 words at once: nibble counts by VPSHUFB table lookup, summed per lane width (VPSADBW for 64-bit lanes)",
        build=partial(blocks_module, "avx2"),
    ),
    *_c_pair("poker.rank_counts", "rank_counts_naive", "rank_counts_swar"),
    *_c_pair("poker.greater_equal", "greater_equal_naive", "greater_equal_swar"),
    *_c_pair("poker.straights", "straights_naive", "straights_chain", "c-chain"),
    Implementation(
        "poker.straights",
        "c-shift5",
        "cffi-scalar",
        _block("poker.straights", "scalar", "straights_shift5"),
        ("cc",),
        "five shifts and ANDs",
        build=partial(blocks_module, "scalar"),
    ),
    *_c_pair("poker.next_subset", "subsets_naive", "subsets_gosper", "c-gosper"),
    Implementation(
        "poker.deposit",
        "c-loop",
        "cffi-scalar",
        _block("poker.deposit", "scalar", "deposit_loop"),
        ("cc",),
        "the portable loop, one step per set bit of the mask",
        build=partial(blocks_module, "scalar"),
    ),
    Implementation(
        "poker.deposit",
        "c-pdep",
        "cffi-bmi2",
        _block("poker.deposit", "bmi2", "deposit_pdep"),
        ("cc", "bmi2"),
        "one BMI2 pdep instruction",
        build=partial(blocks_module, "bmi2"),
    ),
    *_c_pair("poker.atoi8", "atoi8_naive", "atoi8_swar"),
    *_c_pair("poker.strlen", "strlen_naive", "strlen_swar"),
]
