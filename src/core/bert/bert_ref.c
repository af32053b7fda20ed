/* bert_ref.c - a BERT-family encoder's forward pass as bert.h writes it, and
 * nothing else: no BLAS, no threads, no intrinsics. Read it top to bottom.
 *
 *   x_0 = LN_emb(word[ids] + pos[0..n) + type[types])
 *   per layer:  Q, K, V = x W^T + b            (nn.Linear: W is (out, in))
 *               concat = heads of softmax(Q_h K_h^T / sqrt(d_k)) V_h
 *               a = LN1(x + concat o_w^T + o_b)
 *               x = LN2(a + gelu_erf(a fc_w^T + fc_b) out_w^T + out_b)
 *   mlm_i = LN_mlm(gelu_erf(x_L[i] mlm_w^T + mlm_b)) decoder^T + mlm_bias
 *
 * The attention is attention_ref_heads: one statement of the formula for
 * attnviz's own heads, GPT-2's and BERT's.
 */
#include "core/bert_ref.h"

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

/* y (n, d_out) = x (n, d_in) W^T + b, W (d_out, d_in) */
static void linear(const float *x, int n, int d_in, const float *W, const float *b, int d_out,
                   float *y)
{
    for (int i = 0; i < n; i++)
        for (int o = 0; o < d_out; o++) {
            double sum = b ? b[o] : 0.0;
            for (int k = 0; k < d_in; k++)
                sum += (double)x[(size_t)i * d_in + k] * W[(size_t)o * d_in + k];
            y[(size_t)i * d_out + o] = (float)sum;
        }
}

static float gelu_erf(float x)
{
    return (float)(0.5 * x * (1.0 + erf(x / sqrt(2.0))));
}

/* x_next = LN(x + t), row by row */
static void add_norm(const float *x, const float *t, const float *g, const float *b, int n, int D,
                     float eps, float *sum, float *x_next)
{
    for (size_t c = 0; c < (size_t)n * D; c++)
        sum[c] = x[c] + t[c];
    for (int i = 0; i < n; i++)
        layer_norm(sum + (size_t)i * D, g, b, D, eps, x_next + (size_t)i * D);
}

static void layer(const BertWeights *w, int l, bool causal, BertRef *r, float *a, float *t,
                  float *sum, float *hid)
{
    const BertLayer *y = &w->layer[l];
    const int n = r->n, D = r->D, F = w->cfg.d_ff;
    const float eps = w->cfg.ln_eps;
    const size_t nd = (size_t)n * D;
    const float *x = r->x + l * nd;
    float *q = r->qkv + 3 * l * nd, *k = q + nd, *v = k + nd;
    float *concat = r->concat + l * nd;
    linear(x, n, D, y->q_w, y->q_b, D, q);
    linear(x, n, D, y->k_w, y->k_b, D, k);
    linear(x, n, D, y->v_w, y->v_b, D, v);
    AttnShape s = {n, n, D, r->H, causal, true, 1.0f};
    attention_ref_heads(&s, q, k, v, NULL, r->P + (size_t)l * r->H * n * n, concat);
    linear(concat, n, D, y->o_w, y->o_b, D, t);
    add_norm(x, t, y->ln1_g, y->ln1_b, n, D, eps, sum, a);
    linear(a, n, D, y->fc_w, y->fc_b, F, hid);
    for (size_t c = 0; c < (size_t)n * F; c++)
        hid[c] = gelu_erf(hid[c]);
    linear(hid, n, F, y->out_w, y->out_b, D, t);
    add_norm(a, t, y->ln2_g, y->ln2_b, n, D, eps, sum, r->x + (l + 1) * nd);
}

static void mlm(const BertWeights *w, BertRef *r, float *a, float *t)
{
    const int n = r->n, D = r->D;
    const float *x = r->x + (size_t)r->L * n * D;
    linear(x, n, D, w->mlm_w, w->mlm_b, D, t);
    for (size_t c = 0; c < (size_t)n * D; c++)
        t[c] = gelu_erf(t[c]);
    for (int i = 0; i < n; i++)
        layer_norm(t + (size_t)i * D, w->mlm_ln_g, w->mlm_ln_b, D, w->cfg.ln_eps,
                   a + (size_t)i * D);
    linear(a, n, D, w->decoder, w->mlm_bias, r->V, r->mlm);
}

int bert_ref(const BertWeights *w, const int *ids, const int *types, int n, bool causal, BertRef *r)
{
    memset(r, 0, sizeof *r);
    const BertConfig *c = &w->cfg;
    if (bert_check(w) != AV_OK || n < 1 || n > c->n_pos)
        return AV_ERR_CONFIG;
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= c->n_vocab ||
            (types && types[i] != 0 && (types[i] < 0 || types[i] >= c->n_types)))
            return AV_ERR_CONFIG;
    const int L = c->n_layer, D = c->d_model, H = c->n_head, F = c->d_ff;
    *r = (BertRef){.n = n, .L = L, .H = H, .D = D, .V = c->n_vocab};
    size_t nd = (size_t)n * D;
    r->x = malloc(sizeof *r->x * (L + 1) * nd);
    r->qkv = malloc(sizeof *r->qkv * L * 3 * nd);
    r->P = malloc(sizeof *r->P * L * H * n * n);
    r->concat = malloc(sizeof *r->concat * L * nd);
    bool head = bert_has_mlm(w);
    r->mlm = head ? malloc(sizeof *r->mlm * n * r->V) : NULL;
    float *scratch = malloc(sizeof *scratch * (3 * nd + (size_t)n * F));
    if (!r->x || !r->qkv || !r->P || !r->concat || (head && !r->mlm) || !scratch) {
        free(scratch);
        bert_ref_free(r);
        return AV_ERR_NOMEM;
    }
    float *a = scratch, *t = a + nd, *sum = t + nd, *hid = sum + nd;
    for (int i = 0; i < n; i++) {
        int ty = types ? types[i] : 0;
        for (int col = 0; col < D; col++)
            sum[(size_t)i * D + col] = w->word[(size_t)ids[i] * D + col] +
                                       w->pos[(size_t)i * D + col] +
                                       (w->type ? w->type[(size_t)ty * D + col] : 0.0f);
        layer_norm(sum + (size_t)i * D, w->emb_ln_g, w->emb_ln_b, D, c->ln_eps,
                   r->x + (size_t)i * D);
    }
    for (int l = 0; l < L; l++)
        layer(w, l, causal, r, a, t, sum, hid);
    if (head)
        mlm(w, r, a, t);
    free(scratch);
    return AV_OK;
}

void bert_ref_free(BertRef *r)
{
    free(r->x), free(r->qkv), free(r->P), free(r->concat), free(r->mlm);
    memset(r, 0, sizeof *r);
}
