/* test_bertjob.c - BERT's forward and fill-ins off the key path
 * (app/bertjob.h): the newest request wins, a waiting one is dropped, and
 * what the thread leaves in the state is bert_forward's own run of the
 * newest ids; a fill-in's logits are bert_mlm_logits of that run.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/bertjob.h"
#include "app/kind.h"
#include "test_random.h"

enum { V = 50, T = 16, D = 32, H = 4, L = 2, F = 64 };

static float *make(BertWeights *w)
{
    Rng r;
    rng_seed(&r, 3);
    size_t per = 4 * (D * D + D) + 2 * D * F + F + D + 4 * D;
    size_t mlm = D * D + 3 * D + V; /* the masked-LM head, its decoder the word embeddings */
    float *a = test_random_floats(&r, (size_t)(V + T + 2) * D + 2 * D + L * per + mlm, 0.5f);
    float *p = a;
    memset(w, 0, sizeof *w);
    w->cfg = (BertConfig){V, T, 2, D, H, L, F, 1e-12f};
#define TAKE(dst, count) (dst = p, p += (count))
    TAKE(w->word, V * D), TAKE(w->pos, T * D), TAKE(w->type, 2 * D);
    TAKE(w->emb_ln_g, D), TAKE(w->emb_ln_b, D);
    for (int l = 0; l < L; l++) {
        BertLayer *y = &w->layer[l];
        TAKE(y->q_w, D * D), TAKE(y->q_b, D), TAKE(y->k_w, D * D), TAKE(y->k_b, D);
        TAKE(y->v_w, D * D), TAKE(y->v_b, D), TAKE(y->o_w, D * D), TAKE(y->o_b, D);
        TAKE(y->ln1_g, D), TAKE(y->ln1_b, D), TAKE(y->fc_w, F * D), TAKE(y->fc_b, F);
        TAKE(y->out_w, D * F), TAKE(y->out_b, D), TAKE(y->ln2_g, D), TAKE(y->ln2_b, D);
    }
    TAKE(w->mlm_w, D * D), TAKE(w->mlm_b, D), TAKE(w->mlm_ln_g, D), TAKE(w->mlm_ln_b, D);
    TAKE(w->mlm_bias, V);
    w->decoder = w->word;
#undef TAKE
    return a;
}

/* Poll until the job is done; how many polls said it finished. */
static int drain(BertJob *j)
{
    int finished = 0;
    for (int k = 0; k < 100000; k++) {
        bool done;
        int rc = bertjob_poll(j, &done);
        finished += done;
        if (rc == AV_OK)
            return finished;
        assert_int_equal(rc, KIND_BUSY);
        nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    fail_msg("the job never ended");
    return finished;
}

/* Three requests while the first runs: the second is dropped, the third
 * runs after the first, and the state is its run. */
static void test_bertjob_newest_wins(void **state)
{
    (void)state;
    BertWeights w;
    float *arena = make(&w);
    const int a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {7, 8, 9, 10, 11, 12}, c[5] = {13, 14, 15, 16, 2};
    const int t6[6] = {0}, t5[5] = {0, 0, 1, 1, 1};
    BertState st = {0}, want = {0};
    BertJob j = {0};
    assert_int_equal(bertjob_start(&j, &w, &st, a, t6, 6, false), KIND_BUSY);
    assert_true(bertjob_busy(&j));
    assert_int_equal(bertjob_start(&j, &w, &st, b, t6, 6, false), KIND_BUSY);
    assert_int_equal(bertjob_start(&j, &w, &st, c, t5, 5, true), KIND_BUSY);
    assert_int_equal(drain(&j), 1); /* finished once: the newest, after the first */
    assert_false(bertjob_busy(&j));
    assert_int_equal(j.err, AV_OK);
    assert_int_equal(bert_forward(&w, c, t5, 5, true, &want), AV_OK);
    assert_int_equal(st.n, 5);
    assert_true(st.causal);
    assert_memory_equal(st.ids, c, sizeof c);
    assert_memory_equal(st.x, want.x, sizeof *st.x * (L + 1) * 5 * D);
    bertjob_free(&j);
    bert_state_free(&st), bert_state_free(&want);
    free(arena);
}

/* An error of the forward is the job's code; freeing a running job waits. */
static void test_bertjob_error_and_free(void **state)
{
    (void)state;
    BertWeights w;
    float *arena = make(&w);
    const int bad[2] = {1, V}, ok[3] = {1, 2, 3}, t[3] = {0};
    BertState st = {0};
    BertJob j = {0};
    assert_int_equal(bertjob_start(&j, &w, &st, bad, t, 2, false), KIND_BUSY);
    drain(&j);
    assert_int_equal(j.err, AV_ERR_CONFIG);
    assert_int_equal(bertjob_start(&j, &w, &st, ok, t, 3, false), KIND_BUSY);
    bertjob_free(&j); /* joins */
    assert_false(bertjob_busy(&j));
    assert_int_equal(st.n, 3);
    bert_state_free(&st);
    free(arena);
}

/* Fill-ins of three tokens asked while the first runs (a key on each):
 * the newest's logits are bert_mlm_logits of bert_forward of its masked
 * ids; the one it replaced never runs, the first is stale. */
static void test_bertjob_fill_in_newest_wins(void **state)
{
    (void)state;
    BertWeights w;
    float *arena = make(&w);
    assert_true(bert_has_mlm(&w));
    enum { MASK = 7, N = 6 };
    const int a[N] = {1, 2, MASK, 4, 5, 6}, b[N] = {1, 2, 3, MASK, 5, 6},
              c[N] = {1, 2, 3, 4, MASK, 6}, t[N] = {0, 0, 0, 1, 1, 1};
    BertState st = {0}, want = {0};
    BertJob j = {0};
    assert_int_equal(bertjob_start_fill(&j, &w, &st, a, t, N, 2), KIND_BUSY);
    assert_int_equal(bertjob_start_fill(&j, &w, &st, b, t, N, 3), KIND_BUSY);
    assert_true(bertjob_fill_pending(&j, b, t, N, 3));
    assert_int_equal(bertjob_start_fill(&j, &w, &st, c, t, N, 4), KIND_BUSY);
    assert_false(bertjob_fill_pending(&j, b, t, N, 3)); /* dropped */
    assert_true(bertjob_fill_pending(&j, c, t, N, 4));
    assert_false(bertjob_fill_pending(&j, c, t, N, 3)); /* another position */
    const float *got;
    assert_int_equal(bertjob_fill(&j, c, t, N, 4, &got), KIND_BUSY); /* not before it ends */
    assert_null(got);
    assert_int_equal(drain(&j), 1);
    assert_int_equal(j.err, AV_OK);
    assert_false(bertjob_fill_pending(&j, c, t, N, 4));
    const float *stale;
    assert_int_equal(bertjob_fill(&j, a, t, N, 2, &stale), KIND_BUSY); /* its result is gone */
    assert_int_equal(bertjob_fill(&j, b, t, N, 3, &stale), KIND_BUSY);
    assert_int_equal(bertjob_fill(&j, c, t, N, 4, &got), AV_OK);
    assert_non_null(got);
    float ref[V];
    assert_int_equal(bert_forward(&w, c, t, N, false, &want), AV_OK);
    assert_int_equal(bert_mlm_logits(&w, &want, 4, 1, ref), AV_OK);
    assert_memory_equal(got, ref, sizeof ref);
    /* a forward after it: the fill-in's logits are no longer said */
    assert_int_equal(bertjob_start(&j, &w, &st, a, t, N, false), KIND_BUSY);
    assert_int_equal(bertjob_fill(&j, c, t, N, 4, &got), KIND_BUSY);
    drain(&j);
    assert_int_equal(bertjob_fill(&j, c, t, N, 4, &got), KIND_BUSY);
    /* a fill-in that fails says its code, once it is the last finished */
    const int bad[N] = {1, 2, 3, 4, MASK, V};
    assert_int_equal(bertjob_start_fill(&j, &w, &st, bad, t, N, 4), KIND_BUSY);
    drain(&j);
    assert_int_equal(bertjob_fill(&j, bad, t, N, 4, &got), AV_ERR_CONFIG);
    assert_null(got);
    bertjob_free(&j);
    bert_state_free(&st), bert_state_free(&want);
    free(arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bertjob_newest_wins),
        cmocka_unit_test(test_bertjob_error_and_free),
        cmocka_unit_test(test_bertjob_fill_in_newest_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
