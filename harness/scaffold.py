"""``swarbench new-plugin NAME --kernel ID``: write a plugin package that installs and runs as it stands.

The package is rendered from the files under ``templates/plugin/`` (package data): ``$name``-style fields in
their text (``string.Template``) and ``__package__``/``__operation__`` in their paths, ``.tmpl`` dropped. It holds
a pyproject with the entry point and the package data line for its C source, a kernel spec, a pure-Python and a C
implementation, and a test through swarbench.testing, as the cookiecutter templates of datasette and llm
plugins do. An existing folder is never written into.
"""

from __future__ import annotations

import os
import re
import string
from importlib import resources
from pathlib import Path
from typing import Iterator, Optional

from swarbench.errors import UsageError

TEMPLATE = "plugin"
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
PART = re.compile(r"[a-z_][a-z0-9_]*\Z")  # each part of a kernel id; the operation also names a C function


def check_kernel_id(kernel_id: str, taken: dict[str, str]) -> tuple[str, str]:
    """(suite, operation) of a new kernel id, or UsageError: the form, and not an id a loaded plugin has."""
    suite, dot, operation = kernel_id.partition(".")
    if not dot or not PART.match(suite) or not PART.match(operation):
        raise UsageError(
            f"--kernel {kernel_id!r} must be '<suite>.<operation>', each part lower-case letters, "
            f"digits and _ (e.g. 'parse8.checked')"
        )
    if kernel_id in taken:
        raise UsageError(f"kernel {kernel_id} already exists (plugin {taken[kernel_id]}): choose another id")
    return suite, operation


def fields(name: str, kernel_id: str, taken: Optional[dict[str, str]] = None) -> dict[str, str]:
    if not NAME.match(name):
        raise UsageError(f"plugin name {name!r} must start with a letter and hold only letters, digits, - and _")
    suite, operation = check_kernel_id(kernel_id, taken or {})
    return {
        "name": name,
        "package": name.lower().replace("-", "_"),
        "kernel_id": kernel_id,
        "suite": suite,
        "operation": operation,
    }


def _templates(folder) -> Iterator[tuple[tuple[str, ...], str]]:
    """(relative path parts, text) of every template file, walked through importlib.resources so it works from
    a wheel as from the source tree."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            for parts, text in _templates(entry):
                yield (entry.name, *parts), text
        elif entry.name.endswith(".tmpl"):
            yield (entry.name.removesuffix(".tmpl"),), entry.read_text(encoding="utf-8")


def render(values: dict[str, str]) -> dict[Path, str]:
    """{relative path: text} of the plugin package."""
    out = {}
    for parts, text in _templates(resources.files("swarbench") / "templates" / TEMPLATE):
        path = Path(
            *(p.replace("__package__", values["package"]).replace("__operation__", values["operation"]) for p in parts)
        )
        out[path] = string.Template(text).substitute(values)
    return out


def write(target: Path, files: dict[Path, str]) -> None:
    """Create ``target`` and the files under it; an existing ``target`` is refused, never written into."""
    try:
        target.mkdir(parents=True, exist_ok=False)
    except FileExistsError:
        raise UsageError(f"{target} already exists; new-plugin never writes into an existing folder") from None
    except OSError as exc:
        raise UsageError(f"cannot create {target}: {exc.strerror or exc}") from None
    for rel, text in files.items():
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        (target / rel).write_text(text, encoding="utf-8")


def new_plugin(name: str, kernel_id: str, parent: Path, taken: Optional[dict[str, str]] = None) -> Path:
    values = fields(name, kernel_id, taken)
    target = parent / name
    write(target, render(values))
    return target


# -- the sub-command ----------------------------------------------------------------------------------------
def add_parser(sub) -> None:
    p = sub.add_parser(
        "new-plugin",
        help="write a new plugin package: a kernel, a Python and a C implementation",
        description="Write a plugin package NAME/ (pyproject with the entry point and package data, "
        "a kernel spec, a pure-Python and a C implementation, a test) that `pip install` "
        "and `swarbench run --kernel ID` accept as it stands. See docs/plugins.md.",
    )
    p.add_argument("name", metavar="NAME", help="the distribution and folder name, e.g. swarbench-parse8")
    p.add_argument("--kernel", "-k", required=True, metavar="ID", help="the new kernel's id, e.g. parse8.checked")
    p.add_argument(
        "--into",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the folder to create NAME/ in (default: the current one)",
    )


def run(args, registry) -> int:
    taken = {kid: registry.owners.get(kid, "?") for kid in registry.kernels}
    target = new_plugin(args.name, args.kernel, args.into, taken)
    package = args.name.lower().replace("-", "_")
    where = str(target) if target.is_absolute() else f".{os.sep}{target}"  # pip reads a bare name as a project
    print(
        f"wrote {target}/ (plugin {args.name}, kernel {args.kernel}); next:\n"
        f"  pip install -e {where}\n"
        f"  swarbench run --kernel {args.kernel}\n"
        f"  pytest {target}/tests\n"
        f"then make {package}/spec.py your kernel's own (docs/plugins.md)"
    )
    return 0
