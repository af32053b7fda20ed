/* bertjob.c - a BERT forward on a thread of its own (bertjob.h). The thread
 * only calls bert_forward; joining, and every decision about what runs
 * next, happen on the caller's thread in bertjob_poll.
 */
#include "app/bertjob.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/kind.h"
#include "core/av.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *job_main(void *arg)
{
    BertJob *j = arg;
    j->err = bert_forward(j->w, j->now.ids, j->now.types, j->now.n, j->now.causal, j->st);
    j->ms = now_ms() - j->t0;
    atomic_store(&j->done, true);
    return NULL;
}

/* The request into r's growing copies. */
static int keep(BertRequest *r, const int *ids, const int *types, int n, bool causal)
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
    memcpy(r->ids, ids, sizeof *ids * (size_t)n);
    memcpy(r->types, types, sizeof *types * (size_t)n);
    r->n = n, r->causal = causal;
    return AV_OK;
}

static int launch(BertJob *j)
{
    atomic_store(&j->done, false);
    j->t0 = now_ms();
    if (pthread_create(&j->thread, NULL, job_main, j) != 0)
        return AV_ERR_IO;
    j->running = true;
    return KIND_BUSY;
}

int bertjob_start(BertJob *j, const BertWeights *w, BertState *st, const int *ids,
                  const int *types, int n, bool causal)
{
    if (j->running) { /* the newest request waits; an older waiting one is dropped */
        int err = keep(&j->next, ids, types, n, causal);
        if (err)
            return err;
        j->has_next = true;
        return KIND_BUSY;
    }
    j->w = w, j->st = st;
    int err = keep(&j->now, ids, types, n, causal);
    return err ? err : launch(j);
}

bool bertjob_busy(const BertJob *j)
{
    return j->running;
}

int bertjob_poll(BertJob *j, bool *finished)
{
    *finished = false;
    if (!j->running)
        return AV_OK;
    if (!atomic_load(&j->done))
        return KIND_BUSY;
    pthread_join(j->thread, NULL);
    j->running = false;
    if (j->has_next) {
        j->has_next = false;
        BertRequest t = j->now;
        j->now = j->next, j->next = t;
        if (launch(j) == KIND_BUSY)
            return KIND_BUSY;
    }
    *finished = true;
    return AV_OK;
}

void bertjob_free(BertJob *j)
{
    if (j->running)
        pthread_join(j->thread, NULL);
    free(j->now.ids), free(j->now.types), free(j->next.ids), free(j->next.types);
    memset(j, 0, sizeof *j);
}
