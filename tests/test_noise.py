"""`swarbench noise` (what makes the machine noisy, and an A-A pair), and the example plugin that makes A/B pairs
with one known change (examples/swarbench-slowed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import cli_env, make_plugin_site, swarbench
from swarbench import noise, registry
from swarbench.model import matches

SLOWED = Path(__file__).resolve().parent.parent / "examples" / "swarbench-slowed" / "swarbench_slowed" / "__init__.py"


def test_noise_system_says_what_can_be_seen_of_the_machine(tmp_path):
    proc = swarbench("noise", "--system", env=cli_env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "machine"
    for start in ("  cpu: ", "  SMT: ", "  frequency scaling: "):
        assert any(line.startswith(start) for line in lines), start
    if Path("/proc/stat").exists():
        assert re.search(
            r"^  other programs over 1 s: \d+\.\d\d CPUs busy, \d+\.\d ready to run; steal \d+% ", proc.stdout, re.M
        )
    assert "an A-A pair" not in proc.stdout  # --system runs nothing


@pytest.mark.slow  # two whole runs
def test_noise_runs_an_a_a_pair_and_says_the_false_alarms_and_each_rows_resolution(tmp_path):
    env = cli_env(tmp_path)
    keep = tmp_path / "pair"
    proc = swarbench(
        "noise",
        "-k",
        "cards.contains",
        "-i",
        "c-swar",
        "-i",
        "swar",
        "--threshold",
        "5",
        "--reports",
        str(keep),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "run A of the pair: swarbench run -k cards.contains -i 'c-swar' -i 'swar'" in proc.stdout
    assert re.search(
        r"^false alarms: \d of 2 rows \(\d+%\) called changed between two runs of the same code", proc.stdout, re.M
    ), proc.stdout
    for row in ("cards.contains/c-swar", "cards.contains/swar"):
        assert re.search(
            rf"^  {re.escape(row)} +[\d.,]+ +[+-]\d+\.\d% +(\+-\d+%|- \(\d passes\))", proc.stdout, re.M
        ), proc.stdout
    assert len(list(keep.iterdir())) == 2  # the pair's runs, kept where asked
    # without --reports the runs go to a temporary folder that is removed
    assert not Path(env["SWARBENCH_REPORTS"]).exists()


def test_the_default_noise_subset_names_rows_that_exist():
    reg = registry.load()
    kernels = [k for k in reg.kernels if matches(k, noise.KERNELS)]
    assert sorted(kernels) == sorted(noise.KERNELS)
    for kernel in kernels:
        assert any(matches(i.name, noise.IMPLEMENTATIONS) for i in reg.implementations_of(kernel))


@pytest.mark.slow  # whole runs
def test_the_slowed_example_does_its_work_the_factor_times_and_passes_the_oracle(tmp_path):
    site = make_plugin_site(tmp_path / "site", "slowed", SLOWED.read_text(), module="swarbench_slowed")
    env = cli_env(tmp_path, site, SWARBENCH_SLOWED="1.25")
    proc = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "steady",
        "-i",
        "slowed",
        "-n",
        "256",
        "--max-time",
        "0.005",
        "--no-overhead",
        "-q",
        "--format",
        "csv",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(",PASS,") == 2  # both checked against the kernel's reference, and right
    import importlib.util

    spec = importlib.util.spec_from_file_location("swarbench_slowed_test", SLOWED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.repeats(1.0) == 8 and module.repeats(1.25) == 10  # 25% more work, nothing else changed
    bad = swarbench(
        "run",
        "-k",
        "cards.contains",
        "-i",
        "slowed",
        "-n",
        "256",
        "--no-overhead",
        "-q",
        env=dict(env, SWARBENCH_SLOWED="fast"),
    )
    assert bad.returncode == 1 and "SWARBENCH_SLOWED='fast' is not a number" in bad.stdout


def test_the_engines_load_monitor_writes_what_else_the_machine_did_each_second(tmp_path):
    import json
    import subprocess
    import sys
    import time

    from swarbench.machine_load import LoadMonitor, cpu_ticks
    from swarbench.runfolder import RunFolder

    if cpu_ticks() is None:
        pytest.skip("no /proc/stat on this machine: the monitor writes nothing, and reports name no one")
    path = tmp_path / "records.jsonl"
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3)"])
    monitor = LoadMonitor(RunFolder(tmp_path), worker=1)
    until = time.time() + 2.5
    while time.time() < until:
        monitor.poll(child.pid)
        time.sleep(0.2)
    child.wait()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) >= 2 and all(line["event"] == "load" and line["worker"] == 1 for line in lines)
    for line in lines:
        start, end = line["t"]
        assert 0.9 < end - start < 2 and line["cpus"] >= 1
        assert 0 <= line["others_cpus"] <= line["cpus"] and 0 <= line["steal_cpus"] and line["queue"] >= 0
