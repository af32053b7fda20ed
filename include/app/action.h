/* action.h - what each Action does to the interface's state (action.c).
 * Pure functions of the state and their arguments.
 */
#ifndef ATTNVIZ_ACTION_H
#define ATTNVIZ_ACTION_H

#include "app/state.h"
#include "core/tokenize.h"
#include "io/sentences.h"

/* Apply one action; arg is used by ACT_HEAD_SET and ACT_ROW_SET (0-based).
 * ACT_CELL_SET and unknown actions do nothing. Returns APP_* flags. */
unsigned action_apply(AppState *s, Action a, int arg);

/* Select query token row and key token col (0-based, clamped to the tokens
 * of the last run): the cell whose weight and score are inspected. Returns
 * APP_* flags (0: nothing to recompute). */
unsigned action_select_cell(AppState *s, int row, int col);

/* After app_set_tokens: select the query token an example asked for (its
 * text, the first occurrence), if any; then forget the wish. */
void action_take_tokens(AppState *s, const TokenList *t);

/* Apply what an example needs (n / N): its preset, size, PE and mask, the
 * head to focus and the token to select (after the run, action_take_tokens);
 * its own weights (st->weights) set s->example_weights and a configuration
 * of PRESET_LOADED, and are left again (the configuration before them
 * restored) by an example without them. Under --weights only PE, mask, head
 * and token apply. Returns APP_RUN, with APP_WEIGHTS when the weights must
 * change. */
unsigned action_example_setting(AppState *s, const SentenceSetting *st);

#endif
