"""A run's results: statistics over samples (sample_stats), which samples the machine slowed (steadiness), and the
tidy frame built from the workers' records (frame). The files a run is saved in are swarbench.runfolder's; its
readers and writers are named here too, as the rest of swarbench has always called them.

``swarbench.results.X`` names whatever those modules define, imported on first use (PEP 562), so reading a
records file does not import pandas.
"""

from __future__ import annotations

import importlib

_MODULES = ("sample_stats", "steadiness", "frame")
_PUBLIC = {
    "sample_stats": (
        "CONFIDENCE",
        "RESAMPLES",
        "NOISY_CV",
        "SHORT_ROUND_S",
        "bootstrap_interval",
        "median",
        "ratio_of_medians",
        "ns_per_op",
        "summarize",
        "UNITS_LEAST",
        "units_interval",
        "units_ratio_interval",
        "as_units",
        "unit_count",
    ),
    "steadiness": (
        "SLOWED",
        "UNSTEADY_SHARE",
        "JUDGING_READINGS",
        "TWO_SPEEDS",
        "PASS_SAMPLES",
        "STEADY_ENOUGH",
        "least_slowed",
        "canary_readings",
        "slowed_limit",
        "passes_of",
        "two_speeds",
        "machine_steadiness",
        "machine_speed",
        "machine_load",
        "OTHERS_SEEN",
    ),
    "frame": (
        "FORMAT_VERSION",
        "COLUMNS",
        "OVERHEAD_KERNEL",
        "SPLIT_WORKERS",
        "Measurement",
        "merge_records",
        "frame_from_records",
        "add_speedups",
        "add_overheads",
        "summary_of",
        "failed_rows",
    ),
    "swarbench.runfolder": (
        "RESULTS_CSV",
        "RECORDS",
        "MACHINE",
        "LATER_COLUMNS",
        "read_records",
        "write_atomic",
        "save",
        "resolve_run",
        "load",
        "machine_of",
    ),
}
_HOME = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = [*_MODULES, *_HOME]


def __getattr__(name: str):
    if name in _MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _HOME:
        module = _HOME[name]
        return getattr(importlib.import_module(module if "." in module else f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
