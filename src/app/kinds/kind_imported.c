/* kind_imported.c - the kind of attention computed elsewhere (--attention
 * FILE.npy, io/attnimport.h): no model, only the weights of its tokens. A
 * run makes the result from the file (float32 layers in place from the map,
 * float64 converted when they fit the budget, else read a row at a time)
 * whatever the text; every setting, the text itself and the views of a
 * model's vectors are refused. A large file is checked on a thread while the
 * interface is up (poll).
 */
#include "app/kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/dump.h"

typedef struct {
    const AttnImport *im;
    AttnFile af;      /* im->a with what its check found (causal, warning) */
    AttnCheck *check; /* the check of a large file's other layers, running */
    AttnSource file;  /* rows read (pread): the result's pooled samples fault no pages */
    bool owned;       /* im opened by kind_imported_load: freed with the kind */
} Imported;

static int imported_run(Kind *k, const ModelConfig *c, const char *text, size_t len,
                        const char *cross, size_t cross_len, ModelResult *r)
{
    (void)text, (void)len, (void)cross, (void)cross_len;
    const Imported *s = k->self;
    const AttnImport *im = s->im;
    const float *layer_P[AV_MAX_LAYERS];
    bool in_place = true;
    for (int l = 0; l < im->a.L; l++) {
        layer_P[l] = attnfile_head_ptr(&im->a, l, 0);
        in_place = in_place && layer_P[l];
    }
    ModelConfig ic;
    model_config_import(&ic, im->a.L, im->a.H, s->af.causal);
    ic.weights_budget = c->weights_budget;
    return model_result_import(r, &ic, &s->file, in_place ? layer_P : NULL, &im->tokens,
                               im->key_tokens.n ? &im->key_tokens : NULL);
}

static const char *imported_refuses(const Kind *k, KindAsk ask)
{
    (void)k;
    switch (ask) {
    case KIND_ASK_TRACE:
        return "the trace needs a model's vectors (Q, K, V): imported attention has only "
               "weights";
    case KIND_ASK_VIEWS:
    case KIND_ASK_PE_VIEW:
        return "the PE view needs a model's vectors (Q, K, V): imported attention has only "
               "weights";
    case KIND_ASK_HEADS_HELP:
        return "how the heads were built needs a model's vectors (Q, K, V): imported "
               "attention has only weights";
    case KIND_ASK_NORMS:
        return "value-weighted norms need the model's V and W_O: imported attention has only "
               "weights";
    case KIND_ASK_LENS:
        return "the logit lens reads a model's layers: imported attention has only weights";
    default: return "imported attention: the weights are the file's, there is no model to change";
    }
}

static void imported_config(const Kind *k, ModelConfig *c)
{
    const Imported *s = k->self;
    double budget = c->weights_budget;
    model_config_import(c, s->af.L, s->af.H, s->af.causal);
    c->weights_budget = budget;
}

/* The warning, else the file; while the check runs, which layers it checks. */
static void imported_describe(const Kind *k, int form, int name_w, char *msg, size_t len)
{
    (void)form, (void)name_w; /* one form, the file's name at most 60 bytes */
    const Imported *s = k->self;
    const AttnFile *af = &s->af;
    int n;
    if (af->warning[0])
        n = snprintf(msg, len, "warning: %.140s", af->warning);
    else
        n = snprintf(msg, len, "%.60s: %d layer%s x %d heads, %d x %d tokens%s", af->name, af->L,
                     af->L == 1 ? "" : "s", af->H, af->n_q, af->n_k,
                     af->causal ? ", causal (detected)" : "");
    if (s->check && n >= 0 && (size_t)n < len)
        snprintf(msg + n, len - (size_t)n, " (checking layers 2-%d)", af->L);
}

static int imported_poll(Kind *k, bool *changed, char *msg, size_t len)
{
    Imported *s = k->self;
    if (!s->check)
        return AV_OK;
    int err = attnfile_check_poll(s->check, &s->af, msg, len);
    if (err == ATTNFILE_CHECKING)
        return KIND_BUSY;
    if (err == AV_OK) {
        attnfile_check_free(s->check);
        s->check = NULL;
        *changed = true;
    }
    return err;
}

static bool imported_source(const Kind *k, AttnSource *src)
{
    const Imported *s = k->self;
    attnfile_source(&s->im->a, src); /* every head of a row, from the map */
    return true;
}

static void imported_release(const Kind *k, int l)
{
    const Imported *s = k->self;
    attnfile_release(&s->im->a, l);
}

/* The file itself (attention.npy bit for bit), whatever the result. */
static int imported_dump(const Kind *k, const char *dir, const ModelResult *r, const ModelConfig *c,
                         const char **which)
{
    (void)r, (void)c;
    const Imported *s = k->self;
    return dump_write_import(dir, s->im, which);
}

/* The file's tokens joined by spaces: the interface's text. */
static char *imported_start_text(const Kind *k)
{
    const Imported *s = k->self;
    return strdup(s->im->text);
}

static const char *imported_label(const Kind *k)
{
    const Imported *s = k->self;
    return s->im->a.name;
}

/* The check's finding (rows not summing to 1), said before a batch writes. */
static const char *imported_warning(const Kind *k)
{
    const Imported *s = k->self;
    return s->im->a.warning[0] ? s->im->a.warning : NULL;
}

static void imported_close(Kind *k)
{
    Imported *s = k->self;
    if (s)
        attnfile_check_free(s->check);
    if (s && s->owned) {
        AttnImport *im = (AttnImport *)s->im; /* ours: kind_imported_load's */
        attnimport_free(im);
        free(im);
    }
    free(s);
}

static const KindClass imported_class = {
    .name = "imported",
    .run = imported_run,
    .refuses = imported_refuses,
    .config = imported_config,
    .describe = imported_describe,
    .poll = imported_poll,
    .source = imported_source,
    .release = imported_release,
    .dump = imported_dump,
    .close = imported_close,
    .start_text = imported_start_text,
    .label = imported_label,
    .warning = imported_warning,
    .file_sizes = true,
    .no_sentence = true,    /* the text is the file's tokens, not a sentence typed */
    .budget_message = true, /* a file's size is set, not its text's length */
};

int kind_imported_open(Kind *k, const AttnImport *im, char *msg, size_t msglen)
{
    Imported *s = calloc(1, sizeof *s);
    if (!s)
        return AV_ERR_NOMEM;
    s->im = im;
    s->af = im->a;
    attnfile_source_read(&im->a, &s->file);
    *k = (Kind){.cls = &imported_class, .self = s, .temperature = 1.0f};
    if (s->af.validated)
        return AV_OK;
    /* a large file: layer 0 now, the rest on a thread (poll) */
    int err = attnfile_check_start(&s->af, &s->check, msg, msglen);
    if (err)
        kind_close(k);
    return err;
}

int kind_imported_load(Kind *k, const char *npy_path, const char *tokens_path,
                       const char *key_tokens_path, bool interactive, char *msg, size_t msglen)
{
    AttnImport *im = calloc(1, sizeof *im);
    memset(k, 0, sizeof *k);
    if (!im) {
        snprintf(msg, msglen, "out of memory");
        return AV_ERR_NOMEM;
    }
    int err = attnimport_open(npy_path, tokens_path, key_tokens_path, im, msg, msglen);
    /* every value is checked before anything is written; the interface on a
     * large file checks layer 0 and draws, the rest on a thread (poll) */
    bool later = interactive && im->a.map_len > ATTNFILE_BACKGROUND_BYTES;
    if (!err && !later)
        err = attnfile_validate(&im->a, msg, msglen);
    if (!err && (err = kind_imported_open(k, im, msg, msglen)) == AV_ERR_NOMEM)
        snprintf(msg, msglen, "out of memory");
    if (err) {
        attnimport_free(im);
        free(im);
        return err;
    }
    ((Imported *)k->self)->owned = true;
    return AV_OK;
}

const AttnImport *kind_imported_file(const Kind *k)
{
    return k->cls == &imported_class ? ((const Imported *)k->self)->im : NULL;
}
