/* A strategy's rank of a split from the sizes of its parts, higher is better, in the arithmetic spec.py names:
 * - Knuth: |possible| minus the largest part; Most Parts: the number of parts (integers in every arithmetic);
 * - exact: Expected Size minus the sum of s*s; Entropy has no integer rank (knuth_exact.h compares it exactly);
 * - cpu-float and cuda-fast-math: the mikemag/Mastermind project's float sum over the parts in ascending score order
 *   and its uint32 key (Expected Size round(1e6 sum) negated, Entropy round(1e9 sum)), as spec.py describes them.
 * Built with -ffp-contract=off: no operation but the explicit fmaf is fused. */
#ifndef KNUTH_RANK_H
#define KNUTH_RANK_H
#include "gpu_sfu.h"
#include "knuth_game.h"

enum { EXACT, CPU_FLOAT, CUDA_FAST_MATH };

/* The float terms of a search of np secrets, a and b per part size s = 0..np: cpu-float Expected Size adds a[s] =
 * s*s/np; cuda-fast-math Expected Size adds fmaf(a[s] = s*s, b[s] = r, acc), r the GPU's reciprocal of np;
 * cpu-float Entropy subtracts a[s] = p * logf(p), p = s/np; cuda-fast-math Entropy adds fmaf(a[s] = -p, b[s] =
 * log p, acc) with p = s * r and log p the GPU's log2 of p times ln 2 in float (sfu: the unit's tables, gpu_sfu.h).
 * NULL where the arithmetic needs none. */
typedef struct { float *a, *b; } mm_terms;

static int make_terms(mm_terms *t, int strategy, int arithmetic, int np, const int32_t (*sfu)[3]) {
    t->a = t->b = NULL;
    if (strategy < EXPECTED_SIZE || arithmetic == EXACT) return 0;
    if (arithmetic == CUDA_FAST_MATH && !sfu) return -1;  /* no tables: it cannot be computed */
    t->a = malloc(sizeof(float) * (np + 1));
    t->b = malloc(sizeof(float) * (np + 1));
    if (!t->a || !t->b) { free(t->a); free(t->b); t->a = t->b = NULL; return -1; }
    const float n = (float)np, r = arithmetic == CUDA_FAST_MATH ? sfu_rcp(sfu, n) : 1.0f / n, ln2 = 0.693147182f;
    for (int s = 0; s <= np; s++) {
        const float f = (float)s;
        if (strategy == EXPECTED_SIZE) {
            t->a[s] = arithmetic == CPU_FLOAT ? (f * f) / n : f * f;
            t->b[s] = r;
        } else if (arithmetic == CPU_FLOAT) {
            const float p = f / n;
            t->a[s] = s ? p * logf(p) : 0.0f;
            t->b[s] = 0.0f;
        } else {
            const float p = f * r;
            t->a[s] = -p;
            t->b[s] = s ? sfu_lg2(sfu, p) * ln2 : 0.0f;
        }
    }
    return 0;
}

static void free_terms(mm_terms *t) { free(t->a); free(t->b); }

/* C's round() of a float sum times scale, as the project's uint32 key: saturated at 2^32 - 1 as the GPU converts
 * (cpu-float saturates too, where x86 would wrap a key past it: only games above 8,192 codewords get there, and
 * saturation keeps the keys in the order of their sums). */
MM_INLINE int64_t u32_key(float sum, double scale) {
    const double k = floor((double)sum * scale + 0.5);
    return k <= 0 ? 0 : k >= 4294967295.0 ? 4294967295 : (int64_t)k;
}

/* The largest key an Expected Size split can have short of saturation: its rank is 2^32 - key (see rank_of_parts) */
#define SATURATED_RANK 1

/* A split's rank from the sizes of the parts that occur, in ascending score order, and the largest. */
MM_INLINE int64_t rank_of_parts(int strategy, int arithmetic, const int *size, int parts, int largest, int np,
                                const mm_terms *t) {
    float sum = 0;
    int64_t total = 0;
    switch (strategy) {
    case KNUTH:
        return np - largest;
    case MOST_PARTS:
        return parts;
    case EXPECTED_SIZE:
        if (arithmetic == EXACT) {
            for (int p = 0; p < parts; p++) total += (int64_t)size[p] * size[p];
            return -total;
        }
        if (arithmetic == CPU_FLOAT)
            for (int p = 0; p < parts; p++) sum += t->a[size[p]];
        else
            for (int p = 0; p < parts; p++) sum = fmaf(t->a[size[p]], t->b[size[p]], sum);
        return 4294967296ll - u32_key(sum, 1e6);  /* the key negated as a uint32 */
    default:  /* Entropy, in a float arithmetic (exact: knuth_exact.h) */
        if (arithmetic == CPU_FLOAT)
            for (int p = 0; p < parts; p++) sum -= t->a[size[p]];
        else
            for (int p = 0; p < parts; p++) sum = fmaf(t->a[size[p]], t->b[size[p]], sum);
        return u32_key(sum, 1e9);
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
#endif
