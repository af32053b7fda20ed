/* view_cmp.c - two heatmaps side by side, each over the selected token's
 * bars: the focused head with the causal mask off and on (the second result
 * is the same model run with the mask flipped, ui.c), or the focused head
 * beside the next one. Long texts are drawn pooled as in view_long.c.
 */
#include "view_cmp.h"

#include <stdio.h>

#include "data.h"
#include "view_long.h"
#include "widgets.h"

/* One side: title with statistics, heatmap, legend; then the bars. */
static void cmp_side(UiState *u, Grid *g, Rect r, const ModelResult *res, int h,
                     const char *what, bool main)
{
    const AppState *s = &u->app;
    char title[128];
    snprintf(title, sizeof title, "Head %d%s: %s", h + 1, what,
             model_head_label(&s->cfg, s->layer, h));
    int bars_h = s->n_k + 4 < r.h / 3 ? s->n_k + 4 : r.h / 3;
    bars_h = bars_h < 6 ? 6 : bars_h;
    Rect top = {r.x, r.y, r.w, r.h - bars_h};
    if (view_long_wanted(u, (Rect){r.x, r.y, r.w * 2, r.h})) {
        view_long_head(u, g, top, res, h, title, main);
    } else {
        char stats[64];
        widget_stats_text(data_stats(u, res == &u->res2, h), true, stats, sizeof stats);
        grid_puts(g, r.x, r.y, title, r.w, STYLE_TITLE);
        grid_puts(g, r.x, r.y + 1, stats, r.w, STYLE_ACCENT);
        HeatmapSpec sp = {
            .P = model_head_P(res, s->layer, h), .n_q = s->n_q, .n_k = s->n_k,
            .row_labels = u->labels_q, .col_labels = u->labels_k, .causal = res->shape.causal,
            .mode = u->hmode, .sel_row = s->sel_row, .sel_col = s->sel_col, .label_w = 8,
            .number_rows = true,
        };
        int max_h = top.h - 2 - (u->hmode == HEATMAP_COLOR ? 2 : 1);
        int shown = max_h - 8 > 1 ? max_h - 8 : 1; /* rows left under rotated labels, at least */
        sp.first_row = s->sel_row >= shown ? s->sel_row - shown + 1 : 0;
        HeatmapLayout lay = {0}, *l = main ? &u->lay.focus : &lay;
        heatmap_draw(g, r.x, r.y + 2, r.w, max_h, &sp, l);
        widget_tint_cells(u, g, &sp, l);
        heatmap_legend(g, r.x, l->y + l->h, r.w, u->hmode, sp.causal);
        u->lay.have_focus = u->lay.have_focus || main;
    }
    widget_info_draw(u, g, (Rect){r.x, r.y + top.h, r.w, bars_h}, res, h);
}

void view_cmp_draw(UiState *u, Grid *g, Rect r)
{
    AppState *s = &u->app;
    if (u->run_err || s->n_q == 0) {
        grid_puts(g, 2, r.y + 1, av_strerror(u->run_err), r.w - 4, STYLE_ACCENT);
        return;
    }
    s->row_step = s->col_step = 1;
    int half = (r.w - 1) / 2;
    Rect left = {r.x, r.y, half, r.h}, right = {r.x + half + 1, r.y, r.w - half - 1, r.h};
    for (int y = r.y; y < r.y + r.h; y++)
        grid_put(g, r.x + half, y, 0x2502, STYLE_DIM, 0); /* │ */
    if (s->compare == CMP_HEADS) {
        cmp_side(u, g, left, &u->res, s->head, "", true);
        cmp_side(u, g, right, &u->res, (s->head + 1) % s->cfg.H, "", false);
        return;
    }
    if (u->run_err2) {
        grid_puts(g, right.x, r.y + 1, av_strerror(u->run_err2), right.w, STYLE_ACCENT);
        return;
    }
    const ModelResult *off = s->cfg.causal ? &u->res2 : &u->res;
    const ModelResult *on = s->cfg.causal ? &u->res : &u->res2;
    cmp_side(u, g, left, off, s->head, ", mask OFF (unmasked)", off == &u->res);
    cmp_side(u, g, right, on, s->head, ", mask ON (masked, causal)", on == &u->res);
}
