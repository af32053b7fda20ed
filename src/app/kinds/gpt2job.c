/* gpt2job.c - a GPT-2 forward on a thread of its own (gpt2job.h). The
 * thread only calls gpt2_forward (and gpt2_lens after it when asked); joining, and every decision about what
 * runs next, happen on the caller's thread in gpt2job_poll.
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

static void *job_main(void *arg)
{
    Gpt2Job *j = arg;
    j->err = gpt2_forward(j->w, j->ids, j->n, j->st);
    j->from = j->st->from;
    j->ms = now_ms() - j->t0;
    if (!j->err && j->lens)
        j->err = gpt2_lens(j->w, j->st, j->lens, j->logits);
    atomic_store(&j->done, true);
    return NULL;
}

/* ids[0..n) into a growing copy. */
static int keep(int **dst, int *cap, const int *ids, int n)
{
    if (n > *cap) {
        int *p = realloc(*dst, sizeof *p * (size_t)n);
        if (!p)
            return AV_ERR_NOMEM;
        *dst = p, *cap = n;
    }
    memcpy(*dst, ids, sizeof *ids * (size_t)n);
    return AV_OK;
}

/* Start the thread on j->ids[0..j->n). */
static int launch(Gpt2Job *j)
{
    atomic_store(&j->done, false);
    j->t0 = now_ms();
    if (pthread_create(&j->thread, NULL, job_main, j) != 0)
        return AV_ERR_IO;
    j->running = true;
    return KIND_BUSY;
}

int gpt2job_start_lens(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n,
                       Lens *ls, float *logits)
{
    if (j->running) { /* the newest request waits; an older waiting one is dropped */
        int err = keep(&j->next, &j->next_cap, ids, n);
        if (err)
            return err;
        j->next_n = n, j->next_lens = ls, j->next_logits = logits, j->has_next = true;
        return KIND_BUSY;
    }
    j->w = w, j->st = st;
    int err = keep(&j->ids, &j->cap, ids, n);
    if (err)
        return err;
    j->n = n, j->lens = ls, j->logits = logits;
    return launch(j);
}

int gpt2job_start(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n)
{
    return gpt2job_start_lens(j, w, st, ids, n, NULL, NULL);
}

bool gpt2job_busy(const Gpt2Job *j)
{
    return j->running;
}

int gpt2job_poll(Gpt2Job *j, bool *finished)
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
        int *t = j->ids, c = j->cap;
        j->ids = j->next, j->cap = j->next_cap, j->n = j->next_n;
        j->next = t, j->next_cap = c;
        j->lens = j->next_lens, j->logits = j->next_logits;
        if (launch(j) == KIND_BUSY)
            return KIND_BUSY;
    }
    *finished = true;
    return AV_OK;
}

void gpt2job_free(Gpt2Job *j)
{
    if (j->running)
        pthread_join(j->thread, NULL);
    free(j->ids), free(j->next);
    memset(j, 0, sizeof *j);
}
