/* Where a batch spends its time (swarbench.explain.sampling): SIGPROF every few microseconds from a POSIX timer on
 * the monotonic clock (it needs no hardware counters; the CPU-time interval timers only fire at the scheduler's
 * tick, every few milliseconds) to the thread that calls the batch, the interrupted instruction's address kept,
 * and each address told as an offset into the module that holds it (dladdr). A software sampling profiler, as
 * gprof's timer is. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define MOST 65536

static uintptr_t taken[MOST];
static size_t count;
static struct sigaction before;
static timer_t timer;

static void on_tick(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)info;
    ucontext_t *uc = (ucontext_t *)context;
    uintptr_t ip = 0;
#if defined(__x86_64__)
    ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    ip = (uintptr_t)uc->uc_mcontext.pc;
#endif
    size_t i = __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED); /* threads of a split batch tick too */
    if (i < MOST)
        taken[i] = ip;
}

int sampler_start(int interval_us)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_tick;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    count = 0;
    if (sigaction(SIGPROF, &action, &before) != 0)
        return -1;
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_signo = SIGPROF;
#if defined(__linux__) && defined(SIGEV_THREAD_ID)
    /* to the calling thread: a signal to the process may land on a thread asleep in a futex */
    event.sigev_notify = SIGEV_THREAD_ID;
    event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
#else
    event.sigev_notify = SIGEV_SIGNAL;
#endif
    if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
        sigaction(SIGPROF, &before, NULL);
        return -1;
    }
    struct itimerspec every = {{0, 1000L * interval_us}, {0, 1000L * interval_us}};
    return timer_settime(timer, 0, &every, NULL);
}

size_t sampler_stop(void)
{
    timer_delete(timer);
    /* a tick still pending would meet the default action (end the process): ignoring the signal discards it */
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPROF, &ignore, NULL);
    sigaction(SIGPROF, &before, NULL);
    return count < MOST ? count : MOST;
}

/* Sample i as (the file of the module holding it, its offset from the module's base); 0 where no module holds it
 * (code made at run time, such as a JIT's). */
int sampler_where(size_t i, char *file, size_t file_size, uint64_t *offset)
{
    Dl_info info;
    if (i >= count || i >= MOST || !dladdr((void *)taken[i], &info) || !info.dli_fname)
        return 0;
    strncpy(file, info.dli_fname, file_size - 1);
    file[file_size - 1] = 0;
    *offset = (uint64_t)(taken[i] - (uintptr_t)info.dli_fbase);
    return 1;
}

/* Sample i's address itself (for code no module holds: a JIT's, placed by the caller) */
uint64_t sampler_address(size_t i)
{
    return i < count && i < MOST ? (uint64_t)taken[i] : 0;
}
