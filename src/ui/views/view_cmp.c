/* view_cmp.c - two heatmaps side by side, each over the selected token's
 * bars: the focused head with the causal mask off and on (the second result
 * is the same model run with the mask flipped, ui.c), or the focused head
 * beside the next one. Long texts are drawn pooled as in view_long.c.
 */
#include "view_cmp.h"

#include <stdio.h>

#include "../data.h"
#include "view_long.h"
#include "../widgets.h"

/* The short heatmap of one side in r: every row that fits shown (the key
 * labels shortened to leave them room), scrolled only as the selection needs. */
static void cmp_heatmap(UiState *u, Grid *g, Rect r, const ModelResult *res, int h, bool main)
{
    const AppState *s = &u->a.app;
    int legend_h = heatmap_legend_rows(r.w, u->hmode, res->shape.causal, 1.0f);
    int max_h = r.h - legend_h;
    int label_w = r.w >= 40 ? 8 : 6, cw = (r.w - label_w - 4) / (s->n_k > 0 ? s->n_k : 1);
    cw = cw > 4 ? 4 : cw < 1 ? 1 : cw;
    int letters = max_h - s->n_q; /* rows left for the rotated key labels */
    /* rotated from 3 rows on; fewer: abbreviated across the cells, one row,
     * so that every row of the triangle keeps its place */
    letters = letters > 5 ? 5 : letters >= 3 ? letters : cw > 1 ? cw - 1 : 1;
    HeatmapSpec sp = {
        .P = model_head_P(res, s->layer, h),
        .n_q = s->n_q,
        .n_k = s->n_k,
        .row_labels = u->labels_q,
        .col_labels = widget_col_labels(u, cw, letters),
        .causal = res->shape.causal,
        .mode = u->hmode,
        .sel_row = s->sel_row,
        .sel_col = s->sel_col,
        .label_w = label_w,
        .number_rows = true,
        .cell_w = cw,
    };
    int shown = max_h - letters > 1 ? max_h - letters : 1;
    sp.first_row = s->sel_row >= shown ? s->sel_row - shown + 1 : 0;
    HeatmapLayout lay = {0}, *l = main ? &u->lay.focus : &lay;
    heatmap_draw(g, r.x, r.y, r.w, max_h, &sp, l);
    widget_tint_cells(u, g, &sp, l);
    heatmap_legend(g, r.x, l->y + l->h, r.w, u->hmode, sp.causal);
    u->lay.have_focus = u->lay.have_focus || main;
}

/* One side: title with statistics, heatmap, legend; then the bars. */
static void cmp_side(UiState *u, Grid *g, Rect r, const ModelResult *res, int h, const char *what,
                     bool main)
{
    char title[128];
    snprintf(title, sizeof title, "Head %d%s: %s", h + 1, what, widget_head_label(u, h));
    int bars_h = r.h >= 24 ? r.h / 3 : 4;
    /* a short side keeps every row of its heatmap (the mask's triangle is
     * what it is about) before the bars: title, labels, rows, legend */
    int need = 2 + u->a.app.n_q + heatmap_legend_rows(r.w, u->hmode, res->shape.causal, 1.0f);
    if (r.h - bars_h < need)
        bars_h = r.h - need >= 3 ? r.h - need : 0;
    Rect top = {r.x, r.y, r.w, r.h - bars_h};
    if (view_long_wanted(u, (Rect){r.x, r.y, r.w * 2, r.h})) {
        view_long_head(u, g, top, res, h, title, main);
    } else {
        if (u->a.app.zoom > 0 && u->report.zoom_max < 0)
            u->report.zoom_max = 0; /* a cell a token already: app_layout says so */
        /* the short form on both sides alike, where it fits whole */
        char stats[64];
        int used = grid_puts(g, r.x, r.y, title, r.w, STYLE_TITLE);
        int n =
            widget_stats_text(data_stats(u, res == &u->a.ses.res2, h), false, stats, sizeof stats);
        if (n + 2 <= r.w - used)
            grid_printf(g, r.x + used, r.y, r.w - used, STYLE_ACCENT, "  %s", stats);
        cmp_heatmap(u, g, (Rect){r.x, r.y + 1, r.w, top.h - 1}, res, h, main);
    }
    if (bars_h)
        widget_info_draw(u, g, (Rect){r.x, r.y + top.h, r.w, bars_h}, res, h);
}

void view_cmp_draw(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    if (u->a.ses.run_err || s->n_q == 0) {
        grid_puts(g, 2, r.y + 1, widget_run_error(u, u->a.ses.run_err), r.w - 4, STYLE_ACCENT);
        return;
    }
    u->report.row_step = u->report.col_step = 1;
    /* both sides as wide: on an even width the last column stays blank, so
     * the two heatmaps cut their labels alike (not "becau…" beside "because") */
    int half = (r.w - 1) / 2;
    Rect left = {r.x, r.y, half, r.h}, right = {r.x + half + 1, r.y, half, r.h};
    for (int y = r.y; y < r.y + r.h; y++)
        grid_put(g, r.x + half, y, 0x2502, STYLE_DIM, 0); /* │ */
    if (s->compare == CMP_HEADS) {
        cmp_side(u, g, left, &u->a.ses.res, s->head, "", true);
        cmp_side(u, g, right, &u->a.ses.res, (s->head + 1) % s->cfg.H, "", false);
        return;
    }
    if (u->a.ses.run_err2) {
        grid_puts(g, right.x, r.y + 1, widget_run_error(u, u->a.ses.run_err2), right.w,
                  STYLE_ACCENT);
        return;
    }
    const ModelResult *off = s->cfg.causal ? &u->a.ses.res2 : &u->a.ses.res;
    const ModelResult *on = s->cfg.causal ? &u->a.ses.res : &u->a.ses.res2;
    cmp_side(u, g, left, off, s->head, " mask off", off == &u->a.ses.res);
    cmp_side(u, g, right, on, s->head, " mask ON", on == &u->a.ses.res);
}
