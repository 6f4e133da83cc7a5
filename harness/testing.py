"""What a plugin's own tests call: every implementation of a kernel checked against the kernel's reference and
known answers, on small, edge and random inputs, the way ``swarbench run`` checks it before timing.

    from swarbench import testing

    def test_the_spec():
        testing.check_kernel("parse8.checked")

    @testing.each_implementation("parse8.checked")
    def test_implementation(impl):
        testing.check(impl)

``each_implementation`` gives one pytest test per implementation, its name as the test id
(``test_implementation[c-swar]``). The plugins are the installed ones (their entry points), so install yours
first, editable or not. A failure says what the oracle says in a run: the workload and the first input whose
output differs, expected against got.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, Sequence, Union

import pytest

from swarbench import features, oracle
from swarbench.model import Implementation, InvalidInput, Kernel, WorkloadKind
from swarbench.registry import Registry, load

# Sizes 1 and just past the multiples of 2 to 64: where a vector loop's tail, or a batch of one, goes wrong.
EDGE_SIZES = (1, 2, 3, 7, 9, 17, 33, 65)
SEEDS = (0, 1, 2)


@functools.lru_cache(maxsize=1)
def registry() -> Registry:
    """Every installed plugin, loaded once per test session."""
    return load()


def kernel(kernel_id: str) -> Kernel:
    """The kernel, or a LookupError naming it, the kernels there are, and every plugin that failed to load."""
    reg = registry()
    if kernel_id not in reg.kernels:
        failed = "".join(f"; {failure}" for failure in reg.failures)
        raise LookupError(
            f"no kernel {kernel_id!r} is registered (is its plugin installed?); kernels: "
            f"{', '.join(sorted(reg.kernels))}{failed}"
        )
    return reg.kernels[kernel_id]


def implementations(kernel_id: str) -> list[Implementation]:
    kernel(kernel_id)
    return sorted(registry().implementations_of(kernel_id), key=lambda impl: impl.name)


def each_implementation(kernel_id: str, argname: str = "impl"):
    """``pytest.mark.parametrize`` over every implementation of the kernel, ids their names. An unknown kernel is
    an error when the tests are collected, never an empty (silently skipped) parametrization."""
    impls = implementations(kernel_id)
    return pytest.mark.parametrize(argname, impls, ids=[impl.name for impl in impls])


def check_kernel(kernel_id: str) -> None:
    """The kernel itself: its reference gives its own known answers, each workload kind builds inputs its
    ``validate`` accepts at the kind's ``test_size``, and its baseline is one of its implementations."""
    k = kernel(kernel_id)
    problem = oracle.spec_problem(k)
    if problem:
        pytest.fail(problem, pytrace=False)
    for kind in k.workloads:
        for seed in SEEDS:
            try:
                workload = k.make_workload(kind, kind.test_size, seed)
            except InvalidInput as exc:
                pytest.fail(
                    f"kernel {kernel_id}: workload {kind.name} (n={kind.test_size}, seed {seed}) builds "
                    f"inputs its own validate refuses: {exc}",
                    pytrace=False,
                )
            oracle.reference_outputs(k, workload)
    names = {impl.name for impl in implementations(kernel_id)}
    if k.baseline not in names:
        pytest.fail(
            f"kernel {kernel_id}: its baseline {k.baseline!r} is none of its implementations "
            f"({', '.join(sorted(names))})",
            pytrace=False,
        )


def _workloads(k: Kernel, kind: WorkloadKind, sizes: Sequence[int], seeds: Sequence[int]):
    """Random inputs at the kind's test size, one per seed, then the edge sizes (a fixed-size kind: once)."""
    if kind.fixed_size:
        yield k.make_workload(kind, None, seeds[0])
        return
    for seed in seeds:
        yield k.make_workload(kind, kind.test_size, seed)
    for size in sizes:
        try:
            yield k.make_workload(kind, size, size)
        except InvalidInput:
            continue  # a kind may need more than a few operations (pairs of something); its test size decides


def verdicts(
    impl: Implementation,
    sizes: Sequence[int] = EDGE_SIZES,
    seeds: Sequence[int] = SEEDS,
    against: Optional[Kernel] = None,
):
    """(what was checked, the oracle's verdict) for the known answers, then each workload, up to the first
    verdict that is not PASS. ``against``: the kernel, where it is not an installed plugin's (swarbench.declare)."""
    k = against or kernel(impl.kernel)
    failed = oracle.check_known_answers(k, impl)
    yield "known answers", failed or oracle.Verdict(oracle.PASS)
    if failed:
        return
    for kind in k.workloads:
        for workload in _workloads(k, kind, sizes, seeds):
            verdict = oracle.verify(k, impl, workload, oracle.reference_outputs(k, workload), known_answers=False)
            yield f"{workload.label} seed {workload.seed}", verdict
            if verdict.status != oracle.PASS:
                return


def check(
    impl: Implementation,
    sizes: Sequence[int] = EDGE_SIZES,
    seeds: Sequence[int] = SEEDS,
    against: Optional[Kernel] = None,
) -> Optional[str]:
    """Fail the calling test unless the implementation gives the reference's outputs and the known answers on
    every workload kind of its kernel (``against``, where it is not an installed plugin's). Skips it, with the
    reason, where this machine lacks what it requires. An implementation marked ``expected_to_fail`` must be
    caught: it fails the test only if it passes; caught, what caught it is returned."""
    why = features.unavailable(impl.requires)
    if why:
        pytest.skip(f"{impl.key}: {why}")
    problem = oracle.spec_problem(against or kernel(impl.kernel))
    if problem:
        pytest.fail(f"{impl.key} not checked: {problem}", pytrace=False)
    checked = []
    for what, verdict in verdicts(impl, sizes, seeds, against):
        checked.append(what)
        if verdict.status == oracle.SKIP:
            pytest.skip(f"{impl.key} ({what}): {verdict.reason}")
        if verdict.status != oracle.PASS:
            if impl.expected_to_fail:
                return f"{verdict.status} on {what}: {verdict.reason}"  # caught, as it should be
            pytest.fail(f"{impl.key} {verdict.status} on {what}: {verdict.reason}", pytrace=False)
    if impl.expected_to_fail:
        pytest.fail(
            f"{impl.key} is marked expected_to_fail ({impl.expected_to_fail}) but passed every check "
            f"({len(checked)}: {', '.join(checked[:3])}, ...); mend the mark or the inputs that should "
            f"catch it",
            pytrace=False,
        )


class CheckedBenchmark:
    """The ``swarbench_benchmark`` fixture: an implementation checked against its kernel's oracle, as ``check``
    does, then timed by pytest-benchmark's own ``benchmark`` fixture on a workload of the kernel (its default
    size, or ``size``), and its timed output checked too. pytest-benchmark's options all apply: ``--benchmark-
    disable`` makes it one checked call, ``--benchmark-skip`` skips it.

        def test_swar(swarbench_benchmark):
            swarbench_benchmark(swar)                              # a row declared with swarbench.declare
            swarbench_benchmark(mine, kernel="cards.contains")     # a plain function for an installed kernel
    """

    def __init__(self, benchmark: Callable[[], Any]):
        self._benchmark = benchmark  # pytest-benchmark's fixture, asked for once a row is checked and is to be timed

    def __call__(
        self,
        function: Union[Callable, Implementation],
        kernel: Union[str, Kernel, Any, None] = None,
        *,
        size: Optional[int] = None,
        workload: Optional[str] = None,
        seed: int = 0,
    ) -> Any:
        impl, k = _row_and_kernel(function, kernel)
        caught = check(impl, against=k)
        if caught is not None:
            pytest.xfail(f"{impl.key} is wrong on purpose ({impl.expected_to_fail}): {caught}")
        kind = k.workload_kind(workload)
        case = k.make_workload(kind, size, seed).read_only()
        expected = oracle.reference_outputs(k, case)
        verdict = oracle.verify(k, impl, case, expected, known_answers=False)
        if verdict.status == oracle.SKIP:
            pytest.skip(f"{impl.key}: {verdict.reason}")
        if verdict.status != oracle.PASS:
            pytest.fail(f"{impl.key} {verdict.status} on {case.label}: {verdict.reason}", pytrace=False)
        benchmark = self._benchmark()
        benchmark.group = k.id
        benchmark.extra_info.update(
            kernel=k.id, implementation=impl.name, family=impl.family, workload=case.name, n=case.size, unit=k.unit
        )
        outputs = benchmark(verdict.batch)
        mismatch = k.check(expected, outputs, case.inputs)
        if mismatch:
            pytest.fail(f"{impl.key} FAIL in its timed calls on {case.label}: {mismatch}", pytrace=False)
        stats = getattr(benchmark, "stats", None)
        if stats is not None and getattr(stats, "stats", None) is not None:
            benchmark.extra_info["ns_per_op_median"] = stats.stats.median / case.size * 1e9
        return outputs


def _row_and_kernel(function, given) -> tuple[Implementation, Kernel]:
    """The row the fixture times and the kernel it is checked against: a row of a ``swarbench.declare`` kernel,
    an Implementation, or a plain function on the inputs as read-only arrays (as ``Declared.numpy`` makes)."""
    from swarbench.declared import Declared

    if isinstance(given, Declared):
        given = given.kernel()
    elif given is not None and not isinstance(given, Kernel):
        given = kernel(str(given))
    if isinstance(function, Implementation):
        return function, given or kernel(function.kernel)
    declared = getattr(function, "swarbench_kernel", None)
    if declared is not None and given is None:
        return function.swarbench_implementation, declared.kernel()
    if given is None:
        raise TypeError(
            f"{getattr(function, '__name__', function)!r} is no row of a swarbench.declare kernel: "
            f"name its kernel, swarbench_benchmark(f, kernel='cards.contains')"
        )
    row = Declared(given.id, None, None, given.unit)
    row._defined = given
    name = getattr(function, "__name__", "function")
    return Implementation(given.id, name, "numpy", row._prepare(function), requires=("module:numpy",)), given
