"""The outputs of timed calls, checked: which calls is drawn where the implementation cannot see it, and what a
checked call returned (and any copy of it the batch holds) is written over, so that the next call has to compute
its answers again. docs/measurement.md says why it is done this way and what it cannot catch.

- The first FIRST_CHECKED calls after each preparation are all checked (the calls that size a case's rounds and
  the warm-up round before its first timed round): an implementation wrong on a few calls soon after it is
  prepared is caught whatever it counts.
- Every later round keeps the output of one of its calls, at a position drawn from a generator seeded from
  os.urandom (never from the run's --seed, which an implementation can read), plus the last call of each pass;
  the kept output is checked after the round, outside the timed region. Where checking costs more than
  CHECK_SHARE of a round, each round is checked with the probability that keeps it to that share.
- After a check passes, the outputs it checked, and every array or list the batch holds (its closure, defaults,
  the globals its code reads, the objects those hold) that equals them, are written over with values that
  cannot be right. A batch that computes its answers in every call writes them again; one that copies answers
  kept from its preparation or from an earlier call returns what the harness wrote, and fails.

The harness runs each round's calls in a loop of its own inside pytest-benchmark's ``pedantic`` (one
iteration a round, rescaled to per-call figures after), since pytest-benchmark's own loop discards the
outputs of every call but one extra call after the timing.
"""

from __future__ import annotations

import collections
import functools
import os
import random
import time
import types
from typing import Any, Callable, Optional

import numpy as np

FIRST_CHECKED = 16  # calls after each preparation that are all checked
CHECK_SHARE = 0.2  # checking may cost up to this share of the time in timed rounds
HELD_LEAST = 16  # outputs of fewer elements are not looked for among what a batch holds
SCAN_OBJECTS = 2000  # objects visited looking for answers a batch holds
SCAN_DEPTH = 6
# Packages whose objects are compared but not looked into: what they hold is the library's own (a Numba
# dispatcher's typing and target contexts, whose walk was most of what checking cost; docs/measurement.md)
LIBRARIES = frozenset({"numba", "llvmlite", "cffi", "_cffi_backend", "numpy", "pytest", "_pytest", "pluggy"})


class WrongOutput(Exception):
    """A checked call's outputs were wrong: the reason, ready for the case's result line."""


class BatchRaised(Exception):
    """A batch call made outside the oracle (sizing, warm-up, timed) raised: the implementation's error, with
    the call it came from, ready for the case's result line."""


def calling(batch: Callable[[], Any], what: str) -> Callable[[], Any]:
    """``batch``, whose exceptions (whatever their class, save the user's Ctrl-C and sys.exit) become
    BatchRaised; for calls made outside the timed rounds, where a wrapper costs nothing measured."""

    def call():
        try:
            return batch()
        except (KeyboardInterrupt, SystemExit, WrongOutput):
            raise
        except BaseException as exc:
            raise BatchRaised(f"{what} raised {_error(exc)}") from exc

    return call


def _error(exc: BaseException) -> str:
    first = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {first[0] if first else ''}"


def leaves(outputs: Any) -> list:
    """The NumPy arrays and lists an output is made of (inside tuples, lists of arrays and dicts)."""
    if isinstance(outputs, np.ndarray):
        return [outputs]
    if isinstance(outputs, dict):
        return [leaf for v in outputs.values() for leaf in leaves(v)]
    if isinstance(outputs, (list, tuple)):
        inner = [leaf for v in outputs for leaf in leaves(v) if isinstance(v, (np.ndarray, list, tuple, dict))]
        return inner or ([outputs] if isinstance(outputs, list) else [])
    return []


_POISON = object()  # what a list's elements become: no kernel's answer


def poison(leaf, protected: tuple = ()) -> bool:
    """Write values that cannot be right over an array or a list, in place; False where it cannot be written or
    shares memory with one of ``protected`` (the workload's inputs, the reference outputs)."""
    if isinstance(leaf, list):
        leaf[:] = [_POISON] * len(leaf)
        return True
    if any(np.may_share_memory(leaf, p) for p in protected):
        return False
    if not leaf.flags.writeable:
        try:
            leaf.setflags(write=True)  # an array it made read-only to keep it from being written over
        except ValueError:
            return False
    kind = leaf.dtype.kind
    if kind == "b":  # one value throughout (the one some answer is not): an impl's own wrong answer seldom is
        leaf.fill(not bool(leaf.all()))
    elif kind in "iu":
        np.invert(leaf, out=leaf)
    elif kind == "f" and leaf.dtype.itemsize in (2, 4, 8):
        # the exponent's top bit flipped: a value that differs from x for every x (a NaN equals nothing), and
        # flipping it again gives x back
        bits = leaf.view(f"u{leaf.dtype.itemsize}")
        bits ^= np.array(1 << (8 * leaf.dtype.itemsize - 2), dtype=bits.dtype)
    elif kind in "fc":
        np.negative(leaf, out=leaf)
        leaf -= 1  # -x - 1 differs from x for every x but -0.5, and is its own inverse
    else:
        return False
    return True


def _equal(held, leaf) -> bool:
    if isinstance(leaf, np.ndarray):
        # of any numeric kind: an answer kept as uint8 and returned as bool is an answer kept all the same
        return (
            isinstance(held, np.ndarray)
            and held.shape == leaf.shape
            and held.dtype.kind in "biuf"
            and leaf.dtype.kind in "biuf"
            and not np.may_share_memory(held, leaf)
            and bool(np.array_equal(held, leaf))
        )
    return isinstance(held, list) and held is not leaf and len(held) == len(leaf) and held == leaf


def _children(obj) -> list:
    """What a batch callable (or an object it holds) refers to, where an answer could be kept."""
    if isinstance(obj, (types.FunctionType, types.LambdaType)):
        out = [c.cell_contents for c in (obj.__closure__ or ()) if _filled(c)]
        out += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
        names = set(_code_names(obj.__code__))
        out += [obj.__globals__[n] for n in names if n in obj.__globals__]
        wrapped = getattr(obj, "__wrapped__", None)
        return out + ([wrapped] if wrapped is not None else [])
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    if isinstance(obj, functools.partial):
        return [obj.func, *obj.args, *obj.keywords.values()]
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (list, tuple, set, frozenset, collections.deque)):
        return list(obj) if len(obj) <= 10_000 else []
    if type(obj).__module__ == "builtins" or isinstance(obj, (types.ModuleType, type)):
        return []  # the language's own objects: no answer of a batch's making
    if type(obj).__module__.partition(".")[0] in LIBRARIES:
        return []
    held = getattr(obj, "__dict__", None)
    out = list(held.values()) if isinstance(held, dict) else []
    for name in getattr(type(obj), "__slots__", ()):
        if isinstance(name, str) and hasattr(obj, name):
            out.append(getattr(obj, name))
    return out


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _code_names(code) -> list[str]:
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _code_names(const)
    return names


def held_like(root, outputs: list) -> list:
    """Arrays and lists reachable from ``root`` (a batch callable) equal to one of ``outputs``, other than those
    outputs themselves: answers the batch keeps."""
    wanted = [leaf for leaf in outputs if len(leaf) >= HELD_LEAST]
    if not wanted:
        return []
    found, seen = [], {id(leaf) for leaf in outputs}
    queue = collections.deque([(root, 0)])
    visited = 0
    while queue and visited < SCAN_OBJECTS:
        obj, depth = queue.popleft()
        if obj is None or isinstance(obj, (str, bytes, int, float, complex, bool)):
            continue
        visited += 1
        if isinstance(obj, (np.ndarray, list)) and any(_equal(obj, leaf) for leaf in wanted):
            found.append(obj)
        if isinstance(obj, np.ndarray) or depth >= SCAN_DEPTH:
            continue
        try:
            children = _children(obj)
        except Exception:  # an object whose attributes raise when read: nothing to look into
            continue
        for child in children:
            if id(child) not in seen:
                seen.add(id(child))
                queue.append((child, depth + 1))
    return found


class SpotChecks:
    """One case's checks of its timed calls, across its passes and preparations. ``judge(outputs)`` is the
    kernel's check against the reference outputs: None when they are right, else what is wrong."""

    def __init__(
        self,
        batch: Callable[[], Any],
        judge: Callable[[Any], Optional[str]],
        worker: int,
        protected: Callable[[], tuple] = tuple,
        on_first: Optional[Callable[[Any], None]] = None,
        calls: int = 1,
    ):
        self.batch, self.judge, self.worker, self.on_first = batch, judge, worker, on_first
        self.protected = protected  # the arrays never written over: the inputs, the reference outputs
        self.rng = random.Random(int.from_bytes(os.urandom(16), "little"))  # not the run's seed: nobody's to read
        self.calls = calls  # calls of the batch since it was prepared (a verification call is the first)
        self.checked = 0
        self.check_s: list[float] = []  # what each check cost
        self.pass_label = ""

    def rebind(self, batch: Callable[[], Any]) -> None:
        """The batch was prepared again (fresh inputs for a later pass): its first calls are checked again."""
        self.batch, self.calls = batch, 0

    # -- one checked call ---------------------------------------------------------------------------------------
    def checked_call(self, outputs: Any, what: str = "sizing") -> None:
        """The outputs of a call made outside the rounds (those that size them): every one is checked."""
        self.calls += 1
        self.check(outputs, self.calls, what)

    def check(self, outputs: Any, call: int, what: str, *more: tuple[Any, int]) -> None:
        """Check the outputs of call number ``call`` (since its preparation), and of the (outputs, call) pairs of
        ``more``; raise WrongOutput at the first that is wrong, else write over all of them (which may be one
        array, returned by every call) and over the copies of them the batch holds."""
        start = time.perf_counter()
        for out, number in ((outputs, call), *more):
            mismatch = self.judge(out)
            if mismatch:
                raise WrongOutput(self._reason(out, mismatch, number, what))
            if self.checked == 0 and self.on_first is not None:
                self.on_first(out)
            self.checked += 1
        returned, protected = leaves(outputs) + [leaf for out, _ in more for leaf in leaves(out)], self.protected()
        for leaf in returned + held_like(self.batch, returned):
            poison(leaf, protected)
        self.check_s.append(time.perf_counter() - start)

    def _reason(self, outputs: Any, mismatch: str, call: int, what: str) -> str:
        where = f"{what} call (call {call} after it was prepared{self.pass_label}, worker {self.worker})"
        if self._poisoned_back(outputs):
            return (
                f"did no work: wrong on a {where}: {mismatch}: it returned the values the harness wrote over an "
                f"earlier call's answers, so it keeps its answers (from prepare or an earlier call) instead of "
                f"computing them in each call"
            )
        return f"wrong on a {where}: {mismatch}"

    def _poisoned_back(self, outputs: Any) -> bool:
        """Whether wrong outputs are what the harness wrote over earlier, right ones: they were not computed
        again."""
        if self.checked == 0:
            return False
        if isinstance(outputs, list) and outputs and all(v is _POISON for v in outputs):
            return True
        if not isinstance(outputs, np.ndarray) or outputs.size == 0:
            return False
        if outputs.dtype.kind == "b":
            return bool(outputs.all() or not outputs.any())
        twin = np.array(outputs)  # a writable copy; writing over it again gives back what it was written over
        try:
            return poison(twin) and self.judge(twin) is None
        except Exception:
            return False

    # -- a pass --------------------------------------------------------------------------------------------------
    def rate(self, round_s: float) -> float:
        """The share of timed rounds checked: all, unless a check costs more than CHECK_SHARE of a round."""
        if not self.check_s:
            return 1.0
        cost = float(np.median(self.check_s))
        return 1.0 if cost <= 0 else min(1.0, CHECK_SHARE * round_s / cost)

    def pedantic(self, benchmark, rounds: int, iterations: int, warmup: int, round_s: float, pass_label: str):
        """pytest-benchmark's ``pedantic`` over rounds of ``iterations`` calls made here, with the checks above
        between rounds; its samples are then per call, as pedantic's own loop gives them. Returns the last kept
        outputs."""
        self.pass_label = pass_label
        batch, rng, rate = self.batch, self.rng, self.rate(round_s)
        state = {"round": 0, "at": None, "last": False, "kept": None, "tail": None, "inline": False}

        def setup():
            index = state["round"]
            state["last"] = index == warmup + rounds - 1
            state["inline"] = index < warmup and self.calls < FIRST_CHECKED
            check = state["last"] or (index < warmup and self.calls < FIRST_CHECKED) or rng.random() < rate
            state["at"] = rng.randrange(iterations) if check else None

        def one_round():
            at = state["at"]
            if state["inline"]:
                for _ in range(iterations):
                    out = batch()
                    self.calls += 1
                    if self.calls <= FIRST_CHECKED:
                        self.check(out, self.calls, "warm-up")
                return None
            if at is None:
                for _ in range(iterations):
                    batch()
                return None
            for _ in range(at):
                batch()
            kept, tail = batch(), None
            rest = iterations - at - 1
            if rest:
                for _ in range(rest - 1):
                    batch()
                if state["last"]:  # the pass's last call too
                    tail = batch()
                else:
                    batch()
            state["kept"], state["tail"] = kept, tail
            return None

        def teardown():
            index, at = state["round"], state["at"]
            state["round"] += 1
            if state["inline"]:
                return
            first = self.calls + 1
            self.calls += iterations
            kept, tail = state["kept"], state["tail"]
            state["kept"] = state["tail"] = None
            what = "warm-up" if index < warmup else "timed"
            if at is not None:
                more = [(tail, first + iterations - 1)] if tail is not None else []
                self.check(kept, first + at, what, *more)
                state["final"] = tail if tail is not None else kept

        def guarded_round():
            try:
                return one_round()
            except (KeyboardInterrupt, SystemExit, WrongOutput):
                raise
            except BaseException as exc:
                what = "warm-up" if state["round"] < warmup else "timed"
                raise BatchRaised(f"a {what} batch call ({pass_label.lstrip(', ')}) raised {_error(exc)}") from exc

        state["final"] = None
        benchmark.pedantic(
            guarded_round, setup=setup, teardown=teardown, rounds=rounds, warmup_rounds=warmup, iterations=1
        )
        stats = getattr(benchmark, "stats", None)
        if stats is not None and iterations > 1:  # rounds of `iterations` calls: per call, as pedantic's loop gives
            stats.stats.data[:] = [d / iterations for d in stats.stats.data]
            stats.iterations = iterations
        return state["final"]


def pedantic_unchecked(benchmark, batch: Callable[[], Any], rounds: int, iterations: int, warmup: int):
    """The same loop for a batch with no answer to check (an empty-call probe), so its figures are comparable."""

    def one_round():
        for _ in range(iterations):
            batch()

    benchmark.pedantic(one_round, rounds=rounds, warmup_rounds=warmup, iterations=1)
    stats = getattr(benchmark, "stats", None)
    if stats is not None and iterations > 1:
        stats.stats.data[:] = [d / iterations for d in stats.stats.data]
        stats.iterations = iterations
