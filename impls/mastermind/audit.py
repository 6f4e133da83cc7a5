"""Where a float arithmetic's choices part from the exact strategy's: every decision of a game played in a float
arithmetic (spec.ARITHMETICS), its guess set beside the exact rule's guess at the same position.

A float key can only differ from the exact order by rounding, so wherever the two guesses differ, either they tie
exactly (the same sum of squared part sizes, or the same product of s^s) and the float key split the tie against
the documented tie-break (a possible secret first, then the lowest codeword), or rounding reversed two guesses that
do not tie (never seen; counted apart). Each position is the history of guesses and scores that leads to it.

The games are played by the Numba family's search (every codeword scored at every node, both rankings from one
count of the parts), so games far above 8,192 codewords take long.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import spec


@dataclass
class Decision:
    """One position where the float arithmetic chose another guess than the exact rule."""

    history: tuple  # ((guess, black, white), ...) as played
    float_guess: str
    exact_guess: str
    float_score: str  # the exact measure of each guess's split, as text
    exact_score: str
    tied: bool  # the two tie exactly

    def describe(self) -> str:
        where = ", ".join(f"{g} scored {b}-{w}" for g, b, w in self.history)
        how = "an exact tie, which the tie-break gives to" if self.tied else "not a tie: the exact rule prefers"
        return (
            f"after {where}: {self.float_guess} ({self.float_score}) before {self.exact_guess} "
            f"({self.exact_score}), {how} {self.exact_guess}"
        )


@dataclass
class Audit:
    total: int
    worst: int
    decisions: int  # decisions taken (searches of two secrets or more)
    split_ties: list = field(default_factory=list)  # Decision, exact ties the float key split
    reversed: list = field(default_factory=list)  # Decision, orders rounding reversed

    def first(self):
        """The first position where the float key split a tie: fewest guesses played, then the earliest history."""
        ties = sorted(self.split_ties, key=lambda d: (len(d.history), d.history))
        return ties[0] if ties else None


def exact_score(parts: np.ndarray, strategy: str) -> str:
    """A split's exact measure as text: the sum of squared part sizes, or S = sum of s ln s with the prime
    factorisation of the product of s^s (equal factorisations: equal S)."""
    sizes = [int(s) for s in parts if s > 0]
    if strategy == "expected_size":
        return f"sum of squares {sum(s * s for s in sizes)}"
    powers: dict[int, int] = {}
    for s in sizes:
        rest, p = s, 2
        while rest > 1:
            while rest % p == 0:
                powers[p] = powers.get(p, 0) + s
                rest //= p
            p += 1 if p == 2 else 2
            if p * p > rest and rest > 1:
                powers[rest] = powers.get(rest, 0) + s
                rest = 1
    product = " ".join(f"{p}^{e}" for p, e in sorted(powers.items())) or "1"
    return f"sum of s ln s {sum(s * math.log(s) for s in sizes):.9f}, product of s^s {product}"


def audit(pins: int, colors: int, first, strategy: str, arithmetic: str) -> Audit:
    """Every game of pPcC from ``first`` played in ``arithmetic``, each decision set beside the exact one."""
    from .jit import _kernels

    if strategy not in spec.FLOAT_RANKED or arithmetic == "exact":
        raise ValueError("an audit compares a float arithmetic of Expected Size or Entropy with the exact rule")
    k = _kernels()
    codes = spec.all_codewords(pins, colors)
    pins_of, counts = spec.digits(codes, pins), spec.color_counts(codes, pins)
    valid = np.array([(b << 4) | w for b in range(pins + 1) for w in range(pins + 1 - b) if (b, w) != (pins - 1, 1)])
    code, arith = spec.STRATEGIES.index(strategy), spec.ARITHMETICS.index(arithmetic)
    spf = k.smallest_factors(len(codes))
    result = Audit(0, 0, 0)

    def choose(codes_, part, played, pins_, colors_, strategy_):
        flags = np.zeros(len(codes), np.bool_)
        flags[list(played)] = True
        parts = k.split_counts(pins_of, counts, np.asarray(part, np.int64), flags, valid, colors)
        inposs = np.zeros(len(codes), np.bool_)
        inposs[part] = True
        chosen = int(k.best_of(parts, ~flags, inposs, len(part), code, arith, spf))
        exact = int(k.best_of(parts, ~flags, inposs, len(part), code, 0, spf))
        result.decisions += 1
        if chosen != exact:
            secret = codes[part[0]]
            history = []
            for g in played:
                v = int(spec.score_pairs(np.array([secret], np.uint32), codes[g : g + 1], pins, colors)[0])
                history.append((spec.show(codes[g], pins), v >> 4, v & 15))
            fs, es = exact_score(parts[chosen], strategy), exact_score(parts[exact], strategy)
            tied = _ties(parts[chosen], parts[exact], strategy)
            (result.split_ties if tied else result.reversed).append(
                Decision(tuple(history), spec.show(codes[chosen], pins), spec.show(codes[exact], pins), fs, es, tied)
            )
        return chosen

    first = spec.pack(first, pins, colors) if isinstance(first, str) else int(first)
    seqs = spec.play_tree(pins, colors, first, strategy, codes, choose=choose)
    lengths = [len(s) for s in seqs.values()]
    result.total, result.worst = sum(lengths), max(lengths)
    return result


def _ties(a: np.ndarray, b: np.ndarray, strategy: str) -> bool:
    """Whether two splits tie exactly, in integers: equal sums of squares, or equal products of s^s."""
    sa, sb = [int(s) for s in a if s > 0], [int(s) for s in b if s > 0]
    if strategy == "expected_size":
        return sum(s * s for s in sa) == sum(s * s for s in sb)
    return math.prod(s**s for s in sa) == math.prod(s**s for s in sb)
