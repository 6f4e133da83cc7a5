"""The record file: a worker's report to the engine, one JSON line per event, each written at once (a result on
disk before the worker goes on).

A ``start`` line goes before each pass of a case and a ``result`` line after its last, so an interrupted or
crashed worker leaves every finished result behind, and the engine can tell which case was running when it
died. ``phase`` and ``progress`` lines feed the live display of ``swarbench run``; a ``plan`` line says what
a worker is about to run. swarbench.results reads the file back.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Optional

from swarbench import files, oracle

# A worker that cannot write its record file (a full disk) stops at once with this plus the error's number, so
# the engine can say which error it was (swarbench.engine): a worker going on would lose every result it made.
RECORD_FAILED_EXIT = 100


@dataclass
class ResultLine:
    """A case's ``result`` line, filled in as the case goes: its check's outcome, then its samples."""
    case: str
    worker: int
    kernel: str
    implementation: str
    family: str
    workload: str
    n: int
    seed: int
    params: dict
    status: str
    reason: str
    expected_to_fail: str
    prepare_s: Optional[float]
    check_s: Optional[float]  # the verification call's duration; later workers size their rounds by it
    samples_s: list[float] = field(default_factory=list)
    pass_canary_s: list[list] = field(default_factory=list)  # [before_s, after_s, samples] a timed pass
    pass_t: list[list] = field(default_factory=list)  # [start, end] of each timed pass (time.time())
    rounds: int = 0
    iterations: int = 0
    reprepare_s: list[Optional[float]] = field(default_factory=list)  # preparing afresh for each later pass
    summary: Optional[dict] = None
    suite: Optional[str] = None  # the kernel's; none for a case that ended before its kernel was known
    baseline: Optional[str] = None
    unit: Optional[str] = None
    counts: dict[str, float] = field(default_factory=dict)  # hardware counts per op (swarbench.counters)
    input_bytes: Optional[int] = None  # the size of the inputs a batch reads (swarbench.results: too fast?)

    @classmethod
    def of(cls, case_id: str, worker: int, impl, verdict: oracle.Verdict, workload: str, n: int, seed: int,
           params: dict) -> "ResultLine":
        return cls(case_id, worker, impl.kernel, impl.name, impl.family, workload, n, seed, params,
                   verdict.status, verdict.reason, impl.expected_to_fail, finite(verdict.prepare_s),
                   finite(verdict.call_s))

    def add_pass(self, samples: list[float], before_s: float, after_s: float, span: tuple = ()) -> None:
        """A timed pass's samples, with the canary readings taken on either side of it and when it ran."""
        self.samples_s += samples
        self.pass_canary_s.append([before_s, after_s, len(samples)])
        if span:
            self.pass_t.append([round(span[0], 4), round(span[1], 4)])

    def drop_samples(self) -> None:
        self.samples_s, self.pass_canary_s, self.rounds, self.iterations = [], [], 0, 0
        self.pass_t = []

    def median_text(self) -> str:
        samples = sorted(self.samples_s)
        median = samples[len(samples) // 2] if samples else float("nan")
        return f"PASS {median / max(self.n, 1) * 1e9:.4g} ns/op"

    def to_json(self) -> dict:
        out = {"event": "result"} | {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for name in ("suite", "baseline", "unit"):
            if out[name] is None:
                del out[name]
        return out | out.pop("counts")


class RecordWriter:
    """Appends lines to the record file (nothing, without one), each on disk before the worker goes on."""

    def __init__(self, path: Optional[str], worker: int):
        self.path, self.worker = path, worker
        self.failed = False

    def write(self, line: dict, durable: bool = True) -> None:
        """``durable``: on disk before the worker goes on (results). Events that only say where a worker is
        skip the wait: at 1 to 2 ms a line on a cloud disk, thousands of them cost a default run 5 s."""
        if not self.path or self.failed:
            return
        try:
            files.append_line(self.path, json.dumps(line), durable)  # a line cut by a full disk is taken back
        except OSError as exc:
            import pytest  # here: the engine reads RECORD_FAILED_EXIT from this module without loading pytest

            self.failed = True
            pytest.exit(f"{exc.strerror or exc}: {exc.filename}", returncode=RECORD_FAILED_EXIT + (exc.errno or 0))

    def result(self, line: ResultLine) -> None:
        self.write(line.to_json())

    def start(self, case_id: str) -> None:
        self.write({"event": "start", "case": case_id, "worker": self.worker, "pid": os.getpid(),
                    "t": time.time()}, durable=False)

    def phase(self, case_id: str, what: str) -> None:
        self.write({"event": "phase", "case": case_id, "worker": self.worker, "phase": what, "t": time.time()},
                   durable=False)

    def progress(self, case_id: str, phase: str, done: int, total: int, what: str) -> None:
        self.write({"event": "progress", "case": case_id, "worker": self.worker, "phase": phase, "done": done,
                    "total": total, "what": what}, durable=False)

    def plan(self, case_ids: list[str]) -> None:
        self.write({"event": "plan", "worker": self.worker, "cases": case_ids}, durable=False)

    def verified_elsewhere(self) -> dict[str, float]:
        """Cases an earlier worker of this run passed, with the duration of its verification call."""
        out: dict[str, float] = {}
        if not self.path or not os.path.exists(self.path):
            return out
        with open(self.path, errors="replace") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if (rec.get("event") == "result" and rec.get("status") == oracle.PASS
                        and rec.get("worker") != self.worker and rec.get("check_s")):
                    out[rec["case"]] = float(rec["check_s"])
        return out


def finite(x: Optional[float]) -> Optional[float]:
    """JSON has no NaN: an unknown duration is written as null."""
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else x
