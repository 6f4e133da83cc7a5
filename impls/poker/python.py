"""Pure Python families: a naive evaluator over lists of counts, and the talk's SWAR evaluator on Python ints.

Both produce the canonical code of spec.py. A third rank7 evaluator (python-swar-tables) keeps the SWAR rank
counts and suit-mask popcounts but replaces the branches after them by one lookup in tables that the SWAR
evaluator fills in prepare: an interpreter pays per operation, so fewer operations per hand is the speed.

The equity implementations use the SWAR evaluator: the talk's method (every opponent hand ranked) and the smart
one (91 rank classes per board, flush hands one by one, boards without a flush draw remembered per rank
multiset).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from swarbench.model import Implementation, TooSlow

from .spec import NIBBLE_LOW as NIB

HIB = NIB << 3
M55 = 0x5555555555555555
M33 = 0x3333333333333333


# -- naive: count ranks and suits in lists, then decide the category -----------------------------------------
def _top(ranks, k):
    """rank mask of the k highest ranks of a descending list"""
    m = 0
    for r in ranks[:k]:
        m |= 1 << r
    return m


def _straight_top_naive(present):
    for top in range(12, 3, -1):
        if all(present[r] for r in range(top - 4, top + 1)):
            return top
    if present[12] and all(present[r] for r in range(4)):
        return 3
    return -1


def rank_naive(hand: int) -> int:
    counts = [0] * 13
    suits = [[] for _ in range(4)]
    for card in range(52):
        if hand >> card & 1:
            counts[card >> 2] += 1
            suits[card & 3].append(card >> 2)
    for held in suits:
        if len(held) >= 5:
            present = [r in held for r in range(13)]
            top = _straight_top_naive(present)
            if top >= 0:
                return 8 << 28 | 1 << top
            return 5 << 28 | _top(sorted(held, reverse=True), 5)
    desc = [r for r in range(12, -1, -1) if counts[r]]
    quads = [r for r in desc if counts[r] == 4]
    trips = [r for r in desc if counts[r] == 3]
    pairs = [r for r in desc if counts[r] == 2]
    if quads:
        q = quads[0]
        return 7 << 28 | (1 << q) << 14 | _top([r for r in desc if r != q], 1)
    if trips and (len(trips) > 1 or pairs):
        pair = max(trips[1:] + pairs)
        return 6 << 28 | (1 << trips[0]) << 14 | 1 << pair
    top = _straight_top_naive([c > 0 for c in counts])
    if top >= 0:
        return 4 << 28 | 1 << top
    if trips:
        t = trips[0]
        return 3 << 28 | (1 << t) << 14 | _top([r for r in desc if r != t], 2)
    if len(pairs) >= 2:
        major = _top(pairs, 2)
        return 2 << 28 | major << 14 | _top([r for r in desc if not major >> r & 1], 1)
    if pairs:
        p = pairs[0]
        return 1 << 28 | (1 << p) << 14 | _top([r for r in desc if r != p], 3)
    return _top(desc, 5)


# -- SWAR on Python ints -------------------------------------------------------------------------------------
def gather(x: int) -> int:
    """bits at nibble bottoms (4r) to bit r"""
    x = (x | x >> 3) & 0x0303030303030303
    x = (x | x >> 6) & 0x000F000F000F000F
    x = (x | x >> 12) & 0x000000FF000000FF
    return (x | x >> 24) & 0xFFFF


def keep_top(m: int, k: int) -> int:
    for _ in range(m.bit_count() - k):
        m &= m - 1
    return m


def straight_top(m: int) -> int:
    x = (m << 1) | (m >> 12)
    s = x & x >> 1
    s &= s >> 2
    s &= x >> 4
    return s.bit_length() + 2 if s else -1


def rank_counts(h: int) -> int:
    c = h - (h >> 1 & M55)
    return (c & M33) + (c >> 2 & M33)


def rank_by_counts(c: int) -> int:
    """the code of a hand without a flush, from its per-nibble rank counts"""
    v = c | HIB
    ranks = gather(((v - NIB) & HIB) >> 3)
    g2 = (v - 2 * NIB) & HIB
    if g2:
        g3 = (v - 3 * NIB) & HIB
        if g3:
            g4 = (v - 4 * NIB) & HIB
            if g4:
                q = g4.bit_length() - 1 >> 2
                return 7 << 28 | (1 << q) << 14 | keep_top(ranks & ~(1 << q), 1)
            t = g3.bit_length() - 1 >> 2
            pairs = g2 & ~(8 << 4 * t)
            if pairs:
                return 6 << 28 | (1 << t) << 14 | 1 << (pairs.bit_length() - 1 >> 2)
            st = straight_top(ranks)
            if st >= 0:
                return 4 << 28 | 1 << st
            return 3 << 28 | (1 << t) << 14 | keep_top(ranks & ~(1 << t), 2)
        st = straight_top(ranks)
        if st >= 0:
            return 4 << 28 | 1 << st
        pm = gather(g2 >> 3)
        if pm.bit_count() >= 2:
            pm = keep_top(pm, 2)
            return 2 << 28 | pm << 14 | keep_top(ranks & ~pm, 1)
        return 1 << 28 | pm << 14 | keep_top(ranks & ~pm, 3)
    st = straight_top(ranks)
    if st >= 0:
        return 4 << 28 | 1 << st
    return keep_top(ranks, 5)


def flush_code(fm: int) -> int:
    st = straight_top(fm)
    return 8 << 28 | 1 << st if st >= 0 else 5 << 28 | keep_top(fm, 5)


def rank_swar(h: int, nib=NIB) -> int:
    # a suit's 13 bits summed by one multiplication (the talk's horizontal sum), unrolled over the four suits
    x = h & nib
    if (x * nib) >> 48 & 15 >= 5:
        return flush_code(gather(x))
    x = h >> 1 & nib
    if (x * nib) >> 48 & 15 >= 5:
        return flush_code(gather(x))
    x = h >> 2 & nib
    if (x * nib) >> 48 & 15 >= 5:
        return flush_code(gather(x))
    x = h >> 3 & nib
    if (x * nib) >> 48 & 15 >= 5:
        return flush_code(gather(x))
    return rank_by_counts(rank_counts(h))


def _rank7(fn, limit):
    def prepare(workload):
        if workload.inputs.get("exhaustive"):
            raise TooSlow(f"{workload.size:,} hands in pure Python (limit {limit:,})")
        hands = [int(h) for h in workload.inputs["hands"]]
        if len(hands) > limit:
            raise TooSlow(f"{len(hands):,} hands in pure Python (limit {limit:,})")
        return lambda: np.array([fn(h) for h in hands], np.uint32)

    return prepare


# -- SWAR into tables: rank counts by the popcount's first two stages, the code by one dict lookup -------------
SUITS = [NIB << s for s in range(4)]


@functools.cache
def rank_tables() -> tuple[dict[int, int], dict[int, int]]:
    """The code of every 7-card rank multiset without a flush, keyed by its rank-count word (49,205 words), and
    the code of every suit stripe of 5 to 7 cards, keyed by the stripe where it lies in the hand (4 x 4,719).
    Both are filled by this module's SWAR evaluator (rank_by_counts, flush_code); built once per process."""
    no_flush: dict[int, int] = {}

    def counts(rank: int, left: int, word: int) -> None:
        if rank == 13:
            if not left:
                no_flush[word] = rank_by_counts(word)
            return
        for k in range(min(4, left) + 1):
            counts(rank + 1, left - k, word + (k << 4 * rank))

    counts(0, 7, 0)
    flush: dict[int, int] = {}
    for m in range(1 << 13):
        if 5 <= m.bit_count() <= 7:
            stripe = sum(1 << 4 * r for r in range(13) if m >> r & 1)
            code = flush_code(m)
            for s in range(4):
                flush[stripe << s] = code
    return no_flush, flush


def rank7_tables():
    """rank7 for exactly seven cards: the talk's SWAR pieces, with the branches of rank_by_counts replaced by
    one lookup of the rank-count word.

    Flush: at most one suit can hold five of seven cards. One popcount of spades and hearts together (u) rules
    out a flush in 58% of hands: with u = 3 or 4 neither pair of suits reaches five. Otherwise only the two
    suits of the pair that holds five or more (u > 4: spades, hearts; u < 3: diamonds, clubs) are counted. The
    stripe itself is the key of the flush table, so it is never gathered to a rank mask."""
    no_flush, flush = rank_tables()
    s0, s1, s2, s3 = SUITS
    s01 = s0 | s1

    def rank(h: int) -> int:
        u = (h & s01).bit_count()
        if u > 4:
            if (x := h & s0).bit_count() > 4 or (x := h & s1).bit_count() > 4:
                return flush[x]
        elif u < 3:
            if (x := h & s2).bit_count() > 4 or (x := h & s3).bit_count() > 4:
                return flush[x]
        c = h - (h >> 1 & M55)
        return no_flush[(c & M33) + (c >> 2 & M33)]

    return rank


def _rank7_tables(workload):
    if workload.inputs.get("exhaustive"):
        raise TooSlow(f"{workload.size:,} hands in pure Python")
    hands = [int(h) for h in workload.inputs["hands"]]
    rank = rank7_tables()
    return lambda: np.array(list(map(rank, hands)), np.uint32)


# -- equity ------------------------------------------------------------------------------------------------
def _free(dead: int) -> list[int]:
    return [1 << i for i in range(52) if not dead >> i & 1]


def talk_board(hero: int, board: int) -> tuple[int, int, int]:
    mine = rank_swar(hero | board)
    free = _free(hero | board)
    w = t = lose = 0
    for a in range(1, len(free)):
        ba = board | free[a]
        for b in range(a):
            theirs = rank_swar(ba | free[b])
            if mine > theirs:
                w += 1
            elif mine == theirs:
                t += 1
            else:
                lose += 1
    return w, t, lose


PAIRS = [(r1, r2) for r1 in range(13) for r2 in range(r1, 13)]


def class_codes(bc: int, cache: dict) -> list[int]:
    """the code of each of the 91 hole-card rank classes on a board with rank counts bc, without a flush
    (remembered in ``cache``, which lives as long as one batch call)"""
    codes = cache.get(bc)
    if codes is None:
        codes = cache[bc] = [rank_by_counts(bc + (1 << 4 * r1) + (1 << 4 * r2)) for r1, r2 in PAIRS]
    return codes


def class_counts(codes, avail, fs, bsuit, mine):
    """wins, ties, losses against the opponent hands that cannot make a flush, one rank class at a time:
    avail[r] cards of rank r are left, fs[r] says whether the flush suit's card of rank r is among them, and
    bsuit is how many board cards that suit holds (hands completing a flush are counted elsewhere)"""
    w = t = lose = 0
    if bsuit == 5:
        return w, t, lose
    for (r1, r2), theirs in zip(PAIRS, codes):
        a1 = avail[r1]
        if r1 == r2:
            n = a1 * (a1 - 1) // 2
            if bsuit == 4:
                n -= fs[r1] * (a1 - 1)
        else:
            a2 = avail[r2]
            n = a1 * a2
            if bsuit == 3:
                n -= fs[r1] * fs[r2]
            elif bsuit == 4:
                n -= fs[r1] * a2 + a1 * fs[r2] - fs[r1] * fs[r2]
        if n <= 0:
            continue
        if mine > theirs:
            w += n
        elif mine == theirs:
            t += n
        else:
            lose += n
    return w, t, lose


class Smart:
    """The smart method on a list of boards; see c/poker_core.c for the argument."""

    def __init__(self, hero: int):
        self.hero = hero
        self.memo: dict[int, tuple[int, int, int]] = {}
        self.codes: dict[int, list[int]] = {}

    def board(self, board: int) -> tuple[int, int, int]:
        fsuit = next((s for s in range(4) if (board >> s & NIB).bit_count() >= 3), -1)
        if fsuit < 0:
            key = rank_counts(board)
            if key not in self.memo:
                self.memo[key] = self.classes(board, -1)
            return self.memo[key]
        return self.classes(board, fsuit)

    def classes(self, board: int, fsuit: int) -> tuple[int, int, int]:
        dead = self.hero | board
        mine = rank_swar(dead)
        bc, dc = rank_counts(board), rank_counts(dead)
        avail = [4 - (dc >> 4 * r & 15) for r in range(13)]
        fs = [int(fsuit >= 0 and not dead >> (4 * r + fsuit) & 1) for r in range(13)]
        bsuit = (board >> fsuit & NIB).bit_count() if fsuit >= 0 else 0
        w, t, lose = class_counts(class_codes(bc, self.codes), avail, fs, bsuit, mine)
        if fsuit >= 0:
            suit_bits = NIB << fsuit
            free = _free(dead)
            for a in range(1, len(free)):
                for b in range(a):
                    hole = free[a] | free[b]
                    if bsuit + (hole & suit_bits).bit_count() < 5:
                        continue
                    theirs = rank_swar(board | hole)
                    if mine > theirs:
                        w += 1
                    elif mine == theirs:
                        t += 1
                    else:
                        lose += 1
        return w, t, lose


def _suit_orbits(hero: int) -> list[tuple[int, int]]:
    """(representative suit, orbit size) under the suit permutations that map the hero's cards onto themselves"""
    import itertools

    group = [p for p in itertools.permutations(range(4)) if sum(((hero >> s) & NIB) << p[s] for s in range(4)) == hero]
    orbits = {}
    for s in range(4):
        orbits.setdefault(min(p[s] for p in group), set()).add(s)
    return [(rep, len(members)) for rep, members in sorted(orbits.items())]


def equity_full(hero: int) -> tuple[int, int, int]:
    """Every board and opponent hand at once, without visiting the 2,118,760 boards one by one.

    A board either holds three or more cards of one suit (a flush draw: its suit s, the k ranks F it holds in s,
    and the ranks of its 5 - k cards of other suits), or not, and then only its rank multiset matters. Flush-draw
    boards are grouped by (s, F, off-suit ranks), weighted by how many boards share them (and by the size of s's
    orbit under the hero's suit symmetries); every other board is counted per rank multiset as all boards of that
    multiset minus its flush-draw boards. Inside a group, opponents are the 91 rank classes (weighted by the hands
    left in each) plus the hands that make a flush, counted against the hero by bisection.
    """
    import bisect
    import itertools

    hero_cards = [c for c in range(52) if hero >> c & 1]
    hero_rc = [sum(1 for c in hero_cards if c >> 2 == r) for r in range(13)]
    hero_word = rank_counts(hero)
    cache: dict[int, list[int]] = {}

    def classes(bc, mine, fs, bsuit):
        avail = [4 - (bc >> 4 * r & 15) - hero_rc[r] for r in range(13)]
        return class_counts(class_codes(bc, cache), avail, fs, bsuit, mine)

    total = [0, 0, 0]
    draw_boards: dict[int, int] = {}
    for s, weight in _suit_orbits(hero):
        hero_s = sum(1 << (c >> 2) for c in hero_cards if c & 3 == s)
        open_s = [r for r in range(13) if not hero_s >> r & 1]
        off = [3 - sum(1 for c in hero_cards if c >> 2 == r and c & 3 != s) for r in range(13)]
        for k in (3, 4, 5):
            for flush_ranks in itertools.combinations(open_s, k):
                fmask = sum(1 << r for r in flush_ranks)
                fword = sum(1 << 4 * r for r in flush_ranks)
                fs = [int(not (fmask | hero_s) >> r & 1) for r in range(13)]
                suited = [r for r in range(13) if fs[r]]
                others = 45 - len(suited)
                flush_hands = [(flush_code(fmask | 1 << a | 1 << b), 1) for a, b in itertools.combinations(suited, 2)]
                if k >= 4:
                    flush_hands += [(flush_code(fmask | 1 << a), others) for a in suited]
                if k == 5:
                    flush_hands.append((flush_code(fmask), others * (others - 1) // 2))
                flush_hands.sort()
                fcodes = [c for c, _ in flush_hands]
                below = list(itertools.accumulate((n for _, n in flush_hands), initial=0))
                rest = itertools.combinations_with_replacement(range(13), 5 - k)
                for ranks in rest:
                    mult = 1
                    for r in set(ranks):
                        mult *= math.comb(off[r], ranks.count(r))
                    if not mult:
                        continue
                    bc = fword + sum(1 << 4 * r for r in ranks)
                    draw_boards[bc] = draw_boards.get(bc, 0) + mult * weight
                    if k + hero_s.bit_count() >= 5:
                        mine = flush_code(fmask | hero_s)
                    else:
                        mine = rank_by_counts(bc + hero_word)
                    w, t, lose = classes(bc, mine, fs, k)
                    lo, hi = bisect.bisect_left(fcodes, mine), bisect.bisect_right(fcodes, mine)
                    w += below[lo]
                    t += below[hi] - below[lo]
                    lose += below[-1] - below[hi]
                    m = mult * weight
                    total[0] += w * m
                    total[1] += t * m
                    total[2] += lose * m
    no_flush = [0] * 13
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        boards = 1
        for r in set(ranks):
            boards *= math.comb(4 - hero_rc[r], ranks.count(r))
        bc = sum(1 << 4 * r for r in ranks)
        boards -= draw_boards.get(bc, 0)
        if boards > 0:
            w, t, lose = classes(bc, rank_by_counts(bc + hero_word), no_flush, 0)
            total[0] += w * boards
            total[1] += t * boards
            total[2] += lose * boards
    return total[0], total[1], total[2]


def _equity(method, limit):
    def prepare(workload):
        if method == "smart" and workload.inputs.get("full"):
            hero = int(workload.inputs["hero"])
            return lambda: np.array(equity_full(hero), np.int64)
        boards = [int(b) for b in workload.inputs["boards"]]
        if len(boards) > limit:
            raise TooSlow(f"{len(boards):,} boards in pure Python by this method (limit {limit:,})")
        hero = int(workload.inputs["hero"])

        def batch():
            total = [0, 0, 0]
            smart = Smart(hero)
            for b in boards:
                r = talk_board(hero, b) if method == "talk" else smart.board(b)
                for k in range(3):
                    total[k] += r[k]
            return np.array(total, np.int64)

        return batch

    return prepare


LCM = 2520  # versus.LCM: a pot split w ways gives each winner LCM // w units


def versus_counts(hands: list[int], boards) -> np.ndarray:
    """wins alone, boards shared, pots in 1/LCM units of each hand over the boards (poker.versus)"""
    acc = [[0, 0, 0] for _ in hands]
    for b in boards:
        codes = [rank_swar(h | b) for h in hands]
        best = max(codes)
        ways = codes.count(best)
        for p, c in enumerate(codes):
            if c == best:
                acc[p][ways > 1] += 1
                acc[p][2] += LCM // ways
    return np.array(acc, np.int64)


def _versus(limit):
    def prepare(workload):
        from .versus import all_boards, n_boards

        hands = [int(h) for h in workload.inputs["hands"]]
        full = workload.inputs.get("full")
        count = n_boards(hands, int(workload.inputs["known"])) if full else len(workload.inputs["boards"])
        if count > limit:
            raise TooSlow(f"{count:,} boards in pure Python (limit {limit:,})")
        boards = all_boards(hands, int(workload.inputs["known"])) if full else workload.inputs["boards"]
        boards = [int(b) for b in boards]
        return lambda: versus_counts(hands, boards)

    return prepare


VERSUS = [
    Implementation(
        "poker.versus",
        "python-swar",
        "python-swar",
        _versus(200_000),
        description="the talk's SWAR evaluator on Python ints, every hand on every board",
    ),
]

IMPLEMENTATIONS = [
    Implementation(
        "poker.rank7",
        "naive",
        "python-naive",
        _rank7(rank_naive, 1 << 20),
        description="lists of rank and suit counts, categories decided one by one",
    ),
    Implementation(
        "poker.rank7",
        "python-swar",
        "python-swar",
        _rank7(rank_swar, 1 << 21),
        description="the talk's SWAR evaluator on Python ints",
    ),
    Implementation(
        "poker.rank7",
        "python-swar-tables",
        "python-swar",
        _rank7_tables,
        description="rank counts by the SWAR popcount's first two stages, then one dict lookup of the "
        "code (every 7-card rank multiset, built in prepare by the SWAR evaluator); flush "
        "by suit-mask popcounts",
    ),
    Implementation(
        "poker.equity",
        "python-talk",
        "python-swar",
        _equity("talk", 300),
        description="the talk's method with the SWAR evaluator on Python ints",
    ),
    Implementation(
        "poker.equity",
        "python-smart",
        "python-swar",
        _equity("smart", 5000),
        description="91 rank classes per board + flush hands one by one, memo per rank multiset; the "
        "full enumeration grouped by flush draw and rank multiset, never board by board",
    ),
]


# -- the talk's building blocks (blocks.py), naive and SWAR ------------------------------------------------------
ONES = {w: sum(1 << s for s in range(0, 64, w)) for w in (2, 4, 8, 16, 32, 64)}
LEVELS = [
    (1, 0x5555555555555555),
    (2, 0x3333333333333333),
    (4, 0x0F0F0F0F0F0F0F0F),
    (8, 0x00FF00FF00FF00FF),
    (16, 0x0000FFFF0000FFFF),
    (32, 0x00000000FFFFFFFF),
]


def lanes_naive(x: int, width: int) -> int:
    r = 0
    for b in range(64):
        if x >> b & 1:
            r += 1 << (b // width * width)
    return r


def lanes_swar(x: int, width: int) -> int:
    for shift, mask in LEVELS:
        if shift == width:
            break
        x = (x & mask) + (x >> shift & mask)
    return x


def rank_counts_naive(h: int) -> int:
    r = 0
    for c in range(52):
        if h >> c & 1:
            r += 1 << (c & ~3)
    return r


def ge_naive(counts: int) -> list[int]:
    return [sum(8 << 4 * lane for lane in range(16) if (counts >> 4 * lane & 15) >= k) for k in range(1, 5)]


def ge_swar(counts: int) -> list[int]:
    v = counts | 0x8888888888888888
    return [(v - k * 0x1111111111111111) & 0x8888888888888888 for k in range(1, 5)]


def straights_naive(m: int) -> int:
    present = [m >> 12 & 1] + [m >> r & 1 for r in range(13)]
    return sum(1 << j for j in range(10) if all(present[j : j + 5]))


def straights_shift5(m: int) -> int:
    x = (m << 1) | (m >> 12)
    return x & x >> 1 & x >> 2 & x >> 3 & x >> 4


def straights_chain(m: int) -> int:
    x = (m << 1) | (m >> 12)
    s = x & x >> 1
    s &= s >> 2
    return s & x >> 4


def subsets_naive(n: int, k: int) -> list[int]:
    p = list(range(k))
    out = []
    while True:
        out.append(sum(1 << q for q in p))
        i = 0
        while i < k and p[i] + 1 == (p[i + 1] if i + 1 < k else n):
            i += 1
        if i == k:
            return out
        p[i] += 1
        p[:i] = range(i)


def subsets_gosper(n: int, k: int) -> list[int]:
    x, stop, out = (1 << k) - 1, 1 << n, []
    while x < stop:
        out.append(x)
        c = x & -x
        r = x + c
        x = (((r ^ x) >> 2) // c) | r
    return out


def deposit_naive(v: int, m: int) -> int:
    r, bit = 0, 1
    while m:
        low = m & -m
        if v & bit:
            r |= low
        m ^= low
        bit <<= 1
    return r


def atoi8_naive(w: int) -> int:
    v = 0
    for b in range(8):
        v = v * 10 + (w >> 8 * b & 0xFF) - 48
    return v


def atoi8_swar(w: int) -> int:
    x = w - 0x3030303030303030
    x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FF
    x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFF
    return (x * 10000 + (x >> 32)) & 0xFFFFFFFF


def strlen_naive(buf: bytes, off: int) -> int:
    k = off
    while buf[k]:
        k += 1
    return k - off


def strlen_swar(buf: bytes, off: int) -> int:
    k = off
    while True:
        w = int.from_bytes(buf[k : k + 8], "little")
        z = (w - 0x0101010101010101) & ~w & 0x8080808080808080
        if z:
            return k - off + ((z & -z).bit_length() - 1 >> 3)
        k += 8


def _map(key, fn, dtype, limit=1 << 16):
    """a per-item pure Python implementation of a block kernel: fn(item, inputs) over inputs[key]"""

    def prepare(workload):
        items = [int(x) for x in workload.inputs[key]]
        if len(items) > limit:
            raise TooSlow(f"{len(items):,} items in pure Python (limit {limit:,})")
        inputs = dict(workload.inputs)
        if "buffer" in inputs:
            inputs["buffer"] = inputs["buffer"].tobytes()
        return lambda: np.array([fn(x, inputs) for x in items], dtype)

    return prepare


def _subsets(fn):
    def prepare(workload):
        n, k = workload.inputs["n"], workload.inputs["k"]
        return lambda: np.array(fn(n, k), np.uint64)

    return prepare


def _deposit(workload):
    pairs = list(zip(workload.inputs["values"].tolist(), workload.inputs["masks"].tolist()))
    return lambda: np.array([deposit_naive(v, m) for v, m in pairs], np.uint64)


def _block_pair(kernel, naive, swar, swar_name="python-swar"):
    return [
        Implementation(kernel, "naive", "python-naive", naive, description="bit by bit, lane by lane"),
        Implementation(kernel, swar_name, "python-swar", swar, description="the SWAR way on Python ints"),
    ]


BLOCKS = [
    *_block_pair(
        "poker.popcount",
        _map("words", lambda x, i: lanes_naive(x, i["width"]), np.uint64),
        _map("words", lambda x, i: lanes_swar(x, i["width"]), np.uint64),
    ),
    *_block_pair(
        "poker.rank_counts",
        _map("hands", lambda x, i: rank_counts_naive(x), np.uint64),
        _map("hands", lambda x, i: lanes_swar(x, 4), np.uint64),
    ),
    *_block_pair(
        "poker.greater_equal",
        _map("counts", lambda x, i: ge_naive(x), np.uint64),
        _map("counts", lambda x, i: ge_swar(x), np.uint64),
    ),
    *_block_pair(
        "poker.straights",
        _map("masks", lambda x, i: straights_naive(x), np.uint32),
        _map("masks", lambda x, i: straights_chain(x), np.uint32),
        "python-chain",
    ),
    Implementation(
        "poker.straights",
        "python-shift5",
        "python-swar",
        _map("masks", lambda x, i: straights_shift5(x), np.uint32),
        description="five shifts and ANDs",
    ),
    *_block_pair("poker.next_subset", _subsets(subsets_naive), _subsets(subsets_gosper), "python-gosper"),
    Implementation("poker.deposit", "naive", "python-naive", _deposit, description="one step per set bit of the mask"),
    *_block_pair(
        "poker.atoi8",
        _map("words", lambda x, i: atoi8_naive(x), np.uint32),
        _map("words", lambda x, i: atoi8_swar(x), np.uint32),
    ),
    *_block_pair(
        "poker.strlen",
        _map("offsets", lambda x, i: strlen_naive(i["buffer"], x), np.int64),
        _map("offsets", lambda x, i: strlen_swar(i["buffer"], x), np.int64),
    ),
]
