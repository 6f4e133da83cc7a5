"""How fast this machine's memory can be read and written, at each cache level and from DRAM: a short
stream-like probe (c/bandwidth.c), measured once per machine and kept beside the C builds.

Each level is probed on a buffer half its size (DRAM: four times the last cache, at least 256 MiB), the best of
several calls, one core. A row's memory limit divides the bytes it must move by these (swarbench.explain.limits).
A bandwidth is a ceiling, and a shared machine's busy neighbours only ever lower what a probe sees: the first
run on a machine probes every level, each later run probes the caches again briefly, and the file
(``~/.cache/swarbench/bandwidth/``) keeps the best figure each level has shown.

STREAM (McCalpin) is the reference for such probes; it is C with OpenMP, built and run by hand, and it measures
DRAM only, so the few lines here do the same per cache level through cffi, as every C row is built.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import time
from pathlib import Path

from swarbench import features, files

SOURCE = Path(__file__).parent / "c" / "bandwidth.c"
CDEF = """
uint64_t probe_read(const void *buffer, size_t bytes, size_t repeats);
void probe_write(void *buffer, size_t bytes, size_t repeats);
"""
CALL_BYTES = 256 << 20  # bytes a probing call moves (a few milliseconds from a cache)
TRIES = 5
AGAIN_BYTES, AGAIN_TRIES = 64 << 20, 2  # a later run's brief probe of the caches
DRAM_LEAST = 256 << 20
ASSUMED = {"L1": 32 << 10, "L2": 1 << 20, "L3": 8 << 20}  # where the system does not say its cache sizes
# A batch's arrays a little larger than a level still mostly come from it: a stream of 1.11 MB (cards.contains,
# 65,536 pairs) ran at 17 GB/s on a 1 MiB L2 whose L3 the probe read at 7 GB/s
FITS = 1.25
PROBE_ISA = (("avx512f", ("avx512f",)), ("avx2", ("avx2",)), ("sse2", ("sse2",)))


def cache_sizes() -> tuple[dict[str, int], str]:
    """Each data cache level's size in bytes (one core's share of what it sees), and '' or how they were
    guessed."""
    sizes: dict[str, int] = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text())
            size = _bytes((index / "size").read_text().strip())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size:
            sizes[f"L{level}"] = size
    if sizes:
        return sizes, ""
    for level, name in ((1, "SC_LEVEL1_DCACHE_SIZE"), (2, "SC_LEVEL2_CACHE_SIZE"), (3, "SC_LEVEL3_CACHE_SIZE")):
        try:
            size = os.sysconf(name)
        except (ValueError, OSError, AttributeError):
            size = 0
        if size and size > 0:
            sizes[f"L{level}"] = size
    return (sizes, "") if sizes else (dict(ASSUMED), "cache sizes unknown here: assumed 32 KiB, 1 MiB, 8 MiB")


def _bytes(text: str) -> int:
    m = re.fullmatch(r"(\d+)\s*([KMG]?)", text)
    if not m:
        raise ValueError(text)
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def working_sets(sizes: dict[str, int]) -> list[tuple[str, int, int]]:
    """(level, its size, the buffer that probes it): half of each level, above the level before it; DRAM four
    times the last level, at least DRAM_LEAST, at most an eighth of the memory."""
    out, below = [], 0
    for level in sorted(sizes):
        size = sizes[level]
        buffer = max(size // 2, (below + size) // 2) // 4096 * 4096 or 4096
        out.append((level, size, buffer))
        below = size
    dram = max(4 * below, DRAM_LEAST)
    try:
        dram = min(dram, os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 8)
    except (ValueError, OSError, AttributeError):
        pass
    out.append(("DRAM", 0, dram // 4096 * 4096))
    return out


def machine_key() -> str:
    sizes, _ = cache_sizes()
    text = json.dumps([platform.node(), features.cpu_model(), os.cpu_count(), sorted(sizes.items())])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_file() -> Path:
    from swarbench.cbuild import cache_dir

    host = re.sub(r"[^\w.-]", "_", platform.node())
    return cache_dir().parent / "bandwidth" / f"{host}-{machine_key()}.json"


def measured() -> dict:
    """This machine's bandwidth per level, the best its probes have seen (kept in its cache file): ``{"levels":
    [{"level", "bytes", "read_gbs", "write_gbs"}], ...}``, or ``{"missing": why}``."""
    path = cache_file()
    try:
        kept = json.loads(path.read_text())
        kept = kept if isinstance(kept, dict) and kept.get("levels") else None
    except (OSError, ValueError):
        kept = None
    result = probe(again=kept is not None)
    if "levels" not in result:
        return kept or result
    result = best_of(kept, result)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        files.write_atomic(path, json.dumps(result, indent=1))
    except OSError:
        pass  # not kept: the next run probes again
    return result


def best_of(kept: dict | None, new: dict) -> dict:
    """Each level's best read and write bandwidth over a kept probe and a new one (a level the new one left
    out, DRAM on a later run, as it was kept)."""
    if not kept:
        return new
    fresh = {lv["level"]: lv for lv in new["levels"]}
    levels = []
    for lv in kept["levels"]:
        now = fresh.pop(lv["level"], None)
        if now is not None:
            lv = dict(
                lv, read_gbs=max(lv["read_gbs"], now["read_gbs"]), write_gbs=max(lv["write_gbs"], now["write_gbs"])
            )
        levels.append(lv)
    return dict(kept, levels=levels + list(fresh.values()), measured=new.get("measured", kept.get("measured")))


def probe(again: bool = False) -> dict:
    """Probe every level; ``again``: the caches only, briefly (a later run's look)."""
    from swarbench import cbuild
    from swarbench.memory import aligned_empty

    isa = next((flags for flag, flags in PROBE_ISA if flag in features.cpu_flags()), ())
    try:
        module = cbuild.build("explain_bandwidth", SOURCE, CDEF, isa)
    except cbuild.BuildError as exc:
        return {"missing": f"no bandwidth probe: {exc}"}
    sizes, note = cache_sizes()
    lib, ffi = module.lib, module.ffi
    call_bytes, tries = (AGAIN_BYTES, AGAIN_TRIES) if again else (CALL_BYTES, TRIES)
    levels = []
    for level, size, buffer_bytes in working_sets(sizes):
        if again and not size:
            continue  # DRAM: a quarter of a GiB touched every run is not worth its look
        buffer = aligned_empty(buffer_bytes, "uint8")
        buffer[:] = 1  # every page touched before it is timed
        pointer = ffi.cast("void *", ffi.from_buffer(buffer))
        repeats = max(1, call_bytes // buffer_bytes)
        read = _best(lambda p=pointer, b=buffer_bytes, r=repeats: lib.probe_read(p, b, r), tries)
        write = _best(lambda p=pointer, b=buffer_bytes, r=repeats: lib.probe_write(p, b, r), tries)
        moved = buffer_bytes * repeats
        levels.append(
            {
                "level": level,
                "bytes": size,
                "probe_bytes": buffer_bytes,
                "read_gbs": round(moved / read / 1e9, 2),
                "write_gbs": round(moved / write / 1e9, 2),
            }
        )
        del buffer
    return {
        "levels": levels,
        "isa": " ".join(isa) or "portable",
        "note": note,
        "measured": time.time(),
        "host": platform.node(),
    }


def _best(call, tries: int) -> float:
    call()  # a first call warms the level
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return max(best, 1e-9)


def level_for(levels: list[dict], working_set: float) -> dict | None:
    """The smallest level that holds ``working_set`` bytes (up to FITS times its size); DRAM beyond the last
    cache."""
    caches = [lv for lv in levels if lv.get("bytes")]
    for lv in sorted(caches, key=lambda lv: lv["bytes"]):
        if working_set <= FITS * lv["bytes"]:
            return lv
    return next((lv for lv in levels if not lv.get("bytes")), caches[-1] if caches else None)
