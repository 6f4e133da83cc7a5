/* The article's first variation: simple loops over pins and colors (no precomputed counts). */
#define SCORE(s, sc, g, gc, pins, colors) score_simple(s, g, pins, colors)
#include "score_packed.h"
