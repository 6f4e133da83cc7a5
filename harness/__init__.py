"""swarbench: check, time and compare competing implementations of bit-parallel game kernels."""
import pluggy

from swarbench.model import (  # noqa: F401  (the public API a plugin needs)
    Command,
    Implementation,
    InvalidInput,
    Kernel,
    KnownAnswer,
    LineChart,
    ReportSection,
    SuiteReport,
    Mismatch,
    Parameter,
    TooSlow,
    Workload,
    WorkloadKind,
)

hookimpl = pluggy.HookimplMarker("swarbench")

__all__ = ["hookimpl", "Kernel", "Implementation", "Workload", "WorkloadKind", "KnownAnswer", "Mismatch",
           "InvalidInput", "TooSlow", "SuiteReport", "ReportSection", "LineChart",
           "Command", "Parameter"]
