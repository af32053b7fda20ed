/* input.h - keys to Actions through one const table (input.c); the help
 * overlay lists them (views/view_help.h).
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

/* The names of the keys of action a, in the order of the key table (a
 * view's from its row), into names[] (at most max): how many. */
int input_key_names(Action a, const char **names, int max);

#endif
