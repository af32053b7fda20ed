/* kindkeys.c - the interface on any model kind: what the kind refuses, with
 * its reason, and g, the articles' decoder one step at a time, on a kind
 * that generates (kindkeys.h).
 */
#include "kindkeys.h"

#include <stdio.h>
#include <string.h>

#include "term.h"

void kindkeys_start(UiState *u)
{
    char line[sizeof u->app.msg];
    kind_describe(u->ses.kind, line, sizeof line);
    if (line[0])
        memcpy(u->app.msg, line, sizeof line);
}

/* g: sample the next token and grow the sentence by it (session.h). */
static unsigned generate(UiState *u)
{
    bool nomem;
    unsigned flags = session_generate(&u->ses, &u->app, u->ses.run_err ? 0 : u->app.n_q, &nomem);
    if (nomem)
        term_die("out of memory");
    return flags;
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
    const char *why = kind_refuses(u->ses.kind, ask);
    if (!why && pe_view)
        why = kind_refuses(u->ses.kind, KIND_ASK_PE_VIEW);
    if (why) {
        snprintf(s->msg, sizeof s->msg, "%s", why);
        return true;
    }
    if (ask != KIND_ASK_GENERATE || !kind_generates(u->ses.kind))
        return false;
    *pending |= generate(u);
    return true;
}

void kindkeys_overlay(UiState *u, Grid *g)
{
    const AppState *s = &u->app;
    const HeatmapLayout *l = &u->lay.focus;
    if (!kind_generates(u->ses.kind) || !u->ses.cached_rows || s->text.len != u->ses.cached_len || u->ses.run_err ||
        s->n_q != u->ses.cached_rows + 1 || !u->lay.have_focus || s->view != VIEW_ATTN ||
        l->cells_x < 1)
        return;
    for (int k = 0; k < l->rows; k++) {
        int r = l->first_row + k;
        if (r < u->ses.cached_rows)
            grid_put(g, l->cells_x - 1, l->cells_y + k, 0x00b7, STYLE_DIM, 0);
        else if (r == u->ses.cached_rows)
            grid_put(g, l->cells_x - 1, l->cells_y + k, '+', STYLE_ACCENT, 0);
    }
}
