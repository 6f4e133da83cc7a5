"""Kernels and implementations written as plain functions: the common case, without a ``prepare`` of your own.

    import numpy as np
    import swarbench

    def random_words(n, rng):                      # n operations' inputs, from a seeded numpy Generator
        return {"words": rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)}

    def zero_bytes(words):                         # the oracle: obvious, not fast
        return np.array([sum((int(w) >> s) & 0xFF == 0 for s in range(0, 64, 8)) for w in words], np.uint8)

    zero = swarbench.declare("zero.bytes", random_words, zero_bytes, unit="word")

    @zero.python                                   # the inputs as Python lists, converted before timing
    def loop(words): ...

    @zero.numpy                                    # the inputs as read-only NumPy arrays
    def swar(words): ...

    zero.c("c-swar", C_SOURCE, "zero_bytes")       # C source (or a .c file) built through swarbench.cbuild

A function's parameters are named after the inputs (the keys of what the generator returns); a parameter named
``out`` is handed an output array of the reference's dtype and shape, allocated before timing, and then that
array is the row's result. Everything that is not the work (converting inputs, compiling C, JIT-compiling,
allocating the output) happens in the row's ``prepare``, which is never timed; the timed call is the function
alone. Every row is checked against the reference (its values and its output's dtype) like any other.

The object ``declare`` returns is a plugin by itself: a local module (swarbench.local) or an entry point that
holds one needs no hook of its own. Anything this does not cover is an ``Implementation`` with a ``prepare``
of its own, added with ``add``.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import pluggy

from swarbench.model import Implementation, Kernel, WorkloadKind

hookimpl = pluggy.HookimplMarker("swarbench")

PLAIN_C = "cffi-scalar"  # the family "x C" measures against: portable scalar C (swarbench.render.summary)


def declare(
    kernel_id: str,
    generate: Optional[Callable] = None,
    reference: Optional[Callable] = None,
    unit: str = "op",
    **kernel_fields: Any,
) -> Declared:
    """A kernel declared by a generator, a reference and a unit (see the module's docstring); without
    ``generate`` and ``reference``, the implementations of a kernel another plugin defines (``cards.contains``).

    ``generate(n, rng)`` returns the inputs of n operations (usually a dict of NumPy arrays) from a NumPy
    ``Generator`` seeded by the run; ``reference(**inputs)`` returns the right outputs. Further keywords:
    ``description``, ``baseline`` (default: the first row declared), ``size`` (operations per batch, default
    65,536), ``test_size``, ``bytes_per_op``, and any field of ``swarbench.Kernel`` (``known_answers``,
    ``validate``, ``describe_input``, ``compare``, ``summarize``, ``source``, ``op_is_element``).
    """
    caller = sys._getframe(1).f_globals
    return Declared(
        kernel_id,
        generate,
        reference,
        unit,
        module=caller.get("__name__", ""),
        file=caller.get("__file__") or "",
        **kernel_fields,
    )


def _call(function: Callable, inputs: Any, **extra: Any) -> Any:
    """``function`` on the inputs: a dict's items as keyword arguments, anything else as the first argument."""
    if isinstance(inputs, dict):
        return function(**inputs, **extra)
    return function(inputs, **extra)


def _describe(inputs: Any, i: int) -> str:
    """Input ``i`` of each array, as a failure names it: ``words=0xff00ff00ff00ff00``."""
    import numpy as np

    def one(value):
        if isinstance(value, np.ndarray) and value.ndim and i < len(value):
            item = value[i]
            if isinstance(item, np.unsignedinteger):
                return f"0x{int(item):x}"
            return np.array2string(item, separator=",") if isinstance(item, np.ndarray) else repr(item.item())
        return None

    if isinstance(inputs, dict):
        parts = [f"{k}={v}" for k, v in ((k, one(v)) for k, v in inputs.items()) if v is not None]
        return ", ".join(parts) or f"#{i}"
    return one(inputs) or f"#{i}"


class Declared:
    """A kernel and its rows declared as plain functions: ``swarbench.declare`` makes one. It is a plugin (its
    hooks add the kernel, then the rows), so a module holding it needs no hook of its own."""

    def __init__(
        self,
        kernel_id: str,
        generate: Optional[Callable],
        reference: Optional[Callable],
        unit: str,
        module: str = "",
        file: str = "",
        *,
        description: str = "",
        baseline: Optional[str] = None,
        size: int = 1 << 16,
        test_size: int = 64,
        bytes_per_op: float = 64.0,
        **kernel_fields: Any,
    ):
        if (generate is None) != (reference is None):
            raise TypeError(
                f"declare({kernel_id!r}): give both a generator and a reference, or neither (to add "
                f"rows to a kernel another plugin defines)"
            )
        unknown = set(kernel_fields) - {f for f in Kernel.__dataclass_fields__} - {"known_answers"}
        if unknown or {"id", "reference", "workloads", "unit"} & set(kernel_fields):
            raise TypeError(f"declare({kernel_id!r}): unknown keyword {sorted(unknown)[0] if unknown else ''!r}")
        self.id, self.generate, self.reference, self.unit = kernel_id, generate, reference, unit
        self.module, self.file = module, file
        self.folder = Path(file).resolve().parent if file else Path.cwd()
        self.description = description or ((inspect.getdoc(reference) or "").split("\n")[0] if reference else "")
        self.baseline, self.size, self.test_size, self.bytes_per_op = baseline, size, test_size, bytes_per_op
        self.kernel_fields = kernel_fields
        self.implementations: list[Implementation] = []
        self._defined: Optional[Kernel] = None  # the kernel another plugin defines, once registered
        self._output_kind: Optional[tuple] = None  # the reference's output dtype and trailing shape
        self._kernel: Optional[Kernel] = None  # built once its rows are known (the first is the baseline)

    def __repr__(self) -> str:
        return f"<swarbench.declare {self.id}: {', '.join(i.name for i in self.implementations) or 'no rows'}>"

    # -- the kernel ----------------------------------------------------------------------------------------------
    @property
    def defines_kernel(self) -> bool:
        return self.generate is not None

    def kernel(self) -> Kernel:
        """The kernel: this declaration's own, or (rows for another plugin's) the one registered under its id."""
        if not self.defines_kernel:
            if self._defined is None:
                from swarbench import testing

                self._defined = testing.kernel(self.id)
            return self._defined
        if self._kernel is None:
            self._kernel = self._own_kernel()
        return self._kernel

    def _own_kernel(self) -> Kernel:
        generate = self.generate

        def build(size: int, seed: int):
            import numpy as np

            return generate(size, np.random.default_rng(seed)), size

        kind = WorkloadKind(
            "random",
            build,
            (inspect.getdoc(generate) or "").split("\n")[0] or f"{generate.__name__}(n, rng)",
            default_size=self.size,
            test_size=self.test_size,
            bytes_per_op=self.bytes_per_op,
        )
        fields = dict(self.kernel_fields)
        answers = fields.pop("known_answers", None)
        if answers is not None and not callable(answers):
            answers = functools.partial(list, answers)
        if answers is not None:
            fields["known_answers"] = answers
        fields.setdefault("describe_input", _describe)
        reference = self.reference
        return Kernel(
            self.id,
            self.description,
            self.unit,
            (kind,),
            lambda inputs: _call(reference, inputs),
            baseline=self.baseline or (self.implementations[0].name if self.implementations else "naive"),
            **fields,
        )

    def output_array(self, n: int):
        """An output buffer for n operations, of the reference's dtype and shape (found once, from a batch of
        two operations), on a cache line. (No property: pluggy reads every attribute of a plugin it registers.)"""
        import numpy as np

        from swarbench.memory import aligned_empty

        if self._output_kind is None:
            kernel = self.kernel()
            kind = kernel.workloads[0]
            out = np.asarray(kernel.reference(kernel.make_workload(kind, None if kind.fixed_size else 2).inputs))
            self._output_kind = (out.dtype, out.shape[1:])
        dtype, tail = self._output_kind
        return aligned_empty((n, *tail), dtype)

    # -- its rows ------------------------------------------------------------------------------------------------
    def add(self, name: str, family: str, prepare: Callable, **fields: Any) -> Implementation:
        """A row with a ``prepare`` of its own (``swarbench.Implementation``'s fields as keywords)."""
        impl = Implementation(self.id, name, family, prepare, **fields)
        if any(i.name == name for i in self.implementations):
            raise ValueError(f"{self.id} already has a row named {name!r}")
        self.implementations.append(impl)
        self._kernel = None  # (its baseline may change)
        return impl

    def _row(
        self, function: Optional[Callable], family: str, make_prepare: Callable, requires: tuple, options: dict
    ) -> Any:
        def register(f: Callable) -> Callable:
            fields = dict(options)
            name = fields.pop("name", None) or f.__name__
            build = fields.pop("build", None)
            prepare = make_prepare(f)
            impl = self.add(
                name,
                fields.pop("family", family),
                prepare,
                requires=tuple(fields.pop("requires", ())) + requires,
                description=fields.pop("description", "") or (inspect.getdoc(f) or "").split("\n")[0],
                build=build(prepare) if build else None,
                **fields,
            )
            f.swarbench_implementation, f.swarbench_kernel = impl, self  # what the pytest fixture reads
            return f

        return register(function) if function is not None else register

    def python(self, function: Optional[Callable] = None, **options: Any):
        """Decorator: a pure-Python row. Its input arrays are handed over as Python lists (``tolist()``, in
        prepare), whose ints do not wrap as NumPy's do. Keywords: ``name``, ``expected_to_fail``, ``description``,
        ``family`` (default "python")."""
        return self._row(function, "python", lambda f: self._prepare(f, as_lists=True), (), options)

    def numpy(self, function: Optional[Callable] = None, **options: Any):
        """Decorator: a row on the inputs as they are, read-only NumPy arrays (family "numpy")."""
        return self._row(function, "numpy", lambda f: self._prepare(f), ("module:numpy",), options)

    def numba(self, function: Optional[Callable] = None, **options: Any):
        """Decorator: a row compiled with ``numba.njit(cache=True)`` in prepare, on the read-only arrays; the
        compile is warmed up on the first operation's inputs before any timing (family "numba")."""
        return self._row(
            function, "numba", lambda f: self._prepare(f, jit=True), ("module:numba",), {"build": self._warm, **options}
        )

    def _warm(self, prepare: Callable) -> Callable[[], None]:
        """A build that prepares the row on test-size inputs: the JIT's compile lands in its cache during the
        run's build step (swarbench.prebuild)."""
        return functools.partial(_prepare_on_test_inputs, self, prepare)

    def _prepare(self, function: Callable, as_lists: bool = False, jit: bool = False) -> Callable:
        takes_out = "out" in inspect.signature(function).parameters

        def prepare(workload):
            inputs = workload.inputs
            call = _jitted(function) if jit else function
            if as_lists:
                inputs = {k: _as_list(v) for k, v in inputs.items()} if isinstance(inputs, dict) else _as_list(inputs)
            _check_parameters(function, inputs)
            if not takes_out:
                if jit:
                    _call(call, _first(inputs))
                return lambda: _call(call, inputs)
            out = self.output_array(workload.size)
            if jit:
                _call(call, _first(inputs), out=out[:1])

            def batch():
                _call(call, inputs, out=out)
                return out

            return batch

        return prepare

    def c(
        self,
        name: str,
        source: Union[str, Path],
        function: str,
        *,
        isa: Sequence[str] = (),
        flags: Sequence[str] = (),
        cdef: Optional[str] = None,
        **options: Any,
    ) -> Implementation:
        """A row in C: ``source`` is C text or a ``.c`` file (a path, relative to the declaring file), built with
        cffi through swarbench.cbuild (cached; a compile error is the row's ERROR, quoting the compiler at your
        file and line). ``function``'s parameters are matched by name: a pointer for each input array (``const``:
        inputs are read-only), ``out`` for the output array, ``n`` for the number of operations. Its pointer types
        must match the arrays' dtypes, ``out``'s the reference's (``uint8_t *out`` for uint8). ``isa=("avx2",)``
        compiles for that instruction set and requires it; the family is then "cffi-avx2", else "cffi-scalar",
        the plain C that reports measure "x C" against (swarbench.c_rows does the binding)."""
        from swarbench import c_rows

        row = c_rows.CRow(
            re.sub(r"\W", "_", f"{self.id}_{name}"),
            source,
            function,
            self.folder,
            self.file,
            tuple(isa),
            tuple(flags),
            cdef,
        )
        isa = tuple(isa)
        family = PLAIN_C if not isa else "cffi-" + ("avx512" if isa[0].startswith("avx512") else isa[0])
        return self.add(
            name,
            options.pop("family", family),
            functools.partial(row.prepare, self.output_array),
            requires=("cc", "module:cffi", *isa, *options.pop("requires", ())),
            build=row.build,
            **options,
        )

    # -- as a plugin ---------------------------------------------------------------------------------------------
    @hookimpl
    def swarbench_add_kernels(self, registry):
        if self.defines_kernel:
            registry.add_kernel(self.kernel())

    @hookimpl
    def swarbench_add_implementations(self, registry):
        if not self.defines_kernel and self.id in registry.kernels:
            self._defined = registry.kernels[self.id]
        for impl in self.implementations:
            registry.add_implementation(impl)


def _prepare_on_test_inputs(declared: Declared, prepare: Callable) -> None:
    kernel = declared.kernel()
    kind = kernel.workloads[0]
    prepare(kernel.make_workload(kind, kind.test_size).read_only())


def _as_list(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") and hasattr(value, "dtype") else value


def _first(inputs: Any) -> Any:
    """The first operation's inputs (slices of the real arrays, so a JIT compiles for their very types)."""
    if isinstance(inputs, dict):
        return {k: v[:1] if hasattr(v, "shape") and v.ndim else v for k, v in inputs.items()}
    return inputs[:1] if hasattr(inputs, "shape") and inputs.ndim else inputs


@functools.lru_cache(maxsize=None)
def _jitted(function: Callable) -> Callable:
    import numba

    return numba.njit(cache=True)(function)


def _check_parameters(function: Callable, inputs: Any) -> None:
    """Parameters that are not the inputs' names are refused in prepare, in one line, not as a TypeError in the
    timed call."""
    if not isinstance(inputs, dict):
        return
    params = inspect.signature(function).parameters
    required = [
        name
        for name, p in params.items()
        if p.default is p.empty and name != "out" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    anything = any(p.kind == p.VAR_KEYWORD for p in params.values())
    if any(name not in inputs for name in required) or not (anything or all(k in params for k in inputs)):
        raise TypeError(
            f"{function.__name__}({', '.join(params)}) must take the inputs by their names: "
            f"{', '.join(inputs)} (and out, for an output array made for it)"
        )
