/* kindkeys.h - the interface on any model kind (app/kind.h): the marks of
 * g (the kind's line when it opens is app_kind_line's), which continues the sentence by one token
 * on a kind that generates (the keys a kind refuses, and g itself, are the session's:
 * session_input). Private to src/ui/.
 */
#ifndef ATTNVIZ_UI_KINDKEYS_H
#define ATTNVIZ_UI_KINDKEYS_H

#include <stdbool.h>

#include "uistate.h"

/* After g, while the sentence is the one g made: mark the focused heatmap's
 * rows whose keys and values were cached ('·', dim) and the new row ('+'),
 * in the column before the cells. */
void kindkeys_overlay(UiState *u, Grid *g);

#endif
