"""The hooks: the kernel first (every plugin's kernels are registered before any implementation), then its
competitors. Nothing is built or compiled here: a run calls the ``build`` of the implementations it selects
side by side before its first worker, and each prepare builds (or loads) again."""

from swarbench import Implementation, hookimpl
from swarbench.prebuild import build_by_preparing

from . import jit, native, python
from .spec import PARSE8

KERNEL = PARSE8.id


@hookimpl
def swarbench_add_kernels(registry):
    registry.add_kernel(PARSE8)


@hookimpl
def swarbench_add_implementations(registry):
    # the numba row compiles in the run's build step, beside the C module: prepared on a test-size workload
    (numba_swar,) = build_by_preparing(
        [
            Implementation(
                KERNEL,
                "numba-swar",
                "numba",
                jit.numba_swar,
                requires=("module:numba",),
                description="the SWAR steps in a compiled loop",
            )
        ],
        [PARSE8],
    )
    for impl in (
        Implementation(KERNEL, "naive", "python-naive", python.naive, description="a loop over the eight bytes"),
        Implementation(
            KERNEL,
            "swar",
            "python-swar",
            python.swar,
            description="Lemire's check and three multiplications, on Python ints",
        ),
        Implementation(
            KERNEL,
            "swar-nibble-check",
            "python-swar",
            python.swar_nibble_check,
            description="checks the high nibbles only",
            expected_to_fail="checks only each byte's high nibble, so ':' to '?' pass for digits",
        ),
        Implementation(
            KERNEL,
            "numpy-swar",
            "numpy",
            python.numpy_swar,
            requires=("module:numpy",),
            description="the SWAR steps over the whole array",
        ),
        numba_swar,
        Implementation(
            KERNEL,
            "c-naive",
            "cffi-scalar",
            native.c_function("parse8_naive"),
            requires=("cc",),
            description="the byte loop in C",
            build=native.build_module,
        ),
        Implementation(
            KERNEL,
            "c-swar",
            "cffi-scalar",
            native.c_function("parse8_swar"),
            requires=("cc",),
            description="Lemire's check and parse in C",
            build=native.build_module,
        ),
    ):
        registry.add_implementation(impl)
