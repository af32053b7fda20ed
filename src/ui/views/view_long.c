/* view_long.c - a text too long for one cell a token: the focused head's
 * weights pooled down to the screen (pool.h, max or mean), two cells a
 * screen row with the half block ▀ in colour (foreground the upper cell,
 * background the lower), one in glyph mode. Zoom halves the tokens shown
 * around the selection down to one token a row, where the labels are the
 * tokens again; until then they are ranges ("129-192"). Every head is shown
 * small and pooled on the right, over the selected token's bars.
 */
#include "view_long.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "../data.h"
#include "../widgets.h"

#define LONG_LABEL_W 12 /* "16321-16384" */
#define HALF_BLOCK 0x2580u

bool view_long_wanted(const UiState *u, Rect r)
{
    const AppState *s = &u->a.app;
    /* a lesson page speaks of a token's row: the rows scroll to it rather
     * than pool when the page leaves the view few lines */
    bool rows_pool = s->n_q > 2 * (r.h - 4) && !u->a.lesson.active;
    return u->a.ses.res.lazy || rows_pool || s->n_k > r.w - 40;
}

typedef struct {
    int x, y, rows, cols; /* the cells' screen rectangle */
    int cw;               /* columns a cell */
    bool half;            /* two cells a screen row */
    int zoom;             /* the zoom drawn (the state's, at most the deepest) */
    ViewAxis ar, ac;
} LongGeo;

/* Zoom, scroll and pooling of both axes for cells in rows x cols. */
static void long_geo(UiState *u, int rows, int cols, LongGeo *lg)
{
    const AppState *s = &u->a.app;
    AppLayout *rep = &u->report;
    int zmax = axis_zoom_max(s->n_q, rows), zc = axis_zoom_max(s->n_k, cols);
    zmax = zc > zmax ? zc : zmax;
    if (s->zoom > zmax && (rep->zoom_max < 0 || zmax < rep->zoom_max))
        rep->zoom_max = zmax; /* app_layout clamps the zoom, with a line */
    lg->zoom = rep->zoom_max >= 0 && s->zoom > rep->zoom_max ? rep->zoom_max : s->zoom;
    bool centre = s->recentre && !rep->recentred; /* once a frame */
    int sel_c = s->sel_col >= 0 ? s->sel_col : (s->n_k == s->n_q ? s->sel_row : 0);
    lg->ar = axis_view(s->n_q, rows, lg->zoom, s->sel_row, u->long_first_row, centre);
    lg->ac = axis_view(s->n_k, cols, lg->zoom, sel_c, u->long_first_col, centre);
    lg->half = u->hmode == HEATMAP_COLOR && lg->ar.span > rows;
    if (lg->half)
        lg->ar.cells = lg->ar.span < 2 * rows ? lg->ar.span : 2 * rows;
    lg->cw = lg->ac.span == lg->ac.cells ? cols / (lg->ac.cells > 0 ? lg->ac.cells : 1) : 1;
    lg->cw = lg->cw > 4 ? 4 : lg->cw < 1 ? 1 : lg->cw;
    lg->rows = lg->half ? (lg->ar.cells + 1) / 2 : lg->ar.cells;
    lg->cols = lg->ac.cells;
    u->long_first_row = lg->ar.first, u->long_first_col = lg->ac.first;
    rep->row_step = (lg->ar.span + lg->rows - 1) / (lg->rows > 0 ? lg->rows : 1);
    rep->col_step = (lg->ac.span + lg->cols - 1) / (lg->cols > 0 ? lg->cols : 1);
    rep->page = lg->rows > 2 ? (lg->rows - 1) * rep->row_step : rep->row_step;
}

/* A pooled value as a level, GRID_LEVELS for masked. */
static int cell_level(float v)
{
    return v < 0.0f ? GRID_LEVELS : heatmap_level(v);
}

static void put_half(Grid *g, int x, int y, int up, int lo)
{
    Cell *c = grid_at(g, x, y);
    if (!c)
        return;
    *c = (Cell){HALF_BLOCK, STYLE_HEAT, 0, GRID_CELL_HALF};
    c->level = grid_half_level(up == GRID_LEVELS ? 0 : up, lo == GRID_LEVELS ? 0 : lo);
    c->flags |= (up == GRID_LEVELS ? GRID_CELL_UP_MASKED : 0) |
                (lo == GRID_LEVELS ? GRID_CELL_LO_MASKED : 0);
}

/* One cell in glyph mode (or colour at one cell a row): shade or mask. */
static void put_cell(const UiState *u, Grid *g, int x, int y, float v)
{
    if (v < 0.0f)
        grid_put(g, x, y, HEATMAP_MASKED_GLYPH, STYLE_MASKED, 0);
    else if (u->hmode == HEATMAP_COLOR)
        grid_put(g, x, y, ' ', STYLE_HEAT, heatmap_level(v));
    else
        grid_put(g, x, y, heatmap_glyph(heatmap_glyph_index(v)),
                 u->depth == DEPTH_8 ? STYLE_HEAT : STYLE_TEXT, heatmap_level(v));
}

/* A pooled value as its share of full (sums of heads: 0..H), masked ones
 * (negative) as they are. */
static float share_of(float v, float full)
{
    return full > 1.0f && v >= 0.0f ? v / full : v;
}

static void draw_cells(const UiState *u, Grid *g, const LongGeo *lg, const float *M)
{
    int gw = lg->ac.cells;
    float full = comb_full(&u->a.ses.comb); /* sums shaded by their share of the most */
    for (int y = 0; y < lg->rows; y++)
        for (int x = 0; x < lg->cols; x++)
            for (int k = 0; k < lg->cw; k++) {
                int sx = lg->x + x * lg->cw + k, sy = lg->y + y;
                if (!lg->half) {
                    put_cell(u, g, sx, sy, share_of(M[(size_t)y * gw + x], full));
                    continue;
                }
                if (2 * y + 1 >= lg->ar.cells) { /* an odd last row: a whole cell, not a
                                                     half that would look masked */
                    put_cell(u, g, sx, sy, share_of(M[(size_t)(2 * y) * gw + x], full));
                    continue;
                }
                float up = share_of(M[(size_t)(2 * y) * gw + x], full);
                float lo = share_of(M[(size_t)(2 * y + 1) * gw + x], full);
                put_half(g, sx, sy, cell_level(up), cell_level(lo));
            }
}

/* Tokens [t0, t1) of screen row y. */
static void row_tokens(const LongGeo *lg, int y, int *t0, int *t1)
{
    int c0 = lg->half ? 2 * y : y, c1 = lg->half ? 2 * y + 1 : y, a;
    c1 = c1 < lg->ar.cells ? c1 : lg->ar.cells - 1;
    axis_cell_range(&lg->ar, c0, t0, &a);
    axis_cell_range(&lg->ar, c1, &a, t1);
}

static void draw_row_labels(UiState *u, Grid *g, const LongGeo *lg)
{
    int sel = u->a.app.sel_row;
    for (int y = 0; y < lg->rows; y++) {
        int t0, t1, sy = lg->y + y;
        char lab[48];
        row_tokens(lg, y, &t0, &t1);
        bool mine = sel >= t0 && sel < t1;
        int nw = grid_digits(u->a.app.n_q) & 7; /* at most 5 digits (16384 tokens) */
        if (t1 - t0 == 1)                       /* numbers right-aligned: no shift at token 10 */
            snprintf(lab, sizeof lab, "%*d %.24s", nw, t0 + 1, u->labels_q[t0]);
        else
            axis_range_label(t0, t1, lab, sizeof lab);
        grid_put(g, lg->x - LONG_LABEL_W - 2, sy, mine ? 0x25B6 : ' ', STYLE_ACCENT, 0);
        grid_puts(g, lg->x - LONG_LABEL_W - 1, sy, lab, LONG_LABEL_W,
                  mine           ? STYLE_LABEL_SEL
                  : t1 - t0 == 1 ? STYLE_LABEL
                                 : STYLE_DIM);
    }
}

/* Column ticks: the first token of a cell every few columns, or the tokens
 * themselves when each has a cell wide enough; the selected key marked. */
static void draw_col_ticks(UiState *u, Grid *g, const LongGeo *lg, int y)
{
    int every = lg->cw >= 4 ? 1 : 10 / lg->cw, sel = u->a.app.sel_col;
    for (int c = 0; c < lg->cols; c += every) {
        int t0, t1, x = lg->x + c * lg->cw;
        axis_cell_range(&lg->ac, c, &t0, &t1);
        if (lg->cw >= 4 && t1 - t0 == 1)
            grid_puts(g, x, y, u->labels_k[t0], lg->cw - 1, STYLE_LABEL);
        else if (x + 6 <= lg->x + lg->cols * lg->cw)
            grid_printf(g, x, y, 6, STYLE_DIM, "%d", t0 + 1);
    }
    int c = sel >= 0 ? axis_cell_of(&lg->ac, sel) : -1;
    if (c >= 0)
        grid_put(g, lg->x + c * lg->cw, y, 0x25BC, STYLE_ACCENT, 0); /* ▼ */
}

/* "zoom 2 (z/Z/0) | rows ..., cols ... | max pooling (a)", then the tokens a
 * cell covers; "of sampled rows" where a cell reads only some of its rows */
static void draw_readout(UiState *u, Grid *g, const LongGeo *lg, bool sampled, int x, int y, int w)
{
    int rmin = lg->ar.span / lg->rows, rmax = (lg->ar.span + lg->rows - 1) / lg->rows;
    int cmin = lg->ac.span / lg->cols, cmax = (lg->ac.span + lg->cols - 1) / lg->cols;
    char rr[24], cc[24];
    snprintf(rr, sizeof rr, rmin == rmax ? "%d" : "%d-%d", rmin, rmax);
    snprintf(cc, sizeof cc, cmin == cmax ? "%d" : "%d-%d", cmin, cmax);
    /* where it is too long, the keys go first, then "zoom", then the
     * word "pooling" ("max pool"), then the pooling */
    char span[64], t[6][160];
    snprintf(span, sizeof span, "rows %d-%d, cols %d-%d", lg->ar.first + 1,
             lg->ar.first + lg->ar.span, lg->ac.first + 1, lg->ac.first + lg->ac.span);
    const char *pool = u->a.app.pool_mean ? "mean" : "max", *of = sampled ? " of sampled rows" : "";
    snprintf(t[0], sizeof t[0], "zoom %d (z/Z/0) | %s | %s pooling%s (a)", lg->zoom, span, pool,
             of);
    snprintf(t[1], sizeof t[1], "zoom %d | %s | %s pooling%s (a)", lg->zoom, span, pool, of);
    snprintf(t[2], sizeof t[2], "zoom %d | %s | %s pooling%s", lg->zoom, span, pool, of);
    snprintf(t[3], sizeof t[3], "%s | %s pooling%s", span, pool, of);
    snprintf(t[4], sizeof t[4], "%s | %s pool%s", span, pool, sampled ? ", sampled" : "");
    snprintf(t[5], sizeof t[5], "%s", span);
    const char *const forms[] = {t[0], t[1], t[2], t[3], t[4], t[5]};
    grid_puts(g, x, y, forms[widget_fit(forms, 6, w)], w, STYLE_DIM);
    /* the half blocks' note goes first, then the words' length */
    snprintf(t[0], sizeof t[0], "a row: %s token%s%s, a column: %s", rr, rmax > 1 ? "s" : "",
             lg->half ? " (▀ 2 cells)" : "", cc);
    snprintf(t[1], sizeof t[1], "a row: %s token%s, a column: %s", rr, rmax > 1 ? "s" : "", cc);
    snprintf(t[2], sizeof t[2], "row: %s token%s, col: %s", rr, rmax > 1 ? "s" : "", cc);
    grid_puts(g, x, y + 1, forms[widget_fit(forms, 3, w)], w, STYLE_DIM);
}

void view_long_head(UiState *u, Grid *g, Rect r, const ModelResult *res, int h, const char *title,
                    bool main)
{
    const AppState *s = &u->a.app;
    int legend_h = heatmap_legend_rows(r.w, u->hmode, res->shape.causal, comb_full(&u->a.ses.comb));
    int rows = r.h - 2 - 2 - legend_h, cols = r.w - LONG_LABEL_W - 3;
    if (rows < 2 || cols < 4)
        return;
    LongGeo lg = {.x = r.x + LONG_LABEL_W + 2, .y = r.y + 2};
    long_geo(u, rows, cols, &lg);
    char stats[80];
    int used = grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "%s", title);
    if (widget_stats_fit(data_stats(u, res == &u->a.ses.res2, h), r.w - used - 2, stats,
                         sizeof stats) > 0)
        grid_printf(g, r.x + used, r.y, r.w - used, STYLE_ACCENT, "  %s", stats);
    draw_col_ticks(u, g, &lg, r.y + 1);
    draw_cells(u, g, &lg, data_pooled(u, res, s->layer, h, &lg.ar, &lg.ac));
    draw_row_labels(u, g, &lg);
    draw_readout(u, g, &lg, data_pool_sampled(res, &lg.ar, &lg.ac), r.x, lg.y + lg.rows, r.w);
    heatmap_legend_of(g, r.x, lg.y + lg.rows + 2, r.w, u->hmode, res->shape.causal,
                      comb_full(&u->a.ses.comb));
    if (!main)
        return;
    u->report.recentred = true;
    u->lay.have_long = true;
    u->lay.long_x = lg.x, u->lay.long_y = lg.y, u->lay.long_rows = lg.rows;
    u->lay.long_cw = lg.cw, u->lay.long_half = lg.half;
    u->lay.long_r = lg.ar, u->lay.long_c = lg.ac;
}

/* Geometry of one small head: cells (x, y) .. in rows x cols screen cells. */
static void tile_geo(const UiState *u, int x, int y, int rows, int cols, LongGeo *lg)
{
    int n_q = u->a.app.n_q, n_k = u->a.app.n_k;
    bool half = u->hmode == HEATMAP_COLOR && n_q > rows; /* two cells a row only if needed */
    *lg = (LongGeo){.x = x, .y = y, .cw = 1, .half = half};
    lg->ar = axis_view(n_q, half ? 2 * rows : rows, 0, 0, 0, false);
    lg->ac = axis_view(n_k, cols, 0, 0, 0, false);
    lg->rows = half ? (lg->ar.cells + 1) / 2 : lg->ar.cells, lg->cols = lg->ac.cells;
    if (lg->ac.cells == n_k && n_k > 0)
        lg->cw = cols / n_k > 2 ? 2 : cols / n_k; /* square-ish cells when they fit */
}

/* The tiles' title where no line under them explains the captions: in
 * full where it fits, else the first shorter form that does ("All 12
 * heads: entropy (b), mean top", "12 heads: entropy, top"). */
static void heads_title(Grid *g, Rect r, int H, const char *bits, const char *pooled)
{
    char t[4][96];
    snprintf(t[0], sizeof t[0], "All %d heads: entropy%s, mean top%s", H, bits, pooled);
    snprintf(t[1], sizeof t[1], "All %d heads: entropy%s, mean top", H, bits);
    snprintf(t[2], sizeof t[2], "%d heads: entropy%s, top", H, bits);
    snprintf(t[3], sizeof t[3], "%d heads: entropy, top", H);
    const char *const forms[] = {t[0], t[1], t[2], t[3]};
    int k = grid_first_fit(forms, 3, r.w);
    grid_puts(g, r.x, r.y, forms[k < 0 ? 3 : k], r.w, STYLE_TITLE);
}

/* Head label into out, in the first of its shorter forms that fits w
 * columns: " -> " as an arrow, then its long words abbreviated ("prev tok",
 * "1st tok", "pron\u2192noun", "antec 0.73"), then nouns and verbs to their
 * first letter ("pron\u2192n", "v\u2192subj"), then the same without a
 * trained head's score ("induction 0.68": "induction"); the last is cut
 * where drawn. */
static void tile_label(const char *label, int w, char *out, size_t size)
{
    static const char *const words[][2] = {
        {" -> ", "\u2192"},  {"previous", "prev"},    {"token", "tok"},        {"first", "1st"},
        {"subject", "subj"}, {"pronoun", "pron"},     {"word", "wd"},          {"duplicate", "dup"},
        {"position", "pos"}, {"antecedent", "antec"}, {"induction", "induct"}, {"noun", "n"},
        {"verb", "v"}};
    static const int tier_end[] = {0, 1, 11, 13}; /* the words each form replaces */
    char in[128];
    snprintf(out, size, "%s", label);
    for (int t = 1; t < 4 && grid_text_width(out) > w; t++) {
        for (int k = tier_end[t - 1]; k < tier_end[t]; k++) {
            snprintf(in, sizeof in, "%s", out);
            size_t at = 0, from = strlen(words[k][0]);
            out[0] = '\0';
            for (char *p = in, *hit; *p; p = hit + from) {
                hit = strstr(p, words[k][0]);
                /* whole words: "noun" in "pronoun" stays */
                while (hit && t > 1 && hit > in && isalpha((unsigned char)hit[-1]))
                    hit = strstr(hit + 1, words[k][0]);
                int m = snprintf(out + at, size - at, "%.*s%s",
                                 hit ? (int)(hit - p) : (int)strlen(p), p, hit ? words[k][1] : "");
                at = m < 0 || (size_t)m >= size - at ? size - 1 : at + (size_t)m;
                if (!hit)
                    break;
            }
        }
    }
    const char *score = strrchr(label, ' ');
    if (grid_text_width(out) > w && score && score > label && strspn(score + 1, "0123456789.") &&
        !score[1 + strspn(score + 1, "0123456789.")]) {
        snprintf(in, sizeof in, "%.*s", (int)(score - label), label);
        tile_label(in, w, out, size);
    }
}

/* Whether the H heads of the layer shown all have one label (a real model's
 * "learned", an example's weights). */
static bool labels_shared(UiState *u, int H)
{
    char first[sizeof u->label_text];
    snprintf(first, sizeof first, "%s", widget_head_label(u, 0));
    for (int h = 1; h < H; h++)
        if (strcmp(first, widget_head_label(u, h)) != 0)
            return false;
    return true;
}

int view_long_tiles(UiState *u, Grid *g, Rect r, int max_h)
{
    /* three across when "5 pronoun -> noun" fits each, else two; more
     * across (labels cut) when the height leaves too few rows for that */
    int H = u->a.app.cfg.H, per_row = r.w / 3 >= 19 && H > 2 ? 3 : H > 1 && r.w >= 24 ? 2 : 1;
    while (per_row < H && r.w / (per_row + 1) >= 8 &&
           (max_h - 1) / ((H + per_row - 1) / per_row) - 2 < 2)
        per_row++;
    per_row = H < per_row ? H : per_row;
    int tile_w = r.w / per_row, tile_rows = (H + per_row - 1) / per_row;
    bool half = u->hmode == HEATMAP_COLOR;
    int want = half ? (u->a.app.n_q + 1) / 2 : u->a.app.n_q;
    int T = (max_h - 1) / tile_rows - 2; /* the title above */
    if (half && T >= u->a.app.n_q)
        want = u->a.app.n_q; /* one cell a row fits: no half blocks */
    T = T > want ? want : T > 10 ? 10 : T;
    /* the captions' key ("2.41b .41") gets a row of its own where the
     * panel below still has room for the bars (up to 8), else it takes the
     * title's hint */
    int below = r.h - (2 + tile_rows * (T + 2));
    int bars = u->a.app.n_k < 8 ? u->a.app.n_k : 8;
    bool key_row = 1 + tile_rows * (T + 2) + 1 <= max_h && below >= bars + 4;
    if (T < 1 || tile_w < 8)
        return 0;
    bool whole = (half ? 2 * T : T) >= u->a.app.n_q && tile_w - 1 >= u->a.app.n_k;
    LongGeo lg0; /* every tile's axes are the same */
    tile_geo(u, r.x, r.y + 2, T, tile_w - 1, &lg0);
    const char *pooled = ", each pooled whole";
    if (whole)
        pooled = "";
    else if (data_pool_sampled(&u->a.ses.res, &lg0.ar, &lg0.ac))
        pooled = ", pooled from sampled rows";
    /* "(b)" where the captions have room for it ("0.51b .85", 9 columns) */
    if (H > 1 && !key_row)
        heads_title(g, r, H, tile_w - 1 >= 9 ? " (b)" : "", pooled);
    else if (H > 1) { /* the keys go before what the tiles show */
        char t[3][96];
        snprintf(t[0], sizeof t[0], "All %d heads%s (Tab, 1-9, click)", H, pooled);
        snprintf(t[1], sizeof t[1], "All %d heads%s (Tab, 1-9)", H, pooled);
        snprintf(t[2], sizeof t[2], "All %d heads%s", H, pooled);
        const char *const forms[] = {t[0], t[1], t[2]};
        grid_puts(g, r.x, r.y, forms[widget_fit(forms, 3, r.w)], r.w, STYLE_TITLE);
    } else if (comb_one_head(u->a.ses.comb.mode)) /* the heads combined into one */
        grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "All %d heads as one%s",
                    comb_model_heads(&u->a.ses.comb, &u->a.app), pooled);
    else
        grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "One head%s", pooled);
    const bool same = labels_shared(u, H);
    for (int h = 0; h < H; h++) {
        int x = r.x + (h % per_row) * tile_w, y = r.y + 1 + (h / per_row) * (T + 2);
        LongGeo lg;
        tile_geo(u, x, y + 1, T, tile_w - 1, &lg);
        draw_cells(u, g, &lg, data_pooled(u, &u->a.ses.res, u->a.app.layer, h, &lg.ar, &lg.ac));
        int st = h == u->a.app.head ? STYLE_LABEL_SEL : STYLE_TITLE;
        /* the head's number for 1-9, unless it is the only one ("1 heads
         * combined" read as a count); a label every head shares ("learned")
         * tells the tiles apart no better than "head" */
        int used =
            H > 1 ? grid_printf(g, x, y, tile_w - 1, st, "%s%d ", same ? "head " : "", h + 1) : 0;
        if (!same || H == 1) {
            char lab[128];
            tile_label(widget_head_label(u, h), tile_w - 1 - used, lab, sizeof lab);
            grid_puts(g, x + used, y, lab, tile_w - 1 - used, H > 1 ? STYLE_LABEL : st);
        }
        char stats[32];
        widget_stats_caption(data_stats(u, 0, h), tile_w - 1, stats, sizeof stats);
        grid_puts(g, x, y + 1 + lg.rows, stats, tile_w - 1, STYLE_DIM);
        int k = u->lay.n_tiles++;
        u->lay.tile_head[k] = h;
        u->lay.tile_rect[k] = (Rect){x, y, tile_w - 1, T + 2};
    }
    if (!key_row)
        return 1 + tile_rows * (T + 2);
    grid_puts(g, r.x, r.y + 1 + tile_rows * (T + 2),
              r.w >= 46 ? "under each: entropy (b: bits), mean top weight"
                        : "entropy (b: bits), mean top weight",
              r.w, STYLE_DIM);
    return 2 + tile_rows * (T + 2);
}

void view_long_draw(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    int R = r.w / 3 < 28 ? 28 : r.w / 3 > 48 ? 48 : r.w / 3;
    Rect left = {r.x, r.y, r.w - R - 1, r.h}, right = {r.x + r.w - R, r.y, R, r.h};
    char title[224];
    char layer[48] = "";
    if (s->cfg.layers > 1)
        snprintf(layer, sizeof layer, ", layer %d of %d", s->layer + 1, s->cfg.layers);
    char name[96];
    comb_head_title(&u->a.ses.comb, s, name, sizeof name);
    if (comb_one_head(u->a.ses.comb.mode))
        snprintf(title, sizeof title, "%s%s, %d x %d tokens", name,
                 u->a.ses.comb.mode == COMB_ROLLOUT ? "" : layer, s->n_q, s->n_k);
    else if (snprintf(title, sizeof title, "%s%s: %s, %d x %d tokens", name, layer,
                      widget_head_label(u, s->head), s->n_q, s->n_k) > left.w)
        snprintf(title, sizeof title, "%s%s, %d x %d tokens", name, layer, s->n_q, s->n_k);
    view_long_head(u, g, left, &u->a.ses.res, s->head, title, true);
    int used = view_long_tiles(u, g, right, right.h / 2);
    widget_info_draw(u, g, (Rect){right.x, right.y + used, right.w, right.h - used}, &u->a.ses.res,
                     s->head);
}
