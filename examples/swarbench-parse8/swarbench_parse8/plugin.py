"""The hooks: the kernel first (every plugin's kernels are registered before any implementation), then its
competitors. Nothing is built or compiled here; that happens in each prepare, for the implementations a run
selects."""
from swarbench import Implementation, hookimpl

from . import jit, native, python
from .spec import PARSE8

KERNEL = PARSE8.id


@hookimpl
def swarbench_add_kernels(registry):
    registry.add_kernel(PARSE8)


@hookimpl
def swarbench_add_implementations(registry):
    for impl in (
        Implementation(KERNEL, "naive", "python-naive", python.naive, description="a loop over the eight bytes"),
        Implementation(KERNEL, "swar", "python-swar", python.swar,
                       description="Lemire's check and three multiplications, on Python ints"),
        Implementation(KERNEL, "swar-nibble-check", "python-swar", python.swar_nibble_check,
                       description="checks the high nibbles only",
                       expected_to_fail="checks only each byte's high nibble, so ':' to '?' pass for digits"),
        Implementation(KERNEL, "numpy-swar", "numpy", python.numpy_swar, requires=("module:numpy",),
                       description="the SWAR steps over the whole array"),
        Implementation(KERNEL, "numba-swar", "numba", jit.numba_swar, requires=("module:numba",),
                       description="the SWAR steps in a compiled loop"),
        Implementation(KERNEL, "c-naive", "cffi", native.c_function("parse8_naive"), requires=("cc",),
                       description="the byte loop in C"),
        Implementation(KERNEL, "c-swar", "cffi", native.c_function("parse8_swar"), requires=("cc",),
                       description="Lemire's check and parse in C"),
    ):
        registry.add_implementation(impl)
