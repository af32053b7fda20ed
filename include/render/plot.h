/* plot.h - the positional-encoding figures drawn into a Grid: the PE matrix
 * as a diverging heatmap, Braille line plots of chosen dimensions against
 * position, and the similarity matrix PE PE^T of the sentence's positions;
 * and the arithmetic of the attention figures: a head's entropy and largest
 * weights, and the geometry of a long text pooled, zoomed and scrolled.
 *
 * Pure functions of their arguments; no terminal (the UI paints the Grid).
 * Signed values use STYLE_DIVERGE levels (GRID_LEVELS/2 is zero). In glyph
 * mode (monochrome screens) a cell shows its sign and size as one of
 *   '=' v <= -0.6   '-' -0.6..-0.2   '·' -0.2..0.2   '+' 0.2..0.6   '#' >= 0.6
 * (of the value divided by its range).
 */
#ifndef ATTNVIZ_PLOT_H
#define ATTNVIZ_PLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/attention.h"
#include "render/grid.h"

#define PLOT_GLYPHS 5

typedef struct {
    int x, y, w, h;       /* the whole drawing */
    int cells_x, cells_y; /* top-left of the first cell */
    int cell_w;           /* columns per cell */
    int rows, cols;       /* cells shown */
    int first_row;        /* first row shown */
    int col_step;         /* matrix columns per shown column (PE dimensions) */
} PlotLayout;

/* A signed matrix drawn as a diverging heatmap. */
typedef struct {
    const float *M;      /* (n_rows, n_cols), row-major */
    int n_rows, n_cols;
    float range;         /* values in [-range, range] span the ramp */
    const char *const *row_labels; /* labels of rows 0..n_labeled-1, or NULL */
    int n_labeled;       /* rows past it are labelled with their index only */
    const char *const *col_labels; /* n_cols labels, or NULL: indices on the axis */
    int sel_row;         /* -1: none */
    int first_row;       /* scroll offset */
    int cell_w;          /* 0: 1 column per matrix column, sampled when too wide */
    bool glyphs;         /* monochrome: sign glyphs */
    bool values;         /* write the value in cells of 5 columns or more */
} PlotMatrixSpec;

/* The level 0..GRID_LEVELS-1 of v on a diverging ramp over [-range, range]. */
int plot_diverge_level(float v, float range);

/* The sign glyph of v (see above). */
uint32_t plot_diverge_glyph(float v, float range);

/* The Braille character of dot bits (bit 0 = dot 1 ... bit 7 = dot 8). */
uint32_t plot_braille(unsigned bits);

/* The Braille bit of the dot at column dx (0..1), row dy (0..3) of a cell. */
unsigned plot_braille_bit(int dx, int dy);

/* Draw spec into g at (x, y) within max_w x max_h: a row of column ticks on
 * top, row labels at the left, then cells; rows of the sentence (below
 * n_labeled) are marked. Fills *lay. Returns the rows used. */
int plot_matrix(Grid *g, int x, int y, int max_w, int max_h, const PlotMatrixSpec *spec,
                PlotLayout *lay);

/* Map a screen position to the row of the cell under it (or -1). */
int plot_hit_row(const PlotLayout *lay, int sx, int sy);

/* S (n, n) = the cosine similarity of the PE rows of positions 0..n-1:
 * PE(i) . PE(j) / (|PE(i)| |PE(j)|). PE is (n, d_model). */
void plot_pe_similarity(const float *PE, int n, int d_model, float *S);

/* Line plots, one strip per dimension in dims[0..n_dims): PE(pos, dim) for
 * pos in 0..n_pos-1 against position, in Braille dots, each strip titled
 * with its formula; below them a position axis where the sentence's
 * positions 0..n_marked-1 are ticked and position sel is marked. PE is
 * (n_pos, d_model). Returns the rows used. */
int plot_pe_lines(Grid *g, int x, int y, int max_w, int max_h, const float *PE, int n_pos,
                  int d_model, const int *dims, int n_dims, int n_marked, int sel);

/* ---- head statistics ------------------------------------------------ */

/* The entropy in bits of one row of weights: -sum p log2 p over p > 0 (a
 * masked weight is exactly 0 and takes no part). 0 for a one-hot row,
 * log2(len) for a uniform one. */
double plot_row_entropy(const float *row, int len);

typedef struct {
    double entropy; /* mean over the rows folded in of their entropy, in bits */
    double top;     /* mean over the rows of their largest weight */
    float max;      /* the largest weight of all */
    int rows;       /* rows folded in */
    bool sampled;   /* only some rows were (a long text) */
} HeadStats;

/* Fold one row of len weights into st (zeroed first); plot_stats_finish
 * turns the sums into means. */
void plot_stats_add(HeadStats *st, const float *row, int len);
void plot_stats_finish(HeadStats *st);

/* The stride of the query rows to fold in so that at most budget weights
 * (rows x n_k) are read: 1 when all fit. */
int plot_sample_stride(int n_q, int n_k, long budget);

/* The statistics of head h into *st: its weights from P_h (n_q, n_k) when
 * not NULL, else computed a row at a time from Q and K (pool.h); every
 * plot_sample_stride-th query row, so that at most budget weights are read
 * (st->sampled says whether rows were skipped). Masked keys take no part.
 * Returns AV_OK or AV_ERR_NOMEM. */
int plot_head_stats(const AttnShape *s, int h, const float *Q, const float *K,
                    const float *P_h, long budget, HeadStats *st);

/* ---- a long text pooled to the screen ------------------------------- */

/* One axis of the pooled view: tokens [first, first + span) shown in cells
 * cells; cell k covers tokens first + k*span/cells .. first + (k+1)*span/cells
 * - 1 (pool.h's split). */
typedef struct {
    int n;      /* tokens on the axis */
    int first;  /* first token shown */
    int span;   /* tokens shown */
    int cells;  /* cells they are pooled into, 1 <= cells <= span */
} ViewAxis;

/* Tokens shown at zoom level z of n tokens: ceil(n / 2^z), but never fewer
 * than min(n, fit) (one token a cell on fit cells). */
int plot_zoom_span(int n, int zoom, int fit);

/* The first zoom level at which span == min(n, fit): one token a cell. */
int plot_zoom_max(int n, int fit);

/* Lay an axis out: n tokens, at most cap cells, zoom level z. The window
 * keeps token sel in view, moving from first as little as it must; with
 * recentre it is centred on sel instead. */
ViewAxis plot_view_axis(int n, int cap, int zoom, int sel, int first, bool recentre);

/* Tokens [*t0, *t1) of cell k. */
void plot_cell_range(const ViewAxis *a, int k, int *t0, int *t1);

/* The cell holding token t, or -1 when t is not shown. */
int plot_cell_of(const ViewAxis *a, int t);

/* "129-192" (1-based, inclusive) for tokens [t0, t1), or "129" for one. */
void plot_range_label(int t0, int t1, char *buf, int size);

#endif
