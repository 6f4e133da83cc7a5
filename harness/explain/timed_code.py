"""Which compiled code a batch runs, and that code's instructions.

The batch is called once more, after its timed passes, with a profiler set (``sys.setprofile``): every call of a
cffi function is a C call the profiler sees with the function object, which names its loaded module; a Numba
dispatcher reports each call of its compiled code as a call of its Python function. So what is disassembled is
what the timed calls called, from the module file that was loaded, not a build of the same source made again.

C: ``objdump -d`` of the module's file (GNU binutils, or llvm-objdump where that is all there is), from the
function the cffi wrapper calls, following the calls it makes inside the module. Numba: LLVM's assembly of the
signature the batch's arguments select (``Dispatcher.inspect_asm``).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from swarbench.explain import asm

OBJDUMP_ENV = "SWARBENCH_OBJDUMP"  # a path, or empty: "no objdump here" (what a machine without binutils sees)
OBJDUMP_TIMEOUT_S = 60
MOST_JIT_BYTES = 1 << 20  # a Numba function longer than this is read from LLVM's printout instead


@dataclass
class Called:
    """One compiled entry point a batch called."""

    kind: str  # "c" or "numba"
    name: str  # the C function's name, or the Python function's qualified name
    path: str = ""  # the loaded module's file (C)
    dispatcher: Any = None  # the Numba dispatcher
    signatures: list = field(default_factory=list)  # the dispatcher's compiled signatures the batch may have used


@dataclass
class Code:
    """Disassembled code: its functions, where a batch enters them, and what identifies it."""

    functions: dict[str, asm.Function]
    entry: list[str]  # the functions the batch's call reaches, the entry first
    origin: str  # "objdump of X.so" or "numba signature (...)"
    sha256: str
    loaded_at: int = 0  # where in memory address 0 of a JIT's code is (its samples are placed by it)


def called_by(batch: Callable[[], Any]) -> list[Called]:
    """The cffi functions and Numba dispatchers one call of ``batch`` calls, in the order first called."""
    c_calls: dict[tuple, Any] = {}
    codes: dict[Any, None] = {}

    def profile(frame, event, arg):
        if event == "c_call" and type(getattr(arg, "__self__", None)).__name__ == "Lib":  # a cffi module's
            c_calls.setdefault((arg.__module__, arg.__name__), arg)
        elif event == "call":
            codes[frame.f_code] = None

    # the threads the batch starts are followed too: a batch may call its C code on a thread of its own (the
    # Knuth rows do, to report progress meanwhile)
    before, threads_before = sys.getprofile(), threading.getprofile()
    threading.setprofile(profile)
    sys.setprofile(profile)
    try:
        batch()
    finally:
        sys.setprofile(before)
        threading.setprofile(threads_before)
    out = []
    for module, name in c_calls:
        path = getattr(sys.modules.get(module), "__file__", "") or ""
        out.append(Called("c", name, path))
    held = list(_reachable_objects(batch))
    for dispatcher in [o for o in held if _is_dispatcher(o)]:
        if getattr(dispatcher.py_func, "__code__", None) in codes:
            out.append(
                Called(
                    "numba",
                    dispatcher.py_func.__qualname__,
                    dispatcher=dispatcher,
                    signatures=_signatures_used(dispatcher, held),
                )
            )
    return out


def _is_dispatcher(obj) -> bool:
    return hasattr(obj, "py_func") and hasattr(obj, "overloads") and hasattr(obj, "inspect_asm")


def _reachable_objects(root, depth: int = 4):
    """What a callable holds: its closure, the globals its code names, its defaults, the objects a
    ``functools.partial`` or ``keepalive`` attribute holds, and the JIT functions and methods its code reaches
    through a module or object it holds (``_named_code``); a few levels deep, each object once."""
    seen, todo = set(), [(root, 0)]
    while todo:
        obj, level = todo.pop()
        if id(obj) in seen or level > depth:
            continue
        seen.add(id(obj))
        yield obj
        children = []
        if isinstance(obj, types.FunctionType):
            children += [c.cell_contents for c in obj.__closure__ or () if _filled(c)]
            children += list(obj.__defaults__ or ())
            names = set(_names(obj.__code__))
            children += [obj.__globals__[n] for n in names if n in obj.__globals__]
            children.append(getattr(obj, "keepalive", None))
            children += _named_code([h for h in children if _holder(h)], names)
        elif isinstance(obj, types.MethodType):
            children.append(obj.__func__)
            children += _named_code([obj.__self__], set(_names(obj.__func__.__code__)))
        elif isinstance(obj, functools.partial):
            children += [obj.func, *obj.args, *obj.keywords.values()]
        elif isinstance(obj, (list, tuple)) and len(obj) <= 64:
            children += list(obj)
        elif isinstance(obj, dict) and len(obj) <= 64:
            children += list(obj.values())
        if _is_dispatcher(obj) or type(obj).__name__ == "ndarray":
            children = []
        todo += [(c, level + 1) for c in children if c is not None and not isinstance(c, (types.ModuleType, type))]


def _holder(obj) -> bool:
    """A module or a plain object: what the code reaches through attributes (``k.play_shared``, ``work.solve``)."""
    return isinstance(obj, types.ModuleType) or (
        hasattr(obj, "__dict__") and not isinstance(obj, (type, types.FunctionType, types.MethodType))
    )


def _named_code(holders: list, names: set) -> list:
    """The JIT functions and bound methods that modules or objects the code holds have under the names the code
    uses (``k.play_shared``, ``work.solve``, ``self.kernel``): nothing else of theirs is followed."""
    out = []
    for holder in holders:
        for name in names:
            try:  # looked up statically first: a module's __getattr__ (NumPy's) may warn or import for a name
                value = inspect.getattr_static(holder, name, None)
                value = getattr(holder, name) if value is not None else None  # bound, as the code would call it
            except Exception:  # an attribute that raises
                continue
            if _is_dispatcher(value) or isinstance(value, types.MethodType):
                out.append(value)
    return out


def _filled(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # a cell not yet assigned
        return False
    return True


def _names(code) -> list[str]:
    out = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            out += _names(const)
    return out


def _signatures_used(dispatcher, held: list) -> list:
    """The compiled signatures the batch can have called: the only one, or those whose every argument type is
    the type of something the batch holds (its arrays and numbers)."""
    signatures = list(dispatcher.overloads)
    if len(signatures) <= 1:
        return signatures
    types_held = set()
    for obj in held:
        try:
            types_held.add(dispatcher.typeof_pyval(obj))
        except Exception:  # not a value numba can type
            continue
    fitting = [s for s in signatures if all(t in types_held for t in s)]
    return fitting or signatures


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def objdump() -> tuple[list[str] | None, str]:
    """The disassembler's command (GNU objdump, else llvm-objdump) and '' , or None and why there is none."""
    forced = os.environ.get(OBJDUMP_ENV)
    if forced is not None:
        if not forced:
            return None, f"no disassembler (${OBJDUMP_ENV} is empty)"
        return [forced], ""
    found = shutil.which("objdump") or next(
        (
            shutil.which(f"llvm-objdump{v}")
            for v in ["", *[f"-{n}" for n in range(30, 10, -1)]]
            if shutil.which(f"llvm-objdump{v}")
        ),
        None,
    )
    if not found:
        return None, "no objdump on this machine (GNU binutils or llvm)"
    return [found], ""


def disassemble_c(called: Called) -> tuple[Code | None, str]:
    """The module's code from its file, or None and why not."""
    command, why = objdump()
    if command is None:
        return None, why
    if not called.path or not os.path.exists(called.path):
        return None, f"the module of {called.name} has no file to read"
    sha256 = file_sha256(called.path)
    try:
        text, error = _disassembly(tuple(command), called.path, sha256)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{os.path.basename(command[0])} failed: {exc}"
    functions = asm.parse_objdump(text)
    if error or not functions:
        return None, (
            f"{os.path.basename(command[0])} could not read {os.path.basename(called.path)}: "
            f"{error or 'no functions in its output'}"
        )
    # The cffi wrapper (_cffi_f_NAME) calls NAME through the PLT; where NAME was inlined into it, it is the code
    entry = called.name if called.name in functions else f"_cffi_f_{called.name}"
    if entry not in functions:
        return None, f"{called.name} is not among the functions of {os.path.basename(called.path)}"
    reached = [f.name for f in asm.reachable(functions, entry)]
    return Code(functions, reached, f"{os.path.basename(command[0])} -d {os.path.basename(called.path)}", sha256), ""


@functools.lru_cache(maxsize=16)
def _disassembly(command: tuple, path: str, sha256: str) -> tuple[str, str]:
    """objdump's text of a module (kept per file and contents: the split variants share their module), and its
    first error line ('' for none)."""
    out = subprocess.run(
        [*command, "-d", "--no-show-raw-insn", "-w", path],
        check=False,
        capture_output=True,
        text=True,
        timeout=OBJDUMP_TIMEOUT_S,
    )
    return out.stdout, "" if out.returncode == 0 else (out.stderr.strip().splitlines() or ["failed"])[0]


def numba_identity(called: Called) -> list:
    """What decides a Numba signature's code, known before compiling: the source file, the function, the
    signature, numba's version and the CPU it compiles for."""
    import numba
    from llvmlite import binding

    fn = called.dispatcher.py_func
    source = getattr(fn.__code__, "co_filename", "")
    try:
        source_hash = file_sha256(source)
    except OSError:
        source_hash = ""
    return [
        "numba",
        source_hash,
        fn.__qualname__,
        [str(s) for s in called.signatures[:1]],
        numba.__version__,
        binding.get_host_cpu_name(),
        binding.get_host_cpu_features().flatten(),
    ]


def numba_code(called: Called) -> tuple[Code | None, str]:
    """LLVM's assembly of the signature the batch used, or None and why not. Code numba loaded from its cache
    cannot be printed (numba keeps no assembly of it): the same function is compiled again for the same
    signature, with the same options, and that is printed, as the origin says."""
    if not called.signatures:
        return None, f"{called.name} has no compiled signature"
    signature = called.signatures[0]
    dispatcher, again = called.dispatcher, ""
    try:
        if getattr(dispatcher.overloads[signature].library, "_disable_inspection", False):
            again = "; loaded from numba's cache, so compiled again from its source for this listing"
            text = _recompiled_asm(dispatcher, signature, numba_identity(called))
        else:
            text = dispatcher.inspect_asm(signature)
    except Exception as exc:  # numba's own failure, said in a line
        return None, f"numba could not print the assembly of {called.name}: {type(exc).__name__}: {exc}"
    functions = asm.parse_llvm(text)
    if not functions:
        return None, f"no functions in numba's assembly of {called.name}"
    shown = ", ".join(str(t) for t in signature)
    more = f" (one of {len(called.signatures)} compiled signatures that fit)" if len(called.signatures) > 1 else ""
    # the compiled function proper first, then numba's wrappers (which call it)
    names = sorted(functions, key=lambda n: n.startswith(("_ZN7cpython", "cfunc.")))
    return Code(
        functions, names, f"numba {called.name}({shown}){more}{again}", hashlib.sha256(text.encode()).hexdigest()
    ), ""


def _recompiled_asm(dispatcher, signature, key: list) -> str:
    """The assembly of a signature numba loaded from its cache: the function compiled again, with the same
    options, for the same signature (seconds), kept in the cache folder under what decides its code."""
    from swarbench.cbuild import cache_dir

    path = cache_dir().parent / "explain" / f"numba-{hashlib.sha256(repr(key).encode()).hexdigest()[:24]}.s"
    try:
        return path.read_text()
    except OSError:
        pass
    import numba

    options = {k: v for k, v in dispatcher.targetoptions.items() if k != "nopython"}  # (njit sets it itself)
    again = numba.njit(**options)(dispatcher.py_func)
    again.compile(signature)
    text = again.inspect_asm(signature)
    try:
        from swarbench import files

        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, text)
    except OSError:
        pass
    return text


def identity(called: Called) -> list:
    """What the analysis of a called entry depends on, cheap to find: a C module's hash and function, or what
    decides a Numba signature's code."""
    if called.kind == "c":
        return [
            "c",
            file_sha256(called.path) if called.path and os.path.exists(called.path) else called.path,
            called.name,
        ]
    return numba_identity(called)


def code_of(called: Called) -> tuple[Code | None, str]:
    """The code of a called entry: a C module's from its file; a Numba signature's machine code as loaded, read
    from the JIT's memory, or where that cannot be read, LLVM's printout of it."""
    if called.kind == "c":
        return disassemble_c(called)
    code, why = numba_machine_code(called)
    return (code, why) if code is not None else numba_code(called)


def numba_machine_code(called: Called) -> tuple[Code | None, str]:
    """The machine code numba's JIT holds for the signature: its bytes, from the function's address to the next
    function of its library (its wrapper), disassembled by GNU objdump as raw x86-64."""
    import ctypes
    import tempfile

    command, why = objdump()
    if command is None or "llvm" in os.path.basename(command[0]) or not called.signatures:
        return None, why or "llvm-objdump reads no raw bytes here"
    signature = called.signatures[0]
    try:
        result = called.dispatcher.overloads[signature]
        library, names = result.library, result.fndesc
        start = library.get_pointer_to_function(names.llvm_func_name)
        ends = [
            a
            for a in (library.get_pointer_to_function(n) for n in (names.llvm_cpython_wrapper_name,))
            if a and a > start
        ]
    except Exception as exc:  # a numba without these internals: LLVM's printout instead
        return None, f"numba keeps no address of {called.name}'s code ({type(exc).__name__})"
    if not start or not ends or ends[0] - start > MOST_JIT_BYTES:
        return None, f"the end of {called.name}'s code in memory is unknown"
    data = ctypes.string_at(start, ends[0] - start)
    with tempfile.NamedTemporaryFile(suffix=".bin") as fh:
        fh.write(data)
        fh.flush()
        out = subprocess.run(
            [*command, "-D", "-b", "binary", "-m", "i386:x86-64", "--no-show-raw-insn", "-w", fh.name],
            check=False,
            capture_output=True,
            text=True,
            timeout=OBJDUMP_TIMEOUT_S,
        )
    functions = asm.parse_objdump(out.stdout)
    if out.returncode != 0 or len(functions) != 1:
        return None, f"objdump could not read {called.name}'s bytes"
    name = names.llvm_func_name
    function = next(iter(functions.values()))
    function.name = name
    shown = ", ".join(str(t) for t in signature)
    return Code(
        {name: function},
        [name],
        f"numba {called.name}({shown}): its machine code as loaded, {len(data):,} bytes read from memory",
        hashlib.sha256(data).hexdigest(),
        start,
    ), ""


def short_name(name: str, most: int = 60) -> str:
    """A mangled Numba name as a reader knows it (``_ZN...6jitted13contains_swarB2v1...`` -> ``contains_swar``)."""
    if not name.startswith("_ZN"):
        return name if len(name) <= most else name[: most - 3] + "..."
    parts, i = [], 3
    while i < len(name) and name[i].isdigit():
        digits = re.match(r"\d+", name[i:]).group()
        i += len(digits)
        parts.append(name[i : i + int(digits)])
        i += int(digits)
    if not parts:
        return name[:most]
    return ("cpython wrapper of " if parts[0] == "cpython" else "") + parts[-1]
