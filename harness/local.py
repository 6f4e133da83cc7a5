"""Local plugins: your own kernels in a file or folder beside your code, with no package and no ``pip install``.

Where they come from, in this order (the first that gives any wins, as pytest's arguments win over its
testpaths):

- the files and folders named on the command line (``swarbench run bench_zero.py``) and the ``plugins`` option
  (``--plugin``, or ``plugins = [...]`` in ``[tool.swarbench]``): a ``.py`` file, a folder (each ``.py`` file
  in it whose name does not start with ``_``), or a dotted module name importable from the folder you run from;
- else the ``benchmarks/`` folder of the folder you run from, found the way asv finds its benchmarks/ and
  pytest its conftest.py.

Each module is one plugin, named by its path as you gave it (``benchmarks/zero.py``), and registered through
the same pluggy registry as an installed plugin (swarbench.registry), with the same isolation: a module that
fails to import or to register is one line naming it, and the rest of the run goes on. A file's folder is put
on ``sys.path`` first, as pytest does for a test file, so it can import the modules beside it.

The benchmark workers are fresh processes: each is handed the same sources (``arg``/``from_arg``) and imports
them again.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from swarbench.errors import UsageError

FOLDER = "benchmarks"  # found in the folder swarbench runs from


@dataclass(frozen=True)
class LocalSource:
    """One local plugin module: a file (``path``) or a dotted module name (``module``, imported with ``root`` on
    sys.path). ``name`` is how lists, reports and --disable-plugin name it."""

    name: str
    path: str = ""  # absolute
    module: str = ""
    root: str = ""  # absolute: the folder a module name is imported from

    @property
    def arg(self) -> str:
        """The source as one word of a worker's command line."""
        return json.dumps({"name": self.name, "path": self.path, "module": self.module, "root": self.root})

    @classmethod
    def from_arg(cls, text: str) -> LocalSource:
        return cls(**json.loads(text))

    @property
    def file(self) -> Optional[Path]:
        """The module's file, where it is known before importing it."""
        return Path(self.path) if self.path else None

    def load(self) -> object:
        """Import the module (once per process); what it raises is its plugin's failure."""
        if self.module:
            if self.root and self.root not in sys.path:
                sys.path.insert(0, self.root)
            return importlib.import_module(self.module)
        return import_file(Path(self.path))


def import_file(path: Path) -> object:
    """A .py file imported as a module named after it, its folder first on sys.path (pytest's "prepend" way); a
    module of that name already imported from another file is refused rather than silently used."""
    if not path.is_file():
        raise FileNotFoundError(f"no file {path}")
    name = path.stem
    if not name.isidentifier():
        raise ImportError(f"{path.name}: a module name must be a Python identifier (letters, digits and _)")
    loaded = sys.modules.get(name)
    if loaded is not None:
        if os.path.realpath(getattr(loaded, "__file__", "") or "") == os.path.realpath(path):
            return loaded
        raise ImportError(
            f"module name {name!r} is taken by {getattr(loaded, '__file__', None) or 'a built-in '}"
            f"module; rename {path.name}"
        )
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _folder_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_") and p.is_file())


def _shown(path: Path, cwd: Path) -> str:
    """A path as a plugin's name: relative to the folder run from where it lies below it."""
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return str(path)


def sources(given: Iterable[str] = (), cwd: Optional[Path] = None, discover: bool = True) -> list[LocalSource]:
    """The local plugins of a run: those ``given`` (files, folders, module names, or sources as ``arg`` writes
    them), else (``discover``) the files of ./benchmarks/. A name that is none of these is refused in one line
    (UsageError)."""
    cwd = Path(cwd or os.getcwd())
    given = list(given)
    out: list[LocalSource] = []
    for text in given:
        if text.startswith("{"):
            out.append(LocalSource.from_arg(text))
            continue
        path = Path(text) if Path(text).is_absolute() else cwd / text
        if path.is_dir():
            files = _folder_files(path)
            if not files:
                raise UsageError(f"plugin folder {text} holds no .py file")
            out += [LocalSource(_shown(f, cwd), path=str(f.resolve())) for f in files]
        elif path.is_file():
            if path.suffix != ".py":
                raise UsageError(f"plugin {text}: expected a .py file, a folder or a module name")
            out.append(LocalSource(_shown(path, cwd), path=str(path.resolve())))
        elif text.endswith(".py") or "/" in text or os.sep in text:
            raise UsageError(f"no plugin file or folder {text}")
        elif all(part.isidentifier() for part in text.split(".")):
            out.append(LocalSource(text, module=text, root=str(cwd.resolve())))
        else:
            raise UsageError(f"plugin {text!r}: expected a .py file, a folder or a module name")
    if not given and discover and (cwd / FOLDER).is_dir():
        out = [LocalSource(_shown(f, cwd), path=str(f.resolve())) for f in _folder_files(cwd / FOLDER)]
    seen: dict[str, LocalSource] = {}
    for source in out:
        seen.setdefault(source.name, source)
    return list(seen.values())
