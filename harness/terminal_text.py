"""Text from plugins and results files, made safe to print: control characters (other than the line break and
tab) would move a terminal's cursor, set its title or erase what it shows, so each is written as an escape
(``\\x1b``). Standard library only: the command line's every message goes through it."""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with each control character but the line break and tab written as an escape (``\\x1b``)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
