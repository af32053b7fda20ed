/* kind_pipeline.c - the kind of attnviz's own pipeline (core/model.h): toy
 * random or designed heads, or weights read with --weights. It runs any
 * text of any settings, with or without the mask, and cross-attention; it
 * has no vocabulary, so it neither generates nor gives logits.
 */
#include "app/kind.h"

#include <stdlib.h>

#include "core/av.h"
#include "io/dump.h"

/* The pipeline has no vocabulary: id i stands for a made-up word of three
 * letters (aaa, aab, ...), each its own token with its own embedding. */
#define PIPELINE_WORDS 1000

static int pipeline_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r)
{
    r->shape.n_q = 0;
    char *text = malloc((size_t)n * 4 + 1);
    if (!text)
        return AV_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        int id = ids[i];
        if (id < 0 || id >= PIPELINE_WORDS) {
            free(text);
            return AV_ERR_CONFIG;
        }
        char *w = text + 4 * i;
        w[0] = (char)('a' + id / 676), w[1] = (char)('a' + id / 26 % 26);
        w[2] = (char)('a' + id % 26), w[3] = ' ';
    }
    int err = model_run(c, k->self, text, (size_t)n * 4 - 1, NULL, 0, r);
    free(text);
    return err;
}

/* None with X.npy: its rows embed the text's own tokens, not made-up words. */
static void pipeline_vocab(const Kind *k, const ModelConfig *c, int *V, int *n_max)
{
    const ModelWeights *w = k->self;
    *V = w && w->X ? 0 : PIPELINE_WORDS, *n_max = c->max_tokens;
}

static int pipeline_run(Kind *k, const ModelConfig *c, const char *text, size_t len,
                        const char *cross, size_t cross_len, ModelResult *r)
{
    return model_run(c, k->self, text, len, cross, cross_len, r);
}

/* The dump with norms.npy: the pipeline's own W_O is known. */
static int pipeline_dump(const Kind *k, const char *dir, const ModelResult *r, const ModelConfig *c,
                         const char **which)
{
    return dump_write_model(dir, r, c, k->self, which);
}

static const float *pipeline_out_proj(const Kind *k, int l)
{
    const ModelWeights *w = k->self;
    return w->layer[l].Wo;
}

static const char *pipeline_refuses(const Kind *k, KindAsk ask)
{
    (void)k;
    if (ask == KIND_ASK_LENS)
        return "attnviz's own heads predict no tokens: the logit lens needs GPT-2, or a "
               "trained text, grammar or task model (--model DIR)";
    return ask == KIND_ASK_GENERATE
               ? "g needs a model that predicts tokens (--model DIR: a GPT-2, or a text model "
                 "trained in attnviz)"
               : NULL;
}

static const KindClass pipeline_class = {
    .name = "pipeline",
    .refuses = pipeline_refuses,
    .run = pipeline_run,
    .dump = pipeline_dump,
    .run_ids = pipeline_run_ids,
    .vocab = pipeline_vocab,
    .out_proj = pipeline_out_proj,
};

void kind_pipeline_open(Kind *k, const ModelWeights *w)
{
    /* the weights are only read (model_run takes them const) */
    *k = (Kind){.cls = &pipeline_class, .self = (void *)w, .temperature = 1.0f};
}
