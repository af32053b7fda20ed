/* view_attn.c - the attention view: the focused head large (labels, cells,
 * legend) on the left; on the right every head as a small heatmap, the
 * selected cell's exact weight and raw score, and the selected token's
 * ranked bars. All drawing goes through heatmap.c, as the text export does.
 */
#include "view_attn.h"

#include <stdio.h>
#include <string.h>

#include "../data.h"
#include "view_long.h"
#include "view_predict.h"
#include "../widgets.h"

#define INFO_MIN 6 /* rows the right panel keeps for the cell lines and bars */
#define FOCUS_LABEL_W 10
#define COL_LABEL_MAX 5 /* a key label's letters: rotated, so this many rows */

/* Row labels of the focused head: shorter on narrow screens. */
static int label_limit(int screen_w)
{
    return screen_w >= 100 ? FOCUS_LABEL_W : 7;
}

static int focus_label_w(const UiState *u, int screen_w)
{
    int w = 1, limit = label_limit(screen_w);
    for (int k = 0; k < u->a.app.n_q && w < limit; k++) {
        int lw = grid_text_width(u->labels_q[k]);
        w = lw > w ? lw : w;
    }
    return grid_digits(u->a.app.n_q) + 1 + (w < limit ? w : limit);
}

/* The focused head's cell width and columns: as wide as leaves the small
 * heads their least (the focused head is the largest thing on screen). */
static int focus_width(const UiState *u, Rect r, int *fcw)
{
    int right_min = r.w >= 100 ? 34 : 28, lw = focus_label_w(u, r.w);
    int most = r.w - right_min;
    for (*fcw = 5; *fcw > 1; (*fcw)--)
        if (lw + 1 + u->a.app.n_k * *fcw + 1 <= most)
            break;
    int w = lw + 1 + u->a.app.n_k * *fcw + 1;
    int least = most < 44 ? most : 44; /* room for the legend */
    return w > most ? most : w < least ? least : w;
}

static HeatmapSpec spec_for(const UiState *u, int h)
{
    return (HeatmapSpec){
        .P = model_head_P(&u->a.ses.res, u->a.app.layer, h),
        .n_q = u->a.app.n_q,
        .n_k = u->a.app.n_k,
        .row_labels = u->labels_q,
        .col_labels = u->labels_k,
        .causal = u->a.ses.res.shape.causal,
        .mode = u->hmode,
        .sel_row = u->a.app.sel_row,
        .sel_col = u->a.app.sel_col,
        .full = comb_full(&u->a.ses.comb),
    };
}

/* A scroll offset that keeps sel within [first, first + shown). */
static int keep_visible(int first, int sel, int shown, int n)
{
    if (shown < 1)
        return 0;
    if (sel >= 0 && sel < first)
        first = sel;
    if (sel >= 0 && sel >= first + shown)
        first = sel - shown + 1;
    if (first > n - shown)
        first = n - shown;
    return first < 0 ? 0 : first;
}

/* The title across the whole width, never cut: head, label, statistics. */
static void draw_title(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    const CombView *cv = &u->a.ses.comb;
    char name[96]; /* "Head 5 of 6", or what a combining view's one head is */
    comb_head_title(cv, s, name, sizeof name);
    int used = grid_puts(g, r.x, r.y, name, r.w, STYLE_TITLE);
    if (s->cfg.layers > 1 && cv->mode != COMB_ROLLOUT) /* the rollout's label names its layers */
        used += grid_printf(g, r.x + used, r.y, r.w - used, STYLE_TITLE, ", layer %d of %d",
                            s->layer + 1, s->cfg.layers);
    if (!comb_one_head(cv->mode))
        used += grid_printf(g, r.x + used, r.y, r.w - used, STYLE_TITLE, ": %s%s",
                            widget_head_label(u, s->head),
                            s->cfg.preset == PRESET_RANDOM ? " (untrained, P: designed)" : "");
    char stats[96]; /* the longest form that fits: "mean top weight", "top", "1.96b .55" */
    if (widget_stats_fit(data_stats(u, 0, s->head), r.w - used - 2, stats, sizeof stats) > 0)
        grid_printf(g, r.x + used, r.y, r.w - used, STYLE_ACCENT, "  %s", stats);
}

/* The focused head: heatmap scrolled to the selection, legend. */
static void draw_focus(UiState *u, Grid *g, Rect r, int fcw)
{
    const AppState *s = &u->a.app;
    HeatmapSpec sp = spec_for(u, s->head);
    int legend_h = heatmap_legend_rows(r.w, u->hmode, sp.causal, sp.full);
    int max_h = r.h - legend_h - 1;
    /* a short view (a lesson page below it) keeps the selected token's row
     * and its neighbours: fewer letters of the rotated key labels first */
    int want_rows = s->n_q < 3 ? s->n_q : 3, lab = max_h - want_rows;
    lab = lab < fcw - 1 ? fcw - 1 : lab; /* labels across the cells take one row anyway */
    lab = lab < 1 ? 1 : lab > COL_LABEL_MAX ? COL_LABEL_MAX : lab;
    sp.col_labels = widget_col_labels(u, fcw, lab);
    sp.cell_w = fcw, sp.label_w = label_limit(g->w), sp.number_rows = true;
    HeatmapLayout *l = &u->lay.focus;
    for (int pass = 0; pass < 2; pass++) {
        sp.first_row = u->first_row, sp.first_col = u->first_col;
        widget_rect_clear(g, (Rect){r.x, r.y, r.w, max_h});
        heatmap_draw(g, r.x, r.y, r.w, max_h, &sp, l);
        int cap_rows = max_h - (l->cells_y - l->y);
        int cap_cols = l->cell_w > 0 ? (r.w - (l->cells_x - r.x)) / l->cell_w : 0;
        u->first_row = keep_visible(u->first_row, s->sel_row, cap_rows, s->n_q);
        u->first_col = keep_visible(u->first_col, s->sel_col, cap_cols, s->n_k);
        if (u->first_row == sp.first_row && u->first_col == sp.first_col)
            break;
    }
    u->lay.have_focus = true;
    widget_tint_cells(u, g, &sp, l);
    int ly = l->y + l->h;
    heatmap_legend_of(g, r.x, ly, r.w, u->hmode, sp.causal, sp.full);
    static const char *const cross[] = {"rows: queries (sentence 1), columns: keys (sentence 2)",
                                        "rows: queries (sent. 1), columns: keys (sent. 2)",
                                        "rows: sentence 1, columns: sentence 2"};
    const char *what =
        s->cross_on ? cross[widget_fit(cross, 3, r.w)] : "rows: queries, columns: keys";
    char shown[80] = "";
    if (l->rows < s->n_q || l->cols < s->n_k)
        snprintf(shown, sizeof shown, "rows %d-%d of %d, cols %d-%d of %d", l->first_row + 1,
                 l->first_row + l->rows, s->n_q, l->first_col + 1, l->first_col + l->cols, s->n_k);
    /* what is shown of a scrolled heatmap before what its axes are */
    if (!shown[0])
        grid_puts(g, r.x, ly + legend_h, what, r.w, STYLE_DIM);
    else if (grid_text_width(what) + 2 + grid_text_width(shown) <= r.w)
        grid_printf(g, r.x, ly + legend_h, r.w, STYLE_DIM, "%s; %s", what, shown);
    else
        grid_puts(g, r.x, ly + legend_h, shown, r.w, STYLE_DIM);
}

void view_attn_draw(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    if (u->a.ses.run_err || s->n_q == 0) {
        bool keys = session_cross_empty(&u->a.ses, s); /* the keys/values sentence's turn */
        const char *why = u->a.ses.run_err != AV_ERR_EMPTY ? widget_run_error(u, u->a.ses.run_err)
                          : keys && s->mode == MODE_EDIT
                              ? "Nothing to show yet: type the keys/values sentence (Enter or "
                                "Esc when done)."
                          : keys ? "Nothing to show yet: press E and type the keys/values sentence."
                          : s->mode == MODE_EDIT
                              ? "Nothing to show yet: type a sentence (Enter or Esc when done)."
                              : "Nothing to show yet: press e (or Enter) and type a sentence.";
        grid_puts(g, 2, r.y + 1, why, r.w - 4, STYLE_ACCENT);
        return;
    }
    u->report.row_step = u->report.col_step = 1;
    if (view_long_wanted(u, r)) {
        view_long_draw(u, g, r);
        return;
    }
    if (s->zoom > 0 && u->report.zoom_max < 0)
        u->report.zoom_max = 0; /* a cell a token already: app_layout says so */
    draw_title(u, g, r);
    int fcw, left_w = focus_width(u, r, &fcw);
    Rect left = {r.x, r.y + 1, left_w, r.h - 1};
    Rect right = {r.x + left_w + 1, r.y + 1, r.w - left_w - 1, r.h - 1};
    draw_focus(u, g, left, fcw);
    u->report.page = u->lay.focus.rows > 2 ? u->lay.focus.rows - 1 : 1;
    int pred_h = view_predict_rows(u, right.h);
    int used = view_long_tiles(u, g, right, right.h - INFO_MIN - pred_h);
    const LessonPage *page = lesson_state_page(&u->a.lesson);
    if (!used && page && page->set.view == VIEW_ID_HEADS) /* a lesson's page on every head */
        used = view_long_tiles(u, g, right, right.h - pred_h);
    /* the rows the selected token's bars leave: more predictions, up to all */
    int spare = right.h - used - pred_h - widget_info_rows(u, &u->a.ses.res);
    if (pred_h > 0 && spare > 0)
        pred_h += spare < VIEW_PREDICT_ROWS_MOST - pred_h ? spare : VIEW_PREDICT_ROWS_MOST - pred_h;
    Rect below = {right.x, right.y + used, right.w, right.h - used - pred_h};
    widget_info_draw(u, g, below, &u->a.ses.res, s->head);
    view_predict_draw(u, g, (Rect){right.x, right.y + right.h - pred_h, right.w, pred_h});
}
