"""C families through cffi: the SWAR evaluator of c/poker_core.c, built once per instruction set.

c/swar.c and c/bmi2.c only include c/poker_core.c (with or without POKER_BMI2). The core's hash is passed as
a define so that editing the core rebuilds both modules (the build cache keys on the .c file given and flags).
Threaded variants ("-2t") split the batch (or the boards) over every core this process may use.
"""
import hashlib
import os
from pathlib import Path

import numpy as np

from harness.cbuild import build
from harness.model import Implementation

C_DIR = Path(__file__).parent / "c"
CDEF = """
void rank7_batch(const uint64_t *hands, uint32_t *out, size_t n);
void rank7_batch_mt(const uint64_t *hands, uint32_t *out, size_t n, int threads);
int categories7(int64_t *out, int threads);
void equity(uint64_t hero, const uint64_t *boards, size_t n, int mode, int threads, int64_t *out);
"""
TALK, TALK_SIGNED, SMART, SMART_ISO = 0, 1, 2, 3


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def module(isa: str):
    core = hashlib.sha256((C_DIR / "poker_core.c").read_bytes()).hexdigest()[:12]
    source, flags = ("bmi2.c", ("bmi2", "popcnt")) if isa == "bmi2" else ("swar.c", ())
    return build(f"poker_{isa}", C_DIR / source, CDEF, flags, (f"-DPOKER_CORE_SHA={core}", "-fno-tree-vectorize"))


def _rank7(isa, threads):
    def prepare(workload):
        lib, ffi = module(isa).lib, module(isa).ffi
        n_threads = cores() if threads == 0 else threads
        if workload.inputs.get("exhaustive"):
            out = np.zeros(10, np.int64)
            po = ffi.cast("int64_t *", ffi.from_buffer(out))

            def batch():
                if lib.categories7(po, n_threads):
                    raise MemoryError("categories7: no memory for the 72 MiB code bitmap")
                return out.copy()
        else:
            hands = np.ascontiguousarray(workload.inputs["hands"])
            out = np.empty(len(hands), np.uint32)
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
        n_threads = cores() if threads == 0 else threads
        boards = np.ascontiguousarray(workload.inputs["boards"])
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


SIGNED_BUG = ("reproduces the talk's comparison: codes as signed int32 compared by the sign of code1 - code2; a "
              "straight flush (category 8 in bits 28..31) is negative and loses to a no-pair hand whose code is "
              "below its minor mask, so the royal flush loses 5,670 games it wins")

IMPLEMENTATIONS = [
    Implementation("poker.rank7", "c-swar", "cffi-scalar", _rank7("scalar", 1), ("cc",),
                   "SWAR rank counts, greaterEqual<N>, straights by the addition chain; one thread"),
    Implementation("poker.rank7", "c-swar-mt", "cffi-scalar", _rank7("scalar", 0), ("cc",),
                   "the scalar SWAR evaluator with the batch split over every core"),
    Implementation("poker.rank7", "c-bmi2", "cffi-bmi2", _rank7("bmi2", 1), ("cc", "bmi2", "popcnt"),
                   "pext gathers rank masks, popcnt counts suits; one thread"),
    Implementation("poker.rank7", "c-bmi2-mt", "cffi-bmi2", _rank7("bmi2", 0), ("cc", "bmi2", "popcnt"),
                   "the BMI2 evaluator with the batch split over every core"),
    Implementation("poker.equity", "c-talk", "cffi-scalar", _equity("scalar", TALK, 1), ("cc",),
                   "the talk's method: hero ranked once per board, 990 opponent hands ranked; one thread"),
    Implementation("poker.equity", "c-talk-mt", "cffi-scalar", _equity("scalar", TALK, 0), ("cc",),
                   "the talk's method, boards split over every core"),
    Implementation("poker.equity", "c-talk-bmi2-mt", "cffi-bmi2", _equity("bmi2", TALK, 0),
                   ("cc", "bmi2", "popcnt"), "the talk's method with the BMI2 evaluator, every core"),
    Implementation("poker.equity", "c-talk-signed", "cffi-scalar", _equity("scalar", TALK_SIGNED, 0), ("cc",),
                   "the talk's program as printed, including its signed comparison", expected_to_fail=SIGNED_BUG),
    Implementation("poker.equity", "c-smart", "cffi-scalar", _equity("scalar", SMART, 1), ("cc",),
                   "91 rank classes per board + flush hands one by one, memo per rank multiset, suit "
                   "isomorphism on the full enumeration; one thread"),
    Implementation("poker.equity", "c-smart-mt", "cffi-bmi2", _equity("bmi2", SMART, 0), ("cc", "bmi2", "popcnt"),
                   "the smart method with the BMI2 evaluator, boards split over every core"),
]
