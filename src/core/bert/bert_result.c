/* bert_result.c - a BERT run as the views read every model: a ModelResult
 * laid out by model_result_prepare and filled from a BertState, as
 * gpt2_result.c does for GPT-2; the model's size and cost.
 */
#include "core/bert.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention.h"

void bert_model_config(const BertConfig *cfg, ModelConfig *c)
{
    model_config_default(c);
    c->H = cfg->n_head, c->d_model = cfg->d_model, c->layers = cfg->n_layer;
    c->causal = false, c->pe = false, c->scale = true, c->temperature = 1.0f;
    c->max_tokens = cfg->n_pos, c->preset = PRESET_TRAINED, c->head_labels = NULL;
}

/* Layer l of st into r: vectors, residual stream, weights and scores. */
static void fill_layer(const BertState *st, int l, ModelResult *r, float *P_tmp)
{
    const int n = st->n, D = st->D, H = st->H;
    const size_t nd = (size_t)n * D, nn = (size_t)n * n;
    AttnBuffers *b = &r->layer[l].ab;
    memcpy(b->Q, st->q + l * nd, nd * sizeof *b->Q);
    memcpy(b->K, st->k + l * nd, nd * sizeof *b->K);
    memcpy(b->V, st->v + l * nd, nd * sizeof *b->V);
    memcpy(b->concat, st->concat + l * nd, nd * sizeof *b->concat);
    memcpy(b->out, st->attn + l * nd, nd * sizeof *b->out);
    memcpy(r->layer[l].x_out, st->x + (l + 1) * nd, nd * sizeof *b->out);
    const bool model_shape = r->shape.scale && r->shape.temperature == 1.0f;
    for (int h = 0; h < H; h++) {
        if (b->P && model_shape)
            memcpy(b->P + h * nn, st->P + ((size_t)l * H + h) * nn, nn * sizeof *b->P);
        else if (b->P) /* a what-if of scaling: from Q and K */
            attention_head_weights(&r->shape, h, b->Q, b->K, NULL, b->P + h * nn);
        if (b->S)
            attention_head_weights(&r->shape, h, b->Q, b->K, b->S + h * nn, P_tmp);
    }
}

int bert_result_fill(const BertWeights *w, const BertState *st, const ModelConfig *c,
                     const TokenList *tokens, ModelResult *r)
{
    const BertConfig *g = &w->cfg;
    const int n = st->n;
    r->shape.n_q = 0;
    r->src = NULL;
    if (n < 1 || tokens->n != n || c->H != g->n_head || c->d_model != g->d_model ||
        c->layers != g->n_layer || st->L != g->n_layer || st->D != g->d_model ||
        c->causal != st->causal)
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
    memcpy(r->X, st->x, (size_t)n * g->d_model * sizeof *r->X);
    r->qkv_bias = true; /* the projections' biases are in every Q, K and V */
    for (int l = 0; l < g->n_layer; l++)
        fill_layer(st, l, r, P_tmp);
    free(P_tmp);
    return AV_OK;
}

double bert_param_count(const BertWeights *w)
{
    const BertConfig *c = &w->cfg;
    const double D = c->d_model, F = c->d_ff, V = c->n_vocab;
    double layer = 4 * (D * D + D) + 2 * D * F + F + D + 4 * D;
    double p = (V + c->n_pos + c->n_types) * D + 2 * D + c->n_layer * layer;
    if (bert_has_mlm(w))
        p += D * D + 3 * D + V + (w->decoder != w->word ? V * D : 0);
    return p;
}

double bert_flops(const BertConfig *c, int n)
{
    const double D = c->d_model, F = c->d_ff;
    /* the six products per position; scores and weighted sums over every key */
    return c->n_layer * ((double)n * 2 * (4 * D * D + 2 * D * F) + (double)n * n * 4 * D);
}
