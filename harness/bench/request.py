"""What a benchmark worker was asked to run and how: its --swarbench-* options (swarbench.bench.options) and
pytest-benchmark's budget, as one typed value. The engine's RunRequest becomes these options in worker_command."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class WorkerRequest:
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
    explain: bool  # read each compiled case's timed code after its last pass
    record_path: Optional[str]
    cache_dir: Optional[str]
    cache_writes: bool
    disabled_plugins: list[str]
    local_plugins: list[str]  # swarbench.local sources, as LocalSource.arg writes them
    progress: bool
    max_time: float  # pytest-benchmark's --benchmark-max-time and --benchmark-min-rounds
    min_rounds: int

    @classmethod
    def from_config(cls, config) -> "WorkerRequest":
        opt = config.getoption
        return cls(
            kernels=opt("swarbench_kernel"),
            impls=opt("swarbench_impl"),
            workloads=opt("swarbench_workload"),
            sizes=opt("swarbench_size") or [None],
            seed=opt("swarbench_seed"),
            params=dict(p.split("=", 1) for p in opt("swarbench_param") if "=" in p),
            order_seed=opt("swarbench_order_seed"),
            passes=max(1, opt("swarbench_passes")),
            short_rounds=max(0, opt("swarbench_short_rounds")),
            only=set(opt("swarbench_case")),
            excluded=set(opt("swarbench_exclude")),
            worker=opt("swarbench_worker"),
            overhead=opt("swarbench_overhead"),
            explain=not opt("swarbench_no_explain"),
            record_path=opt("swarbench_record"),
            cache_dir=opt("swarbench_cache"),
            cache_writes=not opt("swarbench_cache_readonly"),
            disabled_plugins=opt("swarbench_disable_plugin"),
            local_plugins=opt("swarbench_local"),
            progress=opt("swarbench_progress"),
            max_time=float(opt("benchmark_max_time")),
            min_rounds=int(opt("benchmark_min_rounds")),
        )
