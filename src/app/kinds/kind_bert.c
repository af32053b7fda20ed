/* kind_bert.c - the kind of a pretrained BERT-family encoder (BERT,
 * DistilBERT, MiniLM) read from a Hugging Face folder: io/hfbert.h maps its
 * weights, io/hfwordpiece.h reads its WordPiece vocabulary, core/bert.h runs
 * it. BERT was trained without the causal mask: attention looks both ways,
 * so every key is a whole forward (nothing to cache), and the mask key runs
 * the causal mask as a labelled what-if. A typed [SEP] makes a sentence pair
 * (token types 0, then 1); a typed [MASK] is the mask token. With the
 * masked-LM head the predictions are the fill-ins of the selected token
 * (masked first when it is not [MASK]). A model too big to be live runs its
 * forward, and the fill-in of a token it masks, on threads (bertjob.c)
 * where the caller polls. It refuses
 * attnviz's own settings, examples, cross-attention and generation.
 */
#include "app/kind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bertjob.h"
#include "core/av.h"
#include "core/bert.h"
#include "core/wordpiece.h"
#include "io/dump.h"
#include "io/fileio.h"
#include "io/hfbert.h"
#include "io/hfcache.h"
#include "io/hfwordpiece.h"
#include "io/npy.h"

typedef struct {
    HfBert hf;
    WordPiece wp;
    BertState st;   /* the run the views show */
    BertState fill; /* the fill-in run: the selected token masked */
    WpEncoding enc;
    TokenList tokens;
    int *ids, *types; /* (cap) the text's ids and token types */
    int cap;
    float *o_t;             /* (L, D, D): each layer's o_w transposed, head h's rows at h d_k */
    const char **labels;    /* L H head labels, each "learned" */
    char name[HF_ID_MAX];   /* the repo id or the folder's last part, for the status line */
    char about[96];         /* ModelConfig.about */
    char about_causal[128]; /* ... with the causal mask's what-if (m) */
    KindCost cost;
    BertJob job;     /* the forward off the key path (Kind.background) */
    BertJob filljob; /* ... and the fill-in of a token masked (into fill) */
} BertKind;

/* Bytes of the layers' weights above which a key's forward is not live: a
 * BERT streams them all on every key (bert-base 340 MB, MiniLM-L6 42 MB). */
#define BERT_LIVE_BYTES 200e6

static BertKind *self_of(const Kind *k)
{
    return k->self;
}

static const char *family(const BertKind *g)
{
    return g->hf.distil ? "DistilBERT" : "BERT";
}

/* text[0..len) as ids and types in g (g->enc the pieces). Returns AV_OK,
 * AV_ERR_EMPTY (no token between [CLS] and [SEP]), AV_ERR_UTF8,
 * AV_ERR_TOO_MANY (past the model's positions) or AV_ERR_NOMEM. */
static int encode(BertKind *g, const char *text, size_t len)
{
    int err = wp_encode(&g->wp, text, len, g->hf.w.cfg.n_pos, &g->enc);
    if (err)
        return err;
    if (g->enc.n <= 2)
        return AV_ERR_EMPTY;
    if (g->enc.n > g->cap) {
        int *ids = realloc(g->ids, sizeof *ids * (size_t)g->enc.n);
        if (ids)
            g->ids = ids;
        int *types = ids ? realloc(g->types, sizeof *types * (size_t)g->enc.n) : NULL;
        if (!ids || !types)
            return AV_ERR_NOMEM;
        g->types = types, g->cap = g->enc.n;
    }
    bool pair = g->enc.second >= 0 && g->hf.w.cfg.n_types > 1;
    for (int i = 0; i < g->enc.n; i++)
        g->ids[i] = g->enc.piece[i].id, g->types[i] = pair && i >= g->enc.second;
    return AV_OK;
}

/* Whether st holds the run of ids and types[0..n) under causal. */
static bool same_run(const BertState *st, const int *ids, const int *types, int n, bool causal)
{
    return st->n == n && st->causal == causal &&
           memcmp(st->ids, ids, sizeof *ids * (size_t)n) == 0 &&
           memcmp(st->types, types, sizeof *types * (size_t)n) == 0;
}

static int forward(BertKind *g, BertState *st, const int *ids, const int *types, int n, bool causal)
{
    if (same_run(st, ids, types, n, causal))
        return AV_OK;
    int err = bert_forward(&g->hf.w, ids, types, n, causal, st);
    if (!err && st == &g->st) {
        double f = bert_flops(&g->hf.w.cfg, n);
        g->cost = (KindCost){.flops = f, .whole = f, .computed = n};
    }
    return err;
}

static int bert_kind_run(Kind *k, const ModelConfig *c, const char *text, size_t len,
                         const char *cross, size_t cross_len, ModelResult *r)
{
    (void)cross_len;
    BertKind *g = self_of(k);
    int err = cross ? AV_ERR_CONFIG : encode(g, text, len);
    if (!err && k->background &&
        (bertjob_busy(&g->job) || !same_run(&g->st, g->ids, g->types, g->enc.n, c->causal)))
        return bertjob_start(&g->job, &g->hf.w, &g->st, g->ids, g->types, g->enc.n,
                             c->causal); /* r stands until the newest text is done */
    r->shape.n_q = 0;
    if (!err)
        err = forward(g, &g->st, g->ids, g->types, g->enc.n, c->causal);
    if (!err)
        err = wp_token_list(&g->wp, &g->enc, &g->tokens);
    if (!err)
        err = bert_result_fill(&g->hf.w, &g->st, c, &g->tokens, r);
    return err;
}

static const char *bert_kind_refuses(const Kind *k, KindAsk ask)
{
    (void)k;
    switch (ask) {
    case KIND_ASK_SETTINGS:
        return "BERT fixes its heads, sizes, weights and positions (m, s and t: a what-if)";
    case KIND_ASK_CROSS:
        return "BERT attends over its own tokens: type [SEP] between two sentences for a pair";
    case KIND_ASK_EXAMPLES: return "the examples set attnviz's own heads: type a text (e)";
    case KIND_ASK_GENERATE:
        return "BERT fills in a [MASK] rather than continuing a text: type [MASK] in it";
    case KIND_ASK_PE_VIEW: return "BERT learned its positions: the PE view draws sinusoidal ones";
    case KIND_ASK_HEADS_HELP: return "BERT's heads were learned, not built: see what each does";
    case KIND_ASK_LENS:
        return "BERT fills in a [MASK] rather than predicting the next token; the logit lens "
               "reads a next-token model (GPT-2, or a trained text, grammar or task model)";
    default: return NULL; /* the mask, scaling and temperature are what-ifs */
    }
}

/* Off the key path (Kind.background): the fill-in of position pos of the
 * text in g (its token masked) from the thread into out: the thread's
 * logits when they are this text's, else KIND_BUSY with the fill-in
 * started or on its way (a newer one replaces a waiting one). */
static int fill_background(BertKind *g, int pos, int mask, float *out, int cap, int *V)
{
    const BertWeights *w = &g->hf.w;
    const int n = g->enc.n, keep = g->ids[pos];
    bool joined;
    int err = bertjob_poll(&g->filljob, &joined); /* the thread's own end, joined here */
    g->ids[pos] = mask;
    const float *logits = NULL;
    if (err != KIND_BUSY)
        err = bertjob_fill(&g->filljob, g->ids, g->types, n, pos, &logits);
    if (err == KIND_BUSY && !bertjob_fill_pending(&g->filljob, g->ids, g->types, n, pos))
        err = bertjob_start_fill(&g->filljob, w, &g->fill, g->ids, g->types, n, pos);
    g->ids[pos] = keep;
    if (logits) {
        *V = w->cfg.n_vocab < cap ? w->cfg.n_vocab : cap;
        memcpy(out, logits, sizeof *out * (size_t)*V);
    }
    return err;
}

/* The masked-LM logits of position pos (< 0: the last word before [SEP])
 * with the token there replaced by [MASK]: what BERT would fill in.
 * A slow model's fill-in of a token that is not a typed [MASK] runs on a
 * thread (fill_background): keys are never blocked by it. */
static int bert_kind_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap,
                            int *V)
{
    BertKind *g = self_of(k);
    const BertWeights *w = &g->hf.w;
    if (bertjob_busy(&g->job))
        return KIND_BUSY;
    int err = encode(g, text, len);
    if (err)
        return err;
    int n = g->enc.n, mask = g->wp.special[WP_MASK];
    if (pos < 0)
        pos = n - 2;
    if (pos >= n || mask < 0)
        return AV_ERR_CONFIG;
    /* a typed [MASK] of the run on screen: its forward is the fill-in's */
    bool typed = g->ids[pos] == mask && same_run(&g->st, g->ids, g->types, n, false);
    if (!typed && k->background)
        return fill_background(g, pos, mask, out, cap, V);
    BertState *st = typed ? &g->st : &g->fill;
    if (!typed)
        bertjob_free(&g->filljob); /* fill is the thread's until it ends (background was on) */
    int keep = g->ids[pos];
    g->ids[pos] = mask;
    err = forward(g, st, g->ids, g->types, n, false);
    g->ids[pos] = keep;
    float *logits = err ? NULL : malloc(sizeof *logits * (size_t)w->cfg.n_vocab);
    if (!err && !logits)
        err = AV_ERR_NOMEM;
    if (!err)
        err = bert_mlm_logits(w, st, pos, 1, logits);
    if (!err) {
        *V = w->cfg.n_vocab < cap ? w->cfg.n_vocab : cap;
        memcpy(out, logits, sizeof *out * (size_t)*V);
    }
    free(logits);
    return err;
}

static void bert_kind_config(const Kind *k, ModelConfig *c)
{
    ModelConfig m;
    bert_model_config(&self_of(k)->hf.w.cfg, &m);
    m.keep_scores = c->keep_scores, m.weights_budget = c->weights_budget;
    m.weights_only = c->weights_only;
    m.scale = c->scale, m.temperature = c->temperature, m.causal = c->causal; /* what-ifs */
    m.head_labels = self_of(k)->labels;
    /* never "bidirectional" beside "mask causal" */
    m.about = c->causal ? self_of(k)->about_causal : self_of(k)->about;
    *c = m;
}

static void bert_kind_token_text(const Kind *k, int id, char *out, size_t len)
{
    size_t n;
    const char *t = wp_token(&self_of(k)->wp, id, &n);
    if (!t)
        snprintf(out, len, "#%d", id);
    else
        snprintf(out, len, "%.*s", (int)(n > 32 ? 32 : n), t);
}

/* Its sizes, d_k, the mask and (wide) "learned positions" where attnviz's
 * own show seed and PE; first the what-if: the causal mask BERT was trained
 * without, scaling or temperature unlike the model's. */
static void bert_kind_status(const Kind *k, const ModelConfig *c, bool wide, bool dk_hidden,
                             char *out, size_t len)
{
    const BertKind *g = self_of(k);
    const BertConfig *w = &g->hf.w.cfg;
    const char *sep = wide ? " | " : "  ";
    char whatif[112] = "", scaling[48];
    if (c->causal)
        snprintf(whatif, sizeof whatif, " what-if: causal mask (%s was trained without it)%s",
                 family(g), wide ? " |" : " ");
    else if (kind_scaling_whatif(c, scaling, sizeof scaling), scaling[0])
        snprintf(whatif, sizeof whatif, " what-if: %s%s", scaling, wide ? " |" : " ");
    int used = snprintf(out, len, "%s%s%s%d layers x %d heads%sd_model %d", family(g), whatif,
                        whatif[0] ? " " : sep, w->n_layer, w->n_head, sep, w->d_model);
    if (used < 0 || (size_t)used >= len)
        return;
    /* d_k and the mask always (README: the status line shows them); a
     * narrow screen leaves "learned positions" to the wide one and the help */
    char dk[16] = "?";
    if (!dk_hidden)
        snprintf(dk, sizeof dk, "%d", w->d_model / w->n_head);
    snprintf(out + used, len - (size_t)used, "%sd_k %s%s%s%s", sep, dk, sep,
             wide ? "learned positions | " : "", c->causal ? "causal" : "bidirectional");
}

static bool bert_kind_cost(const Kind *k, KindCost *cost)
{
    *cost = self_of(k)->cost;
    return true;
}

/* Forms 0 to 2: "BERT 'b': 12 layers x 12 heads, d_model 768, 110M
 * parameters, bidirectional, masked-LM head: fill-ins", "... 110M params,
 * bidirectional, MLM fill-ins", "BERT 'b': 12 x 12 heads, d_model 768,
 * 110M params, MLM fill-ins" (bidirectional is on the status line). */
static void bert_kind_describe(const Kind *k, int form, int name_w, char *msg, size_t len)
{
    const BertKind *g = self_of(k);
    const BertWeights *w = &g->hf.w;
    double p = bert_param_count(w); /* a small random checkpoint has thousands */
    bool big = p >= 1e6, mlm = bert_has_mlm(w);
    const int L = w->cfg.n_layer, H = w->cfg.n_head, D = w->cfg.d_model;
    const double shown = big ? p / 1e6 : p / 1e3;
    const char *unit = big ? "M" : "K";
    char name[HF_ID_MAX + 4];
    kind_short_name(g->name, name_w, name, sizeof name);
    if (form >= 2)
        snprintf(msg, len, "%s '%s': %d x %d heads, d_model %d, %.0f%s params%s", family(g), name,
                 L, H, D, shown, unit, mlm ? ", MLM fill-ins" : "");
    else if (form == 1)
        snprintf(msg, len,
                 "%s '%s': %d layers x %d heads, d_model %d, %.0f%s params, "
                 "bidirectional%s",
                 family(g), name, L, H, D, shown, unit, mlm ? ", MLM fill-ins" : "");
    else
        snprintf(msg, len,
                 "%s '%s': %d layers x %d heads, d_model %d, %.0f%s parameters, bidirectional%s",
                 family(g), name, L, H, D, shown, unit, mlm ? ", masked-LM head: fill-ins" : "");
}

/* tokens.txt: each token's vocabulary string a line ("[CLS]", "##ing"),
 * \n, \t and \\ escaped. */
static int write_tokens(const BertKind *g, const char *path)
{
    size_t cap = 1, used = 0;
    for (int i = 0; i < g->st.n; i++) {
        size_t n;
        wp_token(&g->wp, g->st.ids[i], &n);
        cap += 2 * n + 1;
    }
    char *buf = malloc(cap);
    if (!buf)
        return AV_ERR_NOMEM;
    for (int i = 0; i < g->st.n; i++) {
        size_t n;
        const char *t = wp_token(&g->wp, g->st.ids[i], &n);
        for (size_t b = 0; b < n; b++) {
            char c = t[b], e = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\\' ? '\\' : 0;
            if (e)
                buf[used++] = '\\', buf[used++] = e;
            else
                buf[used++] = c;
        }
        buf[used++] = '\n';
    }
    int err = file_write_atomic(path, buf, used, false);
    free(buf);
    return err;
}

/* ids.npy and, with the head, mlm_logits.npy (n, V) of the run in g->st. */
static int dump_ids_mlm(const BertKind *g, const char *dir, const char **which)
{
    const BertWeights *w = &g->hf.w;
    char path[4096];
    size_t n = (size_t)g->st.n, V = (size_t)w->cfg.n_vocab, shape[2] = {n, V};
    snprintf(path, sizeof path, "%s/ids.npy", dir);
    *which = "ids.npy";
    int err = npy_write_int32(path, 1, shape, g->st.ids);
    if (err || !bert_has_mlm(w))
        return err;
    *which = "mlm_logits.npy";
    float *mlm = malloc(sizeof *mlm * n * V);
    err = mlm ? bert_mlm_logits(w, &g->st, 0, g->st.n, mlm) : AV_ERR_NOMEM;
    snprintf(path, sizeof path, "%s/mlm_logits.npy", dir);
    if (!err)
        err = npy_write(path, 2, shape, mlm);
    free(mlm);
    return err;
}

/* DESIGN.md's --dump of a BERT: what dump_write writes of the result,
 * norms.npy, tokens.txt (the vocabulary's strings), ids.npy and, with the
 * masked-LM head, mlm_logits.npy (n, V). */
static int bert_kind_dump(const Kind *k, const char *dir, const ModelResult *r,
                          const ModelConfig *c, const char **which)
{
    BertKind *g = self_of(k);
    bertjob_free(&g->job); /* the state is the thread's until it ends */
    int err = dump_write(dir, r, c, which);
    const float *Wo[AV_MAX_LAYERS];
    const int L = g->hf.w.cfg.n_layer, D = g->hf.w.cfg.d_model;
    for (int l = 0; l < L; l++)
        Wo[l] = g->o_t + (size_t)l * D * D;
    if (!err)
        err = dump_write_norms(dir, r, Wo, which);
    char path[4096];
    snprintf(path, sizeof path, "%s/tokens.txt", dir);
    if (!err && (err = write_tokens(g, path)) != AV_OK)
        *which = "tokens.txt";
    return err ? err : dump_ids_mlm(g, dir, which);
}

/* ids[0..n) as they stand, token types 0 (the head scores' probes): each
 * token's text is its vocabulary string, spans one after another. */
static int bert_kind_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r)
{
    BertKind *g = self_of(k);
    bertjob_free(&g->job); /* the state is the thread's until it ends */
    r->shape.n_q = 0;
    if (n < 1 || n > g->hf.w.cfg.n_pos)
        return AV_ERR_CONFIG;
    WpPiece *pc = g->enc.cap >= n ? g->enc.piece : realloc(g->enc.piece, sizeof *pc * (size_t)n);
    if (!pc)
        return AV_ERR_NOMEM;
    g->enc.piece = pc, g->enc.cap = g->enc.cap > n ? g->enc.cap : n;
    int *zeros = calloc((size_t)n, sizeof *zeros);
    if (!zeros)
        return AV_ERR_NOMEM;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t len;
        wp_token(&g->wp, ids[i], &len);
        g->enc.piece[i] = (WpPiece){.id = ids[i], .start = at, .len = len};
        at += len + 1;
    }
    g->enc.n = n, g->enc.second = -1;
    int err = forward(g, &g->st, ids, zeros, n, c->causal);
    if (!err)
        err = wp_token_list(&g->wp, &g->enc, &g->tokens);
    if (!err)
        err = bert_result_fill(&g->hf.w, &g->st, c, &g->tokens, r);
    free(zeros);
    return err;
}

static void bert_kind_vocab(const Kind *k, const ModelConfig *c, int *V, int *n_max)
{
    (void)c;
    const BertKind *g = self_of(k);
    *V = g->hf.w.cfg.n_vocab < g->wp.n_vocab ? g->hf.w.cfg.n_vocab : g->wp.n_vocab;
    *n_max = g->hf.w.cfg.n_pos;
}

static void bert_kind_wrap(const Kind *k, int *cls, int *sep)
{
    const BertKind *g = self_of(k);
    *cls = g->wp.special[WP_CLS], *sep = g->wp.special[WP_SEP];
}

static const float *bert_kind_out_proj(const Kind *k, int l)
{
    const BertKind *g = self_of(k);
    return g->o_t + (size_t)l * g->hf.w.cfg.d_model * g->hf.w.cfg.d_model;
}

/* The thread's forward: joined here, the next text started; *changed when
 * the newest one is done (the caller runs it again: the same run, kept). */
static int bert_kind_poll(Kind *k, bool *changed, char *msg, size_t len)
{
    (void)msg, (void)len;
    BertKind *g = self_of(k);
    int err = bertjob_poll(&g->job, changed);
    if (*changed && !g->job.err) {
        double f = bert_flops(&g->hf.w.cfg, g->st.n);
        g->cost = (KindCost){.flops = f, .whole = f, .computed = g->st.n, .ms = g->job.ms};
    }
    return err; /* a failed forward: the run again computes it and says why */
}

static void bert_kind_close(Kind *k)
{
    BertKind *g = k->self;
    if (!g)
        return;
    bertjob_free(&g->job);
    bertjob_free(&g->filljob);
    bert_state_free(&g->st);
    bert_state_free(&g->fill);
    wp_encoding_free(&g->enc);
    tokenize_free(&g->tokens);
    wp_free(&g->wp);
    hfbert_close(&g->hf);
    free(g->ids), free(g->types), free(g->o_t), free(g->labels);
    free(g);
}

#define BERT_METHODS                                                                               \
    .name = "bert", .run = bert_kind_run, .refuses = bert_kind_refuses,                            \
    .token_text = bert_kind_token_text, .status = bert_kind_status, .cost = bert_kind_cost,        \
    .config = bert_kind_config, .describe = bert_kind_describe, .dump = bert_kind_dump,            \
    .close = bert_kind_close, .run_ids = bert_kind_run_ids, .vocab = bert_kind_vocab,              \
    .out_proj = bert_kind_out_proj, .poll = bert_kind_poll, .wrap = bert_kind_wrap

/* with the masked-LM head: the predictions are its fill-ins */
#define BERT_MLM .logits = bert_kind_logits, .predict_title = "Fill-in for"
static const KindClass bert_mlm_class = {BERT_METHODS, BERT_MLM};
static const KindClass bert_class = {BERT_METHODS};
/* too big to be live: computed off the key path where the caller polls */
static const KindClass bert_mlm_slow_class = {BERT_METHODS, BERT_MLM, .slow = true};
static const KindClass bert_slow_class = {BERT_METHODS, .slow = true};

/* Each layer's o_w (out, in) transposed into g->o_t: W_O of the row-vector
 * convention (out = concat W_O), head h's rows at h d_k. */
static int transpose_outputs(BertKind *g)
{
    const int L = g->hf.w.cfg.n_layer, D = g->hf.w.cfg.d_model;
    g->o_t = malloc(sizeof *g->o_t * (size_t)L * D * D);
    if (!g->o_t)
        return AV_ERR_NOMEM;
    for (int l = 0; l < L; l++) {
        const float *o = g->hf.w.layer[l].o_w;
        float *t = g->o_t + (size_t)l * D * D;
        for (int r = 0; r < D; r++)
            for (int c = 0; c < D; c++)
                t[(size_t)c * D + r] = o[(size_t)r * D + c];
    }
    return AV_OK;
}

static int load_rest(BertKind *g, const char *dir, char *why, size_t whylen)
{
    int err = hfwp_read_dir(g->hf.dir, &g->wp, why, whylen);
    if (!err && g->wp.n_vocab > g->hf.w.cfg.n_vocab) {
        snprintf(why, whylen, "%s: the vocabulary has %d tokens, config.json's model %d", dir,
                 g->wp.n_vocab, g->hf.w.cfg.n_vocab);
        err = AV_ERR_MODEL;
    }
    if (!err)
        err = transpose_outputs(g);
    int heads = err ? 0 : g->hf.w.cfg.n_layer * g->hf.w.cfg.n_head;
    if (!err && !(g->labels = malloc(sizeof *g->labels * (size_t)heads)))
        err = AV_ERR_NOMEM;
    for (int i = 0; i < heads; i++)
        g->labels[i] = "learned";
    return err;
}

int kind_bert_load(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                   size_t whylen)
{
    BertKind *g = calloc(1, sizeof *g);
    if (!g)
        return AV_ERR_NOMEM;
    *k = (Kind){.cls = &bert_class, .self = g, .temperature = 1.0f};
    int err = hfbert_open(dir, &g->hf, progress, ctx, why, whylen);
    if (!err)
        err = load_rest(g, dir, why, whylen);
    if (err) {
        bert_kind_close(k);
        *k = (Kind){0};
        return err;
    }
    const BertConfig *c = &g->hf.w.cfg;
    const double D = c->d_model, bytes = 4 * c->n_layer * (4 * D * D + 2 * D * c->d_ff);
    bool mlm = bert_has_mlm(&g->hf.w) && g->wp.special[WP_MASK] >= 0;
    bool slow = bytes > BERT_LIVE_BYTES;
    k->cls = mlm ? (slow ? &bert_mlm_slow_class : &bert_mlm_class)
                 : (slow ? &bert_slow_class : &bert_class);
    snprintf(g->about, sizeof g->about, "%s, %d layers x %d heads, learned PE, bidirectional",
             family(g), c->n_layer, c->n_head);
    snprintf(g->about_causal, sizeof g->about_causal,
             "%s, %d layers x %d heads, learned PE, trained bidirectional, what-if: causal mask",
             family(g), c->n_layer, c->n_head);
    hfcache_display_name(dir, g->name, sizeof g->name);
    return AV_OK;
}

bool kind_bert_folder(const char *dir)
{
    return hfbert_is_folder(dir);
}

const BertConfig *kind_bert_config(const Kind *k)
{
    const KindClass *c = k->cls;
    bool bert = c == &bert_class || c == &bert_mlm_class || c == &bert_slow_class ||
                c == &bert_mlm_slow_class;
    return bert ? &self_of(k)->hf.w.cfg : NULL;
}
