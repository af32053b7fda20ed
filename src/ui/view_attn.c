/* view_attn.c - the attention view: the focused head large (labels, cells,
 * legend) on the left; on the right every head as a small heatmap, the
 * selected cell's exact weight and raw score, and the selected token's
 * ranked bars. All drawing goes through heatmap.c, as the text export does.
 */
#include "view_attn.h"

#include <stdio.h>
#include <string.h>

#include "data.h"
#include "view_long.h"
#include "widgets.h"

#define INFO_MIN 7   /* rows the right panel keeps for the cell line and bars */
#define TILE_MIN 6   /* a small heatmap shows at least this many tokens */
#define FOCUS_LABEL_W 10
#define FOCUS_MIN_W 66 /* the focused head's columns when the tiles leave room */

typedef struct {
    int left_w;       /* columns of the focused head */
    int fcw;          /* its cell width */
    int tcw;          /* cell width of the small heatmaps */
    int T, Tk;        /* rows and columns each small heatmap shows */
    int tile_w, tile_h, per_row, tile_rows;
} AttnGeo;

/* Row labels of the focused head: shorter on narrow screens. */
static int label_limit(int screen_w)
{
    return screen_w >= 100 ? FOCUS_LABEL_W : 7;
}

static int focus_label_w(const UiState *u, int screen_w)
{
    int w = 1, limit = label_limit(screen_w);
    for (int k = 0; k < u->app.n_q && w < limit; k++) {
        int lw = grid_text_width(u->labels_q[k]);
        w = lw > w ? lw : w;
    }
    return widget_digits(u->app.n_q) + 1 + (w < limit ? w : limit);
}

/* Try a focused cell width with small heatmaps of T x Tk tokens, in at most
 * max_rows rows of small heatmaps. */
static bool geo_try(const UiState *u, Rect r, int fcw, int T, int Tk, int max_rows, AttnGeo *g)
{
    int H = u->app.cfg.H, nk = u->app.n_k;
    g->fcw = fcw;
    g->left_w = focus_label_w(u, r.w) + 1 + nk * fcw + 1;
    int R = r.w - g->left_w;
    if (R < 26 || T < 1 || Tk < 1)
        return false;
    g->T = T, g->Tk = Tk;
    g->tcw = 2 + Tk * 2 + 1 <= R / H ? 2 : 1;
    g->tile_w = 2 + Tk * g->tcw + 1, g->tile_h = T + 2; /* + the statistics line */
    g->tile_w = g->tile_w < 11 ? 11 : g->tile_w;         /* room for "1.58b .38" */
    g->per_row = R / g->tile_w;
    if (g->per_row < 1)
        return false;
    g->tile_rows = (H + g->per_row - 1) / g->per_row;
    if (g->tile_rows > max_rows || g->tile_rows * g->tile_h + INFO_MIN > r.h)
        return false;
    /* A short sentence: give the focused head's title and statistics room. */
    int across = H < g->per_row ? H : g->per_row;
    int slack = R - across * g->tile_w - 1, grow = FOCUS_MIN_W - g->left_w;
    if (grow > 0 && slack > 0)
        g->left_w += grow < slack ? grow : slack;
    return true;
}

/* Windowed small heatmaps: up to four across, in as many rows as the heads
 * need, each showing the tokens around the selection that fit. */
static bool geo_try_window(const UiState *u, Rect r, int fcw, AttnGeo *g)
{
    int n = u->app.n_q, nk = u->app.n_k, H = u->app.cfg.H;
    int across = H < 4 ? H : 4, rows = (H + across - 1) / across;
    int T = (r.h - INFO_MIN) / rows - 2;
    int R = r.w - (focus_label_w(u, r.w) + 2 + nk * fcw);
    int Tk = R / across - 3;
    T = T < n ? T : n, Tk = Tk < nk ? Tk : nk;
    int least_q = n < TILE_MIN ? n : TILE_MIN, least_k = nk < TILE_MIN ? nk : TILE_MIN;
    return T >= least_q && Tk >= least_k && geo_try(u, r, fcw, T, Tk, rows, g);
}

/* Preference: a focused head wide enough for percentages, then every small
 * heatmap whole, then in one row. */
static void attn_geometry(const UiState *u, Rect r, AttnGeo *g)
{
    int n = u->app.n_q, nk = u->app.n_k, H = u->app.cfg.H;
    for (int fcw = 5; fcw >= 3; fcw--)
        if (geo_try(u, r, fcw, n, nk, 1, g))
            return;
    for (int fcw = 5; fcw >= 2; fcw--)
        if (geo_try(u, r, fcw, n, nk, H, g))
            return;
    for (int fcw = 5; fcw >= 2; fcw--)
        if (geo_try_window(u, r, fcw, g))
            return;
    if (geo_try(u, r, 1, n, nk, H, g) || geo_try_window(u, r, 1, g))
        return;
    /* Last resort: half the width each; the tiles show what fits. */
    int T = r.h - INFO_MIN - 1 < n ? r.h - INFO_MIN - 1 : n;
    g->left_w = r.w / 2;
    g->fcw = 0;
    int R = r.w - g->left_w;
    g->Tk = R / H - 3 < nk ? R / H - 3 : nk;
    g->Tk = g->Tk < TILE_MIN ? (nk < TILE_MIN ? nk : TILE_MIN) : g->Tk;
    g->T = T < 1 ? 1 : T, g->tcw = 1;
    g->tile_w = 2 + g->Tk + 1, g->tile_h = g->T + 2;
    g->per_row = R / g->tile_w < 1 ? 1 : R / g->tile_w;
    g->tile_rows = (r.h - INFO_MIN) / g->tile_h < 1 ? 1 : (r.h - INFO_MIN) / g->tile_h;
}

static HeatmapSpec spec_for(const UiState *u, int h)
{
    return (HeatmapSpec){
        .P = model_head_P(&u->res, u->app.layer, h), .n_q = u->app.n_q, .n_k = u->app.n_k,
        .row_labels = u->labels_q, .col_labels = u->labels_k, .causal = u->res.shape.causal,
        .mode = u->hmode, .sel_row = u->app.sel_row, .sel_col = u->app.sel_col,
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

/* The focused head: title, heatmap scrolled to the selection, legend. */
static void draw_focus(UiState *u, Grid *g, Rect r, int fcw)
{
    const AppState *s = &u->app;
    HeatmapSpec sp = spec_for(u, s->head);
    sp.cell_w = fcw, sp.label_w = label_limit(g->w), sp.number_rows = true;
    int max_h = r.h - 1 - 3; /* title; legend and axis note below */
    HeatmapLayout *l = &u->lay.focus;
    for (int pass = 0; pass < 2; pass++) {
        sp.first_row = u->first_row, sp.first_col = u->first_col;
        widget_rect_clear(g, (Rect){r.x, r.y + 1, r.w, max_h});
        heatmap_draw(g, r.x, r.y + 1, r.w, max_h, &sp, l);
        int cap_rows = max_h - (l->cells_y - l->y);
        int cap_cols = l->cell_w > 0 ? (r.w - (l->cells_x - r.x)) / l->cell_w : 0;
        u->first_row = keep_visible(u->first_row, s->sel_row, cap_rows, s->n_q);
        u->first_col = keep_visible(u->first_col, s->sel_col, cap_cols, s->n_k);
        if (u->first_row == sp.first_row && u->first_col == sp.first_col)
            break;
    }
    u->lay.have_focus = true;
    widget_tint_cells(u, g, &sp, l);
    int used = grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "Head %d of %d, layer %d of %d: %s",
                           s->head + 1, s->cfg.H, s->layer + 1, s->cfg.layers,
                           model_head_label(&s->cfg, s->layer, s->head));
    char stats[64];
    int sw = widget_stats_text(data_stats(u, 0, s->head), true, stats, sizeof stats);
    bool in_title = used + 2 + sw <= r.w;
    if (in_title)
        used += grid_printf(g, r.x + used, r.y, r.w - used, STYLE_ACCENT, "  %s", stats);
    if (l->rows < s->n_q || l->cols < s->n_k)
        grid_printf(g, r.x + used, r.y, r.w - used, STYLE_DIM, "  rows %d-%d, cols %d-%d of %d",
                    l->first_row + 1, l->first_row + l->rows, l->first_col + 1,
                    l->first_col + l->cols, s->n_k);
    int ly = l->y + l->h;
    heatmap_legend(g, r.x, ly, r.w, u->hmode, sp.causal);
    int ny = ly + (u->hmode == HEATMAP_COLOR ? 2 : 1), nx = 0;
    if (!in_title)
        nx = grid_printf(g, r.x, ny, r.w, STYLE_ACCENT, "%s  ", stats);
    grid_printf(g, r.x + nx, ny, r.w - nx, STYLE_DIM, "rows: queries%s, columns: keys%s",
                s->cross_on ? " (sentence 1)" : "", s->cross_on ? " (sentence 2)" : "");
}

static void draw_tile(UiState *u, Grid *g, int x, int y, const AttnGeo *geo, int h)
{
    const AppState *s = &u->app;
    HeatmapSpec sp = spec_for(u, h);
    sp.row_labels = u->ini_q, sp.col_labels = u->ini_k;
    sp.cell_w = geo->tcw, sp.label_w = 1, sp.sel_col = -1;
    sp.first_row = keep_visible(s->sel_row - geo->T / 2, s->sel_row, geo->T, s->n_q);
    sp.first_col = keep_visible(s->sel_row - geo->Tk / 2, s->sel_row, geo->Tk, s->n_k);
    int k = u->lay.n_tiles++;
    HeatmapLayout *l = &u->lay.tile[k];
    heatmap_draw(g, x, y, geo->tile_w - 1, geo->tile_h - 1, &sp, l);
    widget_tint_cells(u, g, &sp, l);
    /* Colour alone in the small heads: percentages two columns wide run together. */
    for (int r = 0; r < l->rows; r++)
        for (int c = 0; c < l->cols * l->cell_w; c++) {
            Cell *cell = grid_at(g, l->cells_x + c, l->cells_y + r);
            if (cell && cell->style == STYLE_HEAT && u->depth == DEPTH_256)
                cell->cp = ' ';
        }
    u->lay.tile_head[k] = h;
    u->lay.tile_rect[k] = (Rect){x, y, geo->tile_w - 1, geo->tile_h};
    char stats[32];
    widget_stats_text(data_stats(u, 0, h), false, stats, sizeof stats);
    grid_puts(g, x, y + geo->tile_h - 1, stats, geo->tile_w - 1, STYLE_DIM);
    /* The head number in the corner, which heatmap_draw leaves blank. */
    grid_printf(g, x, y, 2, h == s->head ? STYLE_LABEL_SEL : STYLE_TITLE, "%d", h + 1);
}

/* Every head as a small heatmap, the focused one marked; heads that do not
 * fit are left out around the focused one. Returns the rows used. */
static int draw_tiles(UiState *u, Grid *g, Rect r, const AttnGeo *geo)
{
    int H = u->app.cfg.H, fit = geo->per_row * geo->tile_rows, h0 = 0;
    if (H > fit) {
        h0 = u->app.head - fit / 2;
        h0 = h0 > H - fit ? H - fit : h0 < 0 ? 0 : h0;
    }
    int shown = H - h0 < fit ? H - h0 : fit;
    if (shown < H)
        grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "Heads %d-%d of %d (Tab, click: focus)",
                    h0 + 1, h0 + shown, H);
    else
        grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "All %d heads (Tab, 1-9, click: focus)", H);
    int rows = 0;
    for (int k = 0; k < shown; k++) {
        int row = k / geo->per_row, col = k % geo->per_row;
        draw_tile(u, g, r.x + col * geo->tile_w, r.y + 1 + row * geo->tile_h, geo, h0 + k);
        rows = row + 1;
    }
    return 1 + rows * geo->tile_h;
}

void view_attn_draw(UiState *u, Grid *g, Rect r)
{
    AppState *s = &u->app;
    if (u->run_err || s->n_q == 0) {
        const char *why = u->run_err == AV_ERR_EMPTY
                              ? "Nothing to show yet: press e (or Enter) and type a sentence."
                              : av_strerror(u->run_err);
        grid_puts(g, 2, r.y + 1, why, r.w - 4, STYLE_ACCENT);
        return;
    }
    s->row_step = s->col_step = 1;
    if (view_long_wanted(u, r)) {
        view_long_draw(u, g, r);
        return;
    }
    AttnGeo geo;
    attn_geometry(u, (Rect){r.x, r.y, r.w, r.h - 1}, &geo);
    Rect left = {r.x, r.y, geo.left_w - 1, r.h};
    Rect right = {r.x + geo.left_w, r.y, r.w - geo.left_w, r.h};
    draw_focus(u, g, left, geo.fcw);
    s->page = u->lay.focus.rows > 2 ? u->lay.focus.rows - 1 : 1;
    int used = draw_tiles(u, g, right, &geo);
    Rect below = {right.x, right.y + used, right.w, right.h - used};
    widget_info_draw(u, g, below, &u->res, s->head);
}
