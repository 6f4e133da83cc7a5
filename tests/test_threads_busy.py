"""The CPUs a row keeps busy (results column cpus_busy): recorded for every timed pass, read back from the run
folder, and what compare's gate leans on to leave a row that runs threads ungated when few processes stood
behind it (issue 38)."""

from __future__ import annotations

import os
import textwrap

import pandas as pd
import pytest

from conftest import cli_env, swarbench

# Four threads each hash a quarter of the blocks; hashlib lets go of the GIL over a block this long, so the threads
# run side by side. Four, not two: with another test busy on one of two CPUs they still keep more than one CPU
# busy between them.
THREADED_FILE = textwrap.dedent(
    """
    import hashlib
    import threading

    import numpy as np
    import swarbench

    BLOCK = 1 << 16


    def digest(block):
        return int.from_bytes(hashlib.sha3_256(memoryview(block)).digest()[:4], "little")


    def blocks(n, rng):
        \"\"\"random 64 KiB blocks\"\"\"
        return {"blocks": rng.integers(0, 256, (n, BLOCK), dtype=np.uint8)}


    def sha3(blocks):
        \"\"\"the first four bytes of each block's SHA3-256\"\"\"
        return np.array([digest(b) for b in blocks], np.uint32)


    sums = swarbench.declare("mine.sha3", blocks, sha3, unit="block")


    @sums.numpy
    def one_thread(blocks):
        return [digest(b) for b in blocks]


    @sums.numpy
    def four_threads(blocks):
        out = [0] * len(blocks)

        def part(start):
            for i in range(start, len(blocks), 4):
                out[i] = digest(blocks[i])

        threads = [threading.Thread(target=part, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out
    """
)


def _run(tmp_path, source: str) -> pd.DataFrame:
    (tmp_path / "bench_sha3.py").write_text(source)
    env = cli_env(tmp_path)
    options = ["-n", "96", "--max-time", "0.2", "--passes", "3", "--quiet", "--no-overhead"]
    proc = swarbench("run", "bench_sha3.py", *options, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (folder,) = (tmp_path / "reports").iterdir()
    lines = [line for line in (folder / "records.jsonl").read_text().splitlines() if '"event": "result"' in line]
    assert lines and all('"pass_cpus": []' not in line for line in lines)  # a reading for every timed pass
    return pd.read_csv(folder / "results.csv").set_index("implementation")


# A row that waits instead of working: its passes keep next to no CPU busy, however busy the machine is
WAITING_ROW = """

@sums.numpy
def waiting(blocks):
    import time

    time.sleep(0.01)
    return one_thread(blocks)
"""


def test_a_row_that_waits_keeps_less_cpu_busy_than_one_that_works(tmp_path):
    rows = _run(tmp_path, THREADED_FILE + textwrap.dedent(WAITING_ROW))
    # the waiting row hashes the same blocks after its sleep: more wall time, the same CPU time
    busy, waiting = rows.loc["one_thread", "cpus_busy"], rows.loc["waiting", "cpus_busy"]
    assert 0 < waiting < busy <= 1.05, rows["cpus_busy"]
    assert waiting < 0.9 * busy


def _cpus_four_threads_get() -> float:
    """The CPUs four hashing threads keep busy here and now, outside swarbench: what the machine lets them have."""
    import hashlib
    import threading
    import time

    block = os.urandom(1 << 22)

    def work():
        for _ in range(4):
            hashlib.sha3_256(block).digest()

    threads = [threading.Thread(target=work) for _ in range(4)]
    wall, cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return (time.process_time() - cpu) / (time.perf_counter() - wall)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="threads keep more than one CPU busy only on two or more")
def test_a_row_that_runs_threads_keeps_more_than_one_cpu_busy_where_the_machine_lets_it(tmp_path):
    if _cpus_four_threads_get() < 1.5:
        pytest.skip("other programs are using the CPUs the threads would run on")
    rows = _run(tmp_path, THREADED_FILE)
    assert rows.loc["four_threads", "cpus_busy"] > 1.05, rows["cpus_busy"]
    assert 0 < rows.loc["one_thread", "cpus_busy"] <= 1.05, rows["cpus_busy"]


def test_cpus_busy_is_the_median_over_passes_and_a_bad_reading_is_left_out():
    from swarbench import results
    from swarbench.runfolder import ResultLine, Status

    line = ResultLine(kernel="k.x", implementation="i", workload="w", n=10, status=Status.PASS)
    for cpus in (1.9, 2.0, 1.2):
        line.add_pass([1e-3] * 4, 1e-4, 1e-4, (0.0, 1.0), cpus)
    assert line.pass_cpus == [1.9, 2.0, 1.2]
    again = ResultLine.from_json(line.to_json())
    (m,) = results.merge_records([again])
    assert m.cpus_busy == pytest.approx(1.9)
    bad = dict(line.to_json(), pass_cpus=[1.0, "two", None, -1, float("nan"), True])
    (m,) = results.merge_records([ResultLine.from_json(bad)])
    assert m.cpus_busy == pytest.approx(1.0)
    old = {k: v for k, v in line.to_json().items() if k != "pass_cpus"}  # a run saved before the readings
    (m,) = results.merge_records([ResultLine.from_json(old)])
    assert m.cpus_busy != m.cpus_busy
