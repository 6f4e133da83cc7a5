"""What swarbench measures: kernels, their implementations, and the workloads they run on.

A *kernel* is one operation with one correct answer (``cards.contains``). It owns everything that defines
correctness: how to generate seeded inputs, the reference implementation (the oracle), known answers taken from
the source documents, and input validation. An *implementation* is one competitor for a kernel: it declares what
it needs from the machine and how to get ready (``prepare``), and hands back the batch callable that is timed.

The unit of measurement is a batch: one call of the batch callable processes every operation of a workload,
so ``ns_per_op = seconds per call / workload.size * 1e9``. Everything that is not the work itself (converting
inputs, compiling, JIT warm-up, allocating outputs) belongs in ``prepare``, which is timed separately.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import hashlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

# NumPy is imported by the functions that use it: a plugin's import and `swarbench --help` need only the classes


class InvalidInput(ValueError):
    """Raised by a kernel's validation, or by user-facing operations, for inputs outside the kernel's domain.

    The message must name the offending value: it is shown to the user as one line.
    """


class TooSlow(Exception):
    """Raised by ``prepare`` when an implementation cannot finish a workload in reasonable time.

    The run reports the implementation as skipped with this message ("too slow for this workload: ...")
    instead of running it for hours.
    """


def aligned_inputs(inputs: Any) -> Any:
    """swarbench.memory.aligned_inputs (NumPy), imported when a workload is first built."""
    from swarbench.memory import aligned_inputs as aligned

    return aligned(inputs)


@dataclass(frozen=True)
class Workload:
    """Concrete, seeded inputs for one kernel: every competitor of the kernel gets this object, or in a later
    pass an equal copy of it (short batches are prepared again from fresh memory: swarbench.bench.timing). Its
    arrays start on a cache line (swarbench.memory), in every copy too.

    ``size`` is N, the number of operations one batch call performs (what ns/op divides by).
    ``inputs`` is whatever the kernel's generator returns: usually a dict of NumPy arrays in the kernel's
    canonical layout. A run hands it over read-only (``read_only``: every implementation shares it); convert it
    in ``prepare``.
    """

    kernel: str
    name: str
    size: int
    inputs: Any
    seed: int = 0
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.name}/n={self.size}"

    def fresh_copy(self) -> Workload:
        """An equal workload in memory of its own, its arrays on cache lines (a deep copy or an unpickled one
        puts them wherever the allocator likes)."""
        return dataclasses.replace(self, inputs=aligned_inputs(self.inputs))

    def read_only(self) -> Workload:
        """This workload with every NumPy array of its inputs made read-only, so an implementation that writes
        into them raises there (ValueError) instead of changing the inputs of every implementation after it."""
        for array in _arrays(self.inputs):
            array.setflags(write=False)
        return self

    @property
    def input_bytes(self) -> int:
        """Bytes of NumPy arrays in the inputs: what a batch that reads all of its inputs must read."""
        return sum(array.nbytes for array in _arrays(self.inputs))

    def digest(self) -> str:
        """A hash of the inputs' contents: what a write that bypasses the read-only flag (C code given the
        arrays' address) changes."""
        import numpy as np  # here: importing the model (as every plugin does) needs no NumPy

        h = hashlib.blake2b(digest_size=16)
        for array in _arrays(self.inputs):
            h.update(f"{array.dtype.str}{array.shape}".encode())
            h.update(
                np.ascontiguousarray(array).view(np.uint8).reshape(-1).data
                if array.dtype != object
                else repr(array.tolist()).encode()
            )
        h.update(repr(_without_arrays(self.inputs)).encode())
        return h.hexdigest()


def _arrays(inputs: Any) -> list:
    """Every NumPy array in ``inputs`` (inside dicts, lists and tuples), in a fixed order."""
    import numpy as np  # here: importing the model (as every plugin does) needs no NumPy

    if isinstance(inputs, np.ndarray):
        return [inputs]
    if isinstance(inputs, dict):
        return [a for key in sorted(inputs, key=str) for a in _arrays(inputs[key])]
    if isinstance(inputs, (list, tuple)):
        return [a for v in inputs for a in _arrays(v)]
    return []


def _without_arrays(inputs: Any) -> Any:
    """``inputs`` with each array replaced by a placeholder: the rest of what a digest covers."""
    import numpy as np  # here: importing the model (as every plugin does) needs no NumPy

    if isinstance(inputs, np.ndarray):
        return "<array>"
    if isinstance(inputs, dict):
        return sorted(((str(k), _without_arrays(v)) for k, v in inputs.items()), key=lambda kv: kv[0])
    if isinstance(inputs, (list, tuple)):
        return [_without_arrays(v) for v in inputs]
    return inputs


@dataclass(frozen=True)
class Parameter:
    """A value the user may give a workload kind with ``swarbench run --param NAME=VALUE`` (a hero hand, a board).

    ``parse(text)`` turns the text into the value ``build`` receives, raising ``InvalidInput`` with a message that
    names the value; it runs in the command before any worker starts, so a bad value is one line and exit 2.
    ``default`` is the text used when the user gives none.
    """

    description: str
    default: str
    parse: Callable[[str], Any] = str


@dataclass(frozen=True)
class WorkloadKind:
    """A family of workloads of a kernel, such as "random hand pairs" or "all 4p6c pairs".

    ``build(size, seed)`` returns ``(inputs, n_ops)``. ``size`` is the size the user asked for (or
    ``default_size``); kinds whose size is fixed by their nature (all pairs of a game) ignore it and
    set ``fixed_size=True`` so the CLI says so instead of silently ignoring ``--size``.
    ``bytes_per_op`` is a rough upper bound of memory per operation, used to refuse sizes that cannot fit.
    ``max_size``, when given, is the largest size the kind can be built at (a depth the reference can reach):
    a larger ``--size`` is refused before anything runs.
    ``default`` kinds run in a plain ``swarbench run``; others only when named with ``--workload``.
    ``test_size`` is a small size that keeps the test suite fast.
    ``expected(inputs)``, when given, returns the workload's published outputs (a contest's official answers):
    the oracle compares with those instead of running the reference, which can take seconds on such a workload.
    The suite's tests must show that the reference agrees with them.
    ``parameters`` names what the user may set with ``--param``; a kind that declares any is built with
    ``build(size, seed, values)``, ``values`` holding every declared parameter, parsed (defaults filled in).
    """

    name: str
    build: Callable[[int, int], tuple[Any, int]]
    description: str
    default_size: int
    test_size: int = 64
    default: bool = True
    fixed_size: bool = False
    bytes_per_op: float = 64.0
    max_size: Optional[int] = None
    params: Mapping[str, Any] = field(default_factory=dict)
    parameters: Mapping[str, Parameter] = field(default_factory=dict)
    expected: Optional[Callable[[Any], Any]] = None

    def parse_parameters(self, given: Mapping[str, str]) -> dict[str, Any]:
        """The values ``build`` receives: each declared parameter parsed from ``given`` or its default."""
        return {name: p.parse(given.get(name, p.default)) for name, p in self.parameters.items()}


@dataclass(frozen=True)
class KnownAnswer:
    """A hand-checkable case from a source document: inputs, the expected outputs, and where they come from."""

    name: str
    inputs: Any
    expected: Any
    source: str
    size: int = 1


@dataclass(frozen=True)
class Mismatch:
    """The first place an implementation's output differs from the reference."""

    index: Any
    input: str
    expected: str
    got: str

    def __str__(self) -> str:
        return f"at {self.index}: input {self.input}: expected {self.expected}, got {self.got}"


def dtype_mismatch(expected: Any, got: Any) -> Optional[Mismatch]:
    """Outputs of another kind than the reference's are wrong, not converted: a bool kernel's 0.5 cast to True
    would pass. Integers of another width or sign pass when every value fits (a list of Python ints stands for
    a uint64 array); booleans stand only for booleans, floats only for floats."""
    import numpy as np  # here: importing the model (as every plugin does) needs no NumPy

    if not isinstance(expected, np.ndarray):
        return None
    try:
        got_arr = got if isinstance(got, np.ndarray) else np.asarray(got)
    except (TypeError, ValueError, OverflowError):
        return None  # the element-wise comparison says what is wrong with it
    want, have = expected.dtype, got_arr.dtype
    if have == want or want.kind not in "biuf" or got_arr.size == 0:
        return None
    if have.kind == "O":  # Python objects: each must be a value of the reference's kind
        kinds = {"b": (bool, np.bool_), "i": (int, np.integer), "u": (int, np.integer), "f": (float, np.floating)}
        odd = next(
            (
                v
                for v in got_arr.flat
                if not isinstance(v, kinds[want.kind]) or (want.kind in "iu" and isinstance(v, (bool, np.bool_)))
            ),
            None,
        )
        if odd is None and want.kind in "iu":
            info = np.iinfo(want)
            odd = next((v for v in got_arr.flat if not info.min <= int(v) <= info.max), None)
        if odd is None:
            return None
        return Mismatch("dtype", "(whole batch)", f"{want} values", f"{type(odd).__name__} {odd!r}")
    if want.kind in "iu" and have.kind in "iu":
        info = np.iinfo(want)
        low, high = int(got_arr.min()), int(got_arr.max())
        if info.min <= low and high <= info.max:
            return None
        return Mismatch(
            "dtype",
            "(whole batch)",
            f"{want} values",
            f"{have} value {low if low < info.min else high} out of its range",
        )
    if want.kind == have.kind:  # float32 for float64: the comparison judges the values
        return None
    return Mismatch("dtype", "(whole batch)", f"{want} array", f"{have} array")


def first_array_mismatch(expected: Any, got: Any, describe_input: Callable[[int], str]) -> Optional[Mismatch]:
    """Compare outputs element by element; outputs are arrays (or sequences) of equal length.

    ``got`` is converted with the expected dtype so a list of Python bools can stand for a bool array, but a
    wrong shape, a value of another kind (dtype_mismatch) or one that does not convert is itself a mismatch,
    never an exception.
    """
    import numpy as np

    expected = np.asarray(expected)
    try:
        got_arr = np.asarray(got)
        if got_arr.shape != expected.shape:
            return Mismatch("shape", "(whole batch)", f"shape {expected.shape}", f"shape {got_arr.shape}")
        if got_arr.dtype != expected.dtype:
            got_arr = got_arr.astype(expected.dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        return Mismatch("output", "(whole batch)", f"{expected.dtype} array", f"{type(got).__name__}: {exc}")
    if expected.ndim == 0:
        ne = np.array([expected != got_arr])
    else:
        ne = expected != got_arr
        if ne.ndim > 1:
            ne = ne.reshape(ne.shape[0], -1).any(axis=1)
    bad = np.flatnonzero(ne)
    if bad.size == 0:
        return None
    i = int(bad[0])
    e = expected if expected.ndim == 0 else expected[i]
    g = got_arr if got_arr.ndim == 0 else got_arr[i]
    return Mismatch(i, describe_input(i), _short(e), _short(g))


def _short(value: Any) -> str:
    import numpy as np

    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=",", max_line_width=200)
    if isinstance(value, (np.integer, int)) and not isinstance(value, (bool, np.bool_)):
        return f"{int(value)} (0x{int(value):x})" if int(value) >= 0 else str(int(value))
    return repr(value.item() if hasattr(value, "item") else value)


@dataclass(frozen=True)
class Kernel:
    """One operation, its oracle and its workloads.

    - ``reference(inputs) -> outputs``: the plainest correct implementation; every competitor must equal it.
    - ``known_answers()``: cases from the source documents, checked against the reference and every competitor.
    - ``validate(inputs)``: raise ``InvalidInput`` naming the value when inputs are outside the domain.
    - ``compare(expected, got, inputs) -> Mismatch | None``: defaults to element-wise equality of arrays,
      naming the input with ``describe_input(inputs, i)``.
    - ``baseline``: the implementation name speedups are measured against (the naive loop of the source).
    - ``summarize(outputs) -> dict``: optional, a few JSON-able figures of one implementation's outputs
      (equity counts, a total of guesses) kept in the results, so reports can show what was computed,
      and by how much a failing implementation was off.
    - ``op_is_element``: whether an op is one element of the batch's arrays, which the hot loop streams through (a
      score, a hand pair): the explanation (swarbench.explain) then counts the loop's operations an iteration from
      its stores and loads, and sets instructions and a core limit per op. False for an op that is a whole
      computation of its own (a game's search, every board a case reaches, a tally over deals): its code and hot
      loop are still shown, with the memory limit only, since no count of stores says how many ops an iteration is.
    """

    id: str
    description: str
    unit: str
    workloads: Sequence[WorkloadKind]
    reference: Callable[[Any], Any]
    known_answers: Callable[[], Sequence[KnownAnswer]] = lambda: ()
    validate: Callable[[Any], None] = lambda inputs: None
    describe_input: Callable[[Any, int], str] = lambda inputs, i: f"#{i}"
    compare: Optional[Callable[[Any, Any, Any], Optional[Mismatch]]] = None
    baseline: str = "naive"
    source: str = ""
    summarize: Optional[Callable[[Any], Mapping[str, Any]]] = None
    op_is_element: bool = True

    @property
    def suite(self) -> str:
        return self.id.split(".", 1)[0]

    def check(self, expected: Any, got: Any, inputs: Any) -> Optional[Mismatch]:
        wrong_kind = dtype_mismatch(expected, got)  # before a kernel's own compare, which may cast as it likes
        if wrong_kind is not None:
            return wrong_kind
        if self.compare is not None:
            return self.compare(expected, got, inputs)
        return first_array_mismatch(expected, got, lambda i: self.describe_input(inputs, i))

    def workload_kind(self, name: Optional[str] = None) -> WorkloadKind:
        if name is None:
            return self.workloads[0]
        for kind in self.workloads:
            if kind.name == name:
                return kind
        names = ", ".join(k.name for k in self.workloads)
        raise KeyError(f"kernel {self.id} has no workload {name!r} (it has: {names})")

    def make_workload(
        self, kind: WorkloadKind, size: Optional[int] = None, seed: int = 0, given: Optional[Mapping[str, str]] = None
    ) -> Workload:
        """Build the seeded inputs of one workload; validation runs here so bad generators fail loudly.
        ``given`` holds the user's --param texts; those the kind does not declare are ignored."""
        size = kind.default_size if size is None or kind.fixed_size else size
        if kind.max_size is not None and size > kind.max_size:
            raise InvalidInput(f"workload {kind.name} of {self.id} goes up to --size {kind.max_size}, got {size}")
        if kind.parameters:
            given = {k: v for k, v in (given or {}).items() if k in kind.parameters}
            inputs, n_ops = kind.build(size, seed, kind.parse_parameters(given))
            params = {**kind.params, **{k: given.get(k, p.default) for k, p in kind.parameters.items()}}
        else:
            inputs, n_ops = kind.build(size, seed)
            params = dict(kind.params)
        self.validate(inputs)
        return Workload(self.id, kind.name, int(n_ops), aligned_inputs(inputs), seed, params)

    def known_workloads(self) -> list[tuple[KnownAnswer, Workload]]:
        # read-only, as a run hands over every workload: a JIT compiles a read-only array's type apart
        return [
            (ka, Workload(self.id, f"known:{ka.name}", ka.size, aligned_inputs(ka.inputs), 0, {}).read_only())
            for ka in self.known_answers()
        ]


# A batch callable takes no argument and returns the outputs of every operation of the workload.
BatchCall = Callable[[], Any]


@dataclass(frozen=True)
class Implementation:
    """One competitor for a kernel.

    ``prepare(workload) -> batch callable`` does all the untimed work (layout conversion, C build, JIT compile,
    output allocation); the callable it returns does the N operations and nothing else. ``requires`` names what
    the implementation needs: CPU features as /proc/cpuinfo spells them ("avx2", "avx512bw", "bmi2"),
    "cc" for a working C compiler, "module:<name>" for an importable package ("module:numba"), or "cuda" for a
    real CUDA GPU that numba can use.
    ``expected_to_fail`` marks an implementation kept on purpose although it is wrong (to show what the oracle
    catches, such as a source's overflow bug): it is checked and reported FAIL like any other, never timed, and
    does not make ``swarbench run`` exit non-zero.
    ``build``, optional, takes nothing and compiles (or loads) what ``prepare`` will need, such as a C module
    through swarbench.cbuild: a run calls every selected implementation's ``build`` side by side before its first
    worker starts, so the builds share the cores and fill the cache. It only saves time: whatever it raises is
    ignored there, and ``prepare`` builds again and reports it.
    """

    kernel: str
    name: str
    family: str
    prepare: Callable[[Workload], BatchCall]
    requires: tuple[str, ...] = ()
    description: str = ""
    expected_to_fail: str = ""
    build: Optional[Callable[[], Any]] = None

    @property
    def key(self) -> str:
        return f"{self.kernel}/{self.name}"


def matches(name: str, patterns: Optional[Sequence[str]]) -> bool:
    """Shell-style selection used by --kernel and --impl: no pattern selects everything."""
    if not patterns:
        return True
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


@dataclass(frozen=True)
class LineChart:
    """A chart a suite report asks for: one line per ``series`` value, ``y`` against ``x`` from its table."""

    x: str
    y: str
    series: str
    logx: bool = False
    logy: bool = True


@dataclass
class ReportSection:
    """A suite's own view of a run: a table (already computed), notes, and optionally a chart of the table."""

    title: str
    table: Any  # pandas.DataFrame
    notes: Sequence[str] = ()
    chart: Optional[LineChart] = None


@dataclass(frozen=True)
class SuiteReport:
    """A report a suite adds beside the common tables, the way its source document presents results.

    ``build(results)`` receives the tidy results frame (one row per measurement; see swarbench.results) and
    returns a ReportSection, or None when the run holds nothing it can use. It shapes data (select, join with
    the source's figures, divide); the renderers only format what it returns.
    """

    id: str
    build: Callable[[Any], Optional[ReportSection]]


@dataclass(frozen=True)
class Command:
    """A sub-command a suite adds to the CLI: ``swarbench <name> ...`` (e.g. ``swarbench cephalopod solve``).

    ``add_arguments(parser)`` fills an argparse parser; ``run(args, registry) -> int`` does the work and returns
    the exit code. Raise ``swarbench.errors.UsageError`` or ``InvalidInput`` for bad input: the CLI prints the
    message as one line and exits 2.
    """

    name: str
    help: str
    add_arguments: Callable[[Any], None]
    run: Callable[[Any, Any], int]
