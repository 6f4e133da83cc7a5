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
from typing import Sequence

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
        raise LookupError(f"no kernel {kernel_id!r} is registered (is its plugin installed?); kernels: "
                          f"{', '.join(sorted(reg.kernels))}{failed}")
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
                pytest.fail(f"kernel {kernel_id}: workload {kind.name} (n={kind.test_size}, seed {seed}) builds "
                            f"inputs its own validate refuses: {exc}", pytrace=False)
            oracle.reference_outputs(k, workload)
    names = {impl.name for impl in implementations(kernel_id)}
    if k.baseline not in names:
        pytest.fail(f"kernel {kernel_id}: its baseline {k.baseline!r} is none of its implementations "
                    f"({', '.join(sorted(names))})", pytrace=False)


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


def verdicts(impl: Implementation, sizes: Sequence[int] = EDGE_SIZES, seeds: Sequence[int] = SEEDS):
    """(what was checked, the oracle's verdict) for the known answers, then each workload, up to the first
    verdict that is not PASS."""
    k = kernel(impl.kernel)
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


def check(impl: Implementation, sizes: Sequence[int] = EDGE_SIZES, seeds: Sequence[int] = SEEDS) -> None:
    """Fail the calling test unless the implementation gives the reference's outputs and the known answers on
    every workload kind of its kernel. Skips it, with the reason, where this machine lacks what it requires.
    An implementation marked ``expected_to_fail`` must be caught: it fails the test only if it passes."""
    why = features.unavailable(impl.requires)
    if why:
        pytest.skip(f"{impl.key}: {why}")
    problem = oracle.spec_problem(kernel(impl.kernel))
    if problem:
        pytest.fail(f"{impl.key} not checked: {problem}", pytrace=False)
    checked = []
    for what, verdict in verdicts(impl, sizes, seeds):
        checked.append(what)
        if verdict.status == oracle.SKIP:
            pytest.skip(f"{impl.key} ({what}): {verdict.reason}")
        if verdict.status != oracle.PASS:
            if impl.expected_to_fail:
                return  # caught, as it should be
            pytest.fail(f"{impl.key} {verdict.status} on {what}: {verdict.reason}", pytrace=False)
    if impl.expected_to_fail:
        pytest.fail(f"{impl.key} is marked expected_to_fail ({impl.expected_to_fail}) but passed every check "
                    f"({len(checked)}: {', '.join(checked[:3])}, ...); mend the mark or the inputs that should "
                    f"catch it", pytrace=False)
