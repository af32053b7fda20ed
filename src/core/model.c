/* model.c - the configuration and the whole pipeline, text in, result out.
 *
 * Buffers are sized once per text length from the config (llm.c's way) and
 * kept in one arena that the next call reuses when it is big enough, so a
 * keystroke in the interface costs no allocation. No globals, no printing.
 */
#include "core/model.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/designed.h"
#include "core/embed.h"
#include "core/mat.h"
#include "core/pool.h"
#include "core/posenc.h"
#include "fast/vecadd.h"

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

/* The next count floats of an arena at base (NULL when only counting). */
static float *model_take(float *base, size_t *used, size_t count)
{
    float *q = base ? base + *used : NULL;
    *used += count;
    return q;
}

/* Carve the per-layer matrices out of base (or, with base NULL, only count
 * them): the one statement of the weights' arena layout. Returns the floats
 * used. */
static size_t weights_carve(int d, int d_ff, int L, float *base, ModelWeights *w)
{
    size_t used = 0;
    for (int l = 0; l < L; l++) {
        LayerWeights *lw = &w->layer[l];
        lw->Wq = model_take(base, &used, (size_t)d * d);
        lw->Wk = model_take(base, &used, (size_t)d * d);
        lw->Wv = model_take(base, &used, (size_t)d * d);
        lw->Wo = model_take(base, &used, (size_t)d * d);
        if (d_ff) {
            lw->W1 = model_take(base, &used, (size_t)d * d_ff);
            lw->b1 = model_take(base, &used, (size_t)d_ff);
            lw->W2 = model_take(base, &used, (size_t)d_ff * d);
            lw->b2 = model_take(base, &used, (size_t)d);
        }
    }
    return used;
}

/* Point the per-layer matrices into one arena: 4 d^2 per layer, plus the FFN
 * when there is more than one layer. */
static int weights_alloc(int d, int L, ModelWeights *w)
{
    int d_ff = L > 1 ? MODEL_FFN_MULT * d : 0;
    memset(w, 0, sizeof *w);
    w->arena = calloc(weights_carve(d, d_ff, L, NULL, w), sizeof(float));
    if (!w->arena)
        return AV_ERR_NOMEM;
    w->d_model = d, w->d_ff = d_ff, w->L = L;
    weights_carve(d, d_ff, L, w->arena, w);
    return AV_OK;
}

/* The FFN weights of every layer from the seed (biases stay zero, as in the
 * articles' TransformerEncoderLayer). */
static void weights_ffn_toy(const ModelConfig *c, ModelWeights *w)
{
    int d = w->d_model, d_ff = w->d_ff;
    for (int l = 0; l < w->L && d_ff; l++) {
        LayerWeights *lw = &w->layer[l];
        embed_weights(c->seed, EMBED_TAG_LAYER(l, EMBED_TAG_W1), d, d_ff, sqrtf(2.0f / d), lw->W1);
        embed_weights(c->seed, EMBED_TAG_LAYER(l, EMBED_TAG_W2), d_ff, d, sqrtf(2.0f / d_ff),
                      lw->W2);
    }
}

int model_weights_toy(const ModelConfig *c, ModelWeights *w)
{
    int d = c->d_model;
    int err = weights_alloc(d, c->layers, w);
    if (err)
        return err;
    /* std sqrt(2/d_model), as the articles' MultiHeadAttention initialises them */
    float std = sqrtf(2.0f / d);
    for (int l = 0; l < w->L; l++) {
        LayerWeights *lw = &w->layer[l];
        embed_weights(c->seed, EMBED_TAG_LAYER(l, EMBED_TAG_WQ), d, d, std, lw->Wq);
        embed_weights(c->seed, EMBED_TAG_LAYER(l, EMBED_TAG_WK), d, d, std, lw->Wk);
        embed_weights(c->seed, EMBED_TAG_LAYER(l, EMBED_TAG_WV), d, d, std, lw->Wv);
        embed_weights(c->seed, EMBED_TAG_LAYER(l, EMBED_TAG_WO), d, d, std, lw->Wo);
    }
    weights_ffn_toy(c, w);
    if (c->preset == PRESET_DESIGNED && d == DESIGNED_D_MODEL)
        designed_weights(w->layer[0].Wq, w->layer[0].Wk, w->layer[0].Wv, w->layer[0].Wo);
    model_weights_measure(w);
    return AV_OK;
}

void model_weights_measure(ModelWeights *w)
{
    const AttnShape s = {.d_model = w->d_model};
    for (int l = 0; l < w->L; l++) {
        LayerWeights *lw = &w->layer[l];
        const AttnWeights aw = {lw->Wq, lw->Wk, lw->Wv, lw->Wo};
        attention_weights_max(&s, &aw, lw->max_abs);
    }
    w->measured = true;
}

void model_weights_free(ModelWeights *w)
{
    free(w->arena);
    free(w->X);
    memset(w, 0, sizeof *w);
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
    r->X = model_take(base, &used, (size_t)n_q * d);
    r->Xk = cross ? model_take(base, &used, (size_t)n_k * d) : NULL;
    for (int l = 0; l < c->layers; l++) {
        AttnBuffers *b = &r->layer[l].ab;
        b->Q = model_take(base, &used, (size_t)n_q * d);
        b->K = model_take(base, &used, (size_t)n_k * d);
        b->V = model_take(base, &used, (size_t)n_k * d);
        b->S = c->keep_scores ? model_take(base, &used, nn) : NULL;
        b->P = lazy ? NULL : model_take(base, &used, nn);
        b->concat = model_take(base, &used, (size_t)n_q * d);
        b->out = model_take(base, &used, (size_t)n_q * d);
        r->layer[l].x_out =
            c->layers > 1 || trained ? model_take(base, &used, (size_t)n_q * d) : b->out;
    }
    /* the FFN's hidden activations (n_q, d_ff) of the layer being run */
    *scratch = c->layers > 1 && !trained ? model_take(base, &used, (size_t)n_q * MODEL_FFN_MULT * d)
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
