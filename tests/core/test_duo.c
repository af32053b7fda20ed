/* test_duo.c - the two threads' meeting points (src/core/fast/duo.h,
 * private to core): the barrier lets no thread past before the other has
 * written (also while it asks the caches for what comes next), and the
 * helper thread kept between calls runs every job posted, once, in order,
 * its writes seen after the wait, also after it has gone to sleep between
 * jobs; stopping it ends its thread.
 */
#include "test_common.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/core/fast/duo.h"

enum { ROUNDS = 2000, JOBS = 5000 };

typedef struct {
    DuoBarrier bar;
    int slot[2];       /* what each thread wrote this round */
    int wrong[2];      /* rounds a thread saw the other's slot not yet written */
    const char *ahead; /* NULL: duo_wait; else duo_wait_ahead asking for it */
    size_t ahead_bytes;
} Pair;

typedef struct {
    Pair *p;
    int t;
} Side;

static void *side(void *arg)
{
    Side *s = arg;
    Pair *p = s->p;
    for (int r = 1; r <= ROUNDS; r++) {
        if (p->ahead && s->t == 1 && r % 250 == 0) /* the other asks for all of it, then sleeps */
            nanosleep(&(struct timespec){0, 200000}, NULL);
        p->slot[s->t] = r;
        if (p->ahead)
            duo_wait_ahead(&p->bar, p->ahead, p->ahead_bytes);
        else
            duo_wait(&p->bar);
        p->wrong[s->t] += p->slot[1 - s->t] != r;
        duo_wait(&p->bar); /* nobody writes round r + 1 before both have read */
    }
    return NULL;
}

/* 2,000 rounds of p's two threads; the wrongs are p's. */
static void run_pair(Pair *p)
{
    assert_int_equal(duo_init(&p->bar, 2), 0);
    Side a = {p, 0}, b = {p, 1};
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, side, &b), 0);
    side(&a);
    pthread_join(tid, NULL);
    duo_destroy(&p->bar);
}

static void test_duo_barrier_ahead(void **state)
{
    /* expect: duo_wait_ahead is the same barrier while it asks the caches
     * for a region, whether released during the asking (4 MiB) or after it
     * (the other thread asleep for 200 us) */
    (void)state;
    const size_t bytes = (size_t)4 << 20;
    char *buf = calloc(bytes, 1);
    assert_non_null(buf);
    Pair p;
    memset(&p, 0, sizeof p);
    p.ahead = buf, p.ahead_bytes = bytes;
    run_pair(&p);
    assert_int_equal(p.wrong[0], 0);
    assert_int_equal(p.wrong[1], 0);
    assert_int_equal(p.slot[0], ROUNDS);
    assert_int_equal(p.slot[1], ROUNDS);
    free(buf);
}

static void test_duo_barrier(void **state)
{
    /* expect: after each wait a thread sees what the other wrote before
     * its wait, over 2,000 rounds; one thread's barrier returns at once */
    (void)state;
    Pair p;
    memset(&p, 0, sizeof p);
    run_pair(&p);
    assert_int_equal(p.wrong[0], 0);
    assert_int_equal(p.wrong[1], 0);
    assert_int_equal(p.slot[0], ROUNDS);
    DuoBarrier one;
    assert_int_equal(duo_init(&one, 1), 0);
    duo_wait(&one);
    duo_destroy(&one);
}

typedef struct {
    int runs; /* jobs run */
    int last; /* the value the last job was given */
    int out_of_turn;
    pthread_t ran_on;
} Count;

typedef struct {
    Count *c;
    int value;
} Job;

static void count_job(void *arg)
{
    Job *j = arg;
    j->c->out_of_turn += j->value != j->c->last + 1;
    j->c->last = j->value;
    j->c->runs++;
    j->c->ran_on = pthread_self();
}

static void test_duo_helper_jobs(void **state)
{
    /* expect: 5,000 jobs posted one after another each run once, in order,
     * on one thread that is not the caller's, each job's writes seen after
     * its wait; then, after 20 ms asleep, a job still runs */
    (void)state;
    DuoHelper *h = NULL;
    Count c = {0};
    Job job = {&c, 0};
    pthread_t first = 0;
    for (int k = 1; k <= JOBS; k++) {
        job.value = k;
        assert_int_equal(duo_helper_post(&h, count_job, &job), 0);
        assert_non_null(h);
        duo_helper_wait(h);
        assert_int_equal(c.runs, k);
        assert_int_equal(c.last, k);
        if (k == 1)
            first = c.ran_on;
        assert_true(pthread_equal(c.ran_on, first));
    }
    assert_false(pthread_equal(first, pthread_self()));
    assert_int_equal(c.out_of_turn, 0);
    nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL); /* past the spin: asleep */
    job.value = JOBS + 1;
    assert_int_equal(duo_helper_post(&h, count_job, &job), 0);
    duo_helper_wait(h);
    assert_int_equal(c.runs, JOBS + 1);
    assert_true(pthread_equal(c.ran_on, first));
    duo_helper_stop(h);
    duo_helper_stop(NULL);
}

static void test_duo_helper_stop_after_post(void **state)
{
    /* expect: stopping a helper whose job was posted and not waited for
     * lets the job finish first */
    (void)state;
    DuoHelper *h = NULL;
    Count c = {0};
    Job job = {&c, 1};
    assert_int_equal(duo_helper_post(&h, count_job, &job), 0);
    duo_helper_stop(h);
    assert_int_equal(c.runs, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duo_barrier),
        cmocka_unit_test(test_duo_barrier_ahead),
        cmocka_unit_test(test_duo_helper_jobs),
        cmocka_unit_test(test_duo_helper_stop_after_post),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
