/* SWAR in SSE2 lanes: two hands per 128-bit register. SSE2 has no 64-bit compare, so a lane matches when
 * both of its 32-bit halves do. */
#include <emmintrin.h>
#include <stddef.h>
#include <stdint.h>

#define HIGH 0x8888888888888888ULL

void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n)
{
    const __m128i h = _mm_set1_epi64x((long long)HIGH);
    size_t j = 0;
    for (; j + 2 <= n; j += 2) {
        __m128i va = _mm_loadu_si128((const __m128i *)(a + j));
        __m128i vb = _mm_loadu_si128((const __m128i *)(b + j));
        __m128i t = _mm_and_si128(_mm_sub_epi64(_mm_or_si128(va, h), vb), h);
        int m = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(t, h))); /* one bit per 32-bit half */
        out[j] = (m & 3) == 3;
        out[j + 1] = (m & 12) == 12;
    }
    for (; j < n; j++)
        out[j] = (((a[j] | HIGH) - b[j]) & HIGH) == HIGH;
}

void remove_batch(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n)
{
    size_t j = 0;
    for (; j + 2 <= n; j += 2) {
        __m128i va = _mm_loadu_si128((const __m128i *)(a + j));
        __m128i vb = _mm_loadu_si128((const __m128i *)(b + j));
        _mm_storeu_si128((__m128i *)(out + j), _mm_sub_epi64(va, vb));
    }
    for (; j < n; j++)
        out[j] = a[j] - b[j];
}
