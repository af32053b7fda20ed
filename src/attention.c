/* attention.c - multi-head scaled dot-product attention on caller buffers.
 *
 * Heads are column slices of Q, K and V addressed in place through leading
 * dimensions (no copies), and each head's output lands directly in its columns
 * of the concatenation, so concat W_o needs no reshuffle. Allocates nothing.
 */
#include "attention.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "av.h"
#include "mat.h"

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

/* Keys visible to query i: all of them, or j <= i under the causal mask. */
static inline int visible_keys(const AttnShape *s, int i)
{
    if (!s->causal)
        return s->n_k;
    return i + 1 < s->n_k ? i + 1 : s->n_k;
}

void attention_softmax_row(float *row, int len)
{
    float max = -INFINITY;
    for (int j = 0; j < len; j++)
        max = row[j] > max ? row[j] : max;
    assert(isfinite(max));
    /* Subtracting the maximum keeps expf in range; exp(-inf) is exactly 0. */
    float sum = 0.0f;
    for (int j = 0; j < len; j++) {
        row[j] = expf(row[j] - max);
        sum += row[j];
    }
    float inv = 1.0f / sum;
    for (int j = 0; j < len; j++)
        row[j] *= inv;
}

void attention_head_weights(const AttnShape *s, int h, const float *Q, const float *K,
                            float *S_h, float *P_h)
{
    const int d = s->d_model, d_k = d / s->H, n_q = s->n_q, n_k = s->n_k;
    float *T = S_h ? S_h : P_h;
    /* Q_h is (n_q, d_k), K_h is (n_k, d_k): columns h*d_k .. h*d_k+d_k-1 of Q, K */
    assert(h >= 0 && h < s->H);
    /* T (n_q, n_k) = scale * Q_h (n_q, d_k) K_h^T (d_k, n_k) */
    mat_sgemm(false, true, n_q, n_k, d_k, attention_scale(s),
              Q + h * d_k, d,
              K + h * d_k, d,
              0.0f, T, n_k);
    for (int i = 0; i < n_q; i++) {
        int vis = visible_keys(s, i);
        float *row_i = P_h + (long)i * n_k;
        if (S_h) {
            for (int j = vis; j < n_k; j++)
                S_h[(long)i * n_k + j] = -INFINITY;
            memcpy(row_i, S_h + (long)i * n_k, (size_t)vis * sizeof *row_i);
        }
        /* Masked keys take no part in the softmax: their weight is exactly 0. */
        attention_softmax_row(row_i, vis);
        for (int j = vis; j < n_k; j++)
            row_i[j] = 0.0f;
    }
}

float attention_score(const AttnShape *s, int h, const float *Q, const float *K, int i, int j)
{
    const int d = s->d_model, d_k = d / s->H;
    if (j >= visible_keys(s, i))
        return -INFINITY;
    const float *q_i = Q + (long)i * d + h * d_k, *k_j = K + (long)j * d + h * d_k;
    float acc = 0.0f;
    for (int c = 0; c < d_k; c++)
        acc += q_i[c] * k_j[c];
    return acc * attention_scale(s);
}

int attention_forward(const AttnShape *s, const float *Xq, const float *Xkv,
                      const AttnWeights *w, AttnBuffers *b)
{
    int err = attention_check(s);
    if (err)
        return err;
    const int d = s->d_model, d_k = d / s->H, n_q = s->n_q, n_k = s->n_k;
    const long nn = (long)n_q * n_k;

    /* Q (n_q, d) = Xq (n_q, d) W_q (d, d); K, V (n_k, d) = Xkv (n_k, d) W (d, d) */
    mat_sgemm(false, false, n_q, d, d, 1.0f, Xq, d, w->Wq, d, 0.0f, b->Q, d);
    mat_sgemm(false, false, n_k, d, d, 1.0f, Xkv, d, w->Wk, d, 0.0f, b->K, d);
    mat_sgemm(false, false, n_k, d, d, 1.0f, Xkv, d, w->Wv, d, 0.0f, b->V, d);
    for (int h = 0; h < s->H; h++) {
        float *P_h = b->P + h * nn;
        attention_head_weights(s, h, b->Q, b->K, b->S ? b->S + h * nn : NULL, P_h);
        /* concat[:, h*d_k..] (n_q, d_k) = P_h (n_q, n_k) V_h (n_k, d_k) */
        mat_sgemm(false, false, n_q, d_k, n_k, 1.0f,
                  P_h, n_k,
                  b->V + h * d_k, d,
                  0.0f, b->concat + h * d_k, d);
    }
    /* out (n_q, d) = concat (n_q, d) W_o (d, d) */
    mat_sgemm(false, false, n_q, d, d, 1.0f, b->concat, d, w->Wo, d, 0.0f, b->out, d);
    return AV_OK;
}
