/* Knuth's algorithm with the article's hand-vectorised SSE2 scoring (every score computed). */
#define PAIR_SCORE(x, gi, si) score_sse2((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                         (x)->counts + 16 * (gi), pins)
#include "knuth_plain.h"
