/* One batch split over threads: each thread runs the single-threaded kernel of its source file on its own
 * contiguous share of the pairs. At a million pairs the inputs (16 MB) no longer fit a core's L2, and one core
 * cannot pull them from L3 as fast as two can, so the second core is what lowers ns/op there; small batches
 * are not split, since starting a thread costs more than they take. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*cards_kernel)(const uint64_t *a, const uint64_t *b, void *out, size_t n);

struct cards_share {
    cards_kernel fn;
    const uint64_t *a, *b;
    char *out;
    size_t n;
};

static void *cards_run_share(void *arg)
{
    struct cards_share *s = arg;
    s->fn(s->a, s->b, s->out, s->n);
    return NULL;
}

/* Shares start on multiples of 64 pairs, so an output that starts on a cache line keeps its shares on lines
 * (no two threads write one line; the streaming stores of remove stay aligned). A thread that cannot be
 * started leaves its share to the calling thread: the batch is always complete. */
static void cards_split(cards_kernel fn, const uint64_t *a, const uint64_t *b, void *out, size_t out_size,
                        size_t n, int threads)
{
    enum { MAX_THREADS = 64 };
    struct cards_share share[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (threads < 1) threads = 1;
    size_t lo = 0;
    for (int t = 0; t < threads; t++) {
        size_t hi = t == threads - 1 ? n : ((n * (size_t)(t + 1) / (size_t)threads) & ~(size_t)63);
        if (hi < lo) hi = lo;
        share[t] = (struct cards_share){fn, a + lo, b + lo, (char *)out + lo * out_size, hi - lo};
        lo = hi;
    }
    for (int t = 1; t < threads; t++)
        started[t] = share[t].n > 0 && pthread_create(&tid[t], NULL, cards_run_share, &share[t]) == 0;
    cards_run_share(&share[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            cards_run_share(&share[t]);
    }
}

/* The multi-threaded entry points every source that includes this header exports, over its own
 * contains_batch and remove_batch (wrapped, so each is called through a pointer of its own type). */
#define CARDS_SPLIT_EXPORTS                                                                                    \
    static void contains_share(const uint64_t *a, const uint64_t *b, void *out, size_t n)                    \
    {                                                                                                          \
        contains_batch(a, b, (uint8_t *)out, n);                                                               \
    }                                                                                                          \
    static void remove_share(const uint64_t *a, const uint64_t *b, void *out, size_t n)                      \
    {                                                                                                          \
        remove_batch(a, b, (uint64_t *)out, n);                                                                \
    }                                                                                                          \
    void contains_batch_mt(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n, int threads)       \
    {                                                                                                          \
        cards_split(contains_share, a, b, out, sizeof *out, n, threads);                                       \
    }                                                                                                          \
    void remove_batch_mt(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n, int threads)          \
    {                                                                                                          \
        cards_split(remove_share, a, b, out, sizeof *out, n, threads);                                         \
    }
