"""The GPU special function unit's reciprocal and log2 as gpu_sfu.py emulates them (cuda-fast-math): the tables
whole and cited, and the results within what the unit is documented to do. That the emulation is the unit's own
rounding shows where it matters: the published Mastermind totals it reproduces (test_mastermind.py)."""

import math

import numpy as np

from swarbench.suites.mastermind import gpu_sfu


def ulp(x: float) -> float:
    return float(np.spacing(np.float32(abs(x))))


def test_the_tables_are_whole_and_name_their_source():
    assert gpu_sfu.TABLES.shape == (128 + 64, 3) and gpu_sfu.TABLES.dtype == np.int32
    text = gpu_sfu.TABLES_CSV.read_text(encoding="utf-8").splitlines()
    assert len(text) == 1 + 128 + 64
    assert all("envytools" in line for line in text[1:])


def test_the_reciprocal_is_exact_on_powers_of_two_and_faithful_elsewhere():
    """1 / 2^k exactly; for every n up to 2^14 one of the two floats around 1/n (PTX: rcp.approx within an ulp),
    and not always the nearest: the unit does not round correctly."""
    for k in range(-30, 31):
        assert gpu_sfu.rcp(np.float32(2.0**k)) == 2.0**-k
    nearest = 0
    for n in range(1, 2**14 + 1):
        r, exact = gpu_sfu.rcp(np.float32(n)), 1 / n
        assert abs(r - exact) < ulp(exact), n
        assert np.float32(r) == r
        nearest += r == float(np.float32(exact))
    assert 0 < nearest < 2**14


def test_log2_is_zero_at_one_and_within_an_ulp_and_its_quadratics_error():
    """lg2(1) = 0; elsewhere the fixed-point result truncated to 24 bits, so within an ulp of the result plus the
    quadratic's own error (under 2^-22); below one the result is the ones' complement of the fixed-point value, so
    even lg2(1/2) is a little above -1."""
    assert gpu_sfu.lg2(1.0) == 0.0
    assert gpu_sfu.lg2(0.5) == -(1 - 2.0**-23)
    assert gpu_sfu.lg2(2.0) == 1.0
    rng = np.random.default_rng(7)
    xs = np.concatenate([rng.uniform(2.0**-14, 1.0, 3000), rng.uniform(1.0, 64.0, 1000)]).astype(np.float32)
    for x in xs:
        got, exact = gpu_sfu.lg2(float(x)), math.log2(float(x))
        assert np.float32(got) == got
        assert abs(got - exact) <= ulp(exact) + 2.0**-22, x
