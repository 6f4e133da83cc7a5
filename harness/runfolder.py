"""A run folder and the format of everything in it: the one owner of what a run saves and how it reads back.

A run folder (REPORTS/<run-id>/) holds

- ``records.jsonl``: the workers' lines, one JSON object each, appended as the run goes (``RecordWriter`` in a
  worker, ``RunFolder.append`` in the engine): a ``run`` line first, then ``start``, ``phase``, ``progress``,
  ``plan``, ``build``, ``load`` (the engine's, swarbench.machine_load) and ``result`` lines. Each kind is a
  typed line here (``ResultLine`` above all).
- ``machine.json``: the machine the run was made on (swarbench.machine.collect).
- ``results.csv``: the tidy frame (swarbench.results.frame), one row per measurement.
- ``benchmark.json``: pytest-benchmark's own layout (swarbench.export builds it), with a ``swarbench`` entry for
  the run's command line and length.
- ``report.html``, ``report.md``, ``pytest.log``, the workers' ``benchmark-wN.json``, and ``cache/`` while a
  run goes.

Each file carries the version of its format: records.jsonl in its ``run`` line, results.csv in a column,
machine.json and benchmark.json in a key. A file is input: one that is corrupt, foreign or of a format this
version cannot read is refused in one line (UsageError). Formats read:

- records.jsonl 1: every run so far; lines written before the ``run`` line carried its version read as 1, and
  kernel ids of runs saved before the package was named swarbench (``harness.overhead``) read in today's names.
- results.csv 2 (format 1, the first releases, had no steadiness or per-worker columns and is refused); a file
  written before LATER_COLUMNS loads with those columns empty.
- machine.json 1 and benchmark.json 1: every run so far (none carried a version before).

Nothing here imports pandas at module level: a worker writes its records with the standard library alone.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, NamedTuple, Optional, Union

from swarbench import files
from swarbench.errors import UsageError

if TYPE_CHECKING:
    import pandas as pd

RECORDS = "records.jsonl"
RESULTS_CSV = "results.csv"
MACHINE = "machine.json"
BENCHMARK_JSON = "benchmark.json"
PYTEST_LOG = "pytest.log"
CACHE = "cache"  # workloads and reference outputs the workers of a run share; removed when the run ends

RECORDS_FORMAT = 1
RESULTS_FORMAT = 2
MACHINE_FORMAT = 1
BENCHMARK_FORMAT = 1
VERSION_KEY = "format_version"  # the key (or results.csv column) each file's version is in

# A measurement's timed code and its limits (swarbench.explain.limits fills them from the result line's
# ``explain``); the counts are those of the misses, where the machine counts them
EXPLAIN_COLUMNS = (
    "code_function",
    "code_origin",
    "code_sha256",
    "loop_instructions",
    "ops_per_iteration",
    "instructions_per_op",
    "core_cycles_per_iteration",
    "core_bottleneck",
    "core_model",
    "core_limit_cycles_per_op",
    "core_limit_ns_per_op",
    "memory_bytes_per_op",
    "memory_level",
    "memory_limit_ns_per_op",
    "limit_bound",
    "limit_ns_per_op",
    "limit_share",
    "limit_text",
    "hw_branch_misses_per_op",
    "hw_cache_misses_per_op",
    "explain_missing",
)
EXPLAIN_TEXT_COLUMNS = (
    "code_function",
    "code_origin",
    "code_sha256",
    "core_bottleneck",
    "core_model",
    "memory_level",
    "limit_bound",
    "limit_text",
    "explain_missing",
)
# Columns added within results format 2: a results file written before them still loads, with these empty.
LATER_COLUMNS = (
    "hw_cycles_per_op",
    "hw_instructions_per_op",
    "worker_medians",
    "worker_spread",
    "ns_per_op_best_worker",
    "machine_canary_us",
    "machine_slowed_share",
    "samples_slowed",
    "ns_per_op_median_all",
    "reprepare_s",
    "machine",
    "units",
    "machine_slowdown",
    "machine_others_cpus",
    "machine_steal_share",
    "machine_queue",
    "cpus_busy",
    *EXPLAIN_COLUMNS,
)
# Columns of text; every other column of the frame holds numbers
TEXT_COLUMNS = {
    "run_id",
    "kernel",
    "suite",
    "implementation",
    "family",
    "workload",
    "unit",
    "status",
    "reason",
    "expected_to_fail",
    "stability",
    "worker_medians",
    "baseline",
    "params",
    "summary",
    "machine",
    "machine_cpu",
    "machine_python",
    "machine_compiler",
    "machine_host",
    "git_commit",
    *EXPLAIN_TEXT_COLUMNS,
}
# empty reads as ""
FREE_TEXT_COLUMNS = ("reason", "summary", "params", "expected_to_fail", "stability", *EXPLAIN_TEXT_COLUMNS)
# Kernel ids an earlier version wrote, and what they are now.
RENAMED_KERNELS = {"harness.overhead": "swarbench.overhead"}

# A worker that cannot write its record file (a full disk) stops at once with this plus the error's number, so
# the engine can say which error it was: a worker going on would lose every result it made.
RECORD_FAILED_EXIT = 100
NOTE = "note"  # a records line a worker writes to be said with the run's problems (RecordWriter.note)


# -- what became of a case --------------------------------------------------------------------------------------


class Status(str, enum.Enum):
    """What became of a case, and what that means for a run: how bad it is, whether the implementation failed
    (the run exits 1), whether it was timed, and how a report says it."""

    PASS = "PASS"
    FAIL = "FAIL"  # wrong answers
    ERROR = "ERROR"  # prepare or the implementation raised
    CRASH = "CRASH"  # its process died in it
    TIMEOUT = "TIMEOUT"  # stopped after --timeout
    LOST = "LOST"  # its machine left a fleet run before the case said how it went
    SKIP = "SKIP"  # cannot run on this machine

    __str__ = str.__str__  # "PASS", in messages and f-strings alike
    __format__ = str.__format__

    @classmethod
    def parse(cls, value: Any) -> "Status":
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"{value!r} is no status ({', '.join(s.value for s in cls)})") from None

    @property
    def severity(self) -> int:
        """Merging the lines of several workers keeps the worst: a case that crashed once is not a PASS. LOST
        says nothing of the implementation, so any verdict a worker did reach outranks it."""
        return _SEVERITY[self]

    @property
    def failed(self) -> bool:
        """The implementation gave wrong answers or broke: not ranked, and the run exits 1."""
        return self in (Status.FAIL, Status.ERROR, Status.CRASH, Status.TIMEOUT)

    @property
    def timed(self) -> bool:
        """Only a PASS has figures."""
        return self is Status.PASS

    @property
    def untimed(self) -> bool:
        return self is not Status.PASS

    @property
    def rank(self) -> int:
        """Order in a kernel's table: timed first, then wrong, then broken or lost, then not run here."""
        return {Status.PASS: 0, Status.FAIL: 1, Status.SKIP: 3}.get(self, 2)

    @property
    def words(self) -> str:
        """A table cell for a row that has no time."""
        return _WORDS[self]

    @property
    def summary_words(self) -> str:
        """What a report's summary says before the implementations that ended so: "WRONG ANSWERS from" a, b."""
        return _SUMMARY_WORDS[self]


_SEVERITY = {
    Status.CRASH: 7,
    Status.TIMEOUT: 6,
    Status.ERROR: 5,
    Status.FAIL: 4,
    Status.PASS: 3,
    Status.LOST: 2,
    Status.SKIP: 1,
}
_WORDS = {
    Status.PASS: "passed",
    Status.FAIL: "WRONG ANSWER",
    Status.ERROR: "error",
    Status.CRASH: "crashed",
    Status.TIMEOUT: "timed out",
    Status.LOST: "lost with its machine",
    Status.SKIP: "not run here",
}
_SUMMARY_WORDS = {
    Status.PASS: "passed:",
    Status.FAIL: "WRONG ANSWERS from",
    Status.ERROR: "errors in",
    Status.CRASH: "crashed:",
    Status.TIMEOUT: "timed out:",
    Status.LOST: "lost with their machine:",
    Status.SKIP: "not run here:",
}
FAILED = tuple(s.value for s in Status if s.failed)  # for frame["status"].isin(FAILED)


def status_of(value: Any) -> Optional[Status]:
    """A frame cell or a record field as a Status; None for an empty or unknown one."""
    try:
        return Status(value)
    except ValueError:
        return None


# -- which case, which measurement ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CaseId:
    """A case: one implementation of a kernel on one workload at one size (None: the workload's own). Written
    ``kernel:implementation:workload:n=SIZE`` (``n=default``) in records, pytest ids and --swarbench-case."""

    kernel: str
    implementation: str
    workload: str
    size: Optional[int] = None

    @property
    def id(self) -> str:
        return f"{self.kernel}:{self.implementation}:{self.workload}:n={self.size or 'default'}"

    def __str__(self) -> str:
        return self.id

    @classmethod
    def parse(cls, text: str) -> "CaseId":
        parts = text.split(":", 3) if isinstance(text, str) else []
        if len(parts) != 4 or not parts[3].startswith("n=") or not all(parts[:3]):
            raise ValueError(f"{text!r} is no case id (kernel:implementation:workload:n=SIZE)")
        size = parts[3][2:]
        if size != "default" and not size.isdigit():
            raise ValueError(f"{text!r} is no case id: its size {size!r} is not a whole number or 'default'")
        return cls(*parts[:3], None if size == "default" else int(size))

    @property
    def key(self) -> str:
        """The implementation's key in the registry."""
        return f"{self.kernel}/{self.implementation}"

    @property
    def label(self) -> str:
        return f"{self.kernel} {self.implementation} ({self.workload})"


class MeasurementKey(NamedTuple):
    """What one row of the results frame measures; the workers' lines of one measurement share it."""

    kernel: Optional[str]
    implementation: Optional[str]
    workload: Optional[str]
    n: Optional[int]

    @classmethod
    def of(cls, item) -> "MeasurementKey":
        """The key of a result line or a merged measurement (dataclasses), or of a frame row (a Series, a dict)."""
        if dataclasses.is_dataclass(item):
            return cls(item.kernel, item.implementation, item.workload, item.n)
        return cls(*(item[k] for k in cls._fields))


# -- the lines of records.jsonl ---------------------------------------------------------------------------------


class BadRecord(ValueError):
    """A line whose fields hold what no run writes: its figures would be made up."""


def _real(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _number(name: str, v) -> Optional[float]:
    if v is None:
        return None
    if not _real(v):
        raise BadRecord(f"{name} holds {v!r}, not a number")
    return v


def _whole(name: str, v) -> Optional[int]:
    if v is None:
        return None
    if not (_real(v) and float(v).is_integer() and v >= 0):
        raise BadRecord(f"{name} holds {v!r}, not a whole number")
    return int(v)


def _text(name: str, v) -> Optional[str]:
    if v is not None and not isinstance(v, str):
        raise BadRecord(f"{name} holds {v!r}, not text")
    return v


def finite(x: Optional[float]) -> Optional[float]:
    """JSON has no NaN: an unknown duration is written as null."""
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x


@dataclass
class Line:
    """A line of records.jsonl other than a result: a moment of the run, for the live display and the engine.
    ``machine`` is set in a fleet run's gathered file (swarbench.fleet), on every line."""

    EVENT: ClassVar[str] = ""
    machine: Optional[str] = field(default=None, kw_only=True)

    def to_json(self) -> dict:
        out = {"event": self.EVENT, **{f.name: getattr(self, f.name) for f in dataclasses.fields(self)}}
        if out["machine"] is None:
            del out["machine"]
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Line":
        """Its known fields; a field of the wrong kind falls back to its default (these lines only say where a
        run is, and a hand-edited one must not end a report)."""
        values = {}
        for f in dataclasses.fields(cls):
            if f.name in data and _fits(data[f.name], f.type):
                values[f.name] = data[f.name]
        return cls(**values)


_KINDS = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "list": (list,), "dict": (dict,)}


def _fits(value, annotation: str) -> bool:
    """Whether a JSON value is of a field's declared kind (``int``, ``Optional[float]``...)."""
    name = annotation.removeprefix("Optional[").removesuffix("]")
    if value is None:
        return annotation.startswith("Optional[")
    return isinstance(value, _KINDS[name]) and not (isinstance(value, bool) and name != "bool")


@dataclass
class RunLine(Line):
    """The first line: the run's own choices its statistics depend on, which a later report repeats."""

    EVENT: ClassVar[str] = "run"
    keep_slowed: bool = False  # samples the canary found the machine slowed for stay in the medians
    format_version: int = RECORDS_FORMAT


@dataclass
class BuildLine(Line):
    """The build step before the first worker (swarbench.prebuild): how many, how long."""

    EVENT: ClassVar[str] = "build"
    builds: int = 0
    failed: int = 0
    workloads: int = 0
    seconds: float = 0.0
    t: Optional[float] = None


@dataclass
class PlanLine(Line):
    """The cases a worker is about to run."""

    EVENT: ClassVar[str] = "plan"
    worker: int = 0
    cases: list = field(default_factory=list)


@dataclass
class CaseLine(Line):
    """A moment of one case in one worker."""

    case: str = ""
    worker: int = 0


@dataclass
class StartLine(CaseLine):
    """Before each pass of a case: the engine knows which case a worker died in."""

    EVENT: ClassVar[str] = "start"
    pid: Optional[int] = None
    t: Optional[float] = None


@dataclass
class PhaseLine(CaseLine):
    """What a case is doing now (generating inputs, checking, timing pass k of K)."""

    EVENT: ClassVar[str] = "phase"
    phase: str = ""
    t: Optional[float] = None


@dataclass
class ProgressLine(CaseLine):
    """How far a long step of a case has come (swarbench.progress)."""

    EVENT: ClassVar[str] = "progress"
    phase: str = ""
    done: int = 0
    total: int = 0
    what: str = ""


@dataclass
class CanaryLine(Line):
    """A canary reading timed between passes: runs saved before each result line carried its pass readings."""

    EVENT: ClassVar[str] = "canary"
    s: Optional[float] = None


@dataclass
class LoadLine(Line):
    """What else the machine did while a worker ran, over the span ``t`` (swarbench.machine_load, polled by the
    engine): the CPUs other programs kept busy, those steal took, the mean number of other programs ready to
    run, and the machine's CPUs."""

    EVENT: ClassVar[str] = "load"
    worker: int = 0
    t: list = field(default_factory=list)  # [start, end]
    others_cpus: float = 0.0
    steal_cpus: float = 0.0
    queue: float = 0.0
    cpus: int = 1


@dataclass
class OtherLine(Line):
    """A line of a kind this version does not know: kept as it was, and passed over."""

    event: str = ""
    fields: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"event": self.event, **self.fields, **({"machine": self.machine} if self.machine else {})}


@dataclass
class ResultLine:
    """A case's ``result`` line, written after its last pass: its check's outcome, then its samples. Every field
    has a default, since lines of older runs (and hand-made ones in tests) leave some out."""

    EVENT: ClassVar[str] = "result"
    case: str = ""
    worker: int = 0
    kernel: str = ""
    implementation: str = ""
    family: str = ""
    workload: str = ""
    n: Optional[int] = None
    seed: int = 0
    params: dict = field(default_factory=dict)
    status: Optional[Status] = None
    reason: str = ""
    expected_to_fail: str = ""
    prepare_s: Optional[float] = None
    check_s: Optional[float] = None  # the verification call's duration; later workers size their rounds by it
    samples_s: list = field(default_factory=list)
    pass_canary_s: Any = field(default_factory=list)  # [before_s, after_s, samples] a timed pass (steadiness)
    pass_t: Any = field(default_factory=list)  # [start, end] of each timed pass (time.time()): machine_speed
    # the CPUs each timed pass kept busy: the process's CPU time over the pass's wall time (threads show as > 1)
    pass_cpus: Any = field(default_factory=list)
    rounds: int = 0
    iterations: int = 0
    reprepare_s: Any = field(default_factory=list)  # preparing afresh for each later pass
    summary: Optional[dict] = None
    suite: Optional[str] = None  # the kernel's; none for a case that ended before its kernel was known
    baseline: Optional[str] = None
    unit: Optional[str] = None
    counts: dict = field(default_factory=dict)  # hardware counts per op, hw_*_per_op (swarbench.counters)
    input_bytes: Optional[float] = None  # the size of the inputs a batch reads (swarbench.results: too fast?)
    # its code, hot loop and traffic (swarbench.explain.case), made after timing; None where it was not explained
    explain: Optional[dict] = None
    machine: Optional[str] = None  # a fleet run's gathered file names the machine of each line
    extra: dict = field(default_factory=dict)  # fields this version does not know, kept as they were

    @classmethod
    def of(
        cls, case_id: str, worker: int, impl, verdict, workload: str, n: int, seed: int, params: dict
    ) -> "ResultLine":
        """The line of a case whose check ended in ``verdict`` (swarbench.oracle)."""
        return cls(
            case=case_id,
            worker=worker,
            kernel=impl.kernel,
            implementation=impl.name,
            family=impl.family,
            workload=workload,
            n=n,
            seed=seed,
            params=params,
            status=Status(verdict.status),
            reason=verdict.reason,
            expected_to_fail=impl.expected_to_fail,
            prepare_s=finite(verdict.prepare_s),
            check_s=finite(verdict.call_s),
        )

    @property
    def case_id(self) -> CaseId:
        return CaseId.parse(self.case)

    @property
    def key(self) -> MeasurementKey:
        return MeasurementKey.of(self)

    def add_pass(
        self, samples: list[float], before_s: float, after_s: float, span: tuple = (), cpus: Optional[float] = None
    ) -> None:
        """A timed pass's samples, with the canary readings taken on either side of it, when it ran and the CPUs
        it kept busy."""
        self.samples_s += samples
        self.pass_canary_s.append([before_s, after_s, len(samples)])
        if span:
            self.pass_t.append([round(span[0], 4), round(span[1], 4)])
        if cpus is not None:
            self.pass_cpus.append(round(cpus, 3))

    def drop_samples(self) -> None:
        self.samples_s, self.pass_canary_s, self.rounds, self.iterations = [], [], 0, 0
        self.pass_t, self.pass_cpus = [], []

    def median_text(self) -> str:
        samples = sorted(self.samples_s)
        median = samples[len(samples) // 2] if samples else float("nan")
        return f"PASS {median / max(self.n or 1, 1) * 1e9:.4g} ns/op"

    def to_json(self) -> dict:
        out = {"event": self.EVENT} | {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("suite", "baseline", "unit", "machine", "input_bytes", "explain"):
            if out[name] is None:
                del out[name]
        out["status"] = None if self.status is None else self.status.value
        counts, extra = out.pop("counts"), out.pop("extra")
        return out | counts | extra

    @classmethod
    def from_json(cls, data: dict) -> "ResultLine":
        """The line as a run wrote it, each field checked; BadRecord names the first that holds what no run
        writes."""
        samples = data.get("samples_s")
        if samples is not None:
            if not isinstance(samples, list):
                raise BadRecord(f"samples_s holds {samples!r}, not a list of seconds")
            odd = [s for s in samples if not (_real(s) and s >= 0)]
            if odd:
                raise BadRecord(f"samples_s holds {odd[0]!r}, not seconds")
        known = {f.name for f in dataclasses.fields(cls)} - {"counts", "extra"}
        values: dict[str, Any] = {
            "counts": {k: _number(k, v) for k, v in data.items() if k.startswith("hw_") and v is not None},
            "extra": {k: v for k, v in data.items() if k not in known and not k.startswith("hw_") and k != "event"},
        }
        for name in ("prepare_s", "check_s", "input_bytes"):
            values[name] = _number(name, data.get(name))
        for name in ("n", "rounds", "iterations", "worker", "seed"):
            values[name] = _whole(name, data.get(name))
        for name in (
            "case",
            "kernel",
            "implementation",
            "family",
            "workload",
            "reason",
            "expected_to_fail",
            "suite",
            "baseline",
            "unit",
            "machine",
        ):
            values[name] = _text(name, data.get(name))
        if data.get("status") is not None:
            try:
                values["status"] = Status.parse(_text("status", data["status"]))
            except ValueError as exc:
                raise BadRecord(f"status holds {data['status']!r}, not a status") from exc
        for name in ("params", "summary", "samples_s", "pass_canary_s", "pass_t", "pass_cpus", "reprepare_s"):
            values[name] = data.get(name)
        explain = data.get("explain")
        if explain is not None and not isinstance(explain, dict):
            raise BadRecord(f"explain holds {explain!r}, not an object")
        values["explain"] = explain
        defaults = cls()
        return cls(**{k: (v if v is not None else getattr(defaults, k)) for k, v in values.items()})


Record = Union[
    ResultLine, RunLine, BuildLine, PlanLine, StartLine, PhaseLine, ProgressLine, CanaryLine, LoadLine, OtherLine
]
LINES = {
    cls.EVENT: cls
    for cls in (ResultLine, RunLine, BuildLine, PlanLine, StartLine, PhaseLine, ProgressLine, CanaryLine, LoadLine)
}


def record(data: Union[dict, Record]) -> Record:
    """A line of records.jsonl (a JSON object) as its typed line, in today's names; a typed line as it is. A line
    with no ``event`` is a result line (the earliest runs wrote none). Raises BadRecord for a result line
    whose fields hold what no run writes."""
    if not isinstance(data, dict):
        return data
    data = _renamed(data)
    kind = data.get("event", "result")
    cls = LINES.get(kind)
    if cls is None:
        return OtherLine(event=str(kind), fields={k: v for k, v in data.items() if k != "event"})
    return cls.from_json(data)


def _renamed(rec: dict) -> dict:
    """A record in today's kernel ids: its ``kernel``, and its ``case`` id, which starts with the kernel's."""
    if rec.get("kernel") in RENAMED_KERNELS:
        rec = dict(rec, kernel=RENAMED_KERNELS[rec["kernel"]])
    case = rec.get("case")
    kernel = case.split(":", 1)[0] if isinstance(case, str) else None
    if kernel in RENAMED_KERNELS:
        rec = dict(rec, case=RENAMED_KERNELS[kernel] + case[len(kernel) :])
    return rec


def parse_lines(text: str, where: str = "", strict: bool = True) -> list[Record]:
    """The lines of a records file. A line that is not a JSON object (one cut short by an interrupt or a full
    disk, bytes that are no text) is passed over; a result line whose fields hold what no run writes is refused
    in one line (UsageError) with ``strict``, passed over without."""
    out: list[Record] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            data = json.loads(line)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        try:
            out.append(record(data))
        except BadRecord as exc:
            if strict:
                raise UsageError(f"{where}, line {number}: {exc}: not a swarbench records file") from None
            continue
        if isinstance(out[-1], RunLine) and out[-1].format_version > RECORDS_FORMAT:
            raise UsageError(
                f"{where} has records format {out[-1].format_version}, written by a newer swarbench; "
                f"this one reads format {RECORDS_FORMAT}"
            )
    return out


def read_records(path: Path, strict: bool = True) -> list[Record]:
    """Every line of a records file, typed; none for a file that is not there."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_lines(data.decode(errors="replace"), str(path), strict)


def results_of(records: Iterable[Union[dict, Record]]) -> list[ResultLine]:
    """The result lines among records (as read, or as JSON objects)."""
    return [r for r in map(record, records) if isinstance(r, ResultLine)]


def note_line(text: str) -> OtherLine:
    """A records line holding a problem the run found that is no case's result."""
    return OtherLine(event=NOTE, fields={"text": text})


def is_note(line: Record) -> bool:
    return isinstance(line, OtherLine) and line.event == NOTE


def notes_of(records: Iterable[Record]) -> list[str]:
    """What the run asked to be said (RecordWriter.note, RunFolder.note), once each."""
    texts = [r.fields.get("text") for r in records if is_note(r)]
    return list(dict.fromkeys(t for t in texts if isinstance(t, str)))


def keeps_slowed(records: Iterable[Record]) -> bool:
    """Whether the run was made with --keep-slowed (its run line says so)."""
    return any(isinstance(r, RunLine) and r.keep_slowed is True for r in records)


def dumps(line: Record) -> str:
    return json.dumps(line.to_json())


class RecordWriter:
    """A worker's side of records.jsonl: appends lines (nothing, without a file), each result on disk before the
    worker goes on."""

    def __init__(self, path: Optional[str], worker: int):
        self.path, self.worker = path, worker
        self.failed = False
        self.fd: Optional[int] = None  # held open from the first line: a case that leaks descriptors cannot
        # leave the worker without one for its records

    def write(self, line: Record, durable: bool = True) -> None:
        """``durable``: on disk before the worker goes on (results). Events that only say where a worker is
        skip the wait: at 1 to 2 ms a line on a cloud disk, thousands of them cost a default run 5 s."""
        if not self.path or self.failed:
            return
        try:
            if self.fd is None:
                self.fd = files.open_for_lines(self.path)
            files.append_line(self.path, dumps(line), durable, self.fd)  # a line cut by a full disk is taken back
        except OSError as exc:
            import pytest  # here: the engine reads RECORD_FAILED_EXIT from this module without loading pytest

            self.failed = True
            pytest.exit(f"{exc.strerror or exc}: {exc.filename}", returncode=RECORD_FAILED_EXIT + (exc.errno or 0))

    def result(self, line: ResultLine) -> None:
        self.write(line)

    def start(self, case_id: str) -> None:
        self.write(StartLine(case_id, self.worker, os.getpid(), time.time()), durable=False)

    def phase(self, case_id: str, what: str) -> None:
        self.write(PhaseLine(case_id, self.worker, what, time.time()), durable=False)

    def progress(self, case_id: str, phase: str, done: int, total: int, what: str) -> None:
        self.write(ProgressLine(case_id, self.worker, phase, done, total, what), durable=False)

    def plan(self, case_ids: list[str]) -> None:
        self.write(PlanLine(self.worker, case_ids), durable=False)

    def note(self, text: str) -> None:
        """Something the run should say that is no case's result (the engine lists it with the run's problems)."""
        self.write(OtherLine(event=NOTE, fields={"text": text, "worker": self.worker}))

    def verified_elsewhere(self) -> dict[str, float]:
        """Cases an earlier worker of this run passed, with the duration of its verification call."""
        if not self.path:
            return {}
        return {
            r.case: float(r.check_s)
            for r in results_of(read_records(Path(self.path), strict=False))
            if r.status is Status.PASS and r.worker != self.worker and r.check_s
        }


# -- the folder --------------------------------------------------------------------------------------------------


class RunFolder:
    """One saved run: where its files are, and every read and write of them."""

    def __init__(self, path: Union[str, Path], results_path: Optional[Path] = None):
        self.path = Path(path)
        # a results file may be named by itself, under any name (`swarbench report old.csv`)
        self.results_path = Path(results_path) if results_path is not None else self.path / RESULTS_CSV

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def records_path(self) -> Path:
        return self.path / RECORDS

    @classmethod
    def create(cls, reports_dir: Path) -> "RunFolder":
        """A new, empty run folder under ``reports_dir``, named by the time and four random hex digits."""
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)
        run_dir = (Path(reports_dir) / run_id).resolve()
        try:
            run_dir.mkdir(parents=True)
            probe = run_dir / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise UsageError(f"cannot write to the reports folder {reports_dir}: {exc.strerror or exc}") from None
        return cls(run_dir)

    @classmethod
    def find(cls, run: Union[str, Path], reports_dir: Path) -> "RunFolder":
        """A run id under the reports folder, a run folder, a results.csv or records.jsonl path, or "latest". A
        run folder with records but no results.csv (a run stopped before it could write one) is a run: its
        frame is built from the records."""
        run = str(run)
        for candidate in (Path(run), Path(reports_dir) / run):
            if candidate.is_dir():
                if (candidate / RESULTS_CSV).exists() or (candidate / RECORDS).exists():
                    return cls(candidate)
                raise UsageError(f"{candidate} holds no {RESULTS_CSV}: not a swarbench run folder")
            if candidate.is_file():
                return cls(candidate.parent) if candidate.name == RECORDS else cls(candidate.parent, candidate)
        if run == "latest":  # the newest run that measured anything: one stopped before its first result is none
            reports_dir = Path(reports_dir)
            runs = sorted(
                {p.parent for name in (RESULTS_CSV, RECORDS) for p in reports_dir.glob(f"*/{name}")}
                if reports_dir.is_dir()
                else []
            )
            for path in reversed(runs):
                if cls(path).holds_results():
                    return cls(path)
        raise UsageError(f"no run {run!r}: give a run id under {reports_dir}, a run folder, or a results.csv file")

    def holds_results(self) -> bool:
        """Whether the run has a row to show: a results.csv with a line under its header, or (with none) a
        result line in its records. Reads a line or two, not the whole run."""
        try:
            if self.results_path.exists():
                with open(self.results_path, "rb") as fh:
                    fh.readline()
                    return bool(fh.readline().strip())
            with open(self.records_path, "rb") as fh:
                return any(b'"event": "result"' in line for line in fh)
        except OSError:
            return False

    @classmethod
    def saved(cls, reports_dir: Path) -> list["RunFolder"]:
        """Every run folder with a results.csv under ``reports_dir``, oldest first."""
        return [cls(p.parent) for p in sorted(Path(reports_dir).glob(f"*/{RESULTS_CSV}"))]

    def machine_folder(self, name: str) -> "RunFolder":
        """A fleet run keeps each machine's own files in machines/NAME (swarbench.fleet)."""
        return RunFolder(self.path / "machines" / name)

    # -- records.jsonl ----------------------------------------------------------------------------------------
    def records(self, strict: bool = True) -> list[Record]:
        return read_records(self.records_path, strict)

    def begin(self, keep_slowed: bool) -> None:
        """The records file with its run line: the run's own choices its statistics depend on come first."""
        files.write_atomic(self.records_path, dumps(RunLine(keep_slowed)) + "\n")

    def records_after(self, offset: int) -> tuple[list[Record], int]:
        """The whole lines appended since byte ``offset``, and the offset after them: what the engine follows as
        its workers write. A line still being written waits for the next call; nothing here is refused."""
        try:
            with open(self.records_path, "rb") as fh:
                fh.seek(offset)
                chunk = fh.read()
        except FileNotFoundError:
            return [], offset
        complete = chunk[: chunk.rfind(b"\n") + 1]
        return parse_lines(complete.decode(errors="replace"), str(self.records_path), strict=False), offset + len(
            complete
        )

    def append(self, line: Record, durable: bool = True) -> None:
        """``durable``: on disk before the engine goes on; a line that only adds colour (a ``load``) skips it."""
        files.append_line(self.records_path, dumps(line), durable)

    def note(self, text: str) -> None:
        """A problem the run found that is no case's result, kept with the records so that a later report of
        the run says it too (the workers' own notes are kept the same way, RecordWriter.note)."""
        self.append(note_line(text))

    def notes(self) -> list[str]:
        """The problems the run said, once each, in the order found."""
        return notes_of(self.records(strict=False))

    def write_records(self, lines: Iterable[Record]) -> None:
        files.write_atomic(self.records_path, "".join(dumps(r) + "\n" for r in lines))

    # -- machine.json -------------------------------------------------------------------------------------------
    def machine(self) -> dict[str, Any]:
        """The machine a run was made on; {} for a machine.json that is missing or not what a run writes."""
        try:
            machine = json.loads((self.path / MACHINE).read_bytes())
        except (OSError, ValueError):  # (undecodable bytes and bad JSON are both ValueErrors)
            return {}
        if not isinstance(machine, dict):
            return {}
        version = machine.pop(VERSION_KEY, MACHINE_FORMAT)
        if isinstance(version, int) and version > MACHINE_FORMAT:
            raise UsageError(
                f"{self.path / MACHINE} has machine format {version}, written by a newer swarbench; "
                f"this one reads format {MACHINE_FORMAT}"
            )
        return machine

    def write_machine(self, machine: dict) -> None:
        files.write_atomic(self.path / MACHINE, json.dumps({**machine, VERSION_KEY: MACHINE_FORMAT}, indent=2))

    # -- results.csv --------------------------------------------------------------------------------------------
    def save(self, frame: pd.DataFrame) -> Path:
        files.write_atomic(self.results_path, frame.to_csv(index=False))
        return self.results_path

    def results(self) -> pd.DataFrame:
        """The run's frame, refusing a file that is not a results file (corrupt, foreign, or from a newer
        swarbench). A run folder with records and no results.csv builds it from them."""
        import pandas as pd  # here: reading the records or finding a run needs no pandas

        path = self.results_path
        if not path.exists() and self.records_path.exists():
            from swarbench.results.frame import frame_from_records

            return _blank_texts(frame_from_records(self.records(), self.run_id, self.machine()))
        try:
            frame = pd.read_csv(path, keep_default_na=True, dtype={c: str for c in FREE_TEXT_COLUMNS})
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
            raise UsageError(f"{path} is not a swarbench results file: {str(exc).splitlines()[0]}") from None
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror}") from None
        return migrate(frame, path)

    # -- benchmark.json and the rest ------------------------------------------------------------------------------
    def write_benchmark(self, document: dict) -> None:
        """pytest-benchmark's document of the run (swarbench.export), its ``swarbench`` entry versioned."""
        document = dict(document, swarbench={**document.get("swarbench", {}), VERSION_KEY: BENCHMARK_FORMAT})
        files.write_atomic(self.path / BENCHMARK_JSON, json.dumps(document, indent=1) + "\n")

    def write_text(self, name: str, text: str) -> None:
        """A file of the run beside its results: a report, a worker's log."""
        files.write_atomic(self.path / name, text)

    def info(self) -> dict:
        """When the run started and how long it took (its records' first start to its results file), and the
        command line that ran it where one was saved."""
        info: dict = {}
        starts = [float(r.t) for r in self.records() if isinstance(r, StartLine) and r.t is not None]
        if starts:
            info["started"] = min(starts)
            if self.results_path.exists():
                info["duration_s"] = max(self.results_path.stat().st_mtime - min(starts), 0.0)
        try:
            saved = json.loads((self.path / BENCHMARK_JSON).read_text()).get("swarbench", {})
        except (OSError, ValueError, AttributeError):
            saved = {}
        if isinstance(saved, dict):
            version = saved.get(VERSION_KEY, BENCHMARK_FORMAT)
            if isinstance(version, int) and version > BENCHMARK_FORMAT:
                raise UsageError(
                    f"{self.path / BENCHMARK_JSON} has format {version}, written by a newer "
                    f"swarbench; this one reads format {BENCHMARK_FORMAT}"
                )
            info.update({k: saved[k] for k in ("command", "duration_s", "started") if k in saved})
        return info

    def samples(self, run_id: str, records: Optional[list[Record]] = None) -> dict:
        """Each PASS measurement's kept samples (those its median is taken over), in ns/op, by (run_id, *key).
        ``records``: the folder's, where the caller has read them already."""
        from swarbench.results import merge_records, ns_per_op

        return {
            (run_id, *m.key): ns_per_op(m.samples_s, int(m.n or 1))
            for m in merge_records(self.records() if records is None else records)
            if m.status is Status.PASS and m.samples_s
        }

    def timed_code(self, run_id: str, records: Optional[list[Record]] = None) -> dict:
        """Each measurement's explanation (its result lines' ``explain``: the first worker's that has one), by
        (run_id, *key): the listings live in the records, not in results.csv, whose rows stay short."""
        out: dict = {}
        for line in results_of(self.records() if records is None else records):
            if line.explain is not None:
                out.setdefault((run_id, *line.key), line.explain)
        return out


def migrate(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """A results frame of a format this version reads, in today's names and columns; any other format is
    refused in one line naming it."""
    import pandas as pd

    from swarbench.results.frame import COLUMNS

    stamped = frame[VERSION_KEY].dropna().unique() if VERSION_KEY in frame.columns else []
    versions = {_format_of(v) for v in stamped}
    for version in sorted(versions - {RESULTS_FORMAT}, key=str):
        if isinstance(version, int) and version > RESULTS_FORMAT:
            raise UsageError(
                f"{path} has results format {version}, written by a newer swarbench; this one reads "
                f"format {RESULTS_FORMAT}"
            )
        if isinstance(version, int):
            raise UsageError(
                f"{path} has results format {version}, from an early swarbench this one cannot read "
                f"(it reads format {RESULTS_FORMAT}): run it again"
            )
        raise UsageError(f"{path} has results format {version!r}, which no swarbench wrote")
    for col in LATER_COLUMNS:
        if col not in frame.columns and VERSION_KEY in frame.columns:
            frame[col] = math.nan
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise UsageError(f"{path} is not a swarbench results file: missing column(s) {', '.join(missing[:5])}")
    frame["kernel"] = frame["kernel"].replace(RENAMED_KERNELS)
    odd = frame["status"].dropna()
    odd = odd[~odd.isin([s.value for s in Status])]
    if len(odd):
        raise UsageError(f"{path}: column status holds {odd.iloc[0]!r} (line {odd.index[0] + 2}), not a status")
    for col in COLUMNS:
        if col not in TEXT_COLUMNS and not pd.api.types.is_numeric_dtype(frame[col]):  # words for a number
            numbers = pd.to_numeric(frame[col], errors="coerce")
            bad = frame[col].notna() & numbers.isna()
            if bad.any():
                i = int(bad.to_numpy().nonzero()[0][0])
                raise UsageError(f"{path}: column {col} holds {frame[col].iloc[i]!r} (line {i + 2}), not a number")
            frame[col] = numbers
    _check_cells(frame, path)
    return _blank_texts(frame)


# Columns no run leaves empty, and numeric columns that are never negative
NAMED_COLUMNS = ("kernel", "implementation")
COUNT_COLUMNS = ("n", "rounds", "iterations", "samples", "samples_slowed", "processes")


def _check_cells(frame: pd.DataFrame, path: Path) -> None:
    """Cells no run writes, refused in one line naming the column and line: a row with no kernel or no
    implementation, a number of operations that is not a whole number of at least 1, a count below 0, or a
    figure that is infinite or (for times and counts) negative. Renderers can then take every cell as a run
    writes it."""
    import numpy as np

    def refuse(col: str, i: int, what: str) -> None:
        raise UsageError(f"{path}: column {col} holds {frame[col].iloc[i]!r} (line {i + 2}), {what}")

    for col in NAMED_COLUMNS:
        blank = frame[col].isna() | (frame[col].astype(str).str.strip() == "")
        if blank.any():
            raise UsageError(
                f"{path}: column {col} is empty on line {int(np.flatnonzero(blank)[0]) + 2}: every row names its {col}"
            )
    for col in frame.columns:
        if col in TEXT_COLUMNS or not pd_numeric(frame[col]):
            continue
        values = frame[col].to_numpy(dtype=float)
        present = ~np.isnan(values)
        odd = present & np.isinf(values)
        if col == "n":
            odd |= present & ((values < 1) | (values != np.floor(values)))
        elif col in COUNT_COLUMNS or col.startswith(("ns_per_op", "s_per_call")) or col.endswith("_s"):
            odd |= present & (values < 0)
        if odd.any():
            refuse(
                col,
                int(np.flatnonzero(odd)[0]),
                "not what a run writes" if col != "n" else "not a number of operations (a whole number, at least 1)",
            )


def pd_numeric(series) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _blank_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """Free-text columns left empty read as "" (not NaN), as renderers join them."""
    for col in FREE_TEXT_COLUMNS:  # (an all-empty column reads as float: text first, or pandas 4 refuses the fill)
        frame[col] = frame[col].astype(object).fillna("")
    return frame


def _format_of(value):
    """A format_version cell as an int, or as it stands where it is none."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return int(number) if number.is_integer() else str(value)


# The names the rest of swarbench used before this module owned the folder: kept as functions over RunFolder.
write_atomic = files.write_atomic  # whole or not at all, following the umask (swarbench.files)


def load(path: Path) -> pd.DataFrame:
    """The frame of a results.csv (or of the records beside where it would be)."""
    path = Path(path)
    return RunFolder(path.parent, path).results()


def save(frame: pd.DataFrame, run_dir: Path) -> Path:
    return RunFolder(run_dir).save(frame)


def resolve_run(run: str, reports_dir: Path) -> Path:
    """The results.csv path of a run as ``RunFolder.find`` finds it."""
    return RunFolder.find(run, reports_dir).results_path


def machine_of(run_dir: Path) -> dict[str, Any]:
    return RunFolder(run_dir).machine()
