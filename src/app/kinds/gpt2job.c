/* gpt2job.c - GPT-2's forward (and lens) as requests of a job on a thread
 * (gpt2job.h): the copies of the ids, and the function the thread runs.
 */
#include "app/gpt2job.h"

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

/* The thread's work: the forward, timed alone, and the lens after it. */
static int run(void *ctx, void *req)
{
    const Gpt2Job *j = ctx;
    Gpt2Request *r = req;
    double t0 = now_ms();
    int err = r->forward ? gpt2_forward(j->w, r->ids, r->n, j->st) : AV_OK;
    r->from = j->st->from;
    r->ms = now_ms() - t0;
    if (!err && r->lens)
        err = gpt2_lens(j->w, j->st, r->lens, r->logits, &j->job.stop);
    return err;
}

int gpt2job_start_lens(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n,
                       bool forward, Lens *ls, float *logits)
{
    if (!j->job.run)
        job_init(&j->job, run, j, &j->req[0], &j->req[1]);
    if (!gpt2job_busy(j))
        j->w = w, j->st = st;
    Gpt2Request *r = job_request(&j->job);
    if (n > r->cap) {
        int *p = realloc(r->ids, sizeof *p * (size_t)n);
        if (!p)
            return AV_ERR_NOMEM;
        r->ids = p, r->cap = n;
    }
    memcpy(r->ids, ids, sizeof *ids * (size_t)n);
    r->n = n, r->forward = forward, r->lens = ls, r->logits = logits;
    return job_start(&j->job);
}

int gpt2job_start(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n)
{
    return gpt2job_start_lens(j, w, st, ids, n, true, NULL, NULL);
}

bool gpt2job_busy(const Gpt2Job *j)
{
    return job_busy(&j->job);
}

int gpt2job_poll(Gpt2Job *j, bool *finished)
{
    void *ran;
    int err = job_poll(&j->job, finished, &ran);
    if (*finished) {
        const Gpt2Request *r = ran;
        j->err = j->job.err, j->forward = r->forward, j->from = r->from, j->ms = r->ms;
        j->lens = r->lens;
    }
    return err;
}

void gpt2job_free(Gpt2Job *j)
{
    job_wait(&j->job);
    free(j->req[0].ids), free(j->req[1].ids);
    memset(j, 0, sizeof *j);
}
