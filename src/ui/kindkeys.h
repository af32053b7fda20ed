/* kindkeys.h - the interface on any model kind (app/kind.h): the keys a kind
 * refuses, said on the status line with the kind's own reason, and g, which
 * continues the sentence by one token on a kind that generates. Private to
 * src/ui/.
 */
#ifndef ATTNVIZ_UI_KINDKEYS_H
#define ATTNVIZ_UI_KINDKEYS_H

#include <stdbool.h>

#include "uistate.h"

/* The kind's own line on the status line when it opens (a trained model's
 * task and context, an imported file's sizes), when it has one. */
void kindkeys_start(UiState *u);

/* Handle in when the running kind refuses what it asks (the mask, sizes,
 * seed, preset, PE, scaling, temperature, cross-attention, examples, views
 * of vectors...: the status line says why), or when it is g on a kind that
 * generates (the sentence grows by one, the new query row is selected and
 * the status line says the earlier keys and values were cached). Nothing is
 * refused while editing. Returns true when handled (flags added to
 * *pending), false to let action_apply have it. */
bool kindkeys_handle(UiState *u, const UiInput *in, unsigned *pending);

/* After g, while the sentence is the one g made: mark the focused heatmap's
 * rows whose keys and values were cached ('·', dim) and the new row ('+'),
 * in the column before the cells. */
void kindkeys_overlay(UiState *u, Grid *g);

#endif
