/* The two drivers, for any search header (see knuth_game.h): knuth_each plays each game on its own; knuth_shared
 * walks the tree of score histories once, so games sharing a history share one search. Both spread their work over
 * `threads` threads, count finished games in status[0] and stop soon after status[1] is set (returning 1), so a
 * caller can show progress and honour Ctrl-C while the call runs.
 *
 * The search header gives ctx_init (the prototype context: the game and what its threads share), ctx_alloc (a
 * thread's own buffers, in a copy of the prototype), ctx_free, proto_free, choose(x, poss, np) (the next guess, or
 * -1 when stopped or out of memory) and FILTER_SCORE(x, guess, secret). */
#ifndef KNUTH_DRIVERS_H
#define KNUTH_DRIVERS_H
#include "knuth_game.h"

static void game_init(mm_ctx *x, int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n,
                      int strategy, int arithmetic, const int32_t (*sfu)[3], int64_t *status) {
    x->pins = pins; x->colors = colors; x->codes = codes; x->counts = counts; x->n = n;
    x->strategy = strategy; x->arithmetic = arithmetic; x->sfu = sfu; x->status = status;
    x->npath = 0;
    x->nvalid = 0;
    for (int b = 0; b <= pins; b++)
        for (int w = 0; b + w <= pins; w++)
            if (!(b == pins - 1 && w == 1)) {
                x->valid_at[(b << 4) | w] = (uint8_t)x->nvalid;
                x->valid[x->nvalid++] = (b << 4) | w;
            }
    x->win = pins << 4;
}

/* Guesses are played and taken back last first: the path says in what order (the symmetries of a node need the
 * guesses themselves). */
MM_INLINE void play(mm_ctx *x, int g) { x->path[x->npath++] = g; }
MM_INLINE void unplay(mm_ctx *x) { x->npath--; }
MM_INLINE int stopped(const mm_ctx *x) { return __atomic_load_n(&x->status[1], __ATOMIC_RELAXED) != 0; }

/* -- threads: items 0..count) handed out one at a time to `threads` workers, each with its own context ---- */
typedef struct {
    const mm_ctx *proto;
    int count, failed;
    int next;
    void *arg;
    int (*fn)(mm_ctx *x, int item, void *arg); /* non-zero: stop handing out items */
} pool_t;

static void *pool_worker(void *p) {
    pool_t *pool = p;
    mm_ctx x = *pool->proto;
    if (ctx_alloc(&x)) {
        __atomic_store_n(&pool->failed, 1, __ATOMIC_RELAXED);
    } else {
        for (;;) {
            int item = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED);
            if (item >= pool->count || __atomic_load_n(&pool->failed, __ATOMIC_RELAXED)) break;
            if (pool->fn(&x, item, pool->arg)) __atomic_store_n(&pool->failed, 1, __ATOMIC_RELAXED);
        }
    }
    ctx_free(&x);
    return NULL;
}

/* Returns non-zero when an item failed (out of memory, or stopped). */
static int run_pool(const mm_ctx *proto, int threads, int count, int (*fn)(mm_ctx *, int, void *), void *arg) {
    pool_t pool = {proto, count, 0, 0, arg, fn};
    pthread_t tid[64];
    int t = threads < count ? threads : count, started = 0;
    if (t > 64) t = 64;
    for (; started < t - 1; started++)
        if (pthread_create(&tid[started], NULL, pool_worker, &pool)) break;
    pool_worker(&pool); /* the calling thread works too */
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    return pool.failed;
}

static int threads_or_cores(int threads) {
    if (threads > 0) return threads;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

static int result(const mm_ctx *x, int failed) { return stopped(x) ? 1 : failed ? -1 : 0; }

/* -- each game on its own ------------------------------------------------------------------------------- */
typedef struct { int first; const int32_t *targets; uint8_t *out; int *poss_all; } each_arg;

static int play_one(mm_ctx *x, int t, void *p) {
    each_arg *a = p;
    const int pins = x->pins, n = x->n;
    int *poss = malloc(sizeof(int) * n);
    if (!poss) return 1;
    int secret = a->targets[t], np = n, guess = a->first, count = 1, nplayed = 1;
    for (int i = 0; i < n; i++) poss[i] = i;
    play(x, guess);
    for (;;) {
        int sc = FILTER_SCORE(x, guess, secret);
        if (sc == x->win) break;
        int j = 0;
        for (int i = 0; i < np; i++)
            if (FILTER_SCORE(x, guess, poss[i]) == sc) poss[j++] = poss[i];
        np = j;
        guess = choose(x, poss, np);
        if (guess < 0 || nplayed == MAX_DEPTH) break;
        play(x, guess);
        nplayed++;
        count++;
    }
    for (int i = 0; i < nplayed; i++) unplay(x);
    free(poss);
    if (guess < 0 || nplayed == MAX_DEPTH) return 1;
    a->out[t] = (uint8_t)count;
    __atomic_add_fetch(&x->status[0], 1, __ATOMIC_RELAXED);
    return 0;
}

/* out[t] = guesses to find codes[targets[t]]. Returns 0, 1 when stopped, -1 when out of memory, or 2 for a
 * game of other than KNUTH_PINS pins. */
int knuth_each(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy,
               int arithmetic, const int32_t *sfu, int first, const int32_t *targets, int nt, uint8_t *out,
               int threads, int64_t *status) {
    if (pins != KNUTH_PINS) return 2;
    mm_ctx proto;
    if (ctx_init(&proto, pins, colors, codes, counts, n, strategy, arithmetic, (const int32_t (*)[3])sfu, status)) {
        proto_free(&proto);
        return -1;
    }
    each_arg a = {first, targets, out, NULL};
    int failed = run_pool(&proto, threads_or_cores(threads), nt, play_one, &a);
    int r = result(&proto, failed);
    proto_free(&proto);
    return r;
}

/* -- all games at once: the tree of score histories ----------------------------------------------------- */
/* One node: poss are the secrets consistent with the history, guess is played now as guess number depth. Parts
 * holding no wanted secret are not explored. Returns non-zero when stopped or out of memory. */
static int node(mm_ctx *x, const int *poss, int np, int guess, int depth, const uint8_t *want, uint8_t *out) {
    const int pins = x->pins;
    int start[129] = {0}, fill[129], failed = 0;
    if (stopped(x) || depth > MAX_DEPTH) return 1;
    uint8_t *sc = malloc(np);
    int *parts = malloc(sizeof(int) * np);
    if (!sc || !parts) { free(sc); free(parts); return 1; }
    for (int i = 0; i < np; i++) { sc[i] = (uint8_t)FILTER_SCORE(x, guess, poss[i]); start[sc[i]]++; }
    int acc = 0;
    for (int v = 0; v < 129; v++) { int c = start[v]; start[v] = fill[v] = acc; acc += c; }
    for (int i = 0; i < np; i++) parts[fill[sc[i]]++] = poss[i];
    free(sc);
    play(x, guess);
    for (int v = 0; v < x->nvalid && !failed; v++) {
        int s = x->valid[v], lo = start[s], m = fill[s] - lo, wanted = 0;
        for (int i = lo; i < lo + m && !wanted; i++) wanted = want[parts[i]];
        if (!wanted) continue;
        if (s == x->win) {
            out[guess] = (uint8_t)depth;
            __atomic_add_fetch(&x->status[0], 1, __ATOMIC_RELAXED);
            continue;
        }
        int next = choose(x, parts + lo, m);
        failed = next < 0 || node(x, parts + lo, m, next, depth + 1, want, out);
    }
    unplay(x);
    free(parts);
    return failed;
}

/* The top of the tree is split into subtrees for the threads: a level's parts are found in order, their next
 * guesses chosen in parallel, until there are enough subtrees; then whole subtrees run in parallel, the largest
 * first. */
typedef struct {
    int *poss, np, guess, depth, path[MAX_DEPTH], npath;
} subtree;

typedef struct { subtree *items; const uint8_t *want; uint8_t *out; } tree_arg;

static void mark(mm_ctx *x, const subtree *s, uint8_t on) {
    for (int i = 0; i < s->npath; i++)
        if (on) play(x, s->path[i]);
        else unplay(x);
}

static int choose_item(mm_ctx *x, int i, void *p) {
    subtree *s = ((tree_arg *)p)->items + i;
    mark(x, s, 1);
    s->guess = choose(x, s->poss, s->np);
    mark(x, s, 0);
    return s->guess < 0;
}

static int run_item(mm_ctx *x, int i, void *p) {
    tree_arg *a = p;
    subtree *s = a->items + i;
    mark(x, s, 1);
    int failed = node(x, s->poss, s->np, s->guess, s->depth, a->want, a->out);
    mark(x, s, 0);
    return failed;
}

static int larger_first(const void *a, const void *b) {
    return ((const subtree *)b)->np - ((const subtree *)a)->np;
}

static void free_items(subtree *items, int count) {
    for (int i = 0; i < count; i++) free(items[i].poss);
    free(items);
}

/* The wanted parts of each item's guess, as new items with no guess yet; games won count and leave. */
static subtree *split_level(mm_ctx *x, subtree *items, int count, const uint8_t *want, uint8_t *out, int *made) {
    const int pins = x->pins;
    int cap = 64, m = 0;
    subtree *next = malloc(sizeof(subtree) * cap);
    for (int i = 0; i < count && next; i++) {
        subtree *s = items + i;
        int size[129] = {0}, wanted[129] = {0}, slot[129];
        for (int v = 0; v < 129; v++) slot[v] = -1;
        uint8_t *sc = malloc(s->np);
        if (!sc) { free_items(next, m); next = NULL; break; }
        for (int j = 0; j < s->np; j++) {
            sc[j] = (uint8_t)FILTER_SCORE(x, s->guess, s->poss[j]);
            size[sc[j]]++;
            wanted[sc[j]] |= want[s->poss[j]];
        }
        for (int v = 0; v < x->nvalid && next; v++) {
            int score = x->valid[v];
            if (!wanted[score]) continue;
            if (score == x->win) {
                out[s->guess] = (uint8_t)s->depth;
                __atomic_add_fetch(&x->status[0], 1, __ATOMIC_RELAXED);
                continue;
            }
            if (m == cap) {
                subtree *grown = realloc(next, sizeof(subtree) * (cap *= 2));
                if (!grown) { free_items(next, m); next = NULL; break; }
                next = grown;
            }
            subtree *c = next + m;
            if (!(c->poss = malloc(sizeof(int) * size[score]))) { free_items(next, m); next = NULL; break; }
            slot[score] = m++;
            c->np = 0; c->guess = -1; c->depth = s->depth + 1;
            memcpy(c->path, s->path, sizeof(int) * s->npath);
            c->npath = s->npath;
            c->path[c->npath++] = s->guess;
        }
        if (next)  /* fill the parts in ascending order of secrets, as node() does */
            for (int j = 0; j < s->np; j++)
                if (slot[sc[j]] >= 0) {
                    subtree *c = next + slot[sc[j]];
                    c->poss[c->np++] = s->poss[j];
                }
        free(sc);
    }
    *made = m;
    return next;
}

/* out[i] = guesses to find codes[i], for every i with want[i]. Returns 0, 1 when stopped, -1 when out of
 * memory, or 2 for a game of other than KNUTH_PINS pins. */
int knuth_shared(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy,
                 int arithmetic, const int32_t *sfu, int first, const uint8_t *want, uint8_t *out, int threads,
                 int64_t *status) {
    if (pins != KNUTH_PINS) return 2;
    mm_ctx proto;
    if (ctx_init(&proto, pins, colors, codes, counts, n, strategy, arithmetic, (const int32_t (*)[3])sfu, status)) {
        proto_free(&proto);
        return -1;
    }
    threads = threads_or_cores(threads);
    subtree *items = malloc(sizeof(subtree));
    int count = 1, failed = !items;
    if (items) {
        items[0].poss = malloc(sizeof(int) * n);
        items[0].np = n; items[0].guess = first; items[0].depth = 1; items[0].npath = 0;
        failed = !items[0].poss;
        if (!failed) for (int i = 0; i < n; i++) items[0].poss[i] = i;
    }
    /* Split while the subtrees are too few to keep every thread busy to the end (or too large). */
    while (!failed && threads > 1 && count > 0 && count < 16 * threads && items[0].depth < 4) {
        int made = 0;
        subtree *next = split_level(&proto, items, count, want, out, &made);
        free_items(items, count);
        items = next, count = made;
        if (!items) { failed = 1; break; }
        /* the largest searches first, so that none is left to run alone at the end */
        qsort(items, count, sizeof(subtree), larger_first);
        tree_arg a = {items, want, out};
        failed = run_pool(&proto, threads, count, choose_item, &a);
    }
    if (!failed && count) {
        qsort(items, count, sizeof(subtree), larger_first);
        tree_arg a = {items, want, out};
        failed = run_pool(&proto, threads, count, run_item, &a);
    }
    if (items) free_items(items, count);
    int r = result(&proto, failed);
    proto_free(&proto);
    return r;
}
#endif
