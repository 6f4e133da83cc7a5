"""Work larger than one machine: a workload that divides into independent shards, and a merge of their outputs.

A ``Divisible`` names its shards and the function that computes one; ``compute`` runs them here, one after
another, or spreads them over the machines of a Dask cluster (swarbench.fleet: the same connection, worker
choice and version check as a fleet run, each shard holding the ``swarbench`` resource, so shards never run
beside a timing), and merges what comes back. The caller's oracle then compares the merged output.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence


@dataclass(frozen=True)
class Divisible:
    name: str
    shards: Sequence[Any]  # each a picklable description of one independent piece
    run: Callable[[Any], Any]  # one shard's output; importable by name on every machine (Dask pickles it so)
    merge: Callable[[list], Any]  # the outputs of every shard, in shard order, into the whole output


@dataclass
class Computed:
    output: Any
    wall_s: float
    shards_by_machine: dict[str, int]


def compute(
    work: Divisible, cluster: Optional[str] = None, machines: Sequence[str] = (), machine_names: Optional[str] = None
) -> Computed:
    """``work`` merged, computed here (cluster None) or over the chosen workers of the cluster."""
    if cluster is None:
        start = time.perf_counter()
        outputs = [work.run(shard) for shard in work.shards]
        return Computed(work.merge(outputs), time.perf_counter() - start, {"here": len(outputs)})
    from distributed import as_completed

    from swarbench import fleet

    client, local = fleet.connect(cluster, machine_names)
    try:
        chosen = fleet.pick_workers(client, list(machines))
        fleet.check_machines(client, chosen, [])
        names = {address: name for name, address in chosen.items()}
        start = time.perf_counter()
        futures = client.map(
            work.run,
            list(work.shards),
            key=[f"{work.name}-{i}" for i in range(len(work.shards))],
            workers=list(chosen.values()),
            resources={fleet.RESOURCE: 1},
            pure=False,
        )
        order = {f.key: i for i, f in enumerate(futures)}
        outputs: list = [None] * len(futures)
        for future in as_completed(futures):
            outputs[order[future.key]] = future.result()
        wall = time.perf_counter() - start
        # which machine computed each shard, from the scheduler's own record of where each task ran
        where = client.run_on_scheduler(_task_workers, [f.key for f in futures])
        by_machine: dict[str, int] = {}
        for address in where.values():
            by_machine[names.get(address, address)] = by_machine.get(names.get(address, address), 0) + 1
        return Computed(work.merge(outputs), wall, by_machine)
    finally:
        client.close()
        if local is not None:
            local.close()


def _task_workers(keys, dask_scheduler=None) -> dict:
    out = {}
    for key in keys:
        ts = dask_scheduler.tasks.get(key)
        if ts is not None and ts.who_has:
            out[key] = next(iter(ts.who_has)).address
    return out
