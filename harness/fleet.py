"""Runs on a fleet: the selected benchmarks on every worker of a Dask cluster, gathered into one run folder.

Each Dask worker stands for one machine (its name is the machine's name). The client sends every machine one
job: ``engine.run`` of the same request, on that machine, exactly as a local run (its own benchmark processes,
C builds, feature detection, canary). The job asks for the worker resource ``swarbench`` (one per worker), so
nothing else of ours is scheduled beside a timing. Each record line the engine reads on the machine is sent
back as it happens (Dask's structured events), so a machine that dies mid-run leaves what it finished; what it
had not finished is reported LOST with the machine named. The distributed scheduler does the moving; this
module only chooses what runs where and puts the pieces together.

swarbench starts nothing on a remote machine: the scheduler and workers are the user's (docs/fleet.md).
``--cluster local:N`` starts a LocalCluster of N single-threaded worker processes here, for tests and first
tries. ``distributed`` is an optional dependency (the ``fleet`` extra), imported only when a cluster is asked for.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

import pandas as pd

from swarbench import engine, machine as machine_mod, results
from swarbench.errors import UsageError
from swarbench.fleet_options import LOCAL, add_arguments, local_names  # noqa: F401  (the run command's options)
from swarbench.model import matches
from swarbench.run_request import RunRequest, check_request
from swarbench.runfolder import (
    BadRecord,
    CaseId,
    PlanLine,
    Record,
    ResultLine,
    RunFolder,
    is_note,
    note_line,
    record,
    results_of,
)
from swarbench.supervision import INTERRUPT_GRACE_S, WorkerEnd
from swarbench.workers import lost_case_record

RESOURCE = "swarbench"  # the worker resource a job holds: one benchmark job per machine at a time
TOPIC = "swarbench-records"  # Dask event topic the machines' record lines come back on
MACHINES_DIR = "machines"  # each machine's own files, under the run folder
# After a Ctrl-C, how long the client waits for the machines to send what they measured (their engines give
# their benchmark processes INTERRUPT_GRACE_S, then stop them).
STOP_WAIT_S = INTERRUPT_GRACE_S + 20
BENCH_MODULE = "swarbench.bench.bench_kernels"


# -- on the client ---------------------------------------------------------------------------------------


@dataclass
class Machine:
    name: str
    address: str
    info: dict = field(default_factory=dict)  # machine.collect() of that machine, with its name
    events: list[Record] = field(default_factory=list)  # record lines as they came back
    payload: Optional[dict] = None  # what the finished job returned
    lost: str = ""  # why the machine dropped out, if it did
    unreadable: list[str] = field(default_factory=list)  # why each record line that came back could not be read


# Dask's own log lines are silenced up to CRITICAL: a lost worker or a failed job reaches the user as swarbench's
# one line, and closing the cluster after a run logs an ERROR with a traceback (a heartbeat to a scheduler that
# has already gone) that says nothing about the run
SILENT = logging.CRITICAL


def start_local(names: list[str]):
    """A LocalCluster whose workers carry the given names: SpecCluster is what LocalCluster builds on, and
    only it lets each worker be named."""
    from distributed import Nanny, Scheduler, SpecCluster

    scheduler = {"cls": Scheduler, "options": {"dashboard": False, "dashboard_address": None, "host": "127.0.0.1"}}
    # memory_limit 0: no restart of a worker that holds a large reference or shard (Dask's default is a share
    # of this machine's memory per worker, and a restart mid-run would lose that machine's job)
    workers = {
        name: {
            "cls": Nanny,
            "options": {
                "nthreads": 1,
                "resources": {RESOURCE: 1},
                "host": "127.0.0.1",
                "memory_limit": 0,
                "silence_logs": SILENT,
            },
        }
        for name in names
    }
    return SpecCluster(
        workers=workers, scheduler=scheduler, asynchronous=False, silence_logs=SILENT, name="swarbench-local"
    )


def connect(address: str, names: Optional[str]):
    """(client, cluster or None); an address nobody answers at is one line, before anything runs."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs Dask's distributed package: pip install 'swarbench[fleet]'") from None
    if address.startswith(LOCAL):
        cluster = start_local(local_names(address, names))
        client = Client(cluster)
        # A terminal's Ctrl-C goes to its whole process group: the local workers leave it, so that they, like a
        # remote machine's, are stopped by the client (interrupt_benchmarks) and send back what they measured.
        client.run(_own_session)
        return client, cluster
    if names is not None:
        raise UsageError("--machine-names is for --cluster local:N; remote workers are named by `dask worker --name`")
    try:
        # Dask's own configuration decides the rest: distributed.comm.tls.* for a tls:// address (security=None
        # reads it), distributed.comm.timeouts.connect for how long to try
        return Client(address), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {address}: {str(exc).splitlines()[0]}") from None


def _own_session() -> None:
    try:
        os.setsid()
    except OSError:  # already a session leader
        pass


def pick_workers(client, patterns: list[str]) -> dict[str, str]:
    """name -> address of the workers the run uses; refuses one that cannot hold a job of ours."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    if not workers:
        raise UsageError(
            "the Dask cluster has no workers: start `dask worker ADDRESS --name NAME "
            f"--nthreads 1 --resources {RESOURCE}=1` on each machine"
        )
    named = {str(w.get("name", addr)): addr for addr, w in workers.items()}
    chosen = {n: a for n, a in sorted(named.items()) if matches(n, patterns)}
    if not chosen:
        raise UsageError(
            f"no worker name matches {', '.join(map(repr, patterns))}; workers: {', '.join(sorted(named))}"
        )
    short = [n for n, a in chosen.items() if workers[a].get("resources", {}).get(RESOURCE, 0) < 1]
    if short:
        raise UsageError(
            f"worker(s) {', '.join(short)} lack the resource {RESOURCE}=1 that keeps one benchmark "
            f"job per machine: restart them with `dask worker ... --resources {RESOURCE}=1`"
        )
    return chosen


def versions_here(disable: list[str]) -> dict:
    """swarbench's version and each enabled plugin's distribution and version: what a machine runs."""
    out = {"swarbench": _version("swarbench"), "plugins": {}}
    for ep in importlib.metadata.entry_points(group="swarbench"):
        if ep.name not in disable:
            dist = getattr(ep, "dist", None)
            out["plugins"].setdefault(ep.name, f"{dist.name} {dist.version}" if dist else "?")
    return out


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def describe_machine(name: str, disable: list[str]) -> dict:
    """Runs on a worker: its versions (for the check) and its machine information (for the run)."""
    info = machine_mod.collect()
    info["name"] = name
    return {"versions": versions_here(disable), "machine": info}


def version_difference(name: str, theirs: dict, ours: dict) -> Optional[str]:
    if theirs["swarbench"] != ours["swarbench"]:
        return f"machine {name} runs swarbench {theirs['swarbench']}, this client {ours['swarbench']}"
    for plugin in sorted(set(theirs["plugins"]) | set(ours["plugins"])):
        a, b = theirs["plugins"].get(plugin, "no such plugin"), ours["plugins"].get(plugin, "no such plugin")
        if a != b:
            return f"machine {name} has plugin {plugin} as {a}, this client {b}"
    return None


def check_machines(client, chosen: dict[str, str], disable: list[str]) -> dict[str, Machine]:
    """Each chosen worker's versions against ours, and its machine information, before anything is timed."""
    ours = versions_here(disable)
    machines = {}
    for name, address in chosen.items():
        try:
            got = client.run(describe_machine, name, disable, workers=[address])[address]
        except Exception as exc:  # a worker that cannot unpickle our function has no (or another) swarbench
            raise UsageError(
                f"machine {name} cannot run swarbench's check ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}): install swarbench "
                f"{ours['swarbench']} there"
            ) from None
        why = version_difference(name, got["versions"], ours)
        if why:
            raise UsageError(f"{why}: install the same versions on every machine")
        machines[name] = Machine(name, address, got["machine"])
    return machines


class Gatherer:
    """Takes each record line a machine sends, keeps it in order, and shows progress."""

    def __init__(self, run_id: str, machines: dict[str, Machine], listener_for):
        self.run_id, self.machines = run_id, machines
        self.listeners = {name: listener_for(name) for name in machines}
        self.lock = threading.Lock()

    def __call__(self, event) -> None:
        _, msg = event  # (time, message), as Dask hands structured events to subscribers
        if not isinstance(msg, dict) or msg.get("run") != self.run_id or msg.get("machine") not in self.machines:
            return
        try:
            line = record(json.loads(msg["event"]))
        except (BadRecord, TypeError, ValueError, KeyError) as exc:  # (a machine of the same version writes none)
            with self.lock:
                self.machines[msg["machine"]].unreadable.append(_one_line(exc))
            return
        with self.lock:
            self.machines[msg["machine"]].events.append(line)
            listener = self.listeners.get(msg["machine"])
        if listener:
            listener(line)


def run(request: RunRequest, args, registry, listener_for=None) -> engine.RunOutcome:
    """The fleet run of ``request``. ``listener_for(machine)`` gives the progress listener of one machine."""
    if not args.cluster:
        raise UsageError("--machines and --machine-names choose workers of a --cluster; give --cluster ADDRESS")
    check_request(request, registry)
    client, cluster = connect(args.cluster, args.machine_names)
    try:
        machines = check_machines(client, pick_workers(client, args.machines), request.disable)
        folder = RunFolder.create(request.reports_dir)
        run_id, run_dir = folder.run_id, folder.path
        gatherer = Gatherer(run_id, machines, listener_for or (lambda name: None))
        client.subscribe_topic(TOPIC, gatherer)
        interrupted = follow(client, run_id, request, machines)
        client.unsubscribe_topic(TOPIC)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return gather(run_id, run_dir, machines, registry, interrupted)


def follow(client, run_id: str, request: RunRequest, machines: dict[str, Machine]) -> bool:
    """Submit one job per machine and wait for them all; a machine whose worker leaves is marked lost. Returns
    whether the user interrupted."""
    from distributed import wait

    futures = {
        name: client.submit(
            machine_job,
            request,
            run_id,
            name,
            key=f"swarbench-{run_id}-{name}",
            workers=[m.address],
            allow_other_workers=False,
            resources={RESOURCE: 1},
            pure=False,
        )
        for name, m in machines.items()
    }
    pending = dict(futures)
    interrupted, deadline = False, None
    while pending:
        try:
            try:
                wait(list(pending.values()), timeout=1, return_when="FIRST_COMPLETED")
            except Exception:  # wait() times out by raising; settle() sees to the rest
                pass
            settle(client, machines, pending)
        except KeyboardInterrupt:
            if interrupted:  # a second Ctrl-C: stop waiting
                break
            interrupted, deadline = True, time.time() + STOP_WAIT_S
            print(
                f"swarbench: interrupted: asking {len(pending)} machine(s) to stop and send what they measured "
                "(Ctrl-C again to stop waiting)",
                file=sys.stderr,
            )
            _stop_machines(client, [machines[n].address for n in pending])
            continue
        if deadline is not None and time.time() > deadline:
            break
    for name, future in pending.items():  # interrupted and given up on: keep what came back
        machines[name].lost = machines[name].lost or "interrupted before it sent its results"
    client.cancel(list(futures.values()), force=True)
    time.sleep(0.2)  # the last record lines in flight reach the gatherer
    return interrupted


def settle(client, machines: dict[str, Machine], pending: dict) -> None:
    """Take the finished jobs out of ``pending``, with their results, and the jobs of machines gone as lost."""
    alive = set(client.scheduler_info(n_workers=-1)["workers"])
    for name, future in list(pending.items()):
        m = machines[name]
        if future.status == "finished":
            m.payload = future.result()
        elif future.status in ("error", "cancelled"):
            m.lost = _one_line(future.exception()) if future.status == "error" else "its job was cancelled"
        elif m.address not in alive:
            m.lost = "its worker left the cluster mid-run"
        else:
            continue
        pending.pop(name)


def _stop_machines(client, addresses: list[str]) -> None:
    try:
        client.run(interrupt_benchmarks, workers=addresses, on_error="ignore")
    except Exception:
        pass  # a machine that cannot be told is given up on after STOP_WAIT_S


def _one_line(exc) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def gather(run_id: str, run_dir: Path, machines: dict[str, Machine], registry, interrupted: bool) -> engine.RunOutcome:
    """Each machine's records and files into the run folder, its unfinished cases LOST, and one frame."""
    planned = sorted({c for m in machines.values() for e in m.events if isinstance(e, PlanLine) for c in e.cases})
    frames, problems, every = [], [], []
    run = RunFolder(run_dir)
    for name, m in machines.items():
        folder = run.machine_folder(name)
        folder.path.mkdir(parents=True)
        records = [record(r) for r in m.payload["records"]] if m.payload else list(m.events)
        if not m.payload and m.unreadable:  # the lines were its only word of what it finished (lost or stopped)
            problems.append(
                f"machine {name} sent {len(m.unreadable)} record line(s) this client could not read "
                f"(first: {m.unreadable[0]})"
            )
        if m.lost and interrupted:  # stopped by the user: what it did not send is not measured, as in a local run
            problems.append(f"machine {name}: {m.lost}")
        elif m.lost:
            lost = lost_cases(name, m, records, planned, registry)
            records += lost
            problems.append(
                f"machine {name} was lost mid-run ({m.lost}): {len(lost)} case(s) LOST"
                + (f", e.g. {lost[0].case}" if lost else "")
            )
        if m.payload:
            problems += [f"machine {name}: {p}" for p in m.payload["problems"]]
            interrupted = interrupted or m.payload["interrupted"]
            for fname, text in m.payload["files"].items():
                folder.write_text(fname, text)
        folder.write_machine(m.info)
        folder.write_records(records)
        every += [replace(r, machine=name) for r in records if not is_note(r)]  # (said below, machine named)
        frames.append(results.frame_from_records(records, run_id, m.info))
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=results.COLUMNS)
    fleet = fleet_machine(machines)
    run.write_machine(fleet)
    run.write_records(every + [note_line(p) for p in problems])  # what a later report of the run says
    run.save(frame)
    return engine.RunOutcome(run_id, run_dir, frame, fleet, interrupted, problems)


def lost_cases(name: str, m: Machine, records: list[Record], planned: list[str], registry) -> list[ResultLine]:
    """A LOST result line for each planned case the machine sent no result of."""
    done = {r.case for r in results_of(records)}
    end = WorkerEnd("lost", -1, detail=f"machine {name} was lost mid-run: {m.lost}")
    return [
        lost_case_record(case, end, 0, registry, records)
        for case in planned
        if case not in done and CaseId.parse(case).kernel != results.OVERHEAD_KERNEL
    ]


def fleet_machine(machines: dict[str, Machine]) -> dict:
    """The run's machine.json: what the machines share, each one's own under ``fleet``."""
    infos = {name: m.info for name, m in machines.items()}

    def joined(key: str) -> str:
        values = {str(i.get(key, "")) for i in infos.values()}
        return values.pop() if len(values) == 1 else "; ".join(f"{n}: {i.get(key, '')}" for n, i in infos.items())

    first = next(iter(infos.values()), {})
    return {
        "cpu": joined("cpu"),
        "cores": joined("cores"),
        "python": joined("python"),
        "compiler": joined("compiler"),
        "git_commit": joined("git_commit"),
        "simd_flags": sorted(set.intersection(*(set(i.get("simd_flags", [])) for i in infos.values())))
        if infos
        else [],
        "packages": first.get("packages", {}),
        "hostname": joined("hostname"),
        "fleet": infos,
    }


# -- on each machine -------------------------------------------------------------------------------------

_stopping = threading.Event()  # set on this machine by interrupt_benchmarks; cleared when a job starts
_signalled: set[int] = set()


def machine_job(request: RunRequest, run_id: str, name: str) -> dict:
    """Runs on one machine: the engine's local run of ``request`` in a folder of its own, each record line sent
    back as the engine reads it; returns the run's records and files."""
    from distributed import get_worker

    worker = get_worker()
    _stopping.clear()
    _signalled.clear()

    def send(event: Record) -> None:
        # as the line records.jsonl holds: Dask's msgpack would turn its lists into tuples, which a record refuses
        worker.log_event(TOPIC, {"run": run_id, "machine": name, "event": json.dumps(event.to_json())})
        if _stopping.is_set():  # a benchmark process started after the stop was asked for
            _interrupt_children()

    from swarbench import registry as registry_mod

    from swarbench import local

    # the local plugins as this run's machine found them (swarbench.api.for_registry): a machine without the
    # file reports it as that plugin's failure
    reg = registry_mod.load(disable=request.disable, local=local.sources(request.plugins, discover=False))
    with tempfile.TemporaryDirectory(prefix="swarbench-fleet-") as tmp:
        outcome = engine.run(replace(request, reports_dir=Path(tmp)), reg, send)
        files = {
            p.name: p.read_text(errors="replace")
            for p in outcome.run_dir.iterdir()
            if p.is_file() and (p.name == "pytest.log" or p.name.startswith("benchmark-"))
        }
        records = [r.to_json() for r in RunFolder(outcome.run_dir).records()]
    return {"records": records, "files": files, "interrupted": outcome.interrupted, "problems": outcome.problems}


def interrupt_benchmarks() -> int:
    """Runs on a machine (client.run, beside the job): a Ctrl-C for its benchmark processes, as a local run
    gets one; the engine then keeps what they measured and ends its run. Returns how many were signalled."""
    _stopping.set()
    return _interrupt_children()


def _interrupt_children() -> int:
    import psutil  # a dependency of distributed

    count = 0
    for child in psutil.Process().children(recursive=False):
        try:
            if child.pid not in _signalled and BENCH_MODULE in " ".join(child.cmdline()):
                child.send_signal(signal.SIGINT)
                _signalled.add(child.pid)
                count += 1
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return count


def machine_listener_factory(processes: int, stream=None):
    """Progress lines for each machine: the local run's display, each line led by the machine's name."""
    from swarbench.render.live import LiveDisplay

    stream = stream or sys.stderr

    class Prefixed:
        def __init__(self, name: str):
            self.name = name

        def write(self, text: str) -> None:
            stream.write(text.replace("[", f"[{self.name}: ", 1) if text.strip() else text)

        def flush(self) -> None:
            stream.flush()

        def isatty(self) -> bool:
            return False  # lines of several machines interleave: no line rewritten in place

    return lambda name: LiveDisplay(processes, Prefixed(name))
