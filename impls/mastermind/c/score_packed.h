/* Batch drivers for a scalar scoring function SCORE(s, sc, g, gc, pins, colors) defined by the including file:
 * explicit pairs, and every guess against every secret. The pin count is dispatched to a constant so the
 * compiler specialises the scoring function the way the article's template parameter did. */
#include "mm_score.h"

MM_INLINE void pairs_p(const uint32_t *s, const uint8_t *sc, const uint32_t *g, const uint8_t *gc, uint8_t *out,
                       size_t n, int pins, int colors) {
    for (size_t i = 0; i < n; i++) out[i] = SCORE(s[i], sc + 16 * i, g[i], gc + 16 * i, pins, colors);
}

MM_INLINE void cross_p(const uint32_t *s, const uint8_t *sc, size_t ns, const uint32_t *g, const uint8_t *gc,
                       size_t ng, uint8_t *out, int pins, int colors) {
    for (size_t j = 0; j < ng; j++) {
        uint8_t *row = out + j * ns;
        for (size_t i = 0; i < ns; i++) row[i] = SCORE(s[i], sc + 16 * i, g[j], gc + 16 * j, pins, colors);
    }
}

#define MM_DISPATCH(call) switch (pins) { \
    case 2: call(2); break; case 3: call(3); break; case 4: call(4); break; case 5: call(5); break; \
    case 6: call(6); break; case 7: call(7); break; default: call(8); break; }

void score_pairs(const uint32_t *s, const uint8_t *sc, const uint32_t *g, const uint8_t *gc, uint8_t *out,
                 size_t n, int pins, int colors) {
#define MM_PAIRS(P) pairs_p(s, sc, g, gc, out, n, P, colors)
    MM_DISPATCH(MM_PAIRS)
}

void score_cross(const uint32_t *s, const uint8_t *sc, size_t ns, const uint32_t *g, const uint8_t *gc,
                 size_t ng, uint8_t *out, int pins, int colors) {
#define MM_CROSS(P) cross_p(s, sc, ns, g, gc, ng, out, P, colors)
    MM_DISPATCH(MM_CROSS)
}
