/* bertjob.c - BERT's forward and fill-ins as requests of a job on a thread
 * (bertjob.h): the copies of the ids, and the function the thread runs.
 */
#include "app/bertjob.h"

#include <stdlib.h>
#include <string.h>

#include "app/kind.h"
#include "core/av.h"

/* The thread's work: the forward, and a fill-in's logits after it. */
static int run(void *ctx, void *req)
{
    const BertJob *j = ctx;
    const BertRequest *r = req;
    int err = bert_forward(j->w, r->ids, r->types, r->n, r->causal, j->st);
    if (!err && r->pos >= 0)
        err = bert_mlm_logits(j->w, j->st, r->pos, 1, r->logits);
    return err;
}

/* The request into r's growing copies. */
static int keep(BertRequest *r, const int *ids, const int *types, int n, bool causal, int pos,
                int V)
{
    if (n > r->cap) {
        int *a = realloc(r->ids, sizeof *a * (size_t)n);
        if (a)
            r->ids = a;
        int *b = a ? realloc(r->types, sizeof *b * (size_t)n) : NULL;
        if (!a || !b)
            return AV_ERR_NOMEM;
        r->types = b, r->cap = n;
    }
    if (pos >= 0 && !r->logits && !(r->logits = malloc(sizeof *r->logits * (size_t)V)))
        return AV_ERR_NOMEM;
    memcpy(r->ids, ids, sizeof *ids * (size_t)n);
    memcpy(r->types, types, sizeof *types * (size_t)n);
    r->n = n, r->causal = causal, r->pos = pos;
    return AV_OK;
}

static int start(BertJob *j, const BertWeights *w, BertState *st, const int *ids, const int *types,
                 int n, bool causal, int pos)
{
    if (!j->job.run)
        job_init(&j->job, run, j, &j->req[0], &j->req[1]);
    if (!bertjob_busy(j))
        j->w = w, j->st = st;
    j->last = NULL;
    int err = keep(job_request(&j->job), ids, types, n, causal, pos, w->cfg.n_vocab);
    return err ? err : job_start(&j->job);
}

int bertjob_start(BertJob *j, const BertWeights *w, BertState *st, const int *ids, const int *types,
                  int n, bool causal)
{
    return start(j, w, st, ids, types, n, causal, -1);
}

int bertjob_start_fill(BertJob *j, const BertWeights *w, BertState *st, const int *ids,
                       const int *types, int n, int pos)
{
    return start(j, w, st, ids, types, n, false, pos);
}

bool bertjob_busy(const BertJob *j)
{
    return job_busy(&j->job);
}

typedef struct {
    const int *ids, *types;
    int n, pos;
} FillKey;

static bool same_fill(const void *req, const void *want)
{
    const BertRequest *r = req;
    const FillKey *k = want;
    return r->pos == k->pos && r->n == k->n && !r->causal &&
           memcmp(r->ids, k->ids, sizeof *k->ids * (size_t)k->n) == 0 &&
           memcmp(r->types, k->types, sizeof *k->types * (size_t)k->n) == 0;
}

bool bertjob_fill_pending(const BertJob *j, const int *ids, const int *types, int n, int pos)
{
    const FillKey k = {ids, types, n, pos};
    return job_has(&j->job, same_fill, &k);
}

int bertjob_fill(const BertJob *j, const int *ids, const int *types, int n, int pos,
                 const float **logits)
{
    const FillKey k = {ids, types, n, pos};
    *logits = NULL;
    if (!j->last || bertjob_busy(j) || !same_fill(j->last, &k))
        return KIND_BUSY;
    if (!j->err)
        *logits = j->last->logits;
    return j->err;
}

int bertjob_poll(BertJob *j, bool *finished)
{
    void *ran;
    int err = job_poll(&j->job, finished, &ran);
    if (*finished) {
        j->err = j->job.err, j->ms = j->job.ms;
        j->last = ran;
    }
    return err;
}

void bertjob_free(BertJob *j)
{
    job_wait(&j->job);
    for (int i = 0; i < 2; i++)
        free(j->req[i].ids), free(j->req[i].types), free(j->req[i].logits);
    memset(j, 0, sizeof *j);
}
