/* test_ops.c - every backward pass of train/ops.h against central finite
 * differences of its forward pass.
 *
 * The scalar checked is L = sum_i R_i out_i for fixed random R, summed in
 * double; each input is nudged by +-eps and (L+ - L-) / (x+ - x-) (the
 * actual float difference of the nudged values) compared with the gradient
 * the backward pass accumulated. The error reported is the largest
 * |analytic - numeric| over the tensor divided by its largest |numeric|.
 */
#include "test_common.h"
#include "test_random.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/mat.h"
#include "core/rng.h"
#include "train/ops.h"

#define EPS 1e-2f
#define TOL 2e-3

typedef double (*LossFn)(void *ctx);

static double dot(const float *a, const float *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += (double)a[i] * r[i];
    return s;
}

/* Largest relative error of grad (n) against finite differences of f in x. */
static double fd_error(LossFn f, void *ctx, float *x, const float *grad, int n, const char *what)
{
    double worst = 0, scale = 1e-12;
    double *num = malloc((size_t)n * sizeof *num);
    assert_non_null(num);
    for (int i = 0; i < n; i++) {
        float keep = x[i], hi = keep + EPS, lo = keep - EPS;
        x[i] = hi;
        double lp = f(ctx);
        x[i] = lo;
        double lm = f(ctx);
        x[i] = keep;
        num[i] = (lp - lm) / ((double)hi - (double)lo);
        scale = fabs(num[i]) > scale ? fabs(num[i]) : scale;
    }
    for (int i = 0; i < n; i++) {
        double e = fabs(num[i] - grad[i]) / scale;
        worst = e > worst ? e : worst;
    }
    free(num);
    print_message("%-28s largest relative error %.2e\n", what, worst);
    return worst;
}

/* ---- layernorm ---- */
enum { N = 5, D = 8, K = 7, C = 6 };

typedef struct {
    float x[N * D], g[D], b[D], r[N * D], out[N * D], mean[N], rstd[N];
} LnCtx;

static double ln_loss(void *p)
{
    LnCtx *c = p;
    ops_layernorm_forward(c->out, c->mean, c->rstd, c->x, c->g, c->b, N, D);
    return dot(c->out, c->r, N * D);
}

static void test_ops_layernorm(void **state)
{
    (void)state;
    LnCtx c;
    Rng r;
    rng_seed(&r, 1);
    test_random_fill(&r, c.x, N * D, 1.0f);
    test_random_fill(&r, c.g, D, 1.0f);
    test_random_fill(&r, c.b, D, 1.0f);
    test_random_fill(&r, c.r, N * D, 1.0f);
    float dx[N * D] = {0}, dg[D] = {0}, db[D] = {0};
    ln_loss(&c);
    ops_layernorm_backward(dx, dg, db, c.r, c.x, c.g, c.mean, c.rstd, N, D);
    assert_true(fd_error(ln_loss, &c, c.x, dx, N * D, "layernorm dx") < TOL);
    assert_true(fd_error(ln_loss, &c, c.g, dg, D, "layernorm dgain") < TOL);
    assert_true(fd_error(ln_loss, &c, c.b, db, D, "layernorm dbias") < TOL);
}

/* ---- linear ---- */
typedef struct {
    float x[N * K], w[K * C], bias[C], r[N * C], out[N * C];
} LinCtx;

static double lin_loss(void *p)
{
    LinCtx *c = p;
    ops_linear_forward(c->out, c->x, c->w, c->bias, N, K, C);
    return dot(c->out, c->r, N * C);
}

static void test_ops_linear(void **state)
{
    (void)state;
    LinCtx c;
    Rng r;
    rng_seed(&r, 2);
    test_random_fill(&r, c.x, N * K, 1.0f);
    test_random_fill(&r, c.w, K * C, 1.0f);
    test_random_fill(&r, c.bias, C, 1.0f);
    test_random_fill(&r, c.r, N * C, 1.0f);
    /* backward accumulates: start from 1 and subtract it again */
    float dx[N * K], dw[K * C], db[C];
    for (int i = 0; i < N * K; i++)
        dx[i] = 1.0f;
    memset(dw, 0, sizeof dw), memset(db, 0, sizeof db);
    ops_linear_backward(dx, dw, db, c.r, c.x, c.w, N, K, C);
    for (int i = 0; i < N * K; i++)
        dx[i] -= 1.0f;
    assert_true(fd_error(lin_loss, &c, c.x, dx, N * K, "linear dx (accumulated)") < TOL);
    assert_true(fd_error(lin_loss, &c, c.w, dw, K * C, "linear dw") < TOL);
    assert_true(fd_error(lin_loss, &c, c.bias, db, C, "linear dbias") < TOL);
}

/* ---- activations ---- */
typedef struct {
    float x[N * D], r[N * D], out[N * D];
    bool relu;
} ActCtx;

static double act_loss(void *p)
{
    ActCtx *c = p;
    ops_act_forward(c->out, c->x, N * D, c->relu);
    return dot(c->out, c->r, N * D);
}

static void check_act(bool relu, const char *what)
{
    ActCtx c = {.relu = relu};
    Rng r;
    rng_seed(&r, 3);
    test_random_fill(&r, c.x, N * D, 2.0f);
    test_random_fill(&r, c.r, N * D, 1.0f);
    for (int i = 0; i < N * D; i++) /* keep ReLU's kink out of reach of eps */
        if (fabsf(c.x[i]) < 0.05f)
            c.x[i] = 0.3f;
    float dx[N * D] = {0};
    ops_act_backward(dx, c.x, c.r, N * D, relu);
    assert_true(fd_error(act_loss, &c, c.x, dx, N * D, what) < TOL);
}

static void test_ops_gelu(void **state)
{
    (void)state;
    check_act(false, "gelu (tanh form) dx");
    /* the forward is GELU's tanh form: a value checked against the formula in double */
    float x = 0.7f, y;
    ops_act_forward(&y, &x, 1, false);
    double u = sqrt(2 / M_PI) * (0.7 + 0.044715 * 0.343);
    assert_float_equal(y, 0.5 * 0.7 * (1 + tanh(u)), 1e-6);
}

static void test_ops_relu(void **state)
{
    (void)state;
    check_act(true, "relu dx");
}

/* The fused bias + GELU and its backward from the kept tanh: the same
 * numbers as the bias added, ops_act_forward and ops_act_backward into zeros
 * (rows of 44: two chunks and a tail; with AVX2, five groups of 8 in
 * intrinsics and a tail of 4), large values (the tanh's clamp) included. */
static void test_ops_bias_gelu_fused(void **state)
{
    (void)state;
    enum { GN = 3, GW = 44 };
    float h[GN * GW], h2[GN * GW], bias[GW], g[GN * GW], g2[GN * GW], t[GN * GW];
    float dg[GN * GW], dh[GN * GW], dh2[GN * GW] = {0};
    Rng r;
    rng_seed(&r, 8);
    test_random_fill(&r, h, GN * GW, 3.0f);
    test_random_fill(&r, bias, GW, 1.0f);
    test_random_fill(&r, dg, GN * GW, 1.0f);
    h[5] = 50.0f, h[GW + 9] = -50.0f, h[2 * GW + 42] = 1e-20f;
    for (int i = 0; i < GN * GW; i++)
        h2[i] = h[i] + bias[i % GW];
    ops_bias_gelu_forward(g, t, h, bias, GN, GW);
    ops_act_forward(g2, h2, GN * GW, false);
    assert_memory_equal(h, h2, sizeof h);
    assert_memory_equal(g, g2, sizeof g);
    ops_gelu_backward_saved(dh, h, t, dg, GN * GW);
    ops_act_backward(dh2, h2, dg, GN * GW, false);
    for (int i = 0; i < GN * GW; i++) /* equal (0 + -0 is +0 there) */
        assert_true(dh[i] == dh2[i]);
}

/* ---- attention (core's forward, train's backward) ---- */
enum { T = 6, AD = 8, AH = 2 };

typedef struct {
    float X[T * AD], Wq[AD * AD], Wk[AD * AD], Wv[AD * AD], Wo[AD * AD], r[T * AD];
    float Q[T * AD], Kb[T * AD], V[T * AD], P[AH * T * T], cat[T * AD], out[T * AD];
} AttCtx;

static double att_loss(void *p)
{
    AttCtx *c = p;
    AttnShape s = {.n_q = T,
                   .n_k = T,
                   .d_model = AD,
                   .H = AH,
                   .causal = true,
                   .scale = true,
                   .temperature = 1.0f};
    AttnWeights w = {c->Wq, c->Wk, c->Wv, c->Wo};
    AttnBuffers b = {.Q = c->Q, .K = c->Kb, .V = c->V, .P = c->P, .concat = c->cat, .out = c->out};
    assert_int_equal(attention_forward(&s, c->X, c->X, &w, &b), 0);
    return dot(c->cat, c->r, T * AD);
}

static void test_ops_attention(void **state)
{
    (void)state;
    AttCtx c;
    Rng r;
    rng_seed(&r, 4);
    test_random_fill(&r, c.X, T * AD, 1.0f);
    test_random_fill(&r, c.r, T * AD, 1.0f);
    test_random_fill(&r, c.Wq, AD * AD, 0.5f);
    test_random_fill(&r, c.Wk, AD * AD, 0.5f);
    test_random_fill(&r, c.Wv, AD * AD, 0.5f);
    test_random_fill(&r, c.Wo, AD * AD, 0.5f);
    att_loss(&c);
    float dQ[T * AD], dK[T * AD], dV[T * AD], scratch[4096];
    assert_true(ops_attention_backward_scratch(T, AD, AH) <= 4096);
    float dX[T * AD] = {0}, dWq[AD * AD] = {0}, dWk[AD * AD] = {0}, dWv[AD * AD] = {0};
    ops_attention_backward(dQ, dK, dV, c.r, c.Q, c.Kb, c.V, c.P, T, AD, AH, scratch);
    ops_linear_backward(dX, dWq, NULL, dQ, c.X, c.Wq, T, AD, AD);
    ops_linear_backward(dX, dWk, NULL, dK, c.X, c.Wk, T, AD, AD);
    ops_linear_backward(dX, dWv, NULL, dV, c.X, c.Wv, T, AD, AD);
    assert_true(fd_error(att_loss, &c, c.X, dX, T * AD, "attention dX") < TOL);
    assert_true(fd_error(att_loss, &c, c.Wq, dWq, AD * AD, "attention dWq") < TOL);
    assert_true(fd_error(att_loss, &c, c.Wk, dWk, AD * AD, "attention dWk") < TOL);
    assert_true(fd_error(att_loss, &c, c.Wv, dWv, AD * AD, "attention dWv") < TOL);
}

/* ---- cross-entropy ---- */
typedef struct {
    float logits[N * C], probs[N * C], mask[N];
    int tgt[N];
} CeCtx;

static double ce_loss(void *p)
{
    CeCtx *c = p;
    return ops_crossentropy_forward(c->probs, c->logits, c->tgt, c->mask, NULL, N, C);
}

static void test_ops_crossentropy(void **state)
{
    (void)state;
    CeCtx c = {.mask = {1, 0, 1, 1, 0}, .tgt = {0, 3, 5, 2, 1}};
    Rng r;
    rng_seed(&r, 5);
    test_random_fill(&r, c.logits, N * C, 2.0f);
    double l = ce_loss(&c);
    /* the masked mean of -log p[target], computed here in double */
    double want = 0;
    for (int i = 0; i < N; i++) {
        double m = -1e30, s = 0;
        for (int v = 0; v < C; v++)
            m = c.logits[i * C + v] > m ? c.logits[i * C + v] : m;
        for (int v = 0; v < C; v++)
            s += exp(c.logits[i * C + v] - m);
        want += c.mask[i] * -(c.logits[i * C + c.tgt[i]] - m - log(s));
    }
    assert_float_equal(l, want / 3, 1e-5);
    float d[N * C] = {0};
    ops_crossentropy_backward(d, c.probs, c.tgt, c.mask, N, C, 3.0);
    assert_true(fd_error(ce_loss, &c, c.logits, d, N * C, "cross-entropy dlogits") < TOL);
    /* the rows in two parts, each with the whole batch's count: the same bits */
    float e[N * C] = {0};
    ops_crossentropy_backward(e, c.probs, c.tgt, c.mask, 2, C, 3.0);
    ops_crossentropy_backward(e + 2 * C, c.probs + 2 * C, c.tgt + 2, c.mask + 2, N - 2, C, 3.0);
    assert_memory_equal(d, e, sizeof d);
}

/* The attention backward on a longer sequence (several blocks of query rows,
 * one cut short) against its formulas computed here in double:
 * dV = P^T dcat, dS = scale P (dcat V^T - rowsum), dQ = dS K, dK = dS^T Q. */
static void check_attention_long(int T_, int D_, int H_)
{
    const int d_k = D_ / H_;
    const size_t td = (size_t)T_ * D_;
    float *Q = malloc(td * sizeof *Q), *Kx = malloc(td * sizeof *Kx), *V = malloc(td * sizeof *V);
    float *dc = malloc(td * sizeof *dc), *P = calloc((size_t)H_ * T_ * T_, sizeof *P);
    float *dQ = malloc(td * sizeof *dQ), *dK = malloc(td * sizeof *dK);
    float *dV = malloc(td * sizeof *dV);
    float *scratch = malloc(ops_attention_backward_scratch(T_, D_, H_) * sizeof *scratch);
    double *dS = malloc((size_t)T_ * T_ * sizeof *dS);
    Rng r;
    rng_seed(&r, 11);
    test_random_fill(&r, Q, td, 1.0f);
    test_random_fill(&r, Kx, td, 1.0f);
    test_random_fill(&r, V, td, 1.0f);
    test_random_fill(&r, dc, td, 1.0f);
    for (int h = 0; h < H_; h++) /* causal rows of positive weights summing to 1 */
        for (int i = 0; i < T_; i++) {
            float *p = P + ((long)h * T_ + i) * T_, sum = 0;
            for (int j = 0; j <= i; j++)
                sum += p[j] = 0.1f + (float)(rng_next(&r) % 1000) / 1000.0f;
            for (int j = 0; j <= i; j++)
                p[j] /= sum;
        }
    ops_attention_backward(dQ, dK, dV, dc, Q, Kx, V, P, T_, D_, H_, scratch);
    double worst = 0;
    for (int h = 0; h < H_; h++) {
        const float *Ph = P + (long)h * T_ * T_;
        const int c0 = h * d_k;
        for (int i = 0; i < T_; i++) {
            double dot = 0, dp[T_];
            for (int j = 0; j < T_; j++) {
                dp[j] = 0;
                for (int c = 0; c < d_k; c++)
                    dp[j] += (double)dc[i * D_ + c0 + c] * V[j * D_ + c0 + c];
                dot += Ph[i * T_ + j] * dp[j];
            }
            for (int j = 0; j < T_; j++)
                dS[i * T_ + j] = Ph[i * T_ + j] * (dp[j] - dot) / sqrt((double)d_k);
        }
        for (int i = 0; i < T_; i++)
            for (int c = 0; c < d_k; c++) {
                double q = 0, k = 0, v = 0;
                for (int j = 0; j < T_; j++) {
                    q += dS[i * T_ + j] * Kx[j * D_ + c0 + c];
                    k += dS[j * T_ + i] * Q[j * D_ + c0 + c];
                    v += (double)Ph[j * T_ + i] * dc[j * D_ + c0 + c];
                }
                const long o = (long)i * D_ + c0 + c;
                double e = fabs(dQ[o] - q) + fabs(dK[o] - k) + fabs(dV[o] - v);
                worst = e > worst ? e : worst;
            }
    }
    print_message("attention backward T %d D %d H %d: largest error %.2g\n", T_, D_, H_, worst);
    assert_true(worst < 1e-4);
    free(Q), free(Kx), free(V), free(dc), free(P), free(dQ), free(dK), free(dV);
    free(scratch), free(dS);
}

static void test_ops_attention_long(void **state)
{
    (void)state;
    check_attention_long(37, 32, 2); /* d_k 16, blocks of 16, 16, 5 rows */
    check_attention_long(64, 64, 8); /* d_k 8 */
    check_attention_long(1, 8, 1);
    check_attention_long(20, 48, 2); /* d_k 24: a whole panel of 16 columns and 8 more */
}

/* A linear layer past mat_sgemm_small (the packed kernel where it runs)
 * against mat_sgemm_ref: out = x w + b; dx = dout w^T (set and added). */
static void test_ops_linear_large(void **state)
{
    (void)state;
    enum { LN = 100, LK = 64, LC = 48 };
    static float x[LN * LK], w[LK * LC], b[LC], out[LN * LC], want[LN * LC];
    static float dout[LN * LC], dx[LN * LK], dx2[LN * LK], dxw[LN * LK], dw[LK * LC];
    Rng r;
    rng_seed(&r, 21);
    test_random_fill(&r, x, LN * LK, 1.0f);
    test_random_fill(&r, w, LK * LC, 0.5f);
    test_random_fill(&r, b, LC, 0.5f);
    test_random_fill(&r, dout, LN * LC, 1.0f);
    test_random_fill(&r, dx2, LN * LK, 1.0f);
    ops_linear_forward(out, x, w, b, LN, LK, LC);
    mat_sgemm_ref(false, false, LN, LC, LK, 1.0f, x, LK, w, LC, 0.0f, want, LC);
    double worst = 0;
    for (int i = 0; i < LN * LC; i++)
        worst = fmax(worst, fabs(out[i] - (want[i] + b[i % LC])));
    mat_sgemm_ref(false, true, LN, LK, LC, 1.0f, dout, LC, w, LC, 0.0f, dxw, LK);
    ops_linear_backward_set(dx, dw, NULL, dout, x, w, LN, LK, LC);
    for (int i = 0; i < LN * LK; i++)
        worst = fmax(worst, fabs(dx[i] - dxw[i]));
    float keep[LN * LK];
    memcpy(keep, dx2, sizeof keep);
    ops_linear_backward(dx2, dw, NULL, dout, x, w, LN, LK, LC);
    for (int i = 0; i < LN * LK; i++)
        worst = fmax(worst, fabs(dx2[i] - (keep[i] + dxw[i])));
    print_message("linear 100 x 64 x 48: largest error %.2g\n", worst);
    assert_true(worst < 1e-4);
}

/* ---- embedding ---- */
enum { EV = 5, ET = 3 };

typedef struct {
    float embed[EV * D], pe[ET * D], out[2 * ET * D], r[2 * ET * D];
    int tok[2 * ET];
} EmbCtx;

static double emb_loss(void *p)
{
    EmbCtx *c = p;
    ops_embed_forward(c->out, c->tok, c->embed, c->pe, 2 * ET, ET, D);
    return dot(c->out, c->r, 2 * ET * D);
}

static void test_ops_embed(void **state)
{
    (void)state;
    EmbCtx c = {.tok = {1, 4, 1, 0, 2, 4}};
    Rng r;
    rng_seed(&r, 6);
    test_random_fill(&r, c.embed, EV * D, 1.0f);
    test_random_fill(&r, c.pe, ET * D, 1.0f);
    test_random_fill(&r, c.r, 2 * ET * D, 1.0f);
    float de[EV * D] = {0}, dp[ET * D] = {0};
    emb_loss(&c);
    ops_embed_backward(de, dp, c.r, c.tok, 2 * ET, ET, D);
    assert_true(fd_error(emb_loss, &c, c.embed, de, EV * D, "embedding dembed") < TOL);
    assert_true(fd_error(emb_loss, &c, c.pe, dp, ET * D, "embedding dpe (learned)") < TOL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_layernorm),    cmocka_unit_test(test_ops_linear),
        cmocka_unit_test(test_ops_gelu),         cmocka_unit_test(test_ops_relu),
        cmocka_unit_test(test_ops_attention),    cmocka_unit_test(test_ops_attention_long),
        cmocka_unit_test(test_ops_linear_large), cmocka_unit_test(test_ops_bias_gelu_fused),
        cmocka_unit_test(test_ops_crossentropy), cmocka_unit_test(test_ops_embed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
