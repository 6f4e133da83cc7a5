/* One test's search split over several threads (c-fast-split): c/fast.c's layers, each built by every thread.
 *
 * A layer's boards are partitioned among the threads by the top bits of their slot hash; each thread keeps its
 * part in its own state and count arrays with its own hash table, so no two threads ever write one table. To
 * build the next layer, a thread lists and canonicalises the moves of its own part, inserts those whose board it
 * owns at once, and sends the others (board, symmetry, parent) to their owner's inbox. After a barrier each
 * thread inserts what it was sent, reading the counts of each parent from the sender's arrays. The last two
 * layers are summed by each thread over its own part, as fast.c does, and the threads' sums are added.
 *
 * One barrier per layer: layer arrays rotate over three buffers and inboxes over two, so what a thread writes in
 * the next layer is never what another thread may still be reading from this one. The helper threads are started
 * once and kept: they wait between layers by spinning, then yielding the core (a busy machine may have
 * descheduled the other thread), and between calls on a condition variable.
 */
#include "fast.c"

#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

#define SPLIT_MAX 2         /* threads: a layer is split in two */
#define SPIN_PAUSES 4000    /* a barrier's busy waits before it yields the core */
#define IDLE_YIELDS 4000    /* a helper's yields between calls before it sleeps */

#if !RING_FORMS
#error "c/split.c canonicalises with c/fast.c's ring forms"
#endif

typedef struct {
    fast_work w;                           /* buffers 0..2 rotate over the layers, and the thread's table */
    uint32_t *out[SPLIT_MAX][2];           /* [owner][layer parity]: the moves sent to each other thread, as three
                                              arrays of out_cap words (boards, symmetries, parents) */
    size_t out_cap[SPLIT_MAX][2];
    uint32_t out_n[SPLIT_MAX][2];
    uint32_t sums[2][8];                   /* [test parity]: this thread's lane sums of a finished test */
    int64_t boards[2];
    int failed;
    _Alignas(64) atomic_uint arrived;      /* barriers passed: alone on its cache line */
    char pad[60];
} split_part;

typedef struct {
    const fast_tables *T;
    const uint32_t *starts;
    const int32_t *depths, *order;
    int n, n_split;
    atomic_int next;                       /* the next entry of `order` to be dealt out whole */
    int64_t *answers, *boards;
    double *seconds;
} split_job;

typedef struct split_pool {
    int threads, helpers;
    pid_t owner;                           /* helpers run in this process (a forked child starts its own) */
    split_part *part[SPLIT_MAX];
    split_job *job;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_uint generation;                /* bumped once per call: a helper that sees it change joins in */
    atomic_int exited;                     /* helpers gone, when the pool is freed */
    unsigned born[SPLIT_MAX];
} split_pool;

static inline uint32_t owner_of(uint32_t h, int threads)
{
    return threads == 2 ? h >> 31 : 0;  /* the slot uses the low bits */
}

static void barrier(split_pool *P, int t)
{
    unsigned mine = atomic_fetch_add_explicit(&P->part[t]->arrived, 1, memory_order_acq_rel) + 1;
    for (int u = 0; u < P->threads; u++) {
        int spins = 0;
        while ((int)(atomic_load_explicit(&P->part[u]->arrived, memory_order_acquire) - mine) < 0) {
            if (++spins < SPIN_PAUSES) _mm_pause();
            else sched_yield();
        }
    }
}

/* Room for `need` moves sent, and eight more words for the last group's stores and loads. */
static int room_to_send(uint32_t **buf, size_t *cap, size_t need)
{
    need += 8;
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    uint32_t *b = (uint32_t *)mapped(3 * c * sizeof(uint32_t));
    if (!b) return -1;
    for (int a = 0; a < 3 && *cap; a++) memcpy(b + a * c, *buf + a * *cap, *cap * sizeof(uint32_t));
    unmapped(*buf, 3 * *cap * sizeof(uint32_t));
    *buf = b; *cap = c;
    return 0;
}

/* Room in the table and in buffer nb of w for k more boards beside the m there: before any slot is computed. */
static int room_for(fast_work *w, int nb, size_t *size, uint32_t m, size_t k)
{
    if (__builtin_expect(2 * ((size_t)m + k) > *size, 0) && grow_table(w, w->states[nb], m, size)) return -1;
    if (__builtin_expect((size_t)m + k + 2 > w->cap[nb], 0) && grow_layer(w, nb, (size_t)m + k + 2)) return -1;
    return 0;
}

static uint32_t merge(fast_work *w, int nb, size_t size, uint32_t m, uint32_t (*cm)[LIST_MAX], size_t j,
                      const uint32_t *counts, const fast_tables *T)
{
    return insert_chunk(w->table, size - 1, (uint64_t)w->tag << TAG_SHIFT, w->states[nb], w->counts[nb], m, cm, j,
                        counts, (const uint32_t *)T->perm, SLOT_AHEAD);
}

/* Thread t's part of layer d + 1 from its part (n boards) of layer d; returns its size, -1 when memory runs out
 * (the thread still takes its barrier, so the others are not left waiting). */
static int64_t split_layer(split_pool *P, int t, const fast_tables *T, int d, uint32_t n, __m256i *acc_io)
{
    split_part *me = P->part[t];
    fast_work *w = &me->w;
    int cur = d % 3, nb = (d + 1) % 3, par = d & 1, threads = P->threads, failed = 0;
    uint32_t mv_board[LIST_MAX], mv_parent[LIST_MAX];
    uint32_t cm[4][LIST_MAX];
    const uint32_t *states = w->states[cur], *counts = w->counts[cur];
    size_t size = table_size(n);
    if (size > w->table_cap && reserve_table(w, size)) failed = 1;
    else next_tag(w);
    __m256i acc = *acc_io;
    uint32_t m = 0;
    _mm256_storeu_si256((__m256i *)(w->counts[nb] + 8), _mm256_setzero_si256());
    for (int u = 0; u < threads; u++) me->out_n[u][par] = 0;
    const __m256i *K = ring_constants();
    for (uint32_t i = 1; !failed && i <= n;) {
        size_t k = list_moves(T, states, counts, &i, n, mv_board, mv_parent, &acc);
        if (threads == 2 && room_to_send(&me->out[!t][par], &me->out_cap[!t][par], me->out_n[!t][par] + k))
            failed = 1;
        if (failed || room_for(w, nb, &size, m, k)) { failed = 1; break; }
        size_t j, nf, sent = 0;
        if (threads == 2) {  /* which thread owns a board is a coin toss: no branch on it, one pass */
            uint32_t *out = me->out[!t][par];
            size_t cap = me->out_cap[!t][par];
            uint32_t *const sends[3] = {out, out + cap, out + 2 * cap};
            sent = me->out_n[!t][par];
            j = canonical_moves(K, mv_board, mv_parent, k, (uint32_t)size - 1, cm, t ? 1u << 31 : 0, sends, &sent,
                                &nf);
            me->out_n[!t][par] = (uint32_t)sent;
        } else {
            j = canonical_moves(K, mv_board, mv_parent, k, (uint32_t)size - 1, cm, 0, NULL, &sent, &nf);
        }
        for (size_t q = 0; q < nf; q++)  /* full: their paths end here */
            acc = sum8(acc, hashes(T, mv_board[q]), counts + 8 * (size_t)mv_parent[q]);
        m = merge(w, nb, size, m, cm, j, counts, T);
    }
    barrier(P, t);
    /* the moves the other threads sent here, a chunk at a time, their slots found eight at a time */
    for (int u = 0; u < threads; u++) {
        if (u == t) continue;
        const split_part *from = P->part[u];
        const uint32_t *in = from->out[t][par];
        size_t cap = from->out_cap[t][par];
        const uint32_t *their = from->w.counts[cur];
        uint32_t total = from->out_n[t][par];
        for (uint32_t q0 = 0; !failed && q0 < total; q0 += CHUNK) {
            size_t j = total - q0 < CHUNK ? total - q0 : CHUNK;
            if (room_for(w, nb, &size, m, j)) { failed = 1; break; }
            __m256i mask = _mm256_set1_epi32((int)size - 1);
            for (size_t q = 0; q < j; q += 8) {  /* up to 7 words past the last are read: room_to_send has them */
                __m256i b = load8(in + q0 + q);
                _mm256_storeu_si256((__m256i *)(cm[0] + q), b);
                _mm256_storeu_si256((__m256i *)(cm[1] + q), _mm256_and_si256(slot_hash8(K, b), mask));
                _mm256_storeu_si256((__m256i *)(cm[2] + q), load8(in + cap + q0 + q));
                _mm256_storeu_si256((__m256i *)(cm[3] + q), load8(in + 2 * cap + q0 + q));
            }
            m = merge(w, nb, size, m, cm, j, their, T);
        }
    }
    *acc_io = acc;
    me->failed |= failed;
    return failed ? 0 : m;
}

/* Thread t's share of one test: sums into its part's slot for test parity `par`, then a barrier. */
static void split_test(split_pool *P, int t, const fast_tables *T, uint32_t start, int depth, int par)
{
    split_part *me = P->part[t];
    fast_work *w = &me->w;
    __m256i acc = _mm256_setzero_si256();
    int64_t boards = 0;
    uint32_t n = 0, lane, first = canonical(T, start, &lane);
    if (depth == 0) {
        if (t == 0) acc = _mm256_and_si256(hashes(T, start), _mm256_setr_epi32(-1, 0, 0, 0, 0, 0, 0, 0));
    } else if (owner_of(slot_hash(first), P->threads) == (uint32_t)t) {
        uint32_t one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
        w->states[0][1] = first;
        _mm256_storeu_si256((__m256i *)(w->counts[0] + 8),
                            _mm256_permutevar8x32_epi32(load8(one), load8((const uint32_t *)T->perm + 8 * lane)));
        n = 1;
    }
    for (int d = 0; d < depth; d++) {
        const uint32_t *states = w->states[d % 3], *counts = w->counts[d % 3];
        if (d == depth - 1) {
            acc = sum_last_layer(T, states, counts, n, acc);
            break;
        }
        if (d == depth - 2) {
            acc = sum_last_two_layers(T, states, counts, n, acc);
            break;
        }
        n = (uint32_t)split_layer(P, t, T, d, n, &acc);
        boards += n;
    }
    _mm256_storeu_si256((__m256i *)me->sums[par], acc);
    me->boards[par] = boards;
    barrier(P, t);
}

static double since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* Thread t's share of a call: the first n_split tests of `order` split, then the rest dealt out whole, each to
 * the first thread free (its own workspace, fast.c's search), then a barrier. */
static void split_run(split_pool *P, int t)
{
    split_job *J = P->job;
    for (int q = 0; q < J->n_split; q++) {
        int c = J->order[q];
        struct timespec t0;
        if (t == 0) clock_gettime(CLOCK_MONOTONIC, &t0);
        split_test(P, t, J->T, J->starts[c], J->depths[c], q & 1);
        if (t != 0) continue;
        J->seconds[c] = since(&t0);
        __m256i acc = _mm256_setzero_si256();
        int64_t boards = 0;
        for (int u = 0; u < P->threads; u++) {
            acc = _mm256_add_epi32(acc, load8(P->part[u]->sums[q & 1]));
            boards += P->part[u]->boards[q & 1];
        }
        J->answers[c] = reduced(acc);
        J->boards[c] = boards;
    }
    for (;;) {
        int q = atomic_fetch_add_explicit(&J->next, 1, memory_order_relaxed);
        if (q >= J->n) break;
        int c = J->order[q];
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        J->answers[c] = fast_solve(&P->part[t]->w, J->T, J->starts[c], J->depths[c], &J->boards[c]);
        J->seconds[c] = since(&t0);
        P->part[t]->failed |= J->answers[c] < 0;
    }
    barrier(P, t);
}

typedef struct { split_pool *P; int t; } helper_arg;

static void *split_helper(void *arg)
{
    split_pool *P = ((helper_arg *)arg)->P;
    int t = ((helper_arg *)arg)->t;
    free(arg);
    unsigned seen = P->born[t];
    for (;;) {
        unsigned now;
        int yields = 0;
        while ((now = atomic_load_explicit(&P->generation, memory_order_acquire)) == seen) {
            if (++yields < IDLE_YIELDS) { sched_yield(); continue; }
            pthread_mutex_lock(&P->lock);
            while ((now = atomic_load_explicit(&P->generation, memory_order_acquire)) == seen)
                pthread_cond_wait(&P->wake, &P->lock);
            pthread_mutex_unlock(&P->lock);
        }
        seen = now;
        if (!P->job) {  /* the pool is being freed: the last touch of P */
            atomic_fetch_add_explicit(&P->exited, 1, memory_order_release);
            return NULL;
        }
        split_run(P, t);
    }
}

/* A pool for `threads` threads (the caller and threads - 1 helpers), each part's buffers reserved and touched
 * for layers of `states` boards and tables of `slots` slots. NULL when memory runs out. */
void split_free(split_pool *P);

split_pool *split_new(int threads, size_t states, size_t slots)
{
    if (threads < 1) threads = 1;
    if (threads > SPLIT_MAX) threads = SPLIT_MAX;
    split_pool *P = (split_pool *)calloc(1, sizeof(split_pool));
    if (!P) return NULL;
    P->threads = threads;
    pthread_mutex_init(&P->lock, NULL);
    pthread_cond_init(&P->wake, NULL);
    int failed = 0;
    for (int t = 0; t < threads && !failed; t++) {
        split_part *p = (split_part *)aligned_alloc(64, sizeof(split_part));
        if (!p) { failed = 1; break; }
        memset(p, 0, sizeof *p);
        P->part[t] = p;
        size_t per = states / (size_t)threads + 16;
        failed = fast_reserve(&p->w, per, slots) || reserve_layer(&p->w, 2, per);
        for (int u = 0; u < threads; u++)
            for (int q = 0; q < 2; q++)
                failed |= u != t && room_to_send(&p->out[u][q], &p->out_cap[u][q], 4 * per);
    }
    if (failed) { split_free(P); return NULL; }
    return P;
}

static int start_helpers(split_pool *P)
{
    if (P->owner != getpid()) {  /* none yet, or inherited from a parent by fork: they are not here */
        P->helpers = 0;
        P->owner = getpid();
    }
    while (P->helpers + 1 < P->threads) {
        pthread_t tid;
        int t = P->helpers + 1;
        helper_arg *a = (helper_arg *)malloc(sizeof *a);
        if (!a) return -1;
        *a = (helper_arg){P, t};
        P->born[t] = atomic_load_explicit(&P->generation, memory_order_relaxed);
        if (start_thread(&tid, split_helper, a)) { free(a); return -1; }
        pthread_detach(tid);
        P->helpers++;
    }
    return 0;
}

static void wake_helpers(split_pool *P)
{
    pthread_mutex_lock(&P->lock);
    atomic_fetch_add_explicit(&P->generation, 1, memory_order_release);
    pthread_cond_broadcast(&P->wake);
    pthread_mutex_unlock(&P->lock);
}

/* The n tests in `order`: the first n_split each split over the pool's threads, the others dealt out whole to the
 * first thread free. Per-test seconds are each test's wall time. -1 when helper threads cannot be started or a
 * search ran out of memory. */
int split_solve_many(split_pool *P, const fast_tables *T, const uint32_t *starts, const int32_t *depths,
                     const int32_t *order, int n, int n_split, int64_t *answers, int64_t *boards, double *seconds)
{
    if (start_helpers(P)) return -1;
    for (int t = 0; t < P->threads; t++) P->part[t]->failed = 0;
    int k = n_split < 0 ? 0 : n_split > n ? n : n_split;
    split_job job = {T, starts, depths, order, n, k, k, answers, boards, seconds};
    P->job = &job;
    wake_helpers(P);
    split_run(P, 0);  /* its last barrier waits for every helper's last test */
    P->job = NULL;
    int failed = 0;
    for (int t = 0; t < P->threads; t++) failed |= P->part[t]->failed;
    return failed ? -1 : 0;
}

void split_free(split_pool *P)
{
    if (!P) return;
    if (P->helpers && P->owner == getpid()) {  /* a helper that wakes to no job returns */
        P->job = NULL;
        wake_helpers(P);
        while (atomic_load_explicit(&P->exited, memory_order_acquire) < P->helpers) sched_yield();
    }
    for (int t = 0; t < SPLIT_MAX; t++) {
        split_part *p = P->part[t];
        if (!p) continue;
        for (int u = 0; u < SPLIT_MAX; u++)
            for (int q = 0; q < 2; q++) unmapped(p->out[u][q], 3 * p->out_cap[u][q] * sizeof(uint32_t));
        release(&p->w);
        free(p);
    }
    free(P);
}
