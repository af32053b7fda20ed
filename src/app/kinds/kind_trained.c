/* kind_trained.c - the kind of attnviz's own trained model folder
 * (train/netresult.h: --model DIR, a lesson page's model). The model was
 * trained causal on its own vocabulary and sizes: it refuses the mask off,
 * cross-attention and other settings; text and grammar models generate.
 */
#include "app/kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/dump.h"
#include "train/infer.h"
#include "train/netlens.h"

typedef struct {
    NetModel *m;
    bool owned; /* opened by kind_trained_load: closed with the kind */
} Trained;

static NetModel *net_of(const Kind *k)
{
    return ((const Trained *)k->self)->m;
}

static int trained_run(Kind *k, const ModelConfig *c, const char *text, size_t len,
                       const char *cross, size_t cross_len, ModelResult *r)
{
    (void)cross_len;
    if (cross) {
        r->shape.n_q = 0;
        return AV_ERR_CONFIG;
    }
    return netresult_run(net_of(k), c, text, len, r, k->bad, sizeof k->bad);
}

static int trained_generate(Kind *k, const char *text, size_t len, int count, float temperature,
                            int top_k, uint64_t seed, char **out, size_t *cont)
{
    return netresult_generate(net_of(k), text, len, count, temperature, top_k, seed, out, cont,
                              k->bad, sizeof k->bad);
}

static const char *trained_refuses(const Kind *k, KindAsk ask)
{
    const NetModel *m = net_of(k);
    switch (ask) {
    case KIND_ASK_GENERATE:
        return netresult_generates(m) ? NULL
                                      : "g continues text and grammar models; this "
                                        "one was trained on a task";
    case KIND_ASK_MASK: return "this model was trained causal: the mask stays on";
    case KIND_ASK_SETTINGS:
    case KIND_ASK_WHATIF:
        return "the trained model fixes its heads, sizes, weights, PE and scaling";
    case KIND_ASK_CROSS: return "a trained decoder attends over its own tokens: no cross-attention";
    case KIND_ASK_PE_VIEW:
        return m->net.spec.pe != MODEL_PE_LEARNED
                   ? NULL
                   : "this model learned its positional encodings (pe.npy): the PE view draws "
                     "sinusoidal ones";
    case KIND_ASK_EXAMPLES:
        return "the examples are not in the model's vocabulary: type a text of it (e)";
    case KIND_ASK_NORMS:
        return "value-weighted norms need the model's V and W_O: not kept for a trained model";
    case KIND_ASK_LESSONS:
        return "the lessons run attnviz's own pipeline: start attnviz without --model (o "
               "there)";
    default: return NULL;
    }
}

/* The logits at row pos of the model's last context (the rows a run
 * shows), or after its last token. */
static int trained_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap,
                          int *V)
{
    Net *net = &net_of(k)->net;
    int *ids = malloc((len + 1) * sizeof *ids), n = 0;
    if (!ids)
        return AV_ERR_NOMEM;
    int err = infer_encode(&net->spec, text, len, ids, (int)len + 1, &n, k->bad, sizeof k->bad);
    if (!err)
        err = infer_run(net, ids, n);
    free(ids);
    if (err)
        return err;
    if (pos >= net->n)
        return AV_ERR_CONFIG;
    *V = net->spec.V < cap ? net->spec.V : cap;
    long row = pos < 0 ? net->n - 1 : pos;
    memcpy(out, net->logits + row * net->spec.V, sizeof *out * (size_t)*V);
    return AV_OK;
}

/* The Net runs every position each time: the lens is all computed. */
static int trained_lens(Kind *k, const char *text, size_t len, Lens *ls)
{
    Net *net = &net_of(k)->net;
    int *ids = malloc((len + 1) * sizeof *ids), n = 0;
    if (!ids)
        return AV_ERR_NOMEM;
    int err = infer_encode(&net->spec, text, len, ids, (int)len + 1, &n, k->bad, sizeof k->bad);
    if (!err)
        err = infer_run(net, ids, n);
    free(ids);
    return err ? err : netlens_run(net, ls);
}

/* dump_write's files and the lens of the run (the Net's last forward). */
static int trained_dump(const Kind *k, const char *dir, const ModelResult *r, const ModelConfig *c,
                        const char **which)
{
    int err = dump_write(dir, r, c, which);
    Lens ls;
    lens_init(&ls);
    if (!err) {
        *which = "lens_ids.npy";
        err = netlens_run(&net_of(k)->net, &ls);
    }
    if (!err)
        err = dump_write_lens(dir, &ls, which);
    lens_free(&ls);
    return err;
}

static int trained_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n,
                           ModelResult *r)
{
    return netresult_run_ids(net_of(k), c, ids, n, r);
}

static void trained_vocab(const Kind *k, const ModelConfig *c, int *V, int *n_max)
{
    (void)c;
    const Net *net = &net_of(k)->net;
    *V = net->spec.V, *n_max = net->spec.context;
}

/* A vocabulary entry, a space, newline or tab shown by its mark. */
static void trained_token_text(const Kind *k, int id, char *out, size_t len)
{
    const ModelSpec *s = &net_of(k)->net.spec;
    if (id < 0 || id >= s->V) {
        snprintf(out, len, "#%d", id);
        return;
    }
    size_t used = 0;
    for (const char *p = s->vocab[id]; *p && used + 4 < len; p++) {
        const char *mark = *p == ' '    ? "\u2423"
                           : *p == '\n' ? "\u21b5"
                           : *p == '\t' ? "\u21e5"
                                        : NULL;
        size_t n = mark ? strlen(mark) : 1;
        memcpy(out + used, mark ? mark : p, n);
        used += n;
    }
    if (len)
        out[used < len ? used : len - 1] = 0;
}

static void trained_config(const Kind *k, ModelConfig *c)
{
    ModelConfig m = net_of(k)->cfg;
    m.keep_scores = c->keep_scores, m.weights_budget = c->weights_budget;
    m.weights_only = c->weights_only;
    *c = m;
}

static void trained_describe(const Kind *k, char *msg, size_t len)
{
    const NetModel *m = net_of(k);
    snprintf(msg, len, "trained '%s' model, causal, context %d%s", m->net.spec.task,
             m->net.spec.context, netresult_generates(m) ? ": g generates the next token" : "");
}

static void trained_close(Kind *k)
{
    Trained *t = k->self;
    if (t && t->owned) {
        netresult_close(t->m);
        free(t->m);
    }
    free(t);
}

static const KindClass trained_class = {
    .name = "trained",
    .run = trained_run,
    .generate = trained_generate,
    .refuses = trained_refuses,
    .logits = trained_logits,
    .lens = trained_lens,
    .dump = trained_dump,
    .token_text = trained_token_text,
    .config = trained_config,
    .describe = trained_describe,
    .close = trained_close,
    .run_ids = trained_run_ids,
    .vocab = trained_vocab,
    .causal_only = true,
};

int kind_trained_open(Kind *k, NetModel *m)
{
    Trained *t = calloc(1, sizeof *t);
    if (!t)
        return AV_ERR_NOMEM;
    t->m = m;
    *k = (Kind){.cls = &trained_class,
                .self = t,
                .temperature = m->sample_temperature,
                .top_k = m->sample_top_k};
    return AV_OK;
}

int kind_trained_load(Kind *k, const char *dir, char *why, size_t whylen)
{
    NetModel *m = calloc(1, sizeof *m);
    if (!m)
        return AV_ERR_NOMEM;
    int err = netresult_open(m, dir, why, whylen);
    if (!err)
        err = kind_trained_open(k, m);
    if (err) {
        netresult_close(m);
        free(m);
        return err;
    }
    ((Trained *)k->self)->owned = true;
    return AV_OK;
}

NetModel *kind_trained_model(const Kind *k)
{
    return k->cls == &trained_class ? net_of(k) : NULL;
}
