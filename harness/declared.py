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
import hashlib
import inspect
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

import pluggy

from swarbench.model import Implementation, Kernel, WorkloadKind

hookimpl = pluggy.HookimplMarker("swarbench")

PLAIN_C = "cffi-scalar"  # the family "x C" measures against: portable scalar C (swarbench.render.summary)
# C types a parameter may have, and the NumPy dtype of an array it points to
C_DTYPES = {"uint8_t": "uint8", "int8_t": "int8", "uint16_t": "uint16", "int16_t": "int16", "uint32_t": "uint32",
            "int32_t": "int32", "uint64_t": "uint64", "int64_t": "int64", "float": "float32", "double": "float64",
            "_Bool": "bool", "bool": "bool"}
_QUALIFIERS = {"const", "restrict", "__restrict", "__restrict__", "volatile"}


def declare(kernel_id: str, generate: Optional[Callable] = None, reference: Optional[Callable] = None,
            unit: str = "op", **kernel_fields: Any) -> Declared:
    """A kernel declared by a generator, a reference and a unit (see the module's docstring); without
    ``generate`` and ``reference``, the implementations of a kernel another plugin defines (``cards.contains``).

    ``generate(n, rng)`` returns the inputs of n operations (usually a dict of NumPy arrays) from a NumPy
    ``Generator`` seeded by the run; ``reference(**inputs)`` returns the right outputs. Further keywords:
    ``description``, ``baseline`` (default: the first row declared), ``size`` (operations per batch, default
    65,536), ``test_size``, ``bytes_per_op``, and any field of ``swarbench.Kernel`` (``known_answers``,
    ``validate``, ``describe_input``, ``compare``, ``summarize``, ``source``).
    """
    caller = sys._getframe(1).f_globals
    return Declared(kernel_id, generate, reference, unit, module=caller.get("__name__", ""),
                    file=caller.get("__file__") or "", **kernel_fields)


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

    def __init__(self, kernel_id: str, generate: Optional[Callable], reference: Optional[Callable], unit: str,
                 module: str = "", file: str = "", *, description: str = "", baseline: Optional[str] = None,
                 size: int = 1 << 16, test_size: int = 64, bytes_per_op: float = 64.0, **kernel_fields: Any):
        if (generate is None) != (reference is None):
            raise TypeError(f"declare({kernel_id!r}): give both a generator and a reference, or neither (to add "
                            f"rows to a kernel another plugin defines)")
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

        kind = WorkloadKind("random", build, (inspect.getdoc(generate) or "").split("\n")[0]
                            or f"{generate.__name__}(n, rng)", default_size=self.size, test_size=self.test_size,
                            bytes_per_op=self.bytes_per_op)
        fields = dict(self.kernel_fields)
        answers = fields.pop("known_answers", None)
        if answers is not None and not callable(answers):
            answers = functools.partial(list, answers)
        if answers is not None:
            fields["known_answers"] = answers
        fields.setdefault("describe_input", _describe)
        reference = self.reference
        return Kernel(self.id, self.description, self.unit, (kind,), lambda inputs: _call(reference, inputs),
                      baseline=self.baseline or (self.implementations[0].name if self.implementations else "naive"),
                      **fields)

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

    def _row(self, function: Optional[Callable], family: str, make_prepare: Callable, requires: tuple,
             options: dict) -> Any:
        def register(f: Callable) -> Callable:
            fields = dict(options)
            name = fields.pop("name", None) or f.__name__
            build = fields.pop("build", None)
            prepare = make_prepare(f)
            impl = self.add(name, fields.pop("family", family), prepare,
                            requires=tuple(fields.pop("requires", ())) + requires,
                            description=fields.pop("description", "") or (inspect.getdoc(f) or "").split("\n")[0],
                            build=build(prepare) if build else None, **fields)
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
        return self._row(function, "numba", lambda f: self._prepare(f, jit=True), ("module:numba",),
                         {"build": self._warm, **options})

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
                inputs = ({k: _as_list(v) for k, v in inputs.items()} if isinstance(inputs, dict)
                          else _as_list(inputs))
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

    def c(self, name: str, source: Union[str, Path], function: str, *, isa: Sequence[str] = (),
          flags: Sequence[str] = (), cdef: Optional[str] = None, **options: Any) -> Implementation:
        """A row in C: ``source`` is C text or a ``.c`` file (a path, relative to the declaring file), built with
        cffi through swarbench.cbuild (cached; a compile error is the row's ERROR, quoting the compiler at your
        file and line). ``function``'s parameters are matched by name: a pointer for each input array (``const``:
        inputs are read-only), ``out`` for the output array, ``n`` for the number of operations. Its pointer types
        must match the arrays' dtypes, ``out``'s the reference's (``uint8_t *out`` for uint8). ``isa=("avx2",)``
        compiles for that instruction set and requires it; the family is then "cffi-avx2", else "cffi-scalar",
        the plain C that reports measure "x C" against."""
        text, path = _c_source(source, self.folder)
        params = parse_c_function(text, function)
        declaration = cdef or c_declaration(text, function)
        isa = tuple(isa)
        family = PLAIN_C if not isa else "cffi-" + ("avx512" if isa[0].startswith("avx512") else isa[0])
        module_name = re.sub(r"\W", "_", f"{self.id}_{name}")
        build = functools.partial(_build_c, module_name, text, path, declaration, isa,
                                  tuple(flags) + (f"-I{self.folder}",), self.file)

        def prepare(workload):
            module = build()
            return _c_batch(self, module, function, params, workload)

        return self.add(name, options.pop("family", family), prepare,
                        requires=("cc", "module:cffi", *isa, *options.pop("requires", ())), build=build, **options)

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
    required = [name for name, p in params.items() if p.default is p.empty and name != "out"
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    anything = any(p.kind == p.VAR_KEYWORD for p in params.values())
    if any(name not in inputs for name in required) or not (anything or all(k in params for k in inputs)):
        raise TypeError(f"{function.__name__}({', '.join(params)}) must take the inputs by their names: "
                        f"{', '.join(inputs)} (and out, for an output array made for it)")


# -- C ---------------------------------------------------------------------------------------------------------------

def _c_source(source: Union[str, Path], folder: Path) -> tuple[str, Optional[Path]]:
    """(C text, its file or None): a Path or a one-line name ending in .c is a file beside the declaring one."""
    if isinstance(source, Path) or ("\n" not in source and source.strip().endswith(".c")):
        path = Path(source) if Path(source).is_absolute() else folder / source
        return path.read_text(), path.resolve()
    return source, None


class CParameter:
    def __init__(self, text: str):
        tokens = re.findall(r"[A-Za-z_]\w*|\*|\[\]", text.replace("[", " [").replace("]", "] "))
        if not tokens:
            raise ValueError(f"C parameter {text!r}")
        self.name = tokens[-1]
        self.pointer = "*" in tokens or "[]" in tokens
        star = tokens.index("*") if "*" in tokens else len(tokens)
        self.const = "const" in tokens[:star]
        self.type = " ".join(t for t in tokens[:-1] if t not in _QUALIFIERS and t not in ("*", "[]"))


def _find_function(text: str, function: str) -> re.Match:
    match = re.search(rf"(?m)^[ \t]*((?:[A-Za-z_][\w]*[\s\*]+)+?){re.escape(function)}\s*\(([^)]*)\)\s*\{{", text)
    if match is None:
        raise ValueError(f"no C function {function}(...) {{ ... }} in the source")
    return match


def parse_c_function(text: str, function: str) -> list[CParameter]:
    params = _find_function(text, function).group(2).strip()
    return [] if params in ("", "void") else [CParameter(p) for p in params.split(",")]


def c_declaration(text: str, function: str) -> str:
    """The function's declaration for cffi's cdef, from its definition (storage class and restrict dropped)."""
    match = _find_function(text, function)
    result = " ".join(t for t in match.group(1).split() if t not in ("static", "inline", "extern"))
    params = re.sub(r"\b(restrict|__restrict__|__restrict|volatile)\b", " ", match.group(2))
    params = " ".join(params.split()) or "void"
    return f"{result} {function}({params});"


def _line_in_file(text: str, file: str) -> str:
    """A #line directive that points the compiler's messages at the Python file holding the C text, where it
    is found there word for word (a raw string)."""
    if not file:
        return ""
    try:
        holder = Path(file).read_text()
    except OSError:
        return ""
    at = holder.find(text)
    if at < 0:
        return ""
    return f'#line {holder.count(chr(10), 0, at) + 1} "{file}"\n'


def _build_c(module_name: str, text: str, path: Optional[Path], cdef: str, isa: tuple, flags: tuple,
             holder: str = ""):
    """The row's cffi module; C text is first written to a file in the cache, named by its contents, for cffi to
    #include, with a #line pointing the compiler's messages at ``holder``, the Python file it was written in."""
    from swarbench import cbuild

    if path is None:
        folder = cbuild.cache_dir().parent / "sources"
        folder.mkdir(parents=True, exist_ok=True)
        body = _line_in_file(text, holder) + text
        path = folder / f"{module_name}_{hashlib.sha256(body.encode()).hexdigest()[:16]}.c"
        if not path.exists():
            scratch = path.with_suffix(f".{os.getpid()}.tmp")
            scratch.write_text(body)
            os.replace(scratch, path)
    return cbuild.build(module_name, path, cdef, isa, flags)


def _c_batch(declared: Declared, module, function: str, params: list[CParameter], workload):
    """The C function bound to the workload's arrays: pointers made here, in prepare, and checked against the
    arrays' dtypes; the timed call is the C function alone."""
    import numpy as np

    ffi, fn = module.ffi, getattr(module.lib, function)
    inputs = workload.inputs if isinstance(workload.inputs, dict) else {"input": workload.inputs}
    args, out = [], None
    for p in params:
        where = f"{function}'s parameter {p.name}"
        if p.pointer:
            want = C_DTYPES.get(p.type)
            if want is None:
                raise TypeError(f"{where} points to {p.type}: use a fixed-width type ({', '.join(C_DTYPES)})")
            if p.name == "out":
                out = declared.output_array(workload.size)
                if out.dtype != np.dtype(want):
                    raise TypeError(f"{where} is {p.type} *, but the reference returns {out.dtype} "
                                    f"(declare it {_c_type(out.dtype)} *out)")
                args.append(ffi.from_buffer(f"{p.type}[]", out))
                continue
            array = inputs.get(p.name)
            if not isinstance(array, np.ndarray):
                raise TypeError(f"{where} names no input array (inputs: {', '.join(inputs)}; out for the output)")
            if not p.const:
                raise TypeError(f"{where} must be const {p.type} *: inputs are read-only")
            if array.dtype != np.dtype(want) or not array.flags.c_contiguous:
                raise TypeError(f"{where} is {p.type} *, but input {p.name} is a {array.dtype} array "
                                f"(declare it const {_c_type(array.dtype)} *{p.name})")
            args.append(ffi.from_buffer(f"{p.type}[]", array))
        elif p.name == "n":
            args.append(workload.size)
        elif p.name in inputs and not isinstance(inputs[p.name], np.ndarray):
            args.append(inputs[p.name])
        else:
            raise TypeError(f"{where} is none of the inputs ({', '.join(inputs)}), out or n")
    if out is None:
        raise TypeError(f"{function} needs a parameter named out for its results")

    def batch():
        fn(*args)
        return out

    return batch


def _c_type(dtype) -> str:
    return next((c for c, d in C_DTYPES.items() if d == str(dtype)), str(dtype))

