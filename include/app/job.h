/* job.h - a model's work off the key path: one thread at a time runs a
 * kind's function on a request the kind owns, while the interface goes on
 * taking keys. A request made while one runs waits as "the next", and a
 * newer one replaces it (the newest wins; the stale one is dropped).
 *
 * The kind gives two requests of its own type (job_init): the job runs one
 * and lets the caller fill the other (job_request), swapping them when the
 * waiting one starts. What the function writes (a state, logits) belongs
 * to the job while it runs: its owner touches it only when job_busy is
 * false. The thread only calls run; joining, and every decision about what
 * runs next, happen on the caller's thread in job_poll. BERT's forward and
 * fill-ins (bertjob.h) and GPT-2's forward and lens (gpt2job.h) are two
 * such requests.
 */
#ifndef ATTNVIZ_JOB_H
#define ATTNVIZ_JOB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The work of one request, run on the thread: an AV_* code (job.err). */
typedef int (*JobRun)(void *ctx, void *req);

typedef struct {
    JobRun run;
    void *ctx;    /* run's first argument: the kind's weights and state */
    void *req[2]; /* the kind's two requests: req[now] runs, the other waits */
    int now;
    pthread_t thread;
    atomic_bool done; /* set by the thread as it ends */
    atomic_bool stop; /* set by job_wait: the running request may end early (run reads it) */
    bool running;     /* started and not yet joined */
    bool has_next;    /* the other request waits for the running one */
    int err;          /* the last finished request's code */
    double ms;        /* its wall time */
    double t0;        /* when the running request began */
} Job;

/* A job running run(ctx, a or b); a and b are the kind's and outlive j. */
void job_init(Job *j, JobRun run, void *ctx, void *a, void *b);

/* The request to fill before job_start: the one that runs next (the
 * waiting one while a job runs, which a newer request overwrites). */
void *job_request(Job *j);

/* Run the request job_request gave: now when none runs, else after the
 * running one (replacing any other waiting). Returns KIND_BUSY
 * (app/kind.h), or AV_ERR_IO when no thread could be started. */
int job_start(Job *j);

/* Whether a request runs (what it writes is the thread's). */
bool job_busy(const Job *j);

/* Whether req is the running request's or the waiting one's, as the
 * caller compares them with same (a request it would make again). */
bool job_has(const Job *j, bool (*same)(const void *req, const void *want), const void *want);

/* Join a finished request and start the waiting one, if any. Returns
 * KIND_BUSY while one runs, AV_OK when none does; *finished is set when
 * this call joined the last one (j->err and j->ms tell how it went), and
 * *ran (may be NULL) is the request that finished. */
int job_poll(Job *j, bool *finished, void **ran);

/* Wait for a running request, which stop asks to end early (the waiting
 * one is dropped); the requests stay the kind's. Accepts a zeroed or
 * job_init'd job. */
void job_wait(Job *j);

#endif
