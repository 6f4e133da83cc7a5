"""What a worker runs, and in which order: the cases (kernel, implementation, workload, size) grouped by
workload, and their passes, pass by pass through the whole run."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from swarbench.bench import overhead
from swarbench.bench.request import WorkerRequest
from swarbench.model import matches
from swarbench.runfolder import CaseId


Case = CaseId  # a case's id is part of the record format (swarbench.runfolder)


@dataclass(frozen=True)
class Pass:
    """Pass ``index`` (1-based) of ``of`` through a case: one pytest item, one pytest-benchmark benchmark."""

    case: Case
    index: int = 1
    of: int = 1

    @property
    def id(self) -> str:
        return self.case.id if self.of == 1 else f"{self.case.id}~pass{self.index}of{self.of}"

    @property
    def first(self) -> bool:
        return self.index == 1

    @property
    def last(self) -> bool:
        return self.index == self.of


def chosen_kinds(kernel, kernels, workloads) -> list:
    """The workload kinds of ``kernel`` a run measures: those named with --workload; else its default ones; else,
    for a kernel named by itself (``-k poker.atoi8``, as `swarbench list` says) with one workload, that one."""
    if workloads:
        return [kind for kind in kernel.workloads if kind.name in workloads]
    defaults = [kind for kind in kernel.workloads if kind.default]
    if defaults:
        return defaults
    return list(kernel.workloads) if kernel.id in (kernels or ()) and len(kernel.workloads) == 1 else []


def workload_keys(registry, kernels, impls, workloads, sizes) -> list[tuple[str, str, Optional[int]]]:
    """(kernel, workload kind, size) of every workload a run of these patterns measures some implementation on;
    ``sizes`` [None] is each workload's own size."""
    out = []
    for kid, kernel in sorted(registry.kernels.items()):
        if not matches(kid, kernels) or not any(matches(i.name, impls) for i in registry.implementations_of(kid)):
            continue
        for kind in chosen_kinds(kernel, kernels, workloads):
            out += [(kid, kind.name, size) for size in ([None] if kind.fixed_size else sizes)]
    return out


def case_groups(registry, options: WorkerRequest) -> list[list[Case]]:
    """The cases to run, one list per workload (kernel, workload kind, size)."""
    groups = []
    for kid, kind, size in workload_keys(registry, options.kernels, options.impls, options.workloads, options.sizes):
        impls = [i for i in registry.implementations_of(kid) if matches(i.name, options.impls)]
        groups.append([Case(kid, impl.name, kind, size) for impl in impls])
    if options.order_seed is not None:
        # Shuffle kernels and implementations, but keep each workload's cases together: generating a
        # million-pair workload again for every case would cost more than the measurements.
        rng = random.Random(options.order_seed)
        rng.shuffle(groups)
        for group in groups:
            rng.shuffle(group)
    out = [
        [c for c in group if c.id not in options.excluded and (not options.only or c.id in options.only)]
        for group in groups
    ]
    return [group for group in out if group]


def case_passes(registry, options: WorkerRequest) -> list[Pass]:
    """Every case's passes, pass by pass through the whole run: pass k goes through every workload, each
    workload's cases together and, after the first pass, in a fresh order."""
    return passes_in_order(case_groups(registry, options), options.passes, options.order_seed)


def selected_families(registry, kernels, impls) -> set[str]:
    """The families of every implementation a run of these --kernel and --impl patterns selects: the empty-call
    probes it times are theirs."""
    return {
        i.family
        for kid in registry.kernels
        if matches(kid, kernels)
        for i in registry.implementations_of(kid)
        if matches(i.name, impls)
    }


def probe_passes(options: WorkerRequest, families: set[str]) -> list[Pass]:
    """The empty-call probes (--swarbench-overhead) of the ``families`` the run's cases are of, each a case of
    kernel swarbench.overhead, pass by pass."""
    used = {overhead.probe_family(family) for family in families}
    probes = [Case(overhead.KERNEL, p.name, "empty", 1) for p in overhead.PROBES if p.name in used]
    probes = [c for c in probes if options.overhead and c.id not in options.excluded]
    return [Pass(probe, index, options.passes) for index in range(1, options.passes + 1) for probe in probes]


def passes_in_order(groups: list[list[Case]], passes: int, order_seed: Optional[int]) -> list[Pass]:
    """Every case's passes, pass by pass through the whole run: pass k goes through every workload, each
    workload's cases together and, after the first pass, in a fresh order."""
    rng = random.Random(f"passes {order_seed}")
    out = []
    for index in range(1, passes + 1):
        for group in groups:
            order = list(group)
            if index > 1:
                rng.shuffle(order)
            out += [Pass(case, index, passes) for case in order]
    return out
