/* kindkeys.h - the interface on any model kind (app/kind.h): its line when
 * it opens, and the marks of g, which continues the sentence by one token on
 * a kind that generates (the keys a kind refuses, and g itself, are the
 * session's: session_input). Private to src/ui/.
 */
#ifndef ATTNVIZ_UI_KINDKEYS_H
#define ATTNVIZ_UI_KINDKEYS_H

#include <stdbool.h>

#include "uistate.h"

/* The kind's own line on the status line when it opens (a trained model's
 * task and context, an imported file's sizes), when it has one. */
void kindkeys_start(UiState *u);

/* After g, while the sentence is the one g made: mark the focused heatmap's
 * rows whose keys and values were cached ('·', dim) and the new row ('+'),
 * in the column before the cells. */
void kindkeys_overlay(UiState *u, Grid *g);

#endif
