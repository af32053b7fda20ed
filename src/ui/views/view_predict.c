/* view_predict.c - what the model predicts: for the selected query token,
 * the next-token distribution's most probable entries (a masked-LM's
 * fill-ins of the token, the kind's title says) with their
 * probabilities, as Transformer Explainer lists them, each token in its
 * display form (a leading space as a visible mark). The numbers come from
 * the kind through the session, which keeps them until the run or the
 * selection changes (session_predict_update, asked by app_poll); this file
 * draws them.
 */
#include "view_predict.h"

#include <math.h>
#include <stdio.h>

#include "render/heatmap.h"

int view_predict_rows(const UiState *u, int h)
{
    if (u->a.ses.run_err || u->a.app.n_q == 0 || u->a.app.cross_on ||
        !kind_has_logits(u->a.ses.kind))
        return 0;
    int want = VIEW_PREDICT_ROWS_MOST;
    return h >= 28 ? want : h >= 16 ? 5 : h >= 12 ? 4 : 0;
}

/* A bar of frac of width columns in eighths of a cell. */
static void bar(Grid *g, int x, int y, int width, float frac)
{
    static const unsigned eighths[8] = {0, 0x258F, 0x258E, 0x258D, 0x258C, 0x258B, 0x258A, 0x2589};
    int units = (int)lrintf(frac * (float)width * 8), level = heatmap_level(frac);
    for (int k = 0; k < width && units > 0; k++, units -= 8)
        grid_put(g, x + k, y, units >= 8 ? 0x2588 : eighths[units], STYLE_BAR, level);
}

void view_predict_draw(UiState *u, Grid *g, Rect r)
{
    int i = u->a.app.sel_row;
    if (r.h < 2 || i < 0 || i >= u->a.app.n_q)
        return;
    bool wide = r.w >= 40;
    int used = grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "%s %d ",
                           kind_predict_title(u->a.ses.kind, wide), i + 1);
    used += grid_puts(g, r.x + used, r.y, u->labels_q[i], 12, STYLE_LABEL_SEL);
    if (!session_predict_fresh(&u->a.ses, &u->a.app)) { /* asked once no key waits */
        u->report.pred_wanted = true;                   /* asked by app_poll once no key waits */
        grid_puts(g, r.x + used, r.y, ": \u2026", r.w - used, STYLE_DIM);
        return;
    }
    const SessionPredict *p = u->a.ses.pred_err ? NULL : &u->a.ses.pred;
    if (!p) {
        int err = u->a.ses.pred_err;
        grid_printf(g, r.x + used, r.y, r.w - used, STYLE_ACCENT, ": %s",
                    err == KIND_BUSY ? "computing\u2026" : av_strerror(err));
        return;
    }
    if (wide)
        grid_printf(g, r.x + used, r.y, r.w - used, STYLE_TITLE,
                    " (top %d of %d):", p->n < r.h - 1 ? p->n : r.h - 1, p->V);
    else
        grid_puts(g, r.x + used, r.y, ":", r.w - used, STYLE_TITLE);
    int label_w = wide ? 14 : 10, bar_w = r.w - 3 - label_w - 8;
    bar_w = bar_w > 30 ? 30 : bar_w;
    for (int k = 0; k < p->n && k < r.h - 1; k++) {
        int y = r.y + 1 + k;
        grid_printf(g, r.x, y, 3, STYLE_DIM, "%2d", k + 1);
        grid_puts(g, r.x + 3, y, p->text[k], label_w - 1, STYLE_LABEL);
        grid_printf(g, r.x + 3 + label_w, y, 8, STYLE_TEXT, "%6.2f%%", (double)p->prob[k] * 100);
        if (bar_w > 0)
            bar(g, r.x + 3 + label_w + 8, y, bar_w, p->prob[k]);
    }
}
