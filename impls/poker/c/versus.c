/* Given hands against each other over every board (poker.versus), with the evaluator of poker_core.c.
 *
 * acc[3p..3p+2] per hand p: boards won alone, boards shared, pots in 1/LCM units (a pot split w ways gives
 * each winner LCM / w). The full enumeration walks the boards that complete `known` from the free cards itself,
 * so no list of 1.7 million boards is built; threads take every threads-th first card. */
#include "poker_core.c"

#define LCM 2520
#define MAX_HANDS 10

static const int64_t SHARE[MAX_HANDS + 1] = {0, LCM, LCM / 2, LCM / 3, LCM / 4, LCM / 5, LCM / 6, LCM / 7,
                                             LCM / 8, LCM / 9, LCM / 10};

static inline void score(const uint64_t *hands, int k, uint64_t board, int64_t *acc) {
    uint32_t code[MAX_HANDS], best = 0;
    int ways = 0;
    for (int p = 0; p < k; p++) {
        uint32_t c = rank7(hands[p] | board);
        code[p] = c;
        ways = c > best ? 1 : ways + (c == best);
        best = c > best ? c : best;
    }
    for (int p = 0; p < k; p++) {
        if (code[p] != best) continue;
        acc[3 * p + (ways > 1)] += 1;
        acc[3 * p + 2] += SHARE[ways];
    }
}

void versus_boards(const uint64_t *hands, int k, const uint64_t *boards, size_t n, int64_t *out) {
    memset(out, 0, 3 * (size_t)k * sizeof(int64_t));
    for (size_t i = 0; i < n; i++) score(hands, k, boards[i], out);
}

typedef struct {
    const uint64_t *hands;
    int k, nfree, need, id, threads;
    uint64_t known, bit[52];
    int64_t acc[3 * MAX_HANDS];
} walk_t;

static void walk(walk_t *w, int start, int need, uint64_t board) {
    if (need == 1) {
        for (int i = start; i < w->nfree; i++) score(w->hands, w->k, board | w->bit[i], w->acc);
        return;
    }
    for (int i = start; i <= w->nfree - need; i++) walk(w, i + 1, need - 1, board | w->bit[i]);
}

static void *walk_job(void *arg) {
    walk_t *w = arg;
    if (w->need == 0) {
        if (w->id == 0) score(w->hands, w->k, w->known, w->acc);
        return NULL;
    }
    for (int i = w->id; i <= w->nfree - w->need; i += w->threads) {
        if (w->need == 1) score(w->hands, w->k, w->known | w->bit[i], w->acc);
        else walk(w, i + 1, w->need - 1, w->known | w->bit[i]);
    }
    return NULL;
}

/* Every board completing `known` (0..5 cards) from the cards no hand holds. */
void versus_all(const uint64_t *hands, int k, uint64_t known, int threads, int64_t *out) {
    walk_t jobs[64];
    pthread_t tid[64];
    uint64_t used = known;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    for (int p = 0; p < k; p++) used |= hands[p];
    walk_t base;
    memset(&base, 0, sizeof base);
    base.hands = hands; base.k = k; base.known = known; base.threads = threads;
    base.need = 5 - __builtin_popcountll(known);
    for (int c = 0; c < 52; c++)
        if (!(used >> c & 1)) base.bit[base.nfree++] = 1ULL << c;
    for (int t = 0; t < threads; t++) { jobs[t] = base; jobs[t].id = t; }
    for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, walk_job, &jobs[t]);
    walk_job(&jobs[0]);
    for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
    memset(out, 0, 3 * (size_t)k * sizeof(int64_t));
    for (int t = 0; t < threads; t++)
        for (int j = 0; j < 3 * k; j++) out[j] += jobs[t].acc[j];
}
