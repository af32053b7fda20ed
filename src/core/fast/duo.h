/* duo.h - the meeting point of a forward's two threads (the caller and a
 * helper): a barrier that spins a little before it sleeps, and a helper
 * thread kept between calls. Private to core.
 *
 * A forward's threads meet several times a layer, a few microseconds or
 * tens of microseconds apart. pthread_barrier_wait puts the first to arrive
 * to sleep in the kernel, and waking it costs tens to hundreds of
 * microseconds on a virtual machine; here the first spins for up to
 * DUO_SPIN_US microseconds (a whole step of a layer, mostly), then sleeps on
 * a condition variable, so a helper whose core was taken by another program
 * costs no more than a plain barrier would.
 */
#ifndef ATTNVIZ_DUO_H
#define ATTNVIZ_DUO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct {
    atomic_int arrived; /* threads at the barrier this round */
    atomic_uint round;  /* rounds completed */
    int threads;        /* 1: every wait returns at once */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} DuoBarrier;

/* A barrier for `threads` (1 or 2) threads. Returns 0, or an errno value
 * (then nothing needs destroying). */
int duo_init(DuoBarrier *b, int threads);

/* Wait until every thread has arrived. Every write a thread made before its
 * wait is seen by the others after theirs. */
void duo_wait(DuoBarrier *b);

/* duo_wait; and while this thread waits for the other, it asks the caches
 * for up to `bytes` at ahead (NULL: none), the start of what it reads next:
 * the memory works for it meanwhile instead of idling until the other
 * thread arrives. */
void duo_wait_ahead(DuoBarrier *b, const void *ahead, size_t bytes);

void duo_destroy(DuoBarrier *b);

/* A helper thread a caller keeps between its calls (a GPT-2 state's: a
 * typed key runs the forward and then the logits on two threads, and
 * starting a thread for each took 90 microseconds on a virtual machine).
 * It runs one job at a time; between jobs it spins up to DUO_SPIN_US
 * microseconds, then sleeps until the next. One thread at a time posts
 * to a helper. */
typedef struct DuoHelper DuoHelper;

/* Run fn(arg) on *h's thread, starting the thread when *h is NULL; return
 * at once. The job posted before must have been waited for. Returns 0, or
 * non-zero when no thread could be started (then *h stays NULL and fn has
 * not run: the caller runs it itself). */
int duo_helper_post(DuoHelper **h, void (*fn)(void *), void *arg);

/* Wait until the job posted last has returned; its writes are seen. */
void duo_helper_wait(DuoHelper *h);

/* End h's thread (after its job) and free it; accepts NULL. */
void duo_helper_stop(DuoHelper *h);

#endif
