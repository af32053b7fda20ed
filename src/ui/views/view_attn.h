/* view_attn.h - the attention view (view_attn.c): the focused head large,
 * every head small, the selected token's panel; a long text goes to
 * view_long.c.
 */
#ifndef ATTNVIZ_VIEW_ATTN_H
#define ATTNVIZ_VIEW_ATTN_H

#include "../uistate.h"

/* Draw the view into r of the frame; keeps the layout in u->lay for clicks
 * and sets the selection's paging steps in u->a.app. */
void view_attn_draw(UiState *u, Grid *g, Rect r);

#endif
