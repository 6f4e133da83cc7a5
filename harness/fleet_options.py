"""The command-line options of a fleet run, apart from swarbench.fleet so that parsing a command line (and
`swarbench --help`) imports neither pandas nor distributed."""

from __future__ import annotations

import argparse
from typing import Optional

from swarbench.errors import UsageError

LOCAL = "local:"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The run command's fleet options; nothing here imports distributed."""
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="run on every worker of this Dask cluster (tcp://host:8786, tls://... with Dask's own "
        "security settings), one job per machine, all into one run folder with the machine as a "
        "column; local:N starts N single-threaded workers here (see docs/fleet.md)",
    )
    p.add_argument(
        "--machines",
        action="append",
        default=[],
        metavar="PATTERN",
        help="with --cluster: only the workers whose name matches this shell pattern (repeatable)",
    )
    p.add_argument(
        "--machine-names",
        default=None,
        metavar="A,B,...",
        help="with --cluster local:N: the N machine names (default local-1 .. local-N)",
    )


def local_names(address: str, names: Optional[str]) -> list[str]:
    count = address[len(LOCAL) :]
    if not count.isdigit() or int(count) < 1:
        raise UsageError(f"--cluster {address!r}: local:N needs a worker count N of 1 or more")
    n = int(count)
    if names is None:
        return [f"local-{i}" for i in range(1, n + 1)]
    given = [x.strip() for x in names.split(",")]
    if len(given) != n or not all(given) or len(set(given)) != n:
        raise UsageError(f"--machine-names {names!r}: give {n} different names for --cluster {address}")
    return given
