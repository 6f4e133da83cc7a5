"""Numba: the SWAR parse compiled to machine code (jitted.py). numba is imported in prepare only, so a machine
without it lists numba-swar as unavailable ("requires module:numba") instead of failing to load the plugin."""
import numpy as np

from swarbench.memory import aligned_empty


def numba_swar(workload):
    from .jitted import parse_all

    parse_all(np.zeros(1, np.uint64), np.zeros(1, np.int32))  # compile, or load the cache, here: never timed
    words = workload.inputs["words"]
    out = aligned_empty(len(words), np.int32)
    return lambda: parse_all(words, out)
