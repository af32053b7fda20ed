/* kind_gpt2.c - the kind of a real pretrained GPT-2 read from a Hugging Face
 * folder (--model DIR holding config.json): io/hfmodel.h maps its weights,
 * io/hfvocab.h reads its byte-level BPE, core/gpt2.h runs it with a KV cache,
 * so a key typed at the end of a sentence recomputes only the new tokens.
 * The model was trained causal on its own tokens and sizes: it refuses the
 * mask off, cross-attention, attnviz's own settings and examples; scaling and
 * temperature stay open as a labelled what-if; it generates.
 */
#include "app/kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/gpt2job.h"
#include "gpt2dump.h"
#include "gpt2start.h"
#include "core/av.h"
#include "core/bpe.h"
#include "core/gpt2.h"
#include "core/rng.h"
#include "core/utf8.h"
#include "io/hfcache.h"
#include "io/hfmodel.h"
#include "io/hfvocab.h"

typedef struct {
    HfModel hf;
    Bpe bpe;
    Gpt2State st;
    BpeEncoding enc;
    TokenList tokens;
    int *ids;
    int ids_cap;
    float *logits;        /* (V): the last position's, after a run */
    const char **labels;  /* L H head labels, each "learned" */
    char name[HF_ID_MAX]; /* the repo id or the folder's last part, for the status line */
    char about[96];       /* ModelConfig.about: what the exports' titles say it is */
    KindCost cost;        /* the last run's */
    Gpt2Job job;          /* the forward off the key path (Kind.background) */
    Lens lens;            /* the job's lens of the state (Kind.background) */
} Gpt2Kind;

/* Bytes of weights above which a key's forward is not live: what one new
 * token streams, every layer's matrices and the unembedding (gpt2 streams
 * about 494 MB, gpt2-medium 1.4 GB). */
#define GPT2_LIVE_BYTES 600e6

static Gpt2Kind *self_of(const Kind *k)
{
    return k->self;
}

static const Gpt2Weights *weights_of(const Kind *k)
{
    return &self_of(k)->hf.w;
}

/* The piece text[at..at+n) into bad, widened to whole characters: a
 * byte-level piece may be part of one. */
static void bad_piece(const char *text, size_t len, size_t at, size_t n, char *bad, size_t cap)
{
    size_t end = at + (n ? n : 1);
    while (at > 0 && ((unsigned char)text[at] & 0xC0) == 0x80)
        at--;
    while (end < len && ((unsigned char)text[end] & 0xC0) == 0x80)
        end++;
    snprintf(bad, cap, "%.*s", (int)(end - at), text + at);
}

/* text[0..len) as GPT-2's ids in g->ids (g->enc the pieces). Returns AV_OK,
 * AV_ERR_EMPTY, AV_ERR_UTF8, AV_ERR_TOO_MANY (past the model's context) or
 * AV_ERR_NOMEM. */
static int encode(Kind *k, const char *text, size_t len, int extra)
{
    Gpt2Kind *g = self_of(k);
    int ctx = g->hf.w.cfg.n_ctx;
    int err = bpe_encode(&g->bpe, text, len, ctx, &g->enc);
    if (err)
        return err;
    if (g->enc.n == 0)
        return AV_ERR_EMPTY;
    if (g->enc.n + extra > g->ids_cap) {
        int cap = g->enc.n + extra;
        int *ids = realloc(g->ids, sizeof *ids * (size_t)cap);
        if (!ids)
            return AV_ERR_NOMEM;
        g->ids = ids, g->ids_cap = cap;
    }
    /* vocab.json may hold tokens the model has no row for (attnviz's own
     * models written as GPT-2: io/hfwrite.h); a text that needs one holds a
     * character the model never saw */
    for (int i = 0; i < g->enc.n; i++)
        if ((g->ids[i] = g->enc.piece[i].id) >= g->hf.w.cfg.n_vocab) {
            bad_piece(text, len, g->enc.piece[i].start, g->enc.piece[i].len, k->bad, sizeof k->bad);
            return AV_ERR_VOCAB;
        }
    return AV_OK;
}

static void note_cost(Gpt2Kind *g, int from, double ms)
{
    const Gpt2Config *cfg = &g->hf.w.cfg;
    g->cost = (KindCost){.flops = gpt2_flops(cfg, from, g->st.n),
                         .whole = gpt2_flops(cfg, 0, g->st.n),
                         .computed = g->st.n - from,
                         .cached = from,
                         .ms = ms,
                         .kv_token = model_kv_bytes(cfg->n_layer, cfg->d_model, 1),
                         .kv_now = model_kv_bytes(cfg->n_layer, cfg->d_model, g->st.n),
                         .kv_context = model_kv_bytes(cfg->n_layer, cfg->d_model, cfg->n_ctx)};
}

/* Whether g->ids[0..enc.n) are the state's: a run fills the result alone. */
static bool all_cached(const Gpt2Kind *g)
{
    return g->st.n == g->enc.n && memcmp(g->st.ids, g->ids, sizeof *g->ids * (size_t)g->enc.n) == 0;
}

/* Whether the state is the key path's: no job runs, or the one running was
 * only the logit lens of an interface's GPT-2 that runs on the key path
 * (lens_background), now stopped: a stopped lens keeps the positions it
 * finished and goes on from them when the lens view asks again, so the
 * predictions and g need not wait seconds for a long text's lens. */
static bool lens_stopped(Kind *k)
{
    Gpt2Kind *g = self_of(k);
    if (!gpt2job_busy(&g->job))
        return true;
    if (k->background)
        return false; /* the forward itself is the thread's */
    gpt2job_free(&g->job);
    return true;
}

static int gpt2_kind_run(Kind *k, const ModelConfig *c, const char *text, size_t len,
                         const char *cross, size_t cross_len, ModelResult *r)
{
    (void)cross_len;
    Gpt2Kind *g = self_of(k);
    int err = cross || !c->causal ? AV_ERR_CONFIG : encode(k, text, len, 0);
    if (!err && k->background && (gpt2job_busy(&g->job) || !all_cached(g))) {
        if (!gpt2job_busy(&g->job))
            g->st.weights_budget = c->weights_budget;
        return gpt2job_start(&g->job, &g->hf.w, &g->st, g->ids, g->enc.n); /* r stands */
    }
    r->shape.n_q = 0;
    if (!err) {
        lens_stopped(k); /* a lens on the thread (lens_background) */
        g->st.weights_budget = c->weights_budget;
        err = gpt2_forward(&g->hf.w, g->ids, g->enc.n, &g->st);
    }
    /* a run that computed nothing over the same positions (the same text
     * again: a what-if, the views' second look) keeps the cost of the
     * forward that made them; on a thread, the thread's stands */
    const bool again = g->st.from == g->st.n && g->cost.computed + g->cost.cached == g->st.n;
    if (!err && !(k->background && g->st.from == g->st.n) && !again)
        note_cost(g, g->st.from, 0);
    if (!err)
        err = bpe_token_list(text, &g->enc, &g->tokens);
    if (!err)
        err = gpt2_result_fill(&g->hf.w, &g->st, c, &g->tokens, r);
    return err;
}

/* The decoded bytes of ids[0..n) appended to out[0..*len): whole UTF-8,
 * as the caller keeps only ids that decode to whole characters. */
static int append_decoded(const Bpe *b, const int *ids, int n, char **out, size_t *len)
{
    size_t need = bpe_decode(b, ids, n, NULL, 0);
    if (need == (size_t)-1)
        return AV_ERR_CONFIG;
    char *s = realloc(*out, *len + need + 1);
    if (!s)
        return AV_ERR_NOMEM;
    bpe_decode(b, ids, n, s + *len, need);
    *len += need;
    s[*len] = 0;
    *out = s;
    return AV_OK;
}

/* Whether the bytes of ids[0..n) are whole UTF-8 (no character cut or
 * broken). */
static bool whole_utf8(const Bpe *b, const int *ids, int n)
{
    size_t need = bpe_decode(b, ids, n, NULL, 0);
    if (need == (size_t)-1)
        return true;
    char *tmp = malloc(need + 1);
    if (!tmp)
        return true;
    bpe_decode(b, ids, n, tmp, need);
    bool ok = utf8_valid_prefix(tmp, need) == need;
    free(tmp);
    return ok;
}

/* Ids the tokenizer cannot write (a vocabulary padded past it, or a
 * tokenizer smaller than the model's) given no chance of being sampled. */
static void mask_unwritable(const Bpe *b, float *logits, int V)
{
    for (int v = 0; v < V; v++)
        if (v >= b->n_vocab || b->len[v] == 0)
            logits[v] = -INFINITY;
}

static int gpt2_kind_generate(Kind *k, const char *text, size_t len, int count, float temperature,
                              int top_k, uint64_t seed, char **out, size_t *cont)
{
    Gpt2Kind *g = self_of(k);
    const Gpt2Weights *w = &g->hf.w;
    if (!lens_stopped(k))
        return KIND_BUSY;
    /* up to 3 tokens more finish a character the last one began */
    int err = encode(k, text, len, count + 3);
    if (err)
        return err;
    int n0 = g->enc.n, n = n0, limit = w->cfg.n_ctx;
    if (n0 >= limit)
        return AV_ERR_TOO_MANY; /* the text fills the context: no row for a token */
    Sampling smp = {.temperature = temperature, .top_k = top_k};
    Rng rng;
    rng_seed(&rng, seed);
    for (int t = 0; n < limit; t++) {
        if (t >= count && (t >= count + 3 || whole_utf8(&g->bpe, g->ids + n0, n - n0)))
            break;
        err = gpt2_forward(w, g->ids, n, &g->st);
        if (!err)
            err = gpt2_logits(w, &g->st, n - 1, g->logits);
        if (err)
            return err;
        mask_unwritable(&g->bpe, g->logits, w->cfg.n_vocab);
        int next = sample_token(g->logits, w->cfg.n_vocab, &smp, &rng);
        if (next == g->bpe.eot)
            break;
        g->ids[n++] = next;
    }
    /* the tokens that make whole characters: the bytes of one the model
     * did not finish are not text it wrote (no '?' stands in for them) */
    while (n > n0 && !whole_utf8(&g->bpe, g->ids + n0, n - n0))
        n--;
    char *s = malloc(len + 1);
    if (!s)
        return AV_ERR_NOMEM;
    memcpy(s, text, len);
    s[len] = 0;
    size_t slen = len;
    err = append_decoded(&g->bpe, g->ids + n0, n - n0, &s, &slen);
    if (err) {
        free(s);
        return err;
    }
    *out = s, *cont = len;
    return AV_OK;
}

static const char *gpt2_kind_refuses(const Kind *k, KindAsk ask)
{
    if (ask == KIND_ASK_GENERATE && k->background && gpt2job_busy(&self_of(k)->job))
        return "computing\u2026: g waits until the model has run";
    switch (ask) {
    case KIND_ASK_MASK: return "GPT-2 was trained causal: the mask stays on";
    case KIND_ASK_SETTINGS:
        return "GPT-2 fixes its heads, sizes, weights and positions (s and t: a what-if)";
    case KIND_ASK_WHATIF: return NULL; /* gpt2_result_fill recomputes the weights */
    case KIND_ASK_CROSS: return "GPT-2 attends over its own tokens: no cross-attention";
    case KIND_ASK_EXAMPLES: return "the examples set attnviz's own heads: type a text (e)";
    case KIND_ASK_PE_VIEW:
        return "GPT-2 learned its positions (wpe): the PE view draws sinusoidal ones";
    case KIND_ASK_HEADS_HELP: return "GPT-2's heads were learned, not built: see what each does";
    default: return NULL;
    }
}

/* The cache makes this cheap after a run of the same text: only the
 * unembedding of one position (V D multiply-adds) is computed. */
static int gpt2_kind_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap,
                            int *V)
{
    Gpt2Kind *g = self_of(k);
    if (!lens_stopped(k))
        return KIND_BUSY;
    int err = encode(k, text, len, 0);
    if (!err && pos >= g->enc.n)
        err = AV_ERR_CONFIG;
    if (!err)
        err = gpt2_forward(&g->hf.w, g->ids, g->enc.n, &g->st);
    if (!err)
        err = gpt2_logits(&g->hf.w, &g->st, pos < 0 ? g->enc.n - 1 : pos, g->logits);
    if (err)
        return err;
    int nv = g->hf.w.cfg.n_vocab;
    *V = nv < cap ? nv : cap;
    memcpy(out, g->logits, sizeof *out * (size_t)*V);
    return AV_OK;
}

/* Whether the kind's own lens (the job's) is that of the state's tokens. */
static bool lens_current(const Gpt2Kind *g)
{
    return g->lens.n == g->st.n && g->lens.rows == g->hf.w.cfg.n_layer + 1 &&
           memcmp(g->lens.tok, g->st.ids, sizeof *g->ids * (size_t)g->st.n) == 0;
}

/* After a run of the same text the forward is cached and gpt2_lens
 * keeps the rows ls holds: only new positions cost (L + 1) unembeddings.
 * Off the key path (Kind.background, or lens_background for the lens
 * alone) the job computes them into the kind's own lens, copied into ls
 * once it is the text's. */
static int gpt2_kind_lens(Kind *k, const char *text, size_t len, Lens *ls)
{
    Gpt2Kind *g = self_of(k);
    if (gpt2job_busy(&g->job))
        return KIND_BUSY;
    int err = encode(k, text, len, 0);
    if (!err && (k->background || k->lens_background)) {
        if (all_cached(g) && lens_current(g))
            return lens_copy(ls, &g->lens);
        /* on the key path the forward is the caller's: the thread only reads */
        if (!k->background && !all_cached(g))
            err = gpt2_forward(&g->hf.w, g->ids, g->enc.n, &g->st);
        return err ? err
                   : gpt2job_start_lens(&g->job, &g->hf.w, &g->st, g->ids, g->enc.n, k->background,
                                        &g->lens, g->logits);
    }
    if (!err)
        err = gpt2_forward(&g->hf.w, g->ids, g->enc.n, &g->st);
    return err ? err : gpt2_lens(&g->hf.w, &g->st, ls, g->logits, NULL);
}

static void gpt2_kind_config(const Kind *k, ModelConfig *c)
{
    ModelConfig m;
    gpt2_model_config(&weights_of(k)->cfg, &m);
    m.keep_scores = c->keep_scores, m.weights_budget = c->weights_budget;
    m.weights_only = c->weights_only;
    m.scale = c->scale, m.temperature = c->temperature; /* the what-if */
    m.head_labels = self_of(k)->labels;
    m.about = self_of(k)->about;
    *c = m;
}

static void gpt2_kind_token_text(const Kind *k, int id, char *out, size_t len)
{
    size_t n;
    const char *t = bpe_token(&self_of(k)->bpe, id, &n);
    if (!t) {
        snprintf(out, len, "#%d", id);
        return;
    }
    if (n > 32)
        n = 32; /* a row of the predictions, not the whole of a long token */
    char buf[BPE_DISPLAY_MAX(32)];
    bpe_display(t, n, buf);
    snprintf(out, len, "%s", buf);
}

/* Its sizes, d_k, the mask and (wide) "learned positions" where attnviz's
 * own show seed and PE; first the what-if when scaling or temperature
 * differ from the model's. */
static void gpt2_kind_status(const Kind *k, const ModelConfig *c, bool wide, bool dk_hidden,
                             char *out, size_t len)
{
    const Gpt2Config *w = &weights_of(k)->cfg;
    const char *sep = wide ? " | " : "  ";
    char whatif[64] = "", scaling[48];
    kind_scaling_whatif(c, scaling, sizeof scaling);
    if (scaling[0])
        snprintf(whatif, sizeof whatif, " what-if: %s%s", scaling, wide ? " |" : " ");
    int used = snprintf(out, len, "GPT-2%s%s%d layers x %d heads%sd_model %d", whatif,
                        whatif[0] ? " " : sep, w->n_layer, w->n_head, sep, w->d_model);
    if (used < 0 || (size_t)used >= len)
        return;
    /* d_k and the mask always (README: the status line shows them); a
     * narrow screen leaves "learned positions" to the wide one and the help */
    char dk[16] = "?";
    if (!dk_hidden)
        snprintf(dk, sizeof dk, "%d", w->d_model / w->n_head);
    snprintf(out + used, len - (size_t)used, "%sd_k %s%s%scausal", sep, dk, sep,
             wide ? "learned positions | " : "");
}

static bool gpt2_kind_cost(const Kind *k, KindCost *cost)
{
    *cost = self_of(k)->cost;
    return true;
}

/* Forms 0 to 2: "GPT-2 'gpt2': 12 layers x 12 heads, d_model 768, 124M
 * parameters, causal", "... 124M params, causal", "GPT-2 'gpt2': 12 x 12
 * heads, d_model 768, 124M params". */
static void gpt2_kind_describe(const Kind *k, int form, int name_w, char *msg, size_t len)
{
    const Gpt2Weights *w = weights_of(k);
    double p = gpt2_param_count(w); /* attnviz's own models saved as GPT-2 have thousands */
    bool big = p >= 1e6;
    char name[HF_ID_MAX + 4];
    kind_short_name(self_of(k)->name, name_w, name, sizeof name);
    const int L = w->cfg.n_layer, H = w->cfg.n_head, D = w->cfg.d_model;
    if (form >= 2)
        snprintf(msg, len, "GPT-2 '%s': %d x %d heads, d_model %d, %.0f%s params", name, L, H, D,
                 big ? p / 1e6 : p / 1e3, big ? "M" : "K");
    else
        snprintf(msg, len, "GPT-2 '%s': %d layers x %d heads, d_model %d, %.0f%s %s, causal", name,
                 L, H, D, big ? p / 1e6 : p / 1e3, big ? "M" : "K", form ? "params" : "parameters");
}

/* DESIGN.md's --dump of a GPT-2 model (gpt2dump.h), of the state's run. */
static int gpt2_kind_dump(const Kind *k, const char *dir, const ModelResult *r,
                          const ModelConfig *c, const char **which)
{
    Gpt2Kind *g = self_of(k);
    gpt2job_free(&g->job); /* the state is the thread's until it ends */
    return gpt2dump_write(dir, r, c, &g->hf.w, &g->bpe, &g->st, g->logits, which);
}

/* ids[0..n) as they stand (the head scores' probes: random tokens whose
 * text would not always tokenise back to them): the tokens are the ids'
 * own bytes, one after another. The probe runs on a state, an encoding and
 * tokens of its own: the text's KV cache (g->st, g->ids, g->enc) is left as
 * it was, so the text's next run computes only what changed. */
static int gpt2_kind_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r)
{
    Gpt2Kind *g = self_of(k);
    gpt2job_free(&g->job); /* the state is the thread's until it ends */
    r->shape.n_q = 0;
    if (!c->causal || n < 1 || n > g->hf.w.cfg.n_ctx)
        return AV_ERR_CONFIG;
    size_t need = bpe_decode(&g->bpe, ids, n, NULL, 0);
    if (need == (size_t)-1)
        return AV_ERR_CONFIG;
    char *text = malloc(need + 1);
    BpeEncoding enc = {.piece = malloc(sizeof *enc.piece * (size_t)n), .cap = n, .n = n};
    TokenList tokens = {0};
    Gpt2State st;
    gpt2_state_init(&st);
    int err = text && enc.piece ? AV_OK : AV_ERR_NOMEM;
    if (!err) {
        bpe_decode(&g->bpe, ids, n, text, need);
        size_t at = 0;
        for (int i = 0; i < n; i++) {
            size_t len = bpe_decode(&g->bpe, ids + i, 1, NULL, 0);
            enc.piece[i] = (BpePiece){.id = ids[i], .start = at, .len = len};
            at += len;
        }
        st.weights_budget = c->weights_budget;
        err = gpt2_forward(&g->hf.w, ids, n, &st);
    }
    if (!err)
        err = bpe_token_list(text, &enc, &tokens);
    if (!err)
        err = gpt2_result_fill(&g->hf.w, &st, c, &tokens, r);
    gpt2_state_free(&st);
    tokenize_free(&tokens);
    bpe_encoding_free(&enc);
    free(text);
    return err;
}

/* Every id but <|endoftext|> (the last when it is there), up to the
 * context. */
static void gpt2_kind_vocab(const Kind *k, const ModelConfig *c, int *V, int *n_max)
{
    (void)c;
    const Gpt2Kind *g = self_of(k);
    int nv = g->hf.w.cfg.n_vocab < g->bpe.n_vocab ? g->hf.w.cfg.n_vocab : g->bpe.n_vocab;
    *V = g->bpe.eot == nv - 1 ? nv - 1 : nv, *n_max = g->hf.w.cfg.n_ctx;
}

/* The thread's forward: joined here, the next text started; *changed when
 * the newest one is done (the caller runs it again, from the cache). */
static int gpt2_kind_poll(Kind *k, bool *changed, char *msg, size_t len)
{
    (void)msg, (void)len;
    Gpt2Kind *g = self_of(k);
    int err = gpt2job_poll(&g->job, changed);
    /* a lens's job over a cached forward computed no row, and the lens
     * alone (the key path ran the forward and noted its cost) none of its
     * own: the cost stands */
    if (*changed && !g->job.err && g->job.forward && !(g->job.lens && g->job.from == g->st.n))
        note_cost(g, g->job.from, g->job.ms);
    return err; /* a failed forward: the run again computes it and says why */
}

static void gpt2_kind_close(Kind *k)
{
    Gpt2Kind *g = k->self;
    if (!g)
        return;
    gpt2job_free(&g->job);
    lens_free(&g->lens);
    gpt2_state_free(&g->st);
    bpe_encoding_free(&g->enc);
    tokenize_free(&g->tokens);
    bpe_free(&g->bpe);
    hfmodel_close(&g->hf);
    free(g->ids);
    free(g->logits);
    free(g->labels);
    free(g);
}

static const float *gpt2_kind_out_proj(const Kind *k, int l)
{
    return self_of(k)->hf.w.layer[l].proj_w;
}

#define GPT2_METHODS                                                                               \
    .name = "gpt2", .run = gpt2_kind_run, .generate = gpt2_kind_generate,                          \
    .refuses = gpt2_kind_refuses, .logits = gpt2_kind_logits, .lens = gpt2_kind_lens,              \
    .token_text = gpt2_kind_token_text, .status = gpt2_kind_status, .cost = gpt2_kind_cost,        \
    .config = gpt2_kind_config, .describe = gpt2_kind_describe, .poll = gpt2_kind_poll,            \
    .dump = gpt2_kind_dump, .close = gpt2_kind_close, .run_ids = gpt2_kind_run_ids,                \
    .vocab = gpt2_kind_vocab, .out_proj = gpt2_kind_out_proj, .temperature_samples = true,         \
    .causal_only = true

/* A model attnviz trained (config.json names its task): it opens on a text
 * of its own, and the command line asks for a TEXT rather than giving it the
 * built-in example, which is outside its vocabulary and context. */
static char *gpt2_kind_start_text(const Kind *k)
{
    const Gpt2Kind *g = self_of(k);
    return gpt2start_text(&g->bpe, &g->hf.w.cfg, &g->hf.origin);
}

static const KindClass gpt2_class = {GPT2_METHODS};
/* too big to be live: computed off the key path where the caller polls */
static const KindClass gpt2_slow_class = {GPT2_METHODS, .slow = true};
static const KindClass gpt2_own_class = {GPT2_METHODS, .start_text = gpt2_kind_start_text};
static const KindClass gpt2_own_slow_class = {GPT2_METHODS, .start_text = gpt2_kind_start_text,
                                              .slow = true};

/* Bytes of weights a new token's forward and its logits stream. */
static double streamed_bytes(const Gpt2Config *c)
{
    double D = c->d_model, layer = 4 * D * D + 2 * D * c->d_ff;
    return 4 * (c->n_layer * layer + (double)c->n_vocab * D);
}

int kind_gpt2_load(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                   size_t whylen)
{
    Gpt2Kind *g = calloc(1, sizeof *g);
    if (!g)
        return AV_ERR_NOMEM;
    *k = (Kind){.cls = &gpt2_class, .self = g, .temperature = 1.0f};
    int err = hfmodel_open(dir, &g->hf, progress, ctx, why, whylen);
    if (!err)
        err = hfvocab_read_dir(dir, &g->bpe, why, whylen);
    if (!err && !(g->logits = malloc(sizeof *g->logits * (size_t)g->hf.w.cfg.n_vocab)))
        err = AV_ERR_NOMEM;
    if (!err)
        err = gpt2_check(&g->hf.w);
    int heads = err ? 0 : g->hf.w.cfg.n_layer * g->hf.w.cfg.n_head;
    if (!err && !(g->labels = malloc(sizeof *g->labels * (size_t)heads)))
        err = AV_ERR_NOMEM;
    for (int i = 0; i < heads && g->labels; i++) /* whole in a small tile; GPT-2 is said */
        g->labels[i] = "learned";                /* by the status line and exports */
    if (err) {
        gpt2_kind_close(k);
        *k = (Kind){0};
        return err;
    }
    gpt2_state_init(&g->st);
    snprintf(g->about, sizeof g->about, "GPT-2, %d layers x %d heads, learned PE",
             g->hf.w.cfg.n_layer, g->hf.w.cfg.n_head);
    bool own = g->hf.origin.task[0] != '\0';
    if (streamed_bytes(&g->hf.w.cfg) > GPT2_LIVE_BYTES)
        k->cls = own ? &gpt2_own_slow_class : &gpt2_slow_class;
    else if (own)
        k->cls = &gpt2_own_class;
    hfcache_display_name(dir, g->name, sizeof g->name);
    return AV_OK;
}

bool kind_gpt2_folder(const char *dir)
{
    size_t n = strlen(dir) + 16;
    char *p = malloc(n);
    if (!p)
        return false;
    /* access, not open: opening a FIFO would wait for a writer */
    snprintf(p, n, "%s/model.json", dir);
    bool own = access(p, R_OK) == 0;
    snprintf(p, n, "%s/config.json", dir);
    bool hf = !own && access(p, R_OK) == 0;
    free(p);
    return hf;
}

const Gpt2Config *kind_gpt2_config(const Kind *k)
{
    bool gpt2 = k->cls == &gpt2_class || k->cls == &gpt2_slow_class || k->cls == &gpt2_own_class ||
                k->cls == &gpt2_own_slow_class;
    return gpt2 ? &weights_of(k)->cfg : NULL;
}
