/* action.h - what each Action does to the interface's state (action.c).
 * Pure functions of the state and their arguments.
 */
#ifndef ATTNVIZ_ACTION_H
#define ATTNVIZ_ACTION_H

#include "app/state.h"

/* Apply one action; arg is used by ACT_HEAD_SET and ACT_ROW_SET (0-based).
 * ACT_CELL_SET and unknown actions do nothing. Returns APP_* flags. */
unsigned action_apply(AppState *s, Action a, int arg);

/* Select query token row and key token col (0-based, clamped to the tokens
 * of the last run): the cell whose weight and score are inspected. Returns
 * APP_* flags (0: nothing to recompute). */
unsigned action_select_cell(AppState *s, int row, int col);

#endif
