/* One batch split over threads: each thread runs the single-threaded kernel of its source file on its own
 * contiguous share of the pairs. At a million pairs the inputs (16 MB) no longer fit a core's L2, and one core
 * cannot pull them from L3 as fast as two can, so the second core is what lowers ns/op there; small batches
 * are not split (the caller passes threads = 1), since handing work over costs more than they take.
 *
 * The helper threads are started once and kept: starting and joining a thread per call costs a noticeable share
 * of a million-pair call. Between calls a helper yields the core a few thousand times (a few milliseconds:
 * back-to-back calls find it awake), then sleeps on a condition variable. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

typedef void (*cards_kernel)(const uint64_t *a, const uint64_t *b, void *out, size_t n);

struct cards_share {
    cards_kernel fn;
    const uint64_t *a, *b;
    char *out;
    size_t n;
};

enum { CARDS_MAX_THREADS = 64, CARDS_SPINS = 1 << 12 }; /* a helper's yields before it sleeps */

static struct {
    pthread_mutex_t call;  /* one split call at a time (cffi releases the GIL, so callers can overlap) */
    pthread_mutex_t lock;
    pthread_cond_t wake;
    atomic_uint generation; /* bumped once per call: a helper that sees it change takes its share */
    atomic_int pending;     /* helpers' shares not yet done */
    int helpers;            /* started so far, in process `owner` (a forked child starts its own) */
    pid_t owner;
    struct cards_share share[CARDS_MAX_THREADS];
    unsigned born[CARDS_MAX_THREADS]; /* the generation when helper t started: calls from then on are its */
} cards_pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};

static void cards_run_share(struct cards_share *s)
{
    if (s->n) s->fn(s->a, s->b, s->out, s->n);
}

static void *cards_helper(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct cards_share *mine = &cards_pool.share[t];
    unsigned seen = cards_pool.born[t]; /* not the generation now: the call that started it may have bumped it */
    for (;;) {
        unsigned now;
        int spins = 0;
        while ((now = atomic_load_explicit(&cards_pool.generation, memory_order_acquire)) == seen) {
            if (++spins < CARDS_SPINS) {
                sched_yield();
                continue;
            }
            pthread_mutex_lock(&cards_pool.lock);
            while ((now = atomic_load_explicit(&cards_pool.generation, memory_order_acquire)) == seen)
                pthread_cond_wait(&cards_pool.wake, &cards_pool.lock);
            pthread_mutex_unlock(&cards_pool.lock);
            break;
        }
        seen = now;
        cards_run_share(mine);
        atomic_fetch_sub_explicit(&cards_pool.pending, 1, memory_order_release);
    }
    return NULL;
}

/* Helpers 1 .. want-1 running; returns how many threads (the caller included) can take shares. */
static int cards_ensure_helpers(int want)
{
    if (cards_pool.owner != getpid()) { /* none yet, or inherited from a parent by fork: they are not here */
        cards_pool.helpers = 0;
        cards_pool.owner = getpid();
    }
    while (cards_pool.helpers + 1 < want) {
        pthread_t tid;
        int t = cards_pool.helpers + 1;
        cards_pool.born[t] = atomic_load_explicit(&cards_pool.generation, memory_order_relaxed);
        if (pthread_create(&tid, NULL, cards_helper, (void *)(intptr_t)t) != 0) break;
        pthread_detach(tid);
        cards_pool.helpers++;
    }
    return cards_pool.helpers + 1 < want ? cards_pool.helpers + 1 : want;
}

/* Shares start on multiples of `unit` pairs (a multiple of 64), so an output that starts on a cache line keeps its
 * shares on lines (no two threads write one line; the streaming stores of remove stay aligned). Each `unit`
 * pairs take `unit_words` words of a and of b: 64 for packed hands, a whole block of planes for bit-sliced ones.
 * Threads that cannot be started leave their shares to the calling thread: the batch is always complete. */
static void cards_split(cards_kernel fn, const uint64_t *a, const uint64_t *b, void *out, size_t out_size,
                        size_t n, int threads, size_t unit, size_t unit_words)
{
    if (threads > CARDS_MAX_THREADS) threads = CARDS_MAX_THREADS;
    if (threads <= 1) {
        fn(a, b, out, n);
        return;
    }
    pthread_mutex_lock(&cards_pool.call);
    int running = cards_ensure_helpers(threads);
    struct cards_share *share = cards_pool.share;
    size_t lo = 0;
    for (int t = 0; t < CARDS_MAX_THREADS; t++) { /* helpers beyond this call's threads get empty shares */
        size_t hi = t >= threads - 1 ? n : n * (size_t)(t + 1) / (size_t)threads / unit * unit;
        if (hi < lo) hi = lo;
        size_t in = lo / unit * unit_words;
        share[t] = (struct cards_share){fn, a + in, b + in, (char *)out + lo * out_size, hi - lo};
        lo = hi;
    }
    atomic_store_explicit(&cards_pool.pending, cards_pool.helpers, memory_order_relaxed);
    pthread_mutex_lock(&cards_pool.lock);
    atomic_fetch_add_explicit(&cards_pool.generation, 1, memory_order_release); /* publishes the shares */
    pthread_cond_broadcast(&cards_pool.wake);
    pthread_mutex_unlock(&cards_pool.lock);
    cards_run_share(&share[0]);
    for (int t = running; t < threads; t++) /* shares no helper could be started for */
        cards_run_share(&share[t]);
    while (atomic_load_explicit(&cards_pool.pending, memory_order_acquire) > 0)
        sched_yield();
    pthread_mutex_unlock(&cards_pool.call);
}

/* The multi-threaded entry points every source that includes this header exports, over its own
 * contains_batch and remove_batch (wrapped, so each is called through a pointer of its own type). */
#define CARDS_SPLIT_EXPORTS                                                                                    \
    static void contains_share(const uint64_t *a, const uint64_t *b, void *out, size_t n)                      \
    {                                                                                                          \
        contains_batch(a, b, (uint8_t *)out, n);                                                               \
    }                                                                                                          \
    static void remove_share(const uint64_t *a, const uint64_t *b, void *out, size_t n)                        \
    {                                                                                                          \
        remove_batch(a, b, (uint64_t *)out, n);                                                                \
    }                                                                                                          \
    void contains_batch_mt(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n, int threads)          \
    {                                                                                                          \
        cards_split(contains_share, a, b, out, sizeof *out, n, threads, 64, 64);                               \
    }                                                                                                          \
    void remove_batch_mt(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n, int threads)           \
    {                                                                                                          \
        cards_split(remove_share, a, b, out, sizeof *out, n, threads, 64, 64);                                 \
    }
