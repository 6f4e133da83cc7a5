/* The SWAR evaluator of poker_core.c on eight hands at once: one hand per 64-bit lane of a zmm register (the
 * equity loop below classifies sixteen at once from 13-bit rank masks instead, and uses rank8 for the hero).
 *
 * Branches become lane masks. Every candidate code is computed for every lane, lowest category first, and a
 * later (better) category overwrites the code where its mask holds, so each lane ends with its best category.
 * Rank masks are gathered by the same shift-or steps; popcounts are VPOPCNTQ (AVX512_VPOPCNTDQ), the top card
 * of a mask is 63 - VPLZCNTQ (AVX512CD). Keeping the top k cards of a mask of at most 7 cards takes at most two
 * "clear the lowest bit where the count is above k" steps, for every k this evaluator uses.
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define V __m512i
#define SET(x) _mm512_set1_epi64((long long)(x))
#define NIBS 0x1111111111111ULL

static inline V gather(V x) {
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_srli_epi64(x, 3)), SET(0x0303030303030303ULL));
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_srli_epi64(x, 6)), SET(0x000F000F000F000FULL));
    x = _mm512_and_si512(_mm512_or_si512(x, _mm512_srli_epi64(x, 12)), SET(0x000000FF000000FFULL));
    return _mm512_and_si512(_mm512_or_si512(x, _mm512_srli_epi64(x, 24)), SET(0xFFFF));
}

static inline V top_bit(V x) { return _mm512_sub_epi64(SET(63), _mm512_lzcnt_epi64(x)); }

static inline V bit(V index) { return _mm512_sllv_epi64(SET(1), index); }

static inline V keep_top(V m, long long k) {
    for (int step = 0; step < 2; step++) {
        __mmask8 over = _mm512_cmpgt_epu64_mask(_mm512_popcnt_epi64(m), SET(k));
        m = _mm512_mask_and_epi64(m, over, m, _mm512_sub_epi64(m, SET(1)));
    }
    return m;
}

/* the straight's top rank in lanes that hold one (mask), from 13-bit rank masks */
static inline V straight_top(V m, __mmask8 *has) {
    V x = _mm512_or_si512(_mm512_slli_epi64(m, 1), _mm512_srli_epi64(m, 12));
    V s = _mm512_and_si512(x, _mm512_srli_epi64(x, 1));
    s = _mm512_and_si512(s, _mm512_srli_epi64(s, 2));
    s = _mm512_and_si512(s, _mm512_srli_epi64(x, 4));
    *has = _mm512_test_epi64_mask(s, s);
    return _mm512_add_epi64(top_bit(s), SET(3));
}

static inline V code(long long category, V major, V minor) {
    return _mm512_or_si512(_mm512_or_si512(SET(category << 28), _mm512_slli_epi64(major, 14)), minor);
}

static inline V rank8(V h) {
    const V nib = SET(NIBS), hib = SET(NIBS << 3), zero = _mm512_setzero_si512();
    /* flush: the suit stripe with five or more cards (at most one in seven cards) */
    V stripe = zero;
    for (int s = 0; s < 4; s++) {
        V st = _mm512_and_si512(_mm512_srli_epi64(h, s), nib);
        __mmask8 five = _mm512_cmpge_epu64_mask(_mm512_popcnt_epi64(st), SET(5));
        stripe = _mm512_mask_mov_epi64(stripe, five, st);
    }
    __mmask8 flush = _mm512_test_epi64_mask(stripe, stripe);
    V fm = gather(stripe);
    /* rank counts and greaterEqual<N> */
    V c = _mm512_sub_epi64(h, _mm512_and_si512(_mm512_srli_epi64(h, 1), SET(0x5555555555555555ULL)));
    c = _mm512_add_epi64(_mm512_and_si512(c, SET(0x3333333333333333ULL)),
                         _mm512_and_si512(_mm512_srli_epi64(c, 2), SET(0x3333333333333333ULL)));
    V v = _mm512_or_si512(c, hib);
    V ranks = gather(_mm512_srli_epi64(_mm512_and_si512(_mm512_sub_epi64(v, nib), hib), 3));
    V m2 = gather(_mm512_srli_epi64(_mm512_and_si512(_mm512_sub_epi64(v, SET(2 * NIBS)), hib), 3));
    V m3 = gather(_mm512_srli_epi64(_mm512_and_si512(_mm512_sub_epi64(v, SET(3 * NIBS)), hib), 3));
    V m4 = gather(_mm512_srli_epi64(_mm512_and_si512(_mm512_sub_epi64(v, SET(4 * NIBS)), hib), 3));
    V q = bit(top_bit(m4)), t = bit(top_bit(m3));
    V fh_pair = _mm512_andnot_si512(t, m2);
    V two = keep_top(m2, 2);
    __mmask8 has_pair = _mm512_test_epi64_mask(m2, m2), has_trips = _mm512_test_epi64_mask(m3, m3);
    __mmask8 has_quads = _mm512_test_epi64_mask(m4, m4);
    __mmask8 two_pair = _mm512_cmpge_epu64_mask(_mm512_popcnt_epi64(m2), SET(2));
    __mmask8 full = has_trips & _mm512_test_epi64_mask(fh_pair, fh_pair);
    __mmask8 straight, straight_flush;
    V st_top = straight_top(ranks, &straight);
    V sf_top = straight_top(fm, &straight_flush);
    straight_flush &= flush;

    V out = keep_top(ranks, 5);
    out = _mm512_mask_mov_epi64(out, has_pair, code(1, m2, keep_top(_mm512_andnot_si512(m2, ranks), 3)));
    out = _mm512_mask_mov_epi64(out, two_pair, code(2, two, keep_top(_mm512_andnot_si512(two, ranks), 1)));
    out = _mm512_mask_mov_epi64(out, has_trips, code(3, t, keep_top(_mm512_andnot_si512(t, ranks), 2)));
    out = _mm512_mask_mov_epi64(out, straight, code(4, zero, bit(st_top)));
    out = _mm512_mask_mov_epi64(out, flush, code(5, zero, keep_top(fm, 5)));
    out = _mm512_mask_mov_epi64(out, full, code(6, t, bit(top_bit(fh_pair))));
    out = _mm512_mask_mov_epi64(out, has_quads, code(7, q, keep_top(_mm512_andnot_si512(q, ranks), 1)));
    out = _mm512_mask_mov_epi64(out, straight_flush, code(8, zero, bit(sf_top)));
    return out;
}

void rank7_avx512(const uint64_t *hands, uint32_t *out, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_si256((__m256i *)(out + i), _mm512_cvtepi64_epi32(rank8(_mm512_loadu_si512(hands + i))));
    if (i < n) {
        __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        _mm512_mask_cvtepi64_storeu_epi32(out + i, m, rank8(_mm512_maskz_loadu_epi64(m, hands + i)));
    }
}

/* ---- threads: fn runs on jobs[0..threads-1] (each `size` bytes apart), the first one on this thread -------- */
static int clamp_threads(int t) { return t < 1 ? 1 : t > 64 ? 64 : t; }

static void spawn(void *(*fn)(void *), void *jobs, size_t size, int threads) {
    pthread_t tid[64];
    for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, fn, (char *)jobs + t * size);
    fn(jobs);
    for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
}

/* ---- equity, the talk's method sixteen opponents at a time: the hero ranked once per board, then every one of
   the 990 opponent hands, classified from rank masks ---------------------------------------------------------
   As in poker_core.c's hoisted loop: bit r of m_k is set when rank r holds k or more cards; the board's masks are
   computed once, those of the board plus the first hole card a once per a, and the second card b (rank bit r)
   gives m_1 | r, m_2 | (m_1 & r), m_3 | (m_2 & r), m_4 | (m_3 & r), one VPTERNLOGD each. Rank masks fit 13 bits,
   so a zmm register holds sixteen hands (32-bit lanes) where rank8 holds eight. Every category's code is built
   under a lane mask and the better category overwrites, as in rank8; full houses, quads, straights and flushes
   are only built when some lane of the sixteen can hold one. Kickers take no popcount: an opponent's hand is
   exactly seven cards, so each category has a fixed number of ranks and keeping the top k is dropping the
   lowest ones, m & (m - 1). */
#define V32(x) _mm512_set1_epi32((int)(x))
#define OR_AND(a, b, c) _mm512_ternarylogic_epi32((a), (b), (c), 0xF8) /* a | (b & c) */

static inline V drop_low32(V m) { return _mm512_and_si512(m, _mm512_sub_epi32(m, V32(1))); }

/* the highest set bit of each lane (lanes must be nonzero where the result is used) */
static inline V top_rank32(V m) { return _mm512_srlv_epi32(V32(0x80000000u), _mm512_lzcnt_epi32(m)); }

/* the talk's addition chain on the ace-rotated mask: bit j set when ranks j - 1 .. j + 3 are present */
static inline V straight_runs32(V m) {
    V x = _mm512_or_si512(_mm512_slli_epi32(m, 1), _mm512_srli_epi32(m, 12));
    V s = _mm512_and_si512(x, _mm512_srli_epi32(x, 1));
    s = _mm512_and_si512(s, _mm512_srli_epi32(s, 2));
    return _mm512_and_si512(s, _mm512_srli_epi32(x, 4));
}

static inline uint32_t straight_runs1(uint32_t m) {
    uint32_t x = (m << 1) | (m >> 12), s = x & (x >> 1);
    s &= s >> 2;
    return s & (x >> 4);
}

/* the ranks whose card completes a straight (all 13 when m holds one): on the ace-rotated mask, a hole at h
   completes one when the present run just below h and the one just above add up to four */
static inline uint32_t straight_completers1(uint32_t m) {
    if (straight_runs1(m)) return 0x1FFF;
    uint32_t x = (m << 1) | (m >> 12);
    uint32_t a1 = x << 1, a2 = a1 & (x << 2), a3 = a2 & (x << 3), a4 = a3 & (x << 4);
    uint32_t b1 = x >> 1, b2 = b1 & (x >> 2), b3 = b2 & (x >> 3), b4 = b3 & (x >> 4);
    uint32_t c = (a4 | (a3 & b1) | (a2 & b2) | (a1 & b3) | b4) & ~x & 0x3FFF;
    return ((c >> 1) | (c << 12)) & 0x1FFF; /* positions 0 and 13 are both the ace */
}

static inline uint32_t gather1(uint64_t x) { /* nibble bits (bit 4r) to bit r */
    x = (x | (x >> 3)) & 0x0303030303030303ULL;
    x = (x | (x >> 6)) & 0x000F000F000F000FULL;
    x = (x | (x >> 12)) & 0x000000FF000000FFULL;
    return (uint32_t)((x | (x >> 24)) & 0xFFFF);
}

static inline V code32(uint32_t category, V major, V minor) {
    return _mm512_ternarylogic_epi32(V32(category << 28), _mm512_slli_epi32(major, 14), minor, 0xFE);
}

/* sixteen opponents: their second cards' rank bits r on the six-card masks p1..p4 of board + first card;
   completes: the ranks completing a straight for those six; flush: the lanes that make a flush, whose suit's
   rank mask is fl */
static inline V rank16(V p1, V p2, V p3, V p4, V r, uint32_t completes, __mmask16 flush, V fl) {
    V q1 = _mm512_or_si512(p1, r), q2 = OR_AND(p2, p1, r), q3 = OR_AND(p3, p2, r), q4 = OR_AND(p4, p3, r);
    V out = drop_low32(drop_low32(q1)); /* high card: 7 ranks, keep 5 */
    __mmask16 pair = _mm512_test_epi32_mask(q2, q2);
    if (pair) {
        V rest = drop_low32(q2);
        __mmask16 two = _mm512_test_epi32_mask(rest, rest);
        out = _mm512_mask_mov_epi32(out, pair, code32(1, q2, drop_low32(drop_low32(_mm512_andnot_si512(q2, q1)))));
        if (two) { /* with three pairs the lowest drops and may still be the kicker */
            V low = drop_low32(rest);
            V major = _mm512_mask_mov_epi32(q2, _mm512_test_epi32_mask(low, low), rest);
            out = _mm512_mask_mov_epi32(out, two, code32(2, major, top_rank32(_mm512_andnot_si512(major, q1))));
        }
    }
    __mmask16 trips = _mm512_test_epi32_mask(q3, q3);
    if (trips) /* trips beside four other ranks: keep 2 */
        out = _mm512_mask_mov_epi32(out, trips, code32(3, q3, drop_low32(drop_low32(_mm512_andnot_si512(q3, q1)))));
    __mmask16 may = _mm512_test_epi32_mask(r, V32(completes));
    if (may) {
        V s = straight_runs32(q1);
        __mmask16 st = _mm512_mask_test_epi32_mask(may, s, s);
        out = _mm512_mask_mov_epi32(out, st, code32(4, _mm512_setzero_si512(), _mm512_slli_epi32(top_rank32(s), 3)));
    }
    if (flush) { /* a flush rules out full houses and quads in seven cards; five to seven ranks, keep 5 */
        V s = straight_runs32(fl), k = fl;
        for (int step = 0; step < 2; step++)
            k = _mm512_mask_and_epi32(k, _mm512_cmpgt_epu32_mask(_mm512_popcnt_epi32(k), V32(5)), k,
                                      _mm512_sub_epi32(k, V32(1)));
        out = _mm512_mask_mov_epi32(out, flush, code32(5, _mm512_setzero_si512(), k));
        __mmask16 sf = _mm512_mask_test_epi32_mask(flush, s, s);
        out = _mm512_mask_mov_epi32(out, sf, code32(8, _mm512_setzero_si512(), _mm512_slli_epi32(top_rank32(s), 3)));
    }
    if (trips) { /* a second trips can be the pair; quads are trips too, so they are looked for here */
        V t = top_rank32(q3), p = _mm512_andnot_si512(t, q2);
        __mmask16 full = _mm512_mask_test_epi32_mask(trips, p, p);
        out = _mm512_mask_mov_epi32(out, full, code32(6, t, top_rank32(p)));
        __mmask16 quads = _mm512_test_epi32_mask(q4, q4);
        out = _mm512_mask_mov_epi32(out, quads, code32(7, q4, top_rank32(_mm512_andnot_si512(q4, q1))));
    }
    return out;
}

/* one board: wins, and wins or ties, added to wwt[0] and wwt[1]; returns the number of opponent hands. With
   codes (the tests only), each hand and the code it got are stored too: codes is a constant NULL in the timed
   loop, so that branch is compiled out there. */
static inline __attribute__((always_inline)) int talk_board16(uint64_t hero, uint64_t board, int64_t *wwt,
                                                             uint64_t *hands, uint32_t *codes) {
    uint64_t dead = hero | board;
    uint32_t mine = (uint32_t)_mm512_cvtsi512_si32(rank8(SET(dead)));
    /* the board's rank counts (the popcount's first two stages), greaterEqual<k> gathered to 13 bits */
    uint64_t c = board - ((board >> 1) & 0x5555555555555555ULL);
    c = (c & 0x3333333333333333ULL) + ((c >> 2) & 0x3333333333333333ULL);
    uint32_t bm[4];
    for (int k = 0; k < 4; k++) bm[k] = gather1((((c | (NIBS << 3)) - (k + 1) * NIBS) & (NIBS << 3)) >> 3);
    int fsuit = -1;
    unsigned bsuit = 0;
    for (int s = 0; s < 4; s++) {
        unsigned k = (unsigned)__builtin_popcountll((board >> s) & NIBS);
        if (k >= 3) { fsuit = s; bsuit = k; }
    }
    uint32_t bflush = fsuit >= 0 ? gather1((board >> fsuit) & NIBS) : 0;
    uint32_t rank[48] = {0}, suited[48] = {0};
    int card[48], nf = 0;
    for (int cd = 0; cd < 52; cd++)
        if (!((dead >> cd) & 1)) {
            card[nf] = cd;
            rank[nf] = 1u << (cd >> 2);
            suited[nf] = (cd & 3) == fsuit ? rank[nf] : 0;
            nf++;
        }
    V mine_v = V32(mine), acc_w = _mm512_setzero_si512(), acc_wt = _mm512_setzero_si512();
    int stored = 0;
    for (int a = 1; a < nf; a++) {
        uint32_t ra = rank[a];
        uint32_t m1 = bm[0] | ra, m2 = bm[1] | (bm[0] & ra), m3 = bm[2] | (bm[1] & ra), m4 = bm[3] | (bm[2] & ra);
        uint32_t completes = straight_completers1(m1);
        unsigned sa = bsuit + (suited[a] != 0); /* a flush needs sa + (b suited) >= 5 */
        V p1 = V32(m1), p2 = V32(m2), p3 = V32(m3), p4 = V32(m4), fa = V32(bflush | suited[a]);
        for (int b = 0; b < a; b += 16) {
            __mmask16 live = a - b >= 16 ? 0xFFFF : (__mmask16)((1u << (a - b)) - 1);
            V r = _mm512_maskz_loadu_epi32(live, rank + b);
            __mmask16 flush = 0;
            V fl = fa;
            if (fsuit >= 0 && sa >= 4) {
                V sb = _mm512_maskz_loadu_epi32(live, suited + b);
                flush = sa >= 5 ? live : _mm512_test_epi32_mask(sb, sb);
                fl = _mm512_or_si512(fa, sb);
            }
            V theirs = rank16(p1, p2, p3, p4, r, completes, flush, fl);
            /* a lane's counters gain 1 (subtracting -1) where it wins, and where it wins or ties */
            acc_w = _mm512_mask_sub_epi32(acc_w, _mm512_mask_cmplt_epu32_mask(live, theirs, mine_v), acc_w, V32(-1));
            acc_wt = _mm512_mask_sub_epi32(acc_wt, _mm512_mask_cmple_epu32_mask(live, theirs, mine_v), acc_wt,
                                           V32(-1));
            if (codes) {
                _mm512_mask_storeu_epi32(codes + stored, live, theirs);
                for (int k = b; k < a && k < b + 16; k++)
                    hands[stored++] = board | 1ULL << card[a] | 1ULL << card[k];
            }
        }
    }
    wwt[0] += _mm512_reduce_add_epi32(acc_w);
    wwt[1] += _mm512_reduce_add_epi32(acc_wt);
    return nf * (nf - 1) / 2;
}

static void talk_boards(uint64_t hero, const uint64_t *boards, size_t n, int64_t *wtl) {
    int64_t wwt[2] = {0, 0}, all = 0;
    for (size_t i = 0; i < n; i++) all += talk_board16(hero, boards[i], wwt, NULL, NULL);
    wtl[0] = wwt[0]; wtl[1] = wwt[1] - wwt[0]; wtl[2] = all - wwt[1];
}

/* For the tests: one board's opponent hands in the loop's order and the code each got. Returns how many. */
int talk_codes_avx512(uint64_t hero, uint64_t board, uint64_t *hands, uint32_t *codes) {
    int64_t wwt[2] = {0, 0};
    return talk_board16(hero, board, wwt, hands, codes);
}

typedef struct { uint64_t hero; const uint64_t *boards; size_t n; int64_t wtl[3]; } talk_job_t;

static void *talk_job(void *arg) {
    talk_job_t *j = arg;
    talk_boards(j->hero, j->boards, j->n, j->wtl);
    return NULL;
}

void equity_talk_avx512(uint64_t hero, const uint64_t *boards, size_t n, int threads, int64_t *out) {
    talk_job_t jobs[64];
    threads = clamp_threads(threads);
    for (int k = 0; k < threads; k++) {
        size_t lo = n * k / threads, hi = n * (k + 1) / threads;
        jobs[k] = (talk_job_t){hero, boards + lo, hi - lo, {0, 0, 0}};
    }
    spawn(talk_job, jobs, sizeof jobs[0], threads);
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < threads; k++)
        for (int x = 0; x < 3; x++) out[x] += jobs[k].wtl[x];
}

/* ---- all 133,784,560 seven-card hands, the seventh card eight at a time ------------------------------------- */
typedef struct { int id, threads; int64_t counts[9]; uint8_t *seen; } cat_job_t;

static void *categories_job(void *arg) {
    cat_job_t *j = arg;
    const V lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
    uint32_t codes[8];
    for (int a = 6 + j->id; a < 52; a += j->threads)
        for (int b = 5; b < a; b++)
            for (int c = 4; c < b; c++)
                for (int d = 3; d < c; d++)
                    for (int e = 2; e < d; e++)
                        for (int f = 1; f < e; f++) {
                            uint64_t hf = 1ULL << a | 1ULL << b | 1ULL << c | 1ULL << d | 1ULL << e | 1ULL << f;
                            for (int g = 0; g < f; g += 8) {
                                int k = f - g < 8 ? f - g : 8;
                                __mmask8 m = (__mmask8)((1u << k) - 1);
                                V cards = _mm512_sllv_epi64(SET(1), _mm512_add_epi64(lanes, SET(g)));
                                V hands = _mm512_or_si512(SET(hf), cards);
                                _mm512_mask_cvtepi64_storeu_epi32(codes, m, rank8(hands));
                                for (int x = 0; x < k; x++) {
                                    uint32_t code = codes[x], cat = code >> 28;
                                    j->counts[cat]++;
                                    uint64_t idx = ((uint64_t)cat << 26) | ((code >> 1) & (0x1FFFu << 13)) |
                                                   (code & 0x1FFF);
                                    uint8_t bit = (uint8_t)(1u << (idx & 7));
                                    if (!(j->seen[idx >> 3] & bit))
                                        __atomic_fetch_or(&j->seen[idx >> 3], bit, __ATOMIC_RELAXED);
                                }
                            }
                        }
    return NULL;
}

/* out: 9 category counts, then the number of distinct codes; -1 when the 72 MiB bitmap cannot be had */
int categories7_avx512(int64_t *out, int threads) {
    size_t bytes = ((size_t)9 << 26) / 8;
    uint8_t *seen = calloc(bytes, 1);
    if (!seen) return -1;
    cat_job_t jobs[64];
    threads = clamp_threads(threads);
    for (int t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].id = t; jobs[t].threads = threads; jobs[t].seen = seen;
    }
    spawn(categories_job, jobs, sizeof jobs[0], threads);
    for (int k = 0; k < 10; k++) out[k] = 0;
    for (int t = 0; t < threads; t++)
        for (int k = 0; k < 9; k++) out[k] += jobs[t].counts[k];
    for (size_t i = 0; i < bytes; i++) out[9] += __builtin_popcount(seen[i]);
    free(seen);
    return 0;
}

typedef struct { const uint64_t *hands; uint32_t *out; size_t n; } rank_job_t;

static void *rank_job(void *arg) {
    rank_job_t *j = arg;
    rank7_avx512(j->hands, j->out, j->n);
    return NULL;
}

void rank7_avx512_mt(const uint64_t *hands, uint32_t *out, size_t n, int threads) {
    rank_job_t jobs[64];
    threads = clamp_threads(threads);
    for (int t = 0; t < threads; t++) {
        size_t lo = n * t / threads, hi = n * (t + 1) / threads;
        jobs[t] = (rank_job_t){hands + lo, out + lo, hi - lo};
    }
    spawn(rank_job, jobs, sizeof jobs[0], threads);
}
