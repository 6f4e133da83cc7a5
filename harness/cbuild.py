"""Build C kernels with cffi in API mode, once, into a cache keyed by everything that changes the binary.

Each module is built from one ``.c`` file with the flags of one instruction set (``-mavx2``), never with
``-march=native``, so a binary only uses instructions its run-time check cleared. The cache key covers the
source text, the cdef, the flags, the compiler's version line, the Python ABI and the cffi version; a change to
any of them builds a new module. Two runs building the same module at once each compile in a private temporary
folder and move the result into place with an atomic rename, so neither ever imports a half-written file.
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
BASE_FLAGS = ["-O3", "-fno-strict-aliasing"]


class BuildError(RuntimeError):
    """The C compiler refused a source; the message is the compiler's first error line."""


def cache_dir() -> Path:
    root = os.environ.get("SWARBENCH_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "swarbench")
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


def _first_error(log: str, fallback: str) -> str:
    for line in log.splitlines():
        if re.search(r"\berror\b", line):
            return line.strip()
    return fallback.strip().splitlines()[0] if fallback.strip() else "C build failed"


def build(name: str, source: Path, cdef: str, isa: Sequence[str] = (), extra_flags: Sequence[str] = ()) -> ModuleType:
    """Return the compiled cffi module (with ``.ffi`` and ``.lib``) for ``source`` built for ``isa``.

    ``name`` is a short identifier ("cards_avx2"); ``isa`` lists feature names from ``features.ISA_FLAGS``.
    """
    from cffi import FFI  # imported here so a machine without cffi can still list and run other families

    version, why = features.compiler()
    if not version:
        raise BuildError(f"no C compiler: {why}")
    text = Path(source).read_text()
    flags = BASE_FLAGS + features.isa_flags(tuple(isa)) + list(extra_flags)
    import cffi

    headers = [h.read_text() for h in sorted(Path(source).parent.glob("*.h"))]  # a changed header must rebuild
    key = _key([text, *headers, cdef, " ".join(flags), version, sysconfig.get_config_var("EXT_SUFFIX") or "",
                sys.version, cffi.__version__])
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
            # The source is compiled as given; include paths let a .c file include headers beside it.
            ffi.set_source(modname, text, extra_compile_args=flags, include_dirs=[str(Path(source).parent)])
            with tempfile.TemporaryDirectory(dir=folder, prefix=f".build-{name}-") as tmp:
                log = Path(tmp) / "compiler.log"
                try:
                    with _stderr_to(log):
                        built = ffi.compile(tmpdir=tmp, verbose=False)
                except Exception as exc:
                    raise BuildError(f"{Path(source).name} {' '.join(flags)}: "
                                     f"{_first_error(log.read_text(errors='replace'), str(exc))}") from None
                os.replace(built, target)
        spec = importlib.util.spec_from_file_location(modname, target)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loaded[modname] = module
        return module
