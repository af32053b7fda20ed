/* model_weights.c - a model's weights: the per-layer matrices in one arena,
 * the toy weights from the seed (the articles' initialisation), the designed
 * heads laid over layer 0, and each matrix's largest magnitude measured once.
 */
#include "core/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "core/designed.h"
#include "core/embed.h"

/* Carve the per-layer matrices out of base (or, with base NULL, only count
 * them): the one statement of the weights' arena layout. Returns the floats
 * used. */
static size_t weights_carve(int d, int d_ff, int L, float *base, ModelWeights *w)
{
    size_t used = 0;
    for (int l = 0; l < L; l++) {
        LayerWeights *lw = &w->layer[l];
        lw->Wq = arena_take(base, &used, (size_t)d * d);
        lw->Wk = arena_take(base, &used, (size_t)d * d);
        lw->Wv = arena_take(base, &used, (size_t)d * d);
        lw->Wo = arena_take(base, &used, (size_t)d * d);
        if (d_ff) {
            lw->W1 = arena_take(base, &used, (size_t)d * d_ff);
            lw->b1 = arena_take(base, &used, (size_t)d_ff);
            lw->W2 = arena_take(base, &used, (size_t)d_ff * d);
            lw->b2 = arena_take(base, &used, (size_t)d);
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
