/* view_train.h - the live training view (`attnviz --train TASK`, or W from
 * the interface): training runs in time-boxed slices between frames while
 * every head's heatmap, the loss and the head scores are redrawn. Private to
 * src/ui/.
 */
#ifndef ATTNVIZ_VIEW_TRAIN_H
#define ATTNVIZ_VIEW_TRAIN_H

#include <stdbool.h>

#include "app/trainview.h"
#include "../uistate.h"

/* Run the view on tv (set up by the caller, who frees it) until the user
 * backs out with Esc or a key of the interface's (input_bound), pushed back
 * for the caller to read (returns false; not when top, the program's first
 * view: there Esc only says how to quit and other keys do nothing; a key
 * nobody uses says so and the run goes on) or quits with
 * q, F10, Ctrl-C or a signal (returns true). Curses is started and u's
 * colours are set. */
bool view_train_run(UiState *u, TrainView *tv, bool top);

/* From the interface: set up the task's view with its defaults and the
 * interface's seed and run it (not top); the run is the App's (app_train_open), so that
 * opening it again (the same task and seed) resumes the run where it was
 * left. A task that cannot start leaves a message in u->a.app.msg. Returns
 * true when the user quit. */
bool view_train_open(UiState *u, const char *task);

/* The view's row in io/views.def (W): view_train_open on the induction
 * task, as W always has. */
bool view_train_loop(UiState *u);

#endif
