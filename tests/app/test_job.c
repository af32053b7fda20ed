/* test_job.c - one thread at a time on a kind's request (app/job.h): the
 * newest request wins and a waiting one it replaces never runs; waiting on
 * a running job drops the waiting one; the last finished request is said.
 * The run function here logs each request's value and holds until a gate
 * opens, so that what runs when is decided by the test, not the clock.
 */
#include "test_common.h"

#include <stdatomic.h>
#include <time.h>

#include "app/job.h"
#include "app/kind.h"
#include "core/av.h"

typedef struct {
    atomic_bool open; /* the run holds until this is set */
    int log[8];       /* the values run, in order */
    atomic_int ran;
} Gate;

typedef struct {
    int value;
} Req;

static int run(void *ctx, void *req)
{
    Gate *g = ctx;
    while (!atomic_load(&g->open))
        nanosleep(&(struct timespec){0, 100000}, NULL);
    int i = atomic_fetch_add(&g->ran, 1);
    if (i < 8)
        g->log[i] = ((Req *)req)->value;
    return ((Req *)req)->value < 0 ? AV_ERR_CONFIG : AV_OK;
}

static int put(Job *j, int value)
{
    ((Req *)job_request(j))->value = value;
    return job_start(j);
}

/* Poll until no job runs; how many polls said one finished, the last
 * finished request's value into *last. */
static int drain(Job *j, int *last)
{
    int finished = 0;
    for (int k = 0; k < 100000; k++) {
        bool done;
        void *ran;
        int rc = job_poll(j, &done, &ran);
        if (done)
            finished++, *last = ((Req *)ran)->value;
        if (rc == AV_OK)
            return finished;
        assert_int_equal(rc, KIND_BUSY);
        nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    fail_msg("the job never ended");
    return finished;
}

static bool same(const void *req, const void *want)
{
    return ((const Req *)req)->value == *(const int *)want;
}

/* 1 runs; 2 waits and 3 replaces it: 1 then 3 run, 2 never does, and the
 * poll says one finished (3's): 1's result is stale when it ends. */
static void test_job_newest_wins(void **state)
{
    (void)state;
    Gate g = {0};
    Req a, b;
    Job j = {0};
    job_init(&j, run, &g, &a, &b);
    assert_false(job_busy(&j));
    assert_int_equal(put(&j, 1), KIND_BUSY);
    assert_true(job_busy(&j));
    assert_int_equal(put(&j, 2), KIND_BUSY);
    int two = 2, three = 3, one = 1;
    assert_true(job_has(&j, same, &two));
    assert_int_equal(put(&j, 3), KIND_BUSY);
    assert_false(job_has(&j, same, &two)); /* dropped */
    assert_true(job_has(&j, same, &three));
    assert_true(job_has(&j, same, &one));
    atomic_store(&g.open, true);
    int last = 0;
    assert_int_equal(drain(&j, &last), 1);
    assert_int_equal(last, 3);
    assert_int_equal(atomic_load(&g.ran), 2);
    assert_int_equal(g.log[0], 1);
    assert_int_equal(g.log[1], 3);
    assert_int_equal(j.err, AV_OK);
    assert_false(job_has(&j, same, &three)); /* nothing runs */
    /* idle again: the next request runs at once, its code is the job's */
    assert_int_equal(put(&j, -4), KIND_BUSY);
    assert_int_equal(drain(&j, &last), 1);
    assert_int_equal(last, -4);
    assert_int_equal(j.err, AV_ERR_CONFIG);
    job_wait(&j);
}

/* Waiting on a running job lets it end and drops the waiting request. */
static void test_job_wait_while_busy(void **state)
{
    (void)state;
    Gate g = {0};
    Req a, b;
    Job j = {0};
    job_init(&j, run, &g, &a, &b);
    assert_int_equal(put(&j, 5), KIND_BUSY);
    assert_int_equal(put(&j, 6), KIND_BUSY);
    atomic_store(&g.open, true);
    job_wait(&j); /* joins 5; 6 is dropped */
    assert_false(job_busy(&j));
    assert_int_equal(atomic_load(&g.ran), 1);
    assert_int_equal(g.log[0], 5);
    bool done;
    assert_int_equal(job_poll(&j, &done, NULL), AV_OK);
    assert_false(done);
    job_wait(&j); /* twice, and on a zeroed job: nothing to do */
    Job z = {0};
    job_wait(&z);
}

/* A run that holds until its job is asked to stop, then says so. */
static Job *stopping;
static int run_until_stopped(void *ctx, void *req)
{
    (void)ctx, (void)req;
    while (!atomic_load(&stopping->stop))
        nanosleep(&(struct timespec){0, 100000}, NULL);
    return AV_ERR_STOPPED;
}

static void test_job_wait_asks_to_stop(void **state)
{
    /* expect: job_wait asks the running request to stop (a lens closed with
     * its kind ends at its next batch rather than its last), and a request
     * started after it runs with stop cleared */
    (void)state;
    Req a, b;
    Job j = {0};
    stopping = &j;
    job_init(&j, run_until_stopped, NULL, &a, &b);
    assert_int_equal(job_start(&j), KIND_BUSY);
    job_wait(&j); /* would hang if stop were not set */
    assert_false(job_busy(&j));
    assert_int_equal(j.err, AV_ERR_STOPPED);
    Gate g = {0};
    atomic_store(&g.open, true);
    job_init(&j, run, &g, &a, &b);
    assert_int_equal(put(&j, 3), KIND_BUSY);
    assert_false(atomic_load(&j.stop));
    bool done = false;
    while (job_poll(&j, &done, NULL) == KIND_BUSY)
        nanosleep(&(struct timespec){0, 100000}, NULL);
    assert_true(done);
    assert_int_equal(j.err, AV_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_newest_wins),
        cmocka_unit_test(test_job_wait_while_busy),
        cmocka_unit_test(test_job_wait_asks_to_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
