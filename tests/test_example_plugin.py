"""The out-of-tree example plugin, loaded through its own entry point as `pip install` would leave it."""
import shutil
from pathlib import Path

import pandas as pd

from conftest import FAST, ROOT, cli_env, swarbench

EXAMPLE = ROOT / "examples" / "swarbench-example"


def _installed_like_pip(site: Path) -> Path:
    """Copy the package and write the .dist-info its pyproject.toml describes (name, entry point)."""
    import tomllib

    meta = tomllib.loads((EXAMPLE / "pyproject.toml").read_text())["project"]
    shutil.copytree(EXAMPLE / "swarbench_example", site / "swarbench_example")
    info = site / "swarbench_example-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n")
    eps = meta["entry-points"]["swarbench"]
    (info / "entry_points.txt").write_text("[swarbench]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()))
    return site


def test_the_example_plugin_adds_an_implementation_that_is_checked_and_timed(tmp_path):
    env = cli_env(tmp_path, _installed_like_pip(tmp_path / "site"))
    listing = swarbench("list", "--kernel", "cards.contains", env=env).stdout
    assert "example-bytewise" in listing
    proc = swarbench("run", "--kernel", "cards.contains", "--impl", "example-*", "--impl", "naive",
                     "--size", "300", *FAST, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "BenchmarkContains/example-bytewise-" in proc.stdout
    (run,) = (tmp_path / "reports").iterdir()
    frame = pd.read_csv(run / "results.csv")
    row = frame[frame.implementation == "example-bytewise"].iloc[0]
    assert row.status == "PASS" and row.ns_per_op_median > 0 and row.speedup > 0


def test_without_the_plugin_the_implementation_is_absent(tmp_path):
    assert "example-bytewise" not in swarbench("list", env=cli_env(tmp_path)).stdout
