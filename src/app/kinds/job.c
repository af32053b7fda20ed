/* job.c - one thread at a time on a kind's request, the newest waiting
 * (job.h). */
#include "app/job.h"

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
    Job *j = arg;
    j->err = j->run(j->ctx, j->req[j->now]);
    j->ms = now_ms() - j->t0;
    atomic_store(&j->done, true);
    return NULL;
}

void job_init(Job *j, JobRun run, void *ctx, void *a, void *b)
{
    job_wait(j);
    j->run = run, j->ctx = ctx, j->req[0] = a, j->req[1] = b, j->now = 0;
    j->err = AV_OK, j->ms = 0;
}

void *job_request(Job *j)
{
    return j->req[j->running ? 1 - j->now : j->now];
}

/* Start the thread on req[now]. */
static int launch(Job *j)
{
    atomic_store(&j->done, false);
    atomic_store(&j->stop, false);
    j->t0 = now_ms();
    if (pthread_create(&j->thread, NULL, job_main, j) != 0)
        return AV_ERR_IO;
    j->running = true;
    return KIND_BUSY;
}

int job_start(Job *j)
{
    if (j->running) { /* the newest request waits; an older waiting one is dropped */
        j->has_next = true;
        return KIND_BUSY;
    }
    return launch(j);
}

bool job_busy(const Job *j)
{
    return j->running;
}

bool job_has(const Job *j, bool (*same)(const void *req, const void *want), const void *want)
{
    if (!j->running)
        return false;
    return same(j->req[j->now], want) || (j->has_next && same(j->req[1 - j->now], want));
}

int job_poll(Job *j, bool *finished, void **ran)
{
    *finished = false;
    if (ran)
        *ran = NULL;
    if (!j->running)
        return AV_OK;
    if (!atomic_load(&j->done))
        return KIND_BUSY;
    pthread_join(j->thread, NULL);
    j->running = false;
    if (j->has_next) { /* the finished request's result is stale: the next one runs */
        j->has_next = false;
        j->now = 1 - j->now;
        if (launch(j) == KIND_BUSY)
            return KIND_BUSY;
        j->err = AV_ERR_IO; /* no thread for it: the caller's next run says so */
    }
    *finished = true;
    if (ran)
        *ran = j->req[j->now];
    return AV_OK;
}

void job_wait(Job *j)
{
    if (j->running) {
        atomic_store(&j->stop, true);
        pthread_join(j->thread, NULL);
    }
    j->running = false, j->has_next = false;
}
