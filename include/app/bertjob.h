/* bertjob.h - BERT's requests for a job off the key path (app/job.h), for
 * models too big to be live (kind_bert.c's slow class): a forward of ids
 * and token types (the causal what-if) into the kind's state, and a
 * fill-in, the same forward of a text with one token masked followed by
 * the masked-LM logits of that position. The newest request wins; the
 * stale one is dropped. The state (and a fill-in's logits) belongs to the
 * job while it runs: its owner touches it only when bertjob_busy is false.
 */
#ifndef ATTNVIZ_BERTJOB_H
#define ATTNVIZ_BERTJOB_H

#include <stdbool.h>

#include "app/job.h"
#include "core/bert.h"

typedef struct {
    int *ids, *types, n, cap;
    bool causal;
    int pos;       /* >= 0: a fill-in, the masked-LM logits of position pos */
    float *logits; /* ... into these (the model's vocabulary) */
} BertRequest;

typedef struct {
    Job job;
    const BertWeights *w;
    BertState *st;
    BertRequest req[2];      /* the job's two requests (job.h) */
    const BertRequest *last; /* the last one finished, until the next starts */
    int err;                 /* the last finished request's code */
    double ms;               /* its wall time */
} BertJob;

/* Run ids and types[0..n) (causal: the what-if) through w into st on a
 * thread; the job takes copies. When a job runs, the request becomes the
 * next one (replacing any other waiting). Returns KIND_BUSY (app/kind.h),
 * or AV_ERR_NOMEM (nothing started) or AV_ERR_IO (no thread started). */
int bertjob_start(BertJob *j, const BertWeights *w, BertState *st, const int *ids, const int *types,
                  int n, bool causal);

/* A fill-in: bertjob_start's forward (not causal), then the masked-LM
 * logits of position pos into the request's own buffer (bertjob_fill
 * reads them). The caller masks ids[pos] itself. w must have the head. */
int bertjob_start_fill(BertJob *j, const BertWeights *w, BertState *st, const int *ids,
                       const int *types, int n, int pos);

/* Whether a job runs (st is the thread's). */
bool bertjob_busy(const BertJob *j);

/* Whether the fill-in of (ids, types, n, pos) is running or waiting. */
bool bertjob_fill_pending(const BertJob *j, const int *ids, const int *types, int n, int pos);

/* The fill-in of (ids, types, n, pos) when it is the last one finished:
 * its code (j->err), and when AV_OK its logits (the model's vocabulary) in
 * *logits; KIND_BUSY (*logits NULL) when it is not. */
int bertjob_fill(const BertJob *j, const int *ids, const int *types, int n, int pos,
                 const float **logits);

/* Join a finished job and start the waiting one, if any. Returns KIND_BUSY
 * while a job runs, AV_OK when none does; *finished is set when this call
 * joined the last job (j->err and j->ms tell how it went). */
int bertjob_poll(BertJob *j, bool *finished);

/* Wait for a running job and free the copies; accepts a zeroed job. */
void bertjob_free(BertJob *j);

#endif
