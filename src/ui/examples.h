/* examples.h - what the interface's examples need beyond the app's state
 * (examples.c): the weights an example brings (assets/NAME, e.g. seed 001's
 * worked example), found beside the program or in the current folder.
 */
#ifndef ATTNVIZ_EXAMPLES_H
#define ATTNVIZ_EXAMPLES_H

#include "uistate.h"

/* Point u->w at the weights the configuration asks for: the shown example's
 * own (loaded once per name), the --weights given (fixed), or toy weights
 * rebuilt from u->app.cfg. An example's weights that cannot be read leave it
 * (the configuration before it comes back) with a message saying where they
 * were looked for. */
void examples_weights(UiState *u);

/* Free what examples_weights loaded. */
void examples_free(UiState *u);

#endif
