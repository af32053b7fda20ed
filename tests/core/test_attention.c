/* test_attention.c - scaled dot-product attention, the mask, softmax, heads,
 * and the BLAS wrapper against its reference. */
#include "test_common.h"
#include "test_random.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/av.h"
#include "core/mat.h"
#include "core/pool.h"
#include "core/stats.h"
#include "core/rng.h"

/* Seed 001's worked example: "Cat eats fish", d_k = 2. Q_cat = [0.8, 0.2];
 * K_cat = [0.9, 0.1]; K_eats and K_fish chosen to give the article's scores
 * 0.38 and 0.50; V = [1, 0], [0, 1], [0.5, 0.5]. */
static const float ex_Q[] = {0.8f, 0.2f, 0.1f, 0.9f, 0.5f, 0.5f};
static const float ex_K[] = {0.9f, 0.1f, 0.4f, 0.3f, 0.5f, 0.5f};
static const float ex_V[] = {1.0f, 0.0f, 0.0f, 1.0f, 0.5f, 0.5f};

static void test_attention_seed001_scores(void **state)
{
    (void)state;
    /* Unscaled dot products of "cat" are 0.74, 0.38, 0.50 as in the article. */
    AttnShape s = {3, 3, 2, 1, false, false, 1.0f};
    assert_float_equal(attention_score(&s, 0, ex_Q, ex_K, 0, 0), 0.74f, 1e-6f);
    assert_float_equal(attention_score(&s, 0, ex_Q, ex_K, 0, 1), 0.38f, 1e-6f);
    assert_float_equal(attention_score(&s, 0, ex_Q, ex_K, 0, 2), 0.50f, 1e-6f);
}

static void test_attention_seed001_scaled_softmax_output(void **state)
{
    (void)state;
    /* Scaled by sqrt(2): [0.52, 0.27, 0.35]; softmax [0.38, 0.30, 0.32];
     * output of "cat" [0.54, 0.46], each to the article's two decimals. */
    AttnShape s = {3, 3, 2, 1, false, true, 1.0f};
    float S[9], P[9], out[6];
    attention_head_weights(&s, 0, ex_Q, ex_K, S, P);
    assert_float_equal(S[0], 0.52f, 0.005f);
    assert_float_equal(S[1], 0.27f, 0.005f);
    assert_float_equal(S[2], 0.35f, 0.005f);
    assert_float_equal(P[0], 0.38f, 0.005f);
    assert_float_equal(P[1], 0.30f, 0.005f);
    assert_float_equal(P[2], 0.32f, 0.005f);
    mat_sgemm(false, false, 3, 2, 3, 1.0f, P, 3, ex_V, 2, 0.0f, out, 2);
    assert_float_equal(out[0], 0.54f, 0.005f);
    assert_float_equal(out[1], 0.46f, 0.005f);
}

typedef struct {
    int n, d, H;
    float *X, *W[4], *Q, *K, *V, *S, *P, *C, *O;
} Fixture;

static void fixture_init(Fixture *f, int n, int d, int H, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    f->n = n, f->d = d, f->H = H;
    f->X = malloc(sizeof(float) * n * d);
    test_random_fill(&r, f->X, (size_t)n * d, 1.0f);
    for (int k = 0; k < 4; k++) {
        f->W[k] = malloc(sizeof(float) * d * d);
        test_random_fill(&r, f->W[k], (size_t)d * d, 0.3f);
    }
    float **bufs[] = {&f->Q, &f->K, &f->V, &f->C, &f->O};
    for (int k = 0; k < 5; k++)
        *bufs[k] = malloc(sizeof(float) * n * d);
    f->S = malloc(sizeof(float) * H * n * n);
    f->P = malloc(sizeof(float) * H * n * n);
}

static void fixture_free(Fixture *f)
{
    void *all[] = {f->X, f->W[0], f->W[1], f->W[2], f->W[3], f->Q,
                   f->K, f->V,    f->S,    f->P,    f->C,    f->O};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        free(all[k]);
}

static int fixture_run(Fixture *f, bool causal)
{
    AttnShape s = {f->n, f->n, f->d, f->H, causal, true, 1.0f};
    AttnWeights w = {f->W[0], f->W[1], f->W[2], f->W[3]};
    AttnBuffers b = {f->Q, f->K, f->V, f->S, f->P, f->C, f->O, NULL};
    return attention_forward(&s, f->X, f->X, &w, &b);
}

static void test_attention_rows_sum_to_one(void **state)
{
    (void)state;
    /* Every row of every head sums to 1 (within float rounding), mask or not. */
    Fixture f;
    fixture_init(&f, 9, 24, 3, 7);
    for (int causal = 0; causal < 2; causal++) {
        assert_int_equal(fixture_run(&f, causal), AV_OK);
        for (int r = 0; r < f.H * f.n; r++) {
            double sum = 0;
            for (int j = 0; j < f.n; j++)
                sum += f.P[r * f.n + j];
            assert_float_equal(sum, 1.0, 1e-5);
        }
    }
    fixture_free(&f);
}

static void test_attention_causal_upper_triangle_exactly_zero(void **state)
{
    (void)state;
    /* Under the mask, weight (i, j > i) is exactly 0.0f and score -inf;
     * the first query attends to itself alone, with weight exactly 1. */
    Fixture f;
    fixture_init(&f, 8, 16, 4, 11);
    assert_int_equal(fixture_run(&f, true), AV_OK);
    for (int h = 0; h < f.H; h++) {
        const float *P_h = f.P + h * f.n * f.n, *S_h = f.S + h * f.n * f.n;
        for (int i = 0; i < f.n; i++)
            for (int j = i + 1; j < f.n; j++) {
                assert_true(P_h[i * f.n + j] == 0.0f);
                assert_true(isinf(S_h[i * f.n + j]) && S_h[i * f.n + j] < 0);
            }
        assert_true(P_h[0] == 1.0f);
    }
    fixture_free(&f);
}

/* The articles' MultiHeadAttention written naively in double: the oracle. */
static void naive_mha(const Fixture *f, bool causal, double *out)
{
    int n = f->n, d = f->d, d_k = d / f->H;
    double *Q = calloc((size_t)n * d, sizeof *Q), *K = calloc((size_t)n * d, sizeof *K);
    double *V = calloc((size_t)n * d, sizeof *V), *C = calloc((size_t)n * d, sizeof *C);
    double *M[3] = {Q, K, V};
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < n; i++)
            for (int c = 0; c < d; c++)
                for (int k = 0; k < d; k++)
                    M[m][i * d + c] += (double)f->X[i * d + k] * f->W[m][k * d + c];
    for (int h = 0; h < f->H; h++)
        for (int i = 0; i < n; i++) {
            double sc[64], max = -INFINITY, sum = 0;
            for (int j = 0; j < n; j++) {
                double dot = 0;
                for (int c = 0; c < d_k; c++)
                    dot += Q[i * d + h * d_k + c] * K[j * d + h * d_k + c];
                sc[j] = causal && j > i ? -INFINITY : dot / sqrt((double)d_k);
                max = sc[j] > max ? sc[j] : max;
            }
            for (int j = 0; j < n; j++)
                sum += (sc[j] = exp(sc[j] - max));
            for (int j = 0; j < n; j++)
                for (int c = 0; c < d_k; c++)
                    C[i * d + h * d_k + c] += sc[j] / sum * V[j * d + h * d_k + c];
        }
    memset(out, 0, sizeof *out * n * d);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d; c++)
            for (int k = 0; k < d; k++)
                out[i * d + c] += C[i * d + k] * f->W[3][k * d + c];
    free(Q), free(K), free(V), free(C);
}

static void test_attention_matches_naive_multihead(void **state)
{
    (void)state;
    /* The BLAS path with in-place head slices equals the naive double
     * computation within 1e-5, for 1, 2 and 4 heads, mask off and on. */
    int heads[] = {1, 2, 4};
    for (int k = 0; k < 3; k++)
        for (int causal = 0; causal < 2; causal++) {
            Fixture f;
            fixture_init(&f, 7, 16, heads[k], 100 + k);
            double ref[7 * 16];
            float reff[7 * 16];
            assert_int_equal(fixture_run(&f, causal), AV_OK);
            naive_mha(&f, causal, ref);
            for (int m = 0; m < 7 * 16; m++)
                reff[m] = (float)ref[m];
            assert_floats_near(f.O, reff, 7 * 16, 1e-5);
            fixture_free(&f);
        }
}

static void test_attention_permutation_equivariant(void **state)
{
    (void)state;
    /* Without positions, permuting the input rows permutes the output rows. */
    Fixture f, g;
    fixture_init(&f, 6, 16, 2, 5);
    fixture_init(&g, 6, 16, 2, 5);
    const int perm[6] = {3, 0, 5, 1, 4, 2};
    for (int i = 0; i < 6; i++)
        memcpy(g.X + i * 16, f.X + perm[i] * 16, 16 * sizeof(float));
    assert_int_equal(fixture_run(&f, false), AV_OK);
    assert_int_equal(fixture_run(&g, false), AV_OK);
    for (int i = 0; i < 6; i++)
        assert_floats_near(g.O + i * 16, f.O + perm[i] * 16, 16, 1e-5);
    fixture_free(&f);
    fixture_free(&g);
}

static void test_attention_softmax_stable_for_large_scores(void **state)
{
    (void)state;
    /* Scores of 1000 and 1001 do not overflow: weights 1/(1+e) and e/(1+e). */
    float row[3] = {1000.0f, 1001.0f, -INFINITY};
    attention_softmax_row(row, 3);
    assert_float_equal(row[0], 1.0f / (1.0f + expf(1.0f)), 1e-6f);
    assert_float_equal(row[1], expf(1.0f) / (1.0f + expf(1.0f)), 1e-6f);
    assert_true(row[2] == 0.0f);
}

static void test_attention_softmax_exp_accuracy(void **state)
{
    (void)state;
    /* Softmax of {0, x} is e^x / (1 + e^x): the fast exp keeps it within
     * 4e-7 relative (a few ulp) of the double formula for x in [-80, 0],
     * in the tail (len 2) and in a vectorised chunk (len 17, -inf padding).
     * Below about -87 e^x is under FLT_MIN: the weight is exactly 0. */
    double worst = 0;
    for (int len = 2; len <= 17; len += 15)
        for (float x = -80.0f; x <= 0.0f; x += 0.0137f) {
            float row[17];
            for (int j = 0; j < len; j++)
                row[j] = j == 0 ? 0.0f : j == 1 ? x : -INFINITY;
            attention_softmax_row(row, len);
            double e = exp((double)x), p0 = 1.0 / (1.0 + e);
            double rel0 = fabs(row[0] - p0) / p0, rel1 = fabs(row[1] - e * p0) / (e * p0);
            worst = fmax(worst, fmax(rel0, rel1));
        }
    print_message("softmax: largest relative error %.3g\n", worst);
    assert_true(worst < 4e-7);
    float far[2] = {0.0f, -100.0f};
    attention_softmax_row(far, 2);
    assert_true(far[0] == 1.0f && far[1] == 0.0f);
}

static void test_attention_softmax_rows_of_every_length(void **state)
{
    (void)state;
    /* Lengths 1 to 70 (tails of every size): rows sum to 1 within 1e-6,
     * -inf entries become exactly 0, and each weight is within 1e-6 of the
     * double softmax (libm exp). */
    Rng r;
    rng_seed(&r, 9);
    for (int len = 1; len <= 70; len++) {
        float row[70];
        double ref[70], max = -INFINITY, sum = 0;
        for (int j = 0; j < len; j++) {
            row[j] = j % 5 == 3 ? -INFINITY : rng_symmetric(&r, 12.0f);
            max = row[j] > max ? row[j] : max;
        }
        for (int j = 0; j < len; j++)
            sum += (ref[j] = exp((double)row[j] - max));
        attention_softmax_row(row, len);
        double total = 0;
        for (int j = 0; j < len; j++) {
            total += row[j];
            assert_float_equal(row[j], ref[j] / sum, 1e-6);
            if (j % 5 == 3)
                assert_true(row[j] == 0.0f);
        }
        assert_float_equal(total, 1.0, 1e-6);
    }
}

/* Weights of head h, query i, in double from Q and K (the oracle). */
static void naive_weights(const float *Q, const float *K, int n_k, int d, int d_k, int h, int i,
                          int vis, double *w)
{
    double max = -INFINITY, sum = 0;
    for (int j = 0; j < vis; j++) {
        double dot = 0;
        for (int c = 0; c < d_k; c++)
            dot += (double)Q[i * d + h * d_k + c] * K[j * d + h * d_k + c];
        w[j] = dot / sqrt((double)d_k);
        max = w[j] > max ? w[j] : max;
    }
    for (int j = 0; j < vis; j++)
        sum += (w[j] = exp(w[j] - max));
    for (int j = 0; j < n_k; j++)
        w[j] = j < vis ? w[j] / sum : 0.0;
}

static void test_attention_blocked_matches_naive(void **state)
{
    (void)state;
    /* Many row blocks, mask off and on, self- and cross-attention with
     * n_q != n_k: every weight within 1e-5 of the double computation from
     * the same Q and K, masked ones exactly 0, kept scores -inf there. */
    const int shapes[3][2] = {{300, 300}, {300, 97}, {150, 300}};
    for (int k = 0; k < 3; k++)
        for (int causal = 0; causal < 2; causal++) {
            int n_q = shapes[k][0], n_k = shapes[k][1], d = 32, H = 4, d_k = 8;
            Fixture f;
            fixture_init(&f, n_q > n_k ? n_q : n_k, d, H, 40 + k);
            AttnShape s = {n_q, n_k, d, H, causal, true, 1.0f};
            AttnWeights w = {f.W[0], f.W[1], f.W[2], f.W[3]};
            AttnBuffers b = {f.Q, f.K, f.V, f.S, f.P, f.C, f.O, NULL};
            assert_true(attention_block_rows(&s) < n_q);
            assert_int_equal(attention_forward(&s, f.X, f.X, &w, &b), AV_OK);
            double *ref = malloc(sizeof *ref * n_k);
            for (int h = 0; h < H; h++)
                for (int i = 0; i < n_q; i++) {
                    int vis = causal && i + 1 < n_k ? i + 1 : n_k;
                    const float *P_i = f.P + ((long)h * n_q + i) * n_k;
                    const float *S_i = f.S + ((long)h * n_q + i) * n_k;
                    naive_weights(f.Q, f.K, n_k, d, d_k, h, i, vis, ref);
                    for (int j = 0; j < n_k; j++) {
                        assert_float_equal(P_i[j], ref[j], 1e-5);
                        if (j >= vis)
                            assert_true(P_i[j] == 0.0f && isinf(S_i[j]) && S_i[j] < 0);
                    }
                }
            free(ref);
            fixture_free(&f);
        }
}

static void test_attention_wide_heads_within_1e6(void **state)
{
    (void)state;
    /* Heads of d_k 64 over 700 tokens (two threads, the packed kernel on
     * AVX2 and FMA, parts of blocks): every weight within 1e-6 of the double
     * computation from the same Q and K, mask off and on (with the
     * fixture's X unscaled the scores reach tens, and their float rounding
     * alone moves peaked weights by a few 1e-6, with cblas_sgemm as with
     * this kernel: 4.1e-6 and 4.9e-6 here); scores kept or not, the weights
     * are the same bits. */
    int n = 700, d = 128, H = 2, d_k = 64;
    Fixture f;
    fixture_init(&f, n, d, H, 55);
    for (long k = 0; k < (long)n * d; k++) /* scores of a few units */
        f.X[k] *= 0.3f;
    float *P2 = malloc(sizeof(float) * H * n * n);
    double *ref = malloc(sizeof *ref * n), worst = 0;
    assert_true(P2 && ref);
    for (int causal = 0; causal < 2; causal++) {
        AttnShape s = {n, n, d, H, causal, true, 1.0f};
        AttnWeights w = {f.W[0], f.W[1], f.W[2], f.W[3]};
        AttnBuffers b = {f.Q, f.K, f.V, NULL, P2, f.C, f.O, NULL};
        assert_int_equal(attention_forward(&s, f.X, f.X, &w, &b), AV_OK);
        assert_int_equal(fixture_run(&f, causal), AV_OK);
        assert_memory_equal(f.P, P2, sizeof(float) * H * n * n);
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++) {
                int vis = causal ? i + 1 : n;
                naive_weights(f.Q, f.K, n, d, d_k, h, i, vis, ref);
                const float *P_i = f.P + ((long)h * n + i) * n;
                for (int j = 0; j < n; j++) {
                    double e = fabs(P_i[j] - ref[j]);
                    assert_true(j < vis || P_i[j] == 0.0f);
                    worst = e > worst ? e : worst;
                }
            }
    }
    print_message("d_k 64, n 700: largest weight error %.3g\n", worst);
    assert_true(worst <= 1e-6);
    free(P2), free(ref);
    fixture_free(&f);
}

static void test_attention_threads_give_same_bits(void **state)
{
    (void)state;
    /* A problem big enough for two threads (the helper does some of the
     * softmax) gives bit for bit the weights of the one-thread path. */
    int n = 1024, d = 64, H = 2;
    Fixture f;
    fixture_init(&f, n, d, H, 77);
    for (int causal = 0; causal < 2; causal++) {
        AttnShape s = {n, n, d, H, causal, true, 1.0f};
        AttnWeights w = {f.W[0], f.W[1], f.W[2], f.W[3]};
        AttnBuffers b = {f.Q, f.K, f.V, NULL, f.P, f.C, f.O, NULL};
        assert_int_equal(attention_forward(&s, f.X, f.X, &w, &b), AV_OK);
        for (int h = 0; h < H; h++) {
            attention_head_weights(&s, h, f.Q, f.K, NULL, f.S);
            assert_memory_equal(f.S, f.P + (size_t)h * n * n, sizeof(float) * n * n);
        }
    }
    fixture_free(&f);
}

static void test_attention_check_rejects_bad_shapes(void **state)
{
    (void)state;
    /* d_model not divisible by H, zero sizes and a bad temperature fail. */
    AttnShape ok = {4, 4, 32, 4, false, true, 1.0f};
    assert_int_equal(attention_check(&ok), AV_OK);
    AttnShape s = ok;
    s.H = 3;
    assert_int_equal(attention_check(&s), AV_ERR_CONFIG);
    s = ok, s.d_model = 0;
    assert_int_equal(attention_check(&s), AV_ERR_CONFIG);
    s = ok, s.temperature = 0.0f;
    assert_int_equal(attention_check(&s), AV_ERR_CONFIG);
    s = ok, s.n_q = 0;
    assert_int_equal(attention_check(&s), AV_ERR_EMPTY);
    s = ok, s.n_k = 0;
    assert_int_equal(attention_check(&s), AV_ERR_EMPTY);
}

static void test_attention_forward_error_codes(void **state)
{
    /* expect: attention_forward's and pool_forward's codes: AV_ERR_EMPTY for
     * no key token, AV_ERR_CONFIG for heads not dividing d_model and (the
     * forward) concat without V, AV_OK otherwise */
    (void)state;
    Fixture f;
    fixture_init(&f, 5, 8, 2, 3);
    AttnWeights w = {f.W[0], f.W[1], f.W[2], f.W[3]};
    AttnBuffers b = {f.Q, f.K, f.V, f.S, f.P, f.C, f.O, NULL};
    AttnShape s = {5, 5, 8, 2, true, true, 1.0f}, e = s, c = s;
    e.n_k = 0, c.H = 3;
    assert_int_equal(attention_forward(&s, f.X, f.X, &w, &b), AV_OK);
    assert_int_equal(attention_forward(&e, f.X, f.X, &w, &b), AV_ERR_EMPTY);
    assert_int_equal(attention_forward(&c, f.X, f.X, &w, &b), AV_ERR_CONFIG);
    AttnBuffers nov = b;
    nov.V = NULL;
    assert_int_equal(attention_forward(&s, f.X, f.X, &w, &nov), AV_ERR_CONFIG);
    AttnBuffers lazy = b;
    lazy.S = lazy.P = NULL;
    assert_int_equal(pool_forward(&s, f.X, f.X, &w, &lazy), AV_OK);
    assert_int_equal(pool_forward(&e, f.X, f.X, &w, &lazy), AV_ERR_EMPTY);
    assert_int_equal(pool_forward(&c, f.X, f.X, &w, &lazy), AV_ERR_CONFIG);
    fixture_free(&f);
}

static void test_mat_sgemm_matches_reference(void **state)
{
    (void)state;
    /* Odd shapes, all four transpose cases, leading dimensions wider than the
     * matrices, alpha and beta: BLAS equals the plain loops within 1e-5. */
    Rng r;
    rng_seed(&r, 3);
    enum { M = 7, N = 5, K = 3, LD = 9 };
    float A[LD * LD], B[LD * LD], C0[M * LD], C1[M * LD], C2[M * LD];
    test_random_fill(&r, A, LD * LD, 1.0f);
    test_random_fill(&r, B, LD * LD, 1.0f);
    test_random_fill(&r, C0, M * LD, 1.0f);
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            memcpy(C1, C0, sizeof C0);
            memcpy(C2, C0, sizeof C0);
            mat_sgemm(ta, tb, M, N, K, 0.5f, A, LD, B, LD, 2.0f, C1, LD);
            mat_sgemm_ref(ta, tb, M, N, K, 0.5f, A, LD, B, LD, 2.0f, C2, LD);
            assert_floats_near(C1, C2, M * LD, 1e-5);
        }
}

static void test_mat_sgemm_small_matches_reference(void **state)
{
    (void)state;
    /* The kernel for tiny products, on every shape around its 16-column
     * chunks and 4-row groups, B plain and transposed, leading dimensions
     * wider than the matrices, beta 0 (C ignored, even NaN) and beta 2:
     * within 1e-5 of the double-precision loops, and nothing written beyond
     * N columns or M rows. */
    enum { MM = 9, NN = 35, KK = 20, LD = 40 };
    static float A[MM * LD], B[LD * LD], C0[(MM + 1) * LD], C1[(MM + 1) * LD], C2[(MM + 1) * LD];
    Rng r;
    rng_seed(&r, 11);
    test_random_fill(&r, A, MM * LD, 1.0f);
    test_random_fill(&r, B, LD * LD, 1.0f);
    test_random_fill(&r, C0, (MM + 1) * LD, 1.0f);
    static const int Ms[] = {1, 3, 4, 5, 9}, Ns[] = {1, 8, 10, 15, 16, 17, 32, 35},
                     Ks[] = {0, 1, 8, 20};
    for (int tb = 0; tb < 2; tb++)
        for (size_t a = 0; a < 5; a++)
            for (size_t b = 0; b < 8; b++)
                for (size_t c = 0; c < 4; c++)
                    for (int beta = 0; beta <= 2; beta += 2) {
                        int M = Ms[a], N = Ns[b], K = Ks[c];
                        assert_true(mat_small_fits(false, M, N, K));
                        memcpy(C1, C0, sizeof C0);
                        memcpy(C2, C0, sizeof C0);
                        if (!beta)
                            for (int k = 0; k < M * LD; k++)
                                C1[k] = NAN;
                        mat_sgemm_small(tb, M, N, K, 0.5f, A, LD, B, LD, (float)beta, C1, LD);
                        mat_sgemm_ref(false, tb, M, N, K, 0.5f, A, LD, B, LD, (float)beta, C2, LD);
                        for (int i = 0; i <= M; i++)
                            for (int j = 0; j < LD; j++) {
                                float want = C2[i * LD + j], got = C1[i * LD + j];
                                if (i < M && j < N)
                                    assert_float_equal(got, want, 1e-5);
                                else if (i == M || beta)
                                    assert_memory_equal(&got, &C0[i * LD + j], sizeof got);
                            }
                    }
    /* large or transposed-A products are cblas_sgemm's */
    assert_false(mat_small_fits(true, 4, 4, 4));
    assert_false(mat_small_fits(false, 1024, 512, 512));
}

/* The weights one row at a time by attention_softmax_row from scores T
 * (n_q, n_k), in place: each row over its visible keys, exactly 0 beyond. */
static void softmax_visible_rows(const AttnShape *s, float *T)
{
    for (int i = 0; i < s->n_q; i++) {
        int vis = attention_visible_keys(s, i);
        attention_softmax_row(T + (long)i * s->n_k, vis);
        for (int j = vis; j < s->n_k; j++)
            T[(long)i * s->n_k + j] = 0.0f;
    }
}

static void test_attention_short_rows_same_bits(void **state)
{
    (void)state;
    /* Rows of up to 16 keys take the short-row softmax, 16 rows at a time
     * across the lanes: its weights are bit for bit those of
     * attention_softmax_row on each row, for 1 to 40 query rows (whole and
     * partial groups of 16), with and without the mask. */
    enum { NQ = 40, NK = 16, D = 16 };
    Rng r;
    rng_seed(&r, 5);
    for (int n_q = 1; n_q <= NQ; n_q += n_q < 18 ? 1 : 11)
        for (int n_k = 1; n_k <= NK; n_k++)
            for (int causal = 0; causal < 2; causal++) {
                float Q[NQ * D], K[NK * D], S[NQ * NK], P[NQ * NK], P2[NQ * NK];
                for (int k = 0; k < NQ * D; k++)
                    Q[k] = rng_symmetric(&r, 3.0f);
                for (int k = 0; k < NK * D; k++)
                    K[k] = rng_symmetric(&r, 3.0f);
                AttnShape s = {n_q, n_k, D, 2, causal, true, 1.0f};
                attention_head_weights(&s, 1, Q, K, S, P);
                memcpy(P2, S, sizeof(float) * n_q * n_k);
                for (int i = 0; i < n_q; i++)
                    for (int j = attention_visible_keys(&s, i); j < n_k; j++)
                        assert_true(S[i * n_k + j] == -INFINITY);
                softmax_visible_rows(&s, P2);
                assert_memory_equal(P, P2, sizeof(float) * n_q * n_k);
            }
}

static void test_attention_short_heads_same_bits(void **state)
{
    (void)state;
    /* A sentence's heads (at most 16 keys) run scores, softmax and P_h V_h
     * in one pass across the lanes. Their scores, weights and outputs are bit
     * for bit what mat_sgemm and attention_softmax_row give from the same Q,
     * K, V (mat_sgemm_small is what mat_sgemm runs for these sizes with
     * OpenBLAS): self- and cross-attention, 1 to 40 queries, mask on and off,
     * d_k = 72 and 66, which the pass reads in two pieces (the second of 2
     * columns), and d_k = 6, not a whole number of its blocks of four. */
    enum { NQ = 40, NK = 16, D = 72 };
    static const int shapes[][4] = {/* n_q, n_k, d_model, H */
                                    {1, 1, 32, 4},  {10, 10, 32, 4}, {16, 16, 32, 2},
                                    {17, 5, 32, 4}, {40, 16, 72, 1}, {3, 12, 72, 3},
                                    {7, 9, 30, 5},  {12, 13, 66, 1}};
    static float Xq[NQ * D], Xk[NK * D], W[4][D * D], Q[NQ * D], K[NK * D], V[NK * D],
        S[4 * NQ * NK], P[4 * NQ * NK], C[NQ * D], O[NQ * D], T[NQ * NK], R[NQ * D];
    Rng r;
    rng_seed(&r, 23);
    test_random_fill(&r, Xq, NQ * D, 1.0f);
    test_random_fill(&r, Xk, NK * D, 1.0f);
    for (int k = 0; k < 4; k++)
        test_random_fill(&r, W[k], D * D, 0.5f);
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++)
        for (int causal = 0; causal < 2; causal++) {
            const int n_q = shapes[k][0], n_k = shapes[k][1], d = shapes[k][2], H = shapes[k][3];
            const int d_k = d / H;
            AttnShape s = {n_q, n_k, d, H, causal, true, 1.0f};
            AttnWeights w = {W[0], W[1], W[2], W[3]};
            AttnBuffers b = {Q, K, V, S, P, C, O, NULL};
            assert_int_equal(attention_forward(&s, Xq, n_q == n_k ? Xq : Xk, &w, &b), AV_OK);
            for (int h = 0; h < H; h++) {
                const float *S_h = S + (long)h * n_q * n_k, *P_h = P + (long)h * n_q * n_k;
                mat_sgemm_small(true, n_q, n_k, d_k, attention_scale(&s), Q + h * d_k, d,
                                K + h * d_k, d, 0.0f, T, n_k);
                for (int i = 0; i < n_q; i++) {
                    int vis = attention_visible_keys(&s, i);
                    for (int j = vis; j < n_k; j++)
                        T[i * n_k + j] = -INFINITY;
                }
                assert_memory_equal(S_h, T, sizeof(float) * n_q * n_k);
                softmax_visible_rows(&s, T);
                assert_memory_equal(P_h, T, sizeof(float) * n_q * n_k);
                mat_sgemm_small(false, n_q, d_k, n_k, 1.0f, P_h, n_k, V + h * d_k, d, 0.0f, R, d_k);
                for (int i = 0; i < n_q; i++)
                    assert_memory_equal(C + (long)i * d + h * d_k, R + (long)i * d_k,
                                        sizeof(float) * d_k);
            }
        }
}

static void test_attention_two_threads_match_reference(void **state)
{
    (void)state;
    /* A problem on two head threads (each taking whole row blocks): every
     * head's output in concat is P_h V_h computed in double from the weights
     * the forward returned, within 1e-5 relative, under the mask too, and
     * out is concat W_o. A block left undone or done twice fails here. */
    int n = 1024, d = 64, H = 2, d_k = d / H;
    Fixture f;
    fixture_init(&f, n, d, H, 91);
    for (int causal = 0; causal < 2; causal++) {
        AttnShape s = {n, n, d, H, causal, true, 1.0f};
        AttnWeights w = {f.W[0], f.W[1], f.W[2], f.W[3]};
        AttnBuffers b = {f.Q, f.K, f.V, NULL, f.P, f.C, f.O, NULL};
        memset(f.C, 0xff, sizeof(float) * n * d); /* NaN wherever nothing writes */
        assert_int_equal(attention_forward(&s, f.X, f.X, &w, &b), AV_OK);
        double worst = 0;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++)
                for (int c = 0; c < d_k; c++) {
                    const float *P_i = f.P + ((long)h * n + i) * n;
                    double ref = 0;
                    for (int j = 0; j < n; j++)
                        ref += (double)P_i[j] * f.V[(long)j * d + h * d_k + c];
                    double got = f.C[(long)i * d + h * d_k + c];
                    double err = fabs(got - ref) / (1.0 + fabs(ref));
                    assert_true(err <= 1e-5); /* false for NaN too */
                    worst = err > worst ? err : worst;
                }
        for (int i = 0; i < n; i += 97)
            for (int c = 0; c < d; c++) {
                double ref = 0;
                for (int k = 0; k < d; k++)
                    ref += (double)f.C[(long)i * d + k] * f.W[3][(long)k * d + c];
                assert_true(fabs(f.O[(long)i * d + c] - ref) <= 1e-5 * (1.0 + fabs(ref)));
            }
        print_message("threads %d, mask %s: worst relative error of concat %.2g\n",
                      attention_threads(&s), causal ? "on" : "off", worst);
    }
    fixture_free(&f);
}

/* attention_heads on the Q, K and V attention_forward made: its P and concat
 * bit for bit, at a trainer's shape (the packed path, with work) and at a
 * short one (no work); a bad shape is refused. */
static void heads_same_bits(int n, int d, int H, bool causal)
{
    AttnShape s = {.n_q = n,
                   .n_k = n,
                   .d_model = d,
                   .H = H,
                   .causal = causal,
                   .scale = true,
                   .temperature = 1.0f};
    const size_t nd = (size_t)n * d, hnn = (size_t)H * n * n, wf = attention_heads_work(&s);
    float *X = malloc(nd * sizeof *X), *W = malloc(4 * (size_t)d * d * sizeof *W);
    float *Q = malloc(nd * sizeof *Q), *K = malloc(nd * sizeof *K), *V = malloc(nd * sizeof *V);
    float *P = malloc(hnn * sizeof *P), *cat = malloc(nd * sizeof *cat);
    float *out = malloc(nd * sizeof *out), *P2 = malloc(hnn * sizeof *P2);
    float *cat2 = malloc(nd * sizeof *cat2), *work = wf ? malloc(wf * sizeof *work) : NULL;
    assert_true(X && W && Q && K && V && P && cat && out && P2 && cat2 && (work || !wf));
    Rng r;
    rng_seed(&r, (uint64_t)n * 131 + d);
    for (size_t i = 0; i < nd; i++)
        X[i] = rng_symmetric(&r, 1.0f);
    for (size_t i = 0; i < 4 * (size_t)d * d; i++)
        W[i] = rng_symmetric(&r, 0.3f);
    AttnWeights w = {W, W + d * d, W + 2 * d * d, W + 3 * d * d};
    AttnBuffers b = {.Q = Q, .K = K, .V = V, .P = P, .concat = cat, .out = out};
    assert_int_equal(attention_forward(&s, X, X, &w, &b), AV_OK);
    assert_int_equal(attention_heads(&s, Q, K, V, P2, cat2, work), AV_OK);
    assert_memory_equal(P, P2, hnn * sizeof *P);
    assert_memory_equal(cat, cat2, nd * sizeof *cat);
    s.H = 3 * d; /* does not divide d_model */
    assert_int_equal(attention_heads(&s, Q, K, V, P2, cat2, work), AV_ERR_CONFIG);
    free(X), free(W), free(Q), free(K), free(V), free(P), free(cat), free(out), free(P2);
    free(cat2), free(work);
}

static void test_attention_heads_same_bits(void **state)
{
    (void)state;
    heads_same_bits(64, 64, 4, true);  /* the character model's layer */
    heads_same_bits(200, 64, 2, true); /* two row blocks */
    heads_same_bits(37, 32, 2, false);
    heads_same_bits(9, 8, 2, true); /* short rows */
}

/* Random floats in [-std, std]. */
static void test_attention_pool_plan_matches_pool_head(void **state)
{
    /* expect: the grids the forward pools from each block (a pool plan) are
     * pool_head's POOL_MAX cells of the kept weights, bit for bit (memcmp):
     * 701 tokens (two threads), odd grids, a head twice, mask off and on;
     * done is set with the shape, and cleared by a forward that cannot pool */
    (void)state;
    const int n = 701, d = 96, H = 3;
    const int grids[5][3] = {{0, 52, 64}, {0, 6, 19}, {1, 6, 19}, {2, 7, 13}, {2, 1, 1}};
    Rng r;
    rng_seed(&r, 77);
    float *X = test_random_floats(&r, (size_t)n * d, 1.0f);
    float *W = test_random_floats(&r, 4 * (size_t)d * d, 0.4f);
    float *buf = calloc((size_t)5 * n * d + (size_t)H * n * n, sizeof *buf);
    float *ref = malloc(sizeof *ref * 52 * 64);
    assert_non_null(buf), assert_non_null(ref);
    AttnWeights w = {W, W + d * d, W + 2 * d * d, W + 3 * d * d};
    for (int causal = 0; causal <= 1; causal++) {
        AttnShape s = {n, n, d, H, causal, true, 1.0f};
        double ent[3 * 701];
        float top[3 * 701];
        AttnPoolPlan plan = {.count = 5,
                             .row_entropy = ent,
                             .row_top = top,
                             .stats_cap = 3 * 701,
                             .stats_budget = causal ? 1L << 15 : 1L << 20};
        for (int k = 0; k < 5; k++) {
            plan.grid[k] = (AttnPoolGrid){grids[k][0], grids[k][1], grids[k][2], NULL};
            plan.grid[k].out = malloc(sizeof(float) * (size_t)grids[k][1] * grids[k][2]);
            assert_non_null(plan.grid[k].out);
        }
        AttnBuffers b = {buf,
                         buf + n * d,
                         buf + 2 * n * d,
                         NULL,
                         buf + 5 * n * d,
                         buf + 3 * n * d,
                         buf + 4 * n * d,
                         &plan};
        assert_int_equal(attention_forward(&s, X, X, &w, &b), AV_OK);
        assert_true(plan.done);
        assert_int_equal(plan.n_q, n), assert_int_equal(plan.n_k, n);
        assert_int_equal(plan.causal, causal);
        for (int k = 0; k < 5; k++) {
            const AttnPoolGrid *g = &plan.grid[k];
            const float *P_h = b.P + (size_t)g->h * n * n;
            assert_int_equal(
                pool_head(&s, g->h, NULL, NULL, P_h, 0, n, 0, n, g->gh, g->gw, POOL_MAX, ref),
                AV_OK);
            assert_memory_equal(g->out, ref, sizeof *ref * (size_t)g->gh * g->gw);
        }
        assert_true(plan.grid[4].out[0] > 0.0f && plan.grid[4].out[0] <= 1.0f);
        /* the statistics: stats_head's, every bit, sampled (16) and whole (1) */
        assert_int_equal(plan.stats_stride, causal ? 16 : 1);
        for (int h = 0; h < H; h++) {
            HeadStats want, got;
            const int rows = (n + plan.stats_stride - 1) / plan.stats_stride;
            assert_int_equal(
                stats_head(&s, h, NULL, NULL, b.P + (size_t)h * n * n, plan.stats_budget, &want),
                AV_OK);
            stats_from_rows(ent + h * rows, top + h * rows, rows, plan.stats_stride, &got);
            assert_true(want.rows == rows && want.entropy > 0.1);
            assert_memory_equal(&want.entropy, &got.entropy, sizeof want.entropy);
            assert_memory_equal(&want.top, &got.top, sizeof want.top);
            assert_memory_equal(&want.max, &got.max, sizeof want.max);
            assert_int_equal(want.rows, got.rows);
            assert_int_equal(want.sampled, got.sampled);
        }
        plan.grid[0].gh = n + 1; /* does not fit: no grids, done stays false */
        assert_int_equal(attention_forward(&s, X, X, &w, &b), AV_OK);
        assert_false(plan.done);
        for (int k = 0; k < 5; k++)
            free(plan.grid[k].out);
    }
    free(X), free(W), free(buf), free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attention_two_threads_match_reference),
        cmocka_unit_test(test_attention_pool_plan_matches_pool_head),
        cmocka_unit_test(test_attention_seed001_scores),
        cmocka_unit_test(test_attention_seed001_scaled_softmax_output),
        cmocka_unit_test(test_attention_rows_sum_to_one),
        cmocka_unit_test(test_attention_causal_upper_triangle_exactly_zero),
        cmocka_unit_test(test_attention_matches_naive_multihead),
        cmocka_unit_test(test_attention_permutation_equivariant),
        cmocka_unit_test(test_attention_softmax_stable_for_large_scores),
        cmocka_unit_test(test_attention_softmax_exp_accuracy),
        cmocka_unit_test(test_attention_softmax_rows_of_every_length),
        cmocka_unit_test(test_attention_blocked_matches_naive),
        cmocka_unit_test(test_attention_threads_give_same_bits),
        cmocka_unit_test(test_attention_forward_error_codes),
        cmocka_unit_test(test_attention_wide_heads_within_1e6),
        cmocka_unit_test(test_attention_check_rejects_bad_shapes),
        cmocka_unit_test(test_mat_sgemm_matches_reference),
        cmocka_unit_test(test_mat_sgemm_small_matches_reference),
        cmocka_unit_test(test_attention_short_rows_same_bits),
        cmocka_unit_test(test_attention_short_heads_same_bits),
        cmocka_unit_test(test_attention_heads_same_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
