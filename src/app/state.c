/* state.c - the interface's state, without curses.
 *
 * Pure bookkeeping: setting up, the token counts of a run, typing into the
 * sentence; the actions that change the state are action.c, the sentence
 * editor edit.c. Nothing here draws, prints or runs the model.
 */
#include "app/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"

/* ---- editing --------------------------------------------------------- */

EditBuf *app_field(AppState *s)
{
    return s->cross_on && s->field == 1 ? &s->cross : &s->text;
}

unsigned app_type(AppState *s, const char *bytes, size_t n)
{
    EditBuf *e = app_field(s);
    if (n == 0)
        return 0;
    size_t took = edit_insert(e, bytes, n);
    if (e->full)
        snprintf(s->msg, sizeof s->msg, "the text is at its limit of %d MiB: the rest was left "
                 "out", EDIT_MAX_BYTES >> 20);
    if (took == 0)
        return 0;
    if (e == &s->text)
        s->sentence = -1;
    return APP_RUN | (e == &s->text ? APP_CURSOR : 0);
}

/* v within [0, n - 1], or fallback when n <= 0. */
static int fit_index(int v, int n, int fallback)
{
    if (n <= 0)
        return fallback;
    return v < 0 ? 0 : v >= n ? n - 1 : v;
}

void app_fit_result(AppState *s, const AppFit *fit)
{
    s->n_q = fit->n_q > 0 ? fit->n_q : 0, s->n_k = fit->n_k > 0 ? fit->n_k : 0;
    if (s->n_q > 0 && fit->L > 0 && fit->H > 0) /* the views count heads and layers here */
        s->cfg.layers = fit->L, s->cfg.H = fit->H;
    s->layer = fit_index(s->layer, fit->L, 0);
    s->head = fit_index(s->head, fit->H, 0);
    s->sel_row = fit_index(s->sel_row, s->n_q, -1);
    if (s->sel_col >= s->n_k || s->sel_col < -1)
        s->sel_col = s->n_k > 0 ? s->n_k - 1 : -1;
    int kept = 0;
    for (int k = 0; k < s->n_multi && k < APP_MAX_MULTI; k++)
        if (s->multi[k] >= 0 && s->multi[k] < s->n_q)
            s->multi[kept++] = s->multi[k];
    s->n_multi = kept;
    s->pipe_page = s->pipe_page > 0 ? s->pipe_page : 0;
}

void app_set_tokens(AppState *s, int n_q, int n_k)
{
    if (s->layer >= s->cfg.layers)
        s->layer = 0; /* the layers went down: start again from the first */
    AppFit fit = {s->cfg.layers, s->cfg.H, n_q, n_k};
    app_fit_result(s, &fit);
}

int app_init(AppState *s, const ModelConfig *cfg, const char *text,
             const SentenceList *sentences, bool fixed_weights)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->sentences = sentences;
    s->fixed_weights = s->cli_fixed = fixed_weights;
    s->sentence = -1;
    s->sel_row = 0, s->sel_col = -1;
    s->page = 5;
    s->row_step = s->col_step = 1;
    s->max_layers = AV_MAX_LAYERS;
    if (!text && sentences && sentences->n > 0)
        text = sentences->items[0], s->sentence = 0;
    int err = edit_init(&s->text, text ? text : "");
    if (!err)
        err = edit_init(&s->cross, APP_CROSS_DEFAULT);
    return err;
}

void app_free(AppState *s)
{
    edit_free(&s->text);
    edit_free(&s->cross);
}

/* ---- views (io/views.h) on the state ------------------------------------ */

/* Each view of the table the state holds (VIEW_HOME_STATE) as it shows it. */
static const struct {
    AppView view;
    AppPanel panel;
    AppCompare compare;
} APP_VIEWS[VIEW_ID_COUNT] = {
    [VIEW_ID_ATTN] = {VIEW_ATTN, PANEL_NONE, CMP_NONE},
    [VIEW_ID_PIPELINE] = {VIEW_PIPELINE, PANEL_NONE, CMP_NONE},
    [VIEW_ID_TRACE] = {VIEW_ATTN, PANEL_TRACE, CMP_NONE},
    [VIEW_ID_PE] = {VIEW_PE, PANEL_NONE, CMP_NONE},
    [VIEW_ID_CMP_MASK] = {VIEW_ATTN, PANEL_NONE, CMP_MASK},
    [VIEW_ID_CMP_HEADS] = {VIEW_ATTN, PANEL_NONE, CMP_HEADS},
    [VIEW_ID_HEADS] = {VIEW_ATTN, PANEL_NONE, CMP_NONE},
    [VIEW_ID_LENS] = {VIEW_LENS, PANEL_NONE, CMP_NONE},
};

bool app_view_show(AppState *s, ViewId v)
{
    v = view_info(v)->id; /* an id out of range: the attention view */
    if (view_info(v)->home != VIEW_HOME_STATE)
        return false;
    s->view = APP_VIEWS[v].view;
    s->panel = APP_VIEWS[v].panel;
    s->compare = APP_VIEWS[v].compare;
    s->panel_scroll = 0;
    return true;
}

ViewId app_view_base(const AppState *s)
{
    if (s->view == VIEW_PIPELINE)
        return VIEW_ID_PIPELINE;
    if (s->view == VIEW_PE)
        return VIEW_ID_PE;
    if (s->view == VIEW_LENS)
        return VIEW_ID_LENS;
    if (s->compare != CMP_NONE)
        return s->compare == CMP_MASK ? VIEW_ID_CMP_MASK : VIEW_ID_CMP_HEADS;
    return VIEW_ID_ATTN;
}

unsigned app_view_needs(const AppState *s)
{
    unsigned needs = view_info(app_view_base(s))->needs;
    if (s->panel == PANEL_TRACE)
        needs |= view_info(VIEW_ID_TRACE)->needs;
    if (s->compare == CMP_MASK)
        needs |= view_info(VIEW_ID_CMP_MASK)->needs;
    return needs;
}
