"""Pure-Python implementations: a byte loop, Lemire's SWAR check and parse, and a check that is wrong on purpose."""

import numpy as np

from swarbench.memory import aligned_empty

from .spec import NOT_A_NUMBER

M64 = (1 << 64) - 1
HIGH = 0xF0F0F0F0F0F0F0F0


def parse_naive(w: int) -> int:
    value = 0
    for i in range(8):
        c = (w >> (8 * i)) & 0xFF
        if not 48 <= c <= 57:
            return NOT_A_NUMBER
        value = value * 10 + c - 48
    return value


def all_digits(w: int) -> bool:
    """Each byte's high nibble is 3, and adding 6 leaves it 3 (so the low nibble is at most 9)."""
    return ((w & HIGH) | ((((w + 0x0606060606060606) & M64) & HIGH) >> 4)) == 0x3333333333333333


def high_nibbles_only(w: int) -> bool:
    """The classic slip: ':' to '?' (0x3a-0x3f) also have 3 for a high nibble."""
    return (w & HIGH) == 0x3030303030303030


def parse_swar(w: int, check=all_digits) -> int:
    if not check(w):
        return NOT_A_NUMBER
    w = (((w & 0x0F0F0F0F0F0F0F0F) * 2561) & M64) >> 8  # pairs of digits: 10 * first + second
    w = (((w & 0x00FF00FF00FF00FF) * 6553601) & M64) >> 16  # fours: 100 * pair + pair
    return (((w & 0x0000FFFF0000FFFF) * 42949672960001) & M64) >> 32  # 10000 * four + four


def map_words(parse):
    """prepare: the words as Python ints and the output array made here, untimed; the batch only parses."""

    def prepare(workload):
        words = [int(w) for w in workload.inputs["words"]]
        out = aligned_empty(len(words), np.int32)

        def batch():
            out[:] = [parse(w) for w in words]
            return out

        return batch

    return prepare


naive = map_words(parse_naive)
swar = map_words(parse_swar)
swar_nibble_check = map_words(lambda w: parse_swar(w, high_nibbles_only))


def numpy_swar(workload):
    """The same three multiplications over the whole array (NumPy's uint64 arithmetic wraps like C's)."""
    words = workload.inputs["words"]
    out = aligned_empty(len(words), np.int32)
    u = np.uint64

    def batch():
        high = words & u(HIGH)
        ok = (high | (((words + u(0x0606060606060606)) & u(HIGH)) >> u(4))) == u(0x3333333333333333)
        w = ((words & u(0x0F0F0F0F0F0F0F0F)) * u(2561)) >> u(8)
        w = ((w & u(0x00FF00FF00FF00FF)) * u(6553601)) >> u(16)
        w = ((w & u(0x0000FFFF0000FFFF)) * u(42949672960001)) >> u(32)
        np.copyto(out, np.where(ok, w.astype(np.int64), NOT_A_NUMBER), casting="unsafe")
        return out

    return batch
