/* bertjob.h - a BERT forward off the key path, for models too big to be live
 * (kind_bert.c's slow class): one thread at a time runs bert_forward into the
 * kind's state while the interface goes on taking keys. A request made while
 * one runs waits as "the next", and a newer one replaces it (the newest text
 * wins; the stale one is dropped). The state belongs to the job while it
 * runs: its owner touches it only when bertjob_busy is false. As
 * gpt2job.h's, for BERT's request (ids, token types, the causal what-if).
 */
#ifndef ATTNVIZ_BERTJOB_H
#define ATTNVIZ_BERTJOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/bert.h"

typedef struct {
    int *ids, *types, n, cap;
    bool causal;
} BertRequest;

typedef struct {
    const BertWeights *w;
    BertState *st;
    pthread_t thread;
    atomic_bool done; /* set by the thread as it ends */
    bool running;     /* started and not yet joined */
    BertRequest now, next;
    bool has_next; /* a request waiting for the running one */
    int err;       /* the last finished job's bert_forward code */
    double ms;     /* its wall time */
    double t0;     /* when the running job began */
} BertJob;

/* Run ids and types[0..n) (causal: the what-if) through w into st on a
 * thread; the job takes copies. When a job runs, the request becomes the
 * next one (replacing any other waiting). Returns KIND_BUSY (app/kind.h),
 * or AV_ERR_NOMEM (nothing started) or AV_ERR_IO (no thread started). */
int bertjob_start(BertJob *j, const BertWeights *w, BertState *st, const int *ids,
                  const int *types, int n, bool causal);

/* Whether a job runs (st is the thread's). */
bool bertjob_busy(const BertJob *j);

/* Join a finished job and start the waiting one, if any. Returns KIND_BUSY
 * while a job runs, AV_OK when none does; *finished is set when this call
 * joined the last job (j->err and j->ms tell how it went). */
int bertjob_poll(BertJob *j, bool *finished);

/* Wait for a running job and free the copies; accepts a zeroed job. */
void bertjob_free(BertJob *j);

#endif
