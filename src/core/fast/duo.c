/* duo.c - a two-thread barrier that spins before it sleeps, and a helper
 * thread kept between calls (duo.h). */
#include "duo.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DUO_PAUSE() _mm_pause()
#else
#define DUO_PAUSE() ((void)0)
#endif

/* Microseconds the first thread spins before it sleeps. */
#define DUO_SPIN_US 50

/* Bytes of a cache line, and of what duo_wait_ahead asks for between two
 * looks at the barrier. */
#define DUO_LINE 64
#define DUO_AHEAD_STEP 1024

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

/* Whether *a moved off v within DUO_SPIN_US. */
static int spin_for(atomic_uint *a, unsigned v)
{
    const double end = now_us() + DUO_SPIN_US;
    for (;;) {
        for (int s = 0; s < 64; s++) {
            if (atomic_load_explicit(a, memory_order_acquire) != v)
                return 1;
            DUO_PAUSE();
        }
        if (now_us() > end)
            return 0;
    }
}

void duo_wait(DuoBarrier *b)
{
    duo_wait_ahead(b, NULL, 0);
}

/* Whether *a moved off v while the caches were asked for up to `bytes` at
 * ahead, DUO_AHEAD_STEP at a time between looks. */
static bool fetch_while(atomic_uint *a, unsigned v, const char *ahead, size_t bytes)
{
    for (size_t at = 0; ahead && at < bytes; at += DUO_AHEAD_STEP) {
        if (atomic_load_explicit(a, memory_order_acquire) != v)
            return true;
        for (size_t l = at; l < at + DUO_AHEAD_STEP && l < bytes; l += DUO_LINE)
            __builtin_prefetch(ahead + l, 0, 2);
    }
    return false;
}

void duo_wait_ahead(DuoBarrier *b, const void *ahead, size_t bytes)
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
    if (fetch_while(&b->round, r, ahead, bytes) || spin_for(&b->round, r))
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

/* ------------------------------------------------------------ the helper */

struct DuoHelper {
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;  /* a job posted, or one done */
    atomic_uint posted; /* jobs posted */
    atomic_uint done;   /* jobs done */
    void (*fn)(void *); /* the job posted last; NULL: end the thread */
    void *arg;
};

/* Wait until *a is no longer v: spin, then sleep on h's condition. */
static void helper_await(DuoHelper *h, atomic_uint *a, unsigned v)
{
    if (spin_for(a, v))
        return;
    pthread_mutex_lock(&h->mu);
    while (atomic_load_explicit(a, memory_order_acquire) == v)
        pthread_cond_wait(&h->cv, &h->mu);
    pthread_mutex_unlock(&h->mu);
}

/* Make a store to *a (release) seen by a waiter asleep in helper_await. */
static void helper_publish(DuoHelper *h, atomic_uint *a, unsigned v)
{
    pthread_mutex_lock(&h->mu);
    atomic_store_explicit(a, v, memory_order_release);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

static void *helper_main(void *arg)
{
    DuoHelper *h = arg;
    for (unsigned seen = 0;; seen++) {
        helper_await(h, &h->posted, seen);
        void (*fn)(void *) = h->fn;
        void *job = h->arg;
        if (!fn)
            return NULL;
        fn(job);
        helper_publish(h, &h->done, seen + 1);
    }
}

static DuoHelper *helper_start(void)
{
    DuoHelper *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    atomic_init(&h->posted, 0u);
    atomic_init(&h->done, 0u);
    const bool mu = pthread_mutex_init(&h->mu, NULL) == 0;
    const bool cv = mu && pthread_cond_init(&h->cv, NULL) == 0;
    if (cv && pthread_create(&h->tid, NULL, helper_main, h) == 0)
        return h;
    if (cv)
        pthread_cond_destroy(&h->cv);
    if (mu)
        pthread_mutex_destroy(&h->mu);
    free(h);
    return NULL;
}

int duo_helper_post(DuoHelper **hp, void (*fn)(void *), void *arg)
{
    if (!*hp && !(*hp = helper_start()))
        return 1;
    DuoHelper *h = *hp;
    h->fn = fn, h->arg = arg;
    helper_publish(h, &h->posted, atomic_load_explicit(&h->posted, memory_order_relaxed) + 1);
    return 0;
}

void duo_helper_wait(DuoHelper *h)
{
    const unsigned want = atomic_load_explicit(&h->posted, memory_order_relaxed);
    unsigned got;
    while ((got = atomic_load_explicit(&h->done, memory_order_acquire)) != want)
        helper_await(h, &h->done, got);
}

void duo_helper_stop(DuoHelper *h)
{
    if (!h)
        return;
    duo_helper_wait(h);
    duo_helper_post(&h, NULL, NULL);
    pthread_join(h->tid, NULL);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}
