"""Settings from the ``[tool.swarbench]`` table of the pyproject.toml in the folder swarbench runs from.

Each key is named after a command-line option (``max-time = 0.5`` for --max-time, ``kernels = ["cards.*"]``
for --kernel; docs/configuration.md lists them); an option given on the command line wins over its key. A key
this module does not know, or a value of the wrong kind, is refused in one line naming the key, before anything
is loaded or measured.
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from swarbench.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, published for the Pythons before tomllib
    import tomli as tomllib

PYPROJECT = "pyproject.toml"
TABLE = "tool.swarbench"
FORMATS = ("text", "md", "csv", "html")  # swarbench.render.FORMATS, named here so reading settings needs no pandas
EXPORT_FORMATS = ("pytest-benchmark", "github-action-benchmark")  # swarbench.export.FORMATS, likewise


class BadValue(ValueError):
    """What a key's value should have been; the message completes "expected ..."."""


def _whole(value: Any, least: int) -> int:
    # TOML reads 1e6 as a float: a whole-numbered float is taken as the integer it names
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise BadValue("a positive integer" if least else "a whole number (0 or more)")
    return value


def positive_int(value: Any) -> int:
    return _whole(value, 1)


def nonnegative_int(value: Any) -> int:
    return _whole(value, 0)


def positive_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise BadValue("a number above 0")
    return float(value)


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise BadValue("true or false")
    return value


def text(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise BadValue("a string")
    return value


def patterns(value: Any) -> list[str]:
    """One pattern or a list of them: ``kernels = "cards.*"`` and ``kernels = ["cards.*"]`` say the same."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise BadValue("a string or a list of strings")
    return list(values)


def sizes(value: Any) -> list[int]:
    values = value if isinstance(value, list) else [value]
    try:
        return [positive_int(v) for v in values]
    except BadValue:
        raise BadValue("a positive integer or a list of them") from None


def params(value: Any) -> list[tuple[str, str]]:
    """A table of workload parameters, ``params = { hero = "7h 2c" }``: --param NAME=VALUE for each entry."""
    if not isinstance(value, dict) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                              for v in value.values()):
        raise BadValue("a table of NAME = VALUE (strings or numbers)")
    return [(name, str(v)) for name, v in value.items()]


def output_format(value: Any) -> str:
    if value not in FORMATS:
        raise BadValue(f"one of {', '.join(FORMATS)}")
    return value


def folder(value: Any) -> Path:
    if isinstance(value, Path):  # swarbench.api passes folders as paths too
        return value
    try:
        return Path(text(value))
    except BadValue:
        raise BadValue("a folder (a string)") from None


@dataclass(frozen=True)
class Key:
    name: str  # in [tool.swarbench]
    dest: str  # the command-line option's argparse destination
    check: Callable[[Any], Any]  # the value checked and converted; raises BadValue
    commands: tuple[str, ...]  # the sub-commands that have the option ("" is the top level)
    option: Callable[[Any], Any] = lambda value: value  # the checked value as the option holds it
    env: str = ""  # an environment variable that, when set, wins over the key (a session's own choice)


RUN = ("run",)
SAVED = ("run", "report", "compare")
KEYS = {k.name: k for k in (
    Key("kernels", "kernel", patterns, ("run", "list")),
    Key("implementations", "impl", patterns, ("run", "list")),
    Key("workloads", "workload", patterns, RUN),
    Key("size", "size", positive_int, RUN),
    Key("sizes", "sizes", sizes, RUN),
    Key("seed", "seed", nonnegative_int, RUN),
    Key("params", "param", params, RUN),
    Key("processes", "processes", positive_int, RUN),
    Key("passes", "passes", positive_int, RUN),
    Key("settle", "settle", nonnegative_int, RUN),
    Key("keep-slowed", "keep_slowed", boolean, RUN),
    Key("timeout", "timeout", positive_number, RUN),
    Key("overhead", "no_overhead", boolean, RUN, option=lambda overhead: not overhead),
    Key("max-time", "max_time", positive_number, RUN),
    Key("min-rounds", "min_rounds", positive_int, RUN),
    Key("short-rounds", "short_rounds", nonnegative_int, RUN),
    Key("reports", "reports", folder, SAVED, env="SWARBENCH_REPORTS"),
    Key("format", "format", output_format, ("run", "report")),
    Key("quiet", "quiet", boolean, RUN),
    Key("disable-plugins", "disable_plugin", patterns, ("",)),
)}
# argparse appends a repeated option to its default: these are filled after parsing, and only when not given
APPENDED = {"kernel", "impl", "workload", "param", "disable_plugin"}


@dataclass(frozen=True)
class Settings:
    """The checked values of [tool.swarbench], by key; empty where there is no table."""

    values: dict[str, Any]
    source: str = ""  # the file they came from, for messages

    def for_command(self, command: str) -> dict[str, Any]:
        """The settings a sub-command's options take, by argparse destination."""
        return {KEYS[name].dest: KEYS[name].option(value) for name, value in self.values.items()
                if command in KEYS[name].commands}

    def defaults(self, command: str) -> dict[str, Any]:
        """Those argparse can take as defaults (the repeatable options are filled in by ``fill``), less those
        whose environment variable is set."""
        overridden = {key.dest for key in KEYS.values() if key.env and os.environ.get(key.env)}
        return {dest: v for dest, v in self.for_command(command).items() if dest not in APPENDED | overridden}

    def fill(self, args, command: str) -> None:
        """Give each repeatable option the command line left empty its setting."""
        for dest, value in self.for_command(command).items():
            if dest in APPENDED and not getattr(args, dest, None):
                setattr(args, dest, list(value))

    @property
    def disabled_plugins(self) -> list[str]:
        return list(self.values.get("disable-plugins", []))


def check(table: Any, source: str = f"{PYPROJECT} [{TABLE}]", python_names: bool = False) -> Settings:
    """The settings of a [tool.swarbench] table, each value checked; UsageError names the first bad key.
    With ``python_names`` the keys are spelled as keyword arguments (max_time), as swarbench.api passes them."""
    if not isinstance(table, dict):
        raise UsageError(f"{source}: expected a table of settings")
    values = {}
    for name, value in table.items():
        key = KEYS.get(name.replace("_", "-") if python_names else name)
        if key is None:
            import difflib

            near = difflib.get_close_matches(name.replace("_", "-"), KEYS, n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise UsageError(f"{source}: unknown key {name!r} ({hint}keys: {', '.join(sorted(KEYS))})")
        try:
            values[key.name] = key.check(value)
        except BadValue as exc:
            raise UsageError(f"{source}: {name} = {_toml(value)}: expected {exc}") from None
    return Settings(values, source)


def read(folder: Path | None = None) -> Settings:
    """The settings of FOLDER/pyproject.toml (the current folder by default); none when it has no table."""
    path = Path(folder or ".") / PYPROJECT
    try:
        with open(path, "rb") as fh:
            document = tomllib.load(fh)
    except FileNotFoundError:
        return Settings({})
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None
    tool = document.get("tool")
    table = tool.get("swarbench") if isinstance(tool, dict) else None
    return Settings({}) if table is None else check(table, f"{path} [{TABLE}]")


def _toml(value: Any) -> str:
    """A value about as the user wrote it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)
