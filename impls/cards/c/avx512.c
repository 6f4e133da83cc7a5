/* SWAR in AVX-512 lanes: eight hands per 512-bit register. Eight compares give a 64-bit mask that
 * AVX-512BW expands to 64 result bytes in one masked store. */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#define HIGH 0x8888888888888888ULL
/* An output this large (a thread's share) cannot stay in L2 anyway: it goes out by non-temporal stores,
 * which skip reading each line before writing it and so cut remove's memory traffic by a quarter. */
#define STREAM_BYTES ((size_t)2 << 20)

static inline __mmask8 contains8(const uint64_t *a, const uint64_t *b, __m512i h)
{
    __m512i va = _mm512_loadu_si512((const void *)a);
    __m512i vb = _mm512_loadu_si512((const void *)b);
    __m512i t = _mm512_and_si512(_mm512_sub_epi64(_mm512_or_si512(va, h), vb), h);
    return _mm512_cmpeq_epi64_mask(t, h);
}

void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n)
{
    const __m512i h = _mm512_set1_epi64((long long)HIGH);
    const __m512i one = _mm512_set1_epi8(1);
    size_t j = 0;
    for (; j + 64 <= n; j += 64) {
        uint64_t m = 0;
        for (int k = 0; k < 8; k++)
            m |= (uint64_t)contains8(a + j + 8 * k, b + j + 8 * k, h) << (8 * k);
        _mm512_storeu_si512((void *)(out + j), _mm512_maskz_mov_epi8((__mmask64)m, one));
    }
    for (; j + 8 <= n; j += 8) {
        __mmask8 m = contains8(a + j, b + j, h);
        _mm_storel_epi64((__m128i *)(out + j), _mm_maskz_mov_epi8((__mmask16)m, _mm_set1_epi8(1)));
    }
    for (; j < n; j++)
        out[j] = (((a[j] | HIGH) - b[j]) & HIGH) == HIGH;
}

void remove_batch(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n)
{
    size_t j = 0;
    if (n * sizeof *out >= STREAM_BYTES) {
        for (; j < n && (uintptr_t)(out + j) % 64; j++) /* streaming stores need a whole aligned line */
            out[j] = a[j] - b[j];
        for (; j + 8 <= n; j += 8) {
            __m512i va = _mm512_loadu_si512((const void *)(a + j));
            __m512i vb = _mm512_loadu_si512((const void *)(b + j));
            _mm512_stream_si512((void *)(out + j), _mm512_sub_epi64(va, vb));
        }
        _mm_sfence(); /* the streamed lines are visible before the caller (or the joining thread) reads them */
    }
    for (; j + 8 <= n; j += 8) {
        __m512i va = _mm512_loadu_si512((const void *)(a + j));
        __m512i vb = _mm512_loadu_si512((const void *)(b + j));
        _mm512_storeu_si512((void *)(out + j), _mm512_sub_epi64(va, vb));
    }
    for (; j < n; j++)
        out[j] = a[j] - b[j];
}

#include "split.h"
CARDS_SPLIT_EXPORTS
