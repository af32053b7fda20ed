/* gpt2_ref.c - GPT-2's forward pass as gpt2.h writes it, and nothing else:
 * no threads, no packing, no cache, no intrinsics. Read it top to bottom.
 *
 *   x_0 = wte[ids] + wpe[0..n)
 *   per layer:  a = LN1(x);  Q | K | V = a attn_w + attn_b
 *               concat = heads of softmax(causal(Q_h K_h^T / sqrt(d_k))) V_h
 *               x' = x + concat proj_w + proj_b
 *               x  = x' + gelu_tanh(LN2(x') fc_w + fc_b) fcproj_w + fcproj_b
 *   logits_i = LN_f(x_L[i]) lm_head^T
 *
 * The attention is attention_ref_heads: one statement of the formula for
 * attnviz's own heads and for GPT-2's.
 */
#include "core/gpt2_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention_ref.h"

/* y (D) = (x - mean) / sqrt(var + eps) * g + b, the variance over D. */
static void layer_norm(const float *x, const float *g, const float *b, int D, float eps, float *y)
{
    double mean = 0, var = 0;
    for (int c = 0; c < D; c++)
        mean += x[c];
    mean /= D;
    for (int c = 0; c < D; c++)
        var += (x[c] - mean) * (x[c] - mean);
    double inv = 1.0 / sqrt(var / D + eps);
    for (int c = 0; c < D; c++)
        y[c] = (float)((x[c] - mean) * inv * g[c] + b[c]);
}

/* y (n, d_out) = x (n, d_in) W (d_in, d_out) + b (d_out), W in panels or
 * row after row (core/gpt2.h) */
static void linear(const float *x, int n, int d_in, const float *W, bool panels, const float *b,
                   int d_out, float *y)
{
    for (int i = 0; i < n; i++)
        for (int o = 0; o < d_out; o++) {
            double sum = b[o];
            for (int k = 0; k < d_in; k++)
                sum += (double)x[(size_t)i * d_in + k] *
                       W[gpt2_weight_index(panels, d_in, d_out, k, o)];
            y[(size_t)i * d_out + o] = (float)sum;
        }
}

static float gelu_tanh(float x)
{
    double u = 0.7978845608028654 * (x + 0.044715 * (double)x * x * x); /* sqrt(2/pi) */
    return (float)(0.5 * x * (1.0 + tanh(u)));
}

static void layer(const Gpt2Weights *w, int l, Gpt2Ref *r, float *a, float *q, float *k, float *v,
                  float *t, float *hid)
{
    const Gpt2Layer *y = &w->layer[l];
    const int n = r->n, D = r->D, F = w->cfg.d_ff;
    const float *x = r->x + (size_t)l * n * D;
    float *x_next = r->x + (size_t)(l + 1) * n * D, *qkv = r->qkv + (size_t)l * n * 3 * D;
    float *concat = r->concat + (size_t)l * n * D;
    for (int i = 0; i < n; i++)
        layer_norm(x + (size_t)i * D, y->ln1_g, y->ln1_b, D, w->cfg.ln_eps, a + (size_t)i * D);
    linear(a, n, D, y->attn_w, w->panels, y->attn_b, 3 * D, qkv);
    for (int i = 0; i < n; i++) { /* columns [0, D) Q, [D, 2D) K, [2D, 3D) V */
        memcpy(q + (size_t)i * D, qkv + (size_t)i * 3 * D, sizeof *q * D);
        memcpy(k + (size_t)i * D, qkv + (size_t)i * 3 * D + D, sizeof *k * D);
        memcpy(v + (size_t)i * D, qkv + (size_t)i * 3 * D + 2 * D, sizeof *v * D);
    }
    AttnShape s = {n, n, D, r->H, true, true, 1.0f};
    attention_ref_heads(&s, q, k, v, NULL, r->P + (size_t)l * r->H * n * n, concat);
    linear(concat, n, D, y->proj_w, false, y->proj_b, D, t);
    for (size_t c = 0; c < (size_t)n * D; c++)
        x_next[c] = x[c] + t[c]; /* x' */
    for (int i = 0; i < n; i++)
        layer_norm(x_next + (size_t)i * D, y->ln2_g, y->ln2_b, D, w->cfg.ln_eps, a + (size_t)i * D);
    linear(a, n, D, y->fc_w, w->panels, y->fc_b, F, hid);
    for (size_t c = 0; c < (size_t)n * F; c++)
        hid[c] = gelu_tanh(hid[c]);
    linear(hid, n, F, y->fcproj_w, w->panels, y->fcproj_b, D, t);
    for (size_t c = 0; c < (size_t)n * D; c++)
        x_next[c] += t[c];
}

static void logits(const Gpt2Weights *w, Gpt2Ref *r, float *a)
{
    const int n = r->n, D = r->D, V = r->V;
    const float *x = r->x + (size_t)r->L * n * D;
    for (int i = 0; i < n; i++) {
        layer_norm(x + (size_t)i * D, w->lnf_g, w->lnf_b, D, w->cfg.ln_eps, a);
        for (int t = 0; t < V; t++) {
            double sum = 0;
            for (int c = 0; c < D; c++)
                sum += (double)a[c] * w->lm_head[(size_t)t * D + c];
            r->logits[(size_t)i * V + t] = (float)sum;
        }
    }
}

int gpt2_ref(const Gpt2Weights *w, const int *ids, int n, Gpt2Ref *r)
{
    memset(r, 0, sizeof *r);
    const Gpt2Config *c = &w->cfg;
    if (gpt2_check(w) != AV_OK || n < 1 || n > c->n_ctx)
        return AV_ERR_CONFIG;
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->n_vocab)
            return AV_ERR_CONFIG;
    const int L = c->n_layer, D = c->d_model, H = c->n_head, F = c->d_ff;
    *r = (Gpt2Ref){.n = n, .L = L, .H = H, .D = D, .V = c->n_vocab};
    size_t nd = (size_t)n * D;
    r->x = malloc(sizeof *r->x * (L + 1) * nd);
    r->qkv = malloc(sizeof *r->qkv * L * 3 * nd);
    r->P = malloc(sizeof *r->P * L * H * n * n);
    r->concat = malloc(sizeof *r->concat * L * nd);
    r->logits = malloc(sizeof *r->logits * n * r->V);
    float *scratch = malloc(sizeof *scratch * (5 * nd + (size_t)n * F));
    if (!r->x || !r->qkv || !r->P || !r->concat || !r->logits || !scratch) {
        free(scratch);
        gpt2_ref_free(r);
        return AV_ERR_NOMEM;
    }
    float *a = scratch, *q = a + nd, *k = q + nd, *v = k + nd, *t = v + nd, *hid = t + nd;
    for (int i = 0; i < n; i++)
        for (int col = 0; col < D; col++)
            r->x[(size_t)i * D + col] =
                w->wte[(size_t)ids[i] * D + col] + w->wpe[(size_t)i * D + col];
    for (int l = 0; l < L; l++)
        layer(w, l, r, a, q, k, v, t, hid);
    logits(w, r, a);
    free(scratch);
    return AV_OK;
}

void gpt2_ref_free(Gpt2Ref *r)
{
    free(r->x), free(r->qkv), free(r->P), free(r->concat), free(r->logits);
    memset(r, 0, sizeof *r);
}
