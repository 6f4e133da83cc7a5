"""`swarbench noise`: how far this machine can be trusted for benchmarks, measured here, what `pyperf system show`
and `pyperf check` are to pyperf.

It says what makes the machine noisy that can be seen (frequency scaling, SMT siblings, other programs, steal,
a hypervisor), then runs the same small subset twice, an A-A pair, and compares the two runs as `swarbench
compare` does: the share of rows called changed between two runs of the same code (the false alarms, about 5%
where the intervals hold), and per row the smallest change this machine can resolve (the half-width of the
change's interval), against a --fail-on-regression threshold.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import time
from pathlib import Path

from swarbench import machine_load, options

# The default subset: quick rows of several families, so the pair takes seconds, not minutes
KERNELS = ["cards.contains", "mastermind.score"]
IMPLEMENTATIONS = ["c-*", "numpy*", "numba*", "swar"]
SAMPLE_S = 1.0  # how long the machine's load is watched before the runs


def add_parser(sub) -> None:
    p = sub.add_parser(
        "noise",
        help="how noisy this machine is for benchmarks: what can be seen, and an A-A pair",
        description="Show what makes this machine noisy (frequency scaling, SMT siblings, other "
        "programs, steal), then run a small subset twice and compare the runs: the "
        "share of rows called changed between two runs of the same code, and the "
        "smallest change each row can resolve here. The pair runs "
        f"-k {' -k '.join(KERNELS)} -i {' -i '.join(IMPLEMENTATIONS)} unless -k and -i "
        "(or [tool.swarbench]'s kernels and implementations) say otherwise.",
    )
    options.add_arguments(p, "noise")  # -k, -i, --threshold, --system, --reports (swarbench.options)


# ---- what can be seen ----


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def smt_siblings() -> list[str]:
    """Groups of CPUs that share a core (SMT, Hyper-Threading), as the kernel lists them."""
    groups = set()
    for cpu in range(os.cpu_count() or 1):
        siblings = _read(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
        if siblings and ("," in siblings or "-" in siblings):
            groups.add(siblings)
    return sorted(groups)


def frequency_scaling() -> str:
    """The CPU frequency governor and driver, and turbo, where the kernel exposes them."""
    governors = sorted(
        {_read(f"/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor") for c in range(os.cpu_count() or 1)} - {""}
    )
    if not governors:
        return "not exposed to this system (a virtual machine's host, or the firmware, sets the clock)"
    driver = _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver")
    said = f"governor {', '.join(governors)}" + (f" ({driver})" if driver else "")
    no_turbo, boost = (
        _read("/sys/devices/system/cpu/intel_pstate/no_turbo"),
        _read("/sys/devices/system/cpu/cpufreq/boost"),
    )
    if no_turbo or boost:
        said += "; turbo " + ("off" if no_turbo == "1" or boost == "0" else "on")
    if governors != ["performance"]:
        said += ": the clock follows the load, so a benchmark's first milliseconds can run slower"
    return said


def watch_load(seconds: float = SAMPLE_S) -> dict:
    """Other programs' CPUs, steal and the run queue over ``seconds`` of this process sleeping."""
    start, own = machine_load.cpu_ticks(), machine_load.process_ticks("self", children=False)
    if start is None:
        return {}
    queue = []
    until = time.time() + seconds
    while time.time() < until:
        queue.append(max((machine_load.cpu_ticks() or (0, 0, 1))[2] - 1, 0))  # less this process, reading
        time.sleep(seconds / 10)
    end = machine_load.cpu_ticks()
    ticks = seconds * machine_load.TICKS_PER_S
    busy = end[0] - start[0] - (machine_load.process_ticks("self", children=False) - own)
    cpus = os.cpu_count() or 1
    return {
        "others_cpus": min(max(busy, 0) / ticks, cpus),
        "steal_cpus": min((end[1] - start[1]) / ticks, cpus),
        "queue": sum(queue) / len(queue),
    }


def system_lines() -> list[str]:
    from swarbench import machine as machine_mod

    m = machine_mod.collect()
    cpus = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cpus
    out = [f"cpu: {m.get('cpu', '?')}, {cpus} CPUs" + (f" ({usable} usable here)" if usable != cpus else "")]
    siblings = smt_siblings()
    out.append(
        "SMT: "
        + (
            f"CPUs {'; '.join(siblings)} share a core each: a sibling's work slows a benchmark on its pair"
            if siblings
            else "no CPU shares its core with another"
        )
    )
    out.append(f"frequency scaling: {frequency_scaling()}")
    if "hypervisor" in _read("/proc/cpuinfo"):
        out.append("virtual machine: yes; its host may run other guests on the same cores (steal, below)")
    isolated = _read("/sys/devices/system/cpu/isolated")
    if isolated:
        out.append(f"isolated CPUs: {isolated}")
    load = watch_load()
    if load:
        average = _read("/proc/loadavg").split()[:3]
        out.append(
            f"other programs over {SAMPLE_S:g} s: {load['others_cpus']:.2f} CPUs busy, "
            f"{load['queue']:.1f} ready to run; steal {load['steal_cpus'] / cpus:.0%} of the CPUs"
            + (f"; load average {' '.join(average)}" if average else "")
        )
    else:
        out.append("other programs: cannot be seen here (no /proc)")
    return out


# ---- an A-A pair ----


def pair_lines(frame, threshold: float) -> list[str]:
    """Per row of an A-A comparison: its change, whether it was called, and the change it can resolve; then the
    false alarms and the resolution against ``threshold``."""
    from swarbench.render import fmt_ns

    rows = [("row", "A ns/op", "change", "resolves", "")]
    halves = []
    for r in frame.sort_values(["kernel", "implementation"]).itertuples():
        half = (r.change_ci_high - r.change_ci_low) / 2
        halves.append(half)
        rows.append(
            (
                f"{r.kernel}/{r.implementation}",
                fmt_ns(r.median_a),
                f"{r.change * 100:+.1f}%",
                f"- ({min(r.units_a, r.units_b)} passes)" if math.isnan(half) else f"+-{half * 100:.0f}%",
                "called changed" if r.significant else "",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    out = [
        "  "
        + "  ".join(c.ljust(w) if i in (0, 4) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    ]
    called = int(frame["significant"].sum())
    known = sorted(h for h in halves if not math.isnan(h))
    out.append("")
    out.append(
        f"false alarms: {called} of {len(frame)} rows ({called / max(len(frame), 1):.0%}) called changed "
        f"between two runs of the same code (where the intervals hold, about 5%)"
    )
    if known:
        middle = known[len(known) // 2]
        out.append(
            f"smallest change resolved: +-{middle * 100:.0f}% for the median row (+-{known[0] * 100:.0f}% to "
            f"+-{known[-1] * 100:.0f}%); a --fail-on-regression {threshold:g} gate resolves "
            f"{sum(h < threshold / 100 for h in known)} of {len(frame)} rows here"
        )
    moved = float(frame["absolute_change"].median())
    if abs(moved) >= threshold / 200:
        out.append(
            f"every row moved together by {moved * 100:+.1f}% between the two runs: the machine itself "
            "changed speed between them (compare divides each workload's share of that out; with --absolute "
            "it would not)"
        )
    return out


def run(args, reg) -> int:
    from swarbench import api, run_comparison

    out = ["machine"] + [f"  {line}" for line in system_lines()]
    print("\n".join(out), flush=True)
    if args.system:
        return 0
    folder = args.noise_reports or Path(tempfile.mkdtemp(prefix="swarbench-noise-"))
    kernels, impls = args.kernels or KERNELS, args.implementations or IMPLEMENTATIONS
    try:
        request = api.request(kernels, impls, reports=folder)
        said = " ".join([f"-k {k}" for k in kernels] + [f"-i '{i}'" for i in impls])
        runs, took = [], []
        for which in ("A", "B"):
            print(f"run {which} of the pair: swarbench run {said}", flush=True)
            started = time.time()
            runs.append(api.measure(request, reg, command=f"swarbench noise (run {which})").outcome)
            took.append(time.time() - started)
        frame = run_comparison.compare([str(r.run_dir) for r in runs], folder)
        print(f"\nan A-A pair ({took[0]:.0f} s + {took[1]:.0f} s), the same code twice, compared:")
        print("\n".join(pair_lines(frame, args.threshold)))
    finally:
        if args.noise_reports is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0
