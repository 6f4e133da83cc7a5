/* The write-up's SIMD steps: symmetry with all eight forms of a board built, compared and chosen in
 * one AVX2 register, counts permuted with one vpermd, hash sums of the eight forms in one multiply; full and
 * last-layer boards summed without insertion. -DPREFETCH=1 adds the hash table prefetch. */
#include <immintrin.h>
#define MOVES_LUT 1
#define SYMMETRY 1
#define DIRECT_SUM 1
#ifndef PREFETCH
#define PREFETCH 0
#endif
#include "search.h"

static inline __m256i forms8(const uint32_t *tab, uint32_t s)
{
    __m256i a = _mm256_loadu_si256((const __m256i *)(tab + (s & 511) * 8));
    __m256i b = _mm256_loadu_si256((const __m256i *)(tab + 4096 + ((s >> 9) & 511) * 8));
    __m256i c = _mm256_loadu_si256((const __m256i *)(tab + 8192 + ((s >> 18) & 511) * 8));
    return _mm256_or_si256(_mm256_or_si256(a, b), c);
}

static inline uint32_t canonical(const ceph_tables *T, uint32_t s, int *j)
{
    __m256i f = forms8(T->xform, s);
    __m256i m = _mm256_min_epu32(f, _mm256_permute2x128_si256(f, f, 1));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));  /* the minimum in every lane */
    int lanes = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(f, m)));
    *j = T->inverse[__builtin_ctz((unsigned)lanes)];
    return (uint32_t)_mm256_cvtsi256_si32(m) | (s & ~((1u << ZERO_SHIFT) - 1));
}

static inline void add_counts(uint32_t *dst, const uint32_t *src, int j, const ceph_tables *T)
{
    __m256i idx = _mm256_loadu_si256((const __m256i *)(T->gather + 8 * j));
    __m256i v = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)src), idx);
    __m256i *d = (__m256i *)dst;
    _mm256_storeu_si256(d, _mm256_add_epi32(_mm256_loadu_si256(d), v));
}

static inline uint64_t sum_forms(const ceph_tables *T, uint32_t s, const uint32_t *c)
{
    /* the hash table entries add without carries between lanes: each form's hash is below 2^30 */
    __m256i h = _mm256_add_epi32(_mm256_add_epi32(
        _mm256_loadu_si256((const __m256i *)(T->hash8 + (s & 511) * 8)),
        _mm256_loadu_si256((const __m256i *)(T->hash8 + 4096 + ((s >> 9) & 511) * 8))),
        _mm256_loadu_si256((const __m256i *)(T->hash8 + 8192 + ((s >> 18) & 511) * 8)));
    __m256i p = _mm256_mullo_epi32(h, _mm256_loadu_si256((const __m256i *)c));  /* modulo 2^32 */
    __m128i q = _mm_add_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(1, 0, 3, 2)));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)_mm_cvtsi128_si32(q) & MASK30;
}
