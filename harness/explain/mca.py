"""What a loop should cost a core: LLVM's machine code analyzer (llvm-mca) simulating it on the run's CPU model.

The newest llvm-mca on the PATH is used (``llvm-mca-19`` before ``llvm-mca``, Debian's default, which is 14 on
bookworm): CPU models arrive with new versions (AMD Zen 5 first in LLVM 19), and a model llvm-mca does not know
is silently the generic one, with another machine's ports. The CPU is named from /proc/cpuinfo's vendor, family
and model; one the version in hand does not know is predicted as the newest older model of the line it does
know, and the result says so. Where the CPU cannot be named, llvm-mca's own guess of this host is taken, and
said; where it has none, there is no prediction, and the reason is the column's text.

The prediction is the simulated steady state (100 to 1000 iterations): cycles per iteration, and what bounds them:
dispatch (uops a cycle the front end can issue), the busiest execution resource, or else a chain of
dependencies from one iteration to the next.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass, field

from swarbench import features

MCA_ENV = "SWARBENCH_LLVM_MCA"  # a path, or empty: "no llvm-mca here" (what a machine without llvm sees)
SIMULATED_INSTRUCTIONS = 10_000  # iterations enough for a steady state: 1000 of a short loop, 100 of a long one
TIMEOUT_S = 60
BOUND_SLACK = 1.15  # simulated cycles within this of a resource's or dispatch's figure: that one bounds the loop

# (family, models or None for any) -> LLVM's name, for AMD
AMD = [
    (0x1A, None, "znver5"),
    (0x19, [*range(0x10, 0x20), *range(0x60, 0x80), *range(0xA0, 0xB0)], "znver4"),
    (0x19, None, "znver3"),
    (0x18, None, "znver1"),  # Hygon Dhyana
    (0x17, [*range(0x30, 0x40), 0x47, *range(0x60, 0x80), *range(0x84, 0x88), *range(0x90, 0xB0)], "znver2"),
    (0x17, None, "znver1"),
    (0x16, None, "btver2"),
    (0x15, [*range(0x60, 0x80)], "bdver4"),
    (0x15, [*range(0x30, 0x40)], "bdver3"),
    (0x15, [*range(0x10, 0x20)], "bdver2"),
    (0x15, None, "bdver1"),
]
# Intel family 6 models -> LLVM's name
INTEL = {
    **dict.fromkeys([0x1A, 0x1E, 0x1F, 0x2E], "nehalem"),
    **dict.fromkeys([0x25, 0x2C, 0x2F], "westmere"),
    **dict.fromkeys([0x2A, 0x2D], "sandybridge"),
    **dict.fromkeys([0x3A, 0x3E], "ivybridge"),
    **dict.fromkeys([0x3C, 0x3F, 0x45, 0x46], "haswell"),
    **dict.fromkeys([0x3D, 0x47, 0x4F, 0x56], "broadwell"),
    **dict.fromkeys([0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6], "skylake"),
    0x55: "skylake-avx512",
    0x66: "cannonlake",
    **dict.fromkeys([0x6A, 0x6C], "icelake-server"),
    **dict.fromkeys([0x7D, 0x7E], "icelake-client"),
    **dict.fromkeys([0x8C, 0x8D], "tigerlake"),
    0xA7: "rocketlake",
    **dict.fromkeys([0x97, 0x9A, 0xBF], "alderlake"),
    **dict.fromkeys([0xB7, 0xBA], "raptorlake"),
    **dict.fromkeys([0xAA, 0xAC], "meteorlake"),
    **dict.fromkeys([0xC5, 0xC6, 0xB5], "arrowlake"),
    0xBD: "lunarlake",
    0x8F: "sapphirerapids",
    0xCF: "emeraldrapids",
    **dict.fromkeys([0xAD, 0xAE], "graniterapids"),
    **dict.fromkeys([0x37, 0x4D], "silvermont"),
    **dict.fromkeys([0x5C, 0x5F], "goldmont"),
    0x7A: "goldmont-plus",
    **dict.fromkeys([0x86, 0x96, 0x9C], "tremont"),
}
# Each model's older relatives, newest first: what a version that does not know it predicts with instead.
OLDER = {
    "znver5": "znver4",
    "znver4": "znver3",
    "znver3": "znver2",
    "znver2": "znver1",
    "graniterapids": "emeraldrapids",
    "emeraldrapids": "sapphirerapids",
    "sapphirerapids": "icelake-server",
    "icelake-server": "cascadelake",
    "cascadelake": "skylake-avx512",
    "skylake-avx512": "skylake",
    "lunarlake": "meteorlake",
    "arrowlake": "meteorlake",
    "meteorlake": "raptorlake",
    "raptorlake": "alderlake",
    "alderlake": "tigerlake",
    "rocketlake": "tigerlake",
    "tigerlake": "icelake-client",
    "icelake-client": "cannonlake",
    "cannonlake": "skylake",
    "skylake": "broadwell",
    "broadwell": "haswell",
    "haswell": "ivybridge",
    "ivybridge": "sandybridge",
    "sandybridge": "westmere",
    "westmere": "nehalem",
    "goldmont-plus": "goldmont",
    "tremont": "goldmont-plus",
    "goldmont": "silvermont",
}


@dataclass(frozen=True)
class Tool:
    path: str
    version: str  # "19.1.7"
    host_cpu: str  # llvm's own name for this machine's CPU, "" where it has none

    @property
    def label(self) -> str:
        return f"llvm-mca {self.version}"


@dataclass
class Prediction:
    cycles_per_iteration: float  # simulated, steady state
    block_rthroughput: float  # from resources alone
    uops_per_iteration: float
    dispatch_width: int
    pressure: dict[str, float] = field(default_factory=dict)  # resource -> cycles busy an iteration
    bottleneck: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def _version_of(path: str) -> tuple[str, str]:
    try:
        out = subprocess.run([path, "--version"], check=False, capture_output=True, text=True, timeout=TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return "", ""
    version = re.search(r"LLVM version (\d+[\w.]*)", out.stdout)
    host = re.search(r"Host CPU:\s*(\S+)", out.stdout)
    cpu = host.group(1) if host and not host.group(1).startswith("(") else ""
    return (version.group(1) if version else ""), cpu


def _major(version: str) -> int:
    return int(version.split(".")[0]) if version[:1].isdigit() else 0


@functools.cache
def find() -> tuple[Tool | None, str]:
    """The newest llvm-mca here, or None and why there is none."""
    forced = os.environ.get(MCA_ENV)
    if forced is not None and not forced:
        return None, f"no llvm-mca (${MCA_ENV} is empty)"
    candidates = (
        [forced]
        if forced
        else [p for p in {shutil.which(f"llvm-mca-{n}") for n in range(40, 9, -1)} | {shutil.which("llvm-mca")} if p]
    )
    tools = []
    for path in candidates:
        version, host = _version_of(path)
        if version:
            tools.append(Tool(path, version, host))
    if not tools:
        return None, (
            "no llvm-mca on this machine (Debian: apt-get install llvm, or llvm-19 for the newest CPUs)"
            if not forced
            else f"{forced} is not an llvm-mca that answers --version"
        )
    return max(tools, key=lambda t: tuple(int(x) for x in re.findall(r"\d+", t.version)[:3])), ""


@functools.cache
def known_cpus(tool: Tool) -> frozenset[str]:
    try:
        out = subprocess.run(
            [tool.path, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=help"],
            input="",
            check=False,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(re.findall(r"^\s+([\w.-]+)\s+- Select the", out.stdout + out.stderr, re.MULTILINE))


def cpu_of(vendor: str, family: int, model: int, stepping: int = 0) -> str:
    """LLVM's name of an x86 CPU, '' where this table has none."""
    if vendor in ("AuthenticAMD", "HygonGenuine"):
        for fam, models, name in AMD:
            if fam == family and (models is None or model in models):
                return name
        return ""
    if vendor == "GenuineIntel" and family == 6:
        name = INTEL.get(model, "")
        if name == "skylake-avx512" and stepping >= 5:
            return "cascadelake" if stepping < 10 else "cooperlake"
        return name
    return ""


def this_cpu() -> tuple[str, int, int, int]:
    def number(field_name: str) -> int:
        try:
            return int(features.proc_cpuinfo(field_name))
        except ValueError:
            return -1

    return features.proc_cpuinfo("vendor_id"), number("cpu family"), number("model"), number("stepping")


def choose_cpu(tool: Tool, identity: tuple | None = None) -> tuple[str, str]:
    """(the -mcpu to predict with, a note on how it was chosen), or ('', why none)."""
    vendor, family, model, stepping = identity or this_cpu()
    known = known_cpus(tool)
    name = cpu_of(vendor, family, model, stepping)
    if name:
        chosen = name
        while chosen and chosen not in known:
            chosen = OLDER.get(chosen, "")
        if chosen == name:
            return name, ""
        if chosen:
            return chosen, f"{name} is unknown to {tool.label}: predicted as {chosen}, the nearest older model it knows"
    if tool.host_cpu and tool.host_cpu in known:
        what = f"{name}, unknown to {tool.label}" if name else f"{vendor or 'this CPU'} family {family} model {model}"
        return tool.host_cpu, f"{what}: predicted as {tool.host_cpu}, {tool.label}'s own guess of this host"
    if name:
        return "", f"{name} and every older model of its line are unknown to {tool.label}"
    return "", f"{tool.label} knows no model for {vendor or 'this CPU'} family {family} model {model}"


def predict(tool: Tool, cpu: str, source: str) -> tuple[Prediction | None, str]:
    """llvm-mca's prediction for a loop's source, or None and why not."""
    instructions = max(1, sum(1 for line in source.splitlines() if line.startswith("\t")))
    iterations = min(1000, max(100, SIMULATED_INSTRUCTIONS // instructions))
    try:
        out = subprocess.run(
            [tool.path, "-mtriple=x86_64-unknown-linux-gnu", f"-mcpu={cpu}", f"-iterations={iterations}", "-"],
            input=source,
            check=False,
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{tool.label} failed: {exc}"
    if out.returncode != 0:
        error = next((line for line in out.stderr.splitlines() if "error" in line), out.stderr.strip()[:200])
        return None, f"{tool.label} could not read the loop: {error.strip()}"
    prediction = parse(out.stdout)
    if prediction is None:
        return None, f"{tool.label} printed no summary"
    return prediction, ""


def _field(text: str, name: str) -> float | None:
    m = re.search(rf"^{re.escape(name)}:\s*([\d.]+)", text, re.MULTILINE)
    return float(m.group(1)) if m else None


def parse(text: str) -> Prediction | None:
    """llvm-mca's default report (its summary and resource pressure per iteration) as a Prediction."""
    iterations, cycles, uops = _field(text, "Iterations"), _field(text, "Total Cycles"), _field(text, "Total uOps")
    width, rthroughput = _field(text, "Dispatch Width"), _field(text, "Block RThroughput")
    if not iterations or cycles is None or uops is None or not width:
        return None
    prediction = Prediction(
        cycles / iterations, rthroughput or 0.0, uops / iterations, int(width), resource_pressure(text)
    )
    prediction.bottleneck = bottleneck(prediction)
    return prediction


def resource_pressure(text: str) -> dict[str, float]:
    """Cycles each resource is busy an iteration, a resource's units ([12.0], [12.1]) taken together as their
    mean: llvm-mca spreads a resource's work over its units."""
    names = dict(re.findall(r"^\[(\d+(?:\.\d+)?)\]\s+-\s+(\S+)", text, re.MULTILINE))
    block = re.search(r"Resource pressure per iteration:\n(.*)\n(.*)\n", text)
    if not names or not block:
        return {}
    columns = re.findall(r"\[(\d+(?:\.\d+)?)\]", block.group(1))
    values = block.group(2).split()
    units: dict[str, list[float]] = {}
    for column, value in zip(columns, values):
        units.setdefault(names.get(column, column), []).append(0.0 if value == "-" else float(value))
    return {name: round(sum(v) / len(v), 3) for name, v in units.items()}


def bottleneck(p: Prediction) -> str:
    """What bounds a loop's simulated cycles: dispatch, its busiest resource, or a chain of dependencies."""
    dispatch = p.uops_per_iteration / p.dispatch_width
    most = max(p.pressure.values(), default=0.0)
    busiest = [name for name, busy in p.pressure.items() if busy >= 0.98 * most]
    if most > 0 and most >= dispatch and p.cycles_per_iteration <= BOUND_SLACK * most:
        return f"{units(busiest)} ({most:.3g} cycles busy an iteration)"
    if p.cycles_per_iteration <= BOUND_SLACK * dispatch:
        return f"dispatch ({p.uops_per_iteration:.3g} uops an iteration, {p.dispatch_width} a cycle)"
    bound = max(most, dispatch)
    return (
        f"dependencies from one iteration to the next ({p.cycles_per_iteration:.3g} cycles an iteration "
        f"against {bound:.3g} from resources)"
    )


def units(names: list[str]) -> str:
    """Resources named together where they share a stem: "Zn4FP0, Zn4FP1, Zn4FP2" -> "Zn4FP0/1/2"."""
    stems: dict[str, list[str]] = {}
    for name in names:
        m = re.fullmatch(r"(.*?)(\d+)", name)
        stem, unit = (m.group(1), m.group(2)) if m else (name, "")
        stems.setdefault(stem, []).append(unit)
    return ", ".join(stem + "/".join(u for u in found) for stem, found in stems.items())
