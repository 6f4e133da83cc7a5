"""Every array a batch reads starts on a cache line: the workloads' arrays, their fresh copies, and what the C
suites make in prepare (swarbench.memory)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from swarbench import features, oracle, registry
from swarbench.memory import CACHE_LINE, aligned_copy, aligned_empty, aligned_inputs, as_aligned

REG = registry.load()


def _arrays(value):
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _arrays(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays(v)


def _misaligned(value) -> list[int]:
    return [a.ctypes.data % CACHE_LINE for a in _arrays(value) if a.size and a.ctypes.data % CACHE_LINE]


def test_aligned_empty_starts_on_the_boundary_with_the_asked_shape():
    for shape, dtype in ((1, np.uint8), (1, np.bool_), (1001, np.uint64), (4096, np.uint32), ((3, 5), np.int32)):
        for _ in range(8):  # allocations land at different offsets
            out = aligned_empty(shape, dtype)
            assert out.shape == np.empty(shape).shape and out.dtype == dtype and out.ctypes.data % CACHE_LINE == 0
            assert out.flags.c_contiguous
    assert aligned_empty(0, np.uint64).shape == (0,)
    from swarbench import cbuild  # where plugins found it before swarbench.memory, as aligned_empty(n, dtype)

    assert cbuild.aligned_empty(10, np.uint64).ctypes.data % CACHE_LINE == 0


def test_aligned_copy_is_an_equal_c_ordered_copy_on_a_cache_line():
    source = np.arange(3 * 7, dtype=np.uint16).reshape(3, 7)
    for _ in range(8):
        # a transposed view and a slice one byte in: what np.ascontiguousarray copies to anywhere
        for view in (source.T, np.frombuffer(b"\0" + source.tobytes(), np.uint8, count=20, offset=1)):
            copy = aligned_copy(view)
            assert copy.ctypes.data % CACHE_LINE == 0 and copy.flags.c_contiguous
            assert np.array_equal(copy, view) and not np.shares_memory(copy, view)
    assert aligned_copy([1, 2], np.int32).dtype == np.int32


def test_as_aligned_passes_an_aligned_array_through_and_copies_anything_else():
    buffer = aligned_empty(16, np.uint32)
    # an output buffer must come back as itself, or the kernel writes into a copy nobody reads
    assert as_aligned(buffer) is buffer and as_aligned(buffer, np.uint32) is buffer
    # one element in (4 bytes off the line), every other element (not contiguous), not an array at all
    for other in (buffer[1:], buffer[::2], [1, 2, 3]):
        got = as_aligned(other)
        assert got is not other and got.ctypes.data % CACHE_LINE == 0 and np.array_equal(got, other)
    converted = as_aligned(buffer, np.uint8)
    assert converted.dtype == np.uint8 and converted.ctypes.data % CACHE_LINE == 0


def test_aligned_inputs_copies_every_array_inside_and_keeps_the_rest():
    inputs = {
        "a": np.arange(5, dtype=np.uint64)[1:],
        "rows": [np.ones(3, np.int8), (np.zeros(2), "x")],
        "n": 4,
        "names": ["a", "b"],
    }
    copy = aligned_inputs(inputs)
    assert _misaligned(copy) == []
    assert copy["n"] == 4 and copy["names"] == ["a", "b"] and copy["names"] is not inputs["names"]
    assert copy["rows"][1][1] == "x" and isinstance(copy["rows"][1], tuple)
    for new, old in zip(_arrays(copy), _arrays(inputs)):
        assert np.array_equal(new, old) and not np.shares_memory(new, old)


@pytest.mark.parametrize("kernel_id", sorted(k for k in REG.kernels if not k.startswith("harness.")))
def test_every_workload_and_its_fresh_copies_start_on_cache_lines(kernel_id):
    kernel = REG.kernels[kernel_id]
    kind = kernel.workloads[0]
    workload = kernel.make_workload(kind, kind.test_size, seed=3)
    assert _misaligned(workload.inputs) == []
    for _, known in kernel.known_workloads():
        assert _misaligned(known.inputs) == []
    # a later pass's copy, and one a worker unpickled from the run's cache, land anywhere until realigned
    for copy in (workload.fresh_copy(), pickle.loads(pickle.dumps(workload)).fresh_copy()):
        assert _misaligned(copy.inputs) == []
        assert [a.tobytes() for a in _arrays(copy.inputs)] == [a.tobytes() for a in _arrays(workload.inputs)]


@pytest.mark.parametrize("name", ["c-swar-avx2", "c-sliced-avx2", "c-loop"])
def test_a_cards_c_batch_borrows_only_arrays_on_cache_lines(name):
    impl = REG.implementations[f"cards.contains/{name}"]
    why = features.unavailable(impl.requires)
    if why:
        pytest.skip(why)
    kernel = REG.kernels["cards.contains"]
    workload = kernel.make_workload(kernel.workloads[0], 1000, seed=1)
    verdict = oracle.prepare_only(impl, workload)
    if verdict.batch is None:
        pytest.skip(f"{name}: {verdict.status} {verdict.reason}")
    assert _misaligned(verdict.batch.keepalive) == []
