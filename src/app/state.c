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
        snprintf(s->msg, sizeof s->msg,
                 "the text is at its limit of %d MiB: the rest was left "
                 "out",
                 EDIT_MAX_BYTES >> 20);
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

int app_init(AppState *s, const ModelConfig *cfg, const char *text, const SentenceList *sentences,
             bool fixed_weights)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    s->sentences = sentences;
    s->fixed_weights = s->cli_fixed = fixed_weights;
    s->sentence = s->example_at = -1;
    s->sel_row = 0, s->sel_col = -1;
    s->page = 5;
    s->help_most = -1;
    s->row_step = s->col_step = 1;
    s->max_layers = AV_MAX_LAYERS;
    if (!text && sentences && sentences->n > 0)
        text = sentences->items[0], s->sentence = s->example_at = 0;
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

/* Each view of the table as the state shows it (views.def's STATE: its
 * base view, panel and comparison; a view of another home never shows). */
static const struct {
    ViewId view;
    AppPanel panel;
    AppCompare compare;
} APP_VIEWS[VIEW_ID_COUNT] = {
#define VIEW_ROW(id, name, what, needs, home, state, ...) [VIEW_ID_##id] = state,
/* clang-format 14 breaks a braced list in a macro into a line a brace */
/* clang-format off */
#define STATE(base, panel, compare) {VIEW_ID_##base, panel, compare}
#define NO_STATE {VIEW_ID_ATTN, PANEL_NONE, CMP_NONE}
/* clang-format on */
#include "io/views.def"
};

/* Each view's action (views.def's ACTION), ACT_NONE for none. */
static const Action VIEW_ACTIONS[VIEW_ID_COUNT] = {
#define VIEW_ROW(id, name, what, needs, home, state, act, ...) [VIEW_ID_##id] = act,
#define ACTION(a) ACT_##a
#define NO_ACTION ACT_NONE
#include "io/views.def"
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

bool app_view_back(AppState *s, ViewId home)
{
    home = view_info(home)->home == VIEW_HOME_STATE ? view_info(home)->id : VIEW_ID_ATTN;
    if (s->view == APP_VIEWS[home].view && s->panel == APP_VIEWS[home].panel &&
        s->compare == APP_VIEWS[home].compare && s->n_multi == 0)
        return false;
    app_view_show(s, home);
    s->n_multi = 0;
    return true;
}

ViewId app_view_base(const AppState *s)
{
    if (s->view != VIEW_ID_ATTN) /* a view of its own: the pipeline, the PE view, the lens */
        return s->view;
    for (int v = 0; v < VIEW_ID_COUNT; v++) /* over the heatmaps: side by side, else them */
        if (view_info((ViewId)v)->home == VIEW_HOME_STATE && APP_VIEWS[v].view == VIEW_ID_ATTN &&
            APP_VIEWS[v].panel == PANEL_NONE && APP_VIEWS[v].compare == s->compare)
            return (ViewId)v;
    return VIEW_ID_ATTN;
}

ViewId app_view_of_action(Action a)
{
    for (int v = 0; v < VIEW_ID_COUNT && a != ACT_NONE; v++)
        if (VIEW_ACTIONS[v] == a)
            return (ViewId)v;
    return VIEW_ID_COUNT;
}

void app_msg(AppState *s, const char *m)
{
    snprintf(s->msg, sizeof s->msg, "%s", m);
}

/* A line that answers this key only: the next key takes it away. */
void app_msg_once(AppState *s, const char *m)
{
    app_msg(s, m);
    s->msg_once = m; /* a literal: it outlives the key */
}

void app_drop_msg(AppState *s)
{
    if (!s->note_shown)
        s->msg[0] = '\0';
}

bool app_view_toggle(AppState *s, ViewId v)
{
    ViewId base = APP_VIEWS[view_info(v)->id].view;
    if (view_info(v)->home != VIEW_HOME_STATE || base == VIEW_ID_ATTN)
        return false;
    s->view = s->view == base ? VIEW_ID_ATTN : base;
    return true;
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
