"""What a run was measured on: CPU, Python, compiler, package versions, git commit."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import re
import subprocess
from pathlib import Path

from swarbench import counters, features
from swarbench.explain import bandwidth

PACKAGES = (
    "swarbench",
    "numpy",
    "numba",
    "llvmlite",
    "cffi",
    "pandas",
    "scipy",
    "pytest",
    "pytest-benchmark",
    "pluggy",
)
SIMD_FLAGS = (
    "sse2",
    "ssse3",
    "sse4_2",
    "popcnt",
    "bmi2",
    "avx2",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512vbmi",
    "avx512_vpopcntdq",
    "avx512_bitalg",
    "neon",
    "asimd",
)


def git_commit(start: Path) -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(start), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    if out.returncode != 0:
        return ""
    dirty = subprocess.run(
        ["git", "-C", str(start), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        timeout=10,
    ).stdout.strip()
    return out.stdout.strip() + ("-dirty" if dirty else "")


def clock_ghz() -> float:
    """The processor's clock for cycle estimates: the advertised frequency where known, else the current one."""
    advertised = re.search(r"@\s*([\d.]+)\s*GHz", features.cpu_model())  # "Intel(R) Xeon(R) ... @ 2.90GHz"
    if advertised:
        return round(float(advertised.group(1)), 3)
    for path, per_ghz in (
        ("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency", 1e6),  # kHz
        ("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", 1e6),
    ):
        try:
            return round(int(Path(path).read_text()) / per_ghz, 3)
        except (OSError, ValueError):
            pass
    try:
        return round(float(features.proc_cpuinfo("cpu MHz")) / 1000, 3)
    except ValueError:
        pass
    try:
        return round(int(features.sysctl("hw.cpufrequency")) / 1e9, 3)  # Intel Macs
    except ValueError:
        return 0.0


def collect() -> dict:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = ""
    compiler, why = features.compiler()
    flags = features.cpu_flags()
    return {
        "cpu": features.cpu_model(),
        "cores": os.cpu_count(),
        "machine": platform.machine(),
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "compiler": compiler or f"none ({why})",
        "simd_flags": [f for f in SIMD_FLAGS if f in flags],
        "cpu_flags": sorted(flags),
        "packages": versions,
        "git_commit": git_commit(Path(__file__).resolve().parent.parent),
        "hostname": platform.node(),
        "clock_ghz": clock_ghz(),
        "hardware_counters": counters.unavailable()
        or "available (perf_event_open): cycles, instructions, branch and cache misses per op",
        "bandwidth": bandwidth.measured(),  # once per machine, kept (swarbench.explain.bandwidth)
    }
