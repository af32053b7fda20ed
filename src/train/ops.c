/* ops.c - forward and backward passes of the trainer's operations, in pairs.
 *
 * Every matrix product goes through mat_sgemm, or mat_sgemm_packed where
 * that kernel runs and pays (products whose output is written, and the
 * attention backward's, attnback.c). Backward passes accumulate
 * (+=) into the gradients they are given, as llm.c's do; the one exception,
 * ops_attention_backward, writes dQ, dK, dV whole because the caller turns
 * them into input and weight gradients straight away. The attention forward
 * is not here: it is core/attention.h's attention_forward, the one the views
 * draw.
 */
#include "train/ops.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/mat.h"
#include "attnback.h"
#include "gelu.h"
#include "vecloop.h"

#define LN_EPS 1e-5f
#define GELU_C 0.7978845608028654f /* sqrt(2 / pi) */

/* The sum of x[0..n) in CHUNK partial sums added in a fixed order: it
 * vectorises without -ffast-math and gives the same bits on every machine. */
static inline float lane_sum(const float *x, int n)
{
    float acc[CHUNK] = {0}, s = 0.0f;
    int i = 0;
    for (; i + CHUNK <= n; i += CHUNK)
        for (int c = 0; c < CHUNK; c++)
            acc[c] += x[i + c];
    for (int c = 0; i + c < n; c++)
        acc[c] += x[i + c];
    for (int c = 0; c < CHUNK; c++)
        s += acc[c];
    return s;
}

void ops_embed_forward(float *out, const int *tok, const float *embed, const float *pe, int N,
                       int T, int D)
{
    /* out (N, D), embed (V, D), pe (T, D) */
    for (int r = 0; r < N; r++) {
        const float *e = embed + (long)tok[r] * D, *p = pe ? pe + (long)(r % T) * D : NULL;
        float *o = out + (long)r * D;
        for (int c = 0; c < D; c++)
            o[c] = p ? e[c] + p[c] : e[c];
    }
}

void ops_embed_backward(float *dembed, float *dpe, const float *dout, const int *tok, int N, int T,
                        int D)
{
    for (int r = 0; r < N; r++) {
        const float *g = dout + (long)r * D;
        float *de = dembed + (long)tok[r] * D, *dp = dpe ? dpe + (long)(r % T) * D : NULL;
        for (int c = 0; c < D; c++) {
            de[c] += g[c];
            if (dp)
                dp[c] += g[c];
        }
    }
}

/* LayerNorm's per-element steps, a chunk of CHUNK columns at a time (with
 * restrict and a fixed length, so gcc -O2 vectorises them), the last
 * columns alone; the same operations either way. */
static inline void ln_dev(float *restrict dev, const float *restrict x, float m, int n)
{
    for (int c = 0; c < n; c++)
        dev[c] = (x[c] - m) * (x[c] - m);
}

static inline void ln_out(float *restrict o, const float *restrict x, const float *restrict g,
                          const float *restrict b, float m, float s, int n)
{
    for (int c = 0; c < n; c++)
        o[c] = (x[c] - m) * s * g[c] + b[c];
}

/* norm, dnorm = dout * g, dnorm * norm; db += dout, dg += dout * norm. */
static inline void ln_back1(float *restrict norm, float *restrict dn, float *restrict dnn,
                            float *restrict dg, float *restrict db, const float *restrict x,
                            const float *restrict d, const float *restrict g, float m, float s,
                            int n)
{
    for (int c = 0; c < n; c++) {
        norm[c] = (x[c] - m) * s;
        dn[c] = d[c] * g[c];
        dnn[c] = dn[c] * norm[c];
        db[c] += d[c];
        dg[c] += d[c] * norm[c];
    }
}

static inline void ln_back2(float *restrict dx, const float *restrict norm,
                            const float *restrict dn, float s, float mean_d, float mean_dn, int n)
{
    for (int c = 0; c < n; c++)
        dx[c] += s * (dn[c] - mean_d - norm[c] * mean_dn);
}

VEC_CLONES
void ops_layernorm_forward(float *out, float *mean, float *rstd, const float *x, const float *g,
                           const float *b, int N, int D)
{
    /* x, out (N, D); g, b (D); mean, rstd (N) */
    float dev[AV_MAX_D_MODEL];
    assert(D <= AV_MAX_D_MODEL);
    for (int r = 0; r < N; r++) {
        const float *x_r = x + (long)r * D;
        float *o = out + (long)r * D, m = lane_sum(x_r, D) / (float)D;
        BY_CHUNKS(D, c, ln_dev(dev + c, x_r + c, m, CHUNK), ln_dev(dev + c, x_r + c, m, D - c));
        float s = 1.0f / sqrtf(lane_sum(dev, D) / (float)D + LN_EPS);
        BY_CHUNKS(D, c, ln_out(o + c, x_r + c, g + c, b + c, m, s, CHUNK),
                  ln_out(o + c, x_r + c, g + c, b + c, m, s, D - c));
        mean[r] = m;
        rstd[r] = s;
    }
}

VEC_CLONES
void ops_layernorm_backward(float *dx, float *dg, float *db, const float *dout, const float *x,
                            const float *g, const float *mean, const float *rstd, int N, int D)
{
    float norm[AV_MAX_D_MODEL], dn[AV_MAX_D_MODEL], dnn[AV_MAX_D_MODEL];
    assert(D <= AV_MAX_D_MODEL);
    for (int r = 0; r < N; r++) {
        const float *x_r = x + (long)r * D, *d_r = dout + (long)r * D;
        float *dx_r = dx + (long)r * D, m = mean[r], s = rstd[r];
        /* dnorm = dout * g; dx = s * (dnorm - mean(dnorm) - norm * mean(dnorm * norm)) */
        BY_CHUNKS(D, c,
                  ln_back1(norm + c, dn + c, dnn + c, dg + c, db + c, x_r + c, d_r + c, g + c, m, s,
                           CHUNK),
                  ln_back1(norm + c, dn + c, dnn + c, dg + c, db + c, x_r + c, d_r + c, g + c, m, s,
                           D - c));
        float mean_d = lane_sum(dn, D) / (float)D, mean_dn = lane_sum(dnn, D) / (float)D;
        BY_CHUNKS(D, c, ln_back2(dx_r + c, norm + c, dn + c, s, mean_d, mean_dn, CHUNK),
                  ln_back2(dx_r + c, norm + c, dn + c, s, mean_d, mean_dn, D - c));
    }
}

static inline void add_to(float *restrict o, const float *restrict a, int n)
{
    for (int c = 0; c < n; c++)
        o[c] += a[c];
}

static inline void sum_into(float *restrict o, const float *restrict a, const float *restrict b,
                            int n)
{
    for (int c = 0; c < n; c++)
        o[c] = a[c] + b[c];
}

VEC_CLONES
void ops_add(float *out, const float *a, const float *b, long n)
{
    long i = 0;
    for (; i + CHUNK <= n; i += CHUNK)
        sum_into(out + i, a + i, b + i, CHUNK);
    if (i < n)
        sum_into(out + i, a + i, b + i, (int)(n - i));
}

VEC_CLONES
void ops_add_to(float *out, const float *a, long n)
{
    long i = 0;
    for (; i + CHUNK <= n; i += CHUNK)
        add_to(out + i, a + i, CHUNK);
    if (i < n)
        add_to(out + i, a + i, (int)(n - i));
}

/* C (M, N) = A (M, K) op(B) (K, N), C not read: mat_sgemm_packed on B
 * packed into a buffer of its own where that kernel runs and the product is
 * past mat_sgemm_small (faster than OpenBLAS there, which packs A and B
 * again each call: README "Performance"), else mat_sgemm. */
static void product_set(bool trans_b, int M, int N, int K, const float *A, int lda, const float *B,
                        int ldb, float *C, int ldc, float *work)
{
    if (mat_packed_available() && !mat_small_fits(false, M, N, K)) {
        float *Bp = work ? work : malloc(mat_packed_floats(K, N) * sizeof *Bp);
        if (Bp) {
            mat_pack(trans_b, K, N, B, ldb, Bp);
            mat_sgemm_packed(M, N, K, 1.0f, A, lda, Bp, K, C, ldc);
            if (Bp != work)
                free(Bp);
            return;
        }
    }
    mat_sgemm(false, trans_b, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, C, ldc);
}

void ops_linear_forward(float *out, const float *x, const float *w, const float *bias, int N, int K,
                        int C)
{
    ops_linear_forward_packed(out, x, w, bias, N, K, C, NULL);
}

VEC_CLONES
void ops_linear_forward_packed(float *out, const float *x, const float *w, const float *bias, int N,
                               int K, int C, float *work)
{
    /* out (N, C) = x (N, K) w (K, C) */
    product_set(false, N, C, K, x, K, w, C, out, C, work);
    if (bias)
        for (int r = 0; r < N; r++) {
            float *o = out + (long)r * C;
            BY_CHUNKS(C, c, add_to(o + c, bias + c, CHUNK), add_to(o + c, bias + c, C - c));
        }
}

/* ops_linear_backward, dx written (set) or added to. */
VEC_CLONES
static void linear_backward(float *dx, bool set, float *dw, float *dbias, const float *dout,
                            const float *x, const float *w, int N, int K, int C, float *work)
{
    if (dx && set) /* dx (N, K) = dout (N, C) w^T (C, K) */
        product_set(true, N, K, C, dout, C, w, C, dx, K, work);
    else if (dx)
        /* dx (N, K) += dout (N, C) w^T (C, K) */
        mat_sgemm(false, true, N, K, C, 1.0f, dout, C, w, C, 1.0f, dx, K);
    /* dw (K, C) += x^T (K, N) dout (N, C) */
    mat_sgemm(true, false, K, C, N, 1.0f, x, K, dout, C, 1.0f, dw, C);
    if (dbias)
        for (int r = 0; r < N; r++) {
            const float *d = dout + (long)r * C;
            BY_CHUNKS(C, c, add_to(dbias + c, d + c, CHUNK), add_to(dbias + c, d + c, C - c));
        }
}

void ops_linear_backward(float *dx, float *dw, float *dbias, const float *dout, const float *x,
                         const float *w, int N, int K, int C)
{
    linear_backward(dx, false, dw, dbias, dout, x, w, N, K, C, NULL);
}

void ops_linear_backward_set(float *dx, float *dw, float *dbias, const float *dout, const float *x,
                             const float *w, int N, int K, int C)
{
    linear_backward(dx, true, dw, dbias, dout, x, w, N, K, C, NULL);
}

void ops_linear_backward_set_packed(float *dx, float *dw, float *dbias, const float *dout,
                                    const float *x, const float *w, int N, int K, int C,
                                    float *work)
{
    linear_backward(dx, true, dw, dbias, dout, x, w, N, K, C, work);
}

/* t[i] = tanh(u[i]) for a chunk, through e^(-2|u|) = 2^k e^r with |r| <= ln2/2
 * and a degree-7 Taylor polynomial (about 1 ulp), so that the loops vectorise
 * (glibc's tanhf does not). Each step is its own loop: a clamp inside the
 * polynomial's loop leaves a branch that stops vectorisation. */
static inline void tanh_chunk(float *restrict t, const float *restrict u)
{
    float a[CHUNK], e[CHUNK];
    for (int i = 0; i < CHUNK; i++)
        a[i] = -2.0f * fabsf(u[i]);
    for (int i = 0; i < CHUNK; i++) /* e^-87 underflows anyway */
        a[i] = a[i] < -87.0f ? -87.0f : a[i];
    for (int i = 0; i < CHUNK; i++) {
        const float shifter = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
        float x = a[i], k = (x * 1.44269504f + shifter) - shifter;
        float r = (x - k * 0.693145752f) - k * 1.42860677e-6f;
        float p =
            1.0f +
            r * (1.0f +
                 r * (0.5f + r * (1.0f / 6 +
                                  r * (1.0f / 24 +
                                       r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))))));
        int32_t bits = ((int32_t)k + 127) << 23;
        float scale;
        memcpy(&scale, &bits, sizeof scale);
        e[i] = p * scale;
    }
    for (int i = 0; i < CHUNK; i++)
        t[i] = copysignf((1.0f - e[i]) / (1.0f + e[i]), u[i]);
}

/* GELU's tanh argument for a chunk of x. */
static inline void gelu_arg(float *restrict u, const float *restrict x)
{
    for (int i = 0; i < CHUNK; i++)
        u[i] = GELU_C * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
}

static inline void gelu_chunk(float *restrict out, const float *restrict x)
{
    float u[CHUNK], t[CHUNK];
    gelu_arg(u, x);
    tanh_chunk(t, u);
    for (int i = 0; i < CHUNK; i++)
        out[i] = 0.5f * x[i] * (1.0f + t[i]);
}

static inline void gelu_back_chunk(float *restrict dx, const float *restrict x,
                                   const float *restrict dout)
{
    float u[CHUNK], t[CHUNK];
    gelu_arg(u, x);
    tanh_chunk(t, u);
    for (int i = 0; i < CHUNK; i++) {
        float v = x[i], du = GELU_C * (1.0f + 3.0f * 0.044715f * v * v);
        dx[i] += (0.5f * (1.0f + t[i]) + 0.5f * v * (1.0f - t[i] * t[i]) * du) * dout[i];
    }
}

/* A chunk of h += bias, t = tanh(GELU's argument of h), g = GELU(h). */
static inline void bias_gelu_chunk(float *restrict g, float *restrict t, float *restrict h,
                                   const float *restrict bias)
{
    float u[CHUNK];
    for (int i = 0; i < CHUNK; i++)
        h[i] += bias[i];
    gelu_arg(u, h);
    tanh_chunk(t, u);
    for (int i = 0; i < CHUNK; i++)
        g[i] = 0.5f * h[i] * (1.0f + t[i]);
}

/* A chunk of dh = GELU'(h) * dg from t = tanh(GELU's argument of h). */
static inline void gelu_back_saved_chunk(float *restrict dh, const float *restrict h,
                                         const float *restrict t, const float *restrict dg)
{
    for (int i = 0; i < CHUNK; i++) {
        float v = h[i], du = GELU_C * (1.0f + 3.0f * 0.044715f * v * v);
        dh[i] = (0.5f * (1.0f + t[i]) + 0.5f * v * (1.0f - t[i] * t[i]) * du) * dg[i];
    }
}

VEC_CLONES
void ops_bias_gelu_forward(float *g, float *t, float *h, const float *bias, int N, int W)
{
    float zero[CHUNK] = {0};
    const int done = gelu_rows_avx2(g, t, h, bias, N, W); /* the same bits, faster */
    for (int r = 0; r < N; r++) {
        float *h_r = h + (long)r * W, *g_r = g + (long)r * W, *t_r = t + (long)r * W;
        int c = done;
        for (; c + CHUNK <= W; c += CHUNK)
            bias_gelu_chunk(g_r + c, t_r + c, h_r + c, bias ? bias + c : zero);
        if (c < W) { /* the tail, padded to a chunk */
            float ht[CHUNK] = {0}, gt[CHUNK], tt[CHUNK], bt[CHUNK] = {0};
            memcpy(ht, h_r + c, (size_t)(W - c) * sizeof *ht);
            if (bias)
                memcpy(bt, bias + c, (size_t)(W - c) * sizeof *bt);
            bias_gelu_chunk(gt, tt, ht, bt);
            memcpy(h_r + c, ht, (size_t)(W - c) * sizeof *ht);
            memcpy(g_r + c, gt, (size_t)(W - c) * sizeof *gt);
            memcpy(t_r + c, tt, (size_t)(W - c) * sizeof *tt);
        }
    }
}

VEC_CLONES
void ops_gelu_backward_saved(float *dh, const float *h, const float *t, const float *dg, long n)
{
    long i = 0;
    for (; i + CHUNK <= n; i += CHUNK)
        gelu_back_saved_chunk(dh + i, h + i, t + i, dg + i);
    if (i < n) {
        float ht[CHUNK] = {0}, tt[CHUNK] = {0}, gt[CHUNK] = {0}, out[CHUNK];
        memcpy(ht, h + i, (size_t)(n - i) * sizeof *ht);
        memcpy(tt, t + i, (size_t)(n - i) * sizeof *tt);
        memcpy(gt, dg + i, (size_t)(n - i) * sizeof *gt);
        gelu_back_saved_chunk(out, ht, tt, gt);
        memcpy(dh + i, out, (size_t)(n - i) * sizeof *out);
    }
}

VEC_CLONES
void ops_act_forward(float *out, const float *x, long n, bool relu)
{
    if (relu) {
        for (long i = 0; i < n; i++)
            out[i] = x[i] > 0.0f ? x[i] : 0.0f;
        return;
    }
    long i = 0;
    for (; i + CHUNK <= n; i += CHUNK)
        gelu_chunk(out + i, x + i);
    if (i < n) { /* the tail, padded to a chunk */
        float xt[CHUNK] = {0}, ot[CHUNK];
        memcpy(xt, x + i, (size_t)(n - i) * sizeof *xt);
        gelu_chunk(ot, xt);
        memcpy(out + i, ot, (size_t)(n - i) * sizeof *ot);
    }
}

VEC_CLONES
void ops_act_backward(float *dx, const float *x, const float *dout, long n, bool relu)
{
    if (relu) {
        for (long i = 0; i < n; i++)
            dx[i] += x[i] > 0.0f ? dout[i] : 0.0f;
        return;
    }
    long i = 0;
    for (; i + CHUNK <= n; i += CHUNK)
        gelu_back_chunk(dx + i, x + i, dout + i);
    if (i < n) { /* the tail, padded to a chunk */
        float xt[CHUNK] = {0}, dt[CHUNK] = {0}, gt[CHUNK] = {0};
        memcpy(xt, x + i, (size_t)(n - i) * sizeof *xt);
        memcpy(dt, dout + i, (size_t)(n - i) * sizeof *dt);
        gelu_back_chunk(gt, xt, dt);
        for (long k = i; k < n; k++)
            dx[k] += gt[k - i];
    }
}

/* B (T, T) = A^T */
static void transpose(float *B, const float *A, int T)
{
    for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
            B[(long)j * T + i] = A[(long)i * T + j];
}

size_t ops_attention_backward_scratch(int T, int D, int H)
{
    return attnback_scratch(T, D, H);
}

void ops_attention_backward(float *dQ, float *dK, float *dV, const float *dconcat, const float *Q,
                            const float *K, const float *V, const float *P, int T, int D, int H,
                            float *scratch)
{
    /* Q, K, V, dconcat, dQ, dK, dV (T, D); head h uses columns h*d_k .. h*d_k+d_k-1;
     * P (H, T, T), row i zero beyond i (causal) */
    const int d_k = D / H;
    const float scale = 1.0f / sqrtf((float)d_k);
    float *dP = scratch, *dS = scratch, *tr = scratch + (long)T * T;
    assert(D % H == 0);
    if (mat_packed_available()) {
        attnback_packed(dQ, dK, dV, dconcat, Q, K, V, P, T, D, H, scratch);
        return;
    }
    for (int h = 0; h < H; h++) {
        const float *P_h = P + (long)h * T * T;
        const int c0 = h * d_k;
        /* dV_h (T, d_k) = P_h^T (T, T) dconcat_h (T, d_k) */
        transpose(tr, P_h, T);
        mat_sgemm(false, false, T, d_k, T, 1.0f, tr, T, dconcat + c0, D, 0.0f, dV + c0, D);
        /* dP (T, T) = dconcat_h (T, d_k) V_h^T (d_k, T) */
        mat_sgemm(false, true, T, T, d_k, 1.0f, dconcat + c0, D, V + c0, D, 0.0f, dP, T);
        attnback_softmax_rows(dP, P_h, T, 0, T, scale);
        /* dQ_h (T, d_k) = dS (T, T) K_h (T, d_k) */
        mat_sgemm(false, false, T, d_k, T, 1.0f, dS, T, K + c0, D, 0.0f, dQ + c0, D);
        /* dK_h (T, d_k) = dS^T (T, T) Q_h (T, d_k) */
        transpose(tr, dS, T);
        mat_sgemm(false, false, T, d_k, T, 1.0f, tr, T, Q + c0, D, 0.0f, dK + c0, D);
    }
}

double ops_crossentropy_forward(float *probs, const float *logits, const int *target,
                                const float *mask, float *losses, int N, int V)
{
    double total = 0.0, count = 0.0;
    for (int r = 0; r < N; r++) {
        const float *l = logits + (long)r * V;
        float *p = probs + (long)r * V, max = l[0], sum = 0.0f;
        for (int v = 1; v < V; v++)
            max = l[v] > max ? l[v] : max;
        for (int v = 0; v < V; v++) {
            p[v] = expf(l[v] - max);
            sum += p[v];
        }
        for (int v = 0; v < V; v++)
            p[v] /= sum;
        float loss = -logf(p[target[r]] > 1e-30f ? p[target[r]] : 1e-30f);
        if (losses)
            losses[r] = loss;
        total += (double)mask[r] * loss;
        count += mask[r];
    }
    return count > 0.0 ? total / count : 0.0;
}

void ops_crossentropy_backward(float *dlogits, const float *probs, const int *target,
                               const float *mask, int N, int V, double count)
{
    if (count <= 0.0)
        return;
    for (int r = 0; r < N; r++) {
        float w = (float)(mask[r] / count);
        if (w == 0.0f)
            continue;
        const float *p = probs + (long)r * V;
        float *d = dlogits + (long)r * V;
        for (int v = 0; v < V; v++)
            d[v] += w * (p[v] - (v == target[r] ? 1.0f : 0.0f));
    }
}
