/* test_headscore.c - previous-token, induction, duplicate-token and
 * first-token scores (headscore.h) on hand-made attention whose heads do
 * exactly one thing each. */
#include "test_common.h"

#include <string.h>

#include "core/headscore.h"

enum { P = 4, N = 2 * P, H = 4 };

/* Four heads over N tokens, each row one-hot: head 0 previous-token, head 1
 * induction (self before the repeat), head 2 duplicate-token (self before
 * the repeat), head 3 first-token. */
static float W[H][N][N];

static const float *row_of(const void *ctx, int l, int h, int i, float *buf)
{
    (void)ctx, (void)l, (void)buf;
    return W[h][i];
}

static void make_heads(void)
{
    memset(W, 0, sizeof W);
    for (int i = 0; i < N; i++) {
        W[0][i][i > 0 ? i - 1 : 0] = 1.0f;
        W[1][i][i >= P ? i - P + 1 : i] = 1.0f;
        W[2][i][i >= P ? i - P : i] = 1.0f;
        W[3][i][0] = 1.0f;
    }
}

static const int IDS[N] = {5, 9, 2, 7, 5, 9, 2, 7}; /* a segment and its repetition */

static void test_headscore_each_head_scores_its_kind(void **state)
{
    (void)state;
    make_heads();
    AttnSource src = {.L = 1, .H = H, .n_q = N, .n_k = N, .row = row_of};
    HeadTally t[H] = {0};
    float buf[N];
    assert_true(headscore_add(&src, IDS, P, buf, t));
    /* a perfect head scores 1 on its own kind */
    assert_float_equal(headscore_value(&t[0], HEADSCORE_PREV), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_INDUCTION), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_DUP), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[3], HEADSCORE_FIRST), 1.0, 1e-7);
    /* and what it gives the others by the layout: queries 1..7 for prev and
     * first, 4..7 for induction and duplicate */
    assert_float_equal(headscore_value(&t[0], HEADSCORE_FIRST), 1.0 / 7, 1e-7);
    assert_float_equal(headscore_value(&t[0], HEADSCORE_INDUCTION), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[0], HEADSCORE_DUP), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_PREV), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_DUP), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_FIRST), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_FIRST), 1.0 / 7, 1e-7);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_INDUCTION), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[3], HEADSCORE_PREV), 1.0 / 7, 1e-7);
    assert_float_equal(headscore_value(&t[3], HEADSCORE_DUP), 1.0 / 4, 1e-7);
    assert_float_equal(headscore_value(&t[3], HEADSCORE_INDUCTION), 0.0, 1e-7);
    for (int k = 0; k < HEADSCORE_KINDS; k++)
        assert_int_equal(headscore_best(t, H, (HeadScoreKind)k), k);
}

static void test_headscore_uniform_causal_head(void **state)
{
    /* expect: a causal uniform head gives query i 1/(i+1) on each key, so
     * prev = first = mean over i = 1..7 of 1/(i+1); induction the mean of
     * 1/(t+1) over t = 4..7; duplicate likewise (one earlier occurrence) */
    (void)state;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            W[0][i][j] = j <= i ? 1.0f / (float)(i + 1) : 0.0f;
    AttnSource src = {.L = 1, .H = 1, .n_q = N, .n_k = N, .row = row_of};
    HeadTally t = {0};
    float buf[N];
    assert_true(headscore_add(&src, IDS, P, buf, &t));
    double prev = 0, ind = 0;
    for (int i = 1; i < N; i++)
        prev += 1.0 / (i + 1);
    for (int i = P; i < N; i++)
        ind += 1.0 / (i + 1);
    assert_float_equal(headscore_value(&t, HEADSCORE_PREV), prev / 7, 1e-6);
    assert_float_equal(headscore_value(&t, HEADSCORE_FIRST), prev / 7, 1e-6);
    assert_float_equal(headscore_value(&t, HEADSCORE_INDUCTION), ind / 4, 1e-6);
    assert_float_equal(headscore_value(&t, HEADSCORE_DUP), ind / 4, 1e-6);
}

static void test_headscore_sums_over_sequences_and_refuses_bad_layout(void **state)
{
    (void)state;
    make_heads();
    AttnSource src = {.L = 1, .H = H, .n_q = N, .n_k = N, .row = row_of};
    HeadTally t[H] = {0};
    float buf[N];
    /* a sequence that is not a repeat (P = 0) adds no induction query */
    static const int plain[N] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_true(headscore_add(&src, plain, 0, buf, t));
    assert_float_equal(headscore_value(&t[1], HEADSCORE_INDUCTION), -1.0, 0);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_DUP), -1.0, 0);
    assert_int_equal(headscore_best(t, H, HEADSCORE_INDUCTION), -1);
    assert_true(headscore_add(&src, IDS, P, buf, t));
    /* head 1: induction 1 on the repeat alone; head 0: previous-token 1 on both */
    assert_float_equal(headscore_value(&t[1], HEADSCORE_INDUCTION), 1.0, 1e-7);
    assert_float_equal(t[0].count[HEADSCORE_PREV], 14.0, 0);
    assert_float_equal(headscore_value(&t[0], HEADSCORE_PREV), 1.0, 1e-7);
    /* P that does not fit n, or a source that is not square: nothing added */
    HeadTally before[H];
    memcpy(before, t, sizeof t);
    assert_false(headscore_add(&src, IDS, 3, buf, t));
    src.n_k = N - 1;
    assert_false(headscore_add(&src, IDS, P, buf, t));
    assert_memory_equal(before, t, sizeof t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headscore_each_head_scores_its_kind),
        cmocka_unit_test(test_headscore_uniform_causal_head),
        cmocka_unit_test(test_headscore_sums_over_sequences_and_refuses_bad_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
