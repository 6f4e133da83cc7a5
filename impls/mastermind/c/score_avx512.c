/* Byte-sliced batch scoring built for avx512 (see score_sliced.h). */
#include "score_sliced.h"
