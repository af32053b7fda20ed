/* test_stats.c - a head's entropy and largest weights (stats.h), row by row
 * and over a whole head, from kept weights and computed on demand. */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>

#include "core/attention.h"
#include "core/av.h"
#include "core/rng.h"
#include "core/stats.h"

static void test_stats_entropy_uniform_onehot_and_masked(void **state)
{
    (void)state;
    const float uniform[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    const float onehot[3] = {0.0f, 1.0f, 0.0f};
    const float half_masked[4] = {0.5f, 0.5f, 0.0f, 0.0f}; /* two masked keys */
    /* log2(n) bits for a uniform row, 0 for a one-hot row, masked zeros ignored */
    assert_float_equal(stats_row_entropy(uniform, 4), 2.0, 1e-6);
    assert_float_equal(stats_row_entropy(onehot, 3), 0.0, 1e-12);
    assert_float_equal(stats_row_entropy(half_masked, 4), 1.0, 1e-6);
}

static void test_stats_entropy_matches_double_log2(void **state)
{
    /* expect: the vectorised entropy agrees with -sum p log2 p in double to
     * 2e-6 relative, over rows of every length to 70 and of 2,048 keys, with
     * weights from near 1 down to 1e-30 and exact zeros (masked keys) */
    (void)state;
    enum { MAXN = 2048 };
    static float row[MAXN];
    Rng r;
    rng_seed(&r, 11);
    for (int trial = 0; trial < 140; trial++) {
        int n = trial < 70 ? trial + 1 : MAXN;
        double sum = 0, want = 0;
        for (int j = 0; j < n; j++) {
            float u = rng_symmetric(&r, 1.0f);
            /* spread over 30 decades, one key in 7 masked */
            row[j] = j % 7 == 3 && n > 1 ? 0.0f : expf(34.0f * (u - 1.0f) + (trial % 5));
            sum += row[j];
        }
        for (int j = 0; j < n; j++) {
            row[j] = (float)(row[j] / sum);
            if (row[j] > 0.0f)
                want -= row[j] * log2((double)row[j]);
        }
        double got = stats_row_entropy(row, n);
        assert_float_equal(got, want, 2e-6 * (want > 1 ? want : 1));
    }
}

/* Heads summed are not a distribution: their rows are measured normalised,
 * never above log2(n) (imported (3, 4, 15, 15) attention summed showed 5.97
 * bits for 15 keys). [0.5 x 4] sums to 2: uniform, 2 bits; [1.5, 0.5] is
 * [0.75, 0.25]: 0.8113 bits; 4 heads of 15 keys summed: at most log2 15. */
static void test_stats_entropy_of_a_sum_normalised(void **state)
{
    (void)state;
    const float half[4] = {0.5f, 0.5f, 0.5f, 0.5f}, two[2] = {1.5f, 0.5f};
    assert_float_equal(stats_row_entropy(half, 4), 2.0, 1e-5);
    double want = -(0.75 * log2(0.75) + 0.25 * log2(0.25));
    assert_float_equal(stats_row_entropy(two, 2), want, 1e-5);
    float sum[15] = {0};
    for (int h = 0; h < 4; h++)
        for (int j = 0; j < 15; j++)
            sum[j] += (float)(j + h + 1) / (float)(15 * (15 + 2 * h + 1) / 2);
    assert_true(stats_row_entropy(sum, 15) <= log2(15.0) + 1e-6);
    assert_true(stats_row_entropy(sum, 15) > 3.5);
    /* expect: a head's stats say when a row was normalised: heads combined by
     * max ([0.6, 0.5] of [0.6, 0.4] and [0.5, 0.5]: no weight above 1, the
     * row sums to 1.1) as by sum; a distribution is measured as it is */
    const float max_row[2] = {0.6f, 0.5f}, dist[2] = {0.6f, 0.4f};
    HeadStats st = {0};
    stats_add(&st, dist, 2);
    assert_false(st.normalised);
    stats_add(&st, max_row, 2);
    assert_true(st.normalised);
    assert_float_equal(stats_row_entropy(max_row, 2),
                       -(6 / 11.0 * log2(6 / 11.0) + 5 / 11.0 * log2(5 / 11.0)), 1e-5);
}

static void test_stats_mean_over_rows(void **state)
{
    (void)state;
    const float rows[2][4] = {{0.25f, 0.25f, 0.25f, 0.25f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    HeadStats st = {0};
    stats_add(&st, rows[0], 4);
    stats_add(&st, rows[1], 4);
    stats_finish(&st);
    /* entropy (2 + 0) / 2, top weight (0.25 + 1) / 2, the largest 1 */
    assert_int_equal(st.rows, 2);
    assert_float_equal(st.entropy, 1.0, 1e-6);
    assert_float_equal(st.top, 0.625, 1e-6);
    assert_float_equal(st.max, 1.0f, 0.0f);
}

static void test_stats_sample_stride(void **state)
{
    (void)state;
    /* every row while the head fits the budget, else a stride to stay under it */
    assert_int_equal(stats_sample_stride(12, 12, 1 << 18), 1);
    assert_int_equal(stats_sample_stride(2048, 2048, 1 << 18), 16);
    assert_true(2048 / stats_sample_stride(2048, 2048, 1 << 18) * 2048L <= 1 << 18);
    assert_int_equal(stats_sample_stride(5, 0, 1), 1);
}

static void test_stats_head_kept_and_on_demand_agree(void **state)
{
    /* expect: stats_head gives the same entropy and top weight from the kept
     * weights and from Q and K alone, and sampling reads every k-th row */
    (void)state;
    enum { N = 64, D = 16, H = 2 };
    Rng r;
    rng_seed(&r, 3);
    AttnShape s = {.n_q = N,
                   .n_k = N,
                   .d_model = D,
                   .H = H,
                   .causal = true,
                   .scale = true,
                   .temperature = 1.0f};
    float *X = malloc(sizeof(float) * N * D), *W = malloc(sizeof(float) * 4 * D * D);
    float *buf = calloc((size_t)5 * N * D + (size_t)H * N * N, sizeof(float));
    assert_true(X && W && buf);
    for (int k = 0; k < N * D; k++)
        X[k] = rng_symmetric(&r, 1.0f);
    for (int k = 0; k < 4 * D * D; k++)
        W[k] = rng_symmetric(&r, 0.5f);
    AttnBuffers b = {
        buf, buf + N * D, buf + 2 * N * D, NULL, buf + 5 * N * D, buf + 3 * N * D, buf + 4 * N * D,
        NULL};
    AttnWeights w = {W, W + D * D, W + 2 * D * D, W + 3 * D * D};
    assert_int_equal(attention_forward(&s, X, X, &w, &b), AV_OK);
    for (int h = 0; h < H; h++) {
        HeadStats kept, lazy, want = {0}, sampled;
        const float *P_h = b.P + (size_t)h * N * N;
        assert_int_equal(stats_head(&s, h, b.Q, b.K, P_h, 1L << 20, &kept), AV_OK);
        assert_int_equal(stats_head(&s, h, b.Q, b.K, NULL, 1L << 20, &lazy), AV_OK);
        for (int i = 0; i < N; i++)
            stats_add(&want, P_h + (size_t)i * N, attention_visible_keys(&s, i));
        stats_finish(&want);
        assert_false(kept.sampled);
        assert_float_equal(kept.entropy, want.entropy, 1e-9);
        assert_float_equal(kept.top, want.top, 1e-9);
        assert_float_equal(lazy.entropy, want.entropy, 1e-5);
        assert_float_equal(lazy.top, want.top, 1e-6);
        /* a budget of 8 rows of 64: every 8th row */
        assert_int_equal(stats_head(&s, h, b.Q, b.K, P_h, 8 * N, &sampled), AV_OK);
        assert_true(sampled.sampled);
        assert_int_equal(sampled.rows, N / 8);
    }
    free(X), free(W), free(buf);
}

static void test_stats_top_matches_sequential_scan(void **state)
{
    /* expect: a row's largest weight (st.max, st.top) is the bits of the
     * scan "w > top ? w : top" from 0, for every length to 70 and 2,049, on
     * rows with exact zeros, -0 and ties, and an all-zero row gives +0 */
    (void)state;
    Rng r;
    rng_seed(&r, 7);
    float row[2049];
    for (int len = 1; len <= 2049; len = len < 70 ? len + 1 : 2049) {
        for (int j = 0; j < len; j++) {
            float u = rng_uniform(&r);
            row[j] = u < 0.3f ? 0.0f : u < 0.4f ? -0.0f : u < 0.5f ? 0.25f : u * 0.5f;
        }
        float ref = 0.0f;
        for (int j = 0; j < len; j++)
            ref = row[j] > ref ? row[j] : ref;
        HeadStats st = {0};
        stats_add(&st, row, len);
        assert_memory_equal(&st.max, &ref, sizeof ref);
        assert_true(st.top == (double)ref);
        if (len == 2049)
            break;
    }
    for (int j = 0; j < 40; j++)
        row[j] = j % 2 ? -0.0f : 0.0f;
    HeadStats st = {0};
    stats_add(&st, row, 40);
    assert_false(signbit(st.max));
    assert_true(st.max == 0.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_entropy_uniform_onehot_and_masked),
        cmocka_unit_test(test_stats_entropy_matches_double_log2),
        cmocka_unit_test(test_stats_entropy_of_a_sum_normalised),
        cmocka_unit_test(test_stats_mean_over_rows),
        cmocka_unit_test(test_stats_sample_stride),
        cmocka_unit_test(test_stats_head_kept_and_on_demand_agree),
        cmocka_unit_test(test_stats_top_matches_sequential_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
