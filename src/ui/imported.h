/* imported.h - the interface on imported attention (--attention FILE.npy)
 * and the views that combine weights, for imported attention and attnviz's
 * own models alike: heads combined (mean, max, sum), attention rollout across
 * layers, value-weighted norms (own models: V and W_O are known) and several
 * query tokens summed. Private to src/ui/.
 *
 * A combining view is a ModelResult of its own (model_result_import over an
 * AttnSource of combine.h), put where the views read u->a.ses.res, so every view
 * that draws weights draws it unchanged; heads combined and rollout have one
 * "head", so app.cfg.H is 1 while they are shown and the model's own H is
 * kept in the session's CombView (app/combview.h), which also decides, from
 * the keys (session_input), which view is on.
 */
#ifndef ATTNVIZ_UI_IMPORTED_H
#define ATTNVIZ_UI_IMPORTED_H

#include <stdbool.h>

#include "uistate.h"

/* Set up u->iv (always: the combining views serve every kind) for u->kind,
 * and the causal flag the kind found (a large file's layer 0 until its check
 * ends); the session's runs of res then ask the combining view first (its
 * derive). Call after app_init, before the first run. */
void imported_start(UiState *u);

/* The query rows selected together (M) summed, for head h of the shown layer
 * of res: n_k weights (the interface's buffer, valid until the next call),
 * or NULL when none is selected; *n_rows gets their number. */
const float *imported_multi_row(UiState *u, const ModelResult *res, int h, int *n_rows);

/* Work done meanwhile by the kind (kind_poll: a large file's check; a bad value
 * ends the program here: terminal restored, one line, exit status 2; the
 * end of the check may change the causal flag: APP_RUN added to *pending),
 * the rollout's layers (APP_RUN when the one shown is ready; a progress line
 * until then). Call when no key came for a while (the loop's timeout).
 * Returns true when the screen should be drawn again. */
bool imported_poll(UiState *u, unsigned *pending);

void imported_free(UiState *u);

#endif
