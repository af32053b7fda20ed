/* view_long.h - a text too long for one cell a token, pooled down to the
 * screen (view_long.c).
 */
#ifndef ATTNVIZ_VIEW_LONG_H
#define ATTNVIZ_VIEW_LONG_H

#include <stdbool.h>

#include "../uistate.h"

/* Whether the result must be drawn pooled in r (lazy, or too many tokens). */
bool view_long_wanted(const UiState *u, Rect r);

/* The whole attention view of a long text in r: the focused head pooled,
 * every head small, the selected token's panel. */
void view_long_draw(UiState *u, Grid *g, Rect r);

/* Head h of res pooled into r (title, cells, labels, readout); keeps the
 * layout for clicks when main. */
void view_long_head(UiState *u, Grid *g, Rect r, const ModelResult *res, int h, const char *title,
                    bool main);

/* Every head of u->a.ses.res small in r, each its whole matrix (max-pooled when it
 * has more tokens than cells), labelled with its number and label, its
 * statistics under it, the focused one marked; at most max_h rows. Keeps
 * the tiles for clicks. Returns the rows used (0 when nothing fits). */
int view_long_tiles(UiState *u, Grid *g, Rect r, int max_h);

#endif
