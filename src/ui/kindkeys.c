/* kindkeys.c - the interface on any model kind: what the kind refuses, with
 * its reason, and g, the articles' decoder one step at a time, on a kind
 * that generates (kindkeys.h).
 */
#include "kindkeys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/edit.h"
#include "term.h"

void kindkeys_start(UiState *u)
{
    char line[sizeof u->app.msg];
    kind_describe(u->kind, line, sizeof line);
    if (line[0])
        memcpy(u->app.msg, line, sizeof line);
}

/* g: sample the next token and grow the sentence by it. */
static unsigned generate(UiState *u)
{
    AppState *s = &u->app;
    char *out;
    size_t cont;
    int before = u->run_err ? 0 : s->n_q;
    uint64_t seed = s->cfg.seed * 1000003u + (uint64_t)++u->generated;
    Kind *k = u->kind;
    int err =
        kind_generate(k, s->text.s, s->text.len, 1, k->temperature, k->top_k, seed, &out, &cont);
    if (err == AV_ERR_NOMEM)
        term_die("out of memory");
    if (err == AV_ERR_VOCAB) {
        snprintf(s->msg, sizeof s->msg,
                 "'%s' is not in the model's vocabulary: nothing to "
                 "continue",
                 u->kind->bad);
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
    snprintf(s->msg, sizeof s->msg,
             "+'%.24s': keys and values of rows 1-%d (·) were "
             "cached; only row %d (+) is new",
             out + cont, before, before + 1);
    free(out);
    return APP_RUN;
}

/* What in asks of the kind, or KIND_ASK_COUNT when nothing a kind refuses. */
static KindAsk ask_of(const UiState *u, const UiInput *in, bool *pe_view)
{
    *pe_view = false;
    switch (in->action) {
    case ACT_NONE: return in->text[0] ? KIND_ASK_EDIT : KIND_ASK_COUNT;
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
    case ACT_PE:
    case ACT_SCALE:
    case ACT_TEMP_DOWN:
    case ACT_TEMP_UP: return KIND_ASK_SETTINGS;
    case ACT_CROSS:
    case ACT_EDIT_CROSS: return KIND_ASK_CROSS;
    case ACT_SENT_NEXT:
    case ACT_SENT_PREV: return KIND_ASK_EXAMPLES;
    case ACT_GENERATE: return KIND_ASK_GENERATE;
    case ACT_TRACE: return KIND_ASK_TRACE;
    case ACT_VIEW: /* from the heatmaps the next view is the PE view */
        *pe_view = u->app.view == VIEW_ATTN;
        return KIND_ASK_VIEWS;
    case ACT_HEADS_HELP: return KIND_ASK_HEADS_HELP;
    case ACT_DIMS_NEXT:
    case ACT_DIMS_PREV: return KIND_ASK_DIMS;
    default: return KIND_ASK_COUNT;
    }
}

bool kindkeys_handle(UiState *u, const UiInput *in, unsigned *pending)
{
    AppState *s = &u->app;
    bool pe_view;
    KindAsk ask = s->mode == MODE_EDIT ? KIND_ASK_COUNT : ask_of(u, in, &pe_view);
    if (ask == KIND_ASK_COUNT)
        return false;
    const char *why = kind_refuses(u->kind, ask);
    if (!why && pe_view)
        why = kind_refuses(u->kind, KIND_ASK_PE_VIEW);
    if (why) {
        snprintf(s->msg, sizeof s->msg, "%s", why);
        return true;
    }
    if (ask != KIND_ASK_GENERATE || !kind_generates(u->kind))
        return false;
    *pending |= generate(u);
    return true;
}

void kindkeys_overlay(UiState *u, Grid *g)
{
    const AppState *s = &u->app;
    const HeatmapLayout *l = &u->lay.focus;
    if (!kind_generates(u->kind) || !u->cached_rows || s->text.len != u->cached_len || u->run_err ||
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
