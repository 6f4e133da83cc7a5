/* Contains over bit-sliced hands. Prepare (native.bit_planes) turns each block of 512 hands into 41 bit planes:
 * bits 0..2 of the count of each rank (kinds 1..13, counts 0..4), then one bit for each joker. Plane p of block
 * k is eight uint64 words at a[(k * PLANES + p) * 8]; bit j of word w is pair 64 w + j of the block.
 *
 * Why: a packed hand spends 64 bits on 41 bits of counts, and at a million pairs this kernel waits on memory,
 * not on arithmetic. The planes hold the same hands in 41 bits, a third fewer bytes to read per pair.
 *
 * A rank's play count exceeds the hand's exactly when a - b, taken bit by bit from the low plane up, borrows out
 * of the top bit: the borrow out of one bit is MAJ(~a, b, borrow in), one vpternlog on AVX-512.
 * One source, three builds: with AVX-512 a lane is a whole plane, with AVX2 half of one, else a single word. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__AVX512BW__) || defined(__AVX2__)
#include <immintrin.h>
#endif

enum { BLOCK = 512, RANKS = 13, RANK_BITS = 3, PLANES = RANKS * RANK_BITS + 2, PLANE_WORDS = BLOCK / 64 };

#if defined(__AVX512BW__)
typedef uint64_t lanes __attribute__((vector_size(64)));
#elif defined(__AVX2__)
typedef uint64_t lanes __attribute__((vector_size(32)));
#else
typedef uint64_t lanes;
#endif
#define LANE_WORDS (sizeof(lanes) / sizeof(uint64_t))

static inline lanes load(const uint64_t *p)
{
    lanes v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A set bit for each pair (of LANE_WORDS * 64) whose play needs more of some kind than its hand holds. */
static inline lanes shortfalls(const uint64_t *a, const uint64_t *b)
{
    lanes bad = {0};
    for (int r = 0; r < RANKS; r++) {
        const uint64_t *pa = a + r * RANK_BITS * PLANE_WORDS, *pb = b + r * RANK_BITS * PLANE_WORDS;
        lanes borrow = ~load(pa) & load(pb);
        for (int j = 1; j < RANK_BITS; j++) {
            lanes x = ~load(pa + j * PLANE_WORDS), y = load(pb + j * PLANE_WORDS);
            borrow = (x & y) | (x & borrow) | (y & borrow);
        }
        bad |= borrow;
    }
    for (int p = RANKS * RANK_BITS; p < PLANES; p++) /* jokers: one bit each */
        bad |= ~load(a + p * PLANE_WORDS) & load(b + p * PLANE_WORDS);
    return bad;
}

/* Bit j of `ok` as byte j (0 or 1) of out[0..63]. */
static inline void spread64(uint8_t *out, uint64_t ok)
{
#if defined(__AVX512BW__)
    _mm512_storeu_si512((void *)out, _mm512_maskz_set1_epi8(_cvtu64_mask64(ok), 1));
#elif defined(__AVX2__)
    /* each byte picks the byte of `ok` that holds its bit, then tests that bit */
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                          2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201ULL);
    const __m256i one = _mm256_set1_epi8(1);
    for (int half = 0; half < 2; half++) {
        __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)(uint32_t)(ok >> (32 * half))), pick);
        v = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(v, bit), bit), one);
        _mm256_storeu_si256((__m256i *)(out + 32 * half), v);
    }
#else
    for (int j = 0; j < 64; j++)
        out[j] = (uint8_t)((ok >> j) & 1);
#endif
}

static inline void contains_block(const uint64_t *a, const uint64_t *b, uint8_t *out)
{
    for (size_t w = 0; w < PLANE_WORDS; w += LANE_WORDS) {
        uint64_t bad[LANE_WORDS];
        lanes v = shortfalls(a + w, b + w);
        memcpy(bad, &v, sizeof bad);
        for (size_t i = 0; i < LANE_WORDS; i++)
            spread64(out + 64 * (w + i), ~bad[i]);
    }
}

/* n pairs from the planes of ceil(n / 512) blocks; the last block's padding is computed but not written. */
void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n)
{
    const size_t stride = (size_t)PLANES * PLANE_WORDS;
    size_t k = 0;
    for (; (k + 1) * BLOCK <= n; k++)
        contains_block(a + k * stride, b + k * stride, out + k * BLOCK);
    if (k * BLOCK < n) {
        uint8_t tail[BLOCK];
        contains_block(a + k * stride, b + k * stride, tail);
        memcpy(out + k * BLOCK, tail, n - k * BLOCK);
    }
}

#include "split.h"
static void contains_share(const uint64_t *a, const uint64_t *b, void *out, size_t n)
{
    contains_batch(a, b, (uint8_t *)out, n);
}

void contains_batch_mt(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n, int threads)
{
    cards_split(contains_share, a, b, out, 1, n, threads, BLOCK, (size_t)PLANES * PLANE_WORDS);
}
