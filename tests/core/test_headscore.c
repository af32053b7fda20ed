/* test_headscore.c - previous-token, induction, duplicate-token,
 * first-token, next-token and no-op scores (headscore.h) on hand-made
 * attention whose heads do exactly one thing each. */
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
static const HeadProbe PROBE = {.ids = IDS, .P = P, .cls = -1, .sep = -1};

static void test_headscore_each_head_scores_its_kind(void **state)
{
    (void)state;
    make_heads();
    AttnSource src = {.L = 1, .H = H, .n_q = N, .n_k = N, .row = row_of};
    HeadTally t[H] = {0};
    float buf[N];
    assert_true(headscore_add(&src, &PROBE, buf, t));
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
    for (int k = 0; k < HEADSCORE_NEXT; k++)
        assert_int_equal(headscore_best(t, H, (HeadScoreKind)k), k);
    /* next-token: no head puts a query on the key after it (8 - 1 queries) */
    for (int h = 0; h < H; h++) {
        assert_float_equal(headscore_value(&t[h], HEADSCORE_NEXT), 0.0, 0);
        assert_float_equal(t[h].count[HEADSCORE_NEXT], 7.0, 0);
    }
    /* no [CLS] or [SEP] in the model: the no-op scores are absent, not 0 */
    for (int h = 0; h < H; h++) {
        assert_float_equal(headscore_value(&t[h], HEADSCORE_CLS), -1.0, 0);
        assert_float_equal(headscore_value(&t[h], HEADSCORE_SEP), -1.0, 0);
    }
    assert_int_equal(headscore_best(t, H, HEADSCORE_CLS), -1);
    assert_int_equal(headscore_named(t, H, HEADSCORE_SEP), -1);
}

/* [CLS] seg seg [SEP], as BERT's probes: head 0 next-token, head 1 every
 * row on [SEP], head 2 every row on [CLS], head 3 induction from at = 1
 * (the other rows on themselves). */
enum { W2 = 2 * P + 2, CLS = 101, SEP = 102 };
static float B[H][W2][W2];

static const float *row_b(const void *ctx, int l, int h, int i, float *buf)
{
    (void)ctx, (void)l, (void)buf;
    return B[h][i];
}

static void test_headscore_next_and_no_op_heads(void **state)
{
    (void)state;
    static const int ids[W2] = {CLS, 5, 9, 2, 7, 5, 9, 2, 7, SEP};
    memset(B, 0, sizeof B);
    for (int i = 0; i < W2; i++) {
        B[0][i][i + 1 < W2 ? i + 1 : i] = 1.0f;
        B[1][i][W2 - 1] = 1.0f;
        B[2][i][0] = 1.0f;
        B[3][i][i >= 1 + P && i < 1 + 2 * P ? i - P + 1 : i] = 1.0f;
    }
    AttnSource src = {.L = 1, .H = H, .n_q = W2, .n_k = W2, .row = row_b};
    const HeadProbe p = {.ids = ids, .P = P, .at = 1, .cls = CLS, .sep = SEP};
    HeadTally t[H] = {0};
    float buf[W2];
    assert_true(headscore_add(&src, &p, buf, t));
    /* each head scores 1 on its kind: next over queries 0..8, the no-op
     * ones over the 8 word queries (not [CLS]'s or [SEP]'s own), induction
     * over the second copy, positions 5..8 */
    assert_float_equal(headscore_value(&t[0], HEADSCORE_NEXT), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_SEP), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_CLS), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[3], HEADSCORE_INDUCTION), 1.0, 1e-7);
    assert_float_equal(t[1].count[HEADSCORE_SEP], 8.0, 0);
    assert_float_equal(t[0].count[HEADSCORE_NEXT], 9.0, 0);
    /* and what the layout gives the others: word 8's next key is [SEP];
     * head 1's query 8 is its next-token; head 2 is also the first-token head */
    assert_float_equal(headscore_value(&t[0], HEADSCORE_SEP), 1.0 / 8, 1e-7);
    assert_float_equal(headscore_value(&t[0], HEADSCORE_CLS), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_NEXT), 1.0 / 9, 1e-7);
    assert_float_equal(headscore_value(&t[1], HEADSCORE_CLS), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_FIRST), 1.0, 1e-7);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_SEP), 0.0, 1e-7);
    assert_float_equal(headscore_value(&t[3], HEADSCORE_NEXT), 0.0, 1e-7);
    assert_int_equal(headscore_named(t, H, HEADSCORE_NEXT), 0);
    assert_int_equal(headscore_named(t, H, HEADSCORE_SEP), 1);
    assert_int_equal(headscore_named(t, H, HEADSCORE_CLS), 2);
    assert_string_equal(headscore_name(HEADSCORE_SEP), "no-op on [SEP]");
    assert_string_equal(headscore_column(HEADSCORE_CLS), "noop_cls");
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
    assert_true(headscore_add(&src, &PROBE, buf, &t));
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
    const HeadProbe flat = {.ids = plain, .cls = -1, .sep = -1};
    assert_true(headscore_add(&src, &flat, buf, t));
    assert_float_equal(headscore_value(&t[1], HEADSCORE_INDUCTION), -1.0, 0);
    assert_float_equal(headscore_value(&t[2], HEADSCORE_DUP), -1.0, 0);
    assert_int_equal(headscore_best(t, H, HEADSCORE_INDUCTION), -1);
    assert_true(headscore_add(&src, &PROBE, buf, t));
    /* head 1: induction 1 on the repeat alone; head 0: previous-token 1 on both */
    assert_float_equal(headscore_value(&t[1], HEADSCORE_INDUCTION), 1.0, 1e-7);
    assert_float_equal(t[0].count[HEADSCORE_PREV], 14.0, 0);
    assert_float_equal(headscore_value(&t[0], HEADSCORE_PREV), 1.0, 1e-7);
    /* P that does not fit n, or a source that is not square: nothing added */
    HeadTally before[H];
    memcpy(before, t, sizeof t);
    const HeadProbe past = {.ids = IDS, .P = P, .at = 1, .cls = -1, .sep = -1};
    assert_false(headscore_add(&src, &past, buf, t)); /* 1 + 2P > N */
    src.n_k = N - 1;
    assert_false(headscore_add(&src, &PROBE, buf, t));
    assert_memory_equal(before, t, sizeof t);
}

/* The percent the table and its status line show: rounded half up. */
static void test_headscore_percent(void **state)
{
    (void)state;
    assert_int_equal(headscore_percent(0.5f), 50); /* the naming threshold */
    assert_int_equal(headscore_percent(0.024f), 2);
    assert_int_equal(headscore_percent(0.026f), 3);
    assert_int_equal(headscore_percent(0.875f), 88); /* a half rounds up */
    assert_int_equal(headscore_percent(1.0f), 100);
    assert_int_equal(headscore_percent(0.0f), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headscore_each_head_scores_its_kind),
        cmocka_unit_test(test_headscore_uniform_causal_head),
        cmocka_unit_test(test_headscore_next_and_no_op_heads),
        cmocka_unit_test(test_headscore_sums_over_sequences_and_refuses_bad_layout),
        cmocka_unit_test(test_headscore_percent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
