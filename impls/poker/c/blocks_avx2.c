/* Lane popcounts with AVX2, four words per ymm register. AVX2 has no popcount instruction, so bytes are
 * counted by table lookup: VPSHUFB looks up a 16-entry table of nibble counts (one copy per 128-bit half) for
 * the low and for the high nibble of every byte. 4-bit lanes are those two lookups side by side, 8-bit lanes
 * their sum; wider lanes add byte counts up (VPSADBW against zero for 64-bit lanes, a shift-add per step for 16
 * and 32). 2-bit lanes take the first SWAR step: a table has nothing to add there. The last words of a batch go
 * through the same path under a VPMASKMOVQ mask. */
#include <immintrin.h>
#include <stdint.h>
#include <stddef.h>

static inline __attribute__((always_inline)) __m256i lanes(__m256i v, int width) {
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                           0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i lo4 = _mm256_set1_epi8(0x0F);
    if (width == 2)
        return _mm256_sub_epi64(v, _mm256_and_si256(_mm256_srli_epi64(v, 1), _mm256_set1_epi8(0x55)));
    __m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(v, lo4));
    __m256i hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(v, 4), lo4));
    if (width == 4) /* counts are at most 4: shifting 16-bit lanes by 4 keeps each in its own byte */
        return _mm256_or_si256(lo, _mm256_slli_epi16(hi, 4));
    __m256i bytes = _mm256_add_epi8(lo, hi);
    if (width == 8) return bytes;
    if (width == 64) return _mm256_sad_epu8(bytes, _mm256_setzero_si256());
    __m256i w16 = _mm256_add_epi16(_mm256_and_si256(bytes, _mm256_set1_epi16(0x00FF)), _mm256_srli_epi16(bytes, 8));
    if (width == 16) return w16;
    return _mm256_add_epi32(_mm256_and_si256(w16, _mm256_set1_epi32(0xFFFF)), _mm256_srli_epi32(w16, 16));
}

static inline __attribute__((always_inline)) void run(const uint64_t *in, uint64_t *out, size_t n, int width) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        _mm256_storeu_si256((__m256i *)(out + i), lanes(_mm256_loadu_si256((const __m256i *)(in + i)), width));
    if (i < n) { /* one to three words left: lanes j < n - i under the mask */
        const __m256i index = _mm256_setr_epi64x(0, 1, 2, 3);
        __m256i mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x((long long)(n - i)), index);
        __m256i v = _mm256_maskload_epi64((const long long *)(in + i), mask);
        _mm256_maskstore_epi64((long long *)(out + i), mask, lanes(v, width));
    }
}

void popcount_avx2(const uint64_t *in, uint64_t *out, size_t n, int width) {
    switch (width) { /* one loop per width, each compiled with its steps fixed */
    case 2: run(in, out, n, 2); break;
    case 4: run(in, out, n, 4); break;
    case 8: run(in, out, n, 8); break;
    case 16: run(in, out, n, 16); break;
    case 32: run(in, out, n, 32); break;
    default: run(in, out, n, 64); break;
    }
}
