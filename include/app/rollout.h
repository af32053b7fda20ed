/* rollout.h - attention rollout as a source the views read (rollout.c):
 * built a layer at a time on combine.h's steps, kept, and on a large
 * imported file made on a thread of its own. No curses: the interface polls
 * it through app_poll.
 */
#ifndef ATTNVIZ_ROLLOUT_H
#define ATTNVIZ_ROLLOUT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/av.h"
#include "core/combine.h"

#define ROLLOUT_KEEP (512.0 * 1024 * 1024) /* every layer's rollout kept up to this */
#define ROLLOUT_NOMEM 1                    /* failed: a step out of memory */
#define ROLLOUT_NOTHREAD 2                 /* failed: the thread could not start */

/* Rollout after layers 0..l as an (L, 1, n, n) source, built a layer at a
 * time (combine_rollout_step: R_l = A_hat_l R_{l-1}) and every R_l kept, so
 * that moving up a layer costs one step and moving down nothing. On a large
 * imported file (async) the steps run on a thread of their own: a layer not
 * there yet reads as zeros (`missing` says which was asked for) and
 * app_poll redraws when it comes. Else they run when a row is asked for.
 * A step out of memory, or a thread that cannot start, sets `failed`
 * (ROLLOUT_NOMEM, ROLLOUT_NOTHREAD: app_poll ends the program with its line)
 * and reads as zeros. */
typedef struct {
    AttnSource src;
    const AttnSource *in;
    float *R[AV_MAX_LAYERS]; /* R_0 .. R_{done-1} */
    float *hat;              /* the step's scratch */
    atomic_int done;         /* layers whose R is complete */
    atomic_int want;         /* the thread computes up to this layer */
    atomic_int stop, running, failed;
    bool async, thread_on;
    bool keep_all; /* every R_l kept; else only the last (a huge file) */
    int missing;   /* a layer asked for and not there, or -1 */
    int seen;      /* `done` when app_poll last looked */
    pthread_t thread;
} RolloutSource;

/* Point ro at input in (its rollout as ro->src). keep: in is the same file
 * as before, so the layers computed stand (a long text's rollout takes
 * seconds); async: the steps run on a thread (where every layer's R fits
 * ROLLOUT_KEEP). */
void rollout_init(RolloutSource *ro, const AttnSource *in, bool keep, bool async);

/* Start the thread when a layer is wanted that is not done (async only). */
void rollout_kick(RolloutSource *ro);

/* Stop the thread, keeping what it made. */
void rollout_stop(RolloutSource *ro);

/* Stop the thread and free every layer: ro as after zeroing, want -1. */
void rollout_clear(RolloutSource *ro);

#endif
