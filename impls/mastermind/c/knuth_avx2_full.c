/* Knuth's algorithm scoring byte-sliced rows of possible secrets, built for avx2 (every score computed). */
#define ROW_BATCH 1
#define FILTER_SCORE(x, gi, si) score_sse2((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                           (x)->counts + 16 * (gi), pins)
#include "knuth_core.h"
