"""The CardsVector suite: the post's examples, the generator, validation, and every implementation fuzzed."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarbench import Implementation, InvalidInput, Workload, oracle, registry
from swarbench.suites.cards import spec

REG = registry.load()
CONTAINS = [i for i in REG.implementations_of("cards.contains")]
REMOVE = [i for i in REG.implementations_of("cards.remove")]


def test_the_posts_examples():
    a = spec.pack({3: 2, 4: 2, 5: 2})
    assert spec.contains(a, a) and spec.contains(a, spec.pack({3: 1, 4: 1, 5: 1}))
    assert not spec.contains(a, spec.pack({4: 3, 5: 3})) and not spec.contains(a, spec.pack({4: 1, 5: 1, 6: 1}))
    assert spec.remove(a, spec.pack({3: 1, 4: 1})) == spec.pack({3: 1, 4: 1, 5: 2})
    assert spec.pack({k: 4 for k in range(1, 14)} | {14: 1, 15: 1}) == spec.FULL_DECK == 0x1144444444444440


def test_known_answers_hold_for_the_reference():
    for kernel in spec.KERNELS:
        for answer in kernel.known_answers():
            assert kernel.check(answer.expected, kernel.reference(answer.inputs), answer.inputs) is None


def test_remove_refuses_a_play_not_in_the_hand():
    with pytest.raises(InvalidInput, match="not contained in hand"):
        spec.remove(spec.pack({3: 1}), spec.pack({3: 2}))


@pytest.mark.parametrize(
    "vector, words",
    [
        (0x5 << 12, "kind 3 (3) has count 5"),
        (0x2 << 56, "kind 14 (small joker) has count 2"),
        (0x1, "nibble 0"),
    ],
)
def test_validation_names_the_bad_count(vector, words):
    with pytest.raises(InvalidInput, match=words.replace("(", r"\(").replace(")", r"\)")):
        spec.validate({"a": np.array([vector], np.uint64), "b": np.array([0], np.uint64)})


def test_dealt_hands_are_real_hands_and_plays():
    inputs = spec.deal(4000, seed=7, failing=True)
    sizes = spec.counts_of(inputs["a"]).sum(axis=1)
    assert set(np.unique(sizes)) == {17, 20}
    spec.validate(inputs)
    ok = spec.reference_contains(inputs)
    assert 0.2 < ok.mean() < 0.9  # both answers occur
    assert spec.reference_contains(spec.deal(4000, seed=7, failing=False)).all()
    again = spec.deal(4000, seed=7, failing=True)
    assert (again["a"] == inputs["a"]).all() and (again["b"] == inputs["b"]).all()  # seeded


def test_counts_pack_back_to_the_vectors_they_came_from():
    inputs = spec.deal(2000, seed=3, failing=True)
    for vectors in (inputs["a"], inputs["b"], np.array([0, spec.FULL_DECK, spec.pack({3: 2, 4: 2})], np.uint64)):
        counts = spec.counts_of(vectors)
        assert (spec.packed_of(counts) == vectors).all()
        assert (spec.packed_of(counts.tolist()) == vectors).all()  # the rows of lists a Python family returns
        assert (np.asarray(spec.PackedOnRead(counts.tolist())) == vectors).all()
    assert spec.packed_of([[0, 0, 0, 2, 2] + [0] * 11]).tolist() == [0x22000]


def test_the_swar_identity_is_exact_on_the_whole_single_kind_domain():
    # An answer the data files do not hold: for every pair of counts in one kind, SWAR contains equals >=.
    for kind in range(1, 16):
        for x in range(int(spec.MAX_COUNT[kind]) + 1):
            for y in range(int(spec.MAX_COUNT[kind]) + 1):
                a, b = x << (4 * kind), y << (4 * kind)
                assert ((((a | spec.HIGH) - b) & spec.HIGH) == spec.HIGH) == (x >= y)


def test_every_contains_implementation_is_exact_on_every_pair_of_counts_in_one_kind():
    # Each kind, every (hand count, play count) in its domain, alone and again over the rest of a full deck on both
    # sides: 666 pairs, so the bit-sliced layouts fill one 512-pair block and end in a part of the next.
    pairs, expected = [], []
    for background in (0, None):
        for kind in range(1, 16):
            rest = 0 if background == 0 else spec.FULL_DECK & ~(15 << (4 * kind))
            for x in range(int(spec.MAX_COUNT[kind]) + 1):
                for y in range(int(spec.MAX_COUNT[kind]) + 1):
                    pairs.append((rest | x << (4 * kind), rest | y << (4 * kind)))
                    expected.append(x >= y)
    inputs = {"a": np.array([a for a, _ in pairs], np.uint64), "b": np.array([b for _, b in pairs], np.uint64)}
    workload = Workload("cards.contains", "kinds", len(pairs), inputs)
    assert (spec.reference_contains(inputs) == expected).all()
    for impl in CONTAINS:
        verdict = oracle.verify(spec.CONTAINS, impl, workload, np.array(expected), known_answers=False)
        assert verdict.status in (oracle.PASS, oracle.SKIP), (impl.name, verdict.reason)


def test_bit_planes_hold_every_count_and_refuse_what_they_cannot():
    from swarbench.suites.cards.native import PLANE_SHIFTS, bit_planes

    hands = spec.deal(1000, seed=11, failing=False)["a"]
    planes = bit_planes(hands)
    assert planes.shape == (2, 41, 8)
    rebuilt = np.zeros(1024, np.uint64)
    for p, shift in enumerate(PLANE_SHIFTS):
        bits = (planes[:, p, :, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)  # pair 64 w + j: bit j
        rebuilt |= bits.reshape(-1) << np.uint64(shift)
    assert (rebuilt[:1000] == hands).all() and not rebuilt[1000:].any()  # the padding is empty hands
    for bad in (8 << 12, 2 << 56, 1):  # a count of 8, two small jokers, nibble 0
        with pytest.raises(InvalidInput, match="bit-sliced layout"):
            bit_planes(np.array([0, bad], np.uint64))


counts = st.tuples(*[st.integers(0, 4)] * 13 + [st.integers(0, 1)] * 2)
EDGE = [
    ({}, {}),  # empty hand, empty play
    (spec.FULL_DECK, spec.FULL_DECK),  # full deck, play equal to the hand
    ({14: 1, 15: 1}, {14: 1, 15: 1}),  # both jokers
    ({14: 1, 15: 1}, {15: 1}),
    ({3: 1}, {14: 1}),
    (spec.FULL_DECK, {}),
]


def _vec(x):
    return x if isinstance(x, int) else spec.pack(x)


def _pack(c):
    return sum(n << (4 * (k + 1)) for k, n in enumerate(c))


def _workload(kernel, pairs):
    edges = [(_vec(a), _vec(b)) for a, b in EDGE]
    if kernel is spec.REMOVE:  # remove is defined only where contains holds
        edges = [(a, b) for a, b in edges if spec.contains(a, b)]
    pairs = edges + pairs
    inputs = {"a": np.array([a for a, _ in pairs], np.uint64), "b": np.array([b for _, b in pairs], np.uint64)}
    return Workload(kernel.id, "fuzz", len(pairs), inputs)


def _check_all(kernel, impls, pairs):
    workload = _workload(kernel, pairs)
    expected = kernel.reference(workload.inputs)
    for impl in impls:
        verdict = oracle.verify(kernel, impl, workload, expected, known_answers=False)
        assert verdict.status in (oracle.PASS, oracle.SKIP), (impl.name, verdict.reason)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(counts, counts), max_size=70))
def test_every_contains_implementation_matches_the_reference(pairs):
    _check_all(spec.CONTAINS, CONTAINS, [(_pack(a), _pack(b)) for a, b in pairs])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(counts, st.randoms(use_true_random=False)), max_size=70))
def test_every_remove_implementation_matches_the_reference(hands):
    pairs = [(_pack(a), _pack([r.randint(0, n) for n in a])) for a, r in hands]
    _check_all(spec.REMOVE, REMOVE, pairs)


def test_a_wrong_implementation_fails_with_the_first_differing_input():
    def compares_whole_words(workload):
        a, b = workload.inputs["a"], workload.inputs["b"]
        return lambda: a >= b  # a bigger number is not a bigger count in every kind

    impl = Implementation("cards.contains", "broken", "numpy", compares_whole_words)
    workload = spec.CONTAINS.make_workload(spec.CONTAINS.workloads[0], 512, 3)
    verdict = oracle.verify(spec.CONTAINS, impl, workload, spec.CONTAINS.reference(workload.inputs))
    assert verdict.status == oracle.FAIL and verdict.batch is None  # never handed on to timing
    assert verdict.mismatch is not None and "hand 0x" in verdict.mismatch.input
    assert "expected" in verdict.reason and "got" in verdict.reason


def test_a_kernel_of_known_answers_catches_a_wrong_implementation_even_when_the_workload_agrees():
    def only_right_on_deals(workload):
        out = spec.reference_contains(workload.inputs)
        if workload.name.startswith("known:"):
            out = ~out
        return lambda: out

    impl = Implementation("cards.contains", "sly", "numpy", only_right_on_deals)
    workload = spec.CONTAINS.make_workload(spec.CONTAINS.workloads[0], 64, 0)
    verdict = oracle.verify(spec.CONTAINS, impl, workload, spec.CONTAINS.reference(workload.inputs))
    assert verdict.status == oracle.FAIL and "known answer" in verdict.reason


@pytest.mark.parametrize(
    "threads, size",
    [
        (3, 1000 + 13),  # shares of uneven length, each starting on a multiple of 64 pairs
        (2, 40),  # fewer pairs than one share's alignment: the later shares are empty
        (1, (1 << 18) + 37),  # a share big enough for remove's streaming stores, with a tail after them
        (3, 512 * 7 + 100),  # bit-sliced shares of whole 512-pair blocks, uneven, the last with a part block
    ],
)
def test_the_split_variants_cover_every_pair(monkeypatch, threads, size):
    from swarbench.suites.cards import native

    monkeypatch.setattr(native, "threads_for", lambda n: threads)
    split = [i for i in native.IMPLEMENTATIONS if i.name.endswith("-mt")]
    assert split
    for kernel in spec.KERNELS:
        workload = kernel.make_workload(kernel.workloads[0], size, 5)
        expected = kernel.reference(workload.inputs)
        for impl in (i for i in split if i.kernel == kernel.id):
            verdict = oracle.verify(kernel, impl, workload, expected, known_answers=False)
            assert verdict.status in (oracle.PASS, oracle.SKIP), (impl.name, verdict.reason)
            if verdict.status == oracle.PASS:  # the kept helper threads, call after call
                for _ in range(30):
                    assert kernel.check(expected, verdict.batch(), workload.inputs) is None, impl.name


def test_the_posts_report_sets_its_benchmarks_beside_ours():
    import pandas as pd

    from swarbench.suites.cards.report import post_table

    ns = {"c-loop": 10.0, "c-unrolled": 8.0, "c-swar": 1.0, "c-sliced-avx512": 0.25}
    frame = pd.DataFrame(
        [
            {"kernel": "cards.contains", "implementation": impl, "status": "PASS", "n": 4096, "ns_per_op_median": x}
            for impl, x in ns.items()
        ]
        + [
            {
                "kernel": "cards.contains",
                "implementation": "wrong",
                "status": "FAIL",
                "n": 4096,
                "ns_per_op_median": 0.01,
            }
        ]
    )
    table = post_table(frame).table.set_index("post_benchmark")
    assert table.loc["BenchmarkVecBContains-2", "speedup_over_loop"] == 10.0
    assert round(table.loc["BenchmarkVecBContains-2", "post_speedup_over_loop"], 2) == round(64.3 / 1.09, 2)
    fastest = table.loc["(fastest of this run)"]
    assert fastest["implementation"] == "c-sliced-avx512" and fastest["speedup_over_loop"] == 40.0  # FAIL not ranked
    assert set(table[table.kernel == "cards.remove"].implementation) == {"c-loop", "c-unrolled", "c-swar"}
    assert table[table.kernel == "cards.remove"].ns_per_op.isna().all()  # not in the run: shown as missing
    assert post_table(frame[frame.kernel == "other"]) is None


def test_numba_prange_swar_splits_a_large_batch_and_covers_every_pair():
    from swarbench.suites.cards import jit

    for kernel in spec.KERNELS:
        workload = kernel.make_workload(kernel.workloads[0], jit.SPLIT_MIN_PAIRS + 37, 9)  # uneven shares
        impl = next(i for i in jit.IMPLEMENTATIONS if i.kernel == kernel.id and i.name == "numba-swar-prange")
        verdict = oracle.verify(kernel, impl, workload, kernel.reference(workload.inputs), known_answers=False)
        assert verdict.status in (oracle.PASS, oracle.SKIP), verdict.reason
