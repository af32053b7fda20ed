/* session.c - the weights and the kind that run, and g (session.h).
 *
 * The built-in examples are plain text; seed 001's "Cat eats fish" needs the
 * article's own embeddings and weights (assets/seed001, .npy files), looked
 * for in assets/ of the current folder, then beside the program and up to
 * three folders above it (the source tree of a build folder). The toy
 * weights are rebuilt from the configuration whenever neither an example nor
 * --weights fixes them, and a lesson's page may bring its own.
 */
#include "app/session.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/action.h"
#include "app/setting.h"
#include "app/edit.h"
#include "core/av.h"
#include "core/combine.h"
#include "core/gpt2.h"
#include "core/tokenize.h"
#include "io/assets.h"
#include "io/weights.h"

/* assets/NAME where io/assets.h finds it: the working folder, near the
 * binary, or where `make install` put it. */
static int load_named(const ModelConfig *c, const char *name, ModelWeights *w)
{
    char rel[300], path[4096];
    const char *which;
    snprintf(rel, sizeof rel, "assets/%s", name);
    if (!asset_find(rel, path, sizeof path) || weights_load(c, path, w, &which) != AV_OK) {
        model_weights_free(w);
        return AV_ERR_IO;
    }
    return AV_OK;
}

void session_init(Session *ss, const ModelWeights *fixed, Kind *cli_kind, double budget)
{
    memset(ss, 0, sizeof *ss);
    if (cli_kind && cli_kind->cls->slow)
        cli_kind->background = true;
    ss->fixed = fixed;
    ss->w = fixed ? fixed : &ss->toy;
    ss->cli_kind = cli_kind;
    ss->budget = budget;
    kind_pipeline_open(&ss->pipe, ss->w);
    ss->kind = cli_kind ? cli_kind : &ss->pipe;
    combsrc_init(&ss->src, ss->kind);
}

void session_free(Session *ss)
{
    free(ss->logits);
    combsrc_free(&ss->src);
    model_result_free(&ss->res);
    model_result_free(&ss->res2);
    kind_close(&ss->pipe);
    model_weights_free(&ss->toy);
    model_weights_free(&ss->example);
    memset(ss, 0, sizeof *ss);
}

/* The shown example's weights, --weights, or toy ones from s->cfg. */
static int example_weights(Session *ss, AppState *s)
{
    if (s->example_weights[0]) {
        if (strcmp(ss->example_name, s->example_weights) == 0) {
            ss->w = &ss->example;
            return AV_OK;
        }
        model_weights_free(&ss->example);
        ss->example_name[0] = '\0';
        if (load_named(&s->cfg, s->example_weights, &ss->example) == AV_OK) {
            snprintf(ss->example_name, sizeof ss->example_name, "%s", s->example_weights);
            ss->w = &ss->example;
            return AV_OK;
        }
        snprintf(s->msg, sizeof s->msg,
                 "this example needs assets/%s (the source folder's): "
                 "run attnviz from there",
                 s->example_weights);
        s->cfg = s->cfg_before, s->example_weights[0] = '\0';
    }
    if (ss->fixed) {
        ss->w = ss->fixed;
        return AV_OK;
    }
    model_weights_free(&ss->toy);
    ss->w = &ss->toy;
    /* --model's or --attention's kind runs, not the pipeline: toy weights
     * of its shape (12 d_model^2 a layer) would never be read, and for a
     * GPT-2 they were as large as its layers (lesson_weights makes them
     * when a page runs the pipeline) */
    if (ss->cli_kind && ss->kind == ss->cli_kind)
        return AV_OK;
    return model_weights_toy(&s->cfg, &ss->toy);
}

/* A lesson's page decides the weights: its trained model or its folder's,
 * else toy ones for its settings (whatever the command line or an example
 * set). */
static int lesson_weights(Session *ss, AppState *s, LessonState *ls)
{
    const ModelWeights *lw = lesson_state_weights(ls);
    if (!ls->active && !s->lesson_kept) /* no lesson on screen */
        return AV_OK;
    session_pick_kind(ss, s, ls);
    if (ss->w == lw)
        return AV_OK;
    if (lw) {
        ss->w = lw;
        return AV_OK;
    }
    model_weights_free(&ss->toy);
    ss->w = &ss->toy;
    return model_weights_toy(&s->cfg, &ss->toy);
}

void session_pick_kind(Session *ss, const AppState *s, LessonState *ls)
{
    if (!ls->active && !s->lesson_kept) { /* no lesson on screen: the command line's */
        ss->kind = ss->cli_kind ? ss->cli_kind : &ss->pipe;
        return;
    }
    /* a lesson's page: its trained model, or the pipeline; a kind with no
     * text to change (imported attention) stays */
    Kind *lk = lesson_state_kind(ls);
    if (!ss->cli_kind || !kind_refuses(ss->cli_kind, KIND_ASK_EDIT))
        ss->kind = lk ? lk : &ss->pipe;
}

int session_weights(Session *ss, AppState *s, LessonState *ls)
{
    if (!ls->active && !s->lesson_kept)
        session_pick_kind(ss, s, ls);
    int err = example_weights(ss, s);
    if (!err)
        err = lesson_weights(ss, s, ls);
    kind_pipeline_open(&ss->pipe, ss->w);
    return err;
}

int session_run(Session *ss, AppState *s, ModelResult *r, bool causal, bool outputs)
{
    ModelConfig c = s->cfg;
    c.causal = causal;
    c.weights_budget = ss->budget;
    /* a keystroke on the heatmaps runs up to the weights: P_h V_h and W_o
     * were a third of a long text's run, for numbers no view of them reads */
    c.weights_only = !outputs;
    const EditBuf *x = s->cross_on ? &s->cross : NULL;
    int err = kind_run(ss->kind, &c, s->text.s, s->text.len, x ? x->s : NULL, x ? x->len : 0, r);
    if (err == AV_ERR_VOCAB)
        snprintf(s->msg, sizeof s->msg, "'%s' is not in the model's vocabulary", ss->kind->bad);
    return err;
}

bool session_wants_outputs(const AppState *s, const LessonState *ls)
{
    return (app_view_needs(s) & VIEW_NEEDS_OUTPUTS) || ls->active;
}

bool session_outputs_missing(const Session *ss, const AppState *s, const LessonState *ls)
{
    const ModelResult *r = &ss->res;
    return session_wants_outputs(s, ls) && !ss->run_err && r->shape.n_q > 0 && !r->src && !r->out;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One run into r with the mask as causal says: the combining view's
 * (combsrc_make) when one is on and r is res. */
static int run_one(Session *ss, AppState *s, const LessonState *ls, ModelResult *r, bool causal)
{
    int err;
    if (r == &ss->res && ss->comb.mode != COMB_WEIGHTS &&
        combsrc_make(&ss->src, &ss->comb, ss->kind, s, ss->budget, causal, r, &err))
        return err;
    return session_run(ss, s, r, causal, session_wants_outputs(s, ls));
}

/* Weights with their own input rows (an example's X.npy, or --weights')
 * are for that many tokens. A text of another count keeps the result shown
 * (the view stays) and the line says what to do: true when kept. */
static bool keep_for_rows(Session *ss, AppState *s)
{
    const ModelWeights *w = ss->w;
    if (!w || !w->X || ss->kind != &ss->pipe || s->cross_on || ss->run_err ||
        ss->res.shape.n_q != w->n_x)
        return false;
    TokenList t = {0};
    int err = tokenize(s->text.s, s->text.len, s->cfg.max_tokens, &t);
    int n = t.n;
    tokenize_free(&t);
    if (err || n == 0 || n == w->n_x)
        return false;
    bool more = s->sentences && s->sentences->n > 1;
    snprintf(s->msg, sizeof s->msg, "the weights are for %d tokens, the text has %d: %s%s", w->n_x,
             n, n > w->n_x ? "Backspace" : "type more", more ? ", or n for the next example" : "");
    s->note_shown = false;
    return true;
}

/* The runs of res (and res2) with their errors and generations. */
static int run_results(Session *ss, AppState *s, const LessonState *ls, unsigned flags)
{
    double t0 = now_ms();
    if (keep_for_rows(ss, s))
        return AV_OK;
    int err = run_one(ss, s, ls, &ss->res, s->cfg.causal);
    if (err == AV_ERR_NOMEM)
        return err;
    ss->computing = err == KIND_BUSY; /* on a thread: the last result stands meanwhile */
    /* the selection follows the cursor once the newest text's tokens are there */
    ss->cursor_due = (ss->cursor_due || (flags & APP_CURSOR)) && ss->computing;
    if (!ss->computing) {
        ss->run_err = err;
        ss->run_ms = now_ms() - t0;
        ss->gen = ++ss->gen_clock;
    }
    if (app_view_needs(s) & VIEW_NEEDS_FLIPPED) {
        ss->run_err2 = run_one(ss, s, ls, &ss->res2, !s->cfg.causal);
        ss->gen2 = ++ss->gen_clock;
        if (ss->run_err2 == AV_ERR_NOMEM)
            return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* The selected token: the one at the editor's cursor. */
static void follow_cursor(const Session *ss, AppState *s)
{
    if (ss->run_err || s->n_q == 0)
        return;
    int t = edit_token_at(&ss->res.tokens, s->text.cur);
    s->sel_row = t >= 0 ? t : 0;
}

static void generate_report(Session *ss, AppState *s);

int session_update(Session *ss, AppState *s, LessonState *ls, unsigned flags)
{
    if ((flags & APP_WEIGHTS) && session_weights(ss, s, ls) != AV_OK)
        return AV_ERR_NOMEM;
    /* a cursor move alone changes the selection, not the text: the result
     * stands (a long text's run costs tens of milliseconds) */
    if ((flags & (APP_RUN | APP_WEIGHTS)) && run_results(ss, s, ls, flags) != AV_OK)
        return AV_ERR_NOMEM;
    const ModelResult *r = &ss->res;
    int n_q = ss->run_err ? 0 : r->shape.n_q, n_k = ss->run_err ? 0 : r->shape.n_k;
    /* the one place the result is replaced: every index the state holds is
     * brought within it before the lesson's answer, a view or an export reads it */
    AppFit fit = {ss->run_err ? s->cfg.layers : r->L, ss->run_err ? s->cfg.H : r->shape.H, n_q,
                  n_k};
    app_fit_result(s, &fit);
    lesson_state_after_run(ls, s, r);
    setting_take_tokens(s, &r->tokens);
    if (ss->gen_due && !ss->computing) {
        ss->gen_due = false;
        if (!ss->run_err && n_q > 0)
            generate_report(ss, s);
    }
    if ((flags & APP_CURSOR) && s->mode == MODE_EDIT)
        follow_cursor(ss, s);
    return AV_OK;
}

int session_resume(Session *ss, AppState *s, LessonState *ls)
{
    if (!ss->computing || !session_poll(ss))
        return 0;
    return session_resume_done(ss, s, ls);
}

int session_resume_done(Session *ss, AppState *s, LessonState *ls)
{
    if (!ss->computing)
        return 0;
    bool follow = ss->cursor_due; /* typed meanwhile: the selection follows the cursor */
    int err = session_update(ss, s, ls, APP_RUN); /* the newest text, now cached */
    if (err)
        return err;
    if (follow && !ss->computing)
        follow_cursor(ss, s);
    return 1;
}

/* bytes in B, KiB, MiB or GiB, as the cost line writes them. */
static void bytes_text(double b, char *out, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB"};
    int k = 0;
    while (b >= 1024 && k < 3)
        b /= 1024, k++;
    snprintf(out, len, k ? "%.1f %s" : "%.0f %s", b, units[k]);
}

/* The KV cache after g's run (its bytes a token, from the run): "; KV
 * cache 9 rows, 10.1 KiB (+1.1 KiB)", or "" for a kind without one. */
static void kv_growth(const KindCost *kc, int rows, int added, char *out, size_t len)
{
    out[0] = 0;
    if (!(kc->kv_token > 0))
        return;
    char total[24], grown[24];
    bytes_text(kc->kv_token * rows, total, sizeof total);
    bytes_text(kc->kv_token * (added > 0 ? added : 0), grown, sizeof grown);
    snprintf(out, len, "; KV cache %d rows, %s (+%s)", rows, total, grown);
}

unsigned session_generate(Session *ss, AppState *s, int before, bool *nomem)
{
    char *out;
    size_t cont;
    uint64_t seed = s->cfg.seed * 1000003u + (uint64_t)++ss->generated;
    Kind *k = ss->kind;
    int V = 0, n_ctx = 0;
    *nomem = false;
    ss->gen_due = false;
    int err =
        kind_generate(k, s->text.s, s->text.len, 1, k->temperature, k->top_k, seed, &out, &cont);
    if (err == AV_ERR_NOMEM)
        *nomem = true;
    if (err == AV_ERR_VOCAB)
        snprintf(s->msg, sizeof s->msg,
                 "'%s' is not in the model's vocabulary: nothing to "
                 "continue",
                 k->bad);
    else if (err == AV_ERR_TOO_MANY && kind_vocab(k, &s->cfg, &V, &n_ctx) && n_ctx > 0)
        snprintf(s->msg, sizeof s->msg, "cannot generate: the text fills the model's context of %d",
                 n_ctx);
    else if (err)
        snprintf(s->msg, sizeof s->msg, "cannot generate: %s", av_strerror(err));
    if (!err && !out[cont])
        snprintf(s->msg, sizeof s->msg,
                 "g added nothing: the model sampled the end of the text, or part of a "
                 "character it did not finish");
    if (err || !out[cont]) {
        if (!err)
            free(out);
        return 0;
    }
    edit_set(&s->text, out);
    ss->cached_rows = before, ss->cached_len = s->text.len;
    s->sentence = -1;
    s->sel_row = before; /* the new query row (clamped after the run) */
    /* what the run did is said once it has run (session_generate_report) */
    snprintf(ss->gen_piece, sizeof ss->gen_piece, "%.24s", out + cont);
    ss->gen_before = before, ss->gen_due = true;
    snprintf(s->msg, sizeof s->msg, "+'%s'", ss->gen_piece);
    free(out);
    return APP_RUN;
}

/* After g's run: the rows the run took from the cache and computed, and the
 * tokens the text reads as now (the piece re-read with the text before it
 * may make other tokens than the one sampled). */
static void generate_report(Session *ss, AppState *s)
{
    KindCost kc = {0};
    int n = ss->res.shape.n_q, b = ss->gen_before;
    bool cost = kind_cost(ss->kind, &kc) && kc.computed + kc.cached == n;
    int cached = cost ? kc.cached : b < n ? b : n - 1;
    ss->cached_rows = cached, ss->cached_len = s->text.len;
    char kv[96];
    kv_growth(&kc, n, n - b, kv, sizeof kv);
    if (cached == b && n == b + 1)
        snprintf(s->msg, sizeof s->msg,
                 "+'%s': keys and values of rows 1-%d (·) were cached; only row %d (+) is "
                 "new%s",
                 ss->gen_piece, b, n, kv);
    else if (cached > 0)
        snprintf(s->msg, sizeof s->msg,
                 "+'%s': the text now reads as %d tokens (was %d); rows 1-%d (·) were "
                 "cached, %d-%d (+) computed%s",
                 ss->gen_piece, n, b, cached, cached + 1, n, kv);
    else
        snprintf(s->msg, sizeof s->msg,
                 "+'%s': the text now reads as %d tokens (was %d), all computed%s", ss->gen_piece,
                 n, b, kv);
}

const char *session_error_line(Session *ss, const ModelConfig *c, int err)
{
    int V = 0, n_max = c->max_tokens;
    if (err == AV_ERR_TOO_MANY && c->preset != PRESET_TRAINED) { /* the toy's: the option's */
        snprintf(ss->err_text, sizeof ss->err_text,
                 "the text has more than %d tokens (--max-tokens): shorten it (e edits)",
                 c->max_tokens);
        return ss->err_text;
    }
    if (err == AV_ERR_TOO_MANY && ss->kind && (kind_vocab(ss->kind, c, &V, &n_max) || n_max > 0)) {
        snprintf(ss->err_text, sizeof ss->err_text,
                 "the text has more tokens than this model's limit of %d: shorten it (e edits)",
                 n_max);
        return ss->err_text;
    }
    if (err == AV_ERR_NPY_SHAPE && ss->w && ss->w->X) {
        snprintf(ss->err_text, sizeof ss->err_text,
                 "X.npy has %d rows but the text has %d tokens: give it %d tokens", ss->w->n_x,
                 ss->res.tokens.n, ss->w->n_x);
        return ss->err_text;
    }
    return av_strerror(err);
}

bool session_cross_empty(const Session *ss, const AppState *s)
{
    return ss->run_err == AV_ERR_EMPTY && s->cross_on && ss->res.tokens.n > 0 &&
           ss->res.cross_tokens.n == 0;
}

KindAsk session_ask_of(const AppState *s, Action a, bool typed, bool *pe_view)
{
    *pe_view = false;
    switch (a) {
    case ACT_NONE: return typed ? KIND_ASK_EDIT : KIND_ASK_COUNT;
    case ACT_EDIT: return KIND_ASK_EDIT;
    case ACT_MASK:
    case ACT_CMP_MASK: return KIND_ASK_MASK;
    case ACT_HEADS_DEC:
    case ACT_HEADS_INC:
    case ACT_DMODEL_DEC:
    case ACT_DMODEL_INC:
    case ACT_SEED_DEC:
    case ACT_SEED_INC:
    case ACT_PRESET:
    case ACT_LAYERS_DEC:
    case ACT_LAYERS_INC:
    case ACT_PE: return KIND_ASK_SETTINGS;
    case ACT_SCALE:
    case ACT_TEMP_DOWN:
    case ACT_TEMP_UP: return KIND_ASK_WHATIF;
    case ACT_CROSS:
    case ACT_EDIT_CROSS: return KIND_ASK_CROSS;
    case ACT_SENT_NEXT:
    case ACT_SENT_PREV: return KIND_ASK_EXAMPLES;
    case ACT_GENERATE: return KIND_ASK_GENERATE;
    case ACT_TRACE: return KIND_ASK_TRACE;
    case ACT_VIEW: /* from the heatmaps the next view is the PE view */
        *pe_view = s->view == VIEW_ID_ATTN;
        return KIND_ASK_VIEWS;
    case ACT_HEADS_HELP: return KIND_ASK_HEADS_HELP;
    case ACT_DIMS_NEXT:
    case ACT_DIMS_PREV: return KIND_ASK_DIMS;
    default: return KIND_ASK_COUNT;
    }
}

/* The rows of the multi-selection summed (combine_rows_sum over res), its
 * three largest keys on the status line. */
static int multi_report(const Session *ss, AppState *s)
{
    const ModelResult *r = &ss->res;
    if (s->n_multi == 0) {
        snprintf(s->msg, sizeof s->msg, "no query token selected together (M adds one)");
        return AV_OK;
    }
    int n_k = r->shape.n_k, top[3] = {-1, -1, -1};
    float *buf = malloc(sizeof *buf * (size_t)n_k * 2);
    if (!buf)
        return AV_ERR_NOMEM;
    float *sum = buf + n_k;
    AttnSource src;
    model_source(r, &src);
    combine_rows_sum(&src, s->layer, s->head, s->multi, s->n_multi, buf, sum);
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < n_k; j++)
            if ((k == 0 || j != top[0]) && (k < 2 || j != top[1]) &&
                (top[k] < 0 || sum[j] > sum[top[k]]))
                top[k] = j;
    const TokenList *keys = model_key_tokens(r);
    int n = snprintf(s->msg, sizeof s->msg, "%d quer%s summed:", s->n_multi,
                     s->n_multi == 1 ? "y" : "ies");
    for (int k = 0; k < 3 && k < n_k && n < (int)sizeof s->msg; k++)
        n += snprintf(s->msg + n, sizeof s->msg - n, " %.24s %.2f", keys->tok[top[k]].str,
                      (double)sum[top[k]]);
    free(buf);
    return AV_OK;
}

/* M: the selected query token in or out of the multi-selection. */
static int multi_toggle(const Session *ss, AppState *s)
{
    int row = s->sel_row, k = 0;
    if (row < 0 || row >= s->n_q)
        return AV_OK;
    while (k < s->n_multi && s->multi[k] != row)
        k++;
    if (k < s->n_multi)
        s->multi[k] = s->multi[--s->n_multi];
    else if (s->n_multi < APP_MAX_MULTI)
        s->multi[s->n_multi++] = row;
    return multi_report(ss, s);
}

/* What the kind refuses (its reason in s->msg) and g on a kind that
 * generates: session_input's, 1 when taken. */
static int kind_input(Session *ss, AppState *s, Action a, bool typed, unsigned *flags)
{
    bool pe_view;
    KindAsk ask = s->mode == MODE_EDIT ? KIND_ASK_COUNT : session_ask_of(s, a, typed, &pe_view);
    if (ask == KIND_ASK_COUNT)
        return 0;
    const char *why = kind_refuses(ss->kind, ask);
    if (!why && pe_view)
        why = kind_refuses(ss->kind, KIND_ASK_PE_VIEW);
    if (why) {
        snprintf(s->msg, sizeof s->msg, "%s", why);
        return 1;
    }
    if (ask != KIND_ASK_GENERATE || !kind_generates(ss->kind))
        return 0;
    bool nomem;
    *flags |= session_generate(ss, s, ss->run_err ? 0 : s->n_q, &nomem);
    return nomem ? AV_ERR_NOMEM : 1;
}

int session_input(Session *ss, AppState *s, Action a, bool typed, unsigned *flags)
{
    if (s->layer != ss->layer_seen) { /* a file drops the pages of the layer left */
        kind_release(ss->kind, ss->layer_seen);
        ss->layer_seen = s->layer;
    }
    if (a == ACT_MULTI_ROW) /* reads the result: what the rows summed give */
        return multi_toggle(ss, s) == AV_OK ? 1 : AV_ERR_NOMEM;
    int taken = kind_input(ss, s, a, typed, flags);
    return taken ? taken : comb_input(&ss->comb, ss->kind, s, a, typed, flags);
}

bool session_poll(Session *ss)
{
    bool changed;
    char msg[8];
    return kind_poll(ss->kind, &changed, msg, sizeof msg) != KIND_BUSY;
}

/* The kind's logits at pos into ss->logits, grown until the vocabulary
 * fits (a kind writes at most the room it is given). */
static int predict_logits(Session *ss, const AppState *s, int pos, int *V)
{
    for (;;) {
        if (!ss->logits) {
            int cap = ss->logits_cap ? 2 * ss->logits_cap : 65536;
            if (!(ss->logits = malloc(sizeof *ss->logits * (size_t)cap)))
                return AV_ERR_NOMEM;
            ss->logits_cap = cap;
        }
        int err = kind_logits(ss->kind, s->text.s, s->text.len, pos, ss->logits, ss->logits_cap, V);
        if (err || *V < ss->logits_cap || ss->logits_cap >= (1 << 24))
            return err;
        free(ss->logits);
        ss->logits = NULL;
    }
}

int session_predict(Session *ss, const AppState *s, int pos, int k, SessionPredict *p)
{
    p->n = 0, p->pos = pos, p->V = 0;
    if (!kind_has_logits(ss->kind) || pos < 0)
        return pos < 0 ? AV_ERR_CONFIG : AV_OK;
    k = k < SESSION_PREDICT_MAX ? k : SESSION_PREDICT_MAX;
    int V, err = predict_logits(ss, s, pos, &V);
    if (err)
        return err;
    int n = sample_top_k(ss->logits, V, 1.0f, k, p->id, p->prob);
    for (int t = 0; t < n; t++)
        kind_token_text(ss->kind, p->id[t], p->text[t], sizeof p->text[t]);
    p->n = n, p->V = V;
    return AV_OK;
}

bool session_predict_fresh(const Session *ss, const AppState *s)
{
    return ss->pred_gen == ss->gen && ss->pred.pos == s->sel_row;
}

int session_predict_update(Session *ss, const AppState *s)
{
    if (session_predict_fresh(ss, s))
        return 0;
    int row = s->sel_row;
    ss->pred_gen = ss->gen;
    ss->pred_err = session_predict(ss, s, row, SESSION_PREDICT_MAX, &ss->pred);
    ss->pred.pos = row;
    return ss->pred_err == AV_ERR_NOMEM ? AV_ERR_NOMEM : 1;
}
