/* view_cmp.h - two heatmaps side by side (view_cmp.c): the focused head with
 * the causal mask off and on, or the focused head and the next.
 */
#ifndef ATTNVIZ_VIEW_CMP_H
#define ATTNVIZ_VIEW_CMP_H

#include "../uistate.h"

/* Draw the comparison u->a.app.compare asks for into r. */
void view_cmp_draw(UiState *u, Grid *g, Rect r);

#endif
