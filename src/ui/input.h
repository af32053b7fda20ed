/* input.h - keys to Actions through one const table, and the help overlay
 * made from that same table (input.c).
 */
#ifndef ATTNVIZ_INPUT_H
#define ATTNVIZ_INPUT_H

#include <stdbool.h>

#include "uistate.h"

/* After term_begin: extra key sequences and the codes of Ctrl-Left/Right. */
void input_init(UiState *u);

/* Read one key, mouse event or typed character (waiting at most the current
 * timeout) into *in; false when none came. An unbound key gives ACT_NONE
 * with no text (a redraw). */
bool input_read(UiState *u, AppInput *in);

/* The live training view's input: one key (waiting at most the current
 * timeout) as the table's training rows map it into *in, its code in *key
 * (0 for a resize, a click or a sequence curses did not know: nothing to
 * say). False when none came. */
bool input_read_train(AppInput *in, int *key);

/* Whether key means something to the interface outside the editor (a row
 * of the key table): the live training view hands such keys back, and
 * keeps the others. */
bool input_bound(int key);

/* Scroll the help (on a screen gw x gh) to the line of action a, under its
 * heading: the live training view opens it at its own keys. */
void input_help_at(UiState *u, int gw, int gh, Action a);

/* Draw the help overlay over g. */
void input_help_draw(UiState *u, Grid *g);

#endif
