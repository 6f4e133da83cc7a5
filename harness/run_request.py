"""What a run is asked to do, and the checks of it that need the registry.

Each setting on its own is checked by its option (swarbench.options) before it gets here, whichever way it came
(the command line, [tool.swarbench], the library); ``check_request`` refuses in one line what only the registry
can tell (a pattern no kernel matches, a workload no selected kernel has, a size beyond a workload, more memory
than the machine has), before any worker starts.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from swarbench import options, oracle, spec_guard
from swarbench.bench.cases import chosen_kinds
from swarbench.errors import UsageError
from swarbench.model import matches
from swarbench.registry import Registry


def _declared(key: str):
    """A RunRequest field whose default is its option's (swarbench.options): one set of defaults."""
    return field(default_factory=lambda: options.OPTIONS[key].default_value())


@dataclass
class RunRequest:
    """A run's settings, checked by their options (swarbench.options) before they get here."""

    kernels: list[str] = _declared("kernels")
    impls: list[str] = _declared("implementations")
    workloads: list[str] = _declared("workloads")
    sizes: list[int] = _declared("sizes")  # empty: each workload's own size; several: scaling mode
    seed: int = _declared("seed")
    max_time: float = _declared("max-time")
    min_rounds: int = _declared("min-rounds")
    # timed calls a measurement of a batch under bench.options.SHORT_BATCH_S gets at least, dealt out over the
    # workers, whatever --max-time: enough that one slow spell cannot decide its median (docs/measurement.md)
    short_rounds: int = _declared("short-rounds")
    reports_dir: Path = _declared("reports")
    disable: list[str] = _declared("disable-plugins")
    processes: int = _declared("processes")
    passes: int = _declared("passes")  # interleaved passes through the whole run, in every worker
    settle: int = _declared("settle")  # extra workers, at most, for the cases whose workers disagree (unsettled_cases)
    timeout: float = _declared("timeout")
    overhead: bool = _declared("overhead")
    explain: bool = _declared("explain")  # read each compiled row's timed code and its core limit (swarbench.explain)
    params: dict[str, str] = _declared("params")  # --param NAME=VALUE for the workloads that declare NAME
    keep_slowed: bool = _declared("keep-slowed")  # keep samples the canary found the machine slowed for in the medians
    plugins: list[str] = _declared("plugins")  # local plugins (swarbench.local): as given, or their sources' args


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 0


def check_request(request: RunRequest, registry: Registry) -> None:
    """Refuse, with one line, anything the worker would only discover later (or never): what the registry says
    of the request. Each value on its own was checked by its option (swarbench.options)."""
    kernels = sorted(registry.kernels)
    if not kernels:
        raise UsageError("no kernels are registered (every plugin failed or is disabled); see `swarbench list`")
    for pattern in request.kernels:
        if not any(matches(k, [pattern]) for k in kernels):
            raise UsageError(f"no kernel matches {pattern!r}; kernels: {', '.join(kernels)}")
    chosen = [k for k in kernels if matches(k, request.kernels)]
    impls = sorted({i.name for k in chosen for i in registry.implementations_of(k)})
    for pattern in request.impls:
        if not any(matches(name, [pattern]) for name in impls):
            raise UsageError(
                f"no implementation of {', '.join(chosen)} matches {pattern!r}; implementations: {', '.join(impls)}"
            )
    for name in request.workloads:
        if not any(kind.name == name for k in chosen for kind in registry.kernels[k].workloads):
            names = sorted({kind.name for k in chosen for kind in registry.kernels[k].workloads})
            raise UsageError(f"no workload {name!r} for {', '.join(chosen)}; workloads: {', '.join(names)}")
    measured = {k: chosen_kinds(registry.kernels[k], request.kernels, request.workloads) for k in chosen}
    nothing_to_measure(request, registry, measured)
    for name, value in request.params.items():
        declaring = [kind for k in chosen for kind in registry.kernels[k].workloads if name in kind.parameters]
        kinds = [kind for kind in declaring if any(kind is m for ms in measured.values() for m in ms)]
        if not declaring:
            declared = sorted({p for k in chosen for kind in registry.kernels[k].workloads for p in kind.parameters})
            raise UsageError(
                f"no workload of {', '.join(chosen)} takes --param {name} (parameters: {', '.join(declared) or 'none'})"
            )
        if not kinds:  # given, but nothing this run builds would read it
            raise UsageError(
                f"--param {name} is for workload {', '.join(sorted({k.name for k in declaring}))}, "
                f"which this run does not select (add --workload)"
            )
        for k in chosen:
            for kind in (kind for kind in kinds if kind in registry.kernels[k].workloads):
                # InvalidInput names the bad value: one line, before any worker; anything else is the spec's fault
                spec_guard.parse_parameter(k, kind, name, value)
    for size in request.sizes:
        for k in chosen:
            for kind in measured[k]:
                if not kind.fixed_size and kind.max_size is not None and size > kind.max_size:
                    raise UsageError(
                        f"--size {size} is beyond workload {kind.name} of {k}, which goes up to {kind.max_size}"
                    )
    # Every case keeps its prepared batch until the run's last pass, so the sized workloads are summed.
    needs = [
        (size * kind.bytes_per_op, f"{k} ({kind.name}, n={size})")
        for k in chosen
        for kind in measured[k]
        for size in request.sizes
        if not kind.fixed_size
    ]
    memory, need = physical_memory(), sum(n for n, _ in needs)
    if memory and need > 0.8 * memory:
        largest = max(needs)
        raise UsageError(
            f"--size {','.join(map(str, request.sizes))} needs about {need / 2**30:.1f} GiB for this run's "
            f"workloads together (the largest: {largest[1]}, {largest[0] / 2**30:.1f} GiB); "
            f"this machine has {memory / 2**30:.1f} GiB"
        )


def nothing_to_measure(request: RunRequest, registry: Registry, measured: dict[str, list]) -> None:
    """Refuse a run that would measure nothing (every selected kernel without a workload to run), and a kernel
    named by itself whose workloads are none of them a default, saying which --workload to add: a run folder
    with nothing in it must never be made (it would become `latest`)."""
    impls = {k: [i for i in registry.implementations_of(k) if matches(i.name, request.impls)] for k in measured}
    for k, kinds in measured.items():
        if not kinds and k in request.kernels and not request.workloads:
            names = [kind.name for kind in registry.kernels[k].workloads]
            raise UsageError(f"kernel {k} has no default workload: add {' or '.join(f'-w {n}' for n in names)}")
    if not any(kinds and impls[k] for k, kinds in measured.items()):
        if request.workloads:
            raise UsageError(f"nothing to measure: no selected kernel has workload {', '.join(request.workloads)}")
        idle = sorted(measured)
        raise UsageError(
            f"nothing to measure: {', '.join(idle[:4])}{' and more' if len(idle) > 4 else ''} "
            f"{'has' if len(idle) == 1 else 'have'} no default workload; name one kernel (-k "
            f"{idle[0]}) or add -w NAME (`swarbench list` shows them)"
        )


def without_broken_specs(request: RunRequest, registry: Registry) -> tuple[RunRequest, list[str]]:
    """The request less the kernels whose reference disagrees with their own known answers, and a line for each:
    the spec is to blame, once, rather than every implementation failing against it. Nothing left is bad input."""
    broken = oracle.plugin_spec_problems(registry, request.kernels)
    if not broken:
        return request, []
    # (only kernels the patterns would measure: named one by one, a kernel with no default workload would run)
    kept = [
        k
        for k in sorted(registry.kernels)
        if matches(k, request.kernels)
        and k not in broken
        and chosen_kinds(registry.kernels[k], request.kernels, request.workloads)
    ]
    if not kept:
        raise UsageError(next(iter(broken.values())))
    return dataclasses.replace(request, kernels=kept), list(broken.values())
