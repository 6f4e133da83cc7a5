"""Where a batch's arrays start in memory: on a cache line, always, so that a run's figure is not a draw of
the allocator.

A vector load that straddles two cache lines costs about two loads. malloc promises 16-byte alignment, so a
NumPy array lands on a 32- or 64-byte boundary by chance, and runs of the same code disagreed by 40% or more
by where their arrays happened to land (docs/measurement.md); fresh layouts each pass only averaged the draw.

So every workload's arrays start on a cache line (``Kernel.make_workload``, ``Workload.fresh_copy``), and an
implementation that makes arrays in ``prepare`` (a converted layout, an output buffer) makes them with
``aligned_empty`` or ``aligned_copy``: the layout a caller writing SIMD code gives its buffers, the same for
every competitor. What alignment cannot fix (where pages land, 4 KiB offsets between arrays) is drawn afresh:
a benchmark worker calls ``draw_layouts``, and from then on each array starts at a random cache line of a page
(a random multiple of its alignment), so that each preparation of a batch, in each pass and each worker, is
timed on a layout of its own and a median is one over many layouts (docs/measurement.md, "Memory layout").
"""

from __future__ import annotations

import copy
import random
from typing import Any, Optional, Union

import numpy as np

CACHE_LINE = 64  # bytes: the line of x86-64 and most ARM64 (Apple cores use 128); a multiple of every vector width here
PAGE = 4096  # bytes: 4 KiB offsets between arrays set which cache sets they share and whether loads alias stores
LEAST_PLACES = 8  # an alignment of a page or more still draws from this many places (whole pages apart)

_layouts: random.Random | None = None  # set by draw_layouts: where in a page each new array starts


def draw_layouts(rng: random.Random | None) -> None:
    """From now on, start each array ``aligned_empty`` makes at a multiple of its alignment drawn from ``rng``
    within a page (within LEAST_PLACES alignments, for an alignment of a page or more); None: at the first
    boundary, as outside a benchmark worker."""
    global _layouts
    _layouts = rng


def _places(align: int) -> int:
    """How many ``align``-byte places within a page (or LEAST_PLACES of them) an array's start is drawn from."""
    return max(PAGE // align, LEAST_PLACES)


def _offset(align: int) -> int:
    """Where past the first ``align`` boundary of a fresh allocation an array starts: 0, or a draw."""
    return 0 if _layouts is None else align * _layouts.randrange(_places(align))


def aligned_empty(shape: Union[int, tuple], dtype=np.uint8, align: int = CACHE_LINE) -> np.ndarray:
    """An uninitialised C-ordered array whose first byte is on an ``align``-byte boundary. (An empty array has
    no bytes to align: NumPy may point it anywhere.)"""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    offset = _offset(align)
    # room for every offset whichever is drawn: an allocation sized by the draw can land where its end, not its
    # start, is fixed (a freed block reused from its top), which takes the draw back out of the array's address
    room = align * _places(align) if _layouts is not None else 0
    raw = np.empty(count * dtype.itemsize + align + room, np.uint8)
    start = -raw.ctypes.data % align + offset
    return raw[start : start + count * dtype.itemsize].view(dtype).reshape(shape)


def aligned_copy(array: Any, dtype: Optional[Any] = None) -> np.ndarray:
    """A C-ordered copy of ``array`` (converted to ``dtype`` if given) starting on a cache line: what
    ``np.ascontiguousarray`` gives, but never left wherever the allocator put it."""
    source = np.asarray(array, dtype=dtype)
    out = aligned_empty(source.shape, source.dtype)
    out[...] = source
    return out


def as_aligned(array: Any, dtype: Optional[Any] = None) -> np.ndarray:
    """``array`` itself when it is already a C-ordered ``dtype`` array on a cache line, else an aligned copy: what
    ``np.ascontiguousarray`` is to ``np.array``. (An output buffer passed through it stays the buffer written.)"""
    if (
        isinstance(array, np.ndarray)
        and array.flags.c_contiguous
        and array.ctypes.data % CACHE_LINE == 0
        and (dtype is None or array.dtype == np.dtype(dtype))
    ):
        return array
    return aligned_copy(array, dtype)


def aligned_inputs(inputs: Any) -> Any:
    """``inputs`` with every NumPy array in it (inside dicts, lists and tuples) copied to start on a cache line,
    and everything else deep-copied: equal inputs in memory of their own."""
    if isinstance(inputs, np.ndarray):
        return aligned_copy(inputs) if inputs.dtype != object else copy.deepcopy(inputs)
    if isinstance(inputs, dict):
        return type(inputs)((k, aligned_inputs(v)) for k, v in inputs.items())
    if type(inputs) in (list, tuple):  # not a named tuple: its fields would not survive the rebuild
        return type(inputs)(aligned_inputs(v) for v in inputs)
    return copy.deepcopy(inputs)
