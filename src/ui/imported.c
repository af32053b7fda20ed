/* imported.c - imported attention in the interface, and the sources the
 * combining views draw (heads combined, rollout, value-weighted norms). Which
 * view is on is the session's (Session.comb: its keys go through
 * session_input by app/combview.h's rules, as the query rows summed (M) and
 * the pages of a layer left do); here is what a view computes once on.
 *
 * The weights come from a base AttnSource: the attention as the kind keeps
 * it (kind_source: an imported file's map), else the kind's run (model_source
 * over iv->base). A combining view wraps the base in a source of combine.h
 * and model_result_import makes the session's res of it (its derive), at
 * each run the view's keys ask for, kept in memory for a short text, read
 * on demand for a long one. Nothing is computed here but what combine.h
 * computes.
 */
#include "imported.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/combview.h"
#include "core/combine.h"
#include "kindkeys.h"
#include "rollout.h"
#include "term.h"

#define IV_DERIVED_BUDGET (16.0 * 1024 * 1024) /* derived weights kept, else on demand */

struct ImportedView {
    bool file;           /* the kind keeps its attention (kind_source): a file */
    ModelResult base;    /* with a combining view on: the kind's run */
    AttnSource base_src; /* kind_source's, or model_source(&base) */
    CombinedHeads ch;
    RolloutSource ro;
    NormsSource ns;
    AttnSource shares; /* ns's rows divided by their sums: comparable with the weights */
    float *fnorm;      /* (L, H, n_k) */
    float *multi_buf;  /* (2, n_k): the summed row and scratch */
    int multi_cap;
};

/* A row of value-weighted norms as shares of the row's sum, so that it reads
 * on the weights' scale (0-100 %) beside them; --dump keeps the raw norms. */
static const float *shares_row(const void *ctx, int l, int h, int i, float *buf)
{
    const NormsSource *ns = ctx;
    const float *row = combine_row(&ns->src, l, h, i, buf);
    double sum = 0;
    for (int j = 0; j < ns->src.n_k; j++)
        sum += row[j];
    for (int j = 0; j < ns->src.n_k; j++)
        buf[j] = sum > 0 ? (float)(row[j] / sum) : 0.0f;
    return buf;
}

/* A bad value found by the check while the interface is up: the terminal
 * restored, one line, the exit status of a bad file. */
static void bad_file(UiState *u, int err, const char *msg)
{
    rollout_stop(&u->iv->ro);
    term_end();
    fprintf(stderr, "attnviz: %s\n", msg);
    exit(av_exit_status(err));
}

static bool imported_run(void *ctx, ModelResult *r, bool causal, int *err);

void imported_start(UiState *u)
{
    struct ImportedView *iv = calloc(1, sizeof *iv);
    if (!iv)
        term_die("out of memory");
    u->iv = iv;
    iv->ro.missing = -1;
    iv->file = kind_source(u->a.ses.kind, &iv->base_src); /* the combining views read every
                                                       head of a row, and the rollout all */
    ModelConfig c = u->a.app.cfg;
    kind_config(u->a.ses.kind, &c);
    u->a.app.cfg.causal = c.causal; /* a large file's layer 0 until its check ends */
    u->a.ses.derive = imported_run, u->a.ses.derive_ctx = u;
}

bool imported_poll(UiState *u, unsigned *pending)
{
    struct ImportedView *iv = u->iv;
    bool redraw = false;
    if (!iv)
        return false;
    char msg[512];
    bool changed;
    int err = kind_poll(u->a.ses.kind, &changed, msg, sizeof msg);
    if (err != KIND_BUSY && err != AV_OK)
        bad_file(u, err, msg);
    if (changed) {
        ModelConfig c = u->a.app.cfg;
        kind_config(u->a.ses.kind, &c);
        if (c.causal != u->a.app.cfg.causal) { /* every layer's, now */
            u->a.app.cfg.causal = c.causal;
            *pending |= APP_RUN;
        }
        kindkeys_start(u);
        redraw = true;
    }
    RolloutSource *ro = &iv->ro;
    if (atomic_load(&ro->failed))
        term_die("out of memory");
    if (ro->async && ro->missing >= 0) {
        rollout_kick(ro); /* a layer wanted while the thread was finishing */
        int done = atomic_load(&ro->done);
        if (done != ro->seen) /* layers drawn blank may be there: a new generation */
            ro->seen = done, *pending |= APP_RUN;
        if (done > ro->missing) {
            ro->missing = -1;
            snprintf(u->a.app.msg, sizeof u->a.app.msg, "showing the rollout of layers 1-%d",
                     u->a.app.layer + 1);
        } else {
            snprintf(u->a.app.msg, sizeof u->a.app.msg, "computing the rollout of layers 1-%d: "
                     "%d of %d layers done (O: back to the weights)", ro->missing + 1, done,
                     ro->missing + 1);
        }
        redraw = true;
    }
    return redraw;
}

/* The kind's run into iv->base with its own number of heads; of a file, its
 * weights in place or read on demand, never a copy (the shown result has it). */
static int run_base(UiState *u, bool causal)
{
    struct ImportedView *iv = u->iv;
    AppState *s = &u->a.app;
    ModelConfig c = s->cfg;
    c.causal = causal;
    c.weights_budget = iv->file ? 1 : u->a.ses.budget;
    c.head_labels = u->a.ses.comb.saved_labels;
    if (comb_one_head(u->a.ses.comb.mode))
        c.H = u->a.ses.comb.saved_H;
    const EditBuf *x = s->cross_on ? &s->cross : NULL;
    int err = kind_run(u->a.ses.kind, &c, s->text.s, s->text.len, x ? x->s : NULL, x ? x->len : 0,
                       &iv->base);
    if (!err && !iv->file)
        model_source(&iv->base, &iv->base_src);
    return err;
}

/* The combining view's source over iv->base_src, or NULL with a message. */
static const AttnSource *derived_source(UiState *u)
{
    struct ImportedView *iv = u->iv;
    const AttnSource *b = &iv->base_src;
    CombMode mode = u->a.ses.comb.mode;
    if (mode == COMB_ROLLOUT) {
        if (b->n_q != b->n_k) {
            snprintf(u->a.app.msg, sizeof u->a.app.msg,
                     "rollout needs self-attention (as many queries as keys)");
            return NULL;
        }
        /* a large file's rollout is never copied whole (IV_DERIVED_BUDGET): it
         * is read a row at a time, and built on a thread */
        bool big = (double)b->L * b->n_q * b->n_k * sizeof(float) > IV_DERIVED_BUDGET &&
                   (double)b->L * b->n_q * b->n_k * sizeof(float) <= ROLLOUT_KEEP;
        rollout_init(&iv->ro, b, iv->file, iv->file && big);
        return &iv->ro.src;
    }
    if (mode == COMB_NORMS) {
        const ModelResult *m = &iv->base;
        int L = m->L, H = m->shape.H, n_k = m->shape.n_k, d = m->shape.d_model;
        for (int l = 0; l < L; l++)
            if (!(model_holds(m, l) & MODEL_HOLDS_VECTORS)) {
                snprintf(u->a.app.msg, sizeof u->a.app.msg,
                         "value norms need the model's V: these weights come without it");
                return NULL;
            }
        iv->fnorm = term_xrealloc(iv->fnorm, sizeof *iv->fnorm * (size_t)L * H * n_k);
        for (int l = 0; l < L; l++)
            if (combine_value_norms(n_k, d, H, m->layer[l].ab.V, kind_out_proj(u->a.ses.kind, l),
                                    iv->fnorm + (size_t)l * H * n_k) != AV_OK)
                term_die("out of memory");
        combine_norms_init(&iv->ns, b, iv->fnorm);
        iv->shares = iv->ns.src;
        iv->shares.row = shares_row, iv->shares.release = NULL, iv->shares.ctx = &iv->ns;
        return &iv->shares;
    }
    combine_heads_free(&iv->ch);
    CombineMode cm = mode == COMB_MEAN  ? COMBINE_MEAN
                     : mode == COMB_MAX ? COMBINE_MAX
                                        : COMBINE_SUM;
    if (combine_heads_init(&iv->ch, b, cm) != AV_OK)
        term_die("out of memory");
    return &iv->ch.src;
}

/* The session's derive (session.h): res made by the combining view on. */
static bool imported_run(void *ctx, ModelResult *r, bool causal, int *err)
{
    UiState *u = ctx;
    struct ImportedView *iv = u->iv;
    if (r != &u->a.ses.res || u->a.ses.comb.mode == COMB_WEIGHTS)
        return false;
    *err = run_base(u, causal);
    if (*err)
        return true;
    const AttnSource *src = derived_source(u);
    if (!src) { /* back to the weights: the plain run */
        comb_set(&u->a.ses.comb, &u->a.app, COMB_WEIGHTS);
        return false;
    }
    const ModelResult *m = &iv->base;
    const TokenList *tq = &m->tokens, *tk = &m->cross_tokens;
    ModelConfig c;
    model_config_import(&c, src->L, src->H, m->shape.causal);
    c.weights_budget = IV_DERIVED_BUDGET;
    c.head_labels = u->a.app.cfg.head_labels;
    *err = model_result_import(r, &c, src, NULL, tq, tk->n ? tk : NULL);
    if (*err == AV_ERR_NOMEM)
        term_die("out of memory");
    return true;
}

void imported_free(UiState *u)
{
    struct ImportedView *iv = u->iv;
    if (!iv)
        return;
    model_result_free(&iv->base);
    combine_heads_free(&iv->ch);
    rollout_clear(&iv->ro);
    free(iv->fnorm);
    free(iv->multi_buf);
    free(iv);
    u->iv = NULL;
}

const float *imported_multi_row(UiState *u, const ModelResult *res, int h, int *n_rows)
{
    struct ImportedView *iv = u->iv;
    const AppState *s = &u->a.app;
    int rows[APP_MAX_MULTI], n = 0, n_k = res->shape.n_k;
    for (int k = 0; iv && k < s->n_multi; k++)
        if (s->multi[k] < res->shape.n_q) /* app_fit_result keeps them within u->a.ses.res */
            rows[n++] = s->multi[k];
    *n_rows = n;
    if (n == 0 || h >= res->shape.H || s->layer >= res->L)
        return NULL;
    if (2 * n_k > iv->multi_cap) {
        iv->multi_cap = 2 * n_k;
        iv->multi_buf = term_xrealloc(iv->multi_buf, sizeof *iv->multi_buf * iv->multi_cap);
    }
    AttnSource src;
    model_source(res, &src);
    combine_rows_sum(&src, u->a.app.layer, h, rows, n, iv->multi_buf + n_k, iv->multi_buf);
    return iv->multi_buf;
}
