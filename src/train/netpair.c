/* netpair.c - net.c's second thread, started once and kept: a thread
 * started for every pass cost more than the pass of a small model (OpenBLAS
 * sets up buffers for each new thread that calls it). It waits for a job,
 * runs it and says so, under one mutex and one condition variable.
 */
#include "netpair.h"

#include <pthread.h>
#include <stdlib.h>

/* Floats below which net_pair_halves stays on one thread: waking the
 * second one costs more than the loops (an induction model's 10k). */
#define PAIR_MIN_FLOATS 65536

struct NetWorker {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void (*fn)(void *); /* the job, NULL when none */
    void *arg;
    bool done, quit;
};

static void *worker_main(void *arg)
{
    NetWorker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->fn && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (!w->fn)
            break;
        void (*fn)(void *) = w->fn;
        void *job = w->arg;
        pthread_mutex_unlock(&w->mu);
        fn(job);
        pthread_mutex_lock(&w->mu);
        w->fn = NULL, w->done = true;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
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
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->tid, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

void net_pair_run(NetWorker **slot, int threads, void (*fn)(void *), void *a0, void *a1,
                  bool two)
{
    NetWorker *w = a1 && two && threads > 1 ? worker_get(slot) : NULL;
    if (w) {
        pthread_mutex_lock(&w->mu);
        w->fn = fn, w->arg = a1, w->done = false;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
    fn(a0);
    if (w) {
        pthread_mutex_lock(&w->mu);
        while (!w->done)
            pthread_cond_wait(&w->cv, &w->mu);
        pthread_mutex_unlock(&w->mu);
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

void net_pair_halves(NetWorker **w, int threads, size_t total, NetRange fn, void *ctx,
                     void *arg0, void *arg1)
{
    const size_t mid = total / 2;
    Half h[2] = {{ctx, fn, 0, mid, arg0}, {ctx, fn, mid, total, arg1}};
    net_pair_run(w, threads, half_run, &h[0], &h[1], total >= PAIR_MIN_FLOATS);
}
