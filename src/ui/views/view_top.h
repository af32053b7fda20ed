/* view_top.h - the frame around the views (view_top.c): the title line, the
 * sentence editor, the token chips, the cost, message and status lines, and
 * the notice of a terminal too small.
 */
#ifndef ATTNVIZ_VIEW_TOP_H
#define ATTNVIZ_VIEW_TOP_H

#include "../uistate.h"

/* The title, sentence(s) and chips; returns the rows used at the top. */
int view_top_draw(UiState *u, Grid *g);

/* The status line's rows at width w: 1, or 2 when its settings do not fit
 * one line (they go on a second, whole, rather than cut). */
int view_top_status_rows(const UiState *u, int w);

/* The rows the view gives up at width w to a message longer than the cost
 * and message lines hold (an example's note of three or four lines): 0 to 2. */
int view_top_note_rows(const UiState *u, int w);

/* The last rows: cost, message or hint, status (view_top_status_rows); a
 * long message over the cost line and the view_top_note_rows above it. */
void view_top_bottom_draw(UiState *u, Grid *g);

/* "terminal too small (need WxH)", over the whole grid. */
void view_top_too_small(Grid *g);

#endif
