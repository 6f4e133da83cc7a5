"""The kernel ``parse8.checked``: what it computes, on which inputs, and how a result is proved right.

The built-in ``poker.atoi8`` parses eight bytes that are known to be digits; this kernel must also say when they
are not, which is where the SWAR check of all eight bytes at once earns its keep.
"""

import numpy as np

from swarbench import InvalidInput, Kernel, KnownAnswer, WorkloadKind

NOT_A_NUMBER = -1
SOURCE = (
    "Daniel Lemire, 'Quickly parsing eight digits' and 'Quickly identifying a sequence of digits in a "
    "string of characters' (blog posts, 2018)"
)


def word(text: bytes) -> int:
    """Eight bytes as the little-endian word a parser reads from memory: the first byte is the lowest."""
    if len(text) != 8:
        raise InvalidInput(f"{text!r} is not eight bytes")
    return int.from_bytes(text, "little")


def text_of(w) -> bytes:
    return int(w).to_bytes(8, "little")


def reference(inputs) -> np.ndarray:
    """The plainest correct answer: each byte checked and weighted by its power of ten, in NumPy."""
    b = inputs["words"].astype("<u8").view(np.uint8).reshape(-1, 8)
    digits = b.astype(np.int64) - ord("0")
    ok = ((digits >= 0) & (digits <= 9)).all(axis=1)
    value = (digits * 10 ** np.arange(7, -1, -1, dtype=np.int64)).sum(axis=1)
    return np.where(ok, value, NOT_A_NUMBER).astype(np.int32)


# Bytes a check can mistake for digits: the neighbours of '0'-'9', the other bytes whose high nibble is 3, and
# digits with the high bit set.
NEAR_MISSES = np.frombuffer(b"/:;<=>? \x00\xb0\xb9\xff", np.uint8)


def generate(size: int, seed: int, spoil: float = 0.25) -> dict:
    """``size`` words of eight random digits; a ``spoil`` share of them with one byte made a near miss."""
    rng = np.random.default_rng(seed)
    b = (rng.integers(0, 10, (size, 8)) + ord("0")).astype(np.uint8)
    spoilt = np.flatnonzero(rng.random(size) < spoil)
    b[spoilt, rng.integers(0, 8, spoilt.size)] = rng.choice(NEAR_MISSES, spoilt.size)
    return {"words": b.view("<u8").reshape(-1).astype(np.uint64)}


def validate(inputs) -> None:
    """Any eight bytes are in the domain (that is the point); the layout is what must be right."""
    words = inputs.get("words") if isinstance(inputs, dict) else None
    if not isinstance(words, np.ndarray) or words.dtype != np.uint64 or words.ndim != 1:
        raise InvalidInput(
            f"inputs['words'] must be a 1-D uint64 array, got {type(words).__name__} {getattr(words, 'dtype', '')}"
        )


def known_answers():
    texts = [b"12345678", b"00000000", b"99999999", b"00000001", b"1234567:", b"/2345678", b"0000000\xb0", b"1234?678"]
    values = [12345678, 0, 99999999, 1, NOT_A_NUMBER, NOT_A_NUMBER, NOT_A_NUMBER, NOT_A_NUMBER]
    return [
        KnownAnswer(
            "digits and near misses",
            {"words": np.array([word(t) for t in texts], np.uint64)},
            np.array(values, np.int32),
            "hand-checked: ':' and '/' border the digits, 0xb0 is '0' | 0x80",
            size=len(texts),
        ),
    ]


MIXED = WorkloadKind(
    "mixed",
    lambda size, seed: (generate(size, seed), size),
    "random 8-digit words, a quarter with one byte a near miss",
    default_size=1 << 16,
    test_size=300,
    bytes_per_op=64,
)
# only with --workload digits: the SWAR parse without the rejections' share of the work
DIGITS = WorkloadKind(
    "digits",
    lambda size, seed: (generate(size, seed, spoil=0.0), size),
    "random 8-digit words, all valid",
    default_size=1 << 16,
    test_size=300,
    bytes_per_op=64,
    default=False,
)

PARSE8 = Kernel(
    id="parse8.checked",
    description="eight ASCII bytes to their number, or -1 when any is not a digit",
    unit="word",
    workloads=(MIXED, DIGITS),
    reference=reference,
    known_answers=known_answers,
    validate=validate,
    describe_input=lambda inputs, i: repr(text_of(inputs["words"][i])),
    baseline="naive",
    source=SOURCE,
)
