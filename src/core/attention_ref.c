/* attention_ref.c - multi-head attention, the formula of "Attention Is All
 * You Need" as it reads, and nothing else: softmax(Q_h K_hᵀ / √d_k) V_h per
 * head, the heads side by side, times W_O.
 *
 * This is the reference, and the home of the formula's pieces every path
 * shares: the scale (1/√d_k, the temperature), the shape checks and one
 * raw score. The fast path (src/core/fast/: blocked heads in
 * cache, a vectorised softmax, packed products, the pooled long texts, two
 * threads) and the trainer's forward (src/train/) compute the same numbers
 * another way, and their tests hold them to this file. No intrinsics, no
 * threads, no BLAS, no pooling: read it top to bottom.
 *
 * Shapes (row vectors, DESIGN.md; d_k = d_model / H):
 *   Xq  (n_q, d_model)   the queries' tokens      Xkv (n_k, d_model) the keys'
 *   W_q, W_k, W_v, W_o (d_model, d_model)
 *   Q = Xq W_q (n_q, d_model)   K = Xkv W_k, V = Xkv W_v (n_k, d_model)
 *   head h reads columns h*d_k .. h*d_k+d_k-1 of Q, K and V (reshape(n, H, d_k))
 *   S_h = Q_h K_hᵀ · scale (n_q, n_k), scale = 1/√d_k / temperature
 *   S_h[i][j] = -inf where the causal mask hides key j from query i (j > i)
 *   P_h = softmax(S_h) along each row (n_q, n_k): masked weights exactly 0
 *   concat[:, h*d_k ..] = P_h V_h (n_q, d_k)
 *   out = concat W_o (n_q, d_model)
 */
#include "core/attention_ref.h"

#include <float.h>
#include <math.h>

#include "core/av.h"

/* out (n, d_out) = a (n, d_in) @ W (d_in, d_out) */
static void matmul(float *out, const float *a, const float *W, int n, int d_in, int d_out)
{
    for (int i = 0; i < n; i++)
        for (int o = 0; o < d_out; o++) {
            float sum = 0.0f;
            for (int k = 0; k < d_in; k++)
                sum += a[(long)i * d_in + k] * W[(long)k * d_out + o];
            out[(long)i * d_out + o] = sum;
        }
}

/* ---- the formula's pieces, which every path shares ---- */

float attention_scale(const AttnShape *s)
{
    int d_k = s->d_model / s->H;
    float f = s->scale ? (float)(1.0 / sqrt((double)d_k)) : 1.0f;
    return f / s->temperature;
}

int attention_check(const AttnShape *s)
{
    if (s->n_q < 1 || s->n_k < 1)
        return AV_ERR_EMPTY;
    if (s->d_model < 1 || s->d_model > AV_MAX_D_MODEL || s->H < 1 || s->H > AV_MAX_HEADS)
        return AV_ERR_CONFIG;
    if (s->d_model % s->H != 0)
        return AV_ERR_CONFIG;
    if (!(s->temperature > 0.0f) || !isfinite(s->temperature))
        return AV_ERR_CONFIG;
    return AV_OK;
}

float attention_max_abs(const float *x, size_t count)
{
    float m = 0.0f;
    for (size_t i = 0; i < count; i++) {
        float a = fabsf(x[i]);
        if (!(a <= m)) {
            if (!isfinite(a))
                return INFINITY;
            m = a;
        }
    }
    return m;
}

bool attention_scores_bounded(const AttnShape *s, double max_q, double max_k)
{
    double bound = (double)(s->d_model / s->H) * max_q * max_k * attention_scale(s);
    return bound < FLT_MAX; /* false for NaN */
}

/* The largest sum of |x| over a row of x (n, d): +INFINITY past float's range. */
static double row_abs_max(const float *x, int n, int d)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) {
        double sum = 0.0;
        for (int c = 0; c < d; c++)
            sum += fabs((double)x[(long)i * d + c]);
        if (!(sum <= m))
            m = isfinite(sum) ? sum : INFINITY;
    }
    return m;
}

void attention_weights_max(const AttnShape *s, const AttnWeights *w, float wmax[4])
{
    const size_t dd = (size_t)s->d_model * s->d_model;
    const float *m[4] = {w->Wq, w->Wk, w->Wv, w->Wo};
    for (int k = 0; k < 4; k++)
        wmax[k] = attention_max_abs(m[k], dd);
}

int attention_check_range(const AttnShape *s, const float *Xq, const float *Xkv,
                          const float wmax[4])
{
    const int d = s->d_model;
    double xq = row_abs_max(Xq, s->n_q, d), xk = Xkv == Xq ? xq : row_abs_max(Xkv, s->n_k, d);
    double q = xq * wmax[0], k = xk * wmax[1];
    double v = xk * wmax[2], out = d * v * wmax[3];
    if (!attention_scores_bounded(s, q, k) || !(v < FLT_MAX) || !(out < FLT_MAX))
        return AV_ERR_OVERFLOW;
    return AV_OK;
}

float attention_score(const AttnShape *s, int h, const float *Q, const float *K, int i, int j)
{
    const int d = s->d_model, d_k = d / s->H;
    if (j >= attention_visible_keys(s, i))
        return -INFINITY;
    const float *q_i = Q + (long)i * d + h * d_k, *k_j = K + (long)j * d + h * d_k;
    float acc = 0.0f;
    for (int c = 0; c < d_k; c++)
        acc += q_i[c] * k_j[c];
    return acc * attention_scale(s);
}

/* ---- the reference ---- */

int attention_ref_heads(const AttnShape *s, const float *Q, const float *K, const float *V,
                        float *S, float *P, float *concat)
{
    int err = attention_check(s);
    if (err)
        return err;
    const int n_q = s->n_q, n_k = s->n_k, d = s->d_model, H = s->H, d_k = d / H;
    const float scale = attention_scale(s); /* 1/sqrt(d_k) (when scaling) / temperature */

    for (int h = 0; h < H; h++) {
        float *P_h = P + (long)h * n_q * n_k;
        for (int i = 0; i < n_q; i++) {
            const float *q_i = Q + (long)i * d + h * d_k;
            float *p_i = P_h + (long)i * n_k;
            const int seen = attention_visible_keys(s, i); /* keys 0 .. seen-1 */

            /* 2. scores q_i · k_j, 3. scaled, 4. masked */
            float max = -INFINITY;
            for (int j = 0; j < n_k; j++) {
                const float *k_j = K + (long)j * d + h * d_k;
                float dot = 0.0f;
                for (int c = 0; c < d_k; c++)
                    dot += q_i[c] * k_j[c];
                p_i[j] = j < seen ? dot * scale : -INFINITY;
                max = p_i[j] > max ? p_i[j] : max;
            }
            if (S)
                for (int j = 0; j < n_k; j++)
                    S[(long)h * n_q * n_k + (long)i * n_k + j] = p_i[j];

            /* 5. softmax along the row (the maximum subtracted: no overflow) */
            float sum = 0.0f;
            for (int j = 0; j < n_k; j++) {
                p_i[j] = p_i[j] == -INFINITY ? 0.0f : expf(p_i[j] - max);
                sum += p_i[j];
            }
            for (int j = 0; j < n_k; j++)
                p_i[j] /= sum;

            /* 6. the weighted sum of V: head h's output, in its columns of concat */
            float *o_i = concat + (long)i * d + h * d_k;
            for (int c = 0; c < d_k; c++)
                o_i[c] = 0.0f;
            for (int j = 0; j < n_k; j++) {
                const float *v_j = V + (long)j * d + h * d_k;
                for (int c = 0; c < d_k; c++)
                    o_i[c] += p_i[j] * v_j[c];
            }
        }
    }
    return AV_OK;
}

int attention_ref(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                  AttnBuffers *b)
{
    int err = attention_check(s);
    if (err)
        return err;
    const int n_q = s->n_q, n_k = s->n_k, d = s->d_model;

    /* 1. the projections: Q, K, V */
    matmul(b->Q, Xq, w->Wq, n_q, d, d);
    matmul(b->K, Xkv, w->Wk, n_k, d, d);
    matmul(b->V, Xkv, w->Wv, n_k, d, d);

    /* 2 to 6, head by head */
    attention_ref_heads(s, b->Q, b->K, b->V, b->S, b->P, b->concat);

    /* 7. the heads concatenated, times W_O */
    matmul(b->out, b->concat, w->Wo, n_q, d, d);
    return AV_OK;
}
