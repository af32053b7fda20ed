/* widgets.h - drawing pieces shared by the views (widgets.c): each draws
 * into the frame's Grid and nothing else.
 */
#ifndef ATTNVIZ_WIDGETS_H
#define ATTNVIZ_WIDGETS_H

#include <stdbool.h>
#include <stddef.h>

#include "uistate.h"

/* Blank every cell of r (plain text style). */
void widget_rect_clear(Grid *g, Rect r);

/* A box-drawing frame around r, its inside blanked. */
void widget_box(Grid *g, Rect r);

/* Key labels for a heatmap whose cells are cell_w wide: at most `letters`
 * code points each (1..5; rotated labels take that many rows), and with
 * cells narrower than 3 columns only every 2nd or 3rd key (and the selected
 * one) labelled, so that the letters of neighbours never run together.
 * Points into u's label buffers (valid until the next call). */
const char *const *widget_col_labels(UiState *u, int cell_w, int letters);

/* A failed run's one line: session_error_line's. */
const char *widget_run_error(UiState *u, int err);

/* Head h's label at the shown layer: model_head_label's, or for an
 * example's own weights, where they come from. */
const char *widget_head_label(UiState *u, int h);

/* Who a panel's numbers are of: "head 5", or what a combining view's one
 * head is ("6 heads combined: sum", "rollout of layers 1-2 (6 heads
 * averaged)"). Returns snprintf's count. */
int widget_head_of(const UiState *u, int h, char *buf, size_t size);

/* A head's statistics into buf: "entropy 1.58 bits, mean top weight 0.38"
 * (the rows' largest weights averaged) when wide, else "1.58b .38" (the
 * tiles' captions, explained under them: view_long_tiles); "~" marks values from sampled rows; ""
 * for st NULL. Returns snprintf's count. */
int widget_stats_text(const HeadStats *st, bool wide, char *buf, size_t size);

/* A head's statistics in at most width columns, the longest form that fits:
 * widget_stats_text's wide one, "entropy 1.58 bits, top 0.38", its narrow
 * one ("~" before each where sampled), else "" (never cut). */
int widget_stats_fit(const HeadStats *st, int width, char *buf, size_t size);

/* The tiles' caption ("1.58b .38") in at most width columns where it can:
 * "1.58 .38", then "1.6 .38", where it would be cut. */
int widget_stats_caption(const HeadStats *st, int width, char *buf, size_t size);

/* grid_first_fit's form, or n - 1 (the shortest, cut where drawn) when
 * none fits width columns. */
int widget_fit(const char *const *forms, int n, int width);

/* At 8 colours, tint the shade glyphs of the cells heatmap_draw laid out in
 * *l by their level (masked cells keep their glyph); else nothing. */
void widget_tint_cells(const UiState *u, Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l);

/* The rows widget_info_draw fills for head h of res when given as many
 * as it can use: its title, the selected cell's two lines (or the hint on
 * picking one), a bar a key the selected row sees and the line on those it
 * does not; INT_MAX for query rows summed (M), which take any height. */
int widget_info_rows(const UiState *u, const ModelResult *res);

/* The selected token's panel in r for head h of res: a title, the selected
 * cell's weight and raw score (or how to pick one), then its ranked bars. */
void widget_info_draw(UiState *u, Grid *g, Rect r, const ModelResult *res, int h);

/* A hint line, parts joined by " | " ("Tab: head | ... | ? help | q quit"),
 * fitted to w columns into line: the parts at its end that name the help
 * or quitting are always kept; of the others, each that fits with them, in
 * order (the first the most important), none cut. Returns its width. */
int widget_hint_fit(const char *hint, int w, char *line, size_t size);

#endif
