"""swarbench: check, time and compare competing implementations of bit-parallel game kernels.

The names a plugin needs are imported on first use (PEP 562): pytest loads swarbench's plugin into every
session of the environment, and ``import swarbench`` must cost another project nothing.
"""

from __future__ import annotations

import importlib

__all__ = [
    "hookimpl",
    "Kernel",
    "Implementation",
    "Workload",
    "WorkloadKind",
    "KnownAnswer",
    "Mismatch",
    "InvalidInput",
    "TooSlow",
    "SuiteReport",
    "ReportSection",
    "LineChart",
    "Command",
    "Parameter",
    "run",
    "load",
    "compare",
    "report",
    "plugins",
    "declare",
]
_FROM_API = frozenset({"run", "load", "compare", "report", "plugins"})  # the library API (docs/api.md)
_FROM_MODEL = frozenset(__all__) - {"hookimpl", "declare"} - _FROM_API


def __getattr__(name: str):
    if name == "hookimpl":
        import pluggy

        value = pluggy.HookimplMarker("swarbench")
    elif name == "declare":  # kernels and rows as plain functions
        value = importlib.import_module("swarbench.declared").declare
    elif name in _FROM_API:
        value = getattr(importlib.import_module("swarbench.api"), name)
    elif name in _FROM_MODEL:
        value = getattr(importlib.import_module("swarbench.model"), name)
    else:
        raise AttributeError(f"module 'swarbench' has no attribute {name!r}")
    globals()[name] = value  # once: later lookups find it without this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
