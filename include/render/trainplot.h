/* trainplot.h - the live training view's figures drawn into a Grid: line
 * plots of histories against the training step in Braille dots (2 x 4 dots a
 * cell), with a dashed threshold and marked moments, and every layer x head
 * as a small heatmap of one probe sequence.
 *
 * Pure functions of their arguments; no terminal, no training (the caller
 * hands histories and weights in). Braille dots of several lines in one cell
 * are merged; the cell takes the style of the line drawn last.
 */
#ifndef ATTNVIZ_TRAINPLOT_H
#define ATTNVIZ_TRAINPLOT_H

#include <stdbool.h>

#include "render/grid.h"
#include "render/heatmap.h"

#define TRAINPLOT_AXIS_W 5     /* columns of the value labels at the left */
#define TRAINPLOT_MARK 0x25C6u /* ◆ a marked moment on a line */
#define TRAINPLOT_TICK 0x25B2u /* ▲ its step on the axis */

/* One line: value y[k * stride] at step x[k] of the plot, k < n. */
typedef struct {
    const float *y;
    int stride;       /* >= 1 */
    int style, level; /* CellStyle (and level) of its dots */
    const char *name; /* written right of the plot at the line's end, or NULL */
} TrainSeries;

/* A marked moment: a ◆ at (step, y) and a ▲ with the step on the axis. */
typedef struct {
    long step;
    float y;
} TrainMark;

typedef struct {
    const char *title; /* first row; NULL: none */
    const long *x;     /* n steps, increasing */
    int n;
    long x_max;         /* the axis's right end (> 0; >= x[n-1]) */
    float y_min, y_max; /* the value range (y_max > y_min); values outside are clamped */
    bool threshold_on;  /* a dashed line at threshold */
    float threshold;
    const TrainSeries *series;
    int n_series;
    const TrainMark *marks;
    int n_marks;
    bool x_axis; /* a step axis on the last row (0, the marks' steps, x_max) */
} TrainPlotSpec;

/* Where a plot's dots went: cell (cx, cy) of the dot area is grid cell
 * (dots_x + cx, dots_y + cy). */
typedef struct {
    int dots_x, dots_y, cols, rows; /* the Braille area, in cells */
} TrainPlotLayout;

/* The dot column (0 .. 2*cols-1) of step s, and the dot row (0 .. 4*rows-1,
 * 0 at the top) of value v, for sp drawn in lay. */
int trainplot_dot_x(const TrainPlotSpec *sp, const TrainPlotLayout *lay, long s);
int trainplot_dot_y(const TrainPlotSpec *sp, const TrainPlotLayout *lay, float v);

/* Draw sp into g at (x, y) within w x h: title, value labels (y_max at the
 * top, y_min at the bottom, the threshold's row), the dots of every series
 * joined into lines, the names at the right, the marks, the axis. Needs
 * h >= 2 (+1 with the title, +1 with the axis) and w >= TRAINPLOT_AXIS_W + 4;
 * draws nothing when smaller. Fills *lay (may be NULL). Returns the rows used. */
int trainplot_lines(Grid *g, int x, int y, int w, int h, const TrainPlotSpec *sp,
                    TrainPlotLayout *lay);

/* Every head's weights on one probe sequence. */
typedef struct {
    const float *P; /* (L, H, n, n): head (l, h) at (l * H + h) * n * n */
    int L, H, n;
    const char *const *labels; /* n token labels, one column wide each */
    const char *const *titles; /* L * H head titles ("L2H1 induction 0.62") */
    const bool *hot;           /* L * H: the title accented, or NULL */
    HeatmapMode mode;
    bool half_ok; /* two rows a line in half blocks allowed (colour) */
    /* The induction stripe, or NULL: guide[i] is the key query row i's
     * induction weight falls on (the one after the previous occurrence of
     * its token), -1 for none. Full tiles mark those cells with a faint
     * TRAINPLOT_GUIDE; every tile gets a row under its heatmap holding the
     * weight each row puts on its guide key, in that key's column (the
     * stripe, brightening as it forms), then score[i] when score is set
     * (L * H: each head's induction score). */
    const int *guide;
    const float *score;
} TrainHeadsSpec;

#define TRAINPLOT_GUIDE 0x2572u /* ╲ */

typedef struct {
    int tokens;         /* probe tokens shown (the first ones: causal, so the
                           same weights as the prefix alone) */
    bool half;          /* half-block tiles */
    int cell_w;         /* columns a token (full tiles) */
    int tile_w, tile_h; /* one head's tile, its gap included */
    int w, h;           /* the whole grid of tiles */
} TrainHeadsLayout;

/* The layout showing the most tokens (at least min(4, n)) in w x h: per
 * count, full tiles 2 columns a token, then half blocks, then full tiles of
 * 1 column. With a guide, full tiles (which can carry it) first when they
 * show min(n, TRAINPLOT_GUIDE_TOKENS) tokens or more. Returns false when
 * none fits. */
#define TRAINPLOT_GUIDE_TOKENS 12
bool trainplot_heads_fit(int w, int h, const TrainHeadsSpec *sp, TrainHeadsLayout *lay);

/* Draw the L x H tiles (a row per layer) at (x, y) with lay from
 * trainplot_heads_fit: each a title and heatmap_draw's heatmap (or the half
 * blocks: column labels, then query rows 2r and 2r+1 in one line). Returns
 * the rows used. */
int trainplot_heads(Grid *g, int x, int y, const TrainHeadsSpec *sp, const TrainHeadsLayout *lay);

#endif
