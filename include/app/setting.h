/* setting.h - the actions that change the model's settings (setting.c):
 * action.c's table calls the key's with its argument (a direction, or which
 * switch) and returns their APP_* flags; the session applies an example's
 * settings and the token it asks for.
 */
#ifndef ATTNVIZ_SETTING_H
#define ATTNVIZ_SETTING_H

#include "app/state.h"
#include "core/tokenize.h"
#include "io/sentences.h"

/* which: 0 the causal mask, 1 positional encoding, 2 scaling. */
unsigned setting_toggle(AppState *s, int which);
/* The designed heads <-> random ones (arg unused). */
unsigned setting_preset(AppState *s, int arg);
/* dir < 0 fewer or smaller, dir > 0 more or larger: */
unsigned setting_heads(AppState *s, int dir);
unsigned setting_dmodel(AppState *s, int dir);
unsigned setting_seed(AppState *s, int dir);
unsigned setting_layers(AppState *s, int dir);
/* dir < 0: x0.5 (sharper), dir > 0: x2 (flatter). */
unsigned setting_temp(AppState *s, int dir);
/* The next (step 1) or previous (-1) example sentence and its settings. */
unsigned setting_sentence(AppState *s, int step);

/* After app_set_tokens: select the query token an example asked for (its
 * text, the first occurrence), if any; then forget the wish. */
void setting_take_tokens(AppState *s, const TokenList *t);

/* Apply what an example needs (n / N): its preset, size, PE and mask, the
 * head to focus and the token to select (after the run, setting_take_tokens);
 * its own weights (st->weights) set s->example_weights and a configuration
 * of PRESET_LOADED, and are left again (the configuration before them
 * restored) by an example without them. Under --weights only PE, mask, head
 * and token apply. Returns APP_RUN, with APP_WEIGHTS when the weights must
 * change. */
unsigned setting_example(AppState *s, const SentenceSetting *st);

#endif
