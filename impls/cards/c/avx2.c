/* SWAR in AVX2 lanes: four hands per 256-bit register; the four lane results leave as one 32-bit store. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HIGH 0x8888888888888888ULL

/* byte k of SPREAD[m] is bit k of m: a 4-bit lane mask as four 0/1 bytes */
static const uint32_t SPREAD[16] = {
    0x00000000, 0x00000001, 0x00000100, 0x00000101, 0x00010000, 0x00010001, 0x00010100, 0x00010101,
    0x01000000, 0x01000001, 0x01000100, 0x01000101, 0x01010000, 0x01010001, 0x01010100, 0x01010101,
};

void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n)
{
    const __m256i h = _mm256_set1_epi64x((long long)HIGH);
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + j));
        __m256i vb = _mm256_loadu_si256((const __m256i *)(b + j));
        __m256i t = _mm256_and_si256(_mm256_sub_epi64(_mm256_or_si256(va, h), vb), h);
        int m = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(t, h)));
        memcpy(out + j, &SPREAD[m], 4);
    }
    for (; j < n; j++)
        out[j] = (((a[j] | HIGH) - b[j]) & HIGH) == HIGH;
}

void remove_batch(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n)
{
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
        __m256i va = _mm256_loadu_si256((const __m256i *)(a + j));
        __m256i vb = _mm256_loadu_si256((const __m256i *)(b + j));
        _mm256_storeu_si256((__m256i *)(out + j), _mm256_sub_epi64(va, vb));
    }
    for (; j < n; j++)
        out[j] = a[j] - b[j];
}

#include "split.h"
CARDS_SPLIT_EXPORTS
