/* Knuth's algorithm with the article's counting scoring written for the auto-vectoriser (every score computed). */
#define PAIR_SCORE(x, gi, si) score_autovec((x)->codes[si], (x)->counts + 16 * (si), (x)->codes[gi], \
                                            (x)->counts + 16 * (gi), pins)
#include "knuth_plain.h"
