"""C families through cffi (API mode): one module per source file in ``c/``, built for its instruction set.

Every C family exports the same two functions, so one wrapper serves them all. The loop and unrolled sources
take the post's layout (16 int32 counts per hand, converted in prepare); the SWAR sources take the packed
uint64 arrays as they are. Scalar sources are built with -fno-tree-vectorize so they stay what their name says.
The ``-mt`` variants run the same SIMD source split over the machine's cores (c/split.h) once a batch is large
enough to leave the caches. The ``c-sliced`` variants of contains read hands transposed into bit planes
(``bit_planes``, in prepare): one source, c/sliced.c, built scalar, for AVX2 and for AVX-512.
"""

from functools import partial
from pathlib import Path

import numpy as np

from swarbench import features
from swarbench.cbuild import build
from swarbench.memory import aligned_copy, aligned_empty, as_aligned
from swarbench.model import Implementation, InvalidInput

from .spec import PackedOnRead, counts_of

C_DIR = Path(__file__).parent / "c"
SCALAR = ("-fno-tree-vectorize",)

PACKED_CDEF = """
void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n);
void remove_batch(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n);
"""
SPLIT_CDEF = (
    PACKED_CDEF
    + """
void contains_batch_mt(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n, int threads);
void remove_batch_mt(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n, int threads);
"""
)
# Below this many pairs a batch stays in one thread: the inputs fit a core's L2 (16 bytes a pair) and handing
# a share to a helper thread would cost more than the work it takes over.
SPLIT_MIN_PAIRS = 1 << 18
COUNTS_CDEF = """
void contains_batch(const int32_t *a, const int32_t *b, uint8_t *out, size_t n);
void remove_batch(const int32_t *a, const int32_t *b, int32_t *out, size_t n);
"""

# name, family, source, instruction sets, extra flags, layout ("split": packed, over all cores)
VARIANTS = [
    ("c-loop", "cffi-scalar", "loop.c", (), SCALAR, "counts"),
    ("c-unrolled", "cffi-scalar", "unrolled.c", (), SCALAR, "counts"),
    ("c-swar", "cffi-scalar", "swar.c", (), SCALAR, "packed"),
    ("c-swar-sse2", "cffi-sse2", "sse2.c", ("sse2",), (), "packed"),
    ("c-swar-avx2", "cffi-avx2", "avx2.c", ("avx2",), (), "packed"),
    ("c-swar-avx512", "cffi-avx512", "avx512.c", ("avx512bw",), (), "packed"),
    ("c-swar-avx2-mt", "cffi-avx2", "avx2.c", ("avx2",), (), "split"),
    ("c-swar-avx512-mt", "cffi-avx512", "avx512.c", ("avx512bw",), (), "split"),
]


# The bit-sliced layout (c/sliced.c): per block of 512 hands, bits 0..2 of each rank's count (kinds 1..13,
# counts 0..4), then the one bit of each joker (kinds 14, 15), as 41 planes of 512 bits.
SLICED_BLOCK = 512
PLANE_SHIFTS = [4 * kind + bit for kind in range(1, 14) for bit in range(3)] + [4 * 14, 4 * 15]
SLICED_BITS = sum(1 << s for s in PLANE_SHIFTS)
SLICED_CDEF = """
void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n);
void contains_batch_mt(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n, int threads);
"""
# name, family, instruction sets, extra flags, split over the cores
SLICED_VARIANTS = [
    ("c-sliced", "cffi-scalar", (), SCALAR, False),
    ("c-sliced-avx2", "cffi-avx2", ("avx2",), (), False),
    ("c-sliced-avx512", "cffi-avx512", ("avx512bw",), (), False),
    ("c-sliced-avx2-mt", "cffi-avx2", ("avx2",), (), True),
    ("c-sliced-avx512-mt", "cffi-avx512", ("avx512bw",), (), True),
]


def bit_planes(vectors: np.ndarray) -> np.ndarray:
    """Packed hands to the planes c/sliced.c reads: uint64[blocks, 41, 8], the last block padded with empty hands.

    Word w of a plane holds pairs 64 w .. 64 w + 63 of its block, pair 64 w + j in bit j.
    """
    vectors = np.asarray(vectors, dtype=np.uint64)
    # 3 bits hold a rank's count up to 7 (the kernel's validation allows 4), one bit a joker's; nothing else fits
    if (vectors & np.uint64(~SLICED_BITS & (2**64 - 1))).any():
        raise InvalidInput(
            "a hand has a count the bit-sliced layout cannot hold (over 7 of a rank, over 1 of a "
            "joker, or anything in nibble 0)"
        )
    blocks = -(-len(vectors) // SLICED_BLOCK)
    padded = np.zeros(blocks * SLICED_BLOCK, np.uint64)
    padded[: len(vectors)] = vectors
    planes = np.empty((blocks, len(PLANE_SHIFTS), SLICED_BLOCK // 8), np.uint8)
    for p, shift in enumerate(PLANE_SHIFTS):
        bits = ((padded >> np.uint64(shift)) & np.uint64(1)).astype(np.uint8)
        planes[:, p, :] = np.packbits(bits, bitorder="little").reshape(blocks, -1)
    # the bytes are little-endian words (pair 64 w + j is bit j); read them so, whatever this machine's order
    return aligned_copy(planes.reshape(-1).view("<u8").reshape(blocks, len(PLANE_SHIFTS), -1), np.uint64)


def threads_for(n: int) -> int:
    return features.cores() if n >= SPLIT_MIN_PAIRS else 1


def module(source, isa, flags, layout):
    cdef = {"counts": COUNTS_CDEF, "packed": PACKED_CDEF, "split": SPLIT_CDEF}[layout]
    return build(f"cards_{Path(source).stem}", C_DIR / source, cdef, isa, flags)


def sliced_module(isa, flags):
    return build("cards_sliced", C_DIR / "sliced.c", SLICED_CDEF, isa, flags)


def _prepare(op, source, isa, flags, layout):
    def prepare(workload):
        mod = module(source, isa, flags, layout)
        ffi, lib = mod.ffi, mod.lib
        n = len(workload.inputs["a"])
        if layout == "counts":
            a = aligned_copy(counts_of(workload.inputs["a"]), np.int32)
            b = aligned_copy(counts_of(workload.inputs["b"]), np.int32)
            ctype = "int32_t *"
        else:
            a = as_aligned(workload.inputs["a"])
            b = as_aligned(workload.inputs["b"])
            ctype = "uint64_t *"
        if op == "contains":
            out = aligned_empty(n, np.bool_)
            fn, out_type, result = lib.contains_batch, "uint8_t *", out
        elif layout == "counts":
            out = aligned_empty((n, 16), np.int32)
            fn, out_type = lib.remove_batch, "int32_t *"
            result = PackedOnRead(out)
        else:
            out = aligned_empty(n, np.uint64)
            fn, out_type, result = lib.remove_batch, "uint64_t *", out
        pa, pb = ffi.cast(ctype, ffi.from_buffer(a)), ffi.cast(ctype, ffi.from_buffer(b))
        po = ffi.cast(out_type, ffi.from_buffer(out))
        if layout == "split":
            split_fn, threads = getattr(lib, f"{op}_batch_mt"), threads_for(n)

            def batch():
                split_fn(pa, pb, po, n, threads)
                return result
        else:

            def batch():
                fn(pa, pb, po, n)
                return result

        batch.keepalive = (a, b, out)  # the C pointers borrow these buffers
        return batch

    return prepare


def _prepare_sliced(isa, flags, split):
    def prepare(workload):
        mod = sliced_module(isa, flags)
        ffi, lib = mod.ffi, mod.lib
        n = len(workload.inputs["a"])
        a, b = bit_planes(workload.inputs["a"]), bit_planes(workload.inputs["b"])
        out = aligned_empty(n, np.bool_)
        pa = ffi.cast("uint64_t *", ffi.from_buffer(a))
        pb = ffi.cast("uint64_t *", ffi.from_buffer(b))
        po = ffi.cast("uint8_t *", ffi.from_buffer(out))
        if split:
            threads = threads_for(n)

            def batch():
                lib.contains_batch_mt(pa, pb, po, n, threads)
                return out
        else:

            def batch():
                lib.contains_batch(pa, pb, po, n)
                return out

        batch.keepalive = (a, b, out)  # the C pointers borrow these buffers
        return batch

    return prepare


IMPLEMENTATIONS = [
    Implementation(
        f"cards.{op}",
        name,
        family,
        _prepare(op, source, isa, flags, layout),
        requires=("cc", *isa),
        build=partial(module, source, isa, flags, layout),
        description=f"C, {source}"
        + (f" built for {', '.join(isa)}" if isa else "")
        + (f", split over the cores from {SPLIT_MIN_PAIRS:,} pairs" if layout == "split" else ""),
    )
    for op in ("contains", "remove")
    for name, family, source, isa, flags, layout in VARIANTS
] + [
    Implementation(
        "cards.contains",
        name,
        family,
        _prepare_sliced(isa, flags, split),
        requires=("cc", *isa),
        build=partial(sliced_module, isa, flags),
        description="C, sliced.c: hands as 41 bit planes per 512 (transposed in prepare)"
        + (f", built for {', '.join(isa)}" if isa else "")
        + (f", split over the cores from {SPLIT_MIN_PAIRS:,} pairs" if split else ""),
    )
    for name, family, isa, flags, split in SLICED_VARIANTS
]
