/* Knuth's algorithm, the plain search (knuth_plain.h: every score computed) on byte-sliced rows of possible
 * secrets, built for AVX2 or AVX-512. */
#define ROW_BATCH 1
#define FILTER_SCORE(x, gi, si) score_sse2((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                           (x)->counts + 16 * (gi), pins)
#include "knuth_plain.h"
