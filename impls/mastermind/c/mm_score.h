/* Mastermind scoring functions, one per variation of the article, for a P-pin codeword packed
 * one pin per nibble (first pin most significant) and its 16 8-bit color counts (count of color c in byte c).
 * Every function returns the packed score (b << 4) | w. The source file that includes this header picks one. */
#ifndef MM_SCORE_H
#define MM_SCORE_H
#include <stdint.h>
#include <stddef.h>
#include <string.h>

#define MM_INLINE static inline __attribute__((always_inline))

/* 1. Simple loops: split both codewords into pins, compare position by position, then count every color in
 *    both codewords with nested loops and add the smaller counts. */
MM_INLINE uint8_t score_simple(uint32_t s, uint32_t g, int pins, int colors) {
    int sp[8], gp[8], b = 0, all = 0;
    for (int k = 0; k < pins; k++) {
        sp[k] = (s >> (4 * k)) & 15;
        gp[k] = (g >> (4 * k)) & 15;
        b += sp[k] == gp[k];
    }
    for (int c = 1; c <= colors; c++) {
        int in_s = 0, in_g = 0;
        for (int k = 0; k < pins; k++) {
            in_s += sp[k] == c;
            in_g += gp[k] == c;
        }
        all += in_s < in_g ? in_s : in_g;
    }
    return (uint8_t)((b << 4) | (all - b));
}

/* 2. Counting, scalar: color counts are precomputed per codeword; b by a pin loop, all hits by a loop of mins. */
MM_INLINE uint8_t score_counting(uint32_t s, const uint8_t *sc, uint32_t g, const uint8_t *gc, int pins) {
    int b = 0, all = 0;
    for (int k = 0; k < pins; k++) b += ((s >> (4 * k)) & 15) == ((g >> (4 * k)) & 15);
    for (int c = 1; c < 16; c++) all += sc[c] < gc[c] ? sc[c] : gc[c];
    return (uint8_t)((b << 4) | (all - b));
}

/* b in constant time: one bit per zero nibble of s ^ g (unused nibbles forced non-zero), counted. */
MM_INLINE int black_nibbles(uint32_t s, uint32_t g, int pins) {
    uint32_t v = s ^ g;
    v |= pins >= 8 ? 0u : (uint32_t)(0xFFFFFFFFu << (4 * pins));
    uint32_t r = ~((((v & 0x77777777u) + 0x77777777u) | v) | 0x77777777u);
    return __builtin_popcount(r);
}

/* 3. Counting, written for the auto-vectoriser: a fixed 16-wide branch-free min and sum the compiler turns
 *    into byte-vector instructions, with b by the nibble test. */
MM_INLINE uint8_t score_autovec(uint32_t s, const uint8_t *sc, uint32_t g, const uint8_t *gc, int pins) {
    uint8_t all = 0; /* at most 8: a byte-wide sum lets the compiler keep the 16 counts in one vector */
    for (int c = 0; c < 16; c++) all += sc[c] < gc[c] ? sc[c] : gc[c];
    int b = black_nibbles(s, g, pins);
    return (uint8_t)((b << 4) | (all - b));
}

#ifdef __SSE2__
#include <emmintrin.h>
/* 4. Counting, hand-vectorised SSE2 (the article's final function): b by the nibble test and popcount, all hits
 *    by pminub over the 16 byte counts and psadbw to add them up. */
MM_INLINE uint8_t score_sse2(uint32_t s, const uint8_t *sc, uint32_t g, const uint8_t *gc, int pins) {
    int b = black_nibbles(s, g, pins);
    __m128i a = _mm_loadu_si128((const __m128i *)sc);
    __m128i c = _mm_loadu_si128((const __m128i *)gc);
    __m128i sum = _mm_sad_epu8(_mm_min_epu8(a, c), _mm_setzero_si128());
    int all = _mm_extract_epi16(sum, 0) + _mm_extract_epi16(sum, 4);
    return (uint8_t)((b << 4) | (all - b));
}
#endif

/* Byte-sliced rows (ours): pin k of n secrets in sp[k * stride + i], count of color c in scn[c * stride + i].
 * score = 15 b + all hits (= (b << 4) | (all - b)), summed byte-wise over 64 (AVX-512) or 32 (AVX2) secrets
 * per instruction for one guess given by its pins gp[] and counts gc[]; colors the guess lacks add nothing.
 * With stream set (out vector-aligned, the output far larger than the caches) whole vectors go out by
 * non-temporal stores: a line written without being read first halves the memory traffic of a 1 GiB output. */
MM_INLINE void row_sliced_c(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t lo, size_t hi,
                            const uint8_t *gp, const uint8_t *gc, int pins, int colors, uint8_t *out) {
    for (size_t i = lo; i < hi; i++) {
        uint8_t acc = 0;
        for (int k = 0; k < pins; k++) acc += sp[k * stride + i] == gp[k] ? 15 : 0;
        for (int c = 1; c <= colors; c++) {
            uint8_t x = scn[c * stride + i];
            acc += x < gc[c] ? x : gc[c];
        }
        out[i] = acc;
    }
}

#if defined(__AVX512BW__)
#include <immintrin.h>
/* One block of up to 64 secrets starting at i (mask selects the lanes that exist). */
MM_INLINE __m512i block512(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t i, __mmask64 m,
                           const __m512i *vp, int pins, const __m512i *vc, const int *used, int nu) {
    const __m512i fifteen = _mm512_set1_epi8(15);
    __m512i acc = _mm512_setzero_si512();
    for (int k = 0; k < pins; k++) {
        __mmask64 eq = _mm512_mask_cmpeq_epi8_mask(m, _mm512_maskz_loadu_epi8(m, sp + k * stride + i), vp[k]);
        acc = _mm512_mask_add_epi8(acc, eq, acc, fifteen);
    }
    for (int u = 0; u < nu; u++)
        acc = _mm512_add_epi8(acc, _mm512_min_epu8(_mm512_maskz_loadu_epi8(m, scn + used[u] * stride + i), vc[u]));
    return acc;
}

MM_INLINE void row_sliced(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t n,
                          const uint8_t *gp, const uint8_t *gc, int pins, int colors, uint8_t *out, int stream) {
    __m512i vp[8], vc[16];
    int used[16], nu = 0;
    for (int k = 0; k < pins; k++) vp[k] = _mm512_set1_epi8((char)gp[k]);
    for (int c = 1; c <= colors; c++)
        if (gc[c]) { vc[nu] = _mm512_set1_epi8((char)gc[c]); used[nu++] = c; }
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i acc = block512(sp, scn, stride, i, ~(__mmask64)0, vp, pins, vc, used, nu);
        if (stream)
            _mm512_stream_si512((__m512i *)(out + i), acc);
        else
            _mm512_storeu_si512(out + i, acc);
    }
    if (i < n) {
        __mmask64 m = ~0ull >> (64 - (n - i));
        _mm512_mask_storeu_epi8(out + i, m, block512(sp, scn, stride, i, m, vp, pins, vc, used, nu));
    }
}

/* Four guesses against the same secrets at once: every secret byte loaded once serves four rows (stream: as
 * row_sliced). Only the colors one of the four guesses has are visited (the others add min(x, 0) = 0 to every
 * row): consecutive guesses of the canonical order share most pins, so four of them seldom hold every color. */
#define MM_ROWS4 1
MM_INLINE void rows4_sliced(const uint8_t *sp, const uint8_t *scn, size_t n, const uint8_t (*gp)[8],
                            const uint8_t *const *gc, int pins, int colors, uint8_t *const *out, int stream) {
    __m512i vp[4][8], vc[4][16];
    int used[16], nu = 0;
    for (int c = 1; c <= colors; c++)
        if (gc[0][c] | gc[1][c] | gc[2][c] | gc[3][c]) used[nu++] = c;
    for (int j = 0; j < 4; j++) {
        for (int k = 0; k < pins; k++) vp[j][k] = _mm512_set1_epi8((char)gp[j][k]);
        for (int u = 0; u < nu; u++) vc[j][u] = _mm512_set1_epi8((char)gc[j][used[u]]);
    }
    const __m512i fifteen = _mm512_set1_epi8(15);
    for (size_t i = 0; i < n; i += 64) {
        __mmask64 m = n - i >= 64 ? ~0ull : ~0ull >> (64 - (n - i));
        __m512i acc0 = _mm512_setzero_si512(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        for (int k = 0; k < pins; k++) {
            __m512i x = _mm512_maskz_loadu_epi8(m, sp + k * n + i);
            acc0 = _mm512_mask_add_epi8(acc0, _mm512_cmpeq_epi8_mask(x, vp[0][k]), acc0, fifteen);
            acc1 = _mm512_mask_add_epi8(acc1, _mm512_cmpeq_epi8_mask(x, vp[1][k]), acc1, fifteen);
            acc2 = _mm512_mask_add_epi8(acc2, _mm512_cmpeq_epi8_mask(x, vp[2][k]), acc2, fifteen);
            acc3 = _mm512_mask_add_epi8(acc3, _mm512_cmpeq_epi8_mask(x, vp[3][k]), acc3, fifteen);
        }
        for (int u = 0; u < nu; u++) {
            __m512i x = _mm512_maskz_loadu_epi8(m, scn + used[u] * n + i);
            acc0 = _mm512_add_epi8(acc0, _mm512_min_epu8(x, vc[0][u]));
            acc1 = _mm512_add_epi8(acc1, _mm512_min_epu8(x, vc[1][u]));
            acc2 = _mm512_add_epi8(acc2, _mm512_min_epu8(x, vc[2][u]));
            acc3 = _mm512_add_epi8(acc3, _mm512_min_epu8(x, vc[3][u]));
        }
        if (stream && m == ~0ull) {
            _mm512_stream_si512((__m512i *)(out[0] + i), acc0);
            _mm512_stream_si512((__m512i *)(out[1] + i), acc1);
            _mm512_stream_si512((__m512i *)(out[2] + i), acc2);
            _mm512_stream_si512((__m512i *)(out[3] + i), acc3);
            continue;
        }
        _mm512_mask_storeu_epi8(out[0] + i, m, acc0);
        _mm512_mask_storeu_epi8(out[1] + i, m, acc1);
        _mm512_mask_storeu_epi8(out[2] + i, m, acc2);
        _mm512_mask_storeu_epi8(out[3] + i, m, acc3);
    }
}
#elif defined(__AVX2__)
#include <immintrin.h>
MM_INLINE void row_sliced(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t n,
                          const uint8_t *gp, const uint8_t *gc, int pins, int colors, uint8_t *out, int stream) {
    __m256i vp[8], vc[16];
    int used[16], nu = 0;
    for (int k = 0; k < pins; k++) vp[k] = _mm256_set1_epi8((char)gp[k]);
    for (int c = 1; c <= colors; c++)
        if (gc[c]) { vc[nu] = _mm256_set1_epi8((char)gc[c]); used[nu++] = c; }
    const __m256i fifteen = _mm256_set1_epi8(15);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i acc = _mm256_setzero_si256();
        for (int k = 0; k < pins; k++) {
            __m256i eq = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(sp + k * stride + i)), vp[k]);
            acc = _mm256_add_epi8(acc, _mm256_and_si256(eq, fifteen));
        }
        for (int u = 0; u < nu; u++)
            acc = _mm256_add_epi8(acc, _mm256_min_epu8(
                _mm256_loadu_si256((const __m256i *)(scn + used[u] * stride + i)), vc[u]));
        if (stream)
            _mm256_stream_si256((__m256i *)(out + i), acc);
        else
            _mm256_storeu_si256((__m256i *)(out + i), acc);
    }
    row_sliced_c(sp, scn, stride, i, n, gp, gc, pins, colors, out);
}
#else
MM_INLINE void row_sliced(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t n,
                          const uint8_t *gp, const uint8_t *gc, int pins, int colors, uint8_t *out, int stream) {
    (void)stream;
    row_sliced_c(sp, scn, stride, 0, n, gp, gc, pins, colors, out);
}
#endif

/* Whole-vector primitives for Knuth's search over byte-sliced secrets padded to a multiple of 64 (padding
 * bytes are 0: no pin matches, no color count, so a padded lane scores 0 and is subtracted afterwards). */
#if defined(__AVX512BW__)
typedef __m512i mmv;
#define MMV_BYTES 64
MM_INLINE mmv mmv_set1(int x) { return _mm512_set1_epi8((char)x); }
MM_INLINE mmv mmv_load(const uint8_t *p) { return _mm512_load_si512(p); }
MM_INLINE void mmv_store(uint8_t *p, mmv a) { _mm512_store_si512(p, a); }
MM_INLINE mmv mmv_add(mmv a, mmv b) { return _mm512_add_epi8(a, b); }
MM_INLINE mmv mmv_score(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t i, const mmv *vp, int pins,
                        const mmv *vc, const int *used, int nu) {
    const __m512i fifteen = _mm512_set1_epi8(15);
    __m512i acc = _mm512_setzero_si512();
    for (int k = 0; k < pins; k++)
        acc = _mm512_mask_add_epi8(acc, _mm512_cmpeq_epi8_mask(_mm512_load_si512(sp + k * stride + i), vp[k]),
                                   acc, fifteen);
    for (int u = 0; u < nu; u++)
        acc = _mm512_add_epi8(acc, _mm512_min_epu8(_mm512_load_si512(scn + used[u] * stride + i), vc[u]));
    return acc;
}
MM_INLINE int mmv_count_eq(mmv a, mmv b) { return __builtin_popcountll(_mm512_cmpeq_epi8_mask(a, b)); }
/* How many bytes of a[0..n) equal b. */
MM_INLINE int mmv_count_eq_n(const mmv *a, int n, mmv b) {
    int count = 0;
    for (int j = 0; j < n; j++) count += mmv_count_eq(a[j], b);
    return count;
}
/* How many bytes of a[0..n) equal each of b[0..4), 16 bits each from the low end (n < 1024). */
MM_INLINE uint64_t mmv_count_eq4_n(const mmv *a, int n, const mmv *b) {
    uint64_t count = 0;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < 4; k++)
            count += (uint64_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(a[j], b[k])) << (16 * k);
    return count;
}
/* The same score pin by pin: 15 where the secret's pin k is color[k], and 1 where the secret holds more than
 * before[k] of that color (before[k]: how often color[k] occurs in the guess's earlier pins), so every hit counts
 * once. No loop over colors: what a guess costs depends on its pins alone. */
MM_INLINE mmv mmv_score_pins(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t i, const uint8_t *color,
                             const uint8_t *before, const mmv *bytes, int pins) {
    const __m512i fifteen = _mm512_set1_epi8(15), one = _mm512_set1_epi8(1);
    __m512i acc = _mm512_setzero_si512();
    for (int k = 0; k < pins; k++) {
        acc = _mm512_mask_add_epi8(acc, _mm512_cmpeq_epi8_mask(_mm512_load_si512(sp + k * stride + i),
                                                               bytes[color[k]]), acc, fifteen);
        acc = _mm512_mask_add_epi8(acc, _mm512_cmpgt_epu8_mask(_mm512_load_si512(scn + color[k] * stride + i),
                                                               bytes[before[k]]), acc, one);
    }
    return acc;
}
#elif defined(__AVX2__)
typedef __m256i mmv;
#define MMV_BYTES 32
MM_INLINE mmv mmv_set1(int x) { return _mm256_set1_epi8((char)x); }
MM_INLINE mmv mmv_load(const uint8_t *p) { return _mm256_load_si256((const __m256i *)p); }
MM_INLINE void mmv_store(uint8_t *p, mmv a) { _mm256_store_si256((__m256i *)p, a); }
MM_INLINE mmv mmv_add(mmv a, mmv b) { return _mm256_add_epi8(a, b); }
MM_INLINE mmv mmv_score(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t i, const mmv *vp, int pins,
                        const mmv *vc, const int *used, int nu) {
    const __m256i fifteen = _mm256_set1_epi8(15);
    __m256i acc = _mm256_setzero_si256();
    for (int k = 0; k < pins; k++)
        acc = _mm256_add_epi8(acc, _mm256_and_si256(fifteen, _mm256_cmpeq_epi8(
            _mm256_load_si256((const __m256i *)(sp + k * stride + i)), vp[k])));
    for (int u = 0; u < nu; u++)
        acc = _mm256_add_epi8(acc, _mm256_min_epu8(_mm256_load_si256((const __m256i *)(scn + used[u] * stride + i)),
                                                   vc[u]));
    return acc;
}
MM_INLINE int mmv_count_eq(mmv a, mmv b) {
    return __builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, b)));
}
/* How many bytes of a[0..n) equal b (n < 256): counted per byte lane, then summed once. */
MM_INLINE int mmv_count_eq_n(const mmv *a, int n, mmv b) {
    __m256i per_lane = _mm256_setzero_si256();
    for (int j = 0; j < n; j++) per_lane = _mm256_sub_epi8(per_lane, _mm256_cmpeq_epi8(a[j], b));
    __m256i sums = _mm256_sad_epu8(per_lane, _mm256_setzero_si256());
    __m128i half = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    return (int)(_mm_cvtsi128_si64(half) + _mm_extract_epi64(half, 1));
}
/* How many bytes of a[0..n) equal each of b[0..4), 16 bits each from the low end (n < 256: no count overflows
 * its lane's byte): the four counts share each load and one sum. */
MM_INLINE uint64_t mmv_count_eq4_n(const mmv *a, int n, const mmv *b) {
    const __m256i zero = _mm256_setzero_si256(), b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    __m256i l0 = zero, l1 = zero, l2 = zero, l3 = zero;
    for (int j = 0; j < n; j++) {
        const __m256i v = a[j];
        l0 = _mm256_sub_epi8(l0, _mm256_cmpeq_epi8(v, b0));
        l1 = _mm256_sub_epi8(l1, _mm256_cmpeq_epi8(v, b1));
        l2 = _mm256_sub_epi8(l2, _mm256_cmpeq_epi8(v, b2));
        l3 = _mm256_sub_epi8(l3, _mm256_cmpeq_epi8(v, b3));
    }
    const __m256i sums = _mm256_or_si256(
        _mm256_or_si256(_mm256_sad_epu8(l0, zero), _mm256_slli_epi64(_mm256_sad_epu8(l1, zero), 16)),
        _mm256_or_si256(_mm256_slli_epi64(_mm256_sad_epu8(l2, zero), 32),
                        _mm256_slli_epi64(_mm256_sad_epu8(l3, zero), 48)));
    const __m128i half = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    return (uint64_t)(_mm_cvtsi128_si64(half) + _mm_extract_epi64(half, 1));
}
/* The same score pin by pin (see the AVX-512 version); counts are at most 8, so the signed compare is exact. The
 * black pegs and all pegs are counted apart (a compare's -1 subtracted), then combined once as 16 * black + white:
 * two operations a pin fewer than masking each compare to its weight. */
MM_INLINE mmv mmv_score_pins(const uint8_t *sp, const uint8_t *scn, size_t stride, size_t i, const uint8_t *color,
                             const uint8_t *before, const mmv *bytes, int pins) {
    __m256i blacks = _mm256_setzero_si256(), pegs = _mm256_setzero_si256();
    for (int k = 0; k < pins; k++) {
        blacks = _mm256_sub_epi8(blacks, _mm256_cmpeq_epi8(_mm256_load_si256((const __m256i *)(sp + k * stride + i)),
                                                           bytes[color[k]]));
        pegs = _mm256_sub_epi8(pegs, _mm256_cmpgt_epi8(_mm256_load_si256((const __m256i *)(scn + color[k] * stride + i)),
                                                       bytes[before[k]]));
    }
    /* blacks <= 8, so shifting 16-bit lanes by 4 carries nothing into the next byte */
    return _mm256_add_epi8(_mm256_sub_epi8(_mm256_slli_epi16(blacks, 4), blacks), pegs);
}
#endif

/* The pins of a codeword as bytes, first pin first (the sliced layout's order). */
MM_INLINE void pins_of(uint32_t code, int pins, uint8_t *gp) {
    for (int k = 0; k < pins; k++) gp[k] = (code >> (4 * (pins - 1 - k))) & 15;
}
#endif
