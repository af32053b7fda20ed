/* gpt2_logits.c - what a forward's state gives out (core/gpt2.h): the
 * logits of a position, those of any layer's output through the final
 * LayerNorm (the logit lens, every cell of it, a few cells a pass over
 * lm_head), and a sampled next token. The vocabulary is split in two when
 * the state's helper thread is there.
 */
#include "core/gpt2.h"

#include <stdlib.h>

#include "../duo.h"
#include "core/lens.h"
#include "gpt2_fwd.h"
#include "gpt2_kern.h"

/* ---------------------------------------------------------------- logits */

typedef struct {
    const Gpt2Weights *w;
    const float *xf; /* rows of D */
    float *logits;   /* rows of V */
    int rows, v0, v1;
} LogitsPart;

static void logits_job(void *arg)
{
    const LogitsPart *pt = arg;
    const int D = pt->w->cfg.d_model, V = pt->w->cfg.n_vocab;
    gpt2k_dots_rows(pt->rows, pt->v1 - pt->v0, D, pt->w->lm_head + (size_t)pt->v0 * D, D, pt->xf, D,
                    pt->logits + pt->v0, V);
}

/* logits (rows, V) = xf (rows, D) lm_head^T on `threads` threads, the
 * second one h (a state's helper, started by a forward on two threads;
 * none: one). */
static void logits_run(const Gpt2Weights *w, int rows, const float *xf, float *logits, int threads,
                       DuoHelper *h)
{
    const int V = w->cfg.n_vocab, half = threads > 1 ? V / 2 : V;
    LogitsPart part[2] = {{w, xf, logits, rows, 0, half}, {w, xf, logits, rows, half, V}};
    const bool two = threads > 1 && h && duo_helper_post(&h, logits_job, &part[1]) == 0;
    if (!two)
        part[0].v1 = V;
    logits_job(&part[0]);
    if (two)
        duo_helper_wait(h);
}

/* ------------------------------------------------------------- the output */

int gpt2_lens_logits(const Gpt2Weights *w, const Gpt2State *st, int l, int i, float *logits)
{
    const Gpt2Config *c = &w->cfg;
    if (i < 0 || i >= st->n || l < 0 || l > c->n_layer || st->D != c->d_model ||
        st->L != c->n_layer)
        return AV_ERR_CONFIG;
    float xf[AV_MAX_D_MODEL];
    const int D = c->d_model;
    gpt2f_layer_norm(1, D, st->x + ((size_t)i * (c->n_layer + 1) + l) * D, D, w->lnf_g, w->lnf_b,
                     c->ln_eps, xf);
    /* logits (V) = xf (D) lm_head^T (D, V): as many threads as a new position's layers */
    logits_run(w, 1, xf, logits, gpt2f_threads(c, 1, st->threads), st->helper);
    return AV_OK;
}

/* Cells a pass of the lens reads lm_head once for (gpt2k_dots_rows). */
#define LENS_BATCH 6

/* A batch of the lens's cells: their logits (rows V apart) and places. */
typedef struct {
    Lens *ls;
    const float *logits;
    int V, b, l[LENS_BATCH], i[LENS_BATCH];
} LensCells;

/* Each cell's top tokens (lens_set: ids and probs), on the helper while
 * the caller ranks the next tokens (lens_set_next: next, rank, nprob);
 * the two write apart. */
static void lens_tops(void *arg)
{
    const LensCells *c = arg;
    for (int q = 0; q < c->b; q++)
        lens_set(c->ls, c->l[q], c->i[q], c->logits + (size_t)q * c->V, c->V);
}

int gpt2_logits(const Gpt2Weights *w, const Gpt2State *st, int i, float *logits)
{
    return gpt2_lens_logits(w, st, w->cfg.n_layer, i, logits);
}

int gpt2_lens(const Gpt2Weights *w, const Gpt2State *st, Lens *ls, float *logits,
              const atomic_bool *stop)
{
    const int rows = w->cfg.n_layer + 1, n = st->n;
    if (n < 1 || st->D != w->cfg.d_model || st->L != w->cfg.n_layer)
        return AV_ERR_CONFIG;
    /* kept: rows the last forward did not recompute, of the tokens ls holds */
    int keep = ls->rows == rows ? ls->n : 0;
    keep = keep < st->from ? keep : st->from;
    int err = lens_reserve(ls, rows, n);
    if (err) {
        ls->n = 0;
        return err;
    }
    int p = 0;
    while (p < keep && ls->tok[p] == st->ids[p])
        p++;
    /* a kept row's next token must still be the text's (the last one's was none) */
    while (p > 0 && ls->next[p - 1] != (p < n ? st->ids[p] : -1))
        p--;
    const Gpt2Config *c = &w->cfg;
    const int D = c->d_model, V = c->n_vocab, cells = (n - p) * rows;
    /* LENS_BATCH cells at a time (the caller's logits alone when that is
     * all there is room for), each its own gpt2_lens_logits's bits */
    float *many = cells > 1 ? malloc(sizeof *many * (size_t)LENS_BATCH * V) : NULL;
    float *xf = malloc(sizeof *xf * (size_t)LENS_BATCH * D);
    if (!xf) {
        free(many);
        ls->n = 0;
        return AV_ERR_NOMEM;
    }
    const int batch = many ? LENS_BATCH : 1, threads = gpt2f_threads(c, 1, st->threads);
    float *out = many ? many : logits;
    for (int q0 = 0; q0 < cells; q0 += batch) {
        const int b = cells - q0 < batch ? cells - q0 : batch;
        if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
            free(many), free(xf);
            ls->n = p + q0 / rows; /* the positions finished: the next lens keeps them */
            return AV_ERR_STOPPED;
        }
        for (int q = 0; q < b; q++) {
            const int i = p + (q0 + q) / rows, l = (q0 + q) % rows;
            gpt2f_layer_norm(1, D, st->x + ((size_t)i * (c->n_layer + 1) + l) * D, D, w->lnf_g,
                             w->lnf_b, c->ln_eps, xf + (size_t)q * D);
        }
        logits_run(w, b, xf, out, threads, st->helper);
        LensCells cells_b = {ls, out, V, b, {0}, {0}};
        for (int q = 0; q < b; q++)
            cells_b.i[q] = p + (q0 + q) / rows, cells_b.l[q] = (q0 + q) % rows;
        DuoHelper *h = st->helper;
        const bool two = threads > 1 && h && duo_helper_post(&h, lens_tops, &cells_b) == 0;
        if (!two)
            lens_tops(&cells_b);
        for (int q = 0; q < b; q++) {
            const int i = cells_b.i[q];
            lens_set_next(ls, cells_b.l[q], i, out + (size_t)q * V, V,
                          i + 1 < n ? st->ids[i + 1] : -1);
            ls->tok[i] = st->ids[i];
        }
        if (two)
            duo_helper_wait(h);
    }
    free(many), free(xf);
    ls->n = n;
    return AV_OK;
}

int gpt2_next(const Gpt2Weights *w, const int *ids, int n, const Sampling *s, Rng *rng,
              Gpt2State *st, float *logits, int *next)
{
    int err = gpt2_forward(w, ids, n, st);
    if (!err)
        err = gpt2_logits(w, st, n - 1, logits);
    if (!err)
        *next = sample_token(logits, w->cfg.n_vocab, s, rng);
    return err;
}

const char *gpt2_kernel(void)
{
    return gpt2k_kernel();
}
