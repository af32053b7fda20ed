/* heatmap.h - an attention matrix drawn into a Grid: labels, shaded cells,
 * legend, and the ranked bar chart of one row.
 *
 * Pure functions of their arguments; no terminal. The UI and the text export
 * both call heatmap_draw, and the UI maps mouse clicks back to (row, column)
 * through the HeatmapLayout it returns.
 *
 * Shades. Each weight w gets a colour level floor(sqrt(w) * GRID_LEVELS) (the
 * square root spreads the small weights a sentence of ten tokens has) and one of
 * five glyphs that survive a black-and-white printout:
 *   '·' w < 5%   '░' 5-15%   '▒' 15-35%   '▓' 35-65%   '█' >= 65%
 * A cell hidden by the causal mask is '╳' in glyph mode and its own style in
 * colour: it never looks like a small weight.
 */
#ifndef ATTNVIZ_HEATMAP_H
#define ATTNVIZ_HEATMAP_H

#include <stdbool.h>

#include "core/attention.h"
#include "render/grid.h"

#define HEATMAP_GLYPHS 5
#define HEATMAP_MASKED_GLYPH 0x2573u /* ╳ */

typedef enum {
    HEATMAP_GLYPH, /* shade glyphs: monochrome screens and printouts */
    HEATMAP_COLOR, /* coloured cells (STYLE_HEAT levels), percentages where they fit */
} HeatmapMode;

typedef struct {
    const float *P; /* (n_q, n_k) weights, row-major, row stride n_k */
    int n_q, n_k;
    const char *const *row_labels; /* n_q UTF-8 labels (query tokens) */
    const char *const *col_labels; /* n_k labels (key tokens) */
    bool causal;                   /* masked where attention_visible_keys says: heatmap_masked */
    HeatmapMode mode;
    int sel_row, sel_col;     /* -1: none */
    int cell_w;               /* columns per cell; 0 picks from the width (1..6) */
    int first_row, first_col; /* scroll offsets */
    int label_w;              /* max row-label width; 0 = 10 */
    bool number_rows;         /* prefix row labels with their 1-based index */
    bool pooled;              /* P holds pooled cells (pool.h): a negative value
                                 (POOL_MASKED) is masked, causal is not applied */
    float full;               /* > 1: the cells are sums from 0 to full (heads
                                 summed), shaded by their share of it and written
                                 as sums ("4.3", ".06"); else weights, in % */
} HeatmapSpec;

typedef struct {
    int x, y, w, h;       /* the whole drawing */
    int cells_x, cells_y; /* top-left of the first cell */
    int cell_w;
    int rows, cols; /* cells shown */
    int first_row, first_col;
} HeatmapLayout;

/* The colour level (0..GRID_LEVELS-1) and the glyph index (0..4) of a weight.
 * heatmap_level: floor(sqrt(w) GRID_LEVELS); w >= 1 (+Inf too) gives
 * GRID_LEVELS - 1, w <= 0 and NaN give 0. */
int heatmap_level(float w);
int heatmap_glyph_index(float w);
/* heatmap_level of each of w[0..n) into level[0..n), n >= 0: four at a time
 * with one square-root instruction where the processor has SSE (it rounds
 * as sqrtf does, so the levels are the same). */
void heatmap_levels(const float *w, int n, uint8_t *level);
/* The glyph code point of glyph index k. */
unsigned heatmap_glyph(int k);

/* Draw spec into g at (x, y) within max_w x max_h: column labels on top
 * (horizontal when they fit the cell width, else rotated to read downwards),
 * row labels at the left, cells. Fills *lay. Returns the rows used. */
int heatmap_draw(Grid *g, int x, int y, int max_w, int max_h, const HeatmapSpec *spec,
                 HeatmapLayout *lay);

/* Map a screen position to the (row, col) of the cell under it. Returns true
 * when (sx, sy) is on a cell; with a row label only, *col is -1. */
bool heatmap_hit(const HeatmapLayout *lay, int sx, int sy, int *row, int *col);

/* Whether cell (i, j) of sp is masked: the rule of attention_visible_keys. */
static inline bool heatmap_masked(const HeatmapSpec *sp, int i, int j)
{
    AttnShape s = {.n_q = sp->n_q, .n_k = sp->n_k, .causal = sp->causal};
    return j >= attention_visible_keys(&s, i);
}

/* The legend: in glyph mode each glyph and its range (on a second row
 * where one row is too narrow for them), in colour mode a ramp with ticks
 * at 0, 5, 25, 50, 100%; plus the masked mark when causal. At most max_w
 * columns, 1 or 2 rows (heatmap_legend_rows). Returns the rows used. */
int heatmap_legend(Grid *g, int x, int y, int max_w, HeatmapMode mode, bool causal);

/* The rows heatmap_legend_of takes in max_w columns. */
int heatmap_legend_rows(int max_w, HeatmapMode mode, bool causal, float full);

/* heatmap_legend of sums from 0 to full (full > 1: "sum:", ticks at 0,
 * 5, 25, 50 and 100% of full written as sums), else heatmap_legend's. */
int heatmap_legend_of(Grid *g, int x, int y, int max_w, HeatmapMode mode, bool causal, float full);

/* Ranked bars of one row: P_row (n_k), labels; the row sees keys [0, vis)
 * (attention_visible_keys), the others are listed last as "masked". At most
 * max_h bars. Returns the rows used. */
int heatmap_bars(Grid *g, int x, int y, int max_w, int max_h, const float *P_row, int n_k,
                 const char *const *labels, int vis);

/* heatmap_bars of sums from 0 to full when full > 1: each written as a sum
 * ("1.62"), its bar's end at full (else weights, as heatmap_bars'); the
 * visible keys in the sentence's order when ranked is false: a lesson's bars
 * before a reveal, whose order must not tell which key is strongest. */
int heatmap_bars_of(Grid *g, int x, int y, int max_w, int max_h, const float *P_row, int n_k,
                    const char *const *labels, int vis, float full, bool ranked);

#endif
