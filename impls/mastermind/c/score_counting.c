/* The article's second variation: precomputed color counts, scalar loops (built without vectorisation). */
#define SCORE(s, sc, g, gc, pins, colors) score_counting(s, sc, g, gc, pins)
#include "score_packed.h"
