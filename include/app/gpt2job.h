/* gpt2job.h - a GPT-2 forward off the key path, for models too big to be
 * live (kind_gpt2.c's slow class): one thread at a time runs gpt2_forward
 * into the kind's state (and, when asked, the logit lens of it into the
 * kind's lens) while the interface goes on taking keys. A request
 * made while one runs waits as "the next", and a newer one replaces it (the
 * newest text wins; the stale one is dropped). The state belongs to the job
 * while it runs: its owner touches it only when gpt2job_busy is false.
 */
#ifndef ATTNVIZ_GPT2JOB_H
#define ATTNVIZ_GPT2JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core/gpt2.h"
#include "core/lens.h"

typedef struct {
    const Gpt2Weights *w;
    Gpt2State *st;
    pthread_t thread;
    atomic_bool done; /* set by the thread as it ends */
    bool running;     /* started and not yet joined */
    int *ids, n, cap; /* the running job's tokens */
    Lens *lens;       /* ... and the lens it fills after the forward, or NULL */
    float *logits;    /* its scratch (V floats) */
    int *next, next_n, next_cap;
    Lens *next_lens;
    float *next_logits;
    bool has_next; /* a request waiting for the running one */
    int err;       /* the last finished job's gpt2_forward code */
    int from;      /* its first computed position (st->from) */
    double ms;     /* its wall time */
    double t0;     /* when the running job began */
} Gpt2Job;

/* Run ids[0..n) through w into st on a thread: the job takes a copy of
 * the ids. When a job runs, the request becomes the next one (replacing
 * any other waiting). Returns KIND_BUSY (app/kind.h), or AV_ERR_NOMEM
 * (nothing started) or AV_ERR_IO (no thread could be started). */
int gpt2job_start(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n);

/* gpt2job_start, and after the forward gpt2_lens of st into ls with
 * logits (V floats) as scratch: both the job's while it runs. j->err is
 * the forward's code, else the lens's; j->ms the forward's time alone. */
int gpt2job_start_lens(Gpt2Job *j, const Gpt2Weights *w, Gpt2State *st, const int *ids, int n,
                       Lens *ls, float *logits);

/* Whether a job runs (st is the thread's). */
bool gpt2job_busy(const Gpt2Job *j);

/* Join a finished job and start the waiting one, if any. Returns KIND_BUSY
 * while a job runs, AV_OK when none does; *finished is set when this call
 * joined the last job (j->err, j->from and j->ms tell how it went). */
int gpt2job_poll(Gpt2Job *j, bool *finished);

/* Wait for a running job and free the copies; accepts a zeroed job. */
void gpt2job_free(Gpt2Job *j);

#endif
