/* Byte-sliced batch scoring: secrets as one byte array per pin and per color count (stride = number of
 * secrets). One guess is scored against a whole row by row_sliced (AVX-512: 64 secrets per instruction,
 * AVX2: 32); explicit pairs slice both sides and leave the vectorising to the compiler. */
#include "mm_score.h"

#define MM_STREAM_BYTES ((size_t)8 << 20)

void score_cross_sliced(const uint8_t *sp, const uint8_t *scn, size_t ns, const uint32_t *g, const uint8_t *gc,
                        size_t ng, uint8_t *out, int pins, int colors) {
    uint8_t gp[8];
    size_t j = 0;
    /* Non-temporal stores only where the output cannot stay in cache (a 4p6c cross, 1.7 MB, is re-read from L2). */
    int stream = ns * ng >= MM_STREAM_BYTES && ns % 64 == 0 && (uintptr_t)out % 64 == 0;
#ifdef MM_ROWS4
    for (; j + 4 <= ng; j += 4) {
        uint8_t gp4[4][8];
        const uint8_t *gc4[4];
        uint8_t *out4[4];
        for (int q = 0; q < 4; q++) {
            pins_of(g[j + q], pins, gp4[q]);
            gc4[q] = gc + 16 * (j + q);
            out4[q] = out + (j + q) * ns;
        }
        rows4_sliced(sp, scn, ns, (const uint8_t (*)[8])gp4, gc4, pins, colors, out4, stream);
    }
#endif
    for (; j < ng; j++) {
        pins_of(g[j], pins, gp);
        row_sliced(sp, scn, ns, ns, gp, gc + 16 * j, pins, colors, out + j * ns, stream);
    }
#if defined(__AVX2__) || defined(__AVX512BW__)
    if (stream) _mm_sfence(); /* the streamed lines are visible before the caller reads them */
#endif
}

void score_pairs_sliced(const uint8_t *sp, const uint8_t *scn, const uint8_t *gp, const uint8_t *gcn, size_t n,
                        uint8_t *out, int pins, int colors) {
    memset(out, 0, n);
    for (int k = 0; k < pins; k++) {
        const uint8_t *a = sp + k * n, *b = gp + k * n;
        for (size_t i = 0; i < n; i++) out[i] += a[i] == b[i] ? 15 : 0;
    }
    for (int c = 1; c <= colors; c++) {
        const uint8_t *a = scn + c * n, *b = gcn + c * n;
        for (size_t i = 0; i < n; i++) out[i] += a[i] < b[i] ? a[i] : b[i];
    }
}
