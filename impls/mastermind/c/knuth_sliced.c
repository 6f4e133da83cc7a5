/* Knuth's algorithm, the pruned search (knuth_pruned.h) on byte-sliced rows of possible secrets, built for AVX2 or
 * AVX-512 (the vector width comes from the build's instruction set, see mm_score.h). */
#define FILTER_SCORE(x, gi, si) score_sse2((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                           (x)->counts + 16 * (gi), pins)
#include "knuth_pruned.h"
