/* view_table.h - the interface's draw function of each view in io/views.h's
 * table (view_table.c). Private to src/ui/.
 */
#ifndef ATTNVIZ_VIEW_TABLE_H
#define ATTNVIZ_VIEW_TABLE_H

#include "uistate.h"

/* Draw the view the state shows (app_view_base) into r: the heatmaps, the
 * pipeline, the PE view or side by side. Panels, the lesson and the help
 * are drawn over it by the caller. */
void view_table_draw(UiState *u, Grid *g, Rect r);

#endif
