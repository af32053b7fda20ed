/* model_result.c - reading a run's result (a head's weights, a row, its
 * pooled picture and statistics, whether from the arena, recomputed from Q
 * and K, or from an imported source) and laying an import into a result.
 */
#include "core/model.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "core/pool.h"

const TokenList *model_key_tokens(const ModelResult *r)
{
    return r->cross_tokens.n ? &r->cross_tokens : &r->tokens;
}

unsigned model_holds(const ModelResult *r, int layer)
{
    if (layer < 0 || layer >= r->L || r->shape.n_q == 0)
        return 0;
    const LayerResult *lr = &r->layer[layer];
    const AttnBuffers *b = &lr->ab;
    unsigned h = 0;
    h |= b->P ? MODEL_HOLDS_WEIGHTS : 0;
    h |= b->Q && b->K ? MODEL_HOLDS_QK : 0;
    h |= b->S ? MODEL_HOLDS_SCORES : 0;
    h |= b->V && b->concat ? MODEL_HOLDS_VECTORS : 0;
    h |= lr->x_out ? MODEL_HOLDS_OUTPUT : 0;
    return h;
}

bool model_has_vectors(const ModelResult *r, int layer)
{
    unsigned need = MODEL_HOLDS_QK | MODEL_HOLDS_VECTORS;
    return (model_holds(r, layer) & need) == need;
}

const float *model_head_P(const ModelResult *r, int layer, int h)
{
    assert(layer >= 0 && layer < r->L && h >= 0 && h < r->shape.H);
    const float *P = r->layer[layer].ab.P;
    return P ? P + (size_t)h * r->shape.n_q * r->shape.n_k : NULL;
}

const float *model_head_row(const ModelResult *r, int layer, int h, int i, float *buf)
{
    const float *P_h = model_head_P(r, layer, h);
    assert(i >= 0 && i < r->shape.n_q);
    if (P_h)
        return P_h + (size_t)i * r->shape.n_k;
    if (r->src)
        return combine_row(r->src, layer, h, i, buf);
    const AttnBuffers *ab = &r->layer[layer].ab;
    pool_rows(&r->shape, h, ab->Q, ab->K, i, i + 1, buf);
    return buf;
}

int model_pool_head(const ModelResult *r, int layer, int h, int r0, int r1, int c0, int c1, int gh,
                    int gw, PoolMode mode, float *out)
{
    const float *P_h = model_head_P(r, layer, h);
    if (!P_h && r->src)
        return pool_head_source(&r->shape, r->src, layer, h, r0, r1, c0, c1, gh, gw, mode, out);
    const AttnBuffers *ab = &r->layer[layer].ab;
    return pool_head(&r->shape, h, ab->Q, ab->K, P_h, r0, r1, c0, c1, gh, gw, mode, out);
}

int model_stats_head(const ModelResult *r, int layer, int h, long budget, HeadStats *st)
{
    const float *P_h = model_head_P(r, layer, h);
    if (!P_h && r->src)
        return stats_head_source(&r->shape, r->src, layer, h, budget, st);
    const AttnBuffers *ab = &r->layer[layer].ab;
    return stats_head(&r->shape, h, ab->Q, ab->K, P_h, budget, st);
}

static const float *source_row(const void *ctx, int l, int h, int i, float *buf)
{
    return model_head_row(ctx, l, h, i, buf);
}

static void source_release(const void *ctx, int l)
{
    model_release_layer(ctx, l);
}

void model_source(const ModelResult *r, AttnSource *src)
{
    *src = (AttnSource){.L = r->L,
                        .H = r->shape.H,
                        .n_q = r->shape.n_q,
                        .n_k = r->shape.n_k,
                        .row = source_row,
                        .release = source_release,
                        .ctx = r};
}

void model_release_layer(const ModelResult *r, int l)
{
    if (r->src && r->src->release)
        r->src->release(r->src->ctx, l);
}

void model_config_import(ModelConfig *c, int L, int H, bool causal)
{
    model_config_default(c);
    *c = (ModelConfig){.H = H,
                       .d_model = H,
                       .layers = L,
                       .seed = c->seed,
                       .causal = causal,
                       .pe = false,
                       .scale = false,
                       .temperature = 1.0f,
                       .max_tokens = AV_MAX_TOKENS,
                       .preset = PRESET_IMPORTED};
}

/* Layer l's weights of an import: in place, copied into the arena, or none. */
static void import_layer(ModelResult *r, const AttnSource *src, const float *const *layer_P,
                         bool copy, int l)
{
    const size_t nn = (size_t)src->n_q * src->n_k, hnn = nn * src->H;
    union {
        const float *c;
        float *m;
    } P = {.c = layer_P ? layer_P[l] : NULL};
    if (copy) {
        P.m = r->arena + (size_t)l * hnn;
        for (int h = 0; h < src->H; h++)
            combine_rows(src, l, h, 0, src->n_q, P.m + (size_t)h * nn);
        if (src->release)
            src->release(src->ctx, l);
    }
    memset(&r->layer[l], 0, sizeof r->layer[l]);
    r->layer[l].ab.P = P.m; /* a read-only map when in place: never written through */
}

int model_result_import(ModelResult *r, const ModelConfig *c, const AttnSource *src,
                        const float *const *layer_P, const TokenList *tokens,
                        const TokenList *key_tokens)
{
    const bool cross = key_tokens && key_tokens->n > 0;
    const int n_q = src->n_q, n_k = src->n_k;
    r->shape.n_q = 0;
    int err = model_config_check(c);
    if (!err &&
        (src->L != c->layers || src->H != c->H || tokens->n != n_q ||
         (cross ? key_tokens->n : tokens->n) != n_k || n_q > AV_MAX_TOKENS || n_k > AV_MAX_TOKENS))
        err = AV_ERR_CONFIG;
    double budget = c->weights_budget > 0 ? c->weights_budget : MODEL_BUDGET;
    bool copy = !layer_P && model_weight_bytes(c, n_q, n_k) <= budget;
    size_t need = copy ? (size_t)c->layers * c->H * n_q * n_k : 0;
    if (!err && need > r->arena_cap) {
        float *a = malloc(need * sizeof *a);
        err = a ? AV_OK : AV_ERR_NOMEM;
        if (a)
            free(r->arena), r->arena = a, r->arena_cap = need;
    }
    if (!err)
        err = tokenize_copy(tokens, &r->tokens);
    if (!err && cross)
        err = tokenize_copy(key_tokens, &r->cross_tokens);
    else if (!err)
        tokenize_free(&r->cross_tokens);
    if (err)
        return err;
    for (int l = 0; l < c->layers; l++)
        import_layer(r, src, layer_P, copy, l);
    r->X = r->Xk = r->out = NULL;
    r->L = c->layers;
    r->lazy = !layer_P && !copy;
    r->src = src;
    r->shape = (AttnShape){n_q, n_k, c->d_model, c->H, c->causal, false, 1.0f};
    return AV_OK;
}
