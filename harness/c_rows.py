"""A C function as a row of a kernel declared with swarbench.declare: its parameters bound by name to a
workload's arrays, their types checked against the arrays' dtypes, and the function built with cffi through
swarbench.cbuild.

The function's parameters are matched by name: a ``const`` pointer for each input array (inputs are read-only),
``out`` for the output array (made before timing, of the reference's dtype), ``n`` for the number of operations,
and any other name for a scalar input. Its declaration for cffi is taken from its definition. C text given as a
string is written to a file in the build cache, named by its contents, with a ``#line`` directive pointing the
compiler's messages at the Python file that holds the text.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any, Callable, Optional, Union

# C types a parameter may have, and the NumPy dtype of an array it points to
C_DTYPES = {
    "uint8_t": "uint8",
    "int8_t": "int8",
    "uint16_t": "uint16",
    "int16_t": "int16",
    "uint32_t": "uint32",
    "int32_t": "int32",
    "uint64_t": "uint64",
    "int64_t": "int64",
    "float": "float32",
    "double": "float64",
    "_Bool": "bool",
    "bool": "bool",
}
_QUALIFIERS = {"const", "restrict", "__restrict", "__restrict__", "volatile"}


class CRow:
    """One C function of a row: where its source is, how to build it, and how to bind it to a workload."""

    def __init__(
        self,
        module_name: str,
        source: Union[str, Path],
        function: str,
        folder: Path,
        holder: str,
        isa: tuple,
        flags: tuple,
        cdef: Optional[str] = None,
    ):
        self.text, self.path = _c_source(source, folder)
        self.function, self.holder, self.module_name, self.isa = function, holder, module_name, isa
        self.params = parse_c_function(self.text, function)
        self.cdef = cdef or c_declaration(self.text, function)
        self.flags = flags + (f"-I{folder}",)

    def build(self):
        """The row's cffi module (swarbench.cbuild: compiled once, then loaded from its cache)."""
        from swarbench import cbuild

        path = self.path
        if path is None:
            folder = cbuild.cache_dir().parent / "sources"
            folder.mkdir(parents=True, exist_ok=True)
            body = _line_in_file(self.text, self.holder) + self.text
            path = folder / f"{self.module_name}_{hashlib.sha256(body.encode()).hexdigest()[:16]}.c"
            if not path.exists():
                scratch = path.with_suffix(f".{os.getpid()}.tmp")
                scratch.write_text(body)
                os.replace(scratch, path)
        return cbuild.build(self.module_name, path, self.cdef, self.isa, self.flags)

    def prepare(self, output: Callable[[int], Any], workload):
        """The batch: the C function bound to the workload's arrays, pointers made here and checked against the
        arrays' dtypes; ``output(n)`` makes the output array. The timed call is the C function alone."""
        return _c_batch(self.build(), self.function, self.params, workload, output)


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


def _c_batch(module, function: str, params: list[CParameter], workload, output: Callable[[int], Any]):
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
                out = output(workload.size)
                if out.dtype != np.dtype(want):
                    raise TypeError(
                        f"{where} is {p.type} *, but the reference returns {out.dtype} "
                        f"(declare it {_c_type(out.dtype)} *out)"
                    )
                args.append(ffi.from_buffer(f"{p.type}[]", out))
                continue
            array = inputs.get(p.name)
            if not isinstance(array, np.ndarray):
                raise TypeError(f"{where} names no input array (inputs: {', '.join(inputs)}; out for the output)")
            if not p.const:
                raise TypeError(f"{where} must be const {p.type} *: inputs are read-only")
            if array.dtype != np.dtype(want) or not array.flags.c_contiguous:
                raise TypeError(
                    f"{where} is {p.type} *, but input {p.name} is a {array.dtype} array "
                    f"(declare it const {_c_type(array.dtype)} *{p.name})"
                )
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
