/* Byte-sliced batch scoring built for avx2 (see score_sliced.h). */
#include "score_sliced.h"
