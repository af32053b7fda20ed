/* gpt2job.h - GPT-2's requests for a job off the key path (app/job.h), for
 * models too big to be live (kind_gpt2.c's slow class): a forward of ids
 * into the kind's state and, when asked, the logit lens of it into the
 * kind's lens; for any model in the interface, the lens alone
 * (Kind.lens_background). The newest request wins; the stale one is
 * dropped. The state belongs to the job while it runs: its owner touches
 * it only when gpt2job_busy is false.
 */
#ifndef ATTNVIZ_GPT2JOB_H
#define ATTNVIZ_GPT2JOB_H

#include <stdbool.h>

#include "app/job.h"
#include "core/gpt2.h"
#include "core/lens.h"

typedef struct {
    int *ids, n, cap; /* the tokens */
    Lens *lens;       /* the lens to fill after the forward, or NULL */
    bool forward;     /* the forward first (false: the state holds the ids already,
                         and the thread only reads it) */
    float *logits;    /* its scratch (V floats) */
    int from;         /* after the run: the forward's first computed position */
    double ms;        /* ... and its time alone */
} Gpt2Request;

typedef struct {
    Job job;
    const Gpt2Weights *w;
    Gpt2State *st;
    Gpt2Request req[2]; /* the job's two requests (job.h) */
    /* the last finished request's: */
    int err;      /* gpt2_forward's code, else the lens's */
    bool forward; /* whether it ran the forward (false: the lens alone) */
    int from;     /* its first computed position (st->from) */
    double ms;    /* the forward's wall time */
    Lens *lens;   /* the lens it filled, or NULL */
} Gpt2Job;

/* Run ids[0..n) through w into st on a thread: the job takes a copy of
 * the ids. When a job runs, the request becomes the next one (replacing
 * any other waiting). Returns KIND_BUSY (app/kind.h), or AV_ERR_NOMEM
 * (nothing started) or AV_ERR_IO (no thread could be started). */
int gpt2job_start(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n);

/* gpt2job_start (without the forward when st already holds ids[0..n):
 * forward false), and after it gpt2_lens of st into ls with logits (V
 * floats) as scratch: both the job's while it runs. j->err is the
 * forward's code, else the lens's; j->ms the forward's time alone. */
int gpt2job_start_lens(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n,
                       bool forward, Lens *ls, float *logits);

/* Whether a job runs (st is the thread's). */
bool gpt2job_busy(const Gpt2Job *j);

/* Join a finished job and start the waiting one, if any. Returns KIND_BUSY
 * while a job runs, AV_OK when none does; *finished is set when this call
 * joined the last job (j->err, j->from and j->ms tell how it went). */
int gpt2job_poll(Gpt2Job *j, bool *finished);

/* Wait for a running job and free the copies; accepts a zeroed job. */
void gpt2job_free(Gpt2Job *j);

#endif
