"""Before a run's first worker: every selected implementation's ``build`` (its C modules, its Numba functions),
side by side.

Each worker would otherwise build the modules its cases need one after another inside ``prepare``, on one core.
Here the builds run in a pool of processes, one per core, and land in swarbench.cbuild's cache, where the
workers' ``prepare`` then only loads them. Processes, not threads: cffi's compile changes the working
directory and cbuild catches the compiler's diagnostics on file descriptor 2, both of them process-wide. The
pool's processes are forked, so a ``build`` may be any callable (a closure); where fork is missing the step is
left out and ``prepare`` builds as before.

The step only saves time. A build that fails here is ignored: the implementation's ``prepare`` meets the same
failure in the worker and reports it as it always has (ERROR for a compile error, SKIP for a missing compiler).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import multiprocessing
import signal
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from swarbench import features
from swarbench.model import Implementation, Kernel, matches
from swarbench.registry import Registry

_PENDING: list[Callable[[], Any]] = []  # what the forked pool's processes call, by index (inherited, not pickled)


@dataclass
class Prebuilt:
    builds: int  # distinct build callables run
    failed: int  # of them, how many raised (their implementations' prepare reports why)
    seconds: float
    workloads: int = 0  # of the builds, how many were a workload with its reference outputs


def selected(registry: Registry, kernels: Sequence[str], impls: Sequence[str]) -> list[Implementation]:
    """The implementations a run of these --kernel and --impl patterns reaches that declare a build and that this
    machine can run (a missing requirement is a SKIP before prepare, so its build would be wasted)."""
    return [
        impl
        for k in sorted(registry.kernels)
        if matches(k, kernels)
        for impl in registry.implementations_of(k)
        if matches(impl.name, impls) and impl.build is not None and not features.unavailable(impl.requires)
    ]


def for_run(
    registry: Registry,
    kernels: Sequence[str],
    impls: Sequence[str],
    overhead: bool,
    workloads: Sequence[Callable[[], Any]] = (),
) -> Optional[Prebuilt]:
    """Build what a run of these patterns will prepare; with ``overhead``, the empty-call probes' too. The
    ``workloads`` (callables that build a workload and its reference outputs into the run's cache) share the
    pool, after the JIT builds and before the C ones."""
    chosen = selected(registry, kernels, impls)
    if overhead:
        from swarbench.bench.cases import selected_families
        from swarbench.bench.overhead import PROBES, probe_family

        used = {probe_family(family) for family in selected_families(registry, kernels, impls)}
        chosen += [p for p in PROBES if p.build is not None and p.name in used and not features.unavailable(p.requires)]
    builds = distinct_builds(chosen)
    jit = sum(1 for b in builds if _is_jit_build(b))
    done = build_all(builds[:jit] + list(workloads) + builds[jit:])
    return done and dataclasses.replace(done, builds=done.builds - len(workloads), workloads=len(workloads))


def _same_build(build: Callable[[], Any]) -> Any:
    """Implementations that share a module often declare it as equal partials (one per implementation): each is
    built once."""
    if isinstance(build, functools.partial):
        key = (build.func, build.args, tuple(sorted(build.keywords.items())))
        try:
            hash(key)
            return key
        except TypeError:
            pass
    return build


def distinct_builds(impls: Sequence[Implementation]) -> list[Callable[[], Any]]:
    """Each build once, the JIT builds first: one of them compiles a whole kernel's rows (seconds), and started
    last it would leave one core idle while it ran alone."""
    seen: dict[Any, Callable[[], Any]] = {}
    for impl in impls:
        seen.setdefault(_same_build(impl.build), impl.build)
    return sorted(seen.values(), key=lambda build: not _is_jit_build(build))


def _is_jit_build(build: Callable[[], Any]) -> bool:
    return isinstance(build, functools.partial) and build.func is _prepare_each


def _prepare_each(kernel: Kernel, prepares: tuple[Callable[[Any], Any], ...]) -> None:
    kind = kernel.workload_kind()
    # read-only, as a run hands workloads over (numba types them apart); the known answers too, which the
    # check prepares each row on and which may take other paths (a method, a size) than the main workload
    workloads = [kernel.make_workload(kind, kind.test_size).read_only()]
    workloads += [workload for _, workload in kernel.known_workloads()]
    for prepare in prepares:
        for workload in workloads:
            try:
                prepare(workload)
            except Exception:  # its prepare in the worker meets it again and reports it
                pass


def build_by_preparing(
    impls: Sequence[Implementation], kernels: Union[Sequence[Kernel], Mapping[str, Kernel]]
) -> list[Implementation]:
    """``impls`` with a ``build`` for a just-in-time compiler's rows (Numba with ``cache=True``): one build per
    kernel, which prepares each of the kernel's rows on its first workload at its test size. The compiles then
    land in the JIT's on-disk cache during the build step, beside the C builds, and the workers' ``prepare``
    loads them. One build per kernel, not per row: rows of a kernel share jitted functions, which two processes
    would each compile. The test-size inputs must have the types of the real ones, or the worker compiles
    again for its own. ``kernels``: those the rows are of, as Kernel objects or as ``registry.kernels``."""
    by_id = dict(kernels) if isinstance(kernels, Mapping) else {k.id: k for k in kernels}
    grouped: dict[str, list[Callable[[Any], Any]]] = {}
    for impl in impls:
        grouped.setdefault(impl.kernel, []).append(impl.prepare)
    builds = {kid: functools.partial(_prepare_each, by_id[kid], tuple(prepares)) for kid, prepares in grouped.items()}
    return [dataclasses.replace(impl, build=builds[impl.kernel]) for impl in impls]


def _call(index: int) -> bool:
    """In a pool process: True once the build is in place; False when it raised (prepare will say why)."""
    try:
        _PENDING[index]()
        return True
    except Exception:
        return False


def _die_on_interrupt() -> None:
    """A pool process ends at Ctrl-C as its compiler does, without a traceback; the run says it was interrupted."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def build_all(builds: Sequence[Callable[[], Any]], workers: Optional[int] = None) -> Optional[Prebuilt]:
    """Run the builds in a pool of ``workers`` forked processes (one per core); None where nothing ran.

    A daemonic process (a Dask worker running a fleet job) may not start processes: there, as where fork is
    missing, the step is left out and each prepare builds its own module, as it would anyway."""
    if not builds or "fork" not in multiprocessing.get_all_start_methods() or multiprocessing.current_process().daemon:
        return None
    start = time.perf_counter()
    _PENDING[:] = builds
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=min(workers or features.cores(), len(builds)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_die_on_interrupt,
    )
    try:
        futures = [pool.submit(_call, i) for i in range(len(builds))]
        done = [f.result() for f in futures]
    except BrokenProcessPool:  # a build that killed its process: prepare will too
        done = [f.done() and not f.exception() and f.result() for f in futures]
    except BaseException:  # Ctrl-C: the compilers got it too; leave the rest unstarted
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        _PENDING.clear()
    pool.shutdown()
    return Prebuilt(len(builds), done.count(False), time.perf_counter() - start)
