/* heatmap.c - an attention matrix drawn into a Grid: labels, shaded cells,
 * legend, and the ranked bar chart of one row. No terminal here: the UI and
 * the text export share every line of it.
 */
#include "render/heatmap.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#define ROT_MAX 8 /* rows of a rotated column label, at the most */

static const unsigned glyphs[HEATMAP_GLYPHS] = {0x00B7, 0x2591, 0x2592, 0x2593, 0x2588};
/* Lower bounds of glyphs 1..4: 5%, 15%, 35%, 65%. */
static const float glyph_edges[HEATMAP_GLYPHS - 1] = {0.05f, 0.15f, 0.35f, 0.65f};

int heatmap_level(float w)
{
    if (!(w > 0.0f)) /* zero, negative or NaN */
        return 0;
    if (w >= 1.0f) /* before the cast: (int) of +Inf is undefined */
        return GRID_LEVELS - 1;
    int level = (int)(sqrtf(w) * GRID_LEVELS);
    return level >= GRID_LEVELS ? GRID_LEVELS - 1 : level;
}

typedef float F4 __attribute__((vector_size(4 * sizeof(float))));
typedef int32_t I4 __attribute__((vector_size(4 * sizeof(int32_t))));

/* keep ? a : b lane by lane, keep 0 or -1 in each lane */
static inline I4 i4_select(I4 keep, I4 a, I4 b)
{
    return (a & keep) | (b & ~keep);
}

/* heatmap_level of four weights: the weights outside (0, 1) (NaN too) take
 * the square root of 0 and are then given their level by the two masks. */
static inline I4 levels4(F4 w)
{
    const F4 zero = {0}, one = zero + 1.0f;
    const I4 pos = w > zero, big = w >= one, top = (I4){0} + (GRID_LEVELS - 1);
    F4 s = (F4)((I4)w & pos & ~big);
#if defined(__SSE__)
    s = (F4)_mm_sqrt_ps((__m128)s);
#else
    for (int k = 0; k < 4; k++)
        s[k] = sqrtf(s[k]);
#endif
    I4 level = __builtin_convertvector(s * (float)GRID_LEVELS, I4);
    level = i4_select(level > top, top, level);
    return i4_select(big, top, level);
}

/* heatmap_levels into int32_t: each block of four stored whole, so level
 * has room for n rounded up to a multiple of four. */
static void levels_i32(const float *w, int n, int32_t *level)
{
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        F4 v;
        memcpy(&v, w + k, sizeof v);
        const I4 l = levels4(v);
        memcpy(level + k, &l, sizeof l);
    }
    if (k < n) { /* one to three left: the same four lanes, zeros after them */
        F4 v = {w[k], 0.0f, 0.0f, 0.0f};
        if (k + 1 < n)
            v[1] = w[k + 1];
        if (k + 2 < n)
            v[2] = w[k + 2];
        const I4 l = levels4(v);
        memcpy(level + k, &l, sizeof l);
    }
}

void heatmap_levels(const float *w, int n, uint8_t *level)
{
    enum { BLOCK = 64 };
    int32_t l[BLOCK + 3];
    for (int k0 = 0; k0 < n; k0 += BLOCK) {
        const int m = n - k0 < BLOCK ? n - k0 : BLOCK;
        levels_i32(w + k0, m, l);
        for (int k = 0; k < m; k++)
            level[k0 + k] = (uint8_t)l[k];
    }
}

int heatmap_glyph_index(float w)
{
    int k = 0;
    while (k < HEATMAP_GLYPHS - 1 && w >= glyph_edges[k])
        k++;
    return k;
}

unsigned heatmap_glyph(int k)
{
    return glyphs[k < 0 ? 0 : k >= HEATMAP_GLYPHS ? HEATMAP_GLYPHS - 1 : k];
}

static int max_label_width(const char *const *labels, int n, int limit)
{
    int w = 1;
    for (int k = 0; k < n && w < limit; k++) {
        int lw = grid_text_width(labels[k]);
        w = lw > w ? lw : w;
    }
    return w < limit ? w : limit;
}

/* The row labels' width (at most label_w, 10 when 0) returned, the column
 * labels' (at most 64) in *col_w: max_label_width's, with one pass over the
 * labels when rows and columns are the same tokens (self-attention). */
static int label_widths(const HeatmapSpec *sp, int *col_w)
{
    const int row_limit = sp->label_w ? sp->label_w : 10;
    *col_w = max_label_width(sp->col_labels, sp->n_k, 64);
    if (sp->col_labels == sp->row_labels && sp->n_k == sp->n_q && row_limit <= 64)
        return *col_w < row_limit ? *col_w : row_limit;
    return max_label_width(sp->row_labels, sp->n_q, row_limit);
}

/* Code points of s, at most max. */
static int cp_count(const char *s, int max)
{
    int n = 0;
    unsigned cp;
    for (size_t len = strlen(s); len > 0 && n < max; n++) {
        int k = utf8_decode(s, len, &cp);
        k = k ? k : 1;
        s += k, len -= (size_t)k;
    }
    return n;
}

/* A column label written downwards, one code point a row, '…' when cut. */
static void put_rotated(Grid *g, int x, int y, int h, const char *s, int style)
{
    size_t ascii = 0; /* the printable ASCII run, then the length */
    while ((unsigned char)s[ascii] >= 0x20 && (unsigned char)s[ascii] < 0x7f)
        ascii++;
    size_t len = s[ascii] ? ascii + strlen(s + ascii) : ascii;
    /* Printable ASCII wholly inside the grid: one cell a byte, written
     * directly (what grid_put writes, without its checks a character). */
    if (ascii == len && x >= 0 && x < g->w && y >= 0 && (long)y + h <= g->h) {
        const bool cut_here = len > (size_t)h && h > 0; /* the last row an ellipsis */
        const int rows = len < (size_t)h ? (int)len : h, chars = rows - cut_here;
        Cell *c = &g->cells[(long)y * g->w + x];
        for (int r = 0; r < chars; r++, c += g->w)
            grid_fill_cells(c, 1, (unsigned char)s[r], style, 0);
        if (cut_here)
            grid_fill_cells(c, 1, 0x2026, style, 0);
        return;
    }
    bool cut = cp_count(s, h + 1) > h;
    for (int r = 0; r < h && len > 0; r++) {
        unsigned cp;
        int k = utf8_decode(s, len, &cp);
        if (!k)
            cp = 0xFFFD, k = 1;
        s += k, len -= (size_t)k;
        grid_put(g, x, y + r, cut && r == h - 1 ? 0x2026 : cp, style, 0);
    }
}

static void draw_col_labels(Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l, int label_h,
                            bool rotated)
{
    for (int c = 0; c < l->cols; c++) {
        int j = l->first_col + c, x = l->cells_x + c * l->cell_w;
        int style = j == sp->sel_col ? STYLE_LABEL_SEL : STYLE_LABEL;
        if (rotated)
            put_rotated(g, x + (l->cell_w - 1) / 2, l->y, label_h, sp->col_labels[j], style);
        else
            grid_puts(g, x, l->y, sp->col_labels[j], l->cell_w > 1 ? l->cell_w - 1 : 1, style);
    }
}

static void draw_row_label(Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l, int i, int y,
                           int label_w)
{
    int style = i == sp->sel_row ? STYLE_LABEL_SEL : STYLE_LABEL, x = l->x;
    if (sp->number_rows) {
        char num[16];
        int nw = snprintf(num, sizeof num, "%d", sp->n_q);
        snprintf(num, sizeof num, "%*d ", nw, i + 1);
        x += grid_puts(g, x, y, num, label_w, STYLE_DIM);
    }
    grid_puts(g, x, y, sp->row_labels[i], l->cells_x - 1 - x, style);
}

/* w * 100 rounded to the nearest integer, ties to even as lrintf in the
 * default rounding mode, without lrintf's library call (it showed in the
 * profile of a keystroke): adding 2^23 leaves no fraction bits. 0 <= w (above
 * 1 for heads summed). */
static int percent_of(float w)
{
    return (int)((w * 100.0f + 0x1p23f) - 0x1p23f);
}

static inline void paint_color(Cell *c, int cw, float w, int level);

/* One cell of weight w at c, cw columns, all inside the grid: glyphs, or
 * colour with the percentage when it fits. Every glyph here is one column
 * wide, so the cells are written directly: this is the hottest loop of a
 * redraw. */
static inline void paint_cell(Cell *c, int cw, float w, bool masked, HeatmapMode mode)
{
    int fill = cw >= 3 ? cw - 1 : cw; /* a gap column keeps cells apart on paper */
    if (masked) {
        grid_fill_cells(c, cw, ' ', STYLE_TEXT, 0);
        /* a 3-column cell's mark in its middle: "100" fills the cell before
         * it, gap column too, and must not run into it ("100╳") */
        grid_fill_cells(c + (cw == 3 ? 1 : (fill - 1) / 2), 1, HEATMAP_MASKED_GLYPH, STYLE_MASKED,
                        0);
        return;
    }
    if (mode == HEATMAP_GLYPH) {
        grid_fill_cells(c, fill, heatmap_glyph(heatmap_glyph_index(w)), STYLE_TEXT, 0);
        grid_fill_cells(c + fill, cw - fill, ' ', STYLE_TEXT, 0);
        return;
    }
    paint_color(c, cw, w, heatmap_level(w));
}

/* A colour cell of weight w and its level at c, cw columns, all inside the
 * grid: the level's background with the percentage when it fits. */
static inline void paint_color(Cell *c, int cw, float w, int level)
{
    grid_fill_cells(c, cw, ' ', STYLE_HEAT, level);
    /* The percentage, right-aligned with a blank column after it so numbers
     * of neighbouring cells never run together; left out where it cannot.
     * Digits go straight into the cells (snprintf's cost, and then a
     * buffer's, showed in the profile of a keystroke). */
    /* heads summed give weights above 1: 151, not 100 beside a bar of 150.6% */
    int pct = percent_of(w), len = pct >= 1000 ? 4 : pct >= 100 ? 3 : pct >= 10 ? 2 : 1;
    if (cw < 3 || len > cw || len > 3)
        return;
    /* 100 fills a 3-column cell, gap column too: a lone full weight must not
     * be the one cell without a number (its neighbours end in their gaps) */
    Cell *d = c + (len == cw ? 0 : cw - 1 - len);
    if (len == 3)
        d[0].cp = (uint32_t)('0' + pct / 100), d[1].cp = (uint32_t)('0' + pct / 10 % 10),
        d[2].cp = (uint32_t)('0' + pct % 10);
    else if (len == 2)
        d[0].cp = (uint32_t)('0' + pct / 10), d[1].cp = (uint32_t)('0' + pct % 10);
    else
        d[0].cp = (uint32_t)('0' + pct);
}

/* A sum of up to `full` (spec.full > 1: heads summed) in at most 3
 * columns, its own number and not a percentage: "0", ".06", "4.3", "12". */
static int sum_text(float v, char t[8])
{
    if (v < 0.005f)
        return snprintf(t, 8, "0");
    if (v < 0.995f)
        return snprintf(t, 8, ".%02d", (int)(v * 100.0f + 0.5f));
    if (v < 9.95f)
        return snprintf(t, 8, "%.1f", (double)v);
    return snprintf(t, 8, "%.0f", v < 999.0f ? (double)v : 999.0);
}

/* One cell of a sum v (0..full) at c, cw columns, all inside the grid:
 * shaded by its share of full, with its value when it fits. */
static void paint_sum(Cell *c, int cw, float v, bool masked, HeatmapMode mode, float full)
{
    float share = v / full;
    if (masked || mode == HEATMAP_GLYPH) {
        paint_cell(c, cw, share, masked, mode);
        return;
    }
    grid_fill_cells(c, cw, ' ', STYLE_HEAT, heatmap_level(share));
    char t[8];
    int len = sum_text(v, t);
    if (cw < 3 || len > cw)
        return;
    Cell *d = c + (len == cw ? 0 : cw - 1 - len);
    for (int k = 0; k < len; k++)
        d[k].cp = (uint32_t)(unsigned char)t[k];
}

/* paint_cell's 6-column colour cells for weights P[0..cols), those from
 * masked_from on masked: the levels a block at a time, four at once. */
static void paint_color_row6(Cell *c, const float *P, int cols, int masked_from)
{
    enum { BLOCK = 64 };
    int32_t level[BLOCK + 3];
    for (int k0 = 0; k0 < cols; k0 += BLOCK) {
        const int n = cols - k0 < BLOCK ? cols - k0 : BLOCK;
        levels_i32(P + k0, n, level);
        for (int k = 0; k < n; k++, c += 6) {
            if (k0 + k >= masked_from)
                paint_cell(c, 6, P[k0 + k], true, HEATMAP_COLOR);
            else
                paint_color(c, 6, P[k0 + k], level[k]);
        }
    }
}

/* The cells of row r of the layout (spec row i) at screen row y. A row
 * wholly inside the grid is painted without each cell's checks; otherwise
 * each cell is clipped whole. */
static void draw_cells_row(Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l, int i, int y)
{
    const int cw = l->cell_w, j0 = sp->first_col;
    const float *P = sp->P + (long)i * sp->n_k + j0;
    /* heatmap_masked's rule, once a row: masked from key vis on */
    const AttnShape s = {.n_q = sp->n_q, .n_k = sp->n_k, .causal = sp->causal};
    const int vis = attention_visible_keys(&s, i);
    if (sp->full > 1.0f) { /* sums: rare and small, each cell on its own */
        for (int k = 0; k < l->cols; k++) {
            int x = l->cells_x + k * cw;
            if (x >= 0 && y >= 0 && y < g->h && x + cw <= g->w)
                paint_sum(&g->cells[(long)y * g->w + x], cw, P[k],
                          sp->pooled ? P[k] < 0.0f : j0 + k >= vis, sp->mode, sp->full);
        }
        return;
    }
    if (y >= 0 && y < g->h && l->cells_x >= 0 && l->cells_x + (long)l->cols * cw <= g->w) {
        Cell *c = &g->cells[(long)y * g->w + l->cells_x];
        /* the common case with the cell width a constant: the fills unroll */
        if (sp->mode == HEATMAP_COLOR && !sp->pooled && cw == 6) {
            paint_color_row6(c, P, l->cols, vis - j0);
            return;
        }
        for (int k = 0; k < l->cols; k++, c += cw)
            paint_cell(c, cw, P[k], sp->pooled ? P[k] < 0.0f : j0 + k >= vis, sp->mode);
        return;
    }
    for (int k = 0; k < l->cols; k++) {
        int x = l->cells_x + k * cw;
        if (x < 0 || y < 0 || y >= g->h || x + cw > g->w)
            continue;
        paint_cell(&g->cells[(long)y * g->w + x], cw, P[k],
                   sp->pooled ? P[k] < 0.0f : j0 + k >= vis, sp->mode);
    }
}

static void mark_selection(Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l)
{
    int r = sp->sel_row - l->first_row, c = sp->sel_col - l->first_col;
    if (sp->sel_row >= 0 && r >= 0 && r < l->rows)
        grid_flag_rect(g, l->cells_x, l->cells_y + r, l->cols * l->cell_w, 1, CELL_SELECTED);
    if (sp->sel_row >= 0 && sp->sel_col >= 0 && r >= 0 && r < l->rows && c >= 0 && c < l->cols)
        grid_flag_rect(g, l->cells_x + c * l->cell_w, l->cells_y + r, l->cell_w, 1, CELL_CURSOR);
}

int heatmap_draw(Grid *g, int x, int y, int max_w, int max_h, const HeatmapSpec *sp,
                 HeatmapLayout *l)
{
    int num_w = sp->number_rows ? snprintf(NULL, 0, "%d ", sp->n_q) : 0;
    int col_w, label_w = num_w + label_widths(sp, &col_w);
    int avail = max_w - label_w - 1;
    int cw = sp->cell_w;
    if (cw <= 0)
        cw = avail / (sp->n_k > 0 ? sp->n_k : 1);
    cw = cw < 1 ? 1 : cw > 6 ? 6 : cw;
    bool rotated = col_w >= cw && col_w > 1; /* labels need a gap between them */
    int label_h = rotated ? (col_w < ROT_MAX ? col_w : ROT_MAX) : 1;
    if (label_h > max_h / 3)
        label_h = max_h / 3 > 1 ? max_h / 3 : 1;
    if (rotated && label_h < 3)
        rotated = false, label_h = 1; /* too little height: abbreviate instead */
    *l = (HeatmapLayout){.x = x,
                         .y = y,
                         .cells_x = x + label_w + 1,
                         .cells_y = y + label_h,
                         .cell_w = cw,
                         .first_row = sp->first_row,
                         .first_col = sp->first_col};
    l->cols = avail >= cw ? avail / cw : 0;
    l->cols = l->cols < sp->n_k - sp->first_col ? l->cols : sp->n_k - sp->first_col;
    l->rows = max_h - label_h < sp->n_q - sp->first_row ? max_h - label_h : sp->n_q - sp->first_row;
    l->rows = l->rows < 0 ? 0 : l->rows, l->cols = l->cols < 0 ? 0 : l->cols;
    l->w = label_w + 1 + l->cols * cw, l->h = label_h + l->rows;
    draw_col_labels(g, sp, l, label_h, rotated);
    for (int r = 0; r < l->rows; r++) {
        int i = sp->first_row + r;
        draw_row_label(g, sp, l, i, l->cells_y + r, label_w);
        draw_cells_row(g, sp, l, i, l->cells_y + r);
    }
    mark_selection(g, sp, l);
    return l->h;
}

bool heatmap_hit(const HeatmapLayout *l, int sx, int sy, int *row, int *col)
{
    int r = sy - l->cells_y, c = sx - l->cells_x;
    int cells_w = l->cols * l->cell_w;
    if (r >= 0 && r < l->rows && sx >= l->x && c < cells_w) {
        *row = l->first_row + r;
        *col = c >= 0 ? l->first_col + c / l->cell_w : -1;
        return true;
    }
    if (sy >= l->y && r < 0 && c >= 0 && c < cells_w) {
        *row = -1;
        *col = l->first_col + c / l->cell_w;
        return true;
    }
    return false;
}

static int legend_glyphs(Grid *g, int x, int y, int max_w, bool causal, float full)
{
    static const char *const ranges[HEATMAP_GLYPHS] = {
        "<5%", "5-15%", "15-35%", "35-65%", ">=65%",
    };
    static const float edge[HEATMAP_GLYPHS - 1] = {0.05f, 0.15f, 0.35f, 0.65f};
    const char *lead = full > 1.0f ? "sum: " : "weight: ";
    const int indent = grid_text_width(lead);
    int used = indent, row = 0;
    if (g)
        grid_puts(g, x, y, lead, max_w, STYLE_DIM);
    /* each glyph and its range, a row more where the next would be cut
     * (the glyph legend at 80 columns, two heads side by side) */
    for (int k = 0; k <= HEATMAP_GLYPHS; k++) {
        char r[24], a[8], b[8];
        if (k == HEATMAP_GLYPHS && !causal)
            break;
        if (k == HEATMAP_GLYPHS)
            snprintf(r, sizeof r, "masked");
        else if (full <= 1.0f)
            snprintf(r, sizeof r, "%s", ranges[k]);
        else if (k == 0 || k == HEATMAP_GLYPHS - 1)
            sum_text(edge[k ? k - 1 : 0] * full, a),
                snprintf(r, sizeof r, "%s%s", k ? ">=" : "<", a);
        else
            sum_text(edge[k - 1] * full, a), sum_text(edge[k] * full, b),
                snprintf(r, sizeof r, "%s-%s", a, b);
        const int w = 2 + grid_text_width(r); /* the glyph, a space, the range */
        if (used > indent && used + w > max_w)
            used = indent, row++;
        if (g) {
            grid_put(g, x + used, y + row, k == HEATMAP_GLYPHS ? HEATMAP_MASKED_GLYPH : glyphs[k],
                     k == HEATMAP_GLYPHS ? STYLE_MASKED : STYLE_TEXT, 0);
            grid_printf(g, x + used + 1, y + row, max_w - used - 1, STYLE_DIM, " %s", r);
        }
        used += w + 2;
    }
    return row + 1;
}

/* A ramp of the GRID_LEVELS colours, two columns each, with the weight at
 * which some of them start written underneath. */
static int legend_ramp(Grid *g, int x, int y, int max_w, bool causal, float full)
{
    static const int tick_pct[] = {0, 5, 25, 50, 100};
    int lead = grid_puts(g, x, y, full > 1.0f ? "sum:    " : "weight: ", max_w, STYLE_DIM);
    int sw = max_w - lead >= 2 * GRID_LEVELS + 12 ? 2 : 1;
    for (int k = 0; k < GRID_LEVELS; k++)
        for (int s = 0; s < sw; s++)
            grid_put(g, x + lead + k * sw + s, y, ' ', STYLE_HEAT, k);
    int end = lead + GRID_LEVELS * sw;
    if (causal && end + 10 <= max_w) {
        grid_put(g, x + end + 2, y, HEATMAP_MASKED_GLYPH, STYLE_MASKED, 0);
        grid_puts(g, x + end + 3, y, " masked", max_w - end - 3, STYLE_DIM);
    }
    int free_x = 0; /* the first column after the last tick written */
    for (size_t t = 0; t < sizeof tick_pct / sizeof *tick_pct; t++) {
        int level = heatmap_level(tick_pct[t] / 100.0f), tx = lead + level * sw;
        bool last = t + 1 == sizeof tick_pct / sizeof *tick_pct;
        char v[8];
        if (full > 1.0f) /* the sum's own scale: 0 to full */
            sum_text(tick_pct[t] / 100.0f * full, v);
        else
            snprintf(v, sizeof v, "%d%s", tick_pct[t], last ? "%" : "");
        if (tx < free_x && !last) /* a tick that would run into the one before */
            continue;
        tx = tx < free_x ? free_x : tx;
        free_x = tx + grid_puts(g, x + tx, y + 1, v, max_w - tx, STYLE_DIM) + 1;
    }
    return 2;
}

int heatmap_legend(Grid *g, int x, int y, int max_w, HeatmapMode mode, bool causal)
{
    return heatmap_legend_of(g, x, y, max_w, mode, causal, 1.0f);
}

int heatmap_legend_rows(int max_w, HeatmapMode mode, bool causal, float full)
{
    return mode == HEATMAP_GLYPH ? legend_glyphs(NULL, 0, 0, max_w, causal, full) : 2;
}

int heatmap_legend_of(Grid *g, int x, int y, int max_w, HeatmapMode mode, bool causal, float full)
{
    return mode == HEATMAP_GLYPH ? legend_glyphs(g, x, y, max_w, causal, full)
                                 : legend_ramp(g, x, y, max_w, causal, full);
}

/* A bar of frac * width columns in eighths of a block. */
static void draw_bar(Grid *g, int x, int y, int width, float frac, int level)
{
    static const unsigned eighths[8] = {0, 0x258F, 0x258E, 0x258D, 0x258C, 0x258B, 0x258A, 0x2589};
    int units = (int)lrintf(frac * width * 8);
    for (int k = 0; k < width; k++, units -= 8) {
        unsigned cp = units >= 8 ? 0x2588 : units > 0 ? eighths[units] : ' ';
        grid_put(g, x + k, y, cp, STYLE_BAR, level);
    }
}

typedef struct {
    float w;
    int j;
} Ranked;

static int cmp_ranked(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    return x->j - y->j; /* ties keep sentence order */
}

/* Whether two of the n labels are the same text ("dog" twice). */
static bool labels_repeat(const char *const *labels, int n)
{
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            if (!strcmp(labels[a], labels[b]))
                return true;
    return false;
}

int heatmap_bars(Grid *g, int x, int y, int max_w, int max_h, const float *P_row, int n_k,
                 const char *const *labels, int vis)
{
    return heatmap_bars_of(g, x, y, max_w, max_h, P_row, n_k, labels, vis, 1.0f, true);
}

int heatmap_bars_of(Grid *g, int x, int y, int max_w, int max_h, const float *P_row, int n_k,
                    const char *const *labels, int vis, float full, bool ranked)
{
    assert(vis >= 1 && vis <= n_k);
    Ranked *rank = malloc((size_t)(vis > 0 ? vis : 1) * sizeof *rank);
    if (!rank || max_h < 1)
        return free(rank), 0;
    for (int j = 0; j < vis; j++)
        rank[j] = (Ranked){P_row[j], j};
    if (ranked)
        qsort(rank, (size_t)vis, sizeof *rank, cmp_ranked);
    int label_w = max_label_width(labels, n_k, 12) + 1;
    /* a repeated token is told apart by its number: "4 dog", "9 dog" */
    int num_w = n_k <= 256 && labels_repeat(labels, n_k) ? snprintf(NULL, 0, "%d ", n_k) : 0;
    label_w += num_w;
    int bar_w = max_w - label_w - 9;
    bar_w = bar_w > 40 ? 40 : bar_w;
    int rows = vis < max_h ? vis : max_h;
    if (rows == max_h && vis + (vis < n_k) > max_h)
        rows = max_h - 1; /* keep a line to say what is not shown */
    for (int r = 0; r < rows; r++) {
        int yy = y + r;
        if (num_w)
            grid_printf(g, x, yy, num_w, STYLE_DIM, "%*d ", num_w - 1, rank[r].j + 1);
        grid_puts(g, x + num_w, yy, labels[rank[r].j], label_w - num_w - 1, STYLE_LABEL);
        float w = rank[r].w, share = full > 1.0f ? w / full : w;
        if (full > 1.0f) /* a sum, on its own scale: the bar's end is full */
            grid_printf(g, x + label_w, yy, 7, STYLE_TEXT, "%5.2f ", (double)w);
        else
            grid_printf(g, x + label_w, yy, 7, STYLE_TEXT, "%5.1f%%", w * 100.0f);
        if (bar_w > 0)
            draw_bar(g, x + label_w + 7, yy, bar_w, share, heatmap_level(share));
    }
    int more = vis - rows;
    if (more > 0) {
        grid_printf(g, x, y + rows, max_w, STYLE_DIM, "+%d more below", more);
    } else if (vis < n_k) { /* "more" goes before what they are */
        char t[3][48];
        snprintf(t[0], sizeof t[0], "%d more masked (future tokens)", n_k - vis);
        snprintf(t[1], sizeof t[1], "%d masked (future tokens)", n_k - vis);
        snprintf(t[2], sizeof t[2], "%d masked (future)", n_k - vis);
        const char *const forms[] = {t[0], t[1], t[2]};
        int k = grid_first_fit(forms, 3, max_w);
        grid_puts(g, x, y + rows, forms[k < 0 ? 2 : k], max_w, STYLE_DIM);
    }
    free(rank);
    return rows + (more > 0 || vis < n_k);
}
