/* The plain search: every codeword not yet played is scored against every possible secret and ranked, as the
 * article's Knuth player does, in any arithmetic (knuth_rank.h, knuth_exact.h). The including file picks the scoring: PAIR_SCORE(x, guess_index, secret_index)
 * (the article's scalar variations, one score at a time), or ROW_BATCH (byte-sliced rows of possible secrets, 64 or
 * 32 scored per instruction). No shortcut: the pruned search (knuth_pruned.h) is checked against this one. */
#ifndef KNUTH_PLAIN_H
#define KNUTH_PLAIN_H
#include "knuth_game.h"
#include "knuth_rank.h"
#include "knuth_exact.h"

#ifndef FILTER_SCORE
#define FILTER_SCORE PAIR_SCORE
#endif

struct mm_ctx {
    MM_GAME_FIELDS
    uint8_t *played, *inposs; /* per thread: n flags each, set during one search */
};

static int ctx_alloc(mm_ctx *x) {
    x->played = calloc(x->n, 1);
    x->inposs = calloc(x->n, 1);
    return x->played && x->inposs ? 0 : -1;
}

static int ctx_init(mm_ctx *x, int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n,
                    int strategy, int arithmetic, const int32_t (*sfu)[3], int64_t *status) {
    game_init(x, pins, colors, codes, counts, n, strategy, arithmetic, sfu, status);
    return ctx_alloc(x);
}

static void ctx_free(mm_ctx *x) { free(x->played); free(x->inposs); }
static void proto_free(mm_ctx *x) { ctx_free(x); }

/* The next guess for the possible secrets poss[0..np), or -1 when stopped or out of memory. */
static int choose(mm_ctx *x, const int *poss, int np) {
    if (np == 1) return poss[0];
    const int pins = KNUTH_PINS;
    int cnt[129], best = -1;
    int64_t best_key = INT64_MIN;
    /* exact Entropy: the best's parts, for entropy_order */
    const int exact_entropy = x->strategy == ENTROPY && x->arithmetic == EXACT;
    int best_size[48], best_parts = 0, best_poss = 0;
    double best_d = 0;
    mm_terms terms;
    if (make_terms(&terms, x->strategy, x->arithmetic, np, x->sfu)) return -1;
#ifdef ROW_BATCH
    /* The possible secrets byte-sliced, padded with zero lanes to a multiple of 64, 64-byte aligned: a padded lane
     * scores 0 and comes off the count of score 0. */
    const int stride = (np + 63) & ~63, lanes = (np + MMV_BYTES - 1) / MMV_BYTES * MMV_BYTES, pad = lanes - np;
    uint8_t *sp = aligned_alloc(64, (size_t)stride * 24);
    if (!sp) { free_terms(&terms); return -1; }
    uint8_t *scn = sp + (size_t)stride * 8;
    memset(sp, 0, (size_t)stride * 24);
    for (int i = 0; i < np; i++) {
        uint8_t gp[8];
        pins_of(x->codes[poss[i]], pins, gp);
        for (int k = 0; k < pins; k++) sp[k * stride + i] = gp[k];
        for (int c = 1; c <= x->colors; c++) scn[c * stride + i] = x->counts[16 * poss[i] + c];
    }
    mmv vv[48];
    for (int v = 0; v < x->nvalid; v++) vv[v] = mmv_set1(x->valid[v]);
#endif
    for (int i = 0; i < np; i++) x->inposs[poss[i]] = 1;
    for (int i = 0; i < x->npath; i++) x->played[x->path[i]] = 1;
    for (int g = 0; g < x->n; g++) {
        if ((g & 255) == 0 && stopped(x)) { best = -1; break; }
        if (x->played[g]) continue;
        for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] = 0;
#ifdef ROW_BATCH
        mmv vp[8], vc[16];
        int used[16], nu = 0;
        const uint8_t *gc = x->counts + 16 * g;
        for (int k = 0; k < pins; k++) vp[k] = mmv_set1((x->codes[g] >> (4 * (pins - 1 - k))) & 15);
        for (int c = 1; c <= x->colors; c++)
            if (gc[c]) { vc[nu] = mmv_set1(gc[c]); used[nu++] = c; }
        for (int i = 0; i < lanes; i += 256) {  /* a block of secrets at a time, scored, then counted */
            mmv sc[256 / MMV_BYTES];
            const int m = (lanes - i < 256 ? lanes - i : 256) / MMV_BYTES;
            for (int j = 0; j < m; j++) sc[j] = mmv_score(sp, scn, stride, i + j * MMV_BYTES, vp, pins, vc, used, nu);
            for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] += mmv_count_eq_n(sc, m, vv[v]);
        }
        cnt[0] -= pad;
#else
        for (int i = 0; i < np; i++) cnt[PAIR_SCORE(x, g, poss[i])]++;
#endif
        int size[48], largest, parts = parts_of(x->valid, x->nvalid, cnt, size, &largest, NULL, NULL);
        if (exact_entropy) {  /* a lower S wins; an equal one only as a possible secret against one that is not */
            const double d = entropy_sum(size, parts);
            const int order = best < 0 ? -1 : entropy_order(size, parts, d, best_size, best_parts, best_d);
            if (order == -2) { best = -1; break; }
            if (order < 0 || (order == 0 && x->inposs[g] && !best_poss)) {
                best = g; best_poss = x->inposs[g]; best_parts = parts; best_d = d;
                memcpy(best_size, size, sizeof(int) * parts);
            }
            continue;
        }
        const int64_t key = 2 * rank_of_parts(x->strategy, x->arithmetic, size, parts, largest, np, &terms)
                            + x->inposs[g];
        if (key > best_key) { best_key = key; best = g; }
    }
    for (int i = 0; i < np; i++) x->inposs[poss[i]] = 0;
    for (int i = 0; i < x->npath; i++) x->played[x->path[i]] = 0;
#ifdef ROW_BATCH
    free(sp);
#endif
    free_terms(&terms);
    return best;
}

#include "knuth_drivers.h"
#endif
