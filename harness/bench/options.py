"""The ``--swarbench-*`` pytest options. No imports: pytest registers them in every session of the
environment (swarbench.bench.plugin); swarbench.bench.request reads them in a benchmark session."""

from __future__ import annotations

# A batch under this gets --swarbench-short-rounds rounds at least (swarbench.bench.rounds): the budget alone
# would give it one or two samples a worker, and one slow spell over those would decide the median.
SHORT_BATCH_S = 0.3


def add_options(parser) -> None:
    group = _Recording(parser.getgroup("swarbench", "swarbench kernel benchmarks"))
    group.addoption(
        "--swarbench-kernel",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run kernels whose id matches this shell pattern (repeatable)",
    )
    group.addoption(
        "--swarbench-impl",
        action="append",
        default=[],
        metavar="PATTERN",
        help="run implementations whose name matches this shell pattern (repeatable)",
    )
    group.addoption(
        "--swarbench-workload",
        action="append",
        default=[],
        metavar="NAME",
        help="run these workload kinds (default: each kernel's default kinds)",
    )
    group.addoption(
        "--swarbench-size",
        action="append",
        type=int,
        default=[],
        metavar="N",
        help="operations per batch (repeatable: one benchmark per size; default: the workload's own)",
    )
    group.addoption("--swarbench-seed", type=int, default=0, help="seed of the input generators (default 0)")
    group.addoption(
        "--swarbench-param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the workloads that declare NAME (repeatable)",
    )
    group.addoption(
        "--swarbench-order-seed",
        type=int,
        default=None,
        metavar="S",
        help="shuffle the order of kernels and of implementations within each kernel with this seed "
        "(default: registry order)",
    )
    group.addoption(
        "--swarbench-passes",
        type=int,
        default=1,
        metavar="P",
        help="go through the whole run P times, each workload's cases reshuffled in every pass, each pass "
        "timing a P-th of every case's rounds (interleaved repetitions; default 1)",
    )
    group.addoption(
        "--swarbench-short-rounds",
        type=int,
        default=0,
        metavar="R",
        help=f"a batch under {SHORT_BATCH_S} s gets at least R rounds, whatever the time budget (default 0)",
    )
    group.addoption(
        "--swarbench-case", action="append", default=[], metavar="CASE_ID", help="run only this case (repeatable)"
    )
    group.addoption(
        "--swarbench-exclude", action="append", default=[], metavar="CASE_ID", help="leave this case out (repeatable)"
    )
    group.addoption(
        "--swarbench-worker", type=int, default=0, help="worker number written into each record (default 0)"
    )
    group.addoption(
        "--swarbench-overhead",
        action="store_true",
        help="also time an empty batch call per family (the fixed cost of a call)",
    )
    group.addoption(
        "--swarbench-no-explain",
        action="store_true",
        help="do not read each compiled case's timed code after its last pass (swarbench.explain)",
    )
    group.addoption(
        "--swarbench-record",
        default=None,
        metavar="FILE",
        help="append a JSON line per case start and result to FILE; a case another worker already "
        "passed there is not verified again (its timed output is checked instead)",
    )
    group.addoption(
        "--swarbench-cache",
        default=None,
        metavar="DIR",
        help="share generated workloads and reference outputs with the other workers of a run in DIR",
    )
    group.addoption("--swarbench-cache-readonly", action="store_true", help="read the shared workloads but write none")
    group.addoption(
        "--swarbench-disable-plugin",
        action="append",
        default=[],
        metavar="NAME",
        help="do not load this swarbench plugin (repeatable)",
    )
    group.addoption(
        "--swarbench-local",
        action="append",
        default=[],
        metavar="SOURCE",
        help="load this local plugin, a file or module as swarbench.local names it (repeatable)",
    )
    group.addoption("--swarbench-progress", action="store_true", help="write a progress line per case to stderr")


class _Recording:
    """A pytest option group that also notes each option's default, for ``given``."""

    def __init__(self, group):
        self.group = group

    def addoption(self, *names, **attrs) -> None:
        self.group.addoption(*names, **attrs)
        dest = names[0].lstrip("-").replace("-", "_")
        DEFAULTS[dest] = attrs.get("default", False if attrs.get("action") == "store_true" else None)


DEFAULTS: dict[str, object] = {}  # each --swarbench-* option's pytest name and default


def given(config) -> bool:
    """Whether any --swarbench-* option was given a value other than its default."""
    return any(config.getoption(dest) != default for dest, default in DEFAULTS.items())
