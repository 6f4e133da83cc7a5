/* The article's fourth variation: the hand-vectorised SSE2 function (pminub + psadbw, nibble test + popcnt). */
#define SCORE(s, sc, g, gc, pins, colors) score_sse2(s, sc, g, gc, pins)
#include "score_packed.h"
