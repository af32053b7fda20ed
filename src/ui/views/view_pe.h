/* view_pe.h - the positional-encoding view (view_pe.c): the PE matrix, PE
 * against position, and the similarity of the sentence's positions.
 */
#ifndef ATTNVIZ_VIEW_PE_H
#define ATTNVIZ_VIEW_PE_H

#include "../uistate.h"

/* Draw the view into r; keeps the matrices' layouts for clicks. */
void view_pe_draw(UiState *u, Grid *g, Rect r);

#endif
