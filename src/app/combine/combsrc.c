/* combsrc.c - the combining views' sources and the result made of them
 * (combsrc.h), moved from the interface (src/ui/imported.c) so that the
 * session makes res itself, with no call back up.
 */
#include "app/combsrc.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CS_DERIVED_BUDGET (16.0 * 1024 * 1024) /* derived weights kept, else on demand */

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

void combsrc_init(CombSrc *cs, const Kind *k)
{
    memset(cs, 0, sizeof *cs);
    cs->ro.missing = -1;
    atomic_store(&cs->ro.want, -1);
    cs->file = kind_source(k, &cs->base_src);
}

/* The kind's run into cs->base with its own number of heads; of a file, its
 * weights in place or read on demand, never a copy (the shown result has it). */
static int run_base(CombSrc *cs, const CombView *cv, Kind *k, const AppState *s, double budget,
                    bool causal)
{
    ModelConfig c = s->cfg;
    c.causal = causal;
    c.weights_budget = cs->file ? 1 : budget;
    c.head_labels = cv->saved_labels;
    if (comb_one_head(cv->mode))
        c.H = cv->saved_H;
    const EditBuf *x = s->cross_on ? &s->cross : NULL;
    int err = kind_run(k, &c, s->text.s, s->text.len, x ? x->s : NULL, x ? x->len : 0, &cs->base);
    if (!err && !cs->file)
        model_source(&cs->base, &cs->base_src);
    return err;
}

/* The rollout over the base, or NULL with its reason in s->msg. */
static const AttnSource *rollout_source(CombSrc *cs, AppState *s)
{
    const AttnSource *b = &cs->base_src;
    if (b->n_q != b->n_k) {
        snprintf(s->msg, sizeof s->msg, "rollout needs self-attention (as many queries as keys)");
        return NULL;
    }
    /* a large file's rollout is never copied whole (CS_DERIVED_BUDGET): it
     * is read a row at a time, and built on a thread */
    double bytes = (double)b->L * b->n_q * b->n_k * sizeof(float);
    bool big = bytes > CS_DERIVED_BUDGET && bytes <= ROLLOUT_KEEP;
    rollout_init(&cs->ro, b, cs->file, cs->file && big);
    return &cs->ro.src;
}

/* The value-weighted norms over the base as row shares, NULL with its
 * reason in s->msg, or NULL with *err AV_ERR_NOMEM. */
static const AttnSource *norms_source(CombSrc *cs, const Kind *k, AppState *s, int *err)
{
    const ModelResult *m = &cs->base;
    int L = m->L, H = m->shape.H, n_k = m->shape.n_k, d = m->shape.d_model;
    /* the kind may have changed under the view (a lesson's page opening a
     * trained model): it must still give V and W_O, or back to the weights */
    const char *no = comb_refuses(COMB_NORMS, k, s);
    for (int l = 0; !no && l < L; l++)
        if (!(model_holds(m, l) & MODEL_HOLDS_VECTORS) || !kind_out_proj(k, l))
            no = "value norms need the model's V and W_O: these weights come without them";
    if (no) {
        snprintf(s->msg, sizeof s->msg, "%s", no);
        return NULL;
    }
    float *fn = realloc(cs->fnorm, sizeof *fn * (size_t)L * H * n_k);
    if (!fn) {
        *err = AV_ERR_NOMEM;
        return NULL;
    }
    cs->fnorm = fn;
    for (int l = 0; l < L; l++)
        if (combine_value_norms(n_k, d, H, m->layer[l].ab.V, kind_out_proj(k, l),
                                cs->fnorm + (size_t)l * H * n_k) != AV_OK) {
            *err = AV_ERR_NOMEM;
            return NULL;
        }
    combine_norms_init(&cs->ns, &cs->base_src, cs->fnorm);
    cs->shares = cs->ns.src;
    cs->shares.row = shares_row, cs->shares.release = NULL, cs->shares.ctx = &cs->ns;
    return &cs->shares;
}

/* The combining view's source over cs->base_src, or NULL: refused (the
 * reason in s->msg) or, with *err set, out of memory. */
static const AttnSource *derived_source(CombSrc *cs, CombMode mode, const Kind *k, AppState *s,
                                        int *err)
{
    if (mode == COMB_ROLLOUT)
        return rollout_source(cs, s);
    if (mode == COMB_NORMS)
        return norms_source(cs, k, s, err);
    if (mode == COMB_SINK) {
        sink_source_init(&cs->sink, &cs->base_src);
        return &cs->sink.src;
    }
    combine_heads_free(&cs->ch);
    CombineMode cm = mode == COMB_MEAN  ? COMBINE_MEAN
                     : mode == COMB_MAX ? COMBINE_MAX
                                        : COMBINE_SUM;
    if (combine_heads_init(&cs->ch, &cs->base_src, cm) != AV_OK) {
        *err = AV_ERR_NOMEM;
        return NULL;
    }
    return &cs->ch.src;
}

bool combsrc_make(CombSrc *cs, CombView *cv, Kind *k, AppState *s, double budget, bool causal,
                  ModelResult *r, int *err)
{
    if (cv->mode == COMB_WEIGHTS)
        return false;
    *err = run_base(cs, cv, k, s, budget, causal);
    if (*err)
        return true;
    const AttnSource *src = derived_source(cs, cv->mode, k, s, err);
    if (*err)
        return true;
    if (!src) { /* back to the weights: the plain run */
        comb_set(cv, s, COMB_WEIGHTS);
        return false;
    }
    const ModelResult *m = &cs->base;
    const TokenList *tq = &m->tokens, *tk = &m->cross_tokens;
    ModelConfig c;
    model_config_import(&c, src->L, src->H, m->shape.causal);
    c.weights_budget = CS_DERIVED_BUDGET;
    c.head_labels = s->cfg.head_labels;
    *err = model_result_import(r, &c, src, NULL, tq, tk->n ? tk : NULL);
    if (!*err) /* the text the combined weights came from */
        *err = model_result_set_text(r, m->text, m->text ? strlen(m->text) : 0, m->cross_text,
                                     m->cross_text ? strlen(m->cross_text) : 0);
    return true;
}

int combsrc_poll(CombSrc *cs, AppState *s, unsigned *pending)
{
    RolloutSource *ro = &cs->ro;
    int failed = atomic_load(&ro->failed);
    if (failed)
        return -failed;
    if (!ro->async || ro->missing < 0)
        return 0;
    rollout_kick(ro); /* a layer wanted while the thread was finishing */
    int done = atomic_load(&ro->done);
    if (done != ro->seen) /* layers drawn blank may be there: a new generation */
        ro->seen = done, *pending |= APP_RUN;
    if (done > ro->missing) {
        ro->missing = -1;
        snprintf(s->msg, sizeof s->msg, "showing the rollout of layers 1-%d", s->layer + 1);
    } else {
        snprintf(s->msg, sizeof s->msg,
                 "computing the rollout of layers 1-%d: "
                 "%d of %d layers done (O: back to the weights)",
                 ro->missing + 1, done, ro->missing + 1);
    }
    return 1;
}

const float *combsrc_multi_row(CombSrc *cs, const AppState *s, const ModelResult *res, int h,
                               int *n_rows)
{
    int rows[APP_MAX_MULTI], n = 0, n_k = res->shape.n_k;
    for (int k = 0; k < s->n_multi; k++)
        if (s->multi[k] < res->shape.n_q) /* app_fit_result keeps them within the result */
            rows[n++] = s->multi[k];
    *n_rows = n;
    if (n == 0 || h >= res->shape.H || s->layer >= res->L)
        return NULL;
    if (2 * n_k > cs->multi_cap) {
        float *b = realloc(cs->multi_buf, sizeof *b * (size_t)(2 * n_k));
        if (!b) {
            *n_rows = -1;
            return NULL;
        }
        cs->multi_buf = b, cs->multi_cap = 2 * n_k;
    }
    AttnSource src;
    model_source(res, &src);
    combine_rows_sum(&src, s->layer, h, rows, n, cs->multi_buf + n_k, cs->multi_buf);
    return cs->multi_buf;
}

void combsrc_stop(CombSrc *cs)
{
    rollout_stop(&cs->ro);
}

void combsrc_free(CombSrc *cs)
{
    model_result_free(&cs->base);
    combine_heads_free(&cs->ch);
    rollout_clear(&cs->ro);
    free(cs->fnorm);
    free(cs->multi_buf);
    memset(cs, 0, sizeof *cs);
}
