/* plot.c - positional-encoding figures drawn into a Grid: a signed matrix as
 * a diverging heatmap (the PE matrix, the PE similarity matrix) and Braille
 * line plots of chosen dimensions against position.
 *
 * No terminal and no allocation: the UI paints the Grid it gets, and the
 * tests read it back cell by cell.
 */
#include "render/plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LABEL_MAX 10 /* columns of a row label, at the most */

static const uint32_t sign_glyphs[PLOT_GLYPHS] = {'=', '-', 0x00B7, '+', '#'};
/* Upper bounds of glyphs 0..3 on v / range. */
static const float sign_edges[PLOT_GLYPHS - 1] = {-0.6f, -0.2f, 0.2f, 0.6f};

int plot_diverge_level(float v, float range)
{
    if (!(range > 0.0f) || v != v)
        return GRID_LEVELS / 2;
    float t = (v / range + 1.0f) * 0.5f; /* 0 .. 1 */
    int level = (int)floorf(t * GRID_LEVELS);
    return level < 0 ? 0 : level >= GRID_LEVELS ? GRID_LEVELS - 1 : level;
}

uint32_t plot_diverge_glyph(float v, float range)
{
    float t = range > 0.0f ? v / range : 0.0f;
    int k = 0;
    while (k < PLOT_GLYPHS - 1 && t > sign_edges[k])
        k++;
    return sign_glyphs[k];
}

uint32_t plot_braille(unsigned bits)
{
    return 0x2800u + (bits & 0xFFu);
}

unsigned plot_braille_bit(int dx, int dy)
{
    static const unsigned left[4] = {0x01, 0x02, 0x04, 0x40};
    static const unsigned right[4] = {0x08, 0x10, 0x20, 0x80};
    if (dy < 0 || dy > 3 || dx < 0 || dx > 1)
        return 0;
    return dx ? right[dy] : left[dy];
}

static int labels_width(const PlotMatrixSpec *sp)
{
    int w = 0;
    for (int k = 0; sp->row_labels && k < sp->n_labeled && w < LABEL_MAX; k++) {
        int lw = grid_text_width(sp->row_labels[k]);
        w = lw > w ? lw : w;
    }
    return w < LABEL_MAX ? w : LABEL_MAX;
}

/* Column ticks: labels when given, else matrix indices every few columns. */
static void matrix_ticks(Grid *g, const PlotMatrixSpec *sp, const PlotLayout *l)
{
    if (sp->col_labels) {
        for (int c = 0; c < l->cols; c++) {
            int j = c * l->col_step;
            int style = j == sp->sel_row ? STYLE_LABEL_SEL : STYLE_LABEL;
            grid_puts(g, l->cells_x + c * l->cell_w, l->y, sp->col_labels[j],
                      l->cell_w > 1 ? l->cell_w - 1 : 1, style);
        }
        return;
    }
    int every = l->cell_w >= 4 ? 1 : 8 / l->cell_w;
    for (int c = 0; c < l->cols; c += every) {
        int j = c * l->col_step, tx = l->cells_x + c * l->cell_w;
        if (tx + grid_digits(j) <= l->cells_x + l->cols * l->cell_w)
            grid_printf(g, tx, l->y, grid_digits(j), STYLE_DIM, "%d", j);
    }
}

static void matrix_row_label(Grid *g, const PlotMatrixSpec *sp, const PlotLayout *l, int i, int y)
{
    bool mine = i < sp->n_labeled;
    int style = i == sp->sel_row ? STYLE_LABEL_SEL : mine ? STYLE_LABEL : STYLE_DIM;
    /* rows are numbered from 1, as the tokens everywhere on screen: row k is
     * the position pos = k - 1 of the formula */
    int nw = grid_digits(sp->n_rows);
    grid_put(g, l->x, y, mine ? 0x2022 : ' ', STYLE_ACCENT, 0); /* • the sentence's rows */
    int used = 1 + grid_printf(g, l->x + 1, y, nw + 1, STYLE_DIM, "%*d ", nw, i + 1);
    if (mine && sp->row_labels)
        grid_puts(g, l->x + used, y, sp->row_labels[i], l->cells_x - 1 - l->x - used, style);
    else if (i == sp->sel_row)
        grid_flag_rect(g, l->x + 1, y, nw, 1, CELL_CURSOR);
}

static void matrix_cell(Grid *g, const PlotMatrixSpec *sp, int x, int y, int cw, float v)
{
    int fill = cw >= 3 ? cw - 1 : cw;
    char num[16] = "";
    if (sp->values && cw >= 5)
        snprintf(num, sizeof num, "%*.2f", cw - 1, (double)v);
    if (sp->glyphs && num[0]) { /* monochrome: the number says more than a glyph */
        grid_puts(g, x, y, num, cw, STYLE_TEXT);
        return;
    }
    if (sp->glyphs) {
        uint32_t glyph = plot_diverge_glyph(v, sp->range);
        for (int k = 0; k < cw; k++)
            grid_put(g, x + k, y, k < fill ? glyph : ' ', STYLE_TEXT, 0);
        return;
    }
    int level = plot_diverge_level(v, sp->range);
    for (int k = 0; k < cw; k++)
        grid_put(g, x + k, y, num[0] && k < cw - 1 ? (unsigned char)num[k] : ' ', STYLE_DIVERGE,
                 level);
}

static void matrix_layout(const PlotMatrixSpec *sp, int x, int y, int max_w, int max_h,
                          PlotLayout *l)
{
    int nw = grid_digits(sp->n_rows);
    int lw = labels_width(sp);
    int label_w = 1 + nw + (lw ? 1 + lw : 0);
    int cw = sp->cell_w > 0 ? sp->cell_w : 1;
    int avail = (max_w - label_w - 1) / cw;
    avail = avail < 1 ? 1 : avail;
    int step = (sp->n_cols + avail - 1) / avail;
    step = step < 1 ? 1 : step;
    *l = (PlotLayout){.x = x,
                      .y = y,
                      .cells_x = x + label_w + 1,
                      .cells_y = y + 1,
                      .cell_w = cw,
                      .first_row = sp->first_row,
                      .col_step = step};
    l->cols = (sp->n_cols + step - 1) / step;
    l->rows = max_h - 1 < sp->n_rows - sp->first_row ? max_h - 1 : sp->n_rows - sp->first_row;
    l->rows = l->rows < 0 ? 0 : l->rows;
    l->w = label_w + 1 + l->cols * cw;
    l->h = 1 + l->rows;
}

int plot_matrix(Grid *g, int x, int y, int max_w, int max_h, const PlotMatrixSpec *sp,
                PlotLayout *l)
{
    matrix_layout(sp, x, y, max_w, max_h, l);
    if (max_h < 1 || max_w < 1)
        return 0;
    matrix_ticks(g, sp, l);
    for (int r = 0; r < l->rows; r++) {
        int i = sp->first_row + r, cy = l->cells_y + r;
        matrix_row_label(g, sp, l, i, cy);
        for (int c = 0; c < l->cols; c++)
            matrix_cell(g, sp, l->cells_x + c * l->cell_w, cy, l->cell_w,
                        sp->M[(long)i * sp->n_cols + (long)c * l->col_step]);
        if (i == sp->sel_row)
            grid_flag_rect(g, l->cells_x, cy, l->cols * l->cell_w, 1, CELL_SELECTED);
    }
    return l->h;
}

int plot_hit_row(const PlotLayout *l, int sx, int sy)
{
    int r = sy - l->cells_y;
    if (r < 0 || r >= l->rows || sx < l->x || sx >= l->x + l->w)
        return -1;
    return l->first_row + r;
}

/* ---- Braille line plots ---------------------------------------------- */

typedef struct {
    const float *PE;
    int n_pos, d_model, dim;
    int dots_x, dots_y; /* dot columns and rows of the strip */
} Strip;

/* The dot row of the curve at dot column xd (0 = top, +1). */
static int strip_dot_row(const Strip *s, int xd)
{
    double pos = s->dots_x > 1 ? (double)xd * (s->n_pos - 1) / (s->dots_x - 1) : 0;
    int p0 = (int)pos, p1 = p0 + 1 < s->n_pos ? p0 + 1 : p0;
    double t = pos - p0;
    double v =
        (1 - t) * s->PE[(long)p0 * s->d_model + s->dim] + t * s->PE[(long)p1 * s->d_model + s->dim];
    int yd = (int)lround((1.0 - v) * 0.5 * (s->dots_y - 1));
    return yd < 0 ? 0 : yd >= s->dots_y ? s->dots_y - 1 : yd;
}

/* Dots of cell (cx, cy): each dot column lit from the previous column's row
 * to its own, so the curve stays connected where it is steep. */
static unsigned strip_cell_bits(const Strip *s, int cx, int cy)
{
    unsigned bits = 0;
    for (int dx = 0; dx < 2; dx++) {
        int xd = 2 * cx + dx;
        int y1 = strip_dot_row(s, xd), y0 = xd > 0 ? strip_dot_row(s, xd - 1) : y1;
        int lo = y0 < y1 ? y0 : y1, hi = y0 < y1 ? y1 : y0;
        if (lo != hi)
            lo += y0 < y1 ? 1 : 0, hi -= y0 > y1 ? 1 : 0; /* the previous dot is drawn */
        for (int dy = 0; dy < 4; dy++) {
            int yy = 4 * cy + dy;
            if ((yy >= lo && yy <= hi) || yy == y1)
                bits |= plot_braille_bit(dx, dy);
        }
    }
    return bits;
}

static void strip_draw(Grid *g, int x, int y, int w, int h, const Strip *s)
{
    int i2 = s->dim - s->dim % 2;
    grid_printf(g, x, y, w, STYLE_TEXT, "dim %d = %s(pos / 10000^(%d/%d))", s->dim,
                s->dim % 2 ? "cos" : "sin", i2, s->d_model);
    grid_puts(g, x, y + 1, "+1", 2, STYLE_DIM);
    grid_puts(g, x, y + h, "-1", 2, STYLE_DIM);
    for (int cy = 0; cy < h; cy++)
        for (int cx = 0; cx < w - 3; cx++) {
            unsigned bits = strip_cell_bits(s, cx, cy);
            if (bits)
                grid_put(g, x + 3 + cx, y + 1 + cy, plot_braille(bits), STYLE_BAR,
                         s->dim % 2 ? 6 : 12);
        }
}

/* The position of dot column xd's cell for position p. */
static int axis_col(int p, int n_pos, int dots_x)
{
    int xd = n_pos > 1 ? (int)lround((double)p * (dots_x - 1) / (n_pos - 1)) : 0;
    return xd / 2;
}

static void axis_draw(Grid *g, int x, int y, int w, int n_pos, int n_marked, int sel)
{
    static const int steps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000};
    int pw = w - 3, dots_x = 2 * pw, step = steps[0];
    for (int k = 0; k < (int)(sizeof steps / sizeof steps[0]); k++) {
        step = steps[k];
        if (n_pos <= 1 || (double)step * pw / n_pos >= 6)
            break;
    }
    for (int c = 0; c < pw; c++)
        grid_put(g, x + 3 + c, y, 0x2500, STYLE_DIM, 0); /* ─ */
    for (int p = 0; p < n_pos; p += step)
        grid_printf(g, x + 3 + axis_col(p, n_pos, dots_x), y + 1, 6, STYLE_DIM, "%d", p);
    for (int p = 0; p < n_marked && p < n_pos; p++)
        grid_put(g, x + 3 + axis_col(p, n_pos, dots_x), y, p == sel ? 0x25B2 : 0x2022,
                 p == sel ? STYLE_ACCENT : STYLE_LABEL, 0); /* ▲ selected, • sentence */
    grid_puts(g, x, y, "pos", 3, STYLE_DIM);
}

int plot_pe_lines(Grid *g, int x, int y, int max_w, int max_h, const float *PE, int n_pos,
                  int d_model, const int *dims, int n_dims, int n_marked, int sel)
{
    if (max_w < 8 || max_h < 4 || n_pos < 1 || n_dims < 1)
        return 0;
    int hs = (max_h - 2) / n_dims - 1;
    if (hs < 1) {
        n_dims = (max_h - 2) / 2, hs = 1;
        if (n_dims < 1)
            return 0;
    }
    hs = hs > 4 ? 4 : hs;
    int row = y;
    for (int k = 0; k < n_dims; k++) {
        Strip s = {PE, n_pos, d_model, dims[k], 2 * (max_w - 3), 4 * hs};
        if (s.dim < 0 || s.dim >= d_model)
            continue;
        strip_draw(g, x, row, max_w, hs, &s);
        row += hs + 1;
    }
    axis_draw(g, x, row, max_w, n_pos, n_marked, sel);
    return row + 2 - y;
}
