/* A strategy's rank of a split from the sizes of its parts: Knuth: |possible| minus the largest part; Most Parts:
 * the number of parts; Expected Size: -round(1e6 * sum of s*s/n) and Entropy: round(1e9 * sum of -p ln p), each
 * summed as the mikemag/Mastermind project sums it (a float, the parts in ascending score order; see spec.py). */
#ifndef KNUTH_RANK_H
#define KNUTH_RANK_H
#include "knuth_game.h"

/* The term a part of size s adds (s = 0..np): float s*s/n (Expected Size), double p ln p of the float p = s/n
 * (Entropy, subtracted), as the project's float accumulator and its unqualified log of a float compute them. */
static void *make_terms(int strategy, int np) {
    if (strategy == EXPECTED_SIZE) {
        float *t = malloc(sizeof(float) * (np + 1));
        if (t) for (int s = 0; s <= np; s++) t[s] = ((float)s * (float)s) / (float)np;
        return t;
    }
    if (strategy == ENTROPY) {
        double *t = malloc(sizeof(double) * (np + 1));
        if (t) {
            t[0] = 0;
            for (int s = 1; s <= np; s++) { float p = (float)s / (float)np; t[s] = (double)p * log((double)p); }
        }
        return t;
    }
    return NULL;
}

/* A split's rank from the sizes of the parts that occur, in ascending score order, and the largest: Expected Size
 * and Entropy summed as the mikemag/Mastermind project sums them (a float, in that order; see spec.py). */
MM_INLINE int64_t rank_of_parts(int strategy, const int *size, int parts, int largest, int np, const void *terms) {
    float sum = 0;
    switch (strategy) {
    case KNUTH:
        return np - largest;
    case MOST_PARTS:
        return parts;
    case EXPECTED_SIZE:
        for (int p = 0; p < parts; p++) sum += ((const float *)terms)[size[p]];
        return -(int64_t)floor((double)sum * 1e6 + 0.5);
    default:
        for (int p = 0; p < parts; p++) sum = (float)((double)sum - ((const double *)terms)[size[p]]);
        return (int64_t)floor((double)sum * 1e9 + 0.5);
    }
}

/* The sizes of the parts that occur, in score order, without a branch on whether a part is empty; returns how
 * many. Where measure is given, *q is the sum of its terms over them (see make_measure). */
MM_INLINE int parts_of(const int *valid, int nvalid, const int *cnt, int *size, int *largest, const int64_t *measure,
                       int64_t *q) {
    int parts = 0;
    *largest = 0;
    for (int v = 0; v < nvalid; v++) {
        int c = cnt[valid[v]];
        *largest = c > *largest ? c : *largest;
        size[parts] = c;
        parts += c > 0;
        if (measure) *q += measure[c];
    }
    return parts;
}

/* The rank of the split whose part of score byte b is cnt[b]. */
MM_INLINE int64_t rank_of(int strategy, const int *valid, int nvalid, const int *cnt, int np, const void *terms) {
    int size[48], largest, parts = parts_of(valid, nvalid, cnt, size, &largest, NULL, NULL);
    return rank_of_parts(strategy, size, parts, largest, np, terms);
}
#endif
