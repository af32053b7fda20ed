/* trainplot.c - line plots of training histories in Braille dots, and the
 * layer x head grid of probe heatmaps, for the live training view. No
 * terminal: the UI paints the Grid.
 *
 * A line is drawn dot to dot between consecutive samples (a straight run of
 * dots, so a steep fall stays joined); when more samples than dot columns
 * fall on one column they draw the range they span there.
 */
#include "render/trainplot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/plot.h"

#define TITLE_MIN 10 /* a tile is at least this wide: "L2H1 ind" */
#define HALF_BLOCK 0x2580u
#define SCORE_W 5 /* " ╲.62" after a tile's stripe row */

static bool is_braille(uint32_t cp)
{
    return cp >= 0x2800u && cp <= 0x28FFu;
}

int trainplot_dot_x(const TrainPlotSpec *sp, const TrainPlotLayout *lay, long s)
{
    int dx_max = 2 * lay->cols - 1;
    long xm = sp->x_max > 0 ? sp->x_max : 1;
    double f = (double)s / (double)xm;
    int d = (int)lround(f * dx_max);
    return d < 0 ? 0 : d > dx_max ? dx_max : d;
}

int trainplot_dot_y(const TrainPlotSpec *sp, const TrainPlotLayout *lay, float v)
{
    int dy_max = 4 * lay->rows - 1;
    double range = (double)sp->y_max - (double)sp->y_min;
    double f = range > 0 ? ((double)sp->y_max - (double)v) / range : 0.5;
    if (!(f == f))
        f = 1.0; /* NaN: the bottom */
    int d = (int)lround(f * dy_max);
    return d < 0 ? 0 : d > dy_max ? dy_max : d;
}

/* Set one dot, merged with the Braille already in its cell. */
static void dot(Grid *g, const TrainPlotLayout *lay, int dx, int dy, int style, int level)
{
    Cell *c = grid_at(g, lay->dots_x + dx / 2, lay->dots_y + dy / 4);
    if (!c || dx < 0 || dy < 0 || dx >= 2 * lay->cols || dy >= 4 * lay->rows)
        return;
    unsigned bits = is_braille(c->cp) ? c->cp - 0x2800u : 0;
    bits |= plot_braille_bit(dx % 2, dy % 4);
    *c = (Cell){plot_braille(bits), (uint8_t)style, (uint8_t)level, 0};
}

/* The dots from (x0, y0) to (x1, y1), x0 <= x1, one per step of the longer axis. */
static void segment(Grid *g, const TrainPlotLayout *lay, int x0, int y0, int x1, int y1,
                    const TrainSeries *s)
{
    int ax = x1 - x0, ay = y1 > y0 ? y1 - y0 : y0 - y1;
    int n = ax > ay ? ax : ay;
    for (int k = 0; k <= n; k++) {
        double t = n ? (double)k / n : 0.0;
        dot(g, lay, (int)lround(x0 + t * (x1 - x0)), (int)lround(y0 + t * (y1 - y0)), s->style,
            s->level);
    }
}

static void draw_series(Grid *g, const TrainPlotSpec *sp, const TrainPlotLayout *lay,
                        const TrainSeries *s)
{
    int px = -1, py = 0;
    for (int k = 0; k < sp->n; k++) {
        int dx = trainplot_dot_x(sp, lay, sp->x[k]);
        int dy = trainplot_dot_y(sp, lay, s->y[(long)k * s->stride]);
        if (px < 0)
            dot(g, lay, dx, dy, s->style, s->level);
        else
            segment(g, lay, px, py, dx, dy, s);
        px = dx, py = dy;
    }
}

/* "3.5", "0.5", "12", "0": short value labels. */
static void value_label(char *buf, size_t cap, float v)
{
    float a = fabsf(v);
    if (a == 0.0f)
        snprintf(buf, cap, "0");
    else if (a < 10.0f)
        snprintf(buf, cap, "%.1f", (double)v);
    else
        snprintf(buf, cap, "%.0f", (double)v);
}

static void draw_axis_labels(Grid *g, int x, const TrainPlotSpec *sp, const TrainPlotLayout *lay)
{
    char buf[16];
    int last = lay->dots_y + lay->rows - 1, thr = -1;
    if (sp->threshold_on)
        thr = lay->dots_y + trainplot_dot_y(sp, lay, sp->threshold) / 4;
    value_label(buf, sizeof buf, sp->y_max);
    grid_printf(g, x, lay->dots_y, TRAINPLOT_AXIS_W - 1, STYLE_DIM, "%*s", TRAINPLOT_AXIS_W - 1,
                buf);
    value_label(buf, sizeof buf, sp->y_min);
    if (last > lay->dots_y)
        grid_printf(g, x, last, TRAINPLOT_AXIS_W - 1, STYLE_DIM, "%*s", TRAINPLOT_AXIS_W - 1, buf);
    value_label(buf, sizeof buf, sp->threshold);
    if (thr > lay->dots_y && thr < last)
        grid_printf(g, x, thr, TRAINPLOT_AXIS_W - 1, STYLE_DIM, "%*s", TRAINPLOT_AXIS_W - 1, buf);
    for (int r = 0; r < lay->rows; r++)
        grid_put(g, x + TRAINPLOT_AXIS_W - 1, lay->dots_y + r, 0x2502u, STYLE_DIM, 0); /* │ */
}

/* The last value of series s. */
static float last_value(const TrainPlotSpec *sp, const TrainSeries *s)
{
    return s->y[(long)(sp->n - 1) * s->stride];
}

#define NAMES_MAX 64 /* named series placed, at most */

/* The nearest row to r holding fewer than per names, or -1. */
static int free_row(const int *taken, int r, int rows, int per)
{
    for (int d = 0; d < rows; d++) {
        if (r + d < rows && taken[r + d] < per)
            return r + d;
        if (r - d >= 0 && taken[r - d] < per)
            return r - d;
    }
    return -1;
}

/* The row of each named series' name (row[k], -1 for none): the row of its
 * last value, highest values first (the lines that matter keep their own
 * rows), else the nearest free row; where there are more names than rows,
 * the names left over share the nearest rows, as few a row as lets every
 * name have one. Returns the names a row holds at most. */
static int name_rows(const TrainPlotSpec *sp, const TrainPlotLayout *lay, int *row)
{
    int taken[256] = {0}, order[NAMES_MAX], named = 0;
    int rows = lay->rows < 256 ? lay->rows : 256;
    int n = sp->n_series < NAMES_MAX ? sp->n_series : NAMES_MAX;
    for (int j = 0; j < n; j++) { /* the named series, highest last value first */
        row[j] = -1;
        if (!sp->series[j].name || sp->n <= 0)
            continue;
        int at = named++;
        while (at > 0 &&
               last_value(sp, &sp->series[order[at - 1]]) < last_value(sp, &sp->series[j]))
            order[at] = order[at - 1], at--;
        order[at] = j;
    }
    int per = named > rows ? (named + rows - 1) / rows : 1;
    for (int pass = 1; pass <= 2 && rows > 0; pass++)
        for (int o = 0; o < named; o++) {
            int k = order[o];
            if (row[k] >= 0)
                continue;
            int want = trainplot_dot_y(sp, lay, last_value(sp, &sp->series[k])) / 4;
            row[k] = free_row(taken, want, rows, pass == 1 ? 1 : per);
            if (row[k] >= 0)
                taken[row[k]]++;
        }
    return per;
}

/* The columns of name before its trailing digits ("L1H" of "L1H2"), or 0
 * when it has none or is all digits. */
static int name_stem(const char *name)
{
    int n = (int)strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    return k < n ? k : 0;
}

/* The names of row r, in series order, as text: each whole ("L1H1 L1H2
 * L2H1") or, merged, a name sharing the stem of the one before it by its
 * digits alone ("L1H1,2 L2H1"). With g, also drawn from (x, y) in at most
 * max_w columns, each name in its series' style. Returns the columns. */
static int name_line(Grid *g, int x, int y, int max_w, const TrainPlotSpec *sp, const int *row,
                     int r, bool merged, char *buf, size_t cap)
{
    int len = 0, used = 0, prev = -1;
    buf[0] = '\0';
    for (int k = 0; k < sp->n_series && k < NAMES_MAX; k++) {
        if (row[k] != r)
            continue;
        const char *name = sp->series[k].name, *piece = name;
        char sep[2] = " ";
        int stem = name_stem(name);
        if (merged && prev >= 0 && stem > 0 && name_stem(sp->series[prev].name) == stem &&
            !strncmp(name, sp->series[prev].name, (size_t)stem))
            piece = name + stem, sep[0] = ',';
        if (prev < 0)
            sep[0] = '\0';
        int at = len;
        len += snprintf(buf + len, cap - (size_t)len, "%s%s", sep, piece);
        len = len < (int)cap ? len : (int)cap - 1;
        if (g && used < max_w) {
            const TrainSeries *s = &sp->series[k];
            int w = grid_puts(g, x + used, y, buf + at, max_w - used, s->style);
            for (int i = 0; s->style == STYLE_BAR && i < w; i++) {
                Cell *c = grid_at(g, x + used + i, y);
                if (c && c->style == STYLE_BAR)
                    c->level = (uint8_t)s->level;
            }
            used += w;
        }
        prev = k;
    }
    return grid_text_width(buf);
}

/* Each named series' name right of the plot, on the rows name_rows gives,
 * in name_w - 1 columns: a row's names whole where they fit, else merged
 * (grid_first_fit). */
static void draw_names(Grid *g, const TrainPlotSpec *sp, const TrainPlotLayout *lay, const int *row,
                       int name_w)
{
    int x = lay->dots_x + lay->cols + 1;
    for (int r = 0; r < lay->rows; r++) {
        char whole[160], merged[160];
        if (name_line(NULL, 0, 0, 0, sp, row, r, false, whole, sizeof whole) == 0)
            continue;
        name_line(NULL, 0, 0, 0, sp, row, r, true, merged, sizeof merged);
        const char *const forms[] = {whole, merged};
        int k = grid_first_fit(forms, 2, name_w - 1);
        name_line(g, x, lay->dots_y + r, name_w - 1, sp, row, r, k == 0 ? false : true, whole,
                  sizeof whole);
    }
}

/* The columns of the names right of a plot w wide: the widest row's names
 * whole and a gap, at most a quarter of w (two fifths where rows are
 * shared: "L1H1,2 L2H3"). */
static int names_width(const TrainPlotSpec *sp, const TrainPlotLayout *lay, const int *row, int per,
                       int w)
{
    int most = 0, cap = per > 1 ? 2 * w / 5 : w / 4;
    for (int r = 0; r < lay->rows; r++) {
        char buf[160];
        int nw = name_line(NULL, 0, 0, 0, sp, row, r, false, buf, sizeof buf);
        most = nw > most ? nw : most;
    }
    most = most > 0 ? most + 2 : 0;
    return most > cap ? cap : most;
}

/* The axis row: 0 at the left, x_max at the right, ▲ and the step of each
 * mark (in step order) between them, every label and bare ▲ a blank apart ("0▲1128" read
 * as one number). A ▲ in the first two columns takes the place of the 0;
 * one that runs into a label already written is left out (its ◆ stays). */
static void draw_x_axis(Grid *g, int row, const TrainPlotSpec *sp, const TrainPlotLayout *lay)
{
    char buf[24];
    int right = lay->dots_x + lay->cols; /* first column past the dots */
    int len = snprintf(buf, sizeof buf, "%ld", sp->x_max);
    int xr = right - len;
    int used_to = lay->dots_x; /* the first column free, a blank after what is written */
    if (sp->n_marks == 0 || trainplot_dot_x(sp, lay, sp->marks[0].step) / 2 >= 2) {
        grid_put(g, lay->dots_x, row, '0', STYLE_DIM, 0);
        used_to = lay->dots_x + 2;
    }
    for (int k = 0; k < sp->n_marks; k++) {
        int cx = lay->dots_x + trainplot_dot_x(sp, lay, sp->marks[k].step) / 2;
        char mb[24];
        int ml = snprintf(mb, sizeof mb, "%ld", sp->marks[k].step);
        if (cx < used_to)
            continue;
        grid_put(g, cx, row, TRAINPLOT_TICK, STYLE_ACCENT, 0);
        if (cx + 1 + ml < xr - 1) {
            grid_puts(g, cx + 1, row, mb, ml, STYLE_ACCENT);
            used_to = cx + 2 + ml;
        } else {
            used_to = cx + 2;
        }
    }
    if (xr >= used_to)
        grid_puts(g, xr, row, buf, len, STYLE_DIM);
}

int trainplot_lines(Grid *g, int x, int y, int w, int h, const TrainPlotSpec *sp,
                    TrainPlotLayout *out)
{
    int top = sp->title ? 1 : 0, bottom = sp->x_axis ? 1 : 0, row[NAMES_MAX];
    /* the rows of the names depend on the rows of dots only, the columns on them */
    TrainPlotLayout lay = {x + TRAINPLOT_AXIS_W, y + top, 0, h - top - bottom};
    int per = lay.rows > 0 ? name_rows(sp, &lay, row) : 1;
    int name_w = lay.rows > 0 ? names_width(sp, &lay, row, per, w) : 0;
    lay.cols = w - TRAINPLOT_AXIS_W - name_w;
    if (out)
        *out = lay;
    if (lay.rows < 1 || lay.cols < 4)
        return 0;
    if (sp->title)
        grid_puts(g, x, y, sp->title, w, STYLE_TITLE);
    draw_axis_labels(g, x, sp, &lay);
    if (sp->threshold_on) {
        int ty = trainplot_dot_y(sp, &lay, sp->threshold);
        for (int dx = 0; dx < 2 * lay.cols; dx += 3)
            dot(g, &lay, dx, ty, STYLE_DIM, 0);
    }
    for (int k = 0; k < sp->n_series; k++)
        draw_series(g, sp, &lay, &sp->series[k]);
    for (int k = 0; k < sp->n_marks; k++) {
        int cx = trainplot_dot_x(sp, &lay, sp->marks[k].step) / 2;
        int cy = trainplot_dot_y(sp, &lay, sp->marks[k].y) / 4;
        grid_put(g, lay.dots_x + cx, lay.dots_y + cy, TRAINPLOT_MARK, STYLE_ACCENT, 0);
    }
    if (name_w > 0)
        draw_names(g, sp, &lay, row, name_w);
    if (sp->x_axis)
        draw_x_axis(g, lay.dots_y + lay.rows, sp, &lay);
    return h;
}

/* One layout candidate: t tokens, half blocks or full tiles of cw columns. */
static bool heads_try(int w, int h, const TrainHeadsSpec *sp, int t, bool half, int cw,
                      TrainHeadsLayout *lay)
{
    /* the stripe's row under the heatmap, the score after it */
    int heat_w = (half ? t : 2 + t * cw) + (sp->guide && sp->score ? SCORE_W : 0);
    int rows = (half ? (t + 1) / 2 : t) + (sp->guide ? 1 : 0);
    lay->tokens = t, lay->half = half, lay->cell_w = half ? 1 : cw;
    lay->tile_w = (heat_w > TITLE_MIN ? heat_w : TITLE_MIN) + 1;
    lay->tile_h = 2 + rows + 1;
    lay->w = sp->H * lay->tile_w - 1;
    lay->h = sp->L * lay->tile_h - 1;
    return lay->w <= w && lay->h <= h;
}

bool trainplot_heads_fit(int w, int h, const TrainHeadsSpec *sp, TrainHeadsLayout *lay)
{
    int least = sp->n < 4 ? sp->n : 4;
    int full_least = sp->n < TRAINPLOT_GUIDE_TOKENS ? sp->n : TRAINPLOT_GUIDE_TOKENS;
    for (int t = sp->n; sp->guide && t >= full_least && t >= 1; t--)
        if (heads_try(w, h, sp, t, false, 2, lay) || heads_try(w, h, sp, t, false, 1, lay))
            return true;
    for (int t = sp->n; t >= least && t >= 1; t--) {
        if (heads_try(w, h, sp, t, false, 2, lay))
            return true;
        if (sp->half_ok && sp->mode == HEATMAP_COLOR && heads_try(w, h, sp, t, true, 1, lay))
            return true;
        if (heads_try(w, h, sp, t, false, 1, lay))
            return true;
    }
    return false;
}

/* Half blocks: the upper half query row 2r, the lower 2r + 1 (masked above
 * the diagonal, and past the last token). */
static void draw_half(Grid *g, int x, int y, const TrainHeadsSpec *sp, const float *P, int t)
{
    for (int j = 0; j < t; j++)
        grid_puts(g, x + j, y, sp->labels[j], 1, STYLE_LABEL);
    for (int r = 0; 2 * r < t; r++)
        for (int j = 0; j < t; j++) {
            int i0 = 2 * r, i1 = 2 * r + 1;
            bool m0 = j > i0, m1 = i1 >= t || j > i1;
            int l0 = m0 ? 0 : heatmap_level(P[(long)i0 * sp->n + j]);
            int l1 = m1 ? 0 : heatmap_level(P[(long)i1 * sp->n + j]);
            Cell *c = grid_at(g, x + j, y + 1 + r);
            if (!c)
                continue;
            unsigned flags =
                GRID_CELL_HALF | (m0 ? GRID_CELL_UP_MASKED : 0) | (m1 ? GRID_CELL_LO_MASKED : 0);
            *c = (Cell){HALF_BLOCK, STYLE_HEAT, grid_half_level(l0, l1), (uint8_t)flags};
        }
}

static void draw_full(Grid *g, int x, int y, const TrainHeadsSpec *sp, const float *P,
                      const TrainHeadsLayout *lay, HeatmapLayout *out)
{
    const int t = lay->tokens;
    HeatmapSpec hs = {.P = P,
                      .n_q = sp->n,
                      .n_k = sp->n,
                      .row_labels = sp->labels,
                      .col_labels = sp->labels,
                      .causal = true,
                      .mode = sp->mode,
                      .sel_row = -1,
                      .sel_col = -1,
                      .cell_w = lay->cell_w,
                      .label_w = 1};
    HeatmapLayout hl;
    heatmap_draw(g, x, y, 2 + t * lay->cell_w, 1 + t, &hs, &hl);
    *out = hl;
    /* Colour alone in the tiles: percentages in 2 columns run together. */
    for (int r = 0; sp->mode == HEATMAP_COLOR && r < hl.rows; r++)
        for (int c = 0; c < hl.cols * hl.cell_w; c++) {
            Cell *cell = grid_at(g, hl.cells_x + c, hl.cells_y + r);
            if (cell && cell->style == STYLE_HEAT)
                cell->cp = ' ';
        }
}

/* The faint guide in full tiles: TRAINPLOT_GUIDE in each guided cell (its
 * last column in glyphs, where the first keeps the weight's shade). */
static void draw_guide(Grid *g, const TrainHeadsSpec *sp, const HeatmapLayout *hl, int t)
{
    for (int i = 0; i < t && i < hl->rows; i++) {
        int j = sp->guide[i];
        if (j < 0 || j > i || j >= t)
            continue;
        int dx = sp->mode == HEATMAP_GLYPH ? hl->cell_w - 1 : 0;
        if (sp->mode == HEATMAP_GLYPH && hl->cell_w < 2)
            continue; /* a one-column glyph is the weight itself */
        Cell *c = grid_at(g, hl->cells_x + j * hl->cell_w + dx, hl->cells_y + i);
        if (c)
            c->cp = TRAINPLOT_GUIDE;
    }
}

/* The stripe's row at (x, y), cells cw columns from x: under key column j
 * the weight of the row whose guide is j; then the head's score. */
static void draw_stripe(Grid *g, int x, int y, const TrainHeadsSpec *sp, const float *P, int t,
                        int cw, int head)
{
    for (int i = 0; i < t; i++) {
        int j = sp->guide[i];
        if (j < 0 || j > i || j >= t)
            continue;
        float w = P[(long)i * sp->n + j];
        Cell *c = grid_at(g, x + j * cw, y);
        if (!c || x + j * cw + cw > g->w)
            continue;
        if (sp->mode == HEATMAP_GLYPH)
            grid_fill_cells(c, cw, heatmap_glyph(heatmap_glyph_index(w)), STYLE_TEXT, 0);
        else
            grid_fill_cells(c, cw, ' ', STYLE_HEAT, heatmap_level(w));
    }
    if (sp->score) { /* " ╲.62": the stripe's score, .99 at most as in the titles */
        int cents = (int)(sp->score[head] * 100.0f + 0.5f);
        cents = cents < 0 ? 0 : cents > 99 ? 99 : cents;
        grid_printf(g, x + t * cw, y, SCORE_W, sp->hot && sp->hot[head] ? STYLE_ACCENT : STYLE_TEXT,
                    " \xe2\x95\xb2.%02d", cents);
    }
}

int trainplot_heads(Grid *g, int x, int y, const TrainHeadsSpec *sp, const TrainHeadsLayout *lay)
{
    for (int l = 0; l < sp->L; l++)
        for (int h = 0; h < sp->H; h++) {
            int i = l * sp->H + h;
            int tx = x + h * lay->tile_w, ty = y + l * lay->tile_h;
            const float *P = sp->P + (long)i * sp->n * sp->n;
            bool hot = sp->hot && sp->hot[i];
            grid_puts(g, tx, ty, sp->titles[i], lay->tile_w - 1, hot ? STYLE_ACCENT : STYLE_TITLE);
            const int t = lay->tokens;
            if (lay->half) {
                draw_half(g, tx, ty + 1, sp, P, t);
                if (sp->guide)
                    draw_stripe(g, tx, ty + 2 + (t + 1) / 2, sp, P, t, 1, i);
                continue;
            }
            HeatmapLayout hl;
            draw_full(g, tx, ty + 1, sp, P, lay, &hl);
            if (sp->guide) {
                draw_guide(g, sp, &hl, t);
                grid_put(g, tx, hl.cells_y + hl.rows, TRAINPLOT_GUIDE, STYLE_DIM, 0);
                draw_stripe(g, hl.cells_x, hl.cells_y + hl.rows, sp, P, t, hl.cell_w, i);
            }
        }
    return lay->h;
}
