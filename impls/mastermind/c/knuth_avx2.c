/* Knuth's algorithm scoring byte-sliced rows of possible secrets, built for avx2, with every exact shortcut of
 * knuth_core.h's PRUNE (hopeless candidates dropped, interchangeable colors, symmetric codewords and guesses that
 * score alike tried once, the possible secrets tried first). Even a few possible secrets are scored as one vector,
 * which costs less than scoring them one by one. */
#define ROW_BATCH 1
#define PRUNE 1
#define FILTER_SCORE(x, gi, si) score_sse2((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                           (x)->counts + 16 * (gi), pins)
#include "knuth_core.h"
