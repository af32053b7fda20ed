/* view_panel.h - a text panel over the middle of the screen (view_panel.c):
 * the calculation trace of the selected token, or how the heads were built.
 */
#ifndef ATTNVIZ_VIEW_PANEL_H
#define ATTNVIZ_VIEW_PANEL_H

#include "../uistate.h"

/* Draw the panel u->a.app.panel names over r, scrolled by u->a.app.panel_scroll;
 * closes it with a message when there is nothing to show. */
void view_panel_draw(UiState *u, Grid *g, Rect r);

/* Free the panel's text. */
void view_panel_free(UiState *u);

#endif
