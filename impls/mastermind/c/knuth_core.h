/* Knuth's algorithm for every secret of a game, with the spec's exact tie-break: rank (Knuth: |possible| minus
 * the largest part; Most Parts: the number of parts), then a guess that is itself possible, then the lowest
 * codeword; candidates are all codewords not yet played in the game.
 *
 * The including file picks the scoring: either PAIR_SCORE(x, guess_index, secret_index) (the article's scalar
 * variations, every score computed, as the article did) or ROW_BATCH (byte-sliced rows of possible secrets
 * scored 64 or 32 at a time). PRUNE adds exact shortcuts: a Knuth candidate stops as soon as its largest part
 * shows it cannot win, only the lowest codeword of each class of interchangeable colors is tried, and the
 * possible secrets go first so the search ends when one of them reaches the best key any guess could. Two drivers: knuth_each plays each game on its own; knuth_shared walks the tree of score
 * histories once, so games sharing a history share one search. */
#include "mm_score.h"
#include <stdlib.h>

typedef struct {
    int pins, colors, n, strategy; /* strategy 0: Knuth, 1: Most Parts */
    const uint32_t *codes;         /* n codewords, ascending */
    const uint8_t *counts;         /* n x 16 color counts */
    uint8_t *played, *inposs;      /* n flags each */
    int valid[48], nvalid, win;    /* the score bytes that can occur */
} mm_ctx;

#ifndef FILTER_SCORE
#define FILTER_SCORE PAIR_SCORE
#endif
#ifndef SMALL_NP
#define SMALL_NP 0 /* at most this many possible secrets are scored one by one even in batch variants */
#endif

static void ctx_init(mm_ctx *x, int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n,
                     int strategy) {
    x->pins = pins; x->colors = colors; x->codes = codes; x->counts = counts; x->n = n;
    x->strategy = strategy;
    x->played = calloc(n, 1);
    x->inposs = calloc(n, 1);
    x->nvalid = 0;
    for (int b = 0; b <= pins; b++)
        for (int w = 0; b + w <= pins; w++)
            if (!(b == pins - 1 && w == 1)) x->valid[x->nvalid++] = (b << 4) | w;
    x->win = pins << 4;
}

static void ctx_free(mm_ctx *x) { free(x->played); free(x->inposs); }

MM_INLINE int rank_of(const mm_ctx *x, const int *cnt, int np) {
    int best = 0;
    if (x->strategy == 0) {
        for (int v = 0; v < x->nvalid; v++) if (cnt[x->valid[v]] > best) best = cnt[x->valid[v]];
        return np - best;
    }
    for (int v = 0; v < x->nvalid; v++) best += cnt[x->valid[v]] > 0;
    return best;
}

MM_INLINE unsigned color_mask(uint32_t code, int pins) {
    unsigned m = 0;
    for (int k = 0; k < pins; k++) m |= 1u << ((code >> (4 * k)) & 15);
    return m;
}

/* Is code the lowest of the codewords that relabel its colors within the set z and within the set f? That is,
 * do the colors of each set first appear, reading from the first pin, in increasing order from the set's
 * lowest color? */
MM_INLINE int lowest_of_class(uint32_t code, int pins, unsigned z, unsigned f) {
    unsigned seen = 0;
    for (int k = pins - 1; k >= 0; k--) {
        unsigned bit = 1u << ((code >> (4 * k)) & 15), set = bit & z ? z : bit & f ? f : 0;
        if (!set || (seen & bit)) continue;
        unsigned unseen = set & ~seen;
        if (bit != (unseen & -unseen)) return 0;
        seen |= bit;
    }
    return 1;
}

/* The next guess for the possible secrets poss[0..np). */
MM_INLINE int choose_p(mm_ctx *x, const int *poss, int np, int pins) {
    int cnt[129];
    int best = -1, best_key = -1;
    for (int i = 0; i < np; i++) x->inposs[poss[i]] = 1;
#ifdef ROW_BATCH
    /* The possible secrets byte-sliced, padded with zero lanes to a multiple of 64, 64-byte aligned. */
    const int stride = (np + 63) & ~63, pad = stride - np;
    uint8_t *sp = aligned_alloc(64, (size_t)stride * 24);
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
#ifdef PRUNE
    /* The best key any guess can reach: every part as small as the scores allow, and the guess possible. Only
     * a possible secret reaches it, so when one does, the lowest such one is the answer and the scan of all
     * codewords is skipped (pass 0 tries the possible secrets, in ascending order, first). */
    int rank_max = x->strategy == 0 ? np - (np + x->nvalid - 1) / x->nvalid : (np < x->nvalid ? np : x->nvalid);
    /* Interchangeable colors: those no possible secret holds (z), and those never played that some possible
     * secret holds (f). Relabelling colors within z or within f leaves a guess's parts and its membership in
     * the possible set unchanged, so only the lowest codeword of each such class can be chosen. */
    unsigned played_colors = 0, present = 0, all = ((1u << (x->colors + 1)) - 1) & ~1u;
    for (int g = 0; g < x->n; g++)
        if (x->played[g]) played_colors |= color_mask(x->codes[g], pins);
    for (int i = 0; i < np; i++) present |= color_mask(x->codes[poss[i]], pins);
    const unsigned z = all & ~present, f = all & present & ~played_colors;
    for (int pass = 0; pass < 2; pass++) {
        const int count = pass == 0 ? np : x->n;
        best = -1, best_key = -1;
#else
    for (int pass = 1; pass < 2; pass++) {
        const int count = x->n;
#endif
    for (int t = 0; t < count; t++) {
        const int g = pass == 0 ? poss[t] : t;
        if (x->played[g]) continue;
#ifdef PRUNE
        if (!lowest_of_class(x->codes[g], pins, z, f)) continue;
#endif
        for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] = 0;
#ifdef ROW_BATCH
        if (np <= SMALL_NP) {
            for (int i = 0; i < np; i++) cnt[FILTER_SCORE(x, g, poss[i])]++;
        } else {
        mmv vp[8], vc[16];
        int used[16], nu = 0;
        const uint8_t *gc = x->counts + 16 * g;
        for (int k = 0; k < pins; k++) vp[k] = mmv_set1((x->codes[g] >> (4 * (pins - 1 - k))) & 15);
        for (int c = 1; c <= x->colors; c++)
            if (gc[c]) { vc[nu] = mmv_set1(gc[c]); used[nu++] = c; }
        /* Knuth: a candidate whose largest part already exceeds what the best so far allows cannot win. */
        int limit = x->strategy == 0 && best_key >= 0 ? np - (best_key - x->inposs[g] + 2) / 2 : np, lost = 0;
        for (int i = 0; i < stride && !lost; i += MMV_BYTES) {
            mmv sc = mmv_score(sp, scn, stride, i, vp, pins, vc, used, nu);
            for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] += mmv_count_eq(sc, vv[v]);
#ifdef PRUNE
            if ((i & 255) == 256 - MMV_BYTES && i + MMV_BYTES <= np)  /* every 256 secrets, before any padding */
                for (int v = 0; v < x->nvalid; v++) lost |= cnt[x->valid[v]] > limit;
#endif
        }
        if (lost) continue;
        cnt[0] -= pad;
        }
#else
        for (int i = 0; i < np; i++) cnt[PAIR_SCORE(x, g, poss[i])]++;
#endif
        int key = 2 * rank_of(x, cnt, np) + x->inposs[g];
        if (key > best_key) { best_key = key; best = g; }
    }
#ifdef PRUNE
    if (pass == 0 && best_key == 2 * rank_max + 1) break;
#endif
    }
    for (int i = 0; i < np; i++) x->inposs[poss[i]] = 0;
#ifdef ROW_BATCH
    free(sp);
#endif
    return best;
}

static int choose(mm_ctx *x, const int *poss, int np) {
    if (np == 1) return poss[0];
    switch (x->pins) {
    case 2: return choose_p(x, poss, np, 2);
    case 3: return choose_p(x, poss, np, 3);
    case 4: return choose_p(x, poss, np, 4);
    case 5: return choose_p(x, poss, np, 5);
    case 6: return choose_p(x, poss, np, 6);
    case 7: return choose_p(x, poss, np, 7);
    default: return choose_p(x, poss, np, 8);
    }
}

/* Each game on its own: out[t] = guesses to find codes[targets[t]]. Returns 0, or -1 when out of memory. */
int knuth_each(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy, int first,
               const int32_t *targets, int nt, uint8_t *out) {
    mm_ctx ctx, *x = &ctx;
    ctx_init(x, pins, colors, codes, counts, n, strategy);
    int *poss = malloc(sizeof(int) * n);
    if (!poss || !x->played || !x->inposs) return -1;
    for (int t = 0; t < nt; t++) {
        int secret = targets[t], np = n, guess = first, count = 1;
        for (int i = 0; i < n; i++) poss[i] = i;
        memset(x->played, 0, n);
        x->played[first] = 1;
        for (;;) {
            int sc = FILTER_SCORE(x, guess, secret);
            if (sc == x->win) break;
            int j = 0;
            for (int i = 0; i < np; i++)
                if (FILTER_SCORE(x, guess, poss[i]) == sc) poss[j++] = poss[i];
            np = j;
            guess = choose(x, poss, np);
            x->played[guess] = 1;
            count++;
        }
        out[t] = (uint8_t)count;
    }
    free(poss);
    ctx_free(x);
    return 0;
}

/* One node of the tree of score histories: poss are the secrets consistent with the history, guess is played
 * now as guess number depth. Parts holding no wanted secret are not explored. */
static void node(mm_ctx *x, const int *poss, int np, int guess, int depth, const uint8_t *want, uint8_t *out) {
    const int pins = x->pins;
    int start[129] = {0}, fill[129];
    uint8_t *sc = malloc(np);
    int *parts = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++) { sc[i] = (uint8_t)FILTER_SCORE(x, guess, poss[i]); start[sc[i]]++; }
    int acc = 0;
    for (int v = 0; v < 129; v++) { int c = start[v]; start[v] = fill[v] = acc; acc += c; }
    for (int i = 0; i < np; i++) parts[fill[sc[i]]++] = poss[i];
    free(sc);
    x->played[guess] = 1;
    for (int v = 0; v < x->nvalid; v++) {
        int s = x->valid[v], lo = start[s], m = fill[s] - lo, wanted = 0;
        for (int i = lo; i < lo + m && !wanted; i++) wanted = want[parts[i]];
        if (!wanted) continue;
        if (s == x->win) { out[guess] = (uint8_t)depth; continue; }
        node(x, parts + lo, m, choose(x, parts + lo, m), depth + 1, want, out);
    }
    x->played[guess] = 0;
    free(parts);
}

/* All games at once: out[i] = guesses to find codes[i], for every i with want[i]. */
int knuth_shared(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy,
                 int first, const uint8_t *want, uint8_t *out) {
    mm_ctx ctx, *x = &ctx;
    ctx_init(x, pins, colors, codes, counts, n, strategy);
    int *poss = malloc(sizeof(int) * n);
    if (!poss || !x->played || !x->inposs) return -1;
    for (int i = 0; i < n; i++) poss[i] = i;
    node(x, poss, n, first, 1, want, out);
    free(poss);
    ctx_free(x);
    return 0;
}
