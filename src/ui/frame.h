/* frame.h - one frame of the interface composed from the state into a Grid
 * of a given size (frame.c): the views, labels, status and cost lines, the
 * lesson's page, as the terminal shows them. No curses: ui.c paints the
 * Grid it makes onto the terminal; the lesson checker (lessoncheck.c)
 * reads it off-screen.
 */
#ifndef ATTNVIZ_FRAME_H
#define ATTNVIZ_FRAME_H

#include <stdbool.h>

#include "uistate.h"

/* Size u's label arrays for the result's tokens (out of memory: term_die);
 * frame_draw does, before the views read them. */
void frame_labels_fit(UiState *u);

/* Compose the whole frame into g, resized to w x h (out of memory:
 * term_die): the "too small" notice below UI_MIN_W x UI_MIN_H, else the
 * top lines, the view shown, the panel, the lesson's page and its veil,
 * the status and cost lines, the list of lessons and the help. u->lay
 * says where things went. */
void frame_draw(UiState *u, Grid *g, int w, int h);

/* Free everything u holds (its views' caches, the session, the lesson,
 * the grid) and zero it. */
void frame_free(UiState *u);

#endif
