/* attention_ref.h - multi-head attention as the formula reads, in plain C:
 * the shapes, the mask rule, the scale and the checks every path shares,
 * and the reference the fast paths are tested against (attention_ref.c).
 *
 * Layout (DESIGN.md): row vectors, Q = Xq W_q, K = Xkv W_k, V = Xkv W_v,
 * every W (d_model, d_model); head h uses columns h*d_k .. h*d_k+d_k-1 of
 * Q, K and V (reshape(n, H, d_k)); out = concat W_o.
 */
#ifndef ATTNVIZ_ATTENTION_REF_H
#define ATTNVIZ_ATTENTION_REF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int n_q; /* query tokens (rows of the heatmaps) */
    int n_k; /* key/value tokens (columns); n_q for self-attention */
    int d_model;
    int H;             /* heads; d_model % H == 0 */
    bool causal;       /* query i sees keys j <= i only */
    bool scale;        /* divide scores by sqrt(d_k) */
    float temperature; /* scores are further divided by this (1 = off); > 0 */
} AttnShape;

typedef struct {
    const float *Wq, *Wk, *Wv, *Wo; /* each (d_model, d_model) */
} AttnWeights;

typedef struct {
    float *Q;                  /* (n_q, d_model) */
    float *K;                  /* (n_k, d_model) */
    float *V;                  /* (n_k, d_model) */
    float *S;                  /* (H, n_q, n_k) scaled, masked scores; may be NULL (not kept) */
    float *P;                  /* (H, n_q, n_k) attention weights, rows sum to 1 */
    float *concat;             /* (n_q, d_model) the heads' outputs side by side */
    float *out;                /* (n_q, d_model) concat W_o */
    struct AttnPoolPlan *pool; /* grids pooled during the forward, or NULL */
} AttnBuffers;

/* Keys query i sees: all n_k, or j <= i (at most n_k) under the causal mask.
 * The one statement of the mask rule; everything that masks asks here. */
static inline int attention_visible_keys(const AttnShape *s, int i)
{
    if (!s->causal)
        return s->n_k;
    return i + 1 < s->n_k ? i + 1 : s->n_k;
}

/* The factor scores are multiplied by: 1/sqrt(d_k) (when scaling) / temperature. */
float attention_scale(const AttnShape *s);

/* Check a shape: positive sizes within the limits of av.h, H divides d_model,
 * temperature > 0. Returns AV_OK, AV_ERR_EMPTY (no query or no key token) or
 * AV_ERR_CONFIG (any other fault). */
int attention_check(const AttnShape *s);

/* The largest |x| of count floats: +INFINITY when one is NaN or infinite. */
float attention_max_abs(const float *x, size_t count);

/* Whether every score of s stays finite when each component of Q is at most
 * max_q and each of K at most max_k in magnitude: d_k max_q max_k times the
 * scale is below FLT_MAX (the bound of a dot product, so the softmax never
 * sees an infinity or a NaN). False for an infinite or NaN bound. */
bool attention_scores_bounded(const AttnShape *s, double max_q, double max_k);

/* The largest |w| of W_q, W_k, W_v and W_o (d_model x d_model each) into
 * wmax, by attention_max_abs: INFINITY for a matrix holding a NaN or an
 * infinity. Weights that stay as they are measure once (model.h). */
void attention_weights_max(const AttnShape *s, const AttnWeights *w, float wmax[4]);

/* The same before Q and K are made: Q = Xq W_q, K = Xkv W_k, V = Xkv W_v
 * and out = concat W_o bounded by each row's sum of |x| times the largest
 * |w| of each weight (wmax, attention_weights_max), the scores by
 * attention_scores_bounded. Scans Xq and Xkv. Returns AV_OK or
 * AV_ERR_OVERFLOW (a NaN or an infinity among them included). */
int attention_check_range(const AttnShape *s, const float *Xq, const float *Xkv,
                          const float wmax[4]);

/* The raw scaled score of one pair (i, j) of head h, -INFINITY when masked. */
float attention_score(const AttnShape *s, int h, const float *Q, const float *K, int i, int j);

/* The forward pass of s into b as attention_forward makes it (Q, K, V, S when
 * not NULL, P, concat and out; every buffer but S required), by the formula
 * alone: one plain loop after another, no BLAS, no blocking, no threads.
 * Numbers within float rounding of attention_forward's (not the same bits).
 * Returns AV_OK, AV_ERR_CONFIG or AV_ERR_EMPTY (attention_check's). */
int attention_ref(const AttnShape *s, const float *Xq, const float *Xkv, const AttnWeights *w,
                  AttnBuffers *b);

/* Steps 2 to 6 of attention_ref on Q (n_q, d_model), K and V (n_k, d_model)
 * given: S (H, n_q, n_k) when not NULL, P (H, n_q, n_k) and concat (n_q,
 * d_model). The reference for a model whose Q, K and V come another way
 * (GPT-2's with c_attn's bias). Returns attention_check's codes. */
int attention_ref_heads(const AttnShape *s, const float *Q, const float *K, const float *V,
                        float *S, float *P, float *concat);

#endif
