"""Build C kernels with cffi in API mode, once, into a cache keyed by everything that changes the binary.

Each module is built from one ``.c`` file with the flags of one instruction set (``-mavx2``), never with
``-march=native``, so a binary only uses instructions its run-time check cleared. The cache key covers the
source text, the cdef, the flags, the compiler's version line, the Python ABI and the cffi version; a change to
any of them builds a new module. Two runs building the same module at once each compile in a private temporary
folder and move the result into place with an atomic rename, so neither ever imports a half-written file.

A failed build says whose fault it is. The source is #included by its path, so the compiler's first error names
the source's own file and line (``parse8.c:10:50: error: ...``), not the file cffi generates: that is a
``BuildError``, which a run reports as ERROR. A machine that cannot build at all (no compiler, a compiler without
the flags, no Python headers) raises ``CannotBuildHere``, a SKIP like a missing CPU feature.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Sequence

from swarbench import features

# swarbench.cbuild.aligned_empty was the documented helper before swarbench.memory: plugins written against it keep working
from swarbench.memory import aligned_empty  # noqa: F401

_loaded: dict[str, ModuleType] = {}
_lock = threading.Lock()
# -g0 overrides the -g in Python's own CFLAGS: the debug information nobody reads took a third of each compile,
# and it never changes the code generated
BASE_FLAGS = ["-O3", "-fno-strict-aliasing", "-g0"]


class BuildError(RuntimeError):
    """The C compiler refused a source; the message is the compiler's first error line, at the source's own file
    and line. A run reports it as ERROR: the source is wrong, and the run exits 1."""


class CannotBuildHere(BuildError):
    """This machine cannot build C at all, or not with these flags: no compiler, a compiler without the
    instruction set's flags, no Python headers. A run reports it as SKIP with the reason, like a missing CPU
    feature; the source itself may be fine."""


# What the compiler says when the machine, not the source, is at fault (gcc, then clang's wording).
_MACHINE_AT_FAULT = re.compile(
    r"unrecognized command[- ]line option|unknown argument|unsupported option|"
    r"Python\.h: No such file|No module named|command '[^']*' failed: No such file"
)


def cache_dir() -> Path:
    root = os.environ.get("SWARBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "swarbench"
    )
    return Path(root) / "cffi"


def _key(parts: Sequence[str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


@contextlib.contextmanager
def _stderr_to(path: Path):
    """The compiler writes its diagnostics to fd 2 directly; catch them so the error can be quoted."""
    sys.stderr.flush()
    saved = os.dup(2)
    with open(path, "wb") as fh:
        os.dup2(fh.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


def _first_error(log: str, fallback: str, source: Path) -> str:
    """The compiler's first error, preferring one at the source's own file (``parse8.c:10:5: error: ...``) over
    one in the file cffi generates around it."""
    errors = [line.strip() for line in log.splitlines() if re.search(r"\berror\b", line)]
    own = [line for line in errors if line.startswith(str(source))]
    if own or errors:
        return (own or errors)[0]
    return fallback.strip().splitlines()[0] if fallback.strip() else "C build failed"


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def build(name: str, source: Path, cdef: str, isa: Sequence[str] = (), extra_flags: Sequence[str] = ()) -> ModuleType:
    """Return the compiled cffi module (with ``.ffi`` and ``.lib``) for ``source`` built for ``isa``.

    ``name`` is a short identifier ("cards_avx2"); ``isa`` lists feature names from ``features.ISA_FLAGS``.
    """
    from cffi import FFI  # imported here so a machine without cffi can still list and run other families

    version, why = features.compiler()
    if not version:
        raise CannotBuildHere(f"no C compiler: {why}")
    source = Path(source).resolve()
    text = source.read_text()
    flags = BASE_FLAGS + features.isa_flags(tuple(isa)) + list(extra_flags)
    import cffi

    headers = [h.read_text() for h in sorted(Path(source).parent.glob("*.h"))]  # a changed header must rebuild
    key = _key(
        [
            text,
            *headers,
            cdef,
            " ".join(flags),
            version,
            sysconfig.get_config_var("EXT_SUFFIX") or "",
            sys.version,
            cffi.__version__,
        ]
    )
    modname = f"_swarbench_{name}_{key}"
    with _lock:
        if modname in _loaded:
            return _loaded[modname]
        folder = cache_dir()
        folder.mkdir(parents=True, exist_ok=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
        target = folder / f"{modname}{suffix}"
        if not target.exists():
            ffi = FFI()
            ffi.cdef(cdef)
            # The source is #included by its path rather than pasted into cffi's generated file, so the compiler
            # names the source's own file and line in its errors; it finds the headers beside the source too.
            ffi.set_source(
                modname,
                f'#include "{_c_string(str(source))}"\n',
                extra_compile_args=flags,
                include_dirs=[str(source.parent)],
            )
            with tempfile.TemporaryDirectory(dir=folder, prefix=f".build-{name}-") as tmp:
                log = Path(tmp) / "compiler.log"
                try:
                    with _stderr_to(log):
                        built = ffi.compile(tmpdir=tmp, verbose=False)
                except Exception as exc:
                    said = log.read_text(errors="replace")
                    error = _first_error(said, str(exc), source)
                    fault = CannotBuildHere if _MACHINE_AT_FAULT.search(error + "\n" + str(exc)) else BuildError
                    raise fault(f"{error} (building {source.name} with {' '.join(flags)})") from None
                os.replace(built, target)
        spec = importlib.util.spec_from_file_location(modname, target)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[modname] = module
        return module
