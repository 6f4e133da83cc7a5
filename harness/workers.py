"""The workers of a run, one after another: what each is told to run (its command line, its share of the rounds,
the cases it leaves out), a fresh worker after each crash with the case that crashed recorded, and the settling
workers for the cases whose workers disagree.

The benchmarks run in child ``python -m pytest`` processes, never side by side (two workers on two cores would
measure each other). Each worker is fresh, runs kernels and implementations in an order shuffled by its own seed,
and times its share of ``--max-time``; the frame merges their samples and keeps each worker's own median, since a
shared machine's slow spells show up as a difference between workers, not within one (docs/measurement.md).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import numpy as np

from swarbench import oracle, results
from swarbench.registry import Registry
from swarbench.run_request import RunRequest
from swarbench.runfolder import CACHE, PYTEST_LOG, RECORDS, CaseId, Record, ResultLine, RunFolder, Status, results_of
from swarbench.supervision import RecordTail, WorkerEnd, supervise, worker_log_problem


def long_cases(records: list[Record]) -> list[str]:
    """Cases whose verification call took oracle.LONG_BATCH_S or more. Their --min-rounds are dealt out one per
    worker to the first workers; a later worker would only repeat seconds of pure Python for a sample nobody
    asked for, so it leaves them out."""
    return sorted(
        {r.case for r in results_of(records) if r.status is Status.PASS and (r.check_s or 0) >= oracle.LONG_BATCH_S}
    )


def worker_short_rounds(request: RunRequest, worker: int) -> int:
    """Worker i's share of --short-rounds, dealt out one by one (5 over 2 workers: 3 and 2); a settling worker
    takes the last worker's share."""
    rest = request.short_rounds - min(worker, request.processes - 1)
    return -(-max(rest, 0) // request.processes)


def worker_min_rounds(request: RunRequest, worker: int) -> int:
    """Worker i's share of --min-rounds, dealt out one by one (3 over 2 workers: 2 and 1), at least one each."""
    return max(1, -(-(request.min_rounds - worker) // request.processes))


def unsettled_cases(records: list[Record]) -> list[str]:
    """Passed cases whose workers' medians lie further apart than results.SPLIT_WORKERS (of the merged median),
    long batches aside. Two workers that disagree leave the merged median anywhere between them: on a shared
    machine one of them caught a slow spell. A further worker for those cases outvotes it."""
    out = []
    for m in results.merge_records(records):
        workers = m.worker_samples_s
        if m.status is not Status.PASS or len(workers) < 2 or m.kernel == results.OVERHEAD_KERNEL:
            continue
        if (m.line.check_s or 0) >= oracle.LONG_BATCH_S:
            continue
        medians = [float(np.median(w)) for w in workers]
        if (max(medians) - min(medians)) / float(np.median(m.samples_s)) > results.SPLIT_WORKERS:
            out.append(m.case)
    return sorted(out)


def worker_command(
    request: RunRequest, run_dir: Path, worker: int, exclude: list[str], only: Optional[list[str]] = None
) -> list[str]:
    """The pytest command of worker ``worker``; an extra worker (from request.processes on) runs ``only``."""
    share = request.max_time / request.processes  # the timing budget is shared: more workers cost no more time
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        "swarbench.bench.bench_kernels",
        # hypothesis's pytest plugin, when installed, only slows a worker's start
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-o",
        "addopts=",
        "--rootdir",
        str(run_dir),
        "--benchmark-json",
        str(run_dir / f"benchmark-w{worker}.json"),
        "--benchmark-max-time",
        repr(share),
        "--benchmark-min-rounds",
        str(worker_min_rounds(request, worker)),
        "--benchmark-disable-gc",
        "--swarbench-cache",
        str(run_dir / CACHE),
        # the last worker only reads the cache: nobody comes after it (a 5p8c reference pickles to 1 GiB)
        *(["--swarbench-cache-readonly"] if worker >= request.processes - 1 else []),
        "--swarbench-record",
        str(run_dir / RECORDS),
        "--swarbench-seed",
        str(request.seed),
        "--swarbench-worker",
        str(worker),
        "--swarbench-order-seed",
        str(worker),
        "--swarbench-passes",
        str(request.passes),
        "--swarbench-short-rounds",
        str(worker_short_rounds(request, worker)),
    ]
    for opt, values in (
        ("--swarbench-kernel", request.kernels),
        ("--swarbench-impl", request.impls),
        ("--swarbench-workload", request.workloads),
        ("--swarbench-disable-plugin", request.disable),
        ("--swarbench-exclude", exclude),
        ("--swarbench-size", [str(n) for n in request.sizes]),
        ("--swarbench-param", [f"{k}={v}" for k, v in request.params.items()]),
        ("--swarbench-local", request.plugins),
        ("--swarbench-case", only or []),
    ):
        for v in values:
            cmd += [opt, v]
    if request.overhead and only is None:
        cmd.append("--swarbench-overhead")
    if not request.explain:
        cmd.append("--swarbench-no-explain")
    return cmd


LOST_STATUS = {"crashed": Status.CRASH, "timeout": Status.TIMEOUT, "lost": Status.LOST}


def lost_case_record(case_id: str, end: WorkerEnd, worker: int, registry: Registry, seen: list[Record]) -> ResultLine:
    """The result line a worker could not write: the case it died in, and what ended it."""
    case = CaseId.parse(case_id)
    k = registry.kernels.get(case.kernel)
    i = registry.implementations.get(case.key)
    same = [
        r
        for r in results_of(seen)
        if r.kernel == case.kernel
        and r.workload == case.workload
        and r.n
        and r.case.endswith(f":n={case.size or 'default'}")
    ]
    if same:
        n = same[0].n
    elif case.size is not None:
        n = case.size
    else:
        n = k.workload_kind(case.workload).default_size if k else 0
    return ResultLine(
        case=case_id,
        worker=worker,
        kernel=case.kernel,
        implementation=case.implementation,
        family=i.family if i else "",
        workload=case.workload,
        n=n,
        status=LOST_STATUS[end.kind],
        reason=end.detail,
        expected_to_fail=i.expected_to_fail if i else "",
        suite=case.kernel.split(".")[0],
        baseline=k.baseline if k else "",
        unit=k.unit if k else "",
    )


def run_workers(
    request: RunRequest, registry: Registry, folder: RunFolder, tail: RecordTail, problems: list[str]
) -> bool:
    """Every worker of the run, one after another, and the settling ones; False once interrupted."""
    run_dir = folder.path
    with open(run_dir / PYTEST_LOG, "w") as log:

        def run_worker(worker: int, only: Optional[list[str]] = None) -> bool:
            """Run one worker to its end, a fresh one after each crash; False once interrupted."""
            while True:
                done = sorted(tail.finished.get(worker, set()))
                if worker >= request.min_rounds:
                    done += long_cases(folder.records())
                end = supervise(
                    worker_command(request, run_dir, worker, done, only), run_dir, log, tail, worker, request.timeout
                )
                if end.kind == "interrupted":
                    return False
                if end.kind == "stuck":  # its cases' lines are all written (or none started): said, not retried
                    problems.append(end.detail)
                    return True
                if end.kind in ("crashed", "timeout"):
                    folder.append(lost_case_record(end.case, end, worker, registry, folder.records()))
                    tail.poll()  # the listener hears of the lost case like any other result
                    continue  # a fresh worker takes the cases that remain
                if end.code not in (0, 1, 5):
                    problems.append(worker_log_problem(run_dir, end.code))
                return True

        if not all(run_worker(w) for w in range(request.processes)):  # all() stops at the first False
            return False
        for extra in range(request.settle):
            unsettled = unsettled_cases(folder.records())
            if not unsettled:
                break
            if not run_worker(request.processes + extra, unsettled):
                return False
    return True
