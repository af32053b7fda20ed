/* view_help.h - the help overlay (view_help.c): every key, from the key
 * tables, in columns; Esc, ? or F1 closes it. Private to src/ui/.
 */
#ifndef ATTNVIZ_VIEW_HELP_H
#define ATTNVIZ_VIEW_HELP_H

#include "../uistate.h"

/* Scroll the help (on a screen gw x gh) to the line of action a, under its
 * heading: the live training view opens it at its own keys. */
void view_help_at(UiState *u, int gw, int gh, Action a);

/* Draw the help overlay over g. */
void view_help_draw(UiState *u, Grid *g);

#endif
