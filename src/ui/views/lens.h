/* lens.h - the logit lens view (lens.c): a grid of layers x positions,
 * each cell the likeliest next token of that layer's residual stream at
 * that position coloured by its probability, the selected position's
 * column marked, and beside it the selected cell's ten likeliest tokens
 * and the rank and probability of the token that really comes next. Its
 * state and its keys are app's (app/lensview.h, App.lens); u (ACT_LENS)
 * opens it. Private to src/ui/.
 */
#ifndef ATTNVIZ_VIEWS_LENS_H
#define ATTNVIZ_VIEWS_LENS_H

#include <stdbool.h>

#include "../uistate.h"

/* Draw the lens of u->a.lens into r. */
void view_lens_draw(UiState *u, Grid *g, Rect r);

/* A click at (x, y) on a cell of the lens drawn last: in becomes
 * ACT_CELL_SET (arg the layer, col the position) and true; false
 * elsewhere. */
bool view_lens_click(const UiState *u, int x, int y, AppInput *in);

#endif
