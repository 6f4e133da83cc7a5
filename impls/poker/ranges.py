"""Hands and ranges written as poker tools write them, and the matchups a question about them enumerates.

A player is one hand (``AdAc``, ``sA cA``) or a range of comma-separated items (``QQ+, AKs, AQo+, 76s``):
pairs (``QQ``, ``QQ+`` = QQ..AA, ``99-QQ``), suited and offsuit hands (``AKs``, ``AKo``, ``AK`` = both),
``AQs+`` (the kicker up to one below the top card: AQs, AKs), ``A2s-A5s``, a given hand (``AhKh``), and
``random`` for every hand. The equity against a range weighs each combination of the players' hands alike, as
PokerStove does, after card removal: a hand sharing a card with another player's given hand or the board is out.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from swarbench.model import InvalidInput

from .spec import RANKS, card_name, parse_card

_ITEM = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([SO]?)(\+?)$")
_SPAN = re.compile(r"^([2-9TJQKA])([2-9TJQKA])([SO]?)-([2-9TJQKA])([2-9TJQKA])([SO]?)$")
RANDOM = ("random", "any", "xxxx")
MAX_PLAYERS = 10
_SUIT_PERMS = list(itertools.permutations(range(4)))


def _cards_of(text: str) -> list[str] | None:
    """A given hand's two card names (``AdAc``, ``sAcA``, ``Ad Ac``, ``10h9h``), or None when it is not one."""
    t = re.sub(r"\s+", "", text).replace("10", "T")
    if len(t) != 4:
        return None
    pair = [t[:2], t[2:]]
    try:
        for name in pair:
            parse_card(name)
    except InvalidInput:
        return None
    return pair


def parse_hand(text: str) -> int | None:
    """A given hand as a card set, or None when ``text`` is not two card names."""
    names = _cards_of(text)
    if names is None:
        return None
    a, b = (1 << parse_card(n) for n in names)
    if a == b:
        raise InvalidInput(f"hand {text!r} repeats the card {names[0]!r}")
    return a | b


def _pair_combos(r: int) -> list[int]:
    return [(1 << (4 * r + s1)) | (1 << (4 * r + s2)) for s1, s2 in itertools.combinations(range(4), 2)]


def _two_rank_combos(hi: int, lo: int, kind: str) -> list[int]:
    out = []
    for s1 in range(4):
        for s2 in range(4):
            if (kind == "s" and s1 != s2) or (kind == "o" and s1 == s2):
                continue
            out.append((1 << (4 * hi + s1)) | (1 << (4 * lo + s2)))
    return out


def _item_combos(item: str) -> list[int]:
    """The hands of one range item; InvalidInput names the item when it is not one."""
    if item.lower() in RANDOM:
        return [(1 << a) | (1 << b) for a, b in itertools.combinations(range(52), 2)]
    given = parse_hand(item)
    if given is not None:
        return [given]
    up = item.upper().replace("10", "T")  # ranks and the s/o suffix never share a letter
    m = _ITEM.match(up)
    if m:
        a, b, kind, plus = RANKS.index(m[1]), RANKS.index(m[2]), m[3].lower(), m[4]
        if a == b:
            if kind:
                raise InvalidInput(f"range item {item!r}: a pair is neither suited nor offsuit")
            return [c for r in range(a, 13 if plus else a + 1) for c in _pair_combos(r)]
        hi, lo = max(a, b), min(a, b)
        kickers = range(lo, hi) if plus else [lo]
        return [c for k in kickers for c in _two_rank_combos(hi, k, kind)]
    m = _SPAN.match(up)
    if m:
        a1, b1, k1, a2, b2, k2 = RANKS.index(m[1]), RANKS.index(m[2]), m[3], RANKS.index(m[4]), RANKS.index(m[5]), m[6]
        if a1 == b1 and a2 == b2 and not k1 and not k2:  # 99-QQ
            return [c for r in range(min(a1, a2), max(a1, a2) + 1) for c in _pair_combos(r)]
        if a1 == a2 and a1 not in (b1, b2) and k1 == k2:  # A2s-A5s: the same top card, a span of kickers
            return [c for k in range(min(b1, b2), max(b1, b2) + 1) for c in _two_rank_combos(a1, k, k1.lower())]
    raise InvalidInput(
        f"range item {item!r} does not parse: expected a hand (AhKh), a pair (QQ, QQ+, 99-QQ), "
        f"two ranks (AK, AKs, AQo+, A2s-A5s) or 'random'"
    )


def parse_range(text: str) -> list[int]:
    """Every hand of a range, each once, in the order of the items."""
    items = [t.strip() for t in text.split(",")]
    if not any(items):
        raise InvalidInput(f"range {text!r} is empty")
    seen, out = set(), []
    for item in items:
        if not item:
            raise InvalidInput(f"range {text!r} has an empty item")
        for c in _item_combos(item):
            if c not in seen:
                seen.add(c)
                out.append(c)
    return out


def players_of(words: list[str]) -> list[str]:
    """Command-line words to one text per player: words joined by a comma belong to one range, and two single
    card names in a row (``sA cA``, the talk's way) are one hand."""
    joined = re.sub(r"\s*,\s*", ",", " ".join(words)).strip()
    tokens = [t for t in joined.split(" ") if t]
    players: list[str] = []
    for t in tokens:
        single = is_card(t)
        if single and players and is_card(players[-1]):
            players[-1] = players[-1] + t
        else:
            players.append(t)
    return players


def is_card(text: str) -> bool:
    try:
        parse_card(text)
    except InvalidInput:
        return False
    return True


def describe_cards(cards: int) -> str:
    """Cards the way range tools print them, rank first, highest first: ``Jc 9h 2d``."""
    names = [card_name(i) for i in range(51, -1, -1) if (cards >> i) & 1]
    return " ".join(n[1] + n[0] for n in names)


def _permute(cards: int, perm) -> int:
    out = 0
    for s in range(4):
        stripe = (cards >> s) & 0x1111111111111
        out |= stripe << perm[s]
    return out


def matchups(ranges: list[list[int]], board: int) -> tuple[list[tuple[tuple[int, ...], int]], int]:
    """The distinct matchups of one hand from each range, none sharing a card with another or the board, and how
    many matchups each stands for. Matchups equal up to a renaming of suits that leaves the board as it is have
    the same result, so one of each class is enumerated (AA against QQ against 93o: 432 matchups, 21 classes).
    Returns (matchups with weights, number of matchups before grouping)."""
    perms = [p for p in _SUIT_PERMS if _permute(board, p) == board]
    classes: Counter = Counter()
    total = 0

    def walk(i: int, used: int, chosen: tuple[int, ...]):
        nonlocal total
        if i == len(ranges):
            total += 1
            classes[min(tuple(_permute(h, p) for h in chosen) for p in perms)] += 1
            return
        for h in ranges[i]:
            if not h & used:
                walk(i + 1, used | h, chosen + (h,))

    walk(0, board, ())
    return sorted(classes.items()), total


def resolve(players: list[str], board: int) -> list[list[int]]:
    """Each player's hands after card removal. InvalidInput (one line) for a card two given hands share, a card
    of the board in a given hand, a range left without a hand, or more than MAX_PLAYERS players."""
    if len(players) > MAX_PLAYERS:
        raise InvalidInput(f"{len(players)} players: at most {MAX_PLAYERS} (2 cards each and a board of 5)")
    ranges = [parse_range(p) for p in players]
    fixed = board
    for text, r in zip(players, ranges):
        if len(r) == 1:
            if r[0] & fixed:
                raise InvalidInput(
                    f"hand {text!r} holds {describe_cards(r[0] & fixed)}, already dealt to another hand or the board"
                )
            fixed |= r[0]
    out = []
    for text, r in zip(players, ranges):
        left = r if len(r) == 1 else [h for h in r if not h & fixed]
        if not left:
            raise InvalidInput(f"range {text!r} has no hand left once the other hands and the board are dealt")
        out.append(left)
    return out
