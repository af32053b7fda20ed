/* model.c - the configuration and the whole pipeline, text in, result out.
 *
 * Buffers are sized once per text length from the config (llm.c's way) and
 * kept in one arena that the next call reuses when it is big enough, so a
 * keystroke in the interface costs no allocation. The weights are made in
 * model_weights.c; a result is read (and an import laid in) by
 * model_result.c. No globals, no printing.
 */
#include "core/model.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fast/vecadd.h"
#include "arena.h"
#include "core/designed.h"
#include "core/embed.h"
#include "core/mat.h"
#include "core/pool.h"
#include "core/posenc.h"

void model_config_default(ModelConfig *c)
{
    *c = (ModelConfig){
        .H = 4,
        .d_model = 32,
        .layers = 1,
        .seed = 42,
        .causal = false,
        .pe = true,
        .scale = true,
        .temperature = 1.0f,
        .max_tokens = AV_MAX_TOKENS_DEFAULT,
        .keep_scores = false,
    };
}

int model_config_check(const ModelConfig *c)
{
    if (c->H < 1 || c->H > AV_MAX_HEADS || c->d_model < 1 || c->d_model > AV_MAX_D_MODEL)
        return AV_ERR_CONFIG;
    if (c->d_model % c->H != 0 || c->layers < 1 || c->layers > AV_MAX_LAYERS)
        return AV_ERR_CONFIG;
    if (!(c->temperature > 0.0f) || !isfinite(c->temperature))
        return AV_ERR_CONFIG;
    if (c->max_tokens < 1 || c->max_tokens > AV_MAX_TOKENS)
        return AV_ERR_CONFIG;
    if (c->preset == PRESET_DESIGNED && (c->d_model != DESIGNED_D_MODEL || c->H != DESIGNED_HEADS))
        return AV_ERR_CONFIG;
    return AV_OK;
}

void model_config_designed(ModelConfig *c)
{
    c->preset = PRESET_DESIGNED;
    c->d_model = DESIGNED_D_MODEL;
    c->H = DESIGNED_HEADS;
}

const char *model_head_label(const ModelConfig *c, int layer, int h)
{
    if (c->head_labels && c->head_labels[(size_t)layer * c->H + h])
        return c->head_labels[(size_t)layer * c->H + h];
    if (c->preset == PRESET_IMPORTED)
        return "imported";
    if (layer == 0 && c->preset == PRESET_DESIGNED)
        return designed_head_label(h);
    return layer == 0 && c->preset == PRESET_LOADED ? "from --weights" : "random";
}

double model_weight_bytes(const ModelConfig *c, int n_q, int n_k)
{
    return (double)c->layers * c->H * n_q * n_k * sizeof(float);
}

/* Carve a run's tensors out of base (or, with base NULL, only count them):
 * the one statement of the result arena's layout. Returns the floats used. */
static size_t result_carve(const ModelConfig *c, int n_q, int n_k, bool cross, bool lazy,
                           float *base, ModelResult *r, float **scratch)
{
    size_t d = (size_t)c->d_model, nn = lazy ? 0 : (size_t)n_q * n_k * c->H, used = 0;
    bool trained = c->preset == PRESET_TRAINED; /* a residual stream of its own */
    r->X = arena_take(base, &used, (size_t)n_q * d);
    r->Xk = cross ? arena_take(base, &used, (size_t)n_k * d) : NULL;
    for (int l = 0; l < c->layers; l++) {
        AttnBuffers *b = &r->layer[l].ab;
        b->Q = arena_take(base, &used, (size_t)n_q * d);
        b->K = arena_take(base, &used, (size_t)n_k * d);
        b->V = arena_take(base, &used, (size_t)n_k * d);
        b->S = c->keep_scores ? arena_take(base, &used, nn) : NULL;
        b->P = lazy ? NULL : arena_take(base, &used, nn);
        b->concat = arena_take(base, &used, (size_t)n_q * d);
        b->out = arena_take(base, &used, (size_t)n_q * d);
        r->layer[l].x_out =
            c->layers > 1 || trained ? arena_take(base, &used, (size_t)n_q * d) : b->out;
    }
    /* the FFN's hidden activations (n_q, d_ff) of the layer being run */
    *scratch = c->layers > 1 && !trained ? arena_take(base, &used, (size_t)n_q * MODEL_FFN_MULT * d)
                                         : NULL;
    return used;
}

/* Lay the arena out for this run; grows it when too small. */
static int result_layout(const ModelConfig *c, int n_q, int n_k, bool cross, ModelResult *r,
                         float **scratch)
{
    double budget = c->weights_budget > 0 ? c->weights_budget : MODEL_BUDGET;
    r->lazy = model_weight_bytes(c, n_q, n_k) > budget;
    r->qkv_bias = false;
    if (r->lazy && c->keep_scores)
        return AV_ERR_TOO_LARGE;
    /* counting sets r's pointers to NULL (a ModelResult zeroed to count
     * into was 400 instructions a run); the carve below sets them */
    size_t need = result_carve(c, n_q, n_k, cross, r->lazy, NULL, r, scratch);
    if (need > r->arena_cap) {
        /* Headroom: typing grows n a token at a time, and a fresh allocation
         * of a long text's weights costs page faults on every keystroke. */
        size_t cap = need + need / 4;
        float *a = malloc(cap * sizeof *a);
        if (!a)
            return AV_ERR_NOMEM;
        free(r->arena);
        r->arena = a, r->arena_cap = cap;
    }
    result_carve(c, n_q, n_k, cross, r->lazy, r->arena, r, scratch);
    return AV_OK;
}

/* x (n, d) = (x - mean) / (std + eps) per row, the articles' layer_norm. */
static void layer_norm(int n, int d, float *x)
{
    for (int i = 0; i < n; i++) {
        float *row_i = x + (size_t)i * d;
        double mean = 0, var = 0;
        for (int c = 0; c < d; c++)
            mean += row_i[c];
        mean /= d;
        for (int c = 0; c < d; c++)
            var += (row_i[c] - mean) * (row_i[c] - mean);
        double inv = 1.0 / (sqrt(var / d) + 1e-6);
        for (int c = 0; c < d; c++)
            row_i[c] = (float)((row_i[c] - mean) * inv);
    }
}

/* The rest of an encoder layer after attention:
 * x_out = LN(x_in + attn); x_out = LN(x_out + relu(x_out W1 + b1) W2 + b2). */
static void encoder_tail(const LayerWeights *lw, int n, int d, int d_ff, const float *x_in,
                         const float *attn, float *hidden, float *x_out)
{
    for (size_t k = 0; k < (size_t)n * d; k++)
        x_out[k] = x_in[k] + attn[k];
    layer_norm(n, d, x_out);
    /* hidden (n, d_ff) = x_out (n, d) W1 (d, d_ff) */
    mat_sgemm(false, false, n, d_ff, d, 1.0f, x_out, d, lw->W1, d_ff, 0.0f, hidden, d_ff);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d_ff; c++) {
            float v = hidden[(size_t)i * d_ff + c] + lw->b1[c];
            hidden[(size_t)i * d_ff + c] = v > 0.0f ? v : 0.0f;
        }
    /* x_out (n, d) += hidden (n, d_ff) W2 (d_ff, d), the residual kept by beta = 1 */
    mat_sgemm(false, false, n, d, d_ff, 1.0f, hidden, d_ff, lw->W2, d, 1.0f, x_out, d);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d; c++)
            x_out[(size_t)i * d + c] += lw->b2[c];
    layer_norm(n, d, x_out);
}

/* The positional encodings of positions 0..n-1 at width d, computed once and
 * kept: sin, cos and pow are most of a short sentence's cost otherwise. */
static const float *cached_pe(ModelResult *r, int n, int d)
{
    if (r->pe_d != d || r->pe_n < n) {
        int cap = n > 2 * r->pe_n || r->pe_d != d ? n : 2 * r->pe_n;
        cap = cap < 64 ? 64 : cap;
        float *pe = malloc(sizeof *pe * (size_t)cap * d);
        if (!pe)
            return NULL;
        posenc_fill(0, cap, d, pe);
        free(r->pe);
        r->pe = pe, r->pe_n = cap, r->pe_d = d;
    }
    return r->pe;
}

/* Embeddings (toy, or X.npy for the query sentence) plus PE into X (n, d). */
static int model_inputs(const ModelConfig *c, const ModelWeights *w, const TokenList *t, bool use_x,
                        float *X, ModelResult *r)
{
    int n = t->n, d = c->d_model;
    if (use_x && w && w->X) {
        if (w->n_x != n)
            return AV_ERR_NPY_SHAPE;
        memcpy(X, w->X, (size_t)n * d * sizeof *X);
    } else if (c->preset == PRESET_DESIGNED) {
        designed_embed(t, X);
    } else {
        int err = embed_tokens(t, c->seed, d, X, &r->emb);
        if (err)
            return err;
    }
    if (c->pe) {
        const float *pe = cached_pe(r, n, d);
        if (!pe)
            return AV_ERR_NOMEM;
        vec_add(X, pe, (size_t)n * d);
    }
    return AV_OK;
}

static int model_layers(const ModelConfig *c, const ModelWeights *w, ModelResult *r, float *scratch)
{
    const float *x_in = r->X;
    if (c->weights_only) { /* the last layer's values and outputs are not made */
        LayerResult *last = &r->layer[c->layers - 1];
        last->ab.V = last->ab.concat = last->ab.out = last->x_out = NULL;
    }
    for (int l = 0; l < c->layers; l++) {
        const LayerWeights *lw = &w->layer[l];
        AttnWeights aw = {lw->Wq, lw->Wk, lw->Wv, lw->Wo};
        LayerResult *lr = &r->layer[l];
        const float *x_kv = r->Xk ? r->Xk : x_in;
        /* weights of --weights or X.npy so large that a score is not a float */
        float wmax[4];
        if (w->measured)
            memcpy(wmax, lw->max_abs, sizeof wmax);
        else
            attention_weights_max(&r->shape, &aw, wmax);
        int err = attention_check_range(&r->shape, x_in, x_kv, wmax);
        if (!err)
            err = r->lazy ? pool_forward(&r->shape, x_in, x_kv, &aw, &lr->ab)
                          : attention_forward(&r->shape, x_in, x_kv, &aw, &lr->ab);
        if (err)
            return err;
        if (c->layers > 1 && lr->x_out) {
            const size_t nd = (size_t)r->shape.n_q * c->d_model;
            encoder_tail(lw, r->shape.n_q, c->d_model, w->d_ff, x_in, lr->ab.out, scratch,
                         lr->x_out);
            if (!isfinite(attention_max_abs(lr->x_out, nd)))
                return AV_ERR_OVERFLOW;
        }
        x_in = lr->x_out;
    }
    r->out = r->layer[c->layers - 1].x_out;
    return AV_OK;
}

static int model_tokenize(const ModelConfig *c, const char *text, size_t len, const char *cross,
                          size_t cross_len, ModelResult *r)
{
    /* the lists' allocations are reused: a keystroke allocates nothing */
    int err = tokenize_again(text, len, c->max_tokens, &r->tokens);
    if (!err && r->tokens.n == 0)
        err = AV_ERR_EMPTY;
    if (!err && cross) {
        err = tokenize_again(cross, cross_len, c->max_tokens, &r->cross_tokens);
        if (!err && r->cross_tokens.n == 0)
            err = AV_ERR_EMPTY;
    } else {
        tokenize_free(&r->cross_tokens);
    }
    return err;
}

int model_run(const ModelConfig *c, const ModelWeights *w, const char *text, size_t len,
              const char *cross, size_t cross_len, ModelResult *r)
{
    float *scratch = NULL;
    r->shape.n_q = 0;
    r->src = NULL;
    int err = model_config_check(c);
    if (!err && (!w || w->d_model != c->d_model || w->L < c->layers || c->preset == PRESET_TRAINED))
        err = AV_ERR_CONFIG;
    if (!err)
        err = model_tokenize(c, text, len, cross, cross_len, r);
    if (err)
        return err;
    int n_q = r->tokens.n, n_k = cross ? r->cross_tokens.n : n_q;
    AttnShape s = {n_q, n_k, c->d_model, c->H, c->causal, c->scale, c->temperature};
    r->L = c->layers;
    err = result_layout(c, n_q, n_k, cross != NULL, r, &scratch);
    if (!err)
        err = model_inputs(c, w, &r->tokens, true, r->X, r);
    if (!err && cross)
        err = model_inputs(c, w, &r->cross_tokens, false, r->Xk, r);
    r->shape = s;
    if (!err)
        err = model_layers(c, w, r, scratch);
    if (err)
        r->shape.n_q = 0;
    return err;
}

int model_result_prepare(const ModelConfig *c, int n_q, int n_k, ModelResult *r)
{
    float *scratch = NULL;
    r->shape.n_q = 0;
    int err = model_config_check(c);
    if (!err && (n_q < 1 || n_k < 1 || n_q > AV_MAX_TOKENS || n_k > AV_MAX_TOKENS))
        err = AV_ERR_CONFIG;
    if (!err)
        err = result_layout(c, n_q, n_k, false, r, &scratch);
    if (err)
        return err;
    tokenize_free(&r->cross_tokens); /* self-attention: the keys are r->tokens */
    r->L = c->layers;
    r->shape = (AttnShape){n_q, n_k, c->d_model, c->H, c->causal, c->scale, c->temperature};
    r->out = r->layer[c->layers - 1].x_out;
    return AV_OK;
}

/* A NUL-terminated copy of s[0..len), or NULL for none; *err set on failure. */
static char *text_copy(const char *s, size_t len, int *err)
{
    if (!s || len == 0)
        return NULL;
    char *t = malloc(len + 1);
    if (!t) {
        *err = AV_ERR_NOMEM;
        return NULL;
    }
    memcpy(t, s, len);
    t[len] = '\0';
    return t;
}

int model_result_set_text(ModelResult *r, const char *text, size_t len, const char *cross,
                          size_t cross_len)
{
    free(r->text), free(r->cross_text);
    int err = AV_OK;
    r->text = text_copy(text, len, &err);
    r->cross_text = text_copy(cross, cross_len, &err);
    if (err)
        free(r->text), free(r->cross_text), r->text = r->cross_text = NULL;
    return err;
}

void model_result_free(ModelResult *r)
{
    free(r->text), free(r->cross_text);
    tokenize_free(&r->tokens);
    tokenize_free(&r->cross_tokens);
    free(r->arena);
    free(r->pe);
    embed_cache_free(&r->emb);
    memset(r, 0, sizeof *r);
}

double model_flops(const AttnShape *s)
{
    double n_q = s->n_q, n_k = s->n_k, d = s->d_model;
    /* projections Q, K, V, output; scores and weighted sums over all heads */
    return 2 * n_q * d * d + 4 * n_k * d * d + 2 * n_q * d * d + 4 * n_q * n_k * d;
}

double model_kv_bytes(int layers, int d_model, int n)
{
    return 2.0 * layers * d_model * sizeof(float) * n;
}
