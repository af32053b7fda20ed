/* plot.h - the positional-encoding figures drawn into a Grid: the PE matrix
 * as a diverging heatmap, Braille line plots of chosen dimensions against
 * position, and the similarity matrix of the sentence's positions
 * (posenc_similarity computes it).
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
    const float *M; /* (n_rows, n_cols), row-major */
    int n_rows, n_cols;
    float range;                   /* values in [-range, range] span the ramp */
    const char *const *row_labels; /* labels of rows 0..n_labeled-1, or NULL */
    int n_labeled;                 /* rows past it are labelled with their index only */
    const char *const *col_labels; /* n_cols labels, or NULL: indices on the axis */
    int sel_row;                   /* -1: none */
    int first_row;                 /* scroll offset */
    int cell_w;                    /* 0: 1 column per matrix column, sampled when too wide */
    bool glyphs;                   /* monochrome: sign glyphs */
    bool values;                   /* write the value in cells of 5 columns or more */
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

/* Line plots, one strip per dimension in dims[0..n_dims): PE(pos, dim) for
 * pos in 0..n_pos-1 against position, in Braille dots, each strip titled
 * with its formula; below them a position axis where the sentence's
 * positions 0..n_marked-1 are ticked and position sel is marked. PE is
 * (n_pos, d_model). Returns the rows used. */
int plot_pe_lines(Grid *g, int x, int y, int max_w, int max_h, const float *PE, int n_pos,
                  int d_model, const int *dims, int n_dims, int n_marked, int sel);

#endif
