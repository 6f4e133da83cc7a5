"""swarbench.testing: what a plugin's own tests call. It passes a right implementation, fails a wrong one with the
input it got wrong (on edge sizes too), insists that an expected_to_fail one is caught, skips what this machine
cannot run, and gives one test per implementation."""

import types

import numpy as np
import pytest

from swarbench import Implementation, Kernel, KnownAnswer, WorkloadKind, hookimpl, registry, testing

KIND = WorkloadKind(
    "w", lambda n, seed: ({"x": np.random.default_rng(seed).integers(0, 99, n)}, n), "numbers", 64, test_size=40
)


def double(inputs):
    return inputs["x"] * 2


def _kernel(expected=(4, 6)):
    return Kernel(
        "toy.double",
        "twice each number",
        "number",
        (KIND,),
        reference=double,
        known_answers=lambda: [
            KnownAnswer("2, 3", {"x": np.array([2, 3])}, np.array(expected), "hand-checked", size=2)
        ],
    )


def _impl(name, fn, **kw):
    return Implementation("toy.double", name, "python-naive", lambda w: lambda: fn(w.inputs["x"]), **kw)


IMPLS = [
    _impl("naive", lambda x: x * 2),
    # wrong only when the batch is odd-sized: the random inputs at test size 40 never show it, the edge sizes do
    _impl("pairs", lambda x: np.concatenate([x[: len(x) // 2 * 2] * 2, x[len(x) // 2 * 2 :]])),
    _impl("marked-but-right", lambda x: x + x, expected_to_fail="said to be wrong"),
    _impl("marked-and-wrong", lambda x: x * 3, expected_to_fail="triples"),
    _impl("needs-warp", lambda x: x * 2, requires=("warp-drive",)),
]


@pytest.fixture
def toy(monkeypatch):
    def load(expected=(4, 6)):
        plugin = types.SimpleNamespace(
            swarbench_add_kernels=hookimpl(lambda registry: registry.add_kernel(_kernel(expected))),
            swarbench_add_implementations=hookimpl(lambda registry: [registry.add_implementation(i) for i in IMPLS]),
        )
        reg = registry.load(entry_points=False, extra_plugins=[("toy", plugin)])
        monkeypatch.setattr(testing, "registry", lambda: reg)
        return {i.name: i for i in reg.implementations_of("toy.double")}

    return load


def test_a_right_implementation_passes_and_the_spec_checks(toy):
    impls = toy()
    testing.check_kernel("toy.double")
    testing.check(impls["naive"])


def test_a_wrong_tail_is_caught_on_the_edge_sizes_with_the_input(toy):
    impls = toy()
    with pytest.raises(pytest.fail.Exception, match=r"toy.double/pairs FAIL on w/n=1 seed 1: at 0: input #0"):
        testing.check(impls["pairs"])
    testing.check(impls["pairs"], sizes=())  # random inputs at the test size alone would have let it through


def test_expected_to_fail_must_be_caught(toy):
    impls = toy()
    testing.check(impls["marked-and-wrong"])
    with pytest.raises(pytest.fail.Exception, match="marked expected_to_fail .said to be wrong. but passed"):
        testing.check(impls["marked-but-right"])


def test_what_the_machine_lacks_is_a_skip(toy):
    impls = toy()
    with pytest.raises(pytest.skip.Exception, match="unknown requirement 'warp-drive'"):
        testing.check(impls["needs-warp"])


def test_a_wrong_known_answer_blames_the_spec(toy):
    impls = toy(expected=(4, 7))
    with pytest.raises(pytest.fail.Exception, match="kernel toy.double's spec is wrong.*known answer '2, 3'"):
        testing.check_kernel("toy.double")
    with pytest.raises(pytest.fail.Exception, match="toy.double/naive not checked: kernel toy.double's spec"):
        testing.check(impls["naive"])


def test_one_test_per_implementation_named_after_it(toy):
    toy()
    mark = testing.each_implementation("toy.double").mark
    assert mark.args[0] == "impl"
    assert mark.kwargs["ids"] == sorted(i.name for i in IMPLS)
    with pytest.raises(LookupError, match="no kernel 'toy.triple' is registered.*kernels: toy.double"):
        testing.each_implementation("toy.triple")


@pytest.mark.parametrize("name", ["swar", "c-swar"])
def test_a_builtin_kernels_implementations_pass_through_the_helper(name):
    (impl,) = [i for i in testing.implementations("cards.contains") if i.name == name]
    testing.check(impl, sizes=(1, 7, 9))
