"""`swarbench history` over five saved runs of two commits: every kernel shows both commits, and a measurement
made thirty times slower in the later commit is marked slower, as `compare` calls it."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import cli_env, swarbench

RUN = [
    "--kernel",
    "cards.*",
    "--size",
    "4096",
    "--max-time",
    "0.01",
    "--processes",
    "1",
    "--passes",
    "5",  # an interval needs 5 passes (docs/measurement.md): with fewer, no change can be called
    "--quiet",
    "--impl",
    "naive",
    "--impl",
    "swar",
    "--impl",
    "c-swar",
]


def clone(run: Path, reports: Path, run_id: str, commit: str, slower: str = "") -> Path:
    """A copy of a real run under another id and commit, ``slower``'s samples (cards.remove) thirty times slower:
    far beyond what a shared machine's noise can hide."""
    out = reports / run_id
    shutil.copytree(run, out)
    frame = pd.read_csv(out / "results.csv")
    frame["run_id"], frame["git_commit"] = run_id, commit
    hit = (frame.kernel == "cards.remove") & (frame.implementation == slower)
    for col in ("ns_per_op_median", "ns_per_op_ci_low", "ns_per_op_ci_high"):
        frame.loc[hit, col] *= 30
    frame.to_csv(out / "results.csv", index=False)
    machine = json.loads((out / "machine.json").read_text()) | {"git_commit": commit}
    (out / "machine.json").write_text(json.dumps(machine))
    lines = []
    for line in (out / "records.jsonl").read_text().splitlines():
        rec = json.loads(line)
        if rec.get("kernel") == "cards.remove" and rec.get("implementation") == slower and rec.get("samples_s"):
            rec["samples_s"] = [30 * x for x in rec["samples_s"]]
        lines.append(json.dumps(rec))
    (out / "records.jsonl").write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.slow
def test_history_shows_both_commits_for_every_kernel_and_marks_a_regression(tmp_path):
    env = cli_env(tmp_path)
    proc = swarbench("run", *RUN, env=env)
    assert proc.returncode == 0, proc.stderr
    reports = Path(env["SWARBENCH_REPORTS"])
    (real,) = reports.iterdir()
    for i, commit in enumerate(["aaaa1111", "aaaa1111", "aaaa1111", "bbbb2222", "bbbb2222"]):
        clone(real, reports, f"20300101-00000{i}-000{i}", commit, slower="swar" if commit == "bbbb2222" else "")
    shutil.rmtree(real)
    out = tmp_path / "history.html"
    proc = swarbench("history", "--reports", str(reports), "--output", str(out), env=env)
    assert proc.returncode == 0, proc.stderr
    page = out.read_text()
    tables = page.split("<h3>")[1:]
    assert {t.split(" <small>")[0] for t in tables} == {"cards.contains", "cards.remove"}
    for table in tables:
        head = table.split("</thead>")[0]
        assert "aaaa1111" in head and "bbbb2222" in head and head.index("aaaa1111") < head.index("bbbb2222")
        assert "3 runs" in head and "2 runs" in head
    remove = next(t for t in tables if t.startswith("cards.remove"))
    rows = {r.split("</td>")[0]: r for r in remove.split("<tr><td>")[1:]}
    assert "slower" in rows["swar"] and "class='bad'" in rows["swar"]
    assert all("slower" not in rows[name] for name in ("naive", "c-swar"))
    # compare, between the two commits' latest runs, calls the same change
    cmp = swarbench("compare", "20300101-000002-0002", "20300101-000004-0004", "--format", "csv", env=env)
    frame = pd.read_csv(pd.io.common.StringIO(cmp.stdout))
    swar = frame[(frame.kernel == "cards.remove") & (frame.implementation == "swar")].iloc[0]
    assert swar.significant and swar.change > 10


def test_history_of_an_empty_folder_is_one_clear_error(tmp_path):
    (tmp_path / "reports").mkdir()
    proc = swarbench("history", "--reports", str(tmp_path / "reports"), env=cli_env(tmp_path))
    assert proc.returncode == 2 and proc.stderr.startswith("swarbench: error: ") and "no saved run" in proc.stderr
