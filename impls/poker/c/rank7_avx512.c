/* The SWAR evaluator of poker_core.c on eight hands at once: one hand per 64-bit lane of a zmm register.
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

/* ---- equity, the talk's method eight opponents at a time: the hero ranked once per board, then every one of
   the 990 opponent hands, built from consecutive free cards (card a with cards b..b+7) and ranked by rank8 ---- */
static void talk_boards(uint64_t hero, const uint64_t *boards, size_t n, int64_t *wtl) {
    int64_t w = 0, t = 0, l = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t board = boards[i], dead = hero | board;
        uint64_t free_bits[45];
        int nf = 0;
        for (int c = 0; c < 52; c++)
            if (!((dead >> c) & 1)) free_bits[nf++] = 1ULL << c;
        V mine = _mm512_set1_epi64((long long)_mm512_cvtsi512_si32(rank8(SET(dead))) & 0xFFFFFFFFLL);
        for (int a = 1; a < nf; a++) {
            V base = SET(board | free_bits[a]);
            for (int b = 0; b < a; b += 8) {
                __mmask8 m = a - b >= 8 ? 0xFF : (__mmask8)((1u << (a - b)) - 1);
                V hands = _mm512_or_si512(base, _mm512_maskz_loadu_epi64(m, free_bits + b));
                V theirs = rank8(hands);
                w += __builtin_popcount(_mm512_mask_cmpgt_epu64_mask(m, mine, theirs));
                t += __builtin_popcount(_mm512_mask_cmpeq_epu64_mask(m, mine, theirs));
                l += __builtin_popcount(_mm512_mask_cmplt_epu64_mask(m, mine, theirs));
            }
        }
    }
    wtl[0] = w; wtl[1] = t; wtl[2] = l;
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
