"""Kernels whose specs go wrong, one hook each (swarbench.spec_guard): every one is blamed on its kernel's spec,
once, and no implementation of it is reported broken for it. Each kernel doubles a row of integers; ``naive``
is right and ``wrong`` is off by one at index 3."""

import numpy as np

from swarbench import Implementation, hookimpl
from swarbench.model import Kernel, KnownAnswer, WorkloadKind

GOOD_ANSWER = KnownAnswer("two", {"x": np.array([1, 2], dtype=np.int64)}, np.array([2, 4], dtype=np.int64), "test")


def build(size, seed):
    return {"x": np.arange(size, dtype=np.int64)}, size


def reference(inputs):
    return inputs["x"] * 2


def only_large(hook):
    """A hook that fails on the workload only (the known answers have two operations), so the run's check of
    plugin specs before any worker passes it and the worker meets the fault."""

    def call(*args):
        inputs = args[0] if not isinstance(args[0], np.ndarray) or len(args) == 1 else args[2]
        x = inputs["x"] if isinstance(inputs, dict) else inputs
        if len(x) > 2:
            raise RuntimeError(f"the {hook}'s own bug")
        return {"reference": reference, "validate": lambda i: None}[hook](*args)

    return call


def kernel(kid, kinds=None, **hooks):
    hooks.setdefault("reference", reference)
    hooks.setdefault("known_answers", lambda: [GOOD_ANSWER])
    return Kernel(
        kid,
        f"a kernel whose {kid.split('.')[1]} goes wrong",
        "item",
        kinds or [WorkloadKind("items", build, "a row of integers", default_size=64)],
        **hooks,
    )


def returning(value):
    return lambda size, seed: ({"x": np.arange(size, dtype=np.int64)}, value)


KERNELS = [
    kernel("spec.generator", [WorkloadKind("items", lambda size, seed: 1 / 0, "raises", default_size=64)]),
    kernel("spec.negative", [WorkloadKind("items", returning(-5), "n = -5", default_size=64)]),
    kernel("spec.zero", [WorkloadKind("items", returning(0), "n = 0", default_size=64)]),
    kernel("spec.fraction", [WorkloadKind("items", returning(2.5), "n = 2.5", default_size=64)]),
    kernel("spec.nan", [WorkloadKind("items", returning(float("nan")), "n = nan", default_size=64)]),
    kernel("spec.untupled", [WorkloadKind("items", lambda size, seed: np.arange(size), "no tuple", default_size=64)]),
    kernel("spec.validate", validate=only_large("validate")),
    kernel("spec.reference", reference=only_large("reference")),
    kernel("spec.nothing", reference=lambda inputs: None if len(inputs["x"]) > 2 else reference(inputs)),
    kernel("spec.compare", compare=lambda expected, got, inputs: 1 / 0 if len(got) > 2 else None),
    kernel("spec.describe", describe_input=lambda inputs, i: 1 / 0),
    kernel("spec.summarize", summarize=lambda outputs: 1 / 0),
    kernel("spec.summary-type", summarize=lambda outputs: [1, 2]),
    kernel(
        "spec.expected",
        [WorkloadKind("items", build, "published outputs that raise", default_size=64, expected=lambda inputs: 1 / 0)],
    ),
    kernel("spec.known-raises", known_answers=lambda: 1 / 0),
    kernel("spec.known-tuples", known_answers=lambda: [("two", {"x": np.array([1])}, np.array([2]), "test")]),
    kernel("spec.known-validate", validate=lambda inputs: int("x")),
]


def naive(workload):
    x = workload.inputs["x"]
    return lambda: x * 2


def wrong(workload):
    x = workload.inputs["x"]

    def batch():
        out = x * 2
        if len(out) > 3:
            out[3] += 1
        return out

    return batch


@hookimpl
def swarbench_add_kernels(registry):
    for k in KERNELS:
        registry.add_kernel(k)


@hookimpl
def swarbench_add_implementations(registry):
    for k in KERNELS:
        registry.add_implementation(Implementation(k.id, "naive", "python-naive", naive))
        if k.id == "spec.describe":
            registry.add_implementation(Implementation(k.id, "wrong", "python-naive", wrong))
