/* color.h - a Grid's semantic styles and colour levels as curses colour
 * pairs and attributes, and the Grid painted onto stdscr (color.c).
 */
#ifndef ATTNVIZ_COLOR_H
#define ATTNVIZ_COLOR_H

#include <stdbool.h>

#include "uistate.h"

/* After term_begin: the colour depth (256, 8 or none: none when !allowed or
 * the terminal has no colours) into u->depth and u->hmode, pairs made. */
void color_init(UiState *u, bool allowed);

/* Paint g onto stdscr (after erase(); the caller refreshes). */
void color_paint(const UiState *u, const Grid *g);

#endif
