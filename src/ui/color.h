/* color.h - a Grid's semantic styles and colour levels as curses colour
 * pairs and attributes, and the Grid painted onto stdscr (color.c).
 */
#ifndef ATTNVIZ_COLOR_H
#define ATTNVIZ_COLOR_H

#include <stdbool.h>

#include "uistate.h"

/* After term_begin: the colour depth (256, 8 or none: none when !allowed or
 * the terminal has no colours) into u->depth and u->hmode, pairs made; a
 * non-empty ATTNVIZ_FULL_REDRAW other than "0" makes color_paint draw every
 * frame whole (the check on its incremental painting). */
void color_init(UiState *u, bool allowed);

/* Paint g onto stdscr; the caller refreshes. The same as erase() and every
 * cell that is not a plain blank added, but a frame after a painted one
 * adds only the cells that changed (the keys of the last frame are kept in
 * u); anything else written on stdscr since the last refresh, a new size or
 * a wide character makes it the whole frame again. stdscr is drawn only
 * here: a frame written and refreshed elsewhere would not be seen. */
void color_paint(UiState *u, const Grid *g);

/* Frees what color_paint keeps in u. */
void color_free(UiState *u);

#endif
