"""The cephalopod suite: rules, the contest's data, every family against the reference, bad input, the client."""

import argparse
import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarbench import InvalidInput, Workload, cli, features, oracle, registry, results
from swarbench.errors import UsageError
from swarbench.suites.cephalopod import command, python, report, spec, tables

DATA = Path(spec.__file__).parent / "data" / "cephalopod_cases.csv"
REG = registry.load()
KERNEL = REG.kernels["cephalopod.hashsum"]
IMPLS = {i.name: i for i in REG.implementations_of(KERNEL.id)}
FAST = [
    n
    for n in (
        "numba-bfs",
        "numba-sym",
        "numba-fast",
        "c-hash",
        "c-lut",
        "c-sym",
        "c-direct",
        "c-avx2",
        "c-avx2-prefetch",
        "c-fast",
        "c-fast-fresh",
        "c-fast-mmap",
        "c-fast-nt",
        "c-fast-pf32",
        "c-fast-pf1024",
        "c-fast-byte-forms",
        "c-fast-cell-loop",
        "c-fast-cores",
        "c-fast-kept",
        "c-fast-split",
        "c-fast-split-deal",
    )
    if not features.unavailable(IMPLS[n].requires)
]


def _rows():
    with open(DATA) as fh:
        return [
            dict(r, depth=int(r["depth"]), expected=int(r["expected"]), path_count=int(r["path_count"]))
            for r in csv.DictReader(fh)
        ]


ROWS = _rows()
SMALL = [r for r in ROWS if r["path_count"] < 10**6 or r["name"] in ("cg_test_06", "empty_board_d12")]


def _inputs(rows):
    return spec.make_inputs([(r["depth"], spec.parse_board(r["board"])) for r in rows])


def _run(name, inputs):
    batch = IMPLS[name].prepare(Workload(KERNEL.id, "test", len(inputs["depth"]), inputs))
    return np.asarray(batch())


# -- the rules and the data ----------------------------------------------------------------------------------
def test_data_file_holds_what_the_spec_says():
    names = [r["name"] for r in ROWS]
    assert names[:12] == [f"cg_test_{i:02d}" for i in range(1, 13)]
    assert [r["name"] for r in ROWS if r["name"].startswith("empty_board")] == [
        f"empty_board_d{d:02d}" for d in range(21)
    ]
    # the kernel's official workload is the contest's twelve tests, as the data file records them
    for (name, depth, board, expected), row in zip(spec.OFFICIAL, ROWS):
        assert (name, depth, board, expected) == (row["name"], row["depth"], row["board"], row["expected"])


@pytest.mark.slow
def test_reference_reaches_the_published_answers_the_official_workload_is_checked_against():
    workload = KERNEL.make_workload(KERNEL.workload_kind("official"))
    published = oracle.reference_outputs(KERNEL, workload)
    assert published.tolist() == [v for *_, v in spec.OFFICIAL]
    assert spec.reference(workload.inputs).tolist() == published.tolist()


def test_reference_reproduces_the_small_and_medium_rows():
    got = spec.reference(_inputs(SMALL))
    assert got.tolist() == [r["expected"] for r in SMALL]


def test_exact_path_counts_match_the_data():
    # an answer the families do not compute: the number of paths, in arbitrary precision
    for r in SMALL:
        assert spec.path_count(r["depth"], spec.parse_board(r["board"])) == r["path_count"], r["name"]
    assert spec.path_count(8, spec.EMPTY, limit=10**5) is None  # 6,301,152 paths: cut off early


def test_rules_on_paper():
    # the centre between 1, 2, 3 (and an empty cell) captures {1,2}, {1,3}, {2,3} and {1,2,3}: four moves
    board = spec.parse_board("010 203 000")
    centre = [b for b in spec.successors(board) if b[4]]
    assert sorted(b[4] for b in centre) == [3, 4, 5, 6]
    assert sorted(b[1] + b[3] + b[5] for b in centre) == [0, 1, 2, 3]
    # two 6s cannot be captured (12 > 6): every empty cell takes a plain 1
    assert spec.successors(spec.parse_board("060 600 666")) == [
        spec.parse_board(b) for b in ("160 600 666", "061 600 666", "060 610 666", "060 601 666")
    ]
    assert spec.successors(spec.parse_board("123456123")) == []  # full: the game is over
    assert spec.solve_reference(5, spec.parse_board("123456123")) == 123456123


def test_symmetry_tables_form_the_group_of_the_square():
    for k, perm in enumerate(spec.PERMS):
        assert sorted(perm) == list(range(9)) and perm[4] == 4
        assert spec.COMPOSE[k][0] == k and spec.COMPOSE[0][k] == k
        assert 0 in spec.COMPOSE[k]  # every symmetry has an inverse
    board = spec.parse_board("123045600")
    for a in range(8):
        for b in range(8):
            assert spec.transform(spec.transform(board, b), a) == spec.transform(board, spec.COMPOSE[a][b])
    # moves commute with the symmetries (what lets a solver keep one board per class)
    for k in range(8):
        assert sorted(spec.successors(spec.transform(board, k))) == sorted(
            spec.transform(s, k) for s in spec.successors(board)
        )


def test_packed_tables_agree_with_the_rules():
    cells_tables = tables.python_moves(zeros=True)
    board = spec.parse_board("010 203 000")
    s = tables.pack(board)
    got = sorted(tables.unpack(s + d) for m, n, t in cells_tables if not s & m for d in t[s & n])
    assert got == sorted(spec.successors(board))
    assert tables.state_hash(tables.pack(board)) == spec.board_hash(board) == 10203000


@settings(max_examples=40, deadline=None)
@given(board=st.lists(st.integers(0, 6), min_size=9, max_size=9).map(tuple))
def test_byte_tables_give_the_eight_forms_and_their_hashes(board):
    s = tables.pack(board)
    u = [(s >> tables._outer_bit(q)) & 1 for q in range(24)]
    chunks = [sum(bit << q for q, bit in enumerate(u[8 * g : 8 * g + 8])) for g in range(3)]
    b = tables.byte_tables()
    for k in range(8):
        form = s & ~tables.OUTER_MASK  # the centre and the empty count stay
        for g in range(3):
            form |= int(b["land"][g, chunks[g], k])
        assert form == tables.pack(spec.transform(board, k))
        h = sum(int(b["hash"][g, chunks[g], k]) for g in range(3)) + board[4] * 10**4
        assert h == spec.board_hash(spec.transform(board, k))


@settings(max_examples=40, deadline=None)
@given(board=st.lists(st.integers(0, 6), min_size=9, max_size=9).map(tuple))
def test_row_hash_changes_sum_the_successors_hashes(board):
    # what c-fast sums instead of building the successors: moves x own hash + the rows of the empty cells
    moves, base, _ = tables.array_moves()
    rows = tables.row_hash_changes()
    succ = spec.successors(board)
    for k in range(8):
        own = spec.board_hash(spec.transform(board, k))
        total = 0
        for cell in range(9):
            if board[cell]:
                continue
            key = sum(board[n] << (3 * j) for j, n in enumerate(spec.NEIGHBOURS[cell]))
            row = base[cell] + key
            total += int(moves[row, 0]) * own + int(rows[row, k])
        assert total % (1 << 32) == sum(spec.board_hash(spec.transform(t, k)) for t in succ) % (1 << 32)


@pytest.mark.skipif(bool(features.unavailable(IMPLS["c-fast"].requires)), reason="needs a C compiler and AVX2")
def test_c_fast_grows_past_its_reservation():
    # a workspace with no reservation must grow its layers and table (and re-tag) and still be right
    from swarbench.cbuild import build
    from swarbench.suites.cephalopod import native

    mod = build("cephalopod_fast", native.C_DIR / "fast.c", native.FAST_CDEF, ("avx2", "bmi2"))
    arrays = tables.fast_tables()
    t = native._bind(mod.ffi, "fast_tables", arrays)
    work = mod.ffi.gc(mod.lib.fast_new(), mod.lib.fast_free)
    boards = mod.ffi.new("int64_t *")
    rows = [r for r in ROWS if r["name"] in ("cg_test_06", "cg_test_07", "empty_board_d20")]
    for r in rows * 2:  # the second round reuses the grown buffers
        got = mod.lib.fast_solve(work, t, tables.pack(spec.parse_board(r["board"])), r["depth"], boards)
        assert got == r["expected"], r["name"]
    d4 = next(r for r in ROWS if r["name"] == "empty_board_d04")
    # tables of 4 slots per parent from 16 up: layers outgrow their tables while being built, and are re-placed;
    # and layer tags that wrap after 7 layers, so that the table is cleared many times in one search
    tiny = build(
        "cephalopod_fast_tiny",
        native.C_DIR / "fast.c",
        native.FAST_CDEF,
        ("avx2", "bmi2"),
        ("-DTABLE_MUL=1", "-DTABLE_MIN=16", "-DTAG_MAX=7"),
    )
    t = native._bind(tiny.ffi, "fast_tables", arrays)
    work = tiny.ffi.gc(tiny.lib.fast_new(), tiny.lib.fast_free)
    for r in rows + [d4] * 5:
        assert (
            tiny.lib.fast_solve(work, t, tables.pack(spec.parse_board(r["board"])), r["depth"], boards) == r["expected"]
        ), r["name"]


@pytest.mark.skipif(bool(features.unavailable(IMPLS["c-fast-split"].requires)), reason="needs a C compiler and AVX2")
@pytest.mark.parametrize("threads", [1, 2])
def test_c_fast_split_grows_past_its_reservation(threads):
    # layers split over two threads (or kept on one) from a reservation of a few boards: each half grows its layers,
    # its table and the list of moves it hands over, and every answer is still right, again on the grown buffers
    # and with the tests dealt out whole
    from swarbench.cbuild import build
    from swarbench.suites.cephalopod import native

    rows = [
        r
        for r in ROWS
        if r["name"]
        in (
            "cg_test_03",
            "cg_test_06",
            "cg_test_07",
            "empty_board_d00",
            "empty_board_d01",
            "empty_board_d02",
            "empty_board_d20",
        )
    ]
    d4 = next(r for r in ROWS if r["name"] == "empty_board_d04")
    rows += [d4] * 5
    # then tables that layers outgrow while being built, and layer tags that wrap after 7 layers
    for flags in ((), ("-DTABLE_MUL=1", "-DTABLE_MIN=16", "-DTAG_MAX=7")):
        mod = build(
            "cephalopod_split" + ("_tiny" if flags else ""),
            native.C_DIR / "split.c",
            native.SPLIT_CDEF,
            ("avx2", "bmi2"),
            flags + (native._header_flag("fast.c"),),
        )
        ffi, lib = mod.ffi, mod.lib
        arrays = tables.fast_tables()
        t = native._bind(ffi, "fast_tables", arrays)
        pool = ffi.gc(lib.split_new(threads, 8, 16), lib.split_free)
        starts = np.array([tables.pack(spec.parse_board(r["board"])) for r in rows], np.uint32)
        depths = np.array([r["depth"] for r in rows], np.int32)
        answers, boards, seconds = np.zeros(len(rows), np.int64), np.zeros(len(rows), np.int64), np.zeros(len(rows))
        cast = lambda ctype, a: ffi.cast(ctype, ffi.from_buffer(a))  # noqa: E731
        order = np.arange(len(rows), dtype=np.int32)[::-1].copy()
        for n_split in (len(rows), 3, 0):  # every test split, the first three split and the rest dealt, all dealt
            answers[:] = -1
            assert (
                lib.split_solve_many(
                    pool,
                    t,
                    cast("uint32_t *", starts),
                    cast("int32_t *", depths),
                    cast("int32_t *", order),
                    len(rows),
                    n_split,
                    cast("int64_t *", answers),
                    cast("int64_t *", boards),
                    cast("double *", seconds),
                )
                == 0
            )
            assert answers.tolist() == [r["expected"] for r in rows]
            assert (seconds > 0).all()


@pytest.mark.skipif(bool(features.unavailable(IMPLS["numba-fast"].requires)), reason="needs numba")
def test_numba_fast_grows_past_its_workspace():
    # room for 8 boards and 16 slots, tables of one slot per parent from 16 up: the search starts again with
    # twice the room until it fits, and layers outgrow their tables while being built
    from swarbench.suites.cephalopod import jit

    work = jit.FastWorkspace(8, 16, table_min=16, table_mul=1)
    rows = [r for r in ROWS if r["name"] in ("cg_test_06", "cg_test_07", "empty_board_d20")]
    for r in rows * 2:
        assert work.solve(r["depth"], tables.pack(spec.parse_board(r["board"])))[0] == r["expected"], r["name"]
    assert work.grown > 0
    d4 = next(r for r in ROWS if r["name"] == "empty_board_d04")
    for _ in range(150):  # more stored layers than the 8-bit layer tag holds
        assert work.solve(4, tables.pack(spec.EMPTY))[0] == d4["expected"]


@pytest.mark.skipif(bool(features.unavailable(IMPLS["c-fast"].requires)), reason="needs a C compiler and AVX2")
@pytest.mark.parametrize("name", ["c-fast", "c-fast-cores", "c-fast-kept", "c-fast-split-deal"])
def test_mmap_and_thread_rows_skip_without_posix(monkeypatch, name):
    # c/fast.c maps its buffers and starts threads: on a machine without them its rows are a SKIP with the reason
    from swarbench.suites.cephalopod import native

    monkeypatch.setattr(native, "posix", lambda: False)
    workload = KERNEL.make_workload(KERNEL.workload_kind("empty"), 2)
    verdict = oracle.verify(KERNEL, IMPLS[name], workload, oracle.reference_outputs(KERNEL, workload))
    assert verdict.status == oracle.SKIP and "POSIX" in verdict.reason, verdict


@pytest.mark.skipif(bool(features.unavailable(IMPLS["c-fast"].requires)), reason="needs a C compiler and AVX2")
def test_a_wrong_row_hash_table_is_caught_by_the_oracle(monkeypatch):
    # c-fast's summed last layers depend on row_hash_changes(); one wrong row must show FAIL, not a number
    from swarbench.model import Implementation
    from swarbench.suites.cephalopod import native

    broken = dict(tables.fast_tables())
    broken["rowhash"] = broken["rowhash"].copy()
    moves, base, _ = tables.array_moves()
    broken["rowhash"][base[4]] += 1  # the centre with four empty neighbours: the empty board's first move
    monkeypatch.setattr(native.tables, "fast_tables", lambda: broken)
    impl = Implementation(
        KERNEL.id, "c-fast-broken", "cffi-avx2", native._prepare_fast("cephalopod_fast"), requires=("cc", "avx2")
    )
    workload = KERNEL.make_workload(KERNEL.workload_kind("empty"), 3)
    verdict = oracle.verify(KERNEL, impl, workload, oracle.reference_outputs(KERNEL, workload))
    assert verdict.status == oracle.FAIL and "depth 1" in verdict.reason


@pytest.mark.skipif(bool(features.unavailable(IMPLS["c-fast"].requires)), reason="needs a C compiler and AVX2")
def test_reserved_buffers_spare_a_solve_the_page_faults_fresh_ones_pay():
    # step 7 and 16 in what the kernel does: a solve that maps its buffers afresh has them zero-filled page by
    # page (megabytes for the official tests), one that reuses buffers touched in prepare has next to none
    workload = KERNEL.make_workload(KERNEL.workload_kind("official"))
    faults = {}
    for name in ("c-fast-fresh", "c-fast", "c-fast-cores", "c-fast-kept", "c-fast-split", "c-fast-split-deal"):
        batch = IMPLS[name].prepare(workload)
        batch()
        faults[name] = KERNEL.summarize(batch())["page_faults"]
    # where every anonymous mapping gets huge pages, fresh buffers fault once per 2 MiB, not per 4 KiB page
    thp = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    huge = thp.exists() and "[always]" in thp.read_text()
    assert faults["c-fast-fresh"] > (10 if huge else 1000), faults
    assert faults["c-fast"] < 100 and faults["c-fast-cores"] < 100, faults
    assert faults["c-fast-split"] < 100 and faults["c-fast-split-deal"] < 100 and faults["c-fast-kept"] < 100, faults


# -- every family --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FAST)
@pytest.mark.slow
def test_fast_families_reproduce_every_row_of_the_data(name):
    got = _run(name, _inputs(ROWS))
    assert got.tolist() == [r["expected"] for r in ROWS]


@pytest.mark.parametrize("name", ["bfs", "bfs-sym"])
def test_python_searches_reproduce_the_small_and_medium_rows(name):
    assert _run(name, _inputs(SMALL)).tolist() == [r["expected"] for r in SMALL]


def test_path_by_path_reproduces_the_rows_it_can_finish():
    rows = [r for r in ROWS if r["path_count"] <= python.PATH_LIMIT]
    assert len(rows) >= 15
    assert _run("paths", _inputs(rows)).tolist() == [r["expected"] for r in rows]


def test_path_counts_are_kept_and_match_the_data():
    rows = [r for r in ROWS if r["path_count"] <= python.PATH_LIMIT]
    for r in rows:
        assert python.paths_of(r["depth"], spec.parse_board(r["board"])) == r["path_count"], r["name"]
    assert python.paths_of(8, spec.EMPTY) is None  # 6,301,152 paths
    full_but_one = spec.parse_board("123456120")
    assert python.paths_of(40, full_but_one) == 1  # the game ends after one move, however deep the search
    python.path_counts.cache_clear()
    for d in range(1, 41):
        python.paths_of(d, spec.EMPTY)
    assert python.path_counts.cache_info().misses == 1  # forty depths from one board: one search


def test_slow_searches_report_progress_while_checked():
    from swarbench import progress

    seen = []
    with progress.reporting(lambda done, total, what: seen.append((done, total, what))):
        spec.reference(spec.make_inputs([(3, spec.EMPTY), (5, spec.EMPTY), (2, spec.parse_board("060222161"))]))
        python.solve_bfs(4, spec.EMPTY)
        python.solve_sym(4, spec.EMPTY)
        python.walk_case(3, spec.EMPTY)
    assert (7, 7, "layers") in seen  # the reference: 5 + 2 layers over two start boards, counted as one bar
    assert (4, 4, "layers") in seen and (9, 9, "first moves") in seen
    assert all(0 < done <= total for done, total, _ in seen)


def test_slow_families_refuse_deep_workloads():
    workload = KERNEL.make_workload(KERNEL.workload_kind("official"))
    verdict = oracle.verify(KERNEL, IMPLS["paths"], workload, None, known_answers=False)
    assert verdict.status == oracle.SKIP and "too slow for this workload" in verdict.reason


@pytest.mark.parametrize("impl", sorted(IMPLS))
@pytest.mark.parametrize("kind", ["empty", "single"])
@pytest.mark.slow
def test_every_implementation_passes_the_oracle(impl, kind):
    kind = KERNEL.workload_kind(kind)
    workload = KERNEL.make_workload(kind, kind.test_size)
    verdict = oracle.verify(KERNEL, IMPLS[impl], workload, oracle.reference_outputs(KERNEL, workload))
    assert verdict.status == (oracle.SKIP if features.unavailable(IMPLS[impl].requires) else oracle.PASS), (
        verdict.reason
    )


@pytest.mark.parametrize("name", FAST)
@pytest.mark.slow
def test_fast_families_pass_the_official_workload_against_the_contest_answers(name):
    workload = KERNEL.make_workload(KERNEL.workload_kind("official"))
    expected = np.array([v for *_, v in spec.OFFICIAL], np.int64)  # the contest's outputs, not the oracle's
    verdict = oracle.verify(KERNEL, IMPLS[name], workload, expected)
    assert verdict.status == oracle.PASS, verdict.reason
    summary = KERNEL.summarize(verdict.batch())
    assert len(summary["case_ms"]) == 12 and summary["boards"] > 0


boards = st.lists(st.integers(0, 6), min_size=9, max_size=9).map(tuple)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=boards, depth=st.integers(0, 4))
def test_path_by_path_bfs_and_symmetry_agree(board, depth):
    # answers the data does not hold: three independent searches on random boards
    expected = python.walk(depth, board) % spec.MOD
    assert python.solve_bfs(depth, board)[0] == expected
    assert python.solve_sym(depth, board)[0] == expected
    assert spec.solve_reference(depth, board) == expected


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=st.lists(st.tuples(st.integers(0, 9), boards), min_size=1, max_size=6))
@pytest.mark.slow
def test_compiled_families_match_the_reference_on_random_boards(cases):
    inputs = spec.make_inputs(cases)
    expected = spec.reference(inputs)
    for name in FAST:
        assert _run(name, inputs).tolist() == expected.tolist(), name


def test_symmetric_searches_count_fewer_boards():
    d, b = 12, spec.parse_board("000054105")
    plain = python.solve_bfs(d, b)[1]
    sym = python.solve_sym(d, b)[1]
    assert plain / 8 <= sym < plain


# -- bad input -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, words",
    [
        ("20\n0 6 0\n2 7 2\n1 6 1\n", "board value 7 is not in 0..6"),
        ("20\n0 6 0\n2 -1 2\n1 6 1\n", "board value -1 is not in 0..6"),
        ("-2\n0 6 0\n2 2 2\n1 6 1\n", "depth -2 is negative"),
        ("20\n0 6 0\n2 2 2\n", "missing board line"),
        ("20\n0 6 0\n2 2\n1 6 1\n", "board line 2 has 2 values"),
        ("x\n0 6 0\n2 2 2\n1 6 1\n", "depth 'x' is not a whole number"),
        ("20\n0 6 0\n2 a 2\n1 6 1\n", "board value 'a'"),
        ("", "empty input"),
    ],
)
def test_bad_contest_input_is_one_clear_line(text, words):
    with pytest.raises(InvalidInput) as err:
        spec.parse_contest_input(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_validation_names_the_bad_value():
    inputs = spec.make_inputs([(3, spec.EMPTY), (2, (0,) * 8 + (9,))])
    with pytest.raises(InvalidInput, match="case 1: cell 8 holds 9"):
        spec.validate(inputs)
    with pytest.raises(InvalidInput, match="depth -1"):
        spec.validate(spec.make_inputs([(-1, spec.EMPTY)]))


# -- the contest client --------------------------------------------------------------------------------------
def _parser():
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    return parser


@pytest.mark.parametrize("impl", [None, "bfs", "bfs-sym"])
def test_solve_reads_the_contest_format(impl, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("20\n0 6 0\n2 2 2\n1 6 1\n"))
    args = _parser().parse_args(["solve"] + (["--impl", impl] if impl else []))
    assert command.run(args, REG) == 0
    assert capsys.readouterr().out.strip() == "322444322"


def test_solve_through_the_cli_exits_2_on_bad_input(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("8\n6 0 6\n0 0 0\n6 1 8\n"))
    assert cli.main(["cephalopod", "solve"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "swarbench: error: board value 8 is not in 0..6"
    monkeypatch.setattr("sys.stdin", io.StringIO("8\n6 0 6\n0 0 0\n6 1 5\n"))
    assert cli.main(["cephalopod", "solve", "--impl", "bfs"]) == 0
    assert capsys.readouterr().out.strip() == "76092874"


def test_solve_refuses_an_unknown_or_too_slow_implementation(monkeypatch):
    with pytest.raises(UsageError, match="no implementation 'nope'"):
        command.pick(REG, "nope")
    with pytest.raises(UsageError, match="too slow"):
        command.solve("40\n0 0 0\n0 0 0\n0 0 0\n", IMPLS["paths"])


# -- the write-up's report -----------------------------------------------------------------------------------
def _record(impl, workload, n, s, summary, status="PASS"):
    return {
        "kernel": KERNEL.id,
        "suite": "cephalopod",
        "implementation": impl,
        "family": IMPLS[impl].family,
        "workload": workload,
        "n": n,
        "status": status,
        "reason": "",
        "baseline": "bfs",
        "unit": "case",
        "samples_s": [s, s, s] if status == "PASS" else [],
        "summary": summary,
    }


def test_reports_shape_the_run_like_the_write_up():
    official = [
        _record("bfs", "official", 12, 2.0, {"case_ms": [1.0] * 12, "boards": 1783570}),
        _record("c-avx2", "official", 12, 0.03, {"case_ms": [0.5] * 12, "boards": 595219}),
        _record("paths", "official", 12, 0, None, status="SKIP"),
    ]
    empty = [_record("c-lut", "empty", 3, 0.01, {"case_ms": [0.1, 0.2, 0.4]})]
    frame = results.frame_from_records(official + empty, "r1", {})
    section = report.official_table(frame)
    table = section.table.set_index("implementation")
    assert table.loc["c-avx2", "total_ms"] == pytest.approx(30.0)
    assert table.loc["c-avx2", "speedup_vs_bfs"] == pytest.approx(2.0 / 0.03)
    assert table.loc["bfs", "boards_stored"] == 1783570 and table.loc["c-avx2", "t12"] == 0.5
    assert table.loc["paths", "status"].startswith("SKIP")
    depth = report.depth_table(frame)
    assert depth.chart.x == "depth" and depth.table["ms"].tolist() == [0.1, 0.2, 0.4]
    assert report.official_table(frame.iloc[0:0]) is None
    json.dumps(KERNEL.summarize(spec.Answers([1, 2], [0.1, 0.2], [3, 4])))


def test_a_single_case_comes_from_the_case_parameter():
    kind = KERNEL.workload_kind("single")
    workload = KERNEL.make_workload(kind, given={"case": "3 000000000"})
    assert workload.inputs["depth"].tolist() == [3] and workload.params == {"case": "3 000000000"}
    assert workload.inputs["cells"].tolist() == [[0] * 9]
    for bad, words in (("3", "expected 'DEPTH BOARD'"), ("-1 000000000", "negative"), ("2 00000007x", "7x")):
        with pytest.raises(InvalidInput, match=words):
            KERNEL.make_workload(kind, given={"case": bad})


def test_split_plan_splits_the_long_tests_only_while_dealing_cannot_balance():
    from swarbench.suites.cephalopod import native

    # one test longer than the rest together: split it (5, then 4 on each thread, against 10 dealt), deal the others
    order, k = native.split_plan(np.array([1.0, 10.0, 2.0, 2.0, 2.0]), np.array([0.6, 5.0, 1.2, 1.2, 1.2]), 2)
    assert order.tolist()[0] == 1 and k == 1
    # even tests, splitting at no gain: all dealt
    order, k = native.split_plan(np.array([2.0, 2.0, 2.0, 2.0]), np.array([1.0, 1.0, 1.0, 1.0]), 2)
    assert k == 0
    # one thread: splitting only adds, nothing is split
    assert native.split_plan(np.array([3.0, 1.0]), np.array([3.0, 1.0]), 1)[1] == 0


def test_deal_order_balances_the_threads_where_longest_first_does_not():
    from swarbench.suites.cephalopod import native

    seconds = np.array([3.0, 3.0, 2.0, 2.0, 2.0])
    assert native.dealt_time(seconds, [0, 1, 2, 3, 4], 2) == 7.0  # longest first: 3+2+2 on one thread
    order = native.deal_order(seconds, range(5), 2)
    assert sorted(order) == [0, 1, 2, 3, 4] and native.dealt_time(seconds, order, 2) == 6.0
    # the tests to deal may be any of them, and ties keep longest first
    assert native.deal_order(np.array([1.0, 5.0, 4.0]), [2, 1], 2) == [1, 2]
