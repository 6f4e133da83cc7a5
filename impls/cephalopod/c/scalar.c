/* The write-up's scalar steps: which ones is chosen at build time with -DMOVES_LUT, -DSYMMETRY,
 * -DDIRECT_SUM (see search.h). Built with -fno-tree-vectorize so the eight-way loops stay scalar. */
#ifndef MOVES_LUT
#define MOVES_LUT 0
#endif
#ifndef SYMMETRY
#define SYMMETRY 0
#endif
#ifndef DIRECT_SUM
#define DIRECT_SUM 0
#endif
#define PREFETCH 0
#include "search.h"

#if SYMMETRY
/* The smallest of the eight forms of s; *j is the symmetry taking that canonical board back to s. */
static inline uint32_t canonical(const ceph_tables *T, uint32_t s, int *j)
{
    const uint32_t *a = T->xform + (s & 511) * 8;
    const uint32_t *b = T->xform + 4096 + ((s >> 9) & 511) * 8;
    const uint32_t *c = T->xform + 8192 + ((s >> 18) & 511) * 8;
    uint32_t best = a[0] | b[0] | c[0];
    int k = 0;
    for (int q = 1; q < 8; q++) {
        uint32_t f = a[q] | b[q] | c[q];
        if (f < best) { best = f; k = q; }
    }
    *j = T->inverse[k];
    return best | (s & ~((1u << ZERO_SHIFT) - 1));
}

static inline void add_counts(uint32_t *dst, const uint32_t *src, int j, const ceph_tables *T)
{
    const int32_t *g = T->gather + 8 * j;
    for (int to = 0; to < 8; to++) dst[to] += src[g[to]];
}

/* sum over the eight orientations of count * hash; arithmetic modulo 2^32 is exact modulo 2^30 */
static inline uint64_t sum_forms(const ceph_tables *T, uint32_t s, const uint32_t *c)
{
    const uint32_t *a = T->hash8 + (s & 511) * 8;
    const uint32_t *b = T->hash8 + 4096 + ((s >> 9) & 511) * 8;
    const uint32_t *d = T->hash8 + 8192 + ((s >> 18) & 511) * 8;
    uint32_t sum = 0;
    for (int k = 0; k < 8; k++) sum += c[k] * (a[k] + b[k] + d[k]);
    return sum & MASK30;
}
#endif
