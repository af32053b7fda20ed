/* duo.c - a two-thread barrier that spins before it sleeps (duo.h). */
#include "duo.h"

#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DUO_PAUSE() _mm_pause()
#else
#define DUO_PAUSE() ((void)0)
#endif

/* Microseconds the first thread spins before it sleeps. */
#define DUO_SPIN_US 50

int duo_init(DuoBarrier *b, int threads)
{
    atomic_init(&b->arrived, 0);
    atomic_init(&b->round, 0u);
    b->threads = threads;
    int err = pthread_mutex_init(&b->mu, NULL);
    if (err)
        return err;
    if ((err = pthread_cond_init(&b->cv, NULL)) != 0)
        pthread_mutex_destroy(&b->mu);
    return err;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

/* Whether round r ended within DUO_SPIN_US. */
static int spin_for(DuoBarrier *b, unsigned r)
{
    const double end = now_us() + DUO_SPIN_US;
    for (;;) {
        for (int s = 0; s < 64; s++) {
            if (atomic_load_explicit(&b->round, memory_order_acquire) != r)
                return 1;
            DUO_PAUSE();
        }
        if (now_us() > end)
            return 0;
    }
}

void duo_wait(DuoBarrier *b)
{
    if (b->threads < 2)
        return;
    const unsigned r = atomic_load_explicit(&b->round, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) == b->threads - 1) {
        /* the last: the others wait for the round, not for arrived */
        atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
        pthread_mutex_lock(&b->mu);
        atomic_store_explicit(&b->round, r + 1, memory_order_release);
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
        return;
    }
    if (spin_for(b, r))
        return;
    pthread_mutex_lock(&b->mu);
    while (atomic_load_explicit(&b->round, memory_order_acquire) == r)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

void duo_destroy(DuoBarrier *b)
{
    pthread_cond_destroy(&b->cv);
    pthread_mutex_destroy(&b->mu);
}
