"""The poker suite: card notation, the rank code against brute force and the data, equity, every implementation."""

import csv
import dataclasses
import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import assert_one_line_error, cli_env, swarbench
from swarbench import InvalidInput, Workload, oracle, registry
from swarbench.suites.poker import blocks, native, python, spec

DATA = spec.DATA
REG = registry.load()
RANK7 = REG.implementations_of("poker.rank7")
EQUITY = REG.implementations_of("poker.equity")


def data(group):
    with open(DATA, newline="") as fh:
        return {r["item"]: int(r["value"]) for r in csv.DictReader(fh) if r["group"] == group}


def hand(text):
    return spec.parse_cards(text)


# -- cards in the talk's notation -----------------------------------------------------------------------
def test_card_notation_both_orders():
    assert spec.parse_card("s2") == 0 and spec.parse_card("cA") == 51  # the spec's two anchors
    assert spec.parse_card("7h") == spec.parse_card("h7") == 4 * 5 + 1
    assert spec.parse_card("10d") == spec.parse_card("dT") == spec.parse_card("Td")
    assert spec.hero_hand("sA cA") == (1 << 48) | (1 << 51)
    assert spec.describe(spec.hero_hand("7h, 2c")) == "c2 h7"


@pytest.mark.parametrize(
    "text, words",
    [
        ("sA sA", "repeats the card 'sA'"),
        ("sA x9", "card 'x9' does not parse"),
        ("sA 1c", "card '1c' does not parse"),
        ("sA cA dA", "has 3 cards, not 2"),
    ],
)
def test_bad_hero_hands_are_named(text, words):
    with pytest.raises(InvalidInput, match=words) as err:
        spec.hero_hand(text)
    assert "\n" not in str(err.value)


def test_hero_card_on_the_board_is_named():
    with pytest.raises(InvalidInput, match="hero card sA is on the board"):
        spec.check_board(spec.hero_hand("sA cA"), hand("sA hK dQ cJ s2"))
    inputs = spec.equity_inputs("sA cA", 3)
    inputs["boards"] = np.array([hand("sA hK dQ cJ s2")], np.uint64)
    with pytest.raises(InvalidInput, match="hero card sA"):
        spec.validate_equity(inputs)


def test_rank7_validation_names_the_bad_hand():
    with pytest.raises(InvalidInput, match=r"hand\[1\] .* has 6 cards, not 7"):
        spec.validate_hands(np.array([hand("s2 s3 s4 s5 s6 s7 s8"), hand("s2 s3 s4 s5 s6 s7")], np.uint64))
    with pytest.raises(InvalidInput, match="bits above the 52 cards"):
        spec.validate_hands(np.array([1 << 60 | 0x3F], np.uint64))


# -- the rank code against an independent evaluator, brute force and the data -----------------------------
def test_codes_order_five_card_hands_as_the_sorting_key_does():
    rng = np.random.default_rng(11)
    picks = [sorted(rng.choice(52, 5, replace=False).tolist()) for _ in range(3000)]
    edge = [
        "sA h2 d3 c4 s5",
        "s2 h3 d4 c5 s6",
        "sA hK dQ cJ sT",
        "sA sK sQ sJ sT",
        "sA s2 s3 s4 s5",
        "s9 h9 d9 s5 h5",
        "s9 h9 d5 s5 hA",
        "s9 h9 d5 s5 hK",
        "sA s9 s7 s4 s2",
        "sK sQ sJ sT s8",
    ]
    picks += [[spec.parse_card(c) for c in e.split()] for e in edge]
    codes = spec.reference_rank(np.array([sum(1 << c for c in p) for p in picks], np.uint64), 5)
    keys = [spec.five_key(p) for p in picks]
    for i in range(len(picks) - 1):
        j = i + 1
        assert (codes[i] < codes[j]) == (keys[i] < keys[j]) and (codes[i] == codes[j]) == (keys[i] == keys[j])


def test_best_of_seven_is_the_best_five_card_key():
    rng = np.random.default_rng(5)
    hands = [sorted(rng.choice(52, 7, replace=False).tolist()) for _ in range(400)]
    codes = spec.reference_rank(np.array([sum(1 << c for c in h) for h in hands], np.uint64), 7)
    best = [max(itertools.combinations(h, 5), key=lambda f: spec.five_key(list(f))) for h in hands]
    again = spec.reference_rank(np.array([sum(1 << c for c in f) for f in best], np.uint64), 5)
    assert (codes == again).all()


def all_five_card_hands():
    combos = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(52), 5)), np.int64)
    return (np.uint64(1) << combos.reshape(-1, 5).astype(np.uint64)).sum(axis=1, dtype=np.uint64)


def test_all_five_card_hands_match_the_data():
    # 2,598,960 hands through the C family (proven against the reference below), then 7,462 distinct codes
    hands = all_five_card_hands()
    assert len(hands) == math.comb(52, 5)
    mod = native.module("scalar")
    codes = np.empty(len(hands), np.uint32)
    mod.lib.rank7_batch(mod.ffi.from_buffer("uint64_t[]", hands), mod.ffi.from_buffer("uint32_t[]", codes), len(hands))
    sample = np.random.default_rng(3).choice(len(hands), 20000, replace=False)
    assert (spec.reference_rank(hands[sample], 5) == codes[sample]).all()
    counts, classes = data("5card_count"), data("5card_distinct_classes")
    cats = spec.category_of(codes)
    for c, name in enumerate(spec.CATEGORIES):
        assert (cats == c).sum() == counts[name], name
        assert len(np.unique(codes[cats == c])) == classes[name], name
    assert len(np.unique(codes)) == classes["total"] == 7462
    royal = spec.code_of(8, 0, 1 << 12)
    assert (codes == royal).sum() == counts["royal_flush(subset of straight_flush)"]


def test_exhaustive_seven_card_workload_checks_the_data():
    kernel = REG.kernels["poker.rank7"]
    kind = kernel.workload_kind("categories7")
    workload = kernel.make_workload(kind)
    expected = kernel.reference(workload.inputs)
    counts = data("7card_count")
    assert expected[:9].tolist() == [counts[c] for c in spec.CATEGORIES]
    assert expected[9] == data("7card_distinct_classes")["total"] == 4824
    assert sum(expected[:9]) == math.comb(52, 7) == workload.size
    impl = next(i for i in RANK7 if i.name == "c-swar")
    verdict = oracle.verify(kernel, impl, workload, expected, known_answers=False)
    assert verdict.status == oracle.PASS, verdict.reason
    wrong = expected.copy()
    wrong[8] += 1
    assert "straight_flush" in str(kernel.check(wrong, expected, workload.inputs))


def test_sample_category_frequencies_agree_with_the_data():
    codes = spec.reference_rank(spec.random_hands(30000, 9), 7)
    freq = np.bincount(spec.category_of(codes), minlength=9) / len(codes)
    counts = data("7card_count")
    for c, name in enumerate(spec.CATEGORIES):
        p = counts[name] / counts["total"]
        assert abs(freq[c] - p) < 5 * math.sqrt(p * (1 - p) / len(codes)) + 1e-4, name


# -- equity -------------------------------------------------------------------------------------------------
def brute_equity(hero, boards):
    """wins, ties, losses by the sorting key of every 5-card subset: shares nothing with the rank codes"""

    def best(cards):
        return max(spec.five_key(list(f)) for f in itertools.combinations(cards, 5))

    out = [0, 0, 0]
    for board in boards:
        b = [i for i in range(52) if int(board) >> i & 1]
        h = [i for i in range(52) if hero >> i & 1]
        mine = best(b + h)
        free = [i for i in range(52) if i not in b and i not in h]
        for opp in itertools.combinations(free, 2):
            theirs = best(b + list(opp))
            out[0 if mine > theirs else 1 if mine == theirs else 2] += 1
    return np.array(out, np.int64)


def test_equity_reference_on_a_board_slice_matches_brute_force():
    inputs = spec.equity_inputs("sA cA", 4)
    inputs["boards"] = np.concatenate([inputs["boards"], [hand("sK sQ sJ sT h2"), hand("hA dA s3 c3 d9")]])
    assert (spec.reference_equity(inputs) == brute_equity(inputs["hero"], inputs["boards"])).all()


def test_board_slice_and_royal_boards_without_listing_every_board():
    # the combinatorial number system lists k-subsets in increasing-integer order, as the talk enumerates them
    small = sorted(itertools.combinations(range(12), 5), key=lambda c: sum(1 << i for i in c))
    assert [spec.colex_subset(i, 5) for i in range(len(small))] == [list(c) for c in small]
    # so the default workload's evenly spaced boards are unranked directly, and are those of the full list
    hero = spec.hero_hand("sA cA")
    boards = spec.all_boards(hero)
    for n in (1, 2, 40, 128):
        assert (spec.board_slice(hero, n) == boards[np.linspace(0, len(boards) - 1, n).astype(np.int64)]).all()
    royal = np.zeros(len(boards), bool)
    for need in (hand("sK sQ sJ sT"), hand("cK cQ cJ cT")):
        royal |= (boards & np.uint64(need)) == np.uint64(need)
    assert sorted(spec.royal_boards(hero).tolist()) == boards[royal].tolist() and royal.sum() == 92
    # a hero with two royal cards of one suit: three on the board and any two of the other 47 cards
    tj = spec.royal_boards(spec.hero_hand("hT hJ"))
    need = np.uint64(hand("hQ hK hA"))
    assert len(set(tj.tolist())) == len(tj) == math.comb(47, 2) and ((tj & need) == need).all()


def test_equity_for_another_hero_hand():
    inputs = spec.equity_inputs("7h 2c", 3)
    assert (spec.reference_equity(inputs) == brute_equity(inputs["hero"], inputs["boards"])).all()


def test_full_enumeration_reference_is_the_data_row():
    row = data("headsup_exact")
    kernel = REG.kernels["poker.equity"]
    inputs = {"hero": spec.hero_hand("sA cA"), "boards": np.zeros(0, np.uint64), "full": True}
    wtl = kernel.reference(inputs)
    assert wtl.tolist() == [row[f"AA(sA cA) vs random hand [correct] {k}"] for k in ("wins", "ties", "losses")]
    assert wtl.sum() == spec.N_BOARDS * spec.OPPONENTS == 2_097_572_400
    assert len(spec.boards_of(spec.hero_hand("sA cA"))) == spec.N_BOARDS


@pytest.mark.slow
def test_pure_python_full_enumeration_gets_the_data_totals():
    # grouped by flush draw and rank multiset; shares no code with the C smart method's board-by-board walk
    row = data("headsup_exact")
    got = python.equity_full(spec.hero_hand("sA cA"))
    assert list(got) == [row[f"AA(sA cA) vs random hand [correct] {k}"] for k in ("wins", "ties", "losses")]


def test_the_talks_signed_comparison_fails_with_the_5670_games():
    kernel = REG.kernels["poker.equity"]
    impl = next(i for i in EQUITY if i.name == "c-talk-signed")
    assert impl.expected_to_fail
    answer, workload = kernel.known_workloads()[0]
    verdict = oracle.verify(kernel, impl, workload, answer.expected, known_answers=False)
    assert verdict.status == oracle.FAIL
    assert "5,670 games moved from win to loss" in verdict.reason
    printed = data("headsup_exact")
    correct = "AA(sA cA) vs random hand [correct] wins"
    talk = "AA(sA cA) vs random hand [as printed in Madrid talk; differs] wins"
    assert printed[correct] - printed[talk] == 5670  # the same difference the talk printed


# -- every implementation against the reference ---------------------------------------------------------------
@pytest.mark.parametrize("impl", RANK7 + EQUITY, ids=lambda i: i.key)
@pytest.mark.slow
def test_every_implementation_passes_the_test_workload(impl):
    kernel = REG.kernels[impl.kernel]
    kind = kernel.workloads[0]
    workload = kernel.make_workload(kind, kind.test_size, seed=1)
    verdict = oracle.verify(kernel, impl, workload, kernel.reference(workload.inputs))
    if impl.expected_to_fail:
        assert verdict.status in (oracle.FAIL, oracle.SKIP), verdict.reason
    else:
        assert verdict.status in (oracle.PASS, oracle.SKIP), verdict.reason


seven_cards = st.lists(st.sets(st.integers(0, 51), min_size=7, max_size=7), min_size=1, max_size=40)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seven_cards)
def test_rank7_implementations_agree_with_the_reference_on_any_hands(sets):
    hands = np.array([sum(1 << c for c in s) for s in sets], np.uint64)
    kernel = REG.kernels["poker.rank7"]
    expected = kernel.reference({"hands": hands})
    workload = Workload("poker.rank7", "fuzz", len(hands), {"hands": hands})
    for impl in RANK7:
        verdict = oracle.verify(kernel, impl, workload, expected, known_answers=False)
        assert verdict.status in (oracle.PASS, oracle.SKIP), (impl.key, verdict.reason)


# -- the talk's building blocks --------------------------------------------------------------------------------
BLOCK_CASES = [
    (impl, kind.name) for k in blocks.KERNELS for kind in k.workloads for impl in REG.implementations_of(k.id)
]


@pytest.mark.parametrize("impl, kind", BLOCK_CASES, ids=lambda v: v.key if hasattr(v, "key") else v)
def test_every_block_implementation_matches_its_reference(impl, kind):
    kernel = REG.kernels[impl.kernel]
    k = kernel.workload_kind(kind)
    workload = kernel.make_workload(k, k.test_size, seed=2)
    verdict = oracle.verify(kernel, impl, workload, kernel.reference(workload.inputs))
    assert verdict.status in (oracle.PASS, oracle.SKIP), verdict.reason


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**64 - 1), st.sampled_from(blocks.WIDTHS))
def test_lane_popcounts_agree_with_python_bit_counts(word, width):
    got = int(blocks.lane_popcount_reference(np.array([word], np.uint64), width)[0])
    mask = (1 << width) - 1
    for lane in range(64 // width):
        assert (got >> (lane * width)) & mask == bin((word >> (lane * width)) & mask).count("1")
    assert python.lanes_swar(word, width) == python.lanes_naive(word, width) == got


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10**8 - 1), st.integers(0, 2**52 - 1), st.integers(0, 2**52 - 1))
def test_atoi8_deposit_and_subsets_against_python(number, value, mask):
    word = blocks.digits_word(f"{number:08d}")
    assert python.atoi8_swar(word) == python.atoi8_naive(word) == number
    assert int(blocks.atoi8_reference(np.array([word], np.uint64))[0]) == number
    expected = int(blocks.deposit_reference(np.array([value], np.uint64), np.array([mask], np.uint64))[0])
    assert python.deposit_naive(value, mask) == expected
    bits = [b for b in range(52) if mask >> b & 1]
    assert expected == sum(1 << b for i, b in enumerate(bits) if value >> i & 1)


def test_gosper_enumerates_the_talks_990_opponent_hands():
    subs = python.subsets_gosper(45, 2)
    assert len(subs) == 990 == spec.OPPONENTS and subs == sorted(subs) == python.subsets_naive(45, 2)
    assert all(bin(s).count("1") == 2 for s in subs)


def test_block_bad_inputs_are_named():
    with pytest.raises(InvalidInput, match="'1234a678' is not eight ASCII digits"):
        blocks.digits_word("1234a678")
    with pytest.raises(InvalidInput, match="holds a NUL byte"):
        blocks.pack_strings([b"ab\0c"])
    with pytest.raises(InvalidInput, match="lane above 7"):
        blocks.GREATER_EQUAL.validate({"counts": np.array([0xF0], np.uint64)})


# -- the Numba and AVX2 building blocks against the references, on any words ------------------------------------
NEW_BLOCKS = {
    k.id: [i for i in REG.implementations_of(k.id) if i.family in ("numba", "cffi-avx2")] for k in blocks.KERNELS
}
EDGE_WORDS = [0, 2**64 - 1, 0x8000000000000001, 0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0F0F0F0F0F0F0F0F]


def verify_new_blocks(kernel_id, inputs, size):
    """every Numba and AVX2 implementation of a block kernel against its reference (SKIP where not runnable)"""
    kernel = REG.kernels[kernel_id]
    expected = kernel.reference(inputs)
    workload = Workload(kernel_id, "fuzz", size, inputs)
    assert NEW_BLOCKS[kernel_id], kernel_id
    for impl in NEW_BLOCKS[kernel_id]:
        verdict = oracle.verify(kernel, impl, workload, expected, known_answers=False)
        assert verdict.status in (oracle.PASS, oracle.SKIP), (impl.key, verdict.reason)


words64 = st.lists(st.one_of(st.integers(0, 2**64 - 1), st.sampled_from(EDGE_WORDS)), min_size=1, max_size=13)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words64, st.sampled_from(blocks.WIDTHS))
def test_numba_and_avx2_lane_popcounts_on_any_words(words, width):
    # 1..13 words: the AVX2 loop's masked tail of one to three words, and whole registers
    verify_new_blocks("poker.popcount", {"words": np.array(words, np.uint64), "width": width}, len(words))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.integers(0, 2**52 - 1), min_size=1, max_size=20),
    st.lists(st.integers(0, 2**13 - 1), min_size=1, max_size=20),
    st.lists(st.integers(0, 10**8 - 1), min_size=1, max_size=20),
)
def test_numba_blocks_on_any_cards_masks_and_digits(cards, masks, numbers):
    hands = np.array(cards + [0, 2**52 - 1], np.uint64)
    verify_new_blocks("poker.rank_counts", {"hands": hands}, len(hands))
    verify_new_blocks("poker.greater_equal", {"counts": blocks.rank_counts_reference(hands)}, len(hands))
    rank_masks = np.array(masks + [0, 0x1FFF, 0x100F, 0x1F00], np.uint32)  # none, all, the wheel, broadway
    verify_new_blocks("poker.straights", {"masks": rank_masks}, len(rank_masks))
    words = np.array([blocks.digits_word(f"{v:08d}") for v in numbers + [0, 99999999]], np.uint64)
    verify_new_blocks("poker.atoi8", {"words": words}, len(words))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**52 - 1), st.integers(0, 2**64 - 1)), min_size=1, max_size=20))
def test_numba_deposit_on_any_masks(pairs):
    pairs += [(0, 2**64 - 1), (2**64 - 1, 2**64 - 1), (2**64 - 1, 0)]
    verify_new_blocks(
        "poker.deposit",
        {"masks": np.array([m for m, _ in pairs], np.uint64), "values": np.array([v for _, v in pairs], np.uint64)},
        len(pairs),
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 20).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_numba_gosper_enumerates_every_subset(nk):
    n, k = nk
    verify_new_blocks("poker.next_subset", {"n": n, "k": k}, math.comb(n, k))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\0", b"x")), min_size=1, max_size=12), st.integers(0, 7)
)
def test_numba_strlen_on_any_strings_and_unaligned_starts(strings, skip):
    inputs = blocks.pack_strings(strings + [b"", b"eight888"])
    verify_new_blocks("poker.strlen", inputs, len(inputs["offsets"]))
    # starting inside a string (not on a word boundary): byte by byte to the boundary, then words
    lengths = blocks.strlen_reference(inputs)
    inputs["offsets"] = inputs["offsets"] + np.minimum(skip, lengths)
    verify_new_blocks("poker.strlen", inputs, len(inputs["offsets"]))


def test_a_wrong_lane_width_is_a_fail():
    kernel = REG.kernels["poker.popcount"]
    numba_swar = next(i for i in NEW_BLOCKS["poker.popcount"] if i.name == "numba-swar")

    def wrong(workload):  # the 8-bit lane counts offered as 4-bit ones
        return numba_swar.prepare(dataclasses.replace(workload, inputs={**workload.inputs, "width": 8}))

    impl = dataclasses.replace(numba_swar, name="numba-wrong-width", prepare=wrong)
    workload = kernel.make_workload(kernel.workload_kind("lanes4"), 64, seed=4)
    verdict = oracle.verify(kernel, impl, workload, kernel.reference(workload.inputs))
    assert verdict.status in (oracle.FAIL, oracle.SKIP), verdict.reason


# -- the table evaluator (python-swar-tables) and the hoisted C loop, path by path ----------------------------------
def no_flush_hand(ranks):
    """seven cards of the given ranks (sorted), suits dealt in turn: no suit gets more than two, and the cards of
    one rank (at most four, in a row) all get different suits"""
    return sum(1 << (4 * r + i % 4) for i, r in enumerate(sorted(ranks)))


def test_python_rank_tables_hold_every_seven_card_rank_multiset():
    no_flush, flush = python.rank_tables()
    multisets = [
        m for m in itertools.combinations_with_replacement(range(13), 7) if max(m.count(r) for r in set(m)) <= 4
    ]
    assert len(multisets) == len(no_flush) == 49205
    hands = np.array([no_flush_hand(m) for m in multisets], np.uint64)
    words = [sum(1 << 4 * r for r in m) for m in multisets]
    assert [no_flush[w] for w in words] == spec.reference_rank(hands, 7).tolist()
    # the flush table: every stripe of 5, 6 or 7 cards of one suit, against the reference on those cards alone
    assert len(flush) == 4 * sum(math.comb(13, k) for k in (5, 6, 7))
    for k in (5, 6, 7):
        stripes = [s for s in flush if bin(s).count("1") == k]
        assert [flush[s] for s in stripes] == spec.reference_rank(np.array(stripes, np.uint64), k).tolist()


def test_python_table_evaluator_on_flushes_of_every_suit_and_size():
    # a flush of each suit, with the spade+heart count above 4 (spades, hearts) or below 3 (diamonds, clubs)
    rng = np.random.default_rng(8)
    hands = []
    for suit in range(4):
        for n in (5, 6, 7):
            for _ in range(150):
                suited = rng.choice(13, n, replace=False) * 4 + suit
                others = [c for c in range(52) if c & 3 != suit]
                hands.append(sum(1 << int(c) for c in [*suited, *rng.choice(others, 7 - n, replace=False)]))
    hands += [
        hand(h)
        for h in (
            "sA s2 s3 s4 s5 h6 h7",
            "cT cJ cQ cK cA dA hA",
            "s2 s3 s4 h5 h6 h7 h8",
            "d2 d3 c4 c5 c6 c7 c8",
            "s9 s8 s7 s6 h5 h4 h3",
        )
    ]
    rank = python.rank7_tables()
    got = [rank(h) for h in hands]
    assert got == spec.reference_rank(np.array(hands, np.uint64), 7).tolist()


HOISTED_BOARDS = [
    "hA hK hQ h3 s4",
    "h9 h8 h6 h5 s9",
    "c3 c4 c5 d6 d7",
    "sA sK sQ sJ sT",
    "d2 d3 d4 d5 d6",
    "h3 h4 h5 c7 d7",
    "sA d2 c3 h4 s9",
    "s5 h4 d3 cA sK",
    "hT hJ dQ cK s2",
    "s2 h2 d2 c2 sK",
    "s7 h7 d7 c9 s9",
    "s6 h6 d8 c8 sT",
    "h2 h5 h9 hJ hK",
    "d8 d9 dT c8 h8",
    "sA s5 h4 d3 c2",
    "s2 h3 d4 c5 sK",
    "h2 h3 h4 c5 s9",
    "sT hJ dQ cK c9",
]


def talk_loop(isa):
    """(codes, equity) of the C talk loop of one build: codes(hero, board, hands, codes) fills one board's
    opponent hands with the code the loop gives each; equity(hero, boards) returns wins, ties, losses"""
    from swarbench import features

    needs = {"scalar": ("cc",), "bmi2": ("cc", "bmi2", "popcnt"), "avx512": native.AVX512_RANK_NEEDS}[isa]
    why = features.unavailable(needs)
    if why:
        pytest.skip(why)
    mod = native.avx512_module() if isa == "avx512" else native.module(isa)
    ffi, lib = mod.ffi, mod.lib

    def equity(hero, boards):
        out = np.zeros(3, np.int64)
        pb, po = ffi.from_buffer("uint64_t[]", boards), ffi.from_buffer("int64_t[]", out)
        if isa == "avx512":
            lib.equity_talk_avx512(hero, pb, len(boards), 1, po)
        else:
            lib.equity(hero, pb, len(boards), native.TALK_HOISTED, 1, po)
        return out.tolist()

    codes = lib.talk_codes_avx512 if isa == "avx512" else lib.hoisted_codes
    return (
        lambda hero, board, h, c: codes(hero, board, ffi.from_buffer("uint64_t[]", h), ffi.from_buffer("uint32_t[]", c))
    ), equity


@pytest.mark.parametrize("isa", ["scalar", "bmi2", "avx512"])
@pytest.mark.slow
def test_talk_c_loops_code_every_opponent_hand(isa):
    """The loops of c-talk-hoisted-bmi2 and c-talk-avx512 (masks of board + first card, straight completers, the
    7-card kicker rule) give every opponent hand the reference's code: boards with flush draws of 3, 4 and 5
    cards, straights on the board, wheel and broadway draws, quads, trips and two pairs on the board, and random
    boards. The counts of the loops, on the same boards, are the reference's too."""
    codes_of, equity = talk_loop(isa)
    rng = np.random.default_rng(13)
    cases = [(spec.hero_hand(h), hand(b)) for h in ("sA cA", "7h 2c") for b in HOISTED_BOARDS]
    for _ in range(60):
        cards = rng.choice(52, 7, replace=False)
        cases.append((sum(1 << int(c) for c in cards[:2]), sum(1 << int(c) for c in cards[2:])))
    hands = np.empty(1024, np.uint64)
    codes = np.empty(1024, np.uint32)
    got_hands, got_codes = [], []
    for hero, board in cases:
        if hero & board:
            continue
        n = codes_of(hero, board, hands, codes)
        assert n == 990
        assert sorted(hands[:n].tolist()) == sorted((spec.opponents_of(hero | board) | np.uint64(board)).tolist())
        got_hands.append(hands[:n].copy())
        got_codes.append(codes[:n].copy())
    got_hands, got_codes = np.concatenate(got_hands), np.concatenate(got_codes)
    expected = spec.reference_rank(got_hands, 7)
    bad = np.flatnonzero(expected != got_codes)
    assert not bad.size, (spec.describe(int(got_hands[bad[0]])), hex(expected[bad[0]]), hex(got_codes[bad[0]]))
    for hero in (spec.hero_hand("sA cA"), spec.hero_hand("7h 2c")):
        boards = np.array([b for h, b in cases if not (hero & b)], np.uint64)
        assert equity(hero, boards) == spec.reference_equity({"hero": hero, "boards": boards, "full": False}).tolist()


# -- Numba: one thread and prange give the same counts; compiled once per machine ------------------------------
def test_numba_hoisted_equity_one_thread_and_prange_on_flush_boards():
    pytest.importorskip("numba")
    from swarbench.suites.poker import jit

    hero = spec.hero_hand("7h 2c")
    boards = np.array(
        [
            hand(b)
            for b in (
                "hA hK hQ h3 s4",
                "h9 h8 h6 h5 s9",
                "c3 c4 c5 d6 d7",
                "sA sK sQ sJ sT",
                "d2 d3 d4 d5 d6",
                "h3 h4 h5 c7 d7",
            )
        ],
        np.uint64,
    )
    expected = spec.reference_equity({"hero": hero, "boards": boards, "full": False})
    assert (
        spec.reference_equity({"hero": hero, "boards": boards[:2], "full": False}) == brute_equity(hero, boards[:2])
    ).all()
    one = jit.compiled("equity_hoisted")(np.uint64(hero), boards, *jit.scratch(1))
    for rows in (1, 2, 5):  # more slices than boards leaves some empty
        par = jit.compiled("equity_hoisted_prange")(np.uint64(hero), boards, *jit.scratch(rows))
        assert list(par) == list(one) == expected.tolist()


def test_every_numba_function_is_cached_and_no_closure():
    numba = pytest.importorskip("numba")
    from numba.core.caching import NullCache

    from swarbench.suites.poker import jit_kernels

    dispatchers = [v for v in vars(jit_kernels).values() if isinstance(v, numba.core.registry.CPUDispatcher)]
    assert len(dispatchers) > 15
    for d in dispatchers:
        # a closure over another jitted function misses the cache in every new process (its pickled uuid)
        assert not isinstance(d._cache, NullCache) and d.py_func.__closure__ is None, d.py_func.__name__
    others = [
        p.name
        for p in Path(jit_kernels.__file__).parent.glob("*.py")
        if p.name != "jit_kernels.py" and "numba.njit" in p.read_text()
    ]
    assert others == []  # every jitted function of the suite lives in jit_kernels.py


@pytest.mark.slow
def test_a_second_process_loads_the_compiled_numba_code(tmp_path):
    pytest.importorskip("numba")
    probe = (
        "from swarbench.suites.poker import jit, spec; import numpy as np; "
        "fn = jit.compiled('equity_hoisted'); print(sum(fn.stats.cache_hits.values()))"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=Path(__file__).resolve().parents[1],
        )
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr + runs[1].stderr
    assert [r.stdout.split()[-1] for r in runs] == ["0", "1"]


# -- the command ------------------------------------------------------------------------------------------------
def test_command_prints_equity_the_talks_way(tmp_path):
    proc = swarbench("poker", "equity", "7h", "2c", "--boards", "5", "--impl", "python-smart", env=cli_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    counts = [int(line.split(":")[0]) for line in lines[:3]]
    inputs = spec.equity_inputs("7h 2c", 5)
    assert counts == spec.reference_equity(inputs).tolist() and int(lines[3]) == 5 * 990


@pytest.mark.parametrize(
    "hero, words", [(["sA", "sA"], "repeats the card 'sA'"), (["sA", "xQ"], "'xQ' does not parse")]
)
def test_command_names_a_bad_hero_hand_in_one_line(tmp_path, hero, words):
    assert_one_line_error(swarbench("poker", "equity", *hero, "--boards", "5", env=cli_env(tmp_path)), words)


# -- poker.versus: hands and ranges against each other ------------------------------------------------------------
from swarbench.suites.poker import command, ranges, versus  # noqa: E402

VERSUS = REG.implementations_of("poker.versus")
VERSUS_KERNEL = REG.kernels["poker.versus"]


@pytest.mark.parametrize(
    "text, count",
    [
        ("QQ+, AKs, AQo+, 76s", 18 + 4 + 24 + 4),
        ("AK", 16),
        ("A2s-A5s", 16),
        ("99-QQ", 24),
        ("QQ-99", 24),
        ("T9o", 12),
        ("AhKh", 1),
        ("random", 1326),
        ("KK+, AA", 12),
        ("aks, 22", 10),
    ],
)
def test_ranges_parse_as_poker_tools_write_them(text, count):
    hands = ranges.parse_range(text)
    assert len(hands) == len(set(hands)) == count
    assert all(bin(h).count("1") == 2 for h in hands)


def test_range_hands_are_the_ones_named():
    assert sorted(ranges.parse_range("AQo+")) == sorted(
        (1 << (48 + s1)) | (1 << (4 * r + s2)) for r in (10, 11) for s1 in range(4) for s2 in range(4) if s1 != s2
    )
    assert ranges.parse_range("76s") == [(1 << (20 + s)) | (1 << (16 + s)) for s in range(4)]


@pytest.mark.parametrize(
    "text, words",
    [
        ("AKx", "'AKx' does not parse"),
        ("QQs", "'QQs': a pair"),
        ("QQ+,,AK", "empty item"),
        ("A2s-K5s", "'A2s-K5s' does not parse"),
    ],
)
def test_bad_range_items_are_named(text, words):
    with pytest.raises(InvalidInput, match=words):
        ranges.parse_range(text)


def test_card_removal_takes_hands_out_of_ranges_and_refuses_shared_cards():
    left = ranges.resolve(["AdAc", "AA, KhKs"], ranges.parse_hand("2c3c") and 0)
    assert [len(r) for r in left] == [1, 2]  # AhAs and KhKs: the other five aces' pairs hold Ad or Ac
    with pytest.raises(InvalidInput, match="'AdKs' holds Ad"):
        ranges.resolve(["AdAc", "AdKs"], 0)
    with pytest.raises(InvalidInput, match="no hand left"):
        ranges.resolve(["AdAc", "AhAs", "AA"], 0)


def test_matchups_equal_up_to_suits_are_enumerated_once():
    classes, total = ranges.matchups(ranges.resolve(["AA", "QQ", "93o"], 0), 0)
    assert total == 6 * 6 * 12 and sum(w for _, w in classes) == total and len(classes) < total / 10
    board = spec.parse_cards("Jc 9h 2d")
    classes, total = ranges.matchups(ranges.resolve(["QsQh", "8c7c", "random"], board), board)
    assert total == len(classes) == 990  # no renaming of suits leaves a three-suit flop as it is


@pytest.mark.parametrize("impl", VERSUS, ids=lambda i: i.key)
@pytest.mark.parametrize("kind", ["hu-slice", "three-slice"])
def test_every_versus_implementation_passes_the_slices(impl, kind):
    kind = VERSUS_KERNEL.workload_kind(kind)
    workload = VERSUS_KERNEL.make_workload(kind, kind.test_size, seed=1)
    verdict = oracle.verify(VERSUS_KERNEL, impl, workload, VERSUS_KERNEL.reference(workload.inputs))
    assert verdict.status in (oracle.PASS, oracle.SKIP), verdict.reason


@pytest.mark.slow
def test_versus_reference_on_a_flop_agrees_with_a_plain_count():
    hands = [ranges.parse_hand("AhKh"), ranges.parse_hand("2d2c")]
    board = spec.parse_cards("Ac 2h 7s")
    inputs = versus.versus_inputs(hands, board)
    got = versus.reference(inputs)
    boards = [
        board | (1 << a) | (1 << b)
        for a, b in itertools.combinations(versus.free_cards(board | hands[0] | hands[1]), 2)
    ]
    codes = [[int(spec.reference_rank(np.array([h | b], np.uint64))[0]) for b in boards] for h in hands]
    wins = [sum(c[i] > o[i] for i in range(len(boards))) for c, o in (codes, codes[::-1])]
    ties = sum(a == b for a, b in zip(*codes))
    assert got[:, 0].tolist() == wins and got[:, 1].tolist() == [ties, ties] and len(boards) == 990


def fastest_versus():
    return REG.choose("poker.versus", None, command.DEFAULT_VERSUS)


@pytest.mark.parametrize("kind", ["hu-full", "three-full"])
def test_full_enumerations_give_the_published_counts(kind):
    impl = fastest_versus()
    kind = VERSUS_KERNEL.workload_kind(kind)
    workload = VERSUS_KERNEL.make_workload(kind, kind.default_size, seed=1)
    verdict = oracle.verify(VERSUS_KERNEL, impl, workload, kind.expected(workload.inputs))
    assert verdict.status == oracle.PASS, verdict.reason


def test_a_wrong_count_is_caught_against_the_published_figures():
    published = versus.published()["ahkh_2c2d"]
    good = np.array([[852207, 10775, 852207 * 2520 + 10775 * 1260], [849322, 10775, 849322 * 2520 + 10775 * 1260]])
    assert published.check(good, 1712304) is None
    bad = good.copy()
    bad[0, 0] -= 1
    assert "852,206 wins" in published.check(bad, 1712304)


# ranges against ranges, heads-up and three-way, exactly; the 2s2h-against-random case (469 deals up to suits, 20 s
# here) is left to `swarbench poker equity 2s2h random`
@pytest.mark.parametrize("case", ["qq_87s", "qsqh_8c7c_random_flop", "khks_aa", "aa_qq_93o", "a2o_88_qjs"])
def test_ranges_match_published_pokerstove_results(case):
    published = versus.published()[case]
    board = (
        spec.parse_cards(" ".join(published.board[i : i + 2] for i in range(0, len(published.board), 2)))
        if published.board
        else 0
    )
    _, acc, games, *_ = command.totals(list(published.players), board, fastest_versus())
    assert published.check(acc, games) is None, published.check(acc, games)


def test_command_puts_hands_and_ranges_against_each_other(tmp_path):
    proc = swarbench("poker", "equity", "QQ", "87s", env=cli_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines()[1:3]}
    assert rows["QQ"][1] == "78.2594%" and rows["87s"][1] == "21.7406%"
    assert "41,095,296 games" in proc.stdout
    proc = swarbench(
        "poker", "equity", "AdAc", "QQ+,", "AKs,", "AQo+,", "76s", "--impl", "c-versus", env=cli_env(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[2].startswith("QQ+,AKs,AQo+,76s")


@pytest.mark.parametrize(
    "args, words",
    [
        (["AdAc", "AdKs"], "'AdKs' holds Ad"),
        (["AdAc", "KhKs", "--board", "Kh 2c 3c"], "'KhKs' holds Kh"),
        (["AdAc", "QQ+, AKx"], "'AKx' does not parse"),
        (["AdAc", "KhKs", "--boards", "5"], "--boards"),
        (["AdAc", "KhKs", "--impl", "python-swar"], "too slow"),
        (["QQ+"], "'QQ+' alone"),
    ],
)
@pytest.mark.slow
def test_command_names_bad_versus_input_in_one_line(tmp_path, args, words):
    assert_one_line_error(swarbench("poker", "equity", *args, env=cli_env(tmp_path)), words)


def test_command_says_a_known_wrong_implementation_is_wrong(tmp_path):
    proc = swarbench("poker", "equity", "sA", "cA", "--boards", "5", "--impl", "c-talk-signed", env=cli_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "c-talk-signed is known to be wrong" in proc.stderr and "(known to be wrong)" in proc.stdout
    proc = swarbench("poker", "equity", "AsAc", "--boards", "5", env=cli_env(tmp_path))
    assert proc.returncode == 0 and "known to be wrong" not in proc.stderr + proc.stdout
    assert [int(line.split(":")[0]) for line in proc.stdout.splitlines()[:3]] == spec.reference_equity(
        spec.equity_inputs("sA cA", 5)
    ).tolist()


def test_versus_report_sets_each_equity_beside_the_published_one():
    from swarbench import results
    from swarbench.suites.poker import report

    def record(impl, status, summary):
        return {
            "kernel": "poker.versus",
            "suite": "poker",
            "implementation": impl,
            "family": "cffi-scalar",
            "workload": "hu-full",
            "n": 2 * 1712304,
            "status": status,
            "reason": "",
            "baseline": "python-swar",
            "unit": "hand",
            "samples_s": [0.1, 0.1, 0.1] if status == "PASS" else [],
            "summary": summary,
        }

    pots = {"pots_0": 852207 * 2520 + 10775 * 1260, "pots_1": 849322 * 2520 + 10775 * 1260}
    summary = {"wins_0": 852207, "ties_0": 10775, "wins_1": 849322, "ties_1": 10775, **pots}
    frame = results.frame_from_records(
        [record("c-versus", "PASS", summary), record("python-swar", "SKIP", None)], "r1", {}
    )
    table = report.versus_table(frame).table.set_index("implementation")
    assert table.loc["c-versus", "AhKh equity_%"] == pytest.approx(table.loc["c-versus", "AhKh published_%"], abs=5e-3)
    assert table.loc["c-versus", "2d2c wins"] == table.loc["c-versus", "2d2c published wins"] == 849322
    assert table.loc["python-swar", "status"] == "SKIP"


deals = st.lists(st.integers(0, 51), min_size=8, max_size=12, unique=True)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deals, st.integers(2, 4), st.integers(3, 5))
def test_versus_full_enumerations_of_known_turns_and_rivers_match_the_reference(cards, players, dealt):
    # any 2-4 hands over every river (or turn and river) completing a dealt board: the walk of each family against
    # the plain evaluator on the boards listed
    players = min(players, (len(cards) - dealt) // 2)
    hands = [(1 << cards[2 * p]) | (1 << cards[2 * p + 1]) for p in range(players)]
    known = sum(1 << c for c in cards[2 * players : 2 * players + dealt])
    inputs = versus.versus_inputs(hands, known)
    expected = versus.reference(inputs)
    from swarbench import features

    assert expected[:, 0].sum() <= versus.n_boards(hands, known)  # a board is won alone by one hand at most
    assert expected[:, 2].sum() == versus.LCM * versus.n_boards(hands, known)  # every pot is shared out whole
    for impl in VERSUS:
        if features.unavailable(impl.requires):
            continue
        batch = impl.prepare(Workload("poker.versus", "test", 1, inputs))
        assert np.asarray(batch()).tolist() == expected.tolist(), impl.name
