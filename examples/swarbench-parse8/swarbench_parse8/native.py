"""C implementations, built with cffi through swarbench.cbuild from c/parse8.c (shipped as package data)."""

from pathlib import Path

import numpy as np

from swarbench import cbuild
from swarbench.memory import aligned_empty

SOURCE = Path(__file__).parent / "c" / "parse8.c"
CDEF = """
void parse8_swar(const uint64_t *words, int32_t *out, size_t n);
void parse8_naive(const uint64_t *words, int32_t *out, size_t n);
"""


def build_module():
    """the Implementation's ``build``: a run compiles every module side by side before its first worker"""
    return cbuild.build("parse8", SOURCE, CDEF)


def c_function(name: str):
    """prepare for the C function ``name``: build (cached after the first run), point at the arrays, untimed."""

    def prepare(workload):
        module = build_module()  # compile errors name parse8.c and the line
        ffi, fn = module.ffi, getattr(module.lib, name)
        words = workload.inputs["words"]
        out = aligned_empty(len(words), np.int32)
        words_p, out_p = ffi.from_buffer("uint64_t[]", words), ffi.from_buffer("int32_t[]", out)
        n = len(words)

        def batch():
            fn(words_p, out_p, n)
            return out

        return batch

    return prepare
