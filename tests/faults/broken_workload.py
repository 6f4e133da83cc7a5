"""A kernel whose workload cannot be built: its implementation ends in ERROR before its size is known."""

import numpy as np

from swarbench import Implementation, hookimpl
from swarbench.model import Kernel, WorkloadKind


def _build(size, seed):
    raise RuntimeError("the generator's own bug")


@hookimpl
def swarbench_add_kernels(registry):
    registry.add_kernel(
        Kernel(
            "faults.broken",
            "a kernel whose generator raises",
            "item",
            [WorkloadKind("items", _build, "never built", default_size=8)],
            reference=lambda inputs: np.zeros(0),
        )
    )


@hookimpl
def swarbench_add_implementations(registry):
    registry.add_implementation(
        Implementation("faults.broken", "naive", "python-naive", lambda workload: lambda: np.zeros(0))
    )
