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

/* "terminal too small (need WxH)", over the whole grid, and that keys wait
 * for a larger terminal. */
void view_top_too_small(Grid *g);

/* Whether a w x h terminal shows the "too small" notice. */
bool view_top_is_small(int w, int h);

/* While the notice shows (w x h too small), whether in may act: only
 * quitting (q, F10, Ctrl-C; q also while editing). Any other key or click
 * is refused, not carried out unseen, as the help refuses keys; a resize
 * or Ctrl-L only redraws. True on a terminal large enough. */
bool view_top_small_takes(int w, int h, AppInput *in);

#endif
