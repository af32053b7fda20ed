/* save.h - the interface's exports to a new file in the current folder
 * (save.c).
 */
#ifndef ATTNVIZ_SAVE_H
#define ATTNVIZ_SAVE_H

#include <stdbool.h>

#include "uistate.h"

/* Write the focused head (or all heads) as `--export text` would, to a new
 * attnviz-head<N>-<time>.txt (attnviz-heads-...); never overwrites. The
 * outcome goes to u->a.app.msg. */
void save_export(UiState *u, bool all_heads);

/* Write the view as `--export svg` draws it: the focused head, or the two
 * heatmaps side by side, to a new attnviz-view-<time>.svg; never
 * overwrites. The outcome goes to u->a.app.msg. */
void save_svg(UiState *u);

#endif
