"""The timed code and its limits (swarbench.explain): parsing recorded objdump, Numba and llvm-mca outputs, the
loops and hot loop found in them, the CPU named for llvm-mca, and the arithmetic of the limits. No timing is
asserted. The recorded outputs in tests/explain_data/ were made on the 2-vCPU AMD EPYC (Zen 5) VM the suite
was developed on: objdump 2.40 of the cards suite's c-swar, c-swar-avx2 and c-loop modules, Numba 0.68's assembly of
contains_swar, llvm-mca 19.1.7 (-mcpu=znver5) and 14.0.6 (-mcpu=znver3) on the AVX2 loop."""

import math
import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from swarbench.explain import asm, bandwidth, limits, mca
from swarbench.explain.case import ops_per_iteration
from swarbench.runfolder import EXPLAIN_COLUMNS

DATA = Path(__file__).parent / "explain_data"


def objdump_functions(name: str) -> dict:
    return asm.parse_objdump((DATA / name).read_text())


# ---- objdump --------------------------------------------------------------------------------------------------


def test_objdump_of_c_swar_parses_into_functions_and_its_one_loop_is_the_hot_loop():
    functions = objdump_functions("cards_swar.objdump")
    assert {"contains_batch", "remove_batch", "_cffi_f_contains_batch"} <= set(functions)
    contains = functions["contains_batch"]
    assert contains.instructions[0].address == 0x11D0 and contains.instructions[0].text == "test %rcx,%rcx"
    branch = next(i for i in contains.instructions if i.address == 0x1204)
    assert (branch.mnemonic, branch.target, branch.target_name) == ("jne", 0x11E8, "contains_batch+0x18")
    (loop,) = asm.loops(contains)
    assert loop.header == 0x11E8 and loop.innermost
    assert [hex(a) for a in loop.addresses] == [
        "0x11e8",
        "0x11ec",
        "0x11ef",
        "0x11f3",
        "0x11f6",
        "0x11f9",
        "0x11fd",
        "0x1201",
        "0x1204",
    ]
    cost = asm.cost(contains, loop)
    assert (cost.instructions, cost.loaded, cost.stored, cost.vector_bytes, cost.calls) == (9, 16, 1, 8, 0)


def test_the_cffi_wrapper_reaches_the_function_through_the_plt_and_its_free_loop_is_not_the_hot_one():
    functions = objdump_functions("cards_swar.objdump")
    reached = [f.name for f in asm.reachable(functions, "_cffi_f_contains_batch")]
    assert reached[:2] == ["_cffi_f_contains_batch", "contains_batch"]
    hot_function, loop = asm.hot_loop(functions[n] for n in reached)
    assert hot_function.name == "contains_batch" and loop.header == 0x11E8  # the wrapper's loop calls PyObject_Free


def test_a_backward_jump_to_a_block_that_does_not_dominate_it_is_no_loop():
    """c-swar-avx2: the cold path at 0x1440 jumps back to 0x13a2, after the vector loop; only 0x1368 loops."""
    contains = objdump_functions("cards_avx2.objdump")["contains_batch"]
    jump = next(i for i in contains.instructions if i.address == 0x1442)
    assert jump.mnemonic == "jmp" and jump.target == 0x13A2
    assert [lp.header for lp in asm.loops(contains)] == [0x1368]
    cost = asm.cost(contains, asm.loops(contains)[0])
    assert (cost.instructions, cost.loaded, cost.stored, cost.vector_bytes) == (10, 68, 4, 32)


def test_a_loop_whose_early_exits_return_through_a_cold_block_after_the_padding_is_found():
    """c-loop (cards.contains): each of 15 early exits jumps to 0x1280, past the ``ret`` and a ``nop`` of
    padding, and that block jumps back into the loop. The padding is no entry of its own, so 0x11e8 still
    dominates the loop's body."""
    contains = objdump_functions("cards_loop.objdump")["contains_batch"]
    (loop,) = asm.loops(contains)
    assert loop.header == 0x11E8 and 0x1280 in loop.addresses and 0x127F not in loop.addresses
    assert asm.cost(contains, loop).stored == 1


def test_loops_behind_an_indirect_jump_are_found_too():
    """A jump table's cases are reached only through ``jmp *``: their loops still count."""
    text = """
0000000000001000 <f>:
    1000:\tnotrack jmp *%rax
    1003:\tadd    $0x1,%rcx
    1007:\tcmp    %rcx,%rdx
    100a:\tjne    1003 <f+0x3>
    100c:\tret
"""
    (loop,) = asm.loops(asm.parse_objdump(text)["f"])
    assert loop.header == 0x1003 and len(loop.addresses) == 3


def test_the_sampled_hot_loop_is_the_one_most_samples_fell_in():
    functions = objdump_functions("cards_avx2.objdump")
    samples = Counter({0x1386: 40, 0x1375: 20, 0x13D2: 3, 0x1435: 7})
    _, loop, hits = asm.sampled_hot_loop(functions.values(), samples)
    assert loop.header == 0x1368 and hits == 60
    assert asm.sampled_hot_loop(functions.values(), Counter({0x1435: 9})) is None


def test_a_long_call_is_sampled_about_as_many_times_as_a_short_stretch_of_calls():
    import time

    from swarbench.explain import sampling

    assert sampling.interval_us(0.001) == sampling.interval_us(sampling.SAMPLE_FOR_S) == sampling.INTERVAL_US
    assert sampling.interval_us(2.0) == 2 * sampling.interval_us(1.0)
    samples, taken, why = sampling.sample(lambda: time.sleep(0.4), 0.4)
    if samples is None:
        pytest.skip(why)
    assert 0 < taken <= 1.1 * sampling.SAMPLES  # every 200 us, it would be about 2,000


def test_the_loop_is_handed_to_llvm_mca_as_att_text_with_its_branch_on_a_label():
    contains = objdump_functions("cards_avx2.objdump")["contains_batch"]
    source = asm.mca_source(contains, asm.loops(contains)[0].addresses)
    assert source == (DATA / "avx2_loop.s").read_text()
    assert "jae .Lloop" in source and "<" not in source and "#" not in source


def test_listing_marks_the_hot_loop_and_keeps_a_window_of_a_long_function():
    contains = objdump_functions("cards_swar.objdump")["contains_batch"]
    rows = asm.listing(contains, asm.loops(contains)[0])
    assert [r[0] for r in rows if r[2] == ">"] == [
        "11e8",
        "11ec",
        "11ef",
        "11f3",
        "11f6",
        "11f9",
        "11fd",
        "1201",
        "1204",
    ]
    assert rows[0] == ["11d0", "test    %rcx,%rcx", ""]
    long = asm.listing(contains, asm.loops(contains)[0], most=6)
    assert len(long) == 6 and any(r[2] for r in long)


@pytest.mark.parametrize(
    "text, moved",
    [
        ("sete (%rdx,%rax,1)", (0, 1)),
        ("mov (%rdi,%rax,8),%r8", (8, 0)),
        ("mov %edx,-0x4(%rsi,%rax,1)", (0, 4)),
        ("sub (%rsi,%rax,8),%r8", (8, 0)),
        ("add %rax,(%rdx)", (8, 8)),
        ("cmp %r9,(%rax)", (8, 0)),
        ("movzbl (%rax),%edx", (1, 0)),
        ("vpor -0x20(%r8,%rax,8),%ymm1,%ymm0", (32, 0)),
        ("vmovdqu64 %zmm0,(%rdi)", (0, 64)),
        ("vpbroadcastq (%rax),%ymm0", (8, 0)),
        ("vpaddq (%rax){1to8},%zmm1,%zmm2", (8, 0)),
        ("vmovq %xmm1,(%r13,%r8)", (0, 8)),
        ("movb $0x1,(%rax)", (0, 1)),
        ("lea 0x8(%rax),%rbx", (0, 0)),
        ("nopw 0x0(%rax,%rax,1)", (0, 0)),
    ],
)
def test_bytes_an_instruction_loads_and_stores(text, moved):
    mnemonic, _, operands = text.partition(" ")
    assert asm.memory_access(asm.Instruction(0, mnemonic, operands)) == moved


# ---- Numba's assembly (LLVM's printout) ----------------------------------------------------------------------


def test_numbas_assembly_parses_and_its_hot_loop_is_the_avx512_one():
    functions = asm.parse_llvm((DATA / "contains_swar.numba.s").read_text())
    (name,) = functions
    assert "contains_swar" in name
    function = functions[name]
    assert function.numbered and ".LBB0_8" in function.labels.values()
    inner = [lp for lp in asm.loops(function) if lp.innermost]
    assert len(inner) == 4
    hot_function, loop = asm.hot_loop([function])
    assert hot_function is function and function.labels[loop.header] == ".LBB0_8"
    cost = asm.cost(function, loop)
    assert (cost.instructions, cost.loaded, cost.stored, cost.vector_bytes) == (26, 512, 32, 64)
    assert ops_per_iteration(cost, 1.0, 16.0) == (32.0, "its stores: 32 bytes an iteration, 1 an op")


def test_a_loop_inside_one_op_is_set_in_the_loop_around_it_that_stores_the_outputs():
    """Two loops: the inner one (0x1010) adds up four values and stores nothing; the outer one stores a byte an
    iteration, one op. Their samples, and one speed for every instruction, say the inner runs four times an op."""
    from swarbench.explain.case import nested

    text = """
0000000000001000 <f>:
    1000:\txor    %eax,%eax
    1002:\tmov    %rcx,(%rsp)
    1006:\txor    %edx,%edx
    1010:\tadd    (%rdi,%rdx,8),%rax
    1014:\tadd    $0x1,%rdx
    1018:\tcmp    $0x4,%rdx
    101c:\tjne    1010 <f+0x10>
    101e:\tmov    %al,(%rsi,%rcx,1)
    1022:\tadd    $0x1,%rcx
    1026:\tcmp    %rcx,%r8
    1029:\tjne    1002 <f+0x2>
    102b:\tret
"""
    function = asm.parse_objdump(text)["f"]
    inner = next(lp for lp in asm.loops(function) if lp.innermost)
    ((outer, children, own),) = asm.nest(function, inner)
    assert outer.header == 0x1002 and children == [inner] and own == [0x1002, 0x1006, 0x101E, 0x1022, 0x1026, 0x1029]
    taken = Counter(
        {0x1010: 40, 0x1014: 40, 0x1018: 40, 0x101C: 40, 0x101E: 15, 0x1022: 15, 0x1026: 10, 0x1029: 20}
    )  # 160 samples on 4 instructions, 60 on the 6 of its own: 4 runs an op
    around, estimate = nested(function, inner, taken, 1.0, None)
    assert around == outer and estimate["ops_per_iteration"] == 1.0  # the spill to the stack is no output
    assert estimate["nest"]["inner"][0]["runs_per_outer_iteration"] == 4.0
    assert estimate["instructions_per_op"] == pytest.approx(6 + 4 * 4)
    few = Counter({a: k for a, k in taken.items() if 0x1010 <= a <= 0x101C}) + Counter({0x1022: 3})
    refused = nested(function, inner, few, 1.0, None)  # 3 samples of its own tell no count, and it says so
    assert refused == (
        "the loop around it, at 1002, stores the outputs, but 3 of the samples fell in its own instructions, "
        "too few to tell how often this one runs in it (30 needed)"
    )


def test_operations_an_iteration_from_stores_then_loads_else_unknown():
    assert ops_per_iteration(asm.LoopCost(10, 68, 4, 32, 0), 1.0, 16.0)[0] == 4
    assert ops_per_iteration(asm.LoopCost(53, 120, 0, 8, 0), 1.0, 128.0)[0] == pytest.approx(0.9375)
    ops, why = ops_per_iteration(asm.LoopCost(47, 0, 0, 8, 0), 1.0, None)
    assert ops is None and why.startswith("unknown")
    assert ops_per_iteration(asm.LoopCost(5, 99, 0, 8, 0), 1.0, None)[0] is None  # loads of a table, not a stream


# ---- llvm-mca ---------------------------------------------------------------------------------------------------


def test_llvm_mca_19_output_parses_into_cycles_and_its_bottleneck():
    p = mca.parse((DATA / "mca19_znver5_avx2_loop.txt").read_text())
    assert p.cycles_per_iteration == pytest.approx(1.770)  # 1770 cycles over 1000 iterations
    assert (p.block_rthroughput, p.uops_per_iteration, p.dispatch_width) == (1.7, 10.0, 6)
    assert p.pressure["Zn4LSU"] == pytest.approx(1.667, abs=0.01)  # three units taken together
    assert p.bottleneck.startswith("Zn4LSU (1.67")


def test_llvm_mca_14_output_parses_the_same_way():
    p = mca.parse((DATA / "mca14_znver3_avx2_loop.txt").read_text())
    assert p.dispatch_width == 6 and p.cycles_per_iteration == pytest.approx(1.771)
    assert p.bottleneck.startswith("Zn3LSU")


def test_bottleneck_is_dispatch_a_resource_or_a_dependency_chain():
    def prediction(cycles, uops, pressure):
        p = mca.Prediction(cycles, 0.0, uops, 4, pressure)
        return mca.bottleneck(p)

    assert prediction(2.0, 8, {"P0": 1.0}).startswith("dispatch")
    assert prediction(3.0, 4, {"P0": 3.0, "P1": 2.99, "Q": 1}) == "P0/1 (3 cycles busy an iteration)"
    assert prediction(10.0, 4, {"P0": 2.0}).startswith("dependencies from one iteration to the next")
    assert mca.parse("no summary here") is None


def test_cpu_names_for_llvm():
    assert mca.cpu_of("AuthenticAMD", 0x1A, 2) == "znver5"
    assert mca.cpu_of("AuthenticAMD", 0x19, 0x11) == "znver4"
    assert mca.cpu_of("AuthenticAMD", 0x19, 0x01) == "znver3"
    assert mca.cpu_of("AuthenticAMD", 0x17, 0x31) == "znver2"
    assert mca.cpu_of("GenuineIntel", 6, 0x55, 4) == "skylake-avx512"
    assert mca.cpu_of("GenuineIntel", 6, 0x55, 7) == "cascadelake"
    assert mca.cpu_of("GenuineIntel", 6, 0x8F) == "sapphirerapids"
    assert mca.cpu_of("GenuineIntel", 6, 0x01) == "" and mca.cpu_of("ARM", 8, 1) == ""


def test_a_cpu_the_version_does_not_know_is_predicted_as_its_nearest_older_relative_and_said(monkeypatch):
    old = mca.Tool("/x/llvm-mca-14", "14.0.6", "")
    monkeypatch.setattr(mca, "known_cpus", lambda tool: frozenset({"znver1", "znver2", "znver3", "skylake"}))
    cpu, note = mca.choose_cpu(old, ("AuthenticAMD", 0x1A, 2, 0))
    assert cpu == "znver3" and "znver5 is unknown to llvm-mca 14.0.6" in note
    assert mca.choose_cpu(old, ("AuthenticAMD", 0x17, 0x31, 0)) == ("znver2", "")
    unsure = mca.Tool("/x/llvm-mca", "19.1.7", "skylake")
    cpu, note = mca.choose_cpu(unsure, ("GenuineIntel", 6, 0x01, 0))
    assert cpu == "skylake" and "own guess of this host" in note
    cpu, note = mca.choose_cpu(old, ("ARM", 8, 1, 0))
    assert cpu == "" and "knows no model" in note


def test_llvm_mca_hidden_is_said_in_a_line(monkeypatch):
    monkeypatch.setenv(mca.MCA_ENV, "")
    mca.find.cache_clear()
    try:
        tool, why = mca.find()
        assert tool is None and mca.MCA_ENV in why
    finally:
        mca.find.cache_clear()


@pytest.mark.skipif(
    not shutil.which("llvm-mca") and not any(shutil.which(f"llvm-mca-{n}") for n in range(10, 40)),
    reason="no llvm-mca on this machine",
)
def test_the_newest_llvm_mca_here_predicts_the_recorded_loop():
    mca.find.cache_clear()
    tool, why = mca.find()
    assert tool is not None, why
    cpu, _ = mca.choose_cpu(tool)
    prediction, why = mca.predict(tool, cpu or "generic", (DATA / "avx2_loop.s").read_text())
    assert prediction is not None, why
    assert prediction.uops_per_iteration >= 10 and prediction.cycles_per_iteration > 0


# ---- the limits -------------------------------------------------------------------------------------------------

LEVELS = [
    {"level": "L1", "bytes": 48 << 10, "read_gbs": 200.0, "write_gbs": 100.0},
    {"level": "L2", "bytes": 1 << 20, "read_gbs": 80.0, "write_gbs": 40.0},
    {"level": "L3", "bytes": 32 << 20, "read_gbs": 40.0, "write_gbs": 20.0},
    {"level": "DRAM", "bytes": 0, "read_gbs": 10.0, "write_gbs": 5.0},
]


def test_limit_arithmetic():
    assert limits.core_limit(2.0, 4.0, 2.0) == (0.5, 0.25)
    assert all(math.isnan(x) for x in limits.core_limit(2.0, None, 2.0))
    assert math.isnan(limits.core_limit(2.0, 1.0, float("nan"))[1])
    assert limits.memory_limit(16, 1, LEVELS[1]) == pytest.approx(16 / 80 + 1 / 40)
    assert math.isnan(limits.memory_limit(16, 1, None))
    assert limits.binding(0.25, 0.3) == ("memory", 0.3)
    assert limits.binding(0.5, float("nan")) == ("core", 0.5)
    assert limits.binding(float("nan"), float("nan"))[0] == ""
    assert limits.verdict("core", "", 0.85) == "at 85% of the predicted core limit"
    assert limits.verdict("memory", "L3", 1 / 3) == "3.0x over: memory-bound (L3)"
    assert limits.verdict("core", "", 1.3) == "at 130% of the predicted core limit"


def test_the_level_a_working_set_fits_sets_the_bandwidth():
    assert bandwidth.level_for(LEVELS, 20_000)["level"] == "L1"
    assert bandwidth.level_for(LEVELS, 1_100_000)["level"] == "L2"  # a quarter over a level is still its
    assert bandwidth.level_for(LEVELS, 2_000_000)["level"] == "L3"
    assert bandwidth.level_for(LEVELS, 1 << 30)["level"] == "DRAM"
    assert bandwidth.level_for([], 10) is None


def test_probes_are_merged_by_the_best_each_level_showed():
    kept = {"levels": [dict(lv) for lv in LEVELS], "measured": 1}
    new = {"levels": [{"level": "L1", "bytes": 48 << 10, "read_gbs": 150.0, "write_gbs": 120.0}], "measured": 2}
    merged = bandwidth.best_of(kept, new)
    assert merged["levels"][0]["read_gbs"] == 200.0 and merged["levels"][0]["write_gbs"] == 120.0
    assert merged["levels"][3] == LEVELS[3] and merged["measured"] == 2
    assert bandwidth.best_of(None, new) is new


def test_working_sets_probe_each_level_above_the_one_below_and_dram_beyond_the_last():
    sets = bandwidth.working_sets({"L1": 48 << 10, "L2": 1 << 20, "L3": 32 << 20})
    assert [s[0] for s in sets] == ["L1", "L2", "L3", "DRAM"]
    assert sets[0][2] == 24 << 10 and sets[1][2] > 48 << 10 and sets[3][2] >= 128 << 20


EXPLAIN = {
    "bytes_read_per_op": 16.0,
    "bytes_written_per_op": 1.0,
    "working_set_bytes": 1_114_112,
    "function": "contains_batch",
    "origin": "objdump -d m.so",
    "sha256": "ab" * 32,
    "loop": {"header": "11e8", "instructions": 9},
    "ops_per_iteration": 1.0,
    "instructions_per_op": 9.0,
    "mca": {
        "tool": "llvm-mca 19.1.7",
        "cpu": "znver5",
        "cpu_note": "",
        "cycles_per_iteration": 2.35,
        "bottleneck": "Zn4ALU0/3 (2.08 cycles busy an iteration)",
    },
}


def test_columns_set_a_row_against_both_limits_and_name_the_one_that_binds():
    machine = {"bandwidth": {"levels": LEVELS}}
    row = limits.columns(EXPLAIN, machine, measured_ns=2.0, clock_ghz=2.5, counts={"hw_branch_misses_per_op": 0.01})
    assert row["core_limit_cycles_per_op"] == pytest.approx(2.35)
    assert row["core_limit_ns_per_op"] == pytest.approx(0.94)
    assert row["memory_level"] == "L2" and row["memory_limit_ns_per_op"] == pytest.approx(16 / 80 + 1 / 40)
    assert row["limit_bound"] == "core" and row["limit_share"] == pytest.approx(0.47)
    assert row["limit_text"] == "2.1x over: core-bound"
    assert row["core_model"] == "llvm-mca 19.1.7 -mcpu=znver5" and row["hw_branch_misses_per_op"] == 0.01
    assert row["explain_missing"] == "" and set(row) == set(EXPLAIN_COLUMNS)


def test_columns_say_why_a_limit_is_missing():
    no_mca = dict(EXPLAIN, mca=None, missing="no llvm-mca (SWARBENCH_LLVM_MCA is empty)")
    row = limits.columns(no_mca, {"bandwidth": {"missing": "no bandwidth probe: no C compiler"}}, 2.0, 2.5, {})
    assert math.isnan(row["core_limit_ns_per_op"]) and math.isnan(row["memory_limit_ns_per_op"])
    assert row["limit_text"] == "" and math.isnan(row["limit_share"])
    assert "no llvm-mca" in row["explain_missing"] and "no C compiler" in row["explain_missing"]
    unknown_ops = dict(EXPLAIN, ops_per_iteration=None, ops_from="unknown: the loop stores nothing")
    row = limits.columns(unknown_ops, {"bandwidth": {"levels": LEVELS}}, 2.0, 2.5, {})
    assert row["limit_bound"] == "" and "operations an iteration unknown" in row["explain_missing"]
    assert row["limit_text"].endswith("x over the memory limit (L2); no core limit")  # which binds is not claimed
    assert limits.columns(None, {}, 2.0, 2.5, {})["code_function"] == ""


# ---- on this machine -------------------------------------------------------------------------------------------


def test_the_tools_count_of_the_c_swar_loop_matches_a_plain_reading_of_objdump(tmp_path):
    """The hot loop `swarbench asm` reports for cards.contains c-swar has as many instructions as objdump's own
    lines from the loop's branch target to the branch back, read without the module's parser."""
    from conftest import swarbench

    if not shutil.which("objdump"):
        pytest.skip("no objdump here")
    env = dict(os.environ, SWARBENCH_REPORTS=str(tmp_path / "reports"))
    out = swarbench("asm", "cards.contains", "c-swar", "--now", env=env)
    if out.returncode != 0 and "cannot run on this machine" in out.stderr:
        pytest.skip(out.stderr.strip())
    assert out.returncode == 0, out.stderr
    module = re.search(r"from objdump -d (\S+\.so)", out.stdout).group(1)
    counted = re.search(r"hot loop at (\w+): (\d+) instructions", out.stdout)
    from swarbench.cbuild import cache_dir

    text = subprocess.run(
        ["objdump", "-d", str(cache_dir() / module)], check=True, capture_output=True, text=True
    ).stdout
    body = text.split("<contains_batch>:", 1)[1].split("\n\n", 1)[0].splitlines()
    # an instruction's line has address, bytes and mnemonic; a long one's further bytes follow on a line without
    addresses = [
        int(line.split(":")[0], 16) for line in body if re.match(r"\s+[0-9a-f]+:", line) and line.count("\t") >= 2
    ]
    back = next(
        line
        for line in body
        if re.search(r"\sj\w+\s+[0-9a-f]+ <contains_batch\+", line)
        and int(line.split()[-2], 16) < int(line.split(":")[0], 16)
    )
    start, end = int(back.split()[-2], 16), int(back.split(":")[0], 16)
    assert int(counted.group(1), 16) == start
    assert int(counted.group(2)) == sum(start <= a <= end for a in addresses)
    assert sum(1 for line in out.stdout.splitlines() if line.startswith(">")) == int(counted.group(2))


def test_a_search_called_on_a_thread_of_its_own_is_shown_without_operations_an_iteration(tmp_path):
    """mastermind.knuth's C rows call their search on a thread of their own (to report progress meanwhile): the
    code is found there. A game is a whole search (Kernel.op_is_element false), so its loop's stores say nothing
    of ops an iteration: none are counted, and the listing says why."""
    from conftest import swarbench

    if not shutil.which("objdump"):
        pytest.skip("no objdump here")
    env = dict(os.environ, SWARBENCH_REPORTS=str(tmp_path / "reports"))
    out = swarbench("asm", "mastermind.knuth", "c-sse2", "--now", "--workload", "shared-4p6c", env=env)
    if out.returncode != 0 and "cannot run on this machine" in out.stderr:
        pytest.skip(out.stderr.strip())
    assert out.returncode == 0, out.stderr
    # gcc names a part of a function it splits off as its own (knuth_shared.part.0)
    assert re.search(r"^code: [\w.]+, from objdump -d \S+\.so$", out.stdout, re.M), out.stdout[:2000]
    assert re.search(
        r"hot loop at \w+: \d+ instructions an iteration, unknown ops an iteration \(not counted: an op of this "
        r"kernel is a whole computation",
        out.stdout,
    ), out.stdout[:2000]
    assert "instructions per op" not in out.stdout


def test_a_row_far_faster_than_its_predicted_core_limit_is_not_claimed_against_it():
    row = limits.columns(EXPLAIN, {"bandwidth": {"levels": LEVELS}}, measured_ns=0.1, clock_ghz=2.5, counts={})
    assert row["limit_bound"] == "" and math.isnan(row["limit_share"])
    assert row["limit_text"].startswith("faster than its predicted core limit (9.4x)")
    assert "misjudged" in row["explain_missing"]


# ---- a run, with the tools and without ------------------------------------------------------------------------

RUN = [
    "run",
    "-k",
    "cards.contains",
    "-i",
    "c-swar",
    "-i",
    "numba-swar",
    "-n",
    "4096",
    "--max-time",
    "0.005",
    "--passes",
    "2",
    "--processes",
    "1",
    "--no-overhead",
    "-q",
]


def _needs_c_and_numba():
    from swarbench import features

    why = features.unavailable(("cc", "module:numba"))
    if why:
        pytest.skip(why)


@pytest.fixture(scope="module")
def explained_run(tmp_path_factory):
    """One small run of c-swar and numba-swar with this machine's tools, as it has them."""
    from conftest import cli_env, swarbench

    _needs_c_and_numba()
    tmp = tmp_path_factory.mktemp("explained")
    env = cli_env(tmp)
    proc = swarbench(*RUN, env=env)
    assert proc.returncode == 0, proc.stderr
    return env, proc.stdout, next(Path(env["SWARBENCH_REPORTS"]).iterdir())


def _limits_table(text: str) -> dict:
    """The rows of the text report's limits table, by implementation."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("implementation ") and "instr/op" in line)
    rows = {}
    for line in lines[start + 1 :]:
        if not line.startswith("  ") or line.startswith("    "):
            break
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = cells
    return rows


@pytest.mark.slow
def test_a_run_shows_each_c_and_numba_row_against_its_limits(explained_run):
    from swarbench import counters

    _, text, run_dir = explained_run
    assert "Limits of the timed code" in text
    rows = _limits_table(text)
    assert set(rows) == {"c-swar", "numba-swar"}
    frame = __import__("pandas").read_csv(run_dir / "results.csv")
    for impl in ("c-swar", "numba-swar"):
        r = frame[frame.implementation == impl].iloc[0]
        assert r.instructions_per_op > 0 and r.memory_limit_ns_per_op > 0 and r.code_sha256
        assert rows[impl][1] != "-"  # instructions per op shown
        if isinstance(r.core_model, str) and r.core_model:
            assert r.core_limit_cycles_per_op > 0 and r.limit_text
            # a row measured well under its predicted limit (an older llvm-mca's model of a newer core) says so
            # and is given no share of it
            assert r.limit_share > 0 or r.limit_text.endswith("the prediction does not hold")
    # hardware counters: one line says what the machine lacks, once, where it lacks them
    assert text.count("counters: ") == (1 if counters.unavailable() else 0)


def test_asm_prints_the_code_the_run_timed_with_its_module_hash(explained_run):
    from conftest import swarbench

    env, _, run_dir = explained_run
    out = swarbench("asm", "cards.contains", "c-swar", env=env)
    assert out.returncode == 0, out.stderr
    assert f"timed by run {run_dir.name}" in out.stdout
    module = re.search(r"from objdump -d (\S+\.so)", out.stdout).group(1)
    from swarbench.cbuild import cache_dir
    from swarbench.explain.timed_code import file_sha256

    assert f"sha256: {file_sha256(str(cache_dir() / module))}" in out.stdout
    assert any(line.startswith(">") for line in out.stdout.splitlines())
    numba = swarbench("asm", "cards.contains", "numba-swar", "--run", run_dir.name, env=env)
    assert numba.returncode == 0 and "its machine code as loaded" in numba.stdout, numba.stderr


def test_asm_refuses_what_it_cannot_show_in_one_line(explained_run):
    from conftest import assert_one_line_error, swarbench

    env, _, run_dir = explained_run
    assert_one_line_error(swarbench("asm", "cards.nothing", "c-swar", env=env), "no kernel 'cards.nothing'")
    assert_one_line_error(swarbench("asm", "cards.contains", "c-nothing", env=env), "no implementation 'c-nothing'")
    assert_one_line_error(
        swarbench("asm", "cards.contains", "c-loop", "--run", run_dir.name, env=env),
        "has no timed code of cards.contains c-loop",
    )


@pytest.mark.parametrize(
    "hidden, reason, without",
    [
        ("SWARBENCH_LLVM_MCA", "no llvm-mca", {"c-swar", "numba-swar"}),
        # Numba's code is then read from LLVM's printout of it instead of its bytes in memory
        ("SWARBENCH_OBJDUMP", "no disassembler", {"c-swar"}),
    ],
)
@pytest.mark.slow
def test_without_llvm_mca_or_objdump_the_run_passes_and_says_why_a_column_is_missing(tmp_path, hidden, reason, without):
    from conftest import cli_env, swarbench

    _needs_c_and_numba()
    env = cli_env(tmp_path, **{hidden: ""})
    proc = swarbench(*RUN, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = _limits_table(proc.stdout)
    assert set(rows) == {"c-swar", "numba-swar"}
    assert all(rows[impl][2] == "-" for impl in without)  # no core limit, and a line below says why
    note = next(
        line for line in proc.stdout.replace("\n      ", " ").splitlines() if line.strip().startswith(f"- {reason}")
    )
    assert set(note.rsplit(": ", 1)[1].split(", ")) == without
    frame = __import__("pandas").read_csv(next(Path(env["SWARBENCH_REPORTS"]).iterdir()) / "results.csv")
    rows = frame[frame.implementation.isin(sorted(without))]
    assert rows.explain_missing.str.contains(reason).all() and (rows.memory_limit_ns_per_op > 0).all()


def test_no_explain_keeps_the_memory_limit_and_says_why_the_code_was_not_read(tmp_path):
    """`--no-explain`: the batch is not called again, so no code, no core limit; each compiled row says why."""
    from conftest import cli_env, swarbench

    _needs_c_and_numba()
    env = cli_env(tmp_path)
    proc = swarbench(*RUN, "--no-explain", env=env)
    assert proc.returncode == 0, proc.stderr
    frame = __import__("pandas").read_csv(next(Path(env["SWARBENCH_REPORTS"]).iterdir()) / "results.csv")
    for impl in ("c-swar", "numba-swar"):
        r = frame[frame.implementation == impl].iloc[0]
        assert r.status == "PASS" and r.explain_missing == "its code was not read: the run was given --no-explain"
        assert r.memory_limit_ns_per_op > 0 and not isinstance(r.code_sha256, str)


@pytest.mark.slow
def test_with_two_workers_the_first_reads_the_code_and_the_second_only_times(tmp_path):
    """The code and hot loop are the same in every worker of a run: the second worker does not call the batch
    again to sample it (its line says who reads it), and the merged row carries the first worker's reading."""
    import json

    from conftest import cli_env, swarbench

    _needs_c_and_numba()
    env = cli_env(tmp_path)
    two = [a if a != "1" or RUN[i - 1] != "--processes" else "2" for i, a in enumerate(RUN)]
    proc = swarbench(*two, env=env)
    assert proc.returncode == 0, proc.stderr
    run_dir = next(Path(env["SWARBENCH_REPORTS"]).iterdir())
    lines = [json.loads(s) for s in (run_dir / "records.jsonl").read_text().splitlines()]
    results = [r for r in lines if r.get("event") == "result"]
    by_worker = {(r["worker"], r["implementation"]): r["explain"] for r in results}
    for impl in ("c-swar", "numba-swar"):
        assert by_worker[(0, impl)]["called"] and "first worker" not in by_worker[(0, impl)].get("missing", "")
        assert by_worker[(1, impl)]["missing"] == "its code is read by the run's first worker"
        assert by_worker[(1, impl)]["bytes_read_per_op"] > 0  # the traffic is every worker's
    frame = __import__("pandas").read_csv(run_dir / "results.csv")
    for impl in ("c-swar", "numba-swar"):
        r = frame[frame.implementation == impl].iloc[0]
        assert "first worker" not in str(r.explain_missing)
        assert r.instructions_per_op > 0 and r.code_sha256


def test_a_reading_of_unchanged_code_is_kept_and_read_back_without_sampling_again(tmp_path, monkeypatch):
    """The hot loop is found by sampling extra calls; the next run of the same code on the same machine reads the
    reading back (the same loop, said the same way) instead of sampling again, and other code is sampled anew."""
    import types

    import numpy as np

    _needs_c_and_numba()
    import numba
    from swarbench.explain import case, sampling

    monkeypatch.setenv("SWARBENCH_CACHE", str(tmp_path / "cache"))
    taken = []
    real = sampling.sample
    monkeypatch.setattr(sampling, "sample", lambda batch, call_s: taken.append(call_s) or real(batch, call_s))

    @numba.njit(cache=False)
    def double_all(a, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * 2

    a, out = np.arange(1 << 16, dtype=np.uint64), np.empty(1 << 16, np.uint64)
    batch = lambda: double_all(a, out)  # noqa: E731
    batch()
    workload = types.SimpleNamespace(input_bytes=a.nbytes)
    first = case.explain_case(batch, 1e-4, "numba", workload, out, len(a))
    again = case.explain_case(batch, 1e-4, "numba", workload, out, len(a))
    assert len(taken) == 1 and first["hot_from"].startswith("sampled") and again == first
    other = case.explain_case(batch, 1e-4, "numba", workload, out, len(a) // 2)  # another size: sampled anew
    assert len(taken) == 2 and other["hot_from"].startswith("sampled")
