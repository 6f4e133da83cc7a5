"""What this machine offers: CPU features, a C compiler, optional packages. Each check says why when it fails.

CPU flags and the model name are read from /proc/cpuinfo on Linux (instant, and it lists only what the kernel
enables: an AVX-512 CPU under a kernel that does not save its registers does not list the flags), from sysctl on
macOS, and from ``platform`` elsewhere. No CPU-information package: py-cpuinfo and pytest-benchmark's
py-cpuinfo2 both install a top-level ``cpuinfo`` package, one over the other.
"""

from __future__ import annotations

import functools
import importlib
import os
import platform
import shutil
import subprocess
import sysconfig
from typing import Optional

# Compiler flags that enable an instruction set, per feature name. One module is built per instruction set,
# never with -march=native for the whole suite, so a binary never uses an instruction its check did not clear.
ISA_FLAGS = {
    "sse2": ["-msse2"],
    "ssse3": ["-mssse3"],
    "sse4_2": ["-msse4.2"],
    "popcnt": ["-mpopcnt"],
    "bmi2": ["-mbmi2"],
    "avx2": ["-mavx2", "-mbmi2", "-mpopcnt"],
    "avx512f": ["-mavx512f"],
    "avx512bw": ["-mavx512f", "-mavx512bw", "-mavx512vl"],
    "avx512vl": ["-mavx512f", "-mavx512vl"],
    "avx512vbmi": ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512vbmi"],
    "avx512_vpopcntdq": ["-mavx512f", "-mavx512vpopcntdq"],
    "avx512_bitalg": ["-mavx512f", "-mavx512bitalg", "-mavx512bw"],
}


def proc_cpuinfo(field: str) -> str:
    """The first value of a /proc/cpuinfo field ("flags", "model name"), '' where there is none."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                name, sep, value = line.partition(":")
                if sep and name.strip() == field:
                    return value.strip()
    except OSError:
        pass
    return ""


def sysctl(*names: str) -> str:
    """macOS's answer for these sysctl names, space-separated ('' where there is no sysctl or no answer)."""
    if platform.system() != "Darwin":
        return ""
    try:
        out = subprocess.run(["sysctl", "-n", *names], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ""
    return " ".join(out.stdout.split())


@functools.lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    forced = os.environ.get("SWARBENCH_CPU_FLAGS")  # lets users and tests pretend to be a smaller machine
    if forced is not None:
        return frozenset(forced.replace(",", " ").split())
    flags = proc_cpuinfo("flags") or proc_cpuinfo("Features")  # x86 / ARM spelling
    if flags:
        return frozenset(flags.split())
    # Intel Macs list "AVX2 SSE4.2 ..."; /proc/cpuinfo spells them "avx2 sse4_2"
    mac = sysctl("machdep.cpu.features", "machdep.cpu.leaf7_features")
    return frozenset(f.lower().replace(".", "_") for f in mac.split())


@functools.lru_cache(maxsize=1)
def cpu_model() -> str:
    return (
        proc_cpuinfo("model name") or sysctl("machdep.cpu.brand_string") or platform.processor() or platform.machine()
    )


def cores() -> int:
    """Cores this process may run on (its affinity mask where the platform has one): how many threads a
    multi-threaded implementation should use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # no affinity on this platform: every core counts
        return os.cpu_count() or 1


def is_x86() -> bool:
    return platform.machine().lower() in {"x86_64", "amd64", "i386", "i686"}


def compiler_command() -> list[str]:
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return cc.split()


@functools.lru_cache(maxsize=1)
def compiler() -> tuple[Optional[str], str]:
    """(version line, "") when a C compiler answers, else (None, why not)."""
    if os.environ.get("SWARBENCH_NO_CC"):
        return None, "disabled by SWARBENCH_NO_CC"
    cmd = compiler_command()
    if shutil.which(cmd[0]) is None:
        return None, f"{cmd[0]!r} not found on PATH"
    try:
        out = subprocess.run(cmd + ["--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{cmd[0]}: {exc}"
    if out.returncode != 0:
        return None, f"{cmd[0]} --version exited {out.returncode}"
    return (out.stdout.strip().splitlines() or [cmd[0]])[0], ""


@functools.lru_cache(maxsize=None)
def module_missing(name: str) -> str:
    """'' when the module imports, else the reason."""
    try:
        importlib.import_module(name)
    except Exception as exc:  # an installed but broken package (numba vs numpy) fails with other errors too
        return f"{name} not importable: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return ""


@functools.lru_cache(maxsize=None)
def cuda_missing() -> str:
    """'' when numba sees a real CUDA GPU. numba's simulator (NUMBA_ENABLE_CUDASIM=1) proves correctness in the
    tests but its timings mean nothing, so it does not count as a GPU here."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "") not in ("", "0"):
        return "needs a CUDA GPU (numba's CUDA simulator is on: checked in the tests, never timed)"
    why = module_missing("numba")
    if why:
        return why
    try:
        from numba import cuda

        if cuda.is_available():
            return ""
    except Exception as exc:  # a broken driver install raises instead of answering False
        return f"needs a CUDA GPU ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
    return "needs a CUDA GPU (numba.cuda finds none)"


def why_unavailable(requirement: str) -> str:
    """'' if the requirement holds here, else a short reason ("needs avx512bw")."""
    if requirement == "cc":
        version, why = compiler()
        return "" if version else f"no C compiler: {why}"
    if requirement.startswith("module:"):
        return module_missing(requirement.split(":", 1)[1])
    if requirement == "cuda":
        return cuda_missing()
    if requirement == "x86":
        return "" if is_x86() else f"needs x86-64, this is {platform.machine()}"
    if requirement in ISA_FLAGS or requirement in cpu_flags() or requirement.startswith(("avx", "sse", "bmi")):
        if requirement in ISA_FLAGS and not is_x86():
            return f"needs {requirement} (x86 only; this is {platform.machine()})"
        return "" if requirement in cpu_flags() else f"needs {requirement}"
    return f"unknown requirement {requirement!r}"


def unavailable(requires: tuple[str, ...]) -> str:
    """The first reason any requirement fails, '' if all hold."""
    for req in requires:
        why = why_unavailable(req)
        if why:
            return why
    return ""


def isa_flags(features: tuple[str, ...]) -> list[str]:
    flags: list[str] = []
    for f in features:
        for flag in ISA_FLAGS.get(f, []):
            if flag not in flags:
                flags.append(flag)
    return flags
