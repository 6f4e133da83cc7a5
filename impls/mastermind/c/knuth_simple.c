/* Knuth's algorithm with the article's simple-loops scoring (every score computed). */
#define PAIR_SCORE(x, gi, si) score_simple((x)->codes[si], (x)->codes[gi], pins, (x)->colors)
#include "knuth_plain.h"
