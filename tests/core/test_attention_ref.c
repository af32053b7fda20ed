/* test_attention_ref.c - every fast path of the attention held to the plain
 * reference (core/attention_ref.h) on random shapes, mask on and off: the
 * sentence kernel (attn_short, n_k <= 16), the blocked heads, two threads,
 * the heads alone on given Q, K and V, and the long texts' rows computed on
 * demand (pool_forward, pool_rows). The tolerance is float rounding: 2e-5
 * on the weights (in [0, 1]) and 1e-4 of the largest magnitude elsewhere;
 * masked weights are exactly 0 in both.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention_ref.h"
#include "core/av.h"
#include "core/pool.h"
#include "test_random.h"

/* Every buffer of one shape, the fast path's and the reference's. */
typedef struct {
    AttnShape s;
    float *Xq, *Xkv, *W;
    float *buf[2];
    AttnBuffers b[2]; /* 0: the fast path, 1: the reference */
} Case;

static void case_init(Case *c, const AttnShape *s, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    c->s = *s;
    size_t d = (size_t)s->d_model, nq = (size_t)s->n_q, nk = (size_t)s->n_k;
    size_t hw = (size_t)s->H * nq * nk;
    c->Xq = test_random_floats(&r, nq * d, 1.0f);
    c->Xkv = test_random_floats(&r, nk * d, 1.0f);
    c->W = test_random_floats(&r, 4 * d * d, 0.3f);
    for (int k = 0; k < 2; k++) {
        float *p = c->buf[k] = calloc(3 * nq * d + 2 * nk * d + 2 * hw, sizeof *p);
        assert_non_null(p);
        c->b[k] = (AttnBuffers){.Q = p,
                                .K = p + nq * d,
                                .V = p + nq * d + nk * d,
                                .S = p + nq * d + 2 * nk * d,
                                .P = p + nq * d + 2 * nk * d + hw,
                                .concat = p + nq * d + 2 * nk * d + 2 * hw,
                                .out = p + 2 * nq * d + 2 * nk * d + 2 * hw};
    }
}

static void case_free(Case *c)
{
    free(c->Xq), free(c->Xkv), free(c->W), free(c->buf[0]), free(c->buf[1]);
}

static AttnWeights case_weights(const Case *c)
{
    size_t dd = (size_t)c->s.d_model * c->s.d_model;
    return (AttnWeights){c->W, c->W + dd, c->W + 2 * dd, c->W + 3 * dd};
}

static double largest(const float *x, size_t n)
{
    double m = 1.0;
    for (size_t k = 0; k < n; k++)
        m = fabs((double)x[k]) > m ? fabs((double)x[k]) : m;
    return m;
}

/* a within 1e-4 of b's largest magnitude (at least 1) */
static void near_scaled(const float *a, const float *b, size_t n)
{
    assert_floats_near(a, b, n, 1e-4 * largest(b, n));
}

/* The reference's weights: rows sum to 1, masked ones exactly 0. */
static void check_ref_invariants(const Case *c)
{
    const AttnShape *s = &c->s;
    for (int h = 0; h < s->H; h++)
        for (int i = 0; i < s->n_q; i++) {
            const float *p_i = c->b[1].P + ((size_t)h * s->n_q + i) * s->n_k;
            double sum = 0;
            for (int j = 0; j < s->n_k; j++) {
                if (j >= attention_visible_keys(s, i))
                    assert_true(p_i[j] == 0.0f);
                sum += p_i[j];
            }
            assert_float_equal(sum, 1.0, 1e-5);
        }
}

/* attention_forward (whichever path the shape takes) against the reference:
 * Q, K, V, scores, weights, concat and out. */
static void forward_matches(const AttnShape *s, uint64_t seed)
{
    Case c;
    case_init(&c, s, seed);
    AttnWeights w = case_weights(&c);
    assert_int_equal(attention_forward(s, c.Xq, c.Xkv, &w, &c.b[0]), AV_OK);
    assert_int_equal(attention_ref(s, c.Xq, c.Xkv, &w, &c.b[1]), AV_OK);
    size_t nq = (size_t)s->n_q, nk = (size_t)s->n_k, d = (size_t)s->d_model;
    size_t hw = (size_t)s->H * nq * nk;
    near_scaled(c.b[0].Q, c.b[1].Q, nq * d);
    near_scaled(c.b[0].K, c.b[1].K, nk * d);
    near_scaled(c.b[0].V, c.b[1].V, nk * d);
    near_scaled(c.b[0].S, c.b[1].S, hw); /* -inf where masked, in both */
    assert_floats_near(c.b[0].P, c.b[1].P, hw, 2e-5);
    for (size_t k = 0; k < hw; k++) /* a masked weight is exactly 0 in both */
        assert_true((c.b[0].P[k] == 0.0f) == (c.b[1].P[k] == 0.0f) || c.b[1].P[k] < 1e-30f);
    near_scaled(c.b[0].concat, c.b[1].concat, nq * d);
    near_scaled(c.b[0].out, c.b[1].out, nq * d);
    check_ref_invariants(&c);
    case_free(&c);
}

static void test_ref_random_shapes(void **state)
{
    /* expect: 60 random shapes (1-40 queries and keys, 1-6 heads of d_k 1-16,
     * self and cross, scaling and temperature) mask off and on: the fast
     * forward equals the reference within float rounding */
    (void)state;
    Rng r;
    rng_seed(&r, 2323);
    for (int t = 0; t < 60; t++) {
        int H = 1 + (int)(rng_next(&r) % 6), d_k = 1 + (int)(rng_next(&r) % 16);
        int n_q = 1 + (int)(rng_next(&r) % 40);
        int n_k = t % 3 == 0 ? 1 + (int)(rng_next(&r) % 40) : n_q; /* a third cross */
        AttnShape s = {n_q, n_k, H * d_k, H, t % 2 == 1, t % 5 != 4, t % 7 == 6 ? 0.5f : 1.0f};
        forward_matches(&s, 100 + (uint64_t)t);
    }
}

static void test_ref_long_and_threaded(void **state)
{
    /* expect: the blocked heads (300 tokens: several row blocks, packed
     * products) and two threads (701 tokens, d_model 96: past the threads'
     * threshold) equal the reference, mask off and on */
    (void)state;
    for (int causal = 0; causal <= 1; causal++) {
        forward_matches(&(AttnShape){300, 300, 64, 4, causal, true, 1.0f}, 7);
        forward_matches(&(AttnShape){120, 300, 48, 3, causal, true, 1.0f}, 8);
        AttnShape big = {701, 701, 96, 3, causal, true, 1.0f};
        forward_matches(&big, 9);
    }
}

static void test_ref_heads_on_given_qkv(void **state)
{
    /* expect: attention_heads and attention_head_weights on the reference's
     * own Q, K and V give its P and concat within float rounding */
    (void)state;
    const int shapes[][4] = {{9, 9, 8, 2}, {37, 37, 32, 2}, {200, 200, 64, 2}, {5, 17, 12, 3}};
    for (int k = 0; k < 4; k++)
        for (int causal = 0; causal <= 1; causal++) {
            AttnShape s = {shapes[k][0], shapes[k][1], shapes[k][2], shapes[k][3],
                           causal,       true,         1.0f};
            Case c;
            case_init(&c, &s, 40 + (uint64_t)k);
            AttnWeights w = case_weights(&c);
            assert_int_equal(attention_ref(&s, c.Xq, c.Xkv, &w, &c.b[1]), AV_OK);
            size_t need = attention_heads_work(&s), hw = (size_t)s.H * s.n_q * s.n_k;
            float *work = need ? malloc(need * sizeof *work) : NULL;
            assert_int_equal(
                attention_heads(&s, c.b[1].Q, c.b[1].K, c.b[1].V, c.b[0].P, c.b[0].concat, work),
                AV_OK);
            assert_floats_near(c.b[0].P, c.b[1].P, hw, 2e-5);
            near_scaled(c.b[0].concat, c.b[1].concat, (size_t)s.n_q * s.d_model);
            for (int h = 0; h < s.H; h++) {
                size_t off = (size_t)h * s.n_q * s.n_k;
                attention_head_weights(&s, h, c.b[1].Q, c.b[1].K, c.b[0].S + off, c.b[0].P + off);
            }
            assert_floats_near(c.b[0].P, c.b[1].P, hw, 2e-5);
            near_scaled(c.b[0].S, c.b[1].S, hw);
            free(work);
            case_free(&c);
        }
}

static void test_ref_pooled_long_text(void **state)
{
    /* expect: a long text's forward without kept weights (pool_forward: each
     * head's weights one block of rows at a time) gives the reference's
     * concat and out, and its rows computed on demand (pool_rows) the
     * reference's weights, mask off and on */
    (void)state;
    for (int causal = 0; causal <= 1; causal++) {
        AttnShape s = {260, 260, 32, 4, causal, true, 1.0f};
        Case c;
        case_init(&c, &s, 61);
        AttnWeights w = case_weights(&c);
        AttnBuffers lazy = c.b[0];
        lazy.S = lazy.P = NULL;
        assert_int_equal(pool_forward(&s, c.Xq, c.Xkv, &w, &lazy), AV_OK);
        assert_int_equal(attention_ref(&s, c.Xq, c.Xkv, &w, &c.b[1]), AV_OK);
        size_t nd = (size_t)s.n_q * s.d_model, nn = (size_t)s.n_q * s.n_k;
        near_scaled(lazy.concat, c.b[1].concat, nd);
        near_scaled(lazy.out, c.b[1].out, nd);
        float *rows = malloc(sizeof *rows * nn);
        assert_non_null(rows);
        for (int h = 0; h < s.H; h++) {
            pool_rows(&s, h, lazy.Q, lazy.K, 0, s.n_q, rows);
            assert_floats_near(rows, c.b[1].P + h * nn, nn, 2e-5);
        }
        free(rows);
        case_free(&c);
    }
}

static void test_ref_rejects_bad_shapes(void **state)
{
    /* expect: attention_check's codes: no token is AV_ERR_EMPTY, a head count
     * that does not divide d_model AV_ERR_CONFIG; nothing is written */
    (void)state;
    float x = 0.0f;
    AttnWeights w = {&x, &x, &x, &x};
    AttnBuffers b = {0};
    assert_int_equal(attention_ref(&(AttnShape){0, 0, 4, 2, false, true, 1.0f}, &x, &x, &w, &b),
                     AV_ERR_EMPTY);
    assert_int_equal(attention_ref(&(AttnShape){2, 2, 6, 4, false, true, 1.0f}, &x, &x, &w, &b),
                     AV_ERR_CONFIG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ref_random_shapes),      cmocka_unit_test(test_ref_long_and_threaded),
        cmocka_unit_test(test_ref_heads_on_given_qkv), cmocka_unit_test(test_ref_pooled_long_text),
        cmocka_unit_test(test_ref_rejects_bad_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
