/* duo.h - the meeting point of a forward's two threads (the caller and one
 * helper started per call): a barrier that spins a little before it
 * sleeps. Private to core.
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

typedef struct {
    atomic_int arrived;   /* threads at the barrier this round */
    atomic_uint round;    /* rounds completed */
    int threads;          /* 1: every wait returns at once */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} DuoBarrier;

/* A barrier for `threads` (1 or 2) threads. Returns 0, or an errno value
 * (then nothing needs destroying). */
int duo_init(DuoBarrier *b, int threads);

/* Wait until every thread has arrived. Every write a thread made before its
 * wait is seen by the others after theirs. */
void duo_wait(DuoBarrier *b);

void duo_destroy(DuoBarrier *b);

#endif
