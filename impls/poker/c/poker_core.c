/* Hold'em hand ranking by SWAR on the 52-bit card set (bit 4*rank + suit), and the equity enumerations.
 *
 * Included by one small file per instruction set (swar.c, bmi2.c) that defines POKER_BMI2 or not: with it,
 * rank masks are gathered by pext and counted by popcnt; without it, by shifts, masks and one multiplication.
 * The code is the canonical one of spec.py: category << 28 | major rank mask << 14 | minor rank mask.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#ifdef POKER_BMI2
#include <immintrin.h>
#endif

#define NIB 0x1111111111111ULL /* bit 4r of each of the 13 rank nibbles */
#define HIB (NIB << 3)         /* top bit of each rank nibble */

/* nibble bits (bit 4r) gathered to bit r */
static inline uint32_t gather(uint64_t x) {
#ifdef POKER_BMI2
    return (uint32_t)_pext_u64(x, NIB);
#else
    x = (x | (x >> 3)) & 0x0303030303030303ULL;
    x = (x | (x >> 6)) & 0x000F000F000F000FULL;
    x = (x | (x >> 12)) & 0x000000FF000000FFULL;
    return (uint32_t)((x | (x >> 24)) & 0xFFFF);
#endif
}

/* popcount of a word whose bits sit at nibble bottoms: one multiplication sums the 13 nibbles */
static inline unsigned nibble_bits(uint64_t x) {
#ifdef POKER_BMI2
    return (unsigned)__builtin_popcountll(x);
#else
    return (unsigned)((x * NIB) >> 48) & 15;
#endif
}

static inline unsigned pop13(uint32_t m) {
#ifdef POKER_BMI2
    return (unsigned)__builtin_popcount(m);
#else
    m = m - ((m >> 1) & 0x5555);
    m = (m & 0x3333) + ((m >> 2) & 0x3333);
    m = (m + (m >> 4)) & 0x0F0F;
    return (m + (m >> 8)) & 0x1F;
#endif
}

static inline uint32_t keep_top(uint32_t m, unsigned k) {
    for (unsigned n = pop13(m); n > k; n--) m &= m - 1;
    return m;
}

static inline int top_bit(uint64_t x) { return 63 - __builtin_clzll(x); }

/* top rank of the best straight in a 13-bit rank mask (the ace also plays low), or -1:
   the addition chain of the talk, three shift-AND pairs instead of five shifts */
static inline int straight_top(uint32_t m) {
    uint32_t x = (m << 1) | (m >> 12);
    uint32_t s = x & (x >> 1);
    s &= s >> 2;
    s &= x >> 4;
    return s ? top_bit(s) + 3 : -1;
}

/* per-nibble population counts: the first two stages of the SWAR popcount */
static inline uint64_t rank_counts(uint64_t h) {
    uint64_t c = h - ((h >> 1) & 0x5555555555555555ULL);
    return (c & 0x3333333333333333ULL) + ((c >> 2) & 0x3333333333333333ULL);
}

#define GE(c, n) ((((c) | HIB) - (n) * NIB) & HIB)

/* the code of a hand without a flush, from its rank counts (one count per nibble, at most 7 cards) */
static inline uint32_t rank_by_counts(uint64_t c) {
    uint32_t ranks = gather(GE(c, 1) >> 3);
    uint64_t g2 = GE(c, 2);
    if (g2) {
        uint64_t g3 = GE(c, 3);
        if (g3) {
            uint64_t g4 = GE(c, 4);
            if (g4) {
                int q = top_bit(g4) >> 2;
                return (7u << 28) | ((1u << q) << 14) | keep_top(ranks & ~(1u << q), 1);
            }
            int t = top_bit(g3) >> 2;
            uint64_t pairs = g2 & ~(8ULL << (4 * t));
            if (pairs) return (6u << 28) | ((1u << t) << 14) | (1u << (top_bit(pairs) >> 2));
            int st = straight_top(ranks);
            if (st >= 0) return (4u << 28) | (1u << st);
            return (3u << 28) | ((1u << t) << 14) | keep_top(ranks & ~(1u << t), 2);
        }
        int st = straight_top(ranks);
        if (st >= 0) return (4u << 28) | (1u << st);
        uint32_t pm = gather(g2 >> 3);
        if (pop13(pm) >= 2) {
            pm = keep_top(pm, 2);
            return (2u << 28) | (pm << 14) | keep_top(ranks & ~pm, 1);
        }
        return (1u << 28) | (pm << 14) | keep_top(ranks & ~pm, 3);
    }
    int st = straight_top(ranks);
    if (st >= 0) return (4u << 28) | (1u << st);
    return keep_top(ranks, 5);
}

static inline uint32_t flush_code(uint32_t fm) {
    int st = straight_top(fm);
    if (st >= 0) return (8u << 28) | (1u << st);
    return (5u << 28) | keep_top(fm, 5);
}

/* Any 5..7 cards. A flush excludes quads and full houses in 7 cards, so it is decided first. */
static inline uint32_t rank7(uint64_t h) {
    for (int s = 0; s < 4; s++) {
        uint64_t stripe = (h >> s) & NIB;
        if (nibble_bits(stripe) >= 5) return flush_code(gather(stripe));
    }
    return rank_by_counts(rank_counts(h));
}

void rank7_batch(const uint64_t *hands, uint32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = rank7(hands[i]);
}

/* ---- threads ------------------------------------------------------------------------------------------ */
typedef struct {
    int id, threads;
    const uint64_t *in;
    uint32_t *out;
    size_t n;
    uint64_t hero;
    int mode;
    int64_t counts[16];
    uint8_t *seen;
} job_t;

static void run_threads(job_t *jobs, int threads, void *(*fn)(void *)) {
    pthread_t tid[64];
    if (threads > 64) threads = 64;
    for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, fn, &jobs[t]);
    fn(&jobs[0]);
    for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
}

static void *rank7_job(void *arg) {
    job_t *j = arg;
    size_t lo = j->n * j->id / j->threads, hi = j->n * (j->id + 1) / j->threads;
    rank7_batch(j->in + lo, j->out + lo, hi - lo);
    return NULL;
}

void rank7_batch_mt(const uint64_t *hands, uint32_t *out, size_t n, int threads) {
    job_t jobs[64];
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof(job_t));
        jobs[t].id = t; jobs[t].threads = threads; jobs[t].in = hands; jobs[t].out = out; jobs[t].n = n;
    }
    run_threads(jobs, threads, rank7_job);
}

/* ---- all 133,784,560 seven-card hands: category counts and the distinct codes -------------------------- */
/* A code's distinct index: category (0..8) << 26 | major << 13 | minor, one bit each in a 72 MiB bitmap that
   the threads share (setting a bit twice is harmless; each thread ORs with an atomic). */
static void *categories_job(void *arg) {
    job_t *j = arg;
    for (int a = 6 + j->id; a < 52; a += j->threads) { /* a is the top card; threads take every other one */
        uint64_t ha = 1ULL << a;
        for (int b = 5; b < a; b++) {
            uint64_t hb = ha | 1ULL << b;
            for (int c = 4; c < b; c++) {
                uint64_t hc = hb | 1ULL << c;
                for (int d = 3; d < c; d++) {
                    uint64_t hd = hc | 1ULL << d;
                    for (int e = 2; e < d; e++) {
                        uint64_t he = hd | 1ULL << e;
                        for (int f = 1; f < e; f++) {
                            uint64_t hf = he | 1ULL << f;
                            for (int g = 0; g < f; g++) {
                                uint32_t code = rank7(hf | 1ULL << g);
                                uint32_t cat = code >> 28;
                                j->counts[cat]++;
                                uint64_t idx = ((uint64_t)cat << 26) | ((code >> 1) & (0x1FFFu << 13)) |
                                               (code & 0x1FFF);
                                uint8_t bit = (uint8_t)(1u << (idx & 7));
                                if (!(j->seen[idx >> 3] & bit)) __atomic_fetch_or(&j->seen[idx >> 3], bit,
                                                                                   __ATOMIC_RELAXED);
                            }
                        }
                    }
                }
            }
        }
    }
    return NULL;
}

/* out: 9 category counts, then the number of distinct codes. Returns 0, or -1 when out of memory. */
int categories7(int64_t *out, int threads) {
    size_t bytes = ((size_t)9 << 26) / 8;
    uint8_t *seen = calloc(bytes, 1);
    if (!seen) return -1;
    job_t jobs[64];
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof(job_t));
        jobs[t].id = t; jobs[t].threads = threads; jobs[t].seen = seen;
    }
    run_threads(jobs, threads, categories_job);
    for (int k = 0; k < 10; k++) out[k] = 0;
    for (int t = 0; t < threads; t++)
        for (int k = 0; k < 9; k++) out[k] += jobs[t].counts[k];
    int64_t distinct = 0;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t w;
        memcpy(&w, seen + i, 8);
        distinct += __builtin_popcountll(w);
    }
    out[9] = distinct;
    free(seen);
    return 0;
}

/* ---- equity, the talk's way: rank the hero once per board, then each of the 990 opponent hands -------- */
static void talk_board(uint64_t hero, uint64_t board, int faithful, int64_t *wtl) {
    uint64_t dead = hero | board;
    uint32_t mine = rank7(dead);
    int free_cards[52], nf = 0;
    for (int i = 0; i < 52; i++)
        if (!((dead >> i) & 1)) free_cards[nf++] = i;
    int64_t w = 0, t = 0, l = 0;
    for (int a = 1; a < nf; a++) {
        uint64_t ba = board | 1ULL << free_cards[a];
        for (int b = 0; b < a; b++) {
            uint32_t theirs = rank7(ba | 1ULL << free_cards[b]);
            if (faithful) {
                /* the talk: `auto comparison = usersRank.code - competitorRank.code;` in signed 32 bits */
                int32_t cmp = (int32_t)(mine - theirs);
                w += cmp > 0; t += cmp == 0; l += cmp < 0;
            } else {
                w += mine > theirs; t += mine == theirs; l += mine < theirs;
            }
        }
    }
    wtl[0] += w; wtl[1] += t; wtl[2] += l;
}

/* The talk's method with the board's work hoisted: still 990 classifications per board, one per opponent hand,
   but each starts from rank masks of the board plus the first hole card instead of ranking seven cards afresh.

   Rank masks: bit r of m_k is set when rank r holds k or more cards (greaterEqual<k> gathered to 13 bits).
   Adding one card of rank bit r turns them into m_1 | r, m_2 | (m_1 & r), m_3 | (m_2 & r), m_4 | (m_3 & r): the
   count of that rank reaches k exactly when it was at least k - 1 before. The board's masks are computed once,
   the six-card masks once per first card, and each opponent hand costs four such steps plus its category.

   Kickers need no popcount: an opponent's hand is exactly seven cards, so in each category the number of ranks
   is fixed (seven for high card, five beside a pair, four beside trips), and keeping the top k of them is
   dropping the lowest ones with m & (m - 1). A straight is only looked for when the second card's rank is one
   of the ranks that complete a straight for the six cards (or the six already hold one): that mask is computed
   once per first card, so most hands skip the straight test. */

static inline uint32_t top_rank(uint32_t m) { return 1u << (31 - __builtin_clz(m)); }
static inline uint32_t drop_low(uint32_t m) { return m & (m - 1); }

/* the talk's addition chain on the ace-rotated mask: bit j set when ranks j - 1 .. j + 3 (bit 0 the low ace)
   are all present, so the top bit + 3 is the best straight's top rank */
static inline uint32_t straight_runs(uint32_t m) {
    uint32_t x = (m << 1) | (m >> 12);
    uint32_t s = x & (x >> 1);
    s &= s >> 2;
    return s & (x >> 4);
}

/* the ranks whose card would complete a straight (all 13 when m already holds one): on the rotated mask, a
   hole at h completes one when the present run just below h and the one just above add up to four */
static inline uint32_t straight_completers(uint32_t m) {
    if (straight_runs(m)) return 0x1FFF;
    uint32_t x = (m << 1) | (m >> 12);
    uint32_t a1 = x << 1, a2 = a1 & (x << 2), a3 = a2 & (x << 3), a4 = a3 & (x << 4); /* runs below */
    uint32_t b1 = x >> 1, b2 = b1 & (x >> 2), b3 = b2 & (x >> 3), b4 = b3 & (x >> 4); /* runs above */
    uint32_t c = (a4 | (a3 & b1) | (a2 & b2) | (a1 & b3) | b4) & ~x & 0x3FFF;
    return ((c >> 1) | (c << 12)) & 0x1FFF; /* position 0 and position 13 are both the ace */
}

/* the code of exactly seven cards without a flush, from their rank masks; straight: whether to look for one.
   In seven cards a full house or quads leaves no room for a straight, so the order below is the category
   order wherever two could both hold. */
static inline uint32_t rank7_masks(uint32_t m1, uint32_t m2, uint32_t m3, uint32_t m4, int straight) {
    if (m4) return (7u << 28) | (m4 << 14) | top_rank(m1 & ~m4);
    if (m3) {
        uint32_t t = top_rank(m3), pair = m2 & ~t; /* a second trips can be the pair */
        if (pair) return (6u << 28) | (t << 14) | top_rank(pair);
    }
    if (straight) {
        uint32_t s = straight_runs(m1);
        if (s) return (4u << 28) | (1u << (top_bit(s) + 3));
    }
    if (m3) return (3u << 28) | (m3 << 14) | drop_low(drop_low(m1 & ~m3)); /* 4 other ranks, keep 2 */
    if (m2) {
        uint32_t rest = drop_low(m2);
        if (rest) { /* two pair; with three pairs the lowest one drops and may still be the kicker */
            uint32_t major = drop_low(rest) ? rest : m2;
            return (2u << 28) | (major << 14) | top_rank(m1 & ~major);
        }
        return (1u << 28) | (m2 << 14) | drop_low(drop_low(m1 & ~m2)); /* 5 other ranks, keep 3 */
    }
    return drop_low(drop_low(m1)); /* 7 ranks, keep 5 */
}

/* One board, hoisted: the hero's code, the board's rank masks and flush draw, and the free cards. The free cards
   are ordered by how many cards of their rank the board holds, then by rank: the opponent hands of one first
   card then come in runs that take the same path through rank7_masks, which the branch predictor follows (any
   order of the free cards enumerates each pair once). */
typedef struct {
    uint32_t mine, bm[4], bflush; /* bm[k - 1]: the board's ranks with k or more cards; bflush: its draw suit */
    unsigned bsuit;               /* cards of the board in that suit (3 or more), or 0 when it has no draw */
    int fsuit, nf;
    uint32_t rank[52], suited[52]; /* each free card's rank bit, and the same bit if it is of the draw suit */
    int card[52];
} hoist_t;

static void hoist_board(uint64_t hero, uint64_t board, hoist_t *hb) {
    uint64_t dead = hero | board;
    hb->mine = rank7(dead);
    uint64_t bc = rank_counts(board);
    for (int k = 0; k < 4; k++) hb->bm[k] = gather(GE(bc, k + 1) >> 3);
    hb->fsuit = -1;
    hb->bsuit = 0;
    for (int s = 0; s < 4; s++) {
        unsigned k = nibble_bits((board >> s) & NIB);
        if (k >= 3) { hb->fsuit = s; hb->bsuit = k; }
    }
    hb->bflush = hb->fsuit >= 0 ? gather((board >> hb->fsuit) & NIB) : 0;
    int nf = 0;
    for (unsigned k = 0; k < 4; k++)
        for (uint64_t f = ~dead & ((1ULL << 52) - 1); f; f &= f - 1) {
            int c = __builtin_ctzll(f);
            if (((bc >> (c & ~3)) & 15) != k) continue;
            hb->card[nf] = c;
            hb->rank[nf] = 1u << (c >> 2);
            hb->suited[nf] = (c & 3) == hb->fsuit ? hb->rank[nf] : 0;
            nf++;
        }
    hb->nf = nf;
}

/* the board plus the first hole card: six-card rank masks, the ranks completing a straight, the draw suit */
typedef struct { uint32_t m1, m2, m3, m4, completes, flush; unsigned suited; } first_t;

static inline first_t first_card(const hoist_t *hb, int a) {
    uint32_t r = hb->rank[a];
    const uint32_t *bm = hb->bm;
    first_t f = {bm[0] | r, bm[1] | (bm[0] & r), bm[2] | (bm[1] & r), bm[3] | (bm[2] & r), 0,
                 hb->bflush | hb->suited[a], hb->bsuit + (hb->suited[a] != 0)};
    f.completes = straight_completers(f.m1);
    return f;
}

/* the opponent's code once the second card (rank bit r, suited: its bit if of the draw suit) is added; draw is
   a constant wherever this is inlined, so a board without a flush draw pays no flush test */
static inline uint32_t second_card(const first_t *f, uint32_t r, uint32_t suited, int draw) {
    if (draw && f->suited + (suited != 0) >= 5) return flush_code(f->flush | suited);
    return rank7_masks(f->m1 | r, f->m2 | (f->m1 & r), f->m3 | (f->m2 & r), f->m4 | (f->m3 & r),
                       (r & f->completes) != 0);
}

/* every pair b < a of the free cards against the hero: wins in *pw, wins and ties in *pwt */
static inline __attribute__((always_inline)) void hoisted_pairs(const hoist_t *hb, int draw, int64_t *pw,
                                                                int64_t *pwt) {
    int64_t w = 0, wt = 0;
    uint32_t mine = hb->mine;
    uint64_t above = (uint64_t)mine + 1;
    for (int a = 1; a < hb->nf; a++) {
        first_t f = first_card(hb, a);
        for (int b = 0; b < a; b++) {
            uint32_t theirs = second_card(&f, hb->rank[b], hb->suited[b], draw);
            /* two compares whose carries are added, no branch: wins, and wins or ties */
            w += theirs < mine;
            wt += theirs < above;
        }
    }
    *pw = w;
    *pwt = wt;
}

static void talk_board_hoisted(uint64_t hero, uint64_t board, int64_t *wtl) {
    hoist_t hb;
    hoist_board(hero, board, &hb);
    int64_t w, wt;
    if (hb.fsuit < 0) hoisted_pairs(&hb, 0, &w, &wt);
    else hoisted_pairs(&hb, 1, &w, &wt);
    wtl[0] += w;
    wtl[1] += wt - w;
    wtl[2] += (int64_t)hb.nf * (hb.nf - 1) / 2 - wt;
}

/* For the tests: the opponent hands of one board in the hoisted loop's order, with the code the loop gives
   each (through the same first_card and second_card). Returns how many (990 for a 7-card hero and board). */
int hoisted_codes(uint64_t hero, uint64_t board, uint64_t *hands, uint32_t *codes) {
    hoist_t hb;
    hoist_board(hero, board, &hb);
    int n = 0;
    for (int a = 1; a < hb.nf; a++) {
        first_t f = first_card(&hb, a);
        for (int b = 0; b < a; b++, n++) {
            hands[n] = board | 1ULL << hb.card[a] | 1ULL << hb.card[b];
            codes[n] = second_card(&f, hb.rank[b], hb.suited[b], hb.fsuit >= 0);
        }
    }
    return n;
}

static void *talk_job(void *arg) {
    job_t *j = arg;
    size_t lo = j->n * j->id / j->threads, hi = j->n * (j->id + 1) / j->threads;
    for (size_t i = lo; i < hi; i++) {
        if (j->mode == 4) talk_board_hoisted(j->hero, j->in[i], j->counts);
        else talk_board(j->hero, j->in[i], j->mode, j->counts);
    }
    return NULL;
}

/* ---- equity, the smart way ---------------------------------------------------------------------------
 * Opponent hands without a possible flush only matter through their two ranks: rank each of the 91 rank
 * classes once per board, weighted by how many hands of the class are left, and rank the few hands that can
 * make a flush one by one. A board without three cards of a suit admits no flush for anyone, so its result
 * depends only on its ranks and is remembered per rank multiset. On the full enumeration, boards are also
 * reduced by suit isomorphism: a board counts for its whole orbit under the suit permutations that fix the
 * hero's cards, and only the smallest board of each orbit is ranked. */
typedef struct {
    int32_t *memo_index; /* 13^5 rank multisets -> slot + 1 */
    uint32_t (*codes)[91]; /* per slot: the code of each opponent rank class without a flush */
    int64_t (*memo)[4];    /* per slot: wins, ties, losses on a board without a flush draw, and a done flag */
    int nmemo;
} smart_t;

static inline uint64_t permute_suits(uint64_t h, const int *perm) {
    uint64_t out = 0;
    for (int s = 0; s < 4; s++) out |= ((h >> s) & NIB) << perm[s];
    return out;
}

/* the slot of a board's rank multiset, its 91 class codes computed the first time it is seen */
static int smart_slot(smart_t *st, uint64_t board) {
    int key = 0;
    for (uint64_t b = board; b; b &= b - 1) key = key * 13 + (__builtin_ctzll(b) >> 2);
    int32_t slot = st->memo_index[key];
    if (!slot) {
        slot = ++st->nmemo;
        st->memo_index[key] = slot;
        uint64_t bc = rank_counts(board);
        int k = 0;
        for (int r1 = 0; r1 < 13; r1++)
            for (int r2 = r1; r2 < 13; r2++)
                st->codes[slot - 1][k++] = rank_by_counts(bc + (1ULL << (4 * r1)) + (1ULL << (4 * r2)));
        st->memo[slot - 1][3] = 0;
    }
    return slot - 1;
}

static void smart_classes(const uint32_t *codes, uint64_t hero, uint64_t board, uint32_t mine, int fsuit,
                          int64_t *wtl) {
    uint64_t dead = hero | board;
    uint64_t dc = rank_counts(dead);
    int avail[13], fs[13];
    for (int r = 0; r < 13; r++) {
        avail[r] = 4 - (int)((dc >> (4 * r)) & 15);
        fs[r] = fsuit >= 0 ? !((dead >> (4 * r + fsuit)) & 1) : 0;
    }
    int bsuit = fsuit >= 0 ? (int)nibble_bits((board >> fsuit) & NIB) : 0;
    int64_t w = 0, t = 0, l = 0;
    int k = 0;
    for (int r1 = 0; r1 < 13; r1++) {
        for (int r2 = r1; r2 < 13; r2++, k++) {
            int64_t n, nflush = 0;
            if (r1 == r2) {
                n = avail[r1] * (avail[r1] - 1) / 2;
                if (bsuit == 4) nflush = fs[r1] * (avail[r1] - 1);
            } else {
                n = avail[r1] * avail[r2];
                if (bsuit == 3) nflush = fs[r1] * fs[r2];
                else if (bsuit == 4) nflush = fs[r1] * avail[r2] + avail[r1] * fs[r2] - fs[r1] * fs[r2];
            }
            if (bsuit == 5) nflush = n;
            n -= nflush;
            if (n <= 0) continue;
            uint32_t theirs = codes[k];
            if (mine > theirs) w += n; else if (mine == theirs) t += n; else l += n;
        }
    }
    if (fsuit >= 0) {
        /* The hands that make a flush, one by one: it is their best hand (a flush excludes quads and full
           houses in 7 cards), so their code is the flush code of the suit's ranks. */
        uint32_t bfm = gather((board >> fsuit) & NIB);
        int suited[13], ns = 0, other[52], no = 0;
        for (int i = 0; i < 52; i++) {
            if ((dead >> i) & 1) continue;
            if ((i & 3) == fsuit) suited[ns++] = i >> 2; else other[no++] = i;
        }
        for (int a = 0; a < ns; a++) {
            for (int b = 0; b < a; b++) { /* both hole cards of the suit */
                uint32_t theirs = flush_code(bfm | 1u << suited[a] | 1u << suited[b]);
                if (mine > theirs) w++; else if (mine == theirs) t++; else l++;
            }
            if (bsuit >= 4) { /* one of the suit, one of another suit */
                uint32_t theirs = flush_code(bfm | 1u << suited[a]);
                int64_t n = no;
                if (mine > theirs) w += n; else if (mine == theirs) t += n; else l += n;
            }
        }
        if (bsuit == 5) { /* no card of the suit: the board's flush, or better from the hole cards' ranks */
            uint32_t theirs = flush_code(bfm);
            int64_t n = (int64_t)no * (no - 1) / 2;
            if (mine > theirs) w += n; else if (mine == theirs) t += n; else l += n;
        }
    }
    wtl[0] += w; wtl[1] += t; wtl[2] += l;
}

static void smart_board(smart_t *st, uint64_t hero, uint64_t board, int64_t weight, int64_t *acc) {
    int fsuit = -1;
    for (int s = 0; s < 4; s++)
        if (nibble_bits((board >> s) & NIB) >= 3) fsuit = s;
    int slot = smart_slot(st, board);
    int64_t wtl[3] = {0, 0, 0};
    if (fsuit < 0) {
        /* no flush for anyone: the result depends on the board's ranks only */
        int64_t *m = st->memo[slot];
        if (!m[3]) {
            m[0] = m[1] = m[2] = 0;
            smart_classes(st->codes[slot], hero, board, rank7(hero | board), -1, m);
            m[3] = 1;
        }
        memcpy(wtl, m, sizeof wtl);
    } else {
        smart_classes(st->codes[slot], hero, board, rank7(hero | board), fsuit, wtl);
    }
    for (int k = 0; k < 3; k++) acc[k] += weight * wtl[k];
}

static const int PERMS[24][4] = {
    {0,1,2,3},{0,1,3,2},{0,2,1,3},{0,2,3,1},{0,3,1,2},{0,3,2,1},{1,0,2,3},{1,0,3,2},{1,2,0,3},{1,2,3,0},
    {1,3,0,2},{1,3,2,0},{2,0,1,3},{2,0,3,1},{2,1,0,3},{2,1,3,0},{2,3,0,1},{2,3,1,0},{3,0,1,2},{3,0,2,1},
    {3,1,0,2},{3,1,2,0},{3,2,0,1},{3,2,1,0}};

static void *smart_job(void *arg) {
    job_t *j = arg;
    smart_t st;
    st.memo_index = calloc(371293, sizeof(int32_t));
    st.memo = malloc(sizeof(int64_t[4]) * 6200);
    st.codes = malloc(sizeof(uint32_t[91]) * 6200);
    st.nmemo = 0;
    int group[24][4], ng = 0;
    if (j->mode) /* suit isomorphism: the permutations that map the hero's cards onto themselves */
        for (int p = 0; p < 24; p++)
            if (permute_suits(j->hero, PERMS[p]) == j->hero) memcpy(group[ng++], PERMS[p], sizeof group[0]);
    size_t lo = j->n * j->id / j->threads, hi = j->n * (j->id + 1) / j->threads;
    for (size_t i = lo; i < hi; i++) {
        uint64_t board = j->in[i];
        int64_t weight = 1;
        if (ng > 1) { /* rank only the smallest board of its orbit, weighted by the orbit's size */
            int smaller = 0, same = 0;
            for (int g = 0; g < ng; g++) {
                uint64_t img = permute_suits(board, group[g]);
                smaller |= img < board;
                same += img == board;
            }
            if (smaller) continue;
            weight = ng / same;
        }
        smart_board(&st, j->hero, board, weight, j->counts);
    }
    free(st.memo_index);
    free(st.memo);
    free(st.codes);
    return NULL;
}

/* mode 0: the talk's loop; 1: the same, comparing as the talk does (signed 32-bit subtraction);
   2: the smart method on any list of boards; 3: the smart method with suit isomorphism (the board list must
   be closed under the hero's suit symmetries, as the full enumeration is); 4: the talk's loop with the
   board's work hoisted out of it. */
void equity(uint64_t hero, const uint64_t *boards, size_t n, int mode, int threads, int64_t *out) {
    job_t jobs[64];
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof(job_t));
        jobs[t].id = t; jobs[t].threads = threads; jobs[t].in = boards; jobs[t].n = n; jobs[t].hero = hero;
        jobs[t].mode = mode == 4 ? 4 : mode & 1;
    }
    run_threads(jobs, threads, mode == 2 || mode == 3 ? smart_job : talk_job);
    out[0] = out[1] = out[2] = 0;
    for (int t = 0; t < threads; t++)
        for (int k = 0; k < 3; k++) out[k] += jobs[t].counts[k];
}
