/* kind_pipeline.c - the kind of attnviz's own pipeline (core/model.h): toy
 * random or designed heads, or weights read with --weights. It runs any
 * text of any settings, with or without the mask, and cross-attention; it
 * has no vocabulary, so it neither generates nor gives logits.
 */
#include "app/kind.h"

#include "io/dump.h"

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

static const KindClass pipeline_class = {
    .name = "pipeline",
    .run = pipeline_run,
    .dump = pipeline_dump,
};

void kind_pipeline_open(Kind *k, const ModelWeights *w)
{
    /* the weights are only read (model_run takes them const) */
    *k = (Kind){.cls = &pipeline_class, .self = (void *)w, .temperature = 1.0f};
}
