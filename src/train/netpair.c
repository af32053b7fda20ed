/* netpair.c - net.c's second thread, started once and kept: a thread
 * started for every pass cost more than the pass of a small model (OpenBLAS
 * sets up buffers for each new thread that calls it).
 *
 * A character model's step hands the thread six jobs (the forward and
 * backward parts, the optimiser's halves), a few milliseconds apart. Woken
 * through a condition variable, the thread started each late, and the
 * caller noticed its end as late, a tenth of a step on a virtual machine
 * (README "Performance"). So both sides first wait by polling: the
 * thread polls for its next job for SPIN_NS (1 ms) after each one, the caller polls
 * for the job's end for as long, each poll a pause instruction, with a
 * sched_yield every few (so that a waiting side gives its processor to a
 * thread that needs one); only then does either sleep on the condition
 * variable. Jobs are counted (posted, finished); a side that sleeps says so
 * in a flag the other reads after its own count (both sequentially
 * consistent), so a wake-up is never lost.
 */
#include "netpair.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

/* Floats below which net_pair_halves stays on one thread: waking the
 * second one costs more than the loops (an induction model's 10k). */
#define PAIR_MIN_FLOATS 65536

/* How long a side polls before it sleeps: longer than the serial gaps
 * between a step's jobs (tens of microseconds) and than the parts' usual
 * imbalance, short enough that an idle trainer soon stops using a processor. */
#define SPIN_NS 1000000L

/* Polls between two looks at the clock (and sched_yield). */
#define SPIN_POLLS 64

struct NetWorker {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void (*fn)(void *); /* the job; read by the thread once posted counts it */
    void *arg;
    atomic_uint posted, finished; /* jobs posted, jobs finished */
    atomic_bool thread_sleeps, caller_sleeps, quit;
};

static void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Poll *count until it differs from seen (or quit) for SPIN_NS: whether it
 * did. */
static bool spin_until_changed(NetWorker *w, const atomic_uint *count, unsigned seen)
{
    const long t0 = now_ns();
    for (;;) {
        for (int k = 0; k < SPIN_POLLS; k++) {
            if (atomic_load_explicit(count, memory_order_acquire) != seen ||
                atomic_load_explicit(&w->quit, memory_order_relaxed))
                return true;
            spin_pause();
        }
        if (now_ns() - t0 > SPIN_NS)
            return false;
        sched_yield();
    }
}

/* Sleep until *count differs from seen (or quit), *flag raised meanwhile. */
static void sleep_until_changed(NetWorker *w, const atomic_uint *count, unsigned seen,
                                atomic_bool *flag)
{
    pthread_mutex_lock(&w->mu);
    atomic_store(flag, true);
    while (atomic_load(count) == seen && !atomic_load(&w->quit))
        pthread_cond_wait(&w->cv, &w->mu);
    atomic_store(flag, false);
    pthread_mutex_unlock(&w->mu);
}

/* Wake the other side when its flag says it sleeps (after our count's store). */
static void wake_if_sleeping(NetWorker *w, atomic_bool *flag)
{
    if (!atomic_load(flag))
        return;
    pthread_mutex_lock(&w->mu);
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void *worker_main(void *arg)
{
    NetWorker *w = arg;
    unsigned seen = 0;
    for (;;) {
        if (!spin_until_changed(w, &w->posted, seen))
            sleep_until_changed(w, &w->posted, seen, &w->thread_sleeps);
        if (atomic_load(&w->quit))
            break;
        seen = atomic_load_explicit(&w->posted, memory_order_acquire);
        w->fn(w->arg);
        atomic_store(&w->finished, seen);
        wake_if_sleeping(w, &w->caller_sleeps);
    }
    return NULL;
}

/* The worker *slot, started when there is none; NULL when it cannot be. */
static NetWorker *worker_get(NetWorker **slot)
{
    NetWorker *w = *slot;
    if (w)
        return w;
    w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    atomic_init(&w->posted, 0), atomic_init(&w->finished, 0);
    atomic_init(&w->thread_sleeps, false), atomic_init(&w->caller_sleeps, false);
    atomic_init(&w->quit, false);
    if (pthread_create(&w->tid, NULL, worker_main, w) != 0) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return NULL;
    }
    return *slot = w;
}

void net_pair_stop(NetWorker *w)
{
    if (!w)
        return;
    atomic_store(&w->quit, true);
    pthread_mutex_lock(&w->mu); /* a thread between its flag and its wait holds mu */
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->tid, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

void net_pair_run(NetWorker **slot, int threads, void (*fn)(void *), void *a0, void *a1, bool two)
{
    NetWorker *w = a1 && two && threads > 1 ? worker_get(slot) : NULL;
    unsigned job = 0;
    if (w) {
        w->fn = fn, w->arg = a1;
        job = atomic_load_explicit(&w->posted, memory_order_relaxed) + 1;
        atomic_store(&w->posted, job); /* releases fn and arg */
        wake_if_sleeping(w, &w->thread_sleeps);
    }
    fn(a0);
    if (w) {
        if (!spin_until_changed(w, &w->finished, job - 1))
            sleep_until_changed(w, &w->finished, job - 1, &w->caller_sleeps);
    } else if (a1) {
        fn(a1);
    }
}

typedef struct {
    void *ctx;
    NetRange fn;
    size_t i0, i1;
    void *arg;
} Half;

static void half_run(void *arg)
{
    Half *h = arg;
    h->fn(h->ctx, h->i0, h->i1, h->arg);
}

void net_pair_halves(NetWorker **w, int threads, size_t total, NetRange fn, void *ctx, void *arg0,
                     void *arg1)
{
    const size_t mid = total / 2;
    Half h[2] = {{ctx, fn, 0, mid, arg0}, {ctx, fn, mid, total, arg1}};
    net_pair_run(w, threads, half_run, &h[0], &h[1], total >= PAIR_MIN_FLOATS);
}
