/* frame.c - one frame composed from the state into a Grid (frame.h): the
 * order the views are drawn in and the rectangles each is given, and the
 * labels they read.
 * Draws from the size it is given, never the terminal's: ui.c passes the
 * terminal's and paints the result; the lesson checker passes its own.
 */
#include "frame.h"

#include <stdlib.h>
#include <string.h>

#include "color.h"
#include "data.h"
#include "input.h"
#include "kindkeys.h"
#include "term.h"
#include "views/view_lesson.h"
#include "views/view_heads.h"
#include "views/view_help.h"
#include "views/view_panel.h"
#include "views/view_table.h"
#include "views/view_top.h"
#include "views/view_train.h"
#include "app/session.h"

void frame_labels_fit(UiState *u)
{
    const Session *ss = &u->a.ses;
    int n_q = ss->run_err ? 0 : ss->res.shape.n_q, n_k = ss->run_err ? 0 : ss->res.shape.n_k;
    if (n_q <= u->labels_cap && n_k <= u->labels_cap)
        return;
    u->labels_cap = (n_q > n_k ? n_q : n_k) + 16;
    size_t cap = (size_t)u->labels_cap;
    u->labels_q = term_xrealloc(u->labels_q, cap * sizeof *u->labels_q);
    u->labels_k = term_xrealloc(u->labels_k, cap * sizeof *u->labels_k);
    u->abbr_k = term_xrealloc(u->abbr_k, cap * sizeof *u->abbr_k);
    u->abbr_p = term_xrealloc(u->abbr_p, cap * sizeof *u->abbr_p);
    u->chips = term_xrealloc(u->chips, cap * sizeof *u->chips);
    /* the last frame's layout holds the chips a click is mapped to until the
     * next frame: a run in the middle of a burst must not leave it on the
     * freed array (their rectangles move with the realloc) */
    u->lay.chips = u->chips;
}

/* Token labels: the tokens' own text. */
static void fill_labels(const TokenList *t, int n, const char **labels)
{
    for (int k = 0; k < n; k++)
        labels[k] = t->tok[k].str;
}

static void frame_labels(UiState *u)
{
    const TokenList *tq = &u->a.ses.res.tokens;
    const TokenList *tk = u->a.ses.res.cross_tokens.n ? &u->a.ses.res.cross_tokens : tq;
    fill_labels(tq, u->a.app.n_q, u->labels_q);
    fill_labels(tk, u->a.app.n_k, u->labels_k);
}

/* The frame, once: the views draw from the state and report in u->report
 * what the state should follow. */
static void compose(UiState *u, Grid *g, int w, int h)
{
    grid_clear(g);
    app_layout_clear(&u->report);
    frame_labels_fit(u); /* the labels' room for the result's tokens */
    memset(&u->lay, 0, sizeof u->lay);
    u->lay.chips = u->chips;
    if (view_top_is_small(w, h)) {
        view_top_too_small(g);
    } else {
        frame_labels(u);
        int top = view_top_draw(u, g);
        int bottom = 2 + view_top_status_rows(u, w) + view_top_note_rows(u, w);
        Rect mid = {0, top, w, h - top - bottom}, page;
        view_lesson_split(u, &mid, &page);
        u->lay.view = mid, u->lay.page = page;
        view_table_draw(u, g, mid); /* the view shown (io/views.h's table) */
        kindkeys_overlay(u, g);
        if (u->a.app.panel != PANEL_NONE)
            view_panel_draw(u, g, mid);
        view_lesson_veil(u, g, mid);
        view_lesson_draw(u, g, page);
        view_top_bottom_draw(u, g);
        view_lesson_list_draw(u, g);
        if (u->a.app.help)
            view_help_draw(u, g);
    }
    data_plan_arm(u, &u->plan); /* what this frame pooled whole, the next run pools */
}

void frame_draw(UiState *u, Grid *g, int w, int h)
{
    if ((g->w != w || g->h != h) && grid_resize(g, w, h) != AV_OK)
        term_die("out of memory");
    compose(u, g, w, h);
    if (app_layout(&u->a, &u->report)) /* a line or a panel changed: the frame shows it */
        compose(u, g, w, h);
}

void frame_free(UiState *u)
{
    view_heads_free(u);
    data_plan_free(u, &u->plan);
    data_free(u);
    view_panel_free(u);
    app_close(&u->a);
    grid_free(&u->grid);
    color_free(u);
    free(u->labels_q), free(u->labels_k);
    free(u->abbr_k), free(u->abbr_p);
    free(u->chips), free(u->PE), free(u->sim);
    memset(u, 0, sizeof *u);
}
