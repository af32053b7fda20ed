/* gpt2_result.c - a GPT-2 run as the views read every model: a ModelResult
 * laid out by model_result_prepare and filled from a Gpt2State, as
 * src/train/netresult.c does for attnviz's trained models; the heads'
 * value-weighted norms; the model's size and cost.
 */
#include "core/gpt2.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/mat.h"

void gpt2_model_config(const Gpt2Config *cfg, ModelConfig *c)
{
    model_config_default(c);
    c->H = cfg->n_head, c->d_model = cfg->d_model, c->layers = cfg->n_layer;
    c->causal = true, c->pe = false, c->scale = true, c->temperature = 1.0f;
    c->max_tokens = cfg->n_ctx, c->preset = PRESET_TRAINED, c->head_labels = NULL;
}

/* Rows of width w at stride ld (n of them) into a dense (n, w) block. */
static void rows_copy(int n, int w, const float *src, size_t ld, float *dst)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + (size_t)i * w, src + (size_t)i * ld, (size_t)w * sizeof *dst);
}

/* Head h of layer l's weights (n, n) from the kept rows: key j <= i, zeros past it. */
static void weights_from_state(const Gpt2State *st, int H, int l, int h, float *P_h)
{
    const int n = st->n;
    for (int i = 0; i < n; i++) {
        const float *src = st->P + gpt2_P_offset(st->L, H, i) + ((size_t)l * H + h) * (i + 1);
        float *row = P_h + (size_t)i * n;
        memcpy(row, src, (size_t)(i + 1) * sizeof *row);
        memset(row + i + 1, 0, (size_t)(n - i - 1) * sizeof *row);
    }
}

/* Layer l of st into r: vectors, residual stream, weights and scores. */
static void fill_layer(const Gpt2State *st, int l, ModelResult *r, float *P_tmp)
{
    const int n = st->n, L = st->L, D = st->D, H = r->shape.H;
    const size_t nn = (size_t)n * n;
    AttnBuffers *b = &r->layer[l].ab;
    const float *qkv = st->qkv + (size_t)l * 3 * D;
    rows_copy(n, D, qkv, (size_t)L * 3 * D, b->Q);
    rows_copy(n, D, qkv + D, (size_t)L * 3 * D, b->K);
    rows_copy(n, D, qkv + 2 * D, (size_t)L * 3 * D, b->V);
    rows_copy(n, D, st->concat + (size_t)l * D, (size_t)L * D, b->concat);
    rows_copy(n, D, st->attn + (size_t)l * D, (size_t)L * D, b->out);
    rows_copy(n, D, st->x + (size_t)(l + 1) * D, (size_t)(L + 1) * D, r->layer[l].x_out);
    const bool model_shape = r->shape.scale && r->shape.temperature == 1.0f;
    for (int h = 0; h < H; h++) {
        if (b->P && st->p_rows >= n && model_shape)
            weights_from_state(st, H, l, h, b->P + h * nn);
        else if (b->P) /* not kept, or a what-if of scaling: from Q and K */
            attention_head_weights(&r->shape, h, b->Q, b->K, NULL, b->P + h * nn);
        if (b->S)
            attention_head_weights(&r->shape, h, b->Q, b->K, b->S + h * nn, P_tmp);
    }
}

int gpt2_result_fill(const Gpt2Weights *w, const Gpt2State *st, const ModelConfig *c,
                     const TokenList *tokens, ModelResult *r)
{
    const Gpt2Config *g = &w->cfg;
    const int n = st->n;
    r->shape.n_q = 0;
    r->src = NULL;
    if (n < 1 || tokens->n != n || c->H != g->n_head || c->d_model != g->d_model ||
        c->layers != g->n_layer || st->L != g->n_layer || st->D != g->d_model || !c->causal)
        return AV_ERR_CONFIG;
    int err = model_result_prepare(c, n, n, r);
    float *P_tmp = !err && c->keep_scores ? malloc((size_t)n * n * sizeof *P_tmp) : NULL;
    if (!err && c->keep_scores && !P_tmp)
        err = AV_ERR_NOMEM;
    if (!err)
        err = tokenize_copy(tokens, &r->tokens);
    if (err) {
        free(P_tmp);
        r->shape.n_q = 0;
        return err;
    }
    rows_copy(n, g->d_model, st->x, (size_t)(g->n_layer + 1) * g->d_model, r->X);
    r->qkv_bias = true; /* c_attn's bias is in every Q, K and V */
    for (int l = 0; l < g->n_layer; l++)
        fill_layer(st, l, r, P_tmp);
    free(P_tmp);
    return AV_OK;
}

int gpt2_value_norms(const Gpt2Weights *w, const Gpt2State *st, int l, float *out)
{
    const Gpt2Config *c = &w->cfg;
    const int n = st->n, L = c->n_layer, D = c->d_model, H = c->n_head, d_k = D / H;
    if (l < 0 || l >= L || n < 1 || st->L != L || st->D != D)
        return AV_ERR_CONFIG;
    float *u = malloc((size_t)n * D * sizeof *u);
    if (!u)
        return AV_ERR_NOMEM;
    const float *V = st->qkv + (size_t)l * 3 * D + 2 * D;
    for (int h = 0; h < H; h++) {
        /* u (n, D) = V_h (n, d_k) W_O,h (d_k, D) */
        mat_sgemm(false, false, n, D, d_k, 1.0f, V + h * d_k, L * 3 * D,
                  w->layer[l].proj_w + (size_t)h * d_k * D, D, 0.0f, u, D);
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < D; k++)
                s += (double)u[(size_t)j * D + k] * u[(size_t)j * D + k];
            out[(size_t)h * n + j] = (float)sqrt(s);
        }
    }
    free(u);
    return AV_OK;
}

double gpt2_param_count(const Gpt2Weights *w)
{
    const Gpt2Config *c = &w->cfg;
    const double D = c->d_model, F = c->d_ff, V = c->n_vocab;
    double layer = 4 * D + D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D;
    double p = V * D + (double)c->n_ctx * D + c->n_layer * layer + 2 * D;
    return w->lm_head && w->lm_head != w->wte ? p + V * D : p;
}

double gpt2_flops(const Gpt2Config *c, int from, int n)
{
    const double D = c->d_model, F = c->d_ff, m = n - from;
    if (m <= 0)
        return 0;
    /* the four products per position; scores and weighted sums over keys 0..i */
    double keys = ((double)n * (n + 1) - (double)from * (from + 1)) / 2;
    return c->n_layer * (m * 2 * (3 * D * D + D * D + 2 * D * F) + keys * 4 * D);
}
