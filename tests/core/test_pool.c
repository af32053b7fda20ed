/* test_pool.c - the long-text path (pool.h) held to attention_forward: the
 * rows computed on demand, the pooled cells and the forward pass that never
 * keeps the weights must give the numbers of the ordinary forward pass.
 */
#include "test_common.h"
#include "test_random.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/av.h"
#include "core/pool.h"
#include "core/rng.h"

typedef struct {
    AttnShape s;
    float *X, *W, *P; /* X (n, d), W the four (d, d), P (H, n, n) */
    AttnBuffers full; /* attention_forward with P kept */
    AttnBuffers lazy; /* pool_forward: P and S NULL */
} Run;

static float *alloc_zero(size_t n)
{
    float *x = calloc(n, sizeof *x);
    assert_non_null(x);
    return x;
}

/* n tokens, d_model 24, 3 heads; the weights large enough that rows are peaked. */
static void run_init(Run *t, int n, bool causal, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    const int d = 24;
    t->s = (AttnShape){.n_q = n,
                       .n_k = n,
                       .d_model = d,
                       .H = 3,
                       .causal = causal,
                       .scale = true,
                       .temperature = 1.0f};
    t->X = test_random_floats(&r, (size_t)n * d, 1.0f);
    t->W = test_random_floats(&r, 4 * (size_t)d * d, 0.5f);
    AttnBuffers *b[2] = {&t->full, &t->lazy};
    for (int k = 0; k < 2; k++) {
        b[k]->Q = alloc_zero((size_t)n * d), b[k]->K = alloc_zero((size_t)n * d);
        b[k]->V = alloc_zero((size_t)n * d), b[k]->concat = alloc_zero((size_t)n * d);
        b[k]->out = alloc_zero((size_t)n * d);
    }
    t->P = t->full.P = alloc_zero((size_t)t->s.H * n * n);
    AttnWeights w = {t->W, t->W + d * d, t->W + 2 * d * d, t->W + 3 * d * d};
    assert_int_equal(attention_forward(&t->s, t->X, t->X, &w, &t->full), AV_OK);
    assert_int_equal(pool_forward(&t->s, t->X, t->X, &w, &t->lazy), AV_OK);
}

static void run_free(Run *t)
{
    AttnBuffers *b[2] = {&t->full, &t->lazy};
    for (int k = 0; k < 2; k++)
        free(b[k]->Q), free(b[k]->K), free(b[k]->V), free(b[k]->concat), free(b[k]->out);
    free(t->X), free(t->W), free(t->P);
}

static void test_pool_forward_matches_attention_forward(void **state)
{
    /* expect: pool_forward, which holds a block of weights at a time, gives
     * the same Q, K, V and outputs as attention_forward, mask off and on */
    (void)state;
    for (int causal = 0; causal <= 1; causal++) {
        Run t = {0};
        run_init(&t, 150, causal, 11 + (uint64_t)causal);
        size_t nd = (size_t)t.s.n_q * t.s.d_model;
        assert_floats_near(t.lazy.Q, t.full.Q, nd, 0.0);
        assert_floats_near(t.lazy.K, t.full.K, nd, 0.0);
        assert_floats_near(t.lazy.concat, t.full.concat, nd, 1e-6);
        assert_floats_near(t.lazy.out, t.full.out, nd, 1e-6);
        run_free(&t);
    }
}

static void test_pool_rows_match_kept_weights(void **state)
{
    /* expect: every row computed on demand equals the kept row; masked keys
     * are exactly 0 */
    (void)state;
    Run t = {0};
    run_init(&t, 90, true, 5);
    const int n = t.s.n_q;
    float *rows = alloc_zero((size_t)n * n);
    for (int h = 0; h < t.s.H; h++) {
        pool_rows(&t.s, h, t.full.Q, t.full.K, 0, n, rows);
        assert_floats_near(rows, t.P + (size_t)h * n * n, (size_t)n * n, 1e-6);
        for (int i = 0; i < n; i++)
            for (int j = attention_visible_keys(&t.s, i); j < n; j++)
                assert_true(rows[(size_t)i * n + j] == 0.0f);
    }
    free(rows);
    run_free(&t);
}

/* The mean of head h's visible weights over rows [r0, r1) x columns [c0, c1),
 * or POOL_MASKED when every one is masked. */
static float block_mean(const Run *t, int h, int r0, int r1, int c0, int c1)
{
    const int n = t->s.n_k;
    double sum = 0;
    int count = 0;
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1 && j < attention_visible_keys(&t->s, i); j++)
            sum += t->P[((size_t)h * t->s.n_q + i) * n + j], count++;
    return count ? (float)(sum / count) : POOL_MASKED;
}

/* The largest of head h's visible weights in the block (0 when none is
 * visible; the caller checks POOL_MASKED apart). */
static float block_max(const Run *t, int h, int r0, int r1, int c0, int c1)
{
    const int n = t->s.n_k;
    float m = 0.0f;
    for (int i = r0; i < r1; i++)
        for (int j = c0; j < c1 && j < attention_visible_keys(&t->s, i); j++) {
            float v = t->P[((size_t)h * t->s.n_q + i) * n + j];
            m = v > m ? v : m;
        }
    return m;
}

static void test_pool_head_cells_are_block_means(void **state)
{
    /* expect: each pooled cell is the mean (or max) of its block's visible
     * weights, the same from kept weights and computed on demand; an all-masked
     * cell is POOL_MASKED */
    (void)state;
    Run t = {0};
    run_init(&t, 100, true, 8);
    const int gh = 7, gw = 9, n = t.s.n_q, r0 = 10, r1 = 94, c0 = 3, c1 = 100;
    float kept[7 * 9], lazy[7 * 9], mx[7 * 9];
    for (int h = 0; h < t.s.H; h++) {
        const float *P_h = t.P + (size_t)h * n * n;
        assert_int_equal(
            pool_head(&t.s, h, t.full.Q, t.full.K, P_h, r0, r1, c0, c1, gh, gw, POOL_MEAN, kept),
            AV_OK);
        assert_int_equal(
            pool_head(&t.s, h, t.full.Q, t.full.K, NULL, r0, r1, c0, c1, gh, gw, POOL_MEAN, lazy),
            AV_OK);
        assert_int_equal(
            pool_head(&t.s, h, t.full.Q, t.full.K, P_h, r0, r1, c0, c1, gh, gw, POOL_MAX, mx),
            AV_OK);
        assert_floats_near(lazy, kept, (size_t)gh * gw, 1e-6);
        for (int y = 0; y < gh; y++)
            for (int x = 0; x < gw; x++) {
                int ya = r0 + y * (r1 - r0) / gh, yb = r0 + (y + 1) * (r1 - r0) / gh;
                int xa = c0 + x * (c1 - c0) / gw, xb = c0 + (x + 1) * (c1 - c0) / gw;
                float want = block_mean(&t, h, ya, yb, xa, xb);
                assert_float_equal(kept[y * gw + x], want, 1e-6);
                if (want == POOL_MASKED)
                    assert_true(mx[y * gw + x] == POOL_MASKED);
                else
                    assert_true(mx[y * gw + x] >= kept[y * gw + x] &&
                                mx[y * gw + x] == block_max(&t, h, ya, yb, xa, xb));
            }
    }
    run_free(&t);
}

/* Head h of layer 0 of a (1, H, n, n) array as an AttnSource, for pooling. */
static const float *run_row(const void *ctx, int l, int h, int i, float *buf)
{
    const Run *t = ctx;
    (void)l;
    memcpy(buf, t->P + ((size_t)h * t->s.n_q + i) * t->s.n_k, sizeof *buf * t->s.n_k);
    return buf;
}

static void test_pool_head_sampled(void **state)
{
    /* expect: with room for every weight the sampled pool is pool_head's, bit
       for bit, from kept weights and from a source; with room for one row a
       cell, each cell is the max (mean) of its middle row's visible weights in
       its columns, and *sampled says rows were left out */
    (void)state;
    Run t = {0};
    run_init(&t, 100, true, 9);
    const int gh = 6, gw = 8, n = t.s.n_q, r0 = 4, r1 = 100, c0 = 0, c1 = 96;
    AttnSource src = {1, t.s.H, n, n, run_row, NULL, &t};
    float exact[6 * 8], got[6 * 8];
    bool sampled = true;
    assert_int_equal(pool_sample_rows(r1 - r0, c1 - c0, gh, 1L << 30), 16);
    assert_int_equal(pool_sample_rows(r1 - r0, c1 - c0, gh, 10), 1);
    assert_int_equal(pool_sample_rows(r1 - r0, c1 - c0, gh, 3 * 6 * 96), 3);
    for (int h = 0; h < t.s.H; h++) {
        const float *P_h = t.P + (size_t)h * n * n;
        for (int m = 0; m < 2; m++) {
            PoolMode mode = m ? POOL_MEAN : POOL_MAX;
            assert_int_equal(
                pool_head(&t.s, h, NULL, NULL, P_h, r0, r1, c0, c1, gh, gw, mode, exact), AV_OK);
            assert_int_equal(pool_head_sampled(&t.s, P_h, NULL, 0, h, r0, r1, c0, c1, gh, gw, mode,
                                               1L << 30, got, &sampled),
                             AV_OK);
            assert_false(sampled);
            assert_memory_equal(got, exact, sizeof got);
            assert_int_equal(pool_head_sampled(&t.s, NULL, &src, 0, h, r0, r1, c0, c1, gh, gw, mode,
                                               1L << 30, got, NULL),
                             AV_OK);
            assert_memory_equal(got, exact, sizeof got);
            assert_int_equal(pool_head_sampled(&t.s, NULL, &src, 0, h, r0, r1, c0, c1, gh, gw, mode,
                                               1, got, &sampled),
                             AV_OK);
            assert_true(sampled);
            for (int y = 0; y < gh; y++) {
                int ya = r0 + y * (r1 - r0) / gh, yb = r0 + (y + 1) * (r1 - r0) / gh;
                int i = ya + (yb - ya) / 2; /* the middle row, the one read */
                for (int x = 0; x < gw; x++) {
                    int xa = c0 + x * (c1 - c0) / gw, xb = c0 + (x + 1) * (c1 - c0) / gw;
                    float want = m ? block_mean(&t, h, i, i + 1, xa, xb) : POOL_MASKED;
                    for (int j = xa; !m && j < xb && j < attention_visible_keys(&t.s, i); j++) {
                        float w = P_h[(size_t)i * n + j];
                        want = want > w ? want : w;
                    }
                    assert_float_equal(got[y * gw + x], want, 1e-6);
                }
            }
        }
    }
    run_free(&t);
}

static void test_pool_head_two_threads_same_bits(void **state)
{
    /* expect: kept weights pooled on two threads give exactly the cells of
     * one thread (memcmp), and pool_head (two threads from 2^18 weights)
     * too: odd sizes, max and mean, mask off and on, one cell row and many */
    (void)state;
    const int grids[4][2] = {{7, 13}, {1, 5}, {52, 64}, {6, 19}};
    for (int causal = 0; causal <= 1; causal++) {
        Run t = {0};
        run_init(&t, 613, causal, 31 + (uint64_t)causal);
        const int n = t.s.n_q;
        for (int g = 0; g < 4; g++)
            for (int mode = 0; mode <= 1; mode++) {
                const int gh = grids[g][0], gw = grids[g][1];
                const size_t cells = gh * gw > 5 * 11 ? (size_t)gh * gw : 5 * 11;
                float *one = alloc_zero(cells), *two = alloc_zero(cells);
                float *dflt = alloc_zero((size_t)gh * gw);
                const float *P_h = t.P + (size_t)2 * n * n; /* head 3 of 3 */
                assert_int_equal(
                    pool_head_threads(&t.s, 2, P_h, 0, n, 0, n, gh, gw, (PoolMode)mode, one, 1),
                    AV_OK);
                assert_int_equal(
                    pool_head_threads(&t.s, 2, P_h, 0, n, 0, n, gh, gw, (PoolMode)mode, two, 2),
                    AV_OK);
                assert_int_equal(
                    pool_head(&t.s, 2, NULL, NULL, P_h, 0, n, 0, n, gh, gw, (PoolMode)mode, dflt),
                    AV_OK);
                assert_memory_equal(one, two, sizeof *one * (size_t)gh * gw);
                assert_memory_equal(one, dflt, sizeof *one * (size_t)gh * gw);
                /* and a window of it, odd in both directions */
                assert_int_equal(pool_head_threads(&t.s, 2, P_h, 101, 390, 7, 555, 5, 11,
                                                   (PoolMode)mode, one, 1),
                                 AV_OK);
                assert_int_equal(pool_head_threads(&t.s, 2, P_h, 101, 390, 7, 555, 5, 11,
                                                   (PoolMode)mode, two, 2),
                                 AV_OK);
                assert_memory_equal(one, two, sizeof *one * 5 * 11);
                /* the cells are real: a cell's max is its largest visible weight */
                for (int y = 0; y < gh && mode == POOL_MAX; y++)
                    for (int x = 0; x < gw; x++) {
                        float ref = POOL_MASKED;
                        for (int i = y * n / gh; i < (y + 1) * n / gh; i++)
                            for (int j = x * n / gw; j < (x + 1) * n / gw; j++)
                                if (j < attention_visible_keys(&t.s, i))
                                    ref =
                                        P_h[(size_t)i * n + j] > ref ? P_h[(size_t)i * n + j] : ref;
                        assert_true(dflt[y * gw + x] == ref);
                    }
                free(one), free(two), free(dflt);
            }
        run_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_forward_matches_attention_forward),
        cmocka_unit_test(test_pool_rows_match_kept_weights),
        cmocka_unit_test(test_pool_head_cells_are_block_means),
        cmocka_unit_test(test_pool_head_sampled),
        cmocka_unit_test(test_pool_head_two_threads_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
