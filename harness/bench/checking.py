"""Checking, around the timing: a case's first pass runs the oracle before any timing (or only prepares a case
an earlier worker verified), and a batch this worker did not verify has its last timed output checked after."""

from __future__ import annotations

import json
from typing import Optional

from swarbench import oracle
from swarbench.bench import overhead
from swarbench.bench.workload_cache import Prepared
from swarbench.model import Implementation, Workload


def prepare_verified(impl: Implementation, workload: Workload, checked_s: float) -> oracle.Verdict:
    """A case an earlier worker of the run passed: prepared only, sized by that worker's verification call."""
    verdict = oracle.prepare_only(impl, workload)
    verdict.call_s = checked_s
    return verdict


def verify_probe(probe: Implementation) -> oracle.Verdict:
    """An empty call has no answer to check; it only has to be available and run."""
    return oracle.verify_call_only(probe, Workload(overhead.KERNEL, "empty", 1, None))


def timed_output_mismatch(kernel, prepared: Prepared, outputs) -> Optional[str]:
    """What is wrong with a timed call's outputs (None: they are right); a batch never timed is wrong."""
    if outputs is None:
        return "no timed output"
    mismatch = kernel.check(prepared.expected, outputs, prepared.workload.inputs)
    return str(mismatch) if mismatch else None


def summary(kernel, outputs) -> Optional[dict]:
    """The kernel's summary of outputs (equity counts, a total of guesses), as JSON keeps it."""
    if kernel.summarize is None:
        return None
    return json.loads(
        json.dumps(dict(kernel.summarize(outputs)), default=lambda v: v.item() if hasattr(v, "item") else str(v))
    )
