/* Knuth's algorithm scoring byte-sliced rows of possible secrets, built for avx512, a candidate dropped as soon
 * as its largest part shows it cannot beat the best so far, only the lowest codeword of each class of
 * interchangeable colors tried, and the possible secrets tried first (see knuth_core.h). */
#define ROW_BATCH 1
#define PRUNE 1
#define FILTER_SCORE(x, gi, si) score_sse2((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                           (x)->counts + 16 * (gi), pins)
#include "knuth_core.h"
