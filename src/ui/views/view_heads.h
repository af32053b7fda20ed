/* view_heads.h - two views of every head at once (view_heads.c): the head
 * scores table (f: each head scored as previous-token, induction,
 * duplicate-token and first-token by app/headscan.h, the best of each kind
 * marked) and the model view (F: one pooled thumbnail per head, layers by
 * heads, as BertViz's). Arrows or a click select a head, Enter (or the
 * click) focuses it in the heatmap view, Esc goes back. Their rows in
 * io/views.h's table: head-scores and model (VIEW_HOME_UI: their state is
 * App's heads, app/headtable.h, not the AppState, so no lesson page shows
 * them); view_table.c draws them.
 * Private to src/ui/.
 */
#ifndef ATTNVIZ_VIEW_HEADS_H
#define ATTNVIZ_VIEW_HEADS_H

#include <stdbool.h>

#include "io/views.h"
#include "../uistate.h"

/* The one of the two views that is open (VIEW_ID_HEAD_SCORES once its
 * scores ran, VIEW_ID_MODEL), or VIEW_ID_COUNT when neither is. */
ViewId view_heads_shown(const UiState *u);

/* Draw the head scores table (open, its scores run) into r. */
void view_heads_table_draw(UiState *u, Grid *g, Rect r);

/* Draw the model view (open) of the text's result into r. */
void view_heads_model_draw(UiState *u, Grid *g, Rect r);

/* A click at (x, y) on a head of the open view: in becomes ACT_CELL_SET
 * (arg the layer, col the head) and true; false elsewhere. */
bool view_heads_click(UiState *u, int x, int y, AppInput *in);

/* Free the views' state. */
void view_heads_free(UiState *u);

#endif
