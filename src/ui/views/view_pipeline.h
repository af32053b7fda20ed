/* view_pipeline.h - the pipeline view (view_pipeline.c): every stage of the
 * focused head drawn by render/pipeline.c, paged with [ and ].
 */
#ifndef ATTNVIZ_VIEW_PIPELINE_H
#define ATTNVIZ_VIEW_PIPELINE_H

#include "../uistate.h"

/* The largest n_q x n_k the view draws (the stages of longer texts would
 * not fit a screen, and their copies cost memory). */
#define VIEW_PIPELINE_MAX_CELLS (256 * 256)

/* Draw the focused head's stages into r; clamps u->a.app.pipe_page. */
void view_pipeline_draw(UiState *u, Grid *g, Rect r);

#endif
