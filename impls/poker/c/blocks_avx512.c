/* Lane popcounts with AVX-512: VPOPCNTQ/D (VPOPCNTDQ) for 64/32-bit lanes, VPOPCNTW/B (BITALG) for 16/8-bit
 * lanes, and for 4- and 2-bit lanes (no instruction has them) byte counts of masked halves, or the SWAR step.
 * The last words of a batch go through the same vector path under a mask. */
#include <immintrin.h>
#include <stdint.h>
#include <stddef.h>

static inline __m512i lanes(__m512i v, int width) {
    const __m512i lo4 = _mm512_set1_epi8(0x0F);
    switch (width) {
    case 64: return _mm512_popcnt_epi64(v);
    case 32: return _mm512_popcnt_epi32(v);
    case 16: return _mm512_popcnt_epi16(v);
    case 8: return _mm512_popcnt_epi8(v);
    case 4: {
        __m512i lo = _mm512_popcnt_epi8(_mm512_and_si512(v, lo4));
        __m512i hi = _mm512_popcnt_epi8(_mm512_and_si512(_mm512_srli_epi16(v, 4), lo4));
        return _mm512_or_si512(lo, _mm512_slli_epi16(hi, 4));
    }
    default:
        return _mm512_sub_epi64(v, _mm512_and_si512(_mm512_srli_epi64(v, 1), _mm512_set1_epi8(0x55)));
    }
}

void popcount_avx512(const uint64_t *in, uint64_t *out, size_t n, int width) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm512_storeu_si512(out + i, lanes(_mm512_loadu_si512(in + i), width));
    if (i < n) { /* the last words under a mask: no scalar tail */
        __mmask8 m = (__mmask8)((1u << (n - i)) - 1);
        _mm512_mask_storeu_epi64(out + i, m, lanes(_mm512_maskz_loadu_epi64(m, in + i), width));
    }
}
