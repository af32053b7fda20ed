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
#include "train/task.h"

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
                                      : "only text and grammar models continue a text; "
                                        "this one was trained on a task";
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
    default: return NULL;
    }
}

/* text[0..len) through the model's Net (its last context), the piece outside
 * the vocabulary in k->bad. */
static int run_text(Kind *k, const char *text, size_t len)
{
    Net *net = &net_of(k)->net;
    int *ids = malloc((len + 1) * sizeof *ids), n = 0;
    if (!ids)
        return AV_ERR_NOMEM;
    int err = infer_encode(&net->spec, text, len, ids, (int)len + 1, &n, k->bad, sizeof k->bad);
    if (!err)
        err = infer_run(net, ids, n);
    free(ids);
    return err;
}

/* The logits at row pos of the model's last context (the rows a run
 * shows), or after its last token. */
static int trained_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap,
                          int *V)
{
    Net *net = &net_of(k)->net;
    int err = run_text(k, text, len);
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
    int err = run_text(k, text, len);
    return err ? err : netlens_run(&net_of(k)->net, ls);
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

static int trained_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r)
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

static void trained_describe(const Kind *k, int form, int name_w, char *msg, size_t len)
{
    (void)form, (void)name_w; /* one form, no model name */
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

/* ids[0..n) cut to whole sentences: from after the first "." to the last
 * (a grammar batch is a window that starts and ends mid-sentence). */
static int whole_sentences(const ModelSpec *s, int *ids, int n)
{
    int first = -1, last = -1;
    for (int k = 0; k < n; k++)
        if (strcmp(s->vocab[ids[k]], ".") == 0)
            first = first < 0 ? k : first, last = k;
    if (first < 0 || last - first < 4)
        return n;
    memmove(ids, ids + first + 1, sizeof *ids * (size_t)(last - first));
    return last - first;
}

/* A sequence of the model's own task (task.h): a segment repeated for an
 * induction model, sentences of the toy language for a grammar model, a
 * string and its copy for copy, reverse and sort. 0 when the task needs a
 * file (text) or one of its pieces is outside the model's vocabulary (a
 * grammar of the user's own). */
static int task_ids(const ModelSpec *s, int *ids, int max)
{
    Task t;
    Batch b;
    char why[256];
    int n = 0;
    if (task_init(&t, s->task, NULL, 0, why, sizeof why) != AV_OK)
        return 0;
    int len = s->context < max ? s->context : max;
    if (task_batch_init(&b, &t, 1, len) == AV_OK) {
        task_batch(&t, s->seed, 0, &b);
        for (n = 0; n < len; n++) {
            const char *piece = t.vocab[b.tok[n]];
            int v = 0;
            while (v < s->V && strcmp(s->vocab[v], piece) != 0)
                v++;
            if (v == s->V)
                break;
            ids[n] = v;
        }
        n = n == len ? n : 0;
        if (n && t.kind == TASK_GRAMMAR)
            n = whole_sentences(s, ids, n);
        task_batch_free(&b);
    }
    task_free(&t);
    return n;
}

/* The interface without TEXT: text the model can read and was made for
 * (task_ids), else the articles' sentence when its vocabulary has it (a
 * character model of English), else its first few printable pieces. */
static char *trained_start_text(const Kind *k)
{
    const NetModel *nm = net_of(k);
    static const char sentence[] = "the cat sat on the mat";
    const ModelSpec *s = &nm->net.spec;
    int ids[64], n = task_ids(s, ids, 64);
    char bad[8];
    if (n == 0 &&
        infer_encode(s, sentence, sizeof sentence - 1, ids, 64, &n, bad, sizeof bad) != AV_OK)
        n = 0;
    if (n == 0)
        for (int v = 0; v < s->V && n < 8; v++)
            if ((unsigned char)s->vocab[v][0] > ' ' && s->vocab[v][0] != 0x7f)
                ids[n++] = v;
    char one[1];
    size_t need = infer_decode(s, ids, n, one, sizeof one);
    char *whole = malloc(need + 1);
    if (whole)
        infer_decode(s, ids, n, whole, need + 1);
    return whole;
}

/* A text longer than the model's context is shown by its last tokens. */
static void trained_run_note(const Kind *k, const ModelResult *r, char *out, size_t len)
{
    const NetModel *nm = net_of(k);
    if (nm->first)
        snprintf(out, len,
                 "note: the text has %d tokens and the model's context is %d: the "
                 "last %d are shown",
                 nm->total, nm->net.spec.context, r->tokens.n);
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
    .start_text = trained_start_text,
    .run_note = trained_run_note,
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
