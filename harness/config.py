"""Settings from the ``[tool.swarbench]`` table of the pyproject.toml in the folder swarbench runs from.

Each key is an option of swarbench.options, named as there (``max-time = 0.5`` for --max-time, ``kernels =
["cards.*"]`` for --kernel; docs/configuration.md lists them) and checked by the option's own kind, as the command
line and the library check it. An option given on the command line wins over its key; an option's environment
variable, when set, wins over its key too. A key that is no option, or a value of the wrong kind, is refused in one
line naming the key, before anything is loaded or measured.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swarbench import options
from swarbench.errors import UsageError
from swarbench.options import EXPORT_FORMATS, FORMATS  # noqa: F401  (the names the command line imports here)

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, published for the Pythons before tomllib
    import tomli as tomllib

PYPROJECT = "pyproject.toml"
TABLE = "tool.swarbench"


@dataclass(frozen=True)
class Settings:
    """The checked values of [tool.swarbench], by key; empty where there is no table."""

    values: dict[str, Any]
    source: str = ""  # the file they came from, for messages

    def defaults(self, command: str) -> dict[str, Any]:
        """A sub-command's option defaults, by the parsed command line's attribute (swarbench.options)."""
        return options.defaults(command, self.values)

    @property
    def disabled_plugins(self) -> list[str]:
        return list(self.values.get("disable-plugins", []))


def check(table: Any, source: str = f"{PYPROJECT} [{TABLE}]") -> Settings:
    """The settings of a [tool.swarbench] table, each value checked; UsageError names the first bad key."""
    return Settings(options.check(table, source), source)


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
