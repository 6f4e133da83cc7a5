"""Each workload and its reference outputs, built once per run: kept in memory for the kernel at hand, and left
as a pickle file for the run's other workers (--swarbench-cache), which load it instead of building it again."""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from typing import Any, NamedTuple, Optional

from swarbench import oracle, spec_guard
from swarbench.bench.cases import Case
from swarbench.model import Workload


class Prepared(NamedTuple):
    workload: Workload  # read-only: every implementation of the case's kernel is handed it
    expected: Any  # the reference outputs the oracle checks against
    digest: str = ""  # of the inputs as built: an implementation that wrote into them changed it


class WorkloadCache:
    def __init__(self, registry, seed: int, params: dict[str, str], folder: Optional[str], writes: bool):
        self.registry, self.seed, self.params = registry, seed, params
        self.folder, self.writes = folder, writes
        self._held: dict[tuple, Prepared] = {}

    def get(self, case: Case) -> Prepared:
        key = (case.kernel, case.workload, case.size)
        if key not in self._held:
            # Keep one kernel's workloads at a time: a million-pair workload and its reference are large.
            self._held = {k: v for k, v in self._held.items() if k[0] == case.kernel}
            self._held[key] = self._shared(case)
        return self._held[key]

    def held(self, case: Case) -> Optional[Prepared]:
        """The case's workload if it is at hand (built, or loaded), else None: nothing is built for asking."""
        return self._held.get((case.kernel, case.workload, case.size))

    def _path(self, case: Case) -> Optional[str]:
        if not self.folder:
            return None
        given = "~".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        digest = hashlib.sha256(given.encode()).hexdigest()[:12]
        name = f"{case.kernel}~{case.workload}~{case.size or 'default'}~{self.seed}~{digest}.pickle"
        return os.path.join(self.folder, name.replace(os.sep, "_"))

    def _shared(self, case: Case) -> Prepared:
        """From the run's cache when another worker built it, else built here and left there. Anything that will
        not pickle is simply built again by each worker."""
        path = self._path(case)
        if path:
            try:
                with open(path, "rb") as fh:
                    workload, expected = pickle.load(fh)
                # unpickled arrays land anywhere: realign them; read-only, as every implementation shares them
                workload = workload.fresh_copy().read_only()
                return Prepared(workload, expected, workload.digest())
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
                pass
        kernel = spec_guard.guarded(self.registry.kernels[case.kernel])  # its faults are the spec's, named so
        workload = kernel.make_workload(kernel.workload_kind(case.workload), case.size, self.seed, self.params)
        built = Prepared(workload.read_only(), oracle.reference_outputs(kernel, workload), workload.digest())
        if path and self.writes:
            _write_pickle(self.folder, path, tuple(built[:2]))
        return built

    def prime(self, kernel: str, workload: str, size: Optional[int]) -> None:
        """Build a workload and its reference outputs and leave them in the run's cache, before any worker (the
        run's build step, side by side with the compiles): the first worker then loads them."""
        self._shared(Case(kernel, "", workload, size))

    def forget(self, case: Case) -> None:
        """Build (or load) a case's workload again for the next case: an implementation wrote into this one."""
        self._held.pop((case.kernel, case.workload, case.size), None)


def _write_pickle(folder: str, path: str, value) -> None:
    """Leave ``value`` at ``path`` for other workers; readers see the whole file or none. Anything that will not
    pickle costs those workers time (they build it again), never the run."""
    tmp = None
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".part-")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except Exception:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)
