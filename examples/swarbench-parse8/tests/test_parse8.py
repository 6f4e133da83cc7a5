"""The plugin's own tests, through swarbench.testing: the kernel's spec, then every implementation against it
(one test each, named after it). Run them with the plugin installed: `pip install -e . && pytest tests`."""

import pytest

from swarbench import testing
from swarbench_parse8 import python
from swarbench_parse8.spec import PARSE8, word

KERNEL = PARSE8.id


def test_the_spec():
    testing.check_kernel(KERNEL)


@testing.each_implementation(KERNEL)
def test_implementation(impl):
    testing.check(impl)


@pytest.mark.parametrize(
    "text, value",
    [
        (b"12345678", 12345678),
        (b"00000042", 42),
        (b"1234567:", -1),
        (b"12 45678", -1),
        (b"\xb0\xb0\xb0\xb0\xb0\xb0\xb0\xb0", -1),
    ],
)
def test_the_swar_parse_by_hand(text, value):
    assert python.parse_swar(word(text)) == value == python.parse_naive(word(text))


def test_the_wrong_check_is_wrong_where_its_mark_says():
    assert python.parse_swar(word(b"1234567:"), python.high_nibbles_only) != -1
