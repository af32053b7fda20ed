/* kindkeys.h - the interface on a trained model (--model DIR): the keys that
 * mean something else there, and generation with g. Private to src/ui/.
 */
#ifndef ATTNVIZ_UI_KINDKEYS_H
#define ATTNVIZ_UI_KINDKEYS_H

#include <stdbool.h>

#include "uistate.h"

/* The message the interface opens with on a trained model. */
void trained_start(UiState *u);

/* Handle in when it means something of its own on a trained model (u->src.net
 * set): g generates the next token (the sentence grows by one, the new
 * query row is selected and the status line says the earlier keys and
 * values were cached); the mask, sizes, seed, preset, PE, scaling,
 * temperature, cross-attention and English examples are fixed, with a
 * message saying why (and the PE view, for learned encodings). Returns true
 * when handled (flags added to *pending), false to let action_apply have it. */
bool trained_handle(UiState *u, const UiInput *in, unsigned *pending);

/* After g, while the sentence is the one g made: mark the focused heatmap's
 * rows whose keys and values were cached ('·', dim) and the new row ('+'),
 * in the column before the cells. */
void trained_overlay(UiState *u, Grid *g);

#endif
