"""The ``--swarbench-*`` pytest options, and the typed view of them a benchmark session reads."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from swarbench.bench.rounds import SHORT_BATCH_S


def add_options(parser) -> None:
    group = parser.getgroup("swarbench", "swarbench kernel benchmarks")
    group.addoption("--swarbench-kernel", action="append", default=[], metavar="PATTERN",
                    help="run kernels whose id matches this shell pattern (repeatable)")
    group.addoption("--swarbench-impl", action="append", default=[], metavar="PATTERN",
                    help="run implementations whose name matches this shell pattern (repeatable)")
    group.addoption("--swarbench-workload", action="append", default=[], metavar="NAME",
                    help="run these workload kinds (default: each kernel's default kinds)")
    group.addoption("--swarbench-size", action="append", type=int, default=[], metavar="N",
                    help="operations per batch (repeatable: one benchmark per size; default: the workload's own)")
    group.addoption("--swarbench-seed", type=int, default=0, help="seed of the input generators (default 0)")
    group.addoption("--swarbench-param", action="append", default=[], metavar="NAME=VALUE",
                    help="a parameter of the workloads that declare NAME (repeatable)")
    group.addoption("--swarbench-order-seed", type=int, default=None, metavar="S",
                    help="shuffle the order of kernels and of implementations within each kernel with this seed "
                         "(default: registry order)")
    group.addoption("--swarbench-passes", type=int, default=1, metavar="P",
                    help="go through the whole run P times, each workload's cases reshuffled in every pass, each pass "
                         "timing a P-th of every case's rounds (interleaved repetitions; default 1)")
    group.addoption("--swarbench-short-rounds", type=int, default=0, metavar="R",
                    help=f"a batch under {SHORT_BATCH_S} s gets at least R rounds, whatever the time budget "
                         "(default 0)")
    group.addoption("--swarbench-case", action="append", default=[], metavar="CASE_ID",
                    help="run only this case (repeatable)")
    group.addoption("--swarbench-exclude", action="append", default=[], metavar="CASE_ID",
                    help="leave this case out (repeatable)")
    group.addoption("--swarbench-worker", type=int, default=0,
                    help="worker number written into each record (default 0)")
    group.addoption("--swarbench-overhead", action="store_true",
                    help="also time an empty batch call per family (the fixed cost of a call)")
    group.addoption("--swarbench-record", default=None, metavar="FILE",
                    help="append a JSON line per case start and result to FILE; a case another worker already "
                         "passed there is not verified again (its timed output is checked instead)")
    group.addoption("--swarbench-cache", default=None, metavar="DIR",
                    help="share generated workloads and reference outputs with the other workers of a run in DIR")
    group.addoption("--swarbench-cache-readonly", action="store_true",
                    help="read the shared workloads but write none")
    group.addoption("--swarbench-disable-plugin", action="append", default=[], metavar="NAME",
                    help="do not load this swarbench plugin (repeatable)")
    group.addoption("--swarbench-progress", action="store_true",
                    help="write a progress line per case to stderr")


@dataclass(frozen=True)
class Options:
    """What a worker was asked to run and how, from its pytest options."""
    kernels: list[str]
    impls: list[str]
    workloads: list[str]
    sizes: list[Optional[int]]  # [None]: each workload's own size
    seed: int
    params: dict[str, str]
    order_seed: Optional[int]
    passes: int
    short_rounds: int
    only: set[str]
    excluded: set[str]
    worker: int
    overhead: bool
    record_path: Optional[str]
    cache_dir: Optional[str]
    cache_writes: bool
    disabled_plugins: list[str]
    progress: bool
    max_time: float  # pytest-benchmark's --benchmark-max-time and --benchmark-min-rounds
    min_rounds: int

    @classmethod
    def from_config(cls, config) -> "Options":
        opt = config.getoption
        return cls(
            kernels=opt("swarbench_kernel"), impls=opt("swarbench_impl"), workloads=opt("swarbench_workload"),
            sizes=opt("swarbench_size") or [None], seed=opt("swarbench_seed"),
            params=dict(p.split("=", 1) for p in opt("swarbench_param") if "=" in p),
            order_seed=opt("swarbench_order_seed"), passes=max(1, opt("swarbench_passes")),
            short_rounds=max(0, opt("swarbench_short_rounds")), only=set(opt("swarbench_case")),
            excluded=set(opt("swarbench_exclude")), worker=opt("swarbench_worker"),
            overhead=opt("swarbench_overhead"), record_path=opt("swarbench_record"),
            cache_dir=opt("swarbench_cache"), cache_writes=not opt("swarbench_cache_readonly"),
            disabled_plugins=opt("swarbench_disable_plugin"), progress=opt("swarbench_progress"),
            max_time=float(opt("benchmark_max_time")), min_rounds=int(opt("benchmark_min_rounds")),
        )
