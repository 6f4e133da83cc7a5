"""Every option of `swarbench run` and of the commands around it, declared once: its key, kind (with its bounds),
default, help, the sub-commands that have it, the field of the run it sets, and its environment variable.

The command line (swarbench.cli), the ``[tool.swarbench]`` table (swarbench.config) and the library
(``swarbench.api.request`` and ``run``) are derived from these declarations: a value is checked by its kind's
one function whichever way it comes, against the same limits, and every default is the one written here
(``swarbench.run_request.RunRequest`` takes its defaults from here too). The key is the option's name in the table,
``--key`` on the command line unless ``flags`` says otherwise, and ``key`` with ``_`` for ``-`` as a keyword
argument of the library.

Nothing here imports more than the standard library: `swarbench --help` parses with it.
"""

from __future__ import annotations

import argparse
import difflib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from swarbench.errors import UsageError

FORMATS = ("text", "md", "csv", "html")  # swarbench.render.FORMATS, named here so parsing needs no pandas
EXPORT_FORMATS = ("pytest-benchmark", "github-action-benchmark")  # swarbench.export.FORMATS, likewise

# Counts above these are no request a machine can carry out: refused as bad input, not tried for days
LARGEST_SIZE = 2**62  # operations per batch; anything near it is refused by the memory check anyway
LARGEST_COUNT = 10**6  # rounds
LARGEST_STAGES = 1000  # workers and passes: each is a stretch of the whole run
LARGEST_SEED = 2**63 - 1  # NumPy's generators take any integer from 0 up; this keeps it inside int64 and JSON


class BadValue(ValueError):
    """What a value should have been; the message completes "expected ..." (a key or keyword) or is the whole
    complaint about a command-line word (``parse``)."""


# -- kinds of value ----------------------------------------------------------------------------------------------


class Kind:
    """How an option's value is checked (a TOML or Python value) and read (a command-line word)."""

    expected = ""  # completes "expected ..."
    metavar: Optional[str] = None
    repeatable = False  # given once per value on the command line

    def check(self, value: Any) -> Any:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        return self.check(text)


@dataclass(frozen=True)
class WholeNumber(Kind):
    least: int
    largest: int
    what: str  # "a positive integer"

    @property
    def expected(self) -> str:
        return f"{self.what}, at most {self.largest:,}"

    def check(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():  # TOML and Python write 1e6 as a float
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not self.least <= value <= self.largest:
            raise BadValue(self.expected)
        return value

    def parse(self, text: str) -> int:
        """1000, 1_000 or 1e3."""
        try:
            if "e" in text.lower():
                number = float(text)
                if math.isinf(number) and number > 0:  # 1e400 reads as inf, which no int holds
                    raise BadValue(f"{text!r} is too large (at most {self.largest:,})")
                if not math.isfinite(number) or not number.is_integer():
                    raise ValueError
                value = int(number)
            else:
                value = int(text.replace("_", ""))
        except BadValue:
            raise
        except ValueError:
            raise BadValue(f"{text!r} is not {self.what}") from None
        if value < self.least:
            raise BadValue(f"{text!r} is not {self.what}")
        if value > self.largest:
            raise BadValue(f"{text!r} is too large (at most {self.largest:,})")
        return value


@dataclass(frozen=True)
class Positive(Kind):
    """A number above 0 and finite: inf would never end a run or trip a gate."""

    expected = "a number above 0"

    def check(self, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise BadValue(self.expected)
        return float(value)

    def parse(self, text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise BadValue(f"{text!r} is not a number") from None
        if not math.isfinite(value):
            raise BadValue(f"{text!r} is not a finite number")
        if not value > 0:
            raise BadValue(f"{text!r} must be above 0")
        return value


@dataclass(frozen=True)
class Flag(Kind):
    expected = "true or false"

    def check(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise BadValue(self.expected)
        return value


@dataclass(frozen=True)
class Patterns(Kind):
    """One pattern or a list of them: ``kernels = "cards.*"`` and ``kernels = ["cards.*"]`` say the same."""

    expected = "a string or a list of strings"
    metavar: Optional[str] = "PATTERN"
    repeatable = True

    def check(self, value: Any) -> list[str]:
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) and v for v in values):
            raise BadValue(self.expected)
        return list(values)

    def parse(self, text: str) -> str:
        return text  # one of the list, appended


@dataclass(frozen=True)
class Sizes(Kind):
    """A list of batch sizes; ``1e3,1e4`` on the command line."""

    size: WholeNumber
    expected = "a positive integer or a list of them"
    metavar = "N1,N2,..."

    def check(self, value: Any) -> list[int]:
        try:
            return [self.size.check(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
        except BadValue:
            raise BadValue(self.expected) from None

    def parse(self, text: str) -> list[int]:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        try:
            return [self.size.parse(part) for part in parts] or [self.size.parse("")]
        except BadValue as exc:
            raise BadValue(f"in {text!r}: {exc}") from None


@dataclass(frozen=True)
class Params(Kind):
    """Workload parameters: a table ``{ hero = "7h 2c" }``, a dict, or ``--param NAME=VALUE`` once each."""

    expected = "a table of NAME = VALUE (strings or numbers)"
    metavar = "NAME=VALUE"
    repeatable = True

    def check(self, value: Any) -> dict[str, str]:
        if isinstance(value, (list, tuple)) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
            value = dict(value)  # as the command line gathers them
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int, float)) and not isinstance(v, bool)
            for k, v in value.items()
        ):
            raise BadValue(self.expected)
        return {name: str(v) for name, v in value.items()}

    def parse(self, text: str) -> tuple[str, str]:
        name, sep, value = text.partition("=")
        if not sep or not name.strip():
            raise BadValue(f"{text!r} is not NAME=VALUE")
        return name.strip(), value


@dataclass(frozen=True)
class Choice(Kind):
    choices: tuple[str, ...]

    @property
    def expected(self) -> str:
        return f"one of {', '.join(self.choices)}"

    def check(self, value: Any) -> str:
        if value not in self.choices:
            raise BadValue(self.expected)
        return value


@dataclass(frozen=True)
class Text(Kind):
    what: str  # "a plugin's name"

    @property
    def expected(self) -> str:
        return f"{self.what} (a string)"

    def check(self, value: Any) -> str:
        if not isinstance(value, str) or not value:
            raise BadValue(self.expected)
        return value


@dataclass(frozen=True)
class Folder(Kind):
    expected = "a folder (a string)"
    metavar = "DIR"

    def check(self, value: Any) -> Path:
        if isinstance(value, Path):
            return value
        if not isinstance(value, str) or not value:
            raise BadValue(self.expected)
        return Path(value)


POSITIVE = WholeNumber(1, LARGEST_COUNT, "a positive integer")
SIZE = WholeNumber(1, LARGEST_SIZE, "a positive integer")
STAGES = WholeNumber(1, LARGEST_STAGES, "a positive integer")


# -- the options -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    key: str  # in [tool.swarbench]; --key on the command line; key_with_underscores in the library
    kind: Kind
    default: Any
    help: str
    commands: tuple[str, ...]  # the sub-commands that have it ("" is the top level)
    field: Optional[str] = None  # the RunRequest field it sets; None: not a setting of the run itself
    flags: tuple[str, ...] = ()  # on the command line, when not --key
    env: str = ""  # an environment variable that, when set, wins over the key (a session's own choice)
    metavar: Optional[str] = None
    # a repeatable option whose values may also come after the sub-command, as words of their own: the
    # parsed command line holds those under this name, and ``values_of`` adds them to the option's
    positional: str = ""
    off: tuple[str, ...] = ()  # a flag's command-line words that turn it off, beside ``flags`` that turn it on
    off_help: str = ""

    @property
    def keyword(self) -> str:
        """The option's name as a keyword argument of the library, and as the parsed command line's attribute."""
        return self.key.replace("-", "_")

    @property
    def negated(self) -> bool:
        """A flag whose command line turns it off: --no-overhead for ``overhead``."""
        return isinstance(self.kind, Flag) and any(f.startswith("--no-") for f in self.flags)

    def default_value(self) -> Any:
        """The default, or its environment variable's value where that is set: checked as any other value, so
        one set to nothing (SWARBENCH_REPORTS="") is refused, never read as the current folder or the default."""
        given = os.environ.get(self.env) if self.env else None
        if given is None:
            return _copy(self.default)
        try:
            return self.kind.check(given)
        except BadValue as exc:
            raise UsageError(f"${self.env} = {_written(given)}: expected {exc}") from None

    def check(self, value: Any, source: str, name: Optional[str] = None) -> Any:
        """The value checked; UsageError names the option as the source spells it."""
        try:
            return self.kind.check(value)
        except BadValue as exc:
            raise UsageError(f"{source}: {name or self.key} = {_written(value)}: expected {exc}") from None

    def add_to(self, parser: argparse.ArgumentParser, choices: tuple[str, ...] = ()) -> None:
        """The option on a sub-command's parser; its default comes later (``defaults``)."""
        flags = self.flags or (f"--{self.key}",)
        common = dict(dest=self.keyword, help=self.help)
        if isinstance(self.kind, Flag):
            parser.add_argument(*flags, action="store_false" if self.negated else "store_true", **common)
            if self.off:
                parser.add_argument(*self.off, dest=self.keyword, action="store_false", help=self.off_help)
            return
        if isinstance(self.kind, Choice):
            parser.add_argument(*flags, choices=self.kind.choices + choices, **common)
            return
        parser.add_argument(
            *flags,
            type=argument_type(self.kind),
            metavar=self.metavar or self.kind.metavar,
            action=Repeated if self.kind.repeatable else "store",
            **common,
        )
        if self.positional:
            parser.add_argument(
                self.positional,
                nargs="*",
                default=[],
                type=argument_type(self.kind),
                metavar=self.kind.metavar,
                help=f"as --{self.key}",
            )


class Repeated(argparse.Action):
    """Each use adds a value, and the first replaces the default: a list from [tool.swarbench] is replaced by
    the command line's, never added to."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_repeated", set())
        before = list(getattr(namespace, self.dest) or []) if self.dest in given else []
        given.add(self.dest)
        setattr(namespace, self.dest, before + [values])


def argument_type(kind: Kind):
    """An argparse ``type`` reading a command-line word as ``kind`` does."""

    def convert(text: str):
        try:
            return kind.parse(text)
        except BadValue as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = type(kind).__name__.lower()  # what argparse names in its own messages
    return convert


def _copy(value: Any) -> Any:
    return list(value) if isinstance(value, list) else dict(value) if isinstance(value, dict) else value


def _written(value: Any) -> str:
    """A value about as the user wrote it (TOML's spelling)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


RUN = ("run",)
SELECTING = ("run", "list", "noise")  # (noise: its pair's subset, default swarbench.noise.KERNELS)
SAVED = ("run", "report", "compare", "history")
OPTIONS = {
    o.key: o
    for o in (
        Option(
            "kernels",
            Patterns(),
            [],
            "kernels whose id matches this shell pattern, e.g. 'cards.*' (repeatable; "
            "default all; `noise`: its own subset)",
            SELECTING,
            "kernels",
            ("--kernel", "-k"),
        ),
        Option(
            "implementations",
            Patterns(),
            [],
            "implementations whose name matches this pattern, e.g. 'c-*' "
            "(repeatable; default all; `noise`: its own subset)",
            SELECTING,
            "impls",
            ("--impl", "-i"),
        ),
        Option(
            "workloads",
            Patterns(),
            [],
            "run these workload kinds instead of each kernel's defaults (repeatable; see `list`)",
            RUN,
            "workloads",
            ("--workload", "-w"),
            metavar="NAME",
        ),
        Option(
            "size",
            SIZE,
            None,
            "operations per batch, e.g. 1048576 or 1e6 (default: each workload's own size)",
            RUN,
            "sizes",
            ("--size", "-n"),
            metavar="N",
        ),
        Option(
            "sizes",
            Sizes(SIZE),
            [],
            "scaling mode: measure every workload at each of these sizes, e.g. "
            "1e3,1e4,1e5,1e6; the report plots ns/op against N",
            RUN,
            "sizes",
        ),
        Option(
            "seed",
            WholeNumber(0, LARGEST_SEED, "a seed (a whole number, 0 or more)"),
            0,
            "seed of the input generators (default 0)",
            RUN,
            "seed",
        ),
        Option(
            "params",
            Params(),
            {},
            "a parameter of the workloads that declare it, e.g. --param hero='7h 2c' "
            "(repeatable; `swarbench list` shows each workload's parameters and defaults)",
            RUN,
            "params",
            ("--param",),
        ),
        Option(
            "processes",
            STAGES,
            2,
            "fresh worker processes, run one after another, each in its own shuffled "
            "order; their samples are merged and their medians compared (default 2; batches over 0.5 s are timed "
            "only by the first --min-rounds workers)",
            RUN,
            "processes",
            ("--processes", "-p"),
            metavar="P",
        ),
        Option(
            "passes",
            STAGES,
            3,
            "in each worker, go through the whole run K times, each workload's "
            "implementations reshuffled in every pass, timing a K-th of every case's rounds per pass (default 3)",
            RUN,
            "passes",
            metavar="K",
        ),
        Option(
            "settle",
            WholeNumber(0, LARGEST_STAGES, "a whole number (0 or more)"),
            0,
            "up to K extra workers, one after another, for the cases whose workers' medians differ by more than "
            "10%%, long batches aside (default 0)",
            RUN,
            "settle",
            metavar="K",
        ),
        Option(
            "keep-slowed",
            Flag(),
            True,
            "keep every sample in the medians, those of passes the canary found the "
            "machine slowed during too (the default)",
            RUN,
            "keep_slowed",
            off=("--set-aside-slowed",),
            off_help="set aside the samples of passes the canary found the machine "
            "slowed during, counted in samples_slowed (as runs before this version did)",
        ),
        Option(
            "timeout",
            Positive(),
            600.0,
            "a case (prepare, check and timing) running longer is stopped and reported as timed out (default 600)",
            RUN,
            "timeout",
            metavar="SECONDS",
        ),
        Option(
            "overhead",
            Flag(),
            True,
            "skip timing the empty call of each family (the fixed cost shown beside each ns/op)",
            RUN,
            "overhead",
            ("--no-overhead",),
        ),
        Option(
            "explain",
            Flag(),
            True,
            "skip reading each C and Numba row's timed code after its last pass (its disassembly, hot loop and "
            "llvm-mca limit); the memory limit stays",
            RUN,
            "explain",
            ("--no-explain",),
        ),
        Option(
            "max-time",
            Positive(),
            0.05,
            "timing budget per measurement, shared by the workers (default 0.05)",
            RUN,
            "max_time",
            metavar="SECONDS",
        ),
        Option(
            "min-rounds",
            POSITIVE,
            1,
            "at least this many timed batch calls per measurement, dealt out over the "
            "workers (default 1: a batch of half a second or more is timed by the first worker alone)",
            RUN,
            "min_rounds",
            metavar="R",
        ),
        Option(
            "short-rounds",
            WholeNumber(0, LARGEST_COUNT, "a whole number (0 or more)"),
            6,
            "at least this many timed calls per measurement of a batch under 0.3 s, dealt out over the workers, "
            "whatever --max-time (default 6)",
            RUN,
            "short_rounds",
            metavar="R",
        ),
        Option(
            "reports",
            Folder(),
            Path("reports"),
            "where runs are saved (default ./reports or $SWARBENCH_REPORTS)",
            SAVED,
            "reports_dir",
            env="SWARBENCH_REPORTS",
        ),
        Option(
            "format",
            Choice(FORMATS),
            "text",
            "output format (default text); `report` also writes the JSON of "
            "pytest-benchmark and of github-action-benchmark (customSmallerIsBetter)",
            ("run", "report"),
            flags=("--format", "-f"),
        ),
        Option("quiet", Flag(), False, "no progress lines", RUN, flags=("--quiet", "-q")),
        Option(
            "threshold",
            Positive(),
            10.0,
            "the --fail-on-regression threshold to judge the rows' resolution against (default 10)",
            ("noise",),
            metavar="PCT",
        ),
        Option("system", Flag(), False, "only what can be seen of the machine; no runs", ("noise",)),
        # (not ``reports``: the pair's runs go to a temporary folder, removed, unless this is given)
        Option(
            "noise-reports",
            Folder(),
            None,
            "keep the pair's two runs here (default: a temporary folder, removed)",
            ("noise",),
            flags=("--reports",),
        ),
        Option(
            "disable-plugins",
            Patterns(metavar="NAME"),
            [],
            "do not load this plugin (repeatable; also $SWARBENCH_DISABLE_PLUGINS=a,b)",
            ("",),
            "disable",
            ("--disable-plugin",),
        ),
        Option(
            "plugins",
            Patterns(metavar="FILE"),
            [],
            "load this local plugin: a .py file, a folder of them, or a "
            "module name (repeatable; files may also be named after the command, as in `swarbench run "
            "bench.py`; default: the files of ./benchmarks/); a plain run then measures only their kernels",
            SELECTING,
            "plugins",
            ("--plugin",),
            positional="files",
        ),
        Option(
            "follow",
            Text("a plugin's name"),
            None,
            "group and label runs by this plugin's version control commit "
            "(a local plugin's path, e.g. benchmarks/zero.py, or an installed plugin's name) instead of "
            "swarbench's, and keep only its rows",
            ("history", "compare"),
            metavar="PLUGIN",
        ),
    )
}
RUN_OPTIONS = {o.keyword: o for o in OPTIONS.values() if o.field}  # what swarbench.api.request takes


def for_command(command: str) -> list[Option]:
    return [o for o in OPTIONS.values() if command in o.commands]


def add_arguments(parser: argparse.ArgumentParser, command: str, choices: tuple[str, ...] = ()) -> None:
    """A sub-command's declared options (``choices`` widen a Choice, e.g. report's export formats)."""
    for option in for_command(command):
        option.add_to(parser, choices if isinstance(option.kind, Choice) else ())


def defaults(command: str, settings: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The parsed command line's defaults, by attribute: each option's [tool.swarbench] value (``settings``, by
    key) where its environment variable is not set, else its own default."""
    settings = settings or {}
    out = {}
    for option in for_command(command):
        overridden = bool(option.env) and option.env in os.environ
        try:
            out[option.keyword] = (
                _copy(settings[option.key]) if option.key in settings and not overridden else option.default_value()
            )
        except UsageError as exc:  # refused where it is used: another command than this one may be run
            out[option.keyword] = Refused(str(exc))
    return out


@dataclass(frozen=True)
class Refused:
    """A default whose environment variable holds what its option refuses: the error, said only by a command
    that uses the option without giving it (``refused``)."""

    message: str


def refused(values: dict) -> None:
    """Raise the first Refused default left among a parsed command line's values."""
    for value in values.values():
        if isinstance(value, Refused):
            raise UsageError(value.message)


def check(
    table: Any, source: str, python_names: bool = False, allowed: Optional[dict[str, Option]] = None
) -> dict[str, Any]:
    """Each value of a table checked by its option, by key; UsageError names the first unknown name or bad
    value. ``python_names``: names are keywords (max_time), as the library takes them; ``allowed``: the options
    that may be given (by their spelling in ``table``), default every one."""
    if not isinstance(table, dict):
        raise UsageError(f"{source}: expected a table of settings")
    known = allowed if allowed is not None else ({o.keyword: o for o in OPTIONS.values()} if python_names else OPTIONS)
    out = {}
    for name, value in table.items():
        option = known.get(name)
        if option is None:
            near = difflib.get_close_matches(name.replace("_", "-") if not python_names else name, known, n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            what = "keyword" if python_names else "key"
            raise UsageError(f"{source}: unknown {what} {name!r} ({hint}{what}s: {', '.join(sorted(known))})")
        out[option.key] = option.check(value, source, name)
    return out


def request_fields(values: dict[str, Any]) -> dict[str, Any]:
    """RunRequest's fields from checked values by key: ``size`` and ``sizes`` make ``sizes`` (the size first)."""
    out = {
        o.field: _copy(values[o.key])
        for o in OPTIONS.values()
        if o.field and o.key in values and o.key not in ("size", "sizes")
    }
    size, sizes = values.get("size"), values.get("sizes") or []
    if size is not None or sizes:
        out["sizes"] = ([size] if size else []) + [n for n in sizes if n != size]
    return out


def run_values(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings from a parsed command line, by key, ready for ``request_fields``."""
    out = {}
    for option in RUN_OPTIONS.values():
        value = value_of(args, option)
        if value is not None:
            out[option.key] = option.kind.check(value) if isinstance(option.kind, Params) else value
    return out


def value_of(args: argparse.Namespace, option: Option) -> Any:
    """An option's value on a parsed command line: words given after the sub-command (``positional``) are the
    option's values, in place of [tool.swarbench]'s as the option's own flag would be."""
    value = getattr(args, option.keyword, None)
    words = list(getattr(args, option.positional, None) or []) if option.positional else []
    if not words:
        return value
    given = option.keyword in getattr(args, "_repeated", set())
    return (list(value or []) if given else []) + words
