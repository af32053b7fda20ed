/* view_table.h - how the interface shows each view of io/views.h's table
 * (view_table.c): a draw function for the views a frame draws, the function
 * that opens it for a view that runs its own loop. Private to src/ui/.
 */
#ifndef ATTNVIZ_VIEW_TABLE_H
#define ATTNVIZ_VIEW_TABLE_H

#include <stdbool.h>

#include "io/views.h"
#include "../uistate.h"

/* Draw the view shown into r: the head scores or the model view when one
 * is open (the interface's own, view_heads.h), else the state's
 * (app_view_base): the heatmaps, the pipeline, the PE view or side by side.
 * Panels, the lesson and the help are drawn over it by the caller. */
void view_table_draw(UiState *u, Grid *g, Rect r);

/* Open view v when it runs its own loop (VIEW_HOME_LOOP: the live training
 * view) and run it until the user leaves: true when the user quit there.
 * Any other v: nothing, false. */
bool view_table_open(UiState *u, ViewId v);

#endif
