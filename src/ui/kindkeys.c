/* kindkeys.c - the interface on a trained model: g continues the sentence by
 * one sampled token (the articles' decoder, one step at a time), and the
 * settings a trained model fixes say so instead of changing.
 */
#include "kindkeys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/edit.h"
#include "app/modelrun.h"
#include "term.h"

void trained_start(UiState *u)
{
    const NetModel *m = u->src.net;
    snprintf(u->app.msg, sizeof u->app.msg, "trained '%s' model, causal, context %d%s",
             m->net.spec.task, m->net.spec.context,
             netresult_generates(m) ? ": g generates the next token" : "");
}

/* g: sample the next token and grow the sentence by it. */
static unsigned generate(UiState *u)
{
    AppState *s = &u->app;
    char *out;
    size_t cont;
    int before = u->run_err ? 0 : s->n_q;
    uint64_t seed = s->cfg.seed * 1000003u + (uint64_t)++u->generated;
    const NetModel *m = u->src.net;
    int err = modelrun_next(&u->src, s->text.s, s->text.len, m->sample_temperature,
                            m->sample_top_k, seed, &out, &cont);
    if (err == AV_ERR_NOMEM)
        term_die("out of memory");
    if (err == AV_ERR_VOCAB) {
        snprintf(s->msg, sizeof s->msg, "'%s' is not in the model's vocabulary: nothing to "
                 "continue", u->src.bad);
        return 0;
    }
    if (err) {
        snprintf(s->msg, sizeof s->msg, "cannot generate: %s", av_strerror(err));
        return 0;
    }
    edit_set(&s->text, out);
    u->cached_rows = before, u->cached_len = s->text.len;
    s->sentence = -1;
    s->sel_row = before; /* the new query row (clamped after the run) */
    snprintf(s->msg, sizeof s->msg, "+'%.24s': keys and values of rows 1-%d (·) were "
             "cached; only row %d (+) is new", out + cont, before, before + 1);
    free(out);
    return APP_RUN;
}

bool trained_handle(UiState *u, const UiInput *in, unsigned *pending)
{
    AppState *s = &u->app;
    const char *why = NULL;
    if (in->action == ACT_NONE || s->mode == MODE_EDIT)
        return false;
    switch (in->action) {
    case ACT_GENERATE:
        if (!netresult_generates(u->src.net)) {
            why = "g continues text and grammar models; this one was trained on a task";
            break;
        }
        *pending |= generate(u);
        return true;
    case ACT_MASK: case ACT_CMP_MASK:
        why = "this model was trained causal: the mask stays on";
        break;
    case ACT_HEADS_DEC: case ACT_HEADS_INC: case ACT_DMODEL_DEC: case ACT_DMODEL_INC:
    case ACT_SEED_DEC: case ACT_SEED_INC: case ACT_PRESET: case ACT_LAYERS_DEC:
    case ACT_LAYERS_INC: case ACT_PE: case ACT_SCALE: case ACT_TEMP_DOWN: case ACT_TEMP_UP:
        why = "the trained model fixes its heads, sizes, weights, PE and scaling";
        break;
    case ACT_CROSS: case ACT_EDIT_CROSS:
        why = "a trained decoder attends over its own tokens: no cross-attention";
        break;
    case ACT_VIEW:
        if (u->src.net->net.spec.pe != MODEL_PE_LEARNED || s->view != VIEW_ATTN)
            return false;
        why = "this model learned its positional encodings (pe.npy): the PE view draws "
              "sinusoidal ones";
        break;
    case ACT_SENT_NEXT: case ACT_SENT_PREV:
        why = "the examples are not in the model's vocabulary: type a text of it (e)";
        break;
    default:
        return false;
    }
    snprintf(s->msg, sizeof s->msg, "%s", why);
    return true;
}

void trained_overlay(UiState *u, Grid *g)
{
    const AppState *s = &u->app;
    const HeatmapLayout *l = &u->lay.focus;
    if (!u->src.net || !u->cached_rows || s->text.len != u->cached_len || u->run_err ||
        s->n_q != u->cached_rows + 1 || !u->lay.have_focus || s->view != VIEW_ATTN ||
        l->cells_x < 1)
        return;
    for (int k = 0; k < l->rows; k++) {
        int r = l->first_row + k;
        if (r < u->cached_rows)
            grid_put(g, l->cells_x - 1, l->cells_y + k, 0x00b7, STYLE_DIM, 0);
        else if (r == u->cached_rows)
            grid_put(g, l->cells_x - 1, l->cells_y + k, '+', STYLE_ACCENT, 0);
    }
}
