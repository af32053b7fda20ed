/* view_table.h - how the interface shows each view of io/views.def
 * (view_table.c): its keys and help line, its title and hint, the function
 * that draws it (or opens it, for a view that runs its own loop), the one
 * that takes clicks on it. Private to src/ui/.
 */
#ifndef ATTNVIZ_VIEW_TABLE_H
#define ATTNVIZ_VIEW_TABLE_H

#include <stdbool.h>

#include "io/views.h"
#include "../uistate.h"

/* The modes a key works in (a key table's row, views.def's K): browsing,
 * editing, both, the live training view. */
enum { IN_BROWSE = 1, IN_EDIT = 2, IN_BOTH = 3, IN_TRAIN = 4 };

/* Draw the view shown into r: the head scores or the model view when one
 * is open (the interface's own, view_heads.h), else the state's
 * (app_view_base): the heatmaps, the pipeline, the PE view or side by side.
 * Panels, the lesson and the help are drawn over it by the caller. */
void view_table_draw(UiState *u, Grid *g, Rect r);

/* Open view v when it runs its own loop (VIEW_HOME_LOOP: the live training
 * view) and run it until the user leaves: true when the user quit there.
 * Any other v: nothing, false. */
bool view_table_open(UiState *u, ViewId v);

/* The action of a view's key in mode (IN_*), into *a: false when key is no
 * view's there. */
bool view_table_key(unsigned mode, int key, Action *a);

/* The names of the keys of action a (a view's), in the help's order, into
 * names[] (at most max): how many. 0 when a is no view's. */
int view_table_key_names(Action a, const char **names, int max);

/* The help line of action a (a view's key), or NULL. */
const char *view_table_help(Action a);

/* The view whose key is the k-th of the table that has a help line, its
 * action into *a: false past the last. */
bool view_table_help_at(int k, Action *a);

/* The title of base view v for the top line ("Attention" for a view with
 * none) and the hint line under the views (the attention view's for a view
 * with none). */
const char *view_table_title(ViewId v);
const char *view_table_hint(ViewId v);

/* Whether the base view shown takes its own clicks (views.def's CLICK:
 * the lens's cells) instead of the heatmaps'. */
bool view_table_clicks(const UiState *u);

/* A click at (x, y) on that view: true when it took it, into in. */
bool view_table_click(const UiState *u, int x, int y, AppInput *in);

#endif
