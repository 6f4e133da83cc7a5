/* The article's third variation: the counting loop written for the compiler to vectorise. */
#define SCORE(s, sc, g, gc, pins, colors) score_autovec(s, sc, g, gc, pins)
#include "score_packed.h"
