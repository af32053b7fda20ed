/* views.h - the views attnviz draws, in one table: each one's name (what a
 * lesson's `view:` line and the handout call it), what it shows, and which
 * results it needs beyond the attention weights. Its rows are views.def's,
 * which the layers above read too (their state, keys, help, hints and draw
 * functions).
 *
 * The layers above read it: the lesson parser resolves `view:` names here
 * (io/lesson.c), the handout writes each view (render/handout.c), the app
 * layer puts a view on the interface's state and says what the state shows
 * (app_view_show, app_view_base in app/state.h), and the interface draws it
 * through its table of draw functions (src/ui/views/view_table.c).
 *
 * Where a view lives (ViewHome) says who may show it:
 * - VIEW_HOME_STATE: the app state shows it (its base view, panel,
 *   comparison), so a lesson page and its handout can too.
 * - VIEW_HOME_UI: drawn in the interface's frame over the state's view from
 *   state the interface keeps (UiState, src/ui/uistate.h), opened and closed
 *   by its key. A lesson may not name it (the parser refuses it with a line
 *   saying so): the handout, below app, cannot compute it.
 * - VIEW_HOME_LOOP: runs its own event loop until the user leaves it, so no
 *   frame of the interface draws it: ui's table has no draw function for
 *   it but the function that opens it (view_table_open). No lesson either.
 */
#ifndef ATTNVIZ_VIEWS_H
#define ATTNVIZ_VIEWS_H

#include <stddef.h>

/* The views, in the order of views.def: VIEW_ID_ATTN (the heatmaps, the
 * default), VIEW_ID_PIPELINE, VIEW_ID_TRACE, VIEW_ID_PE, VIEW_ID_CMP_MASK,
 * VIEW_ID_CMP_HEADS, VIEW_ID_HEADS, VIEW_ID_LENS, VIEW_ID_HEAD_SCORES,
 * VIEW_ID_MODEL, VIEW_ID_TRAIN. */
typedef enum {
#define VIEW_ROW(id, ...) VIEW_ID_##id,
#include "io/views.def"
    VIEW_ID_COUNT
} ViewId;

/* What a view needs beyond every head's attention weights. */
#define VIEW_NEEDS_OUTPUTS 1u  /* the heads' outputs, concatenated and through W_O */
#define VIEW_NEEDS_FLIPPED 2u  /* a second run with the mask the other way */
#define VIEW_NEEDS_HEADSCAN 4u /* its own runs on random repeated sequences (app/headscan.h) */
#define VIEW_NEEDS_TRAINING 8u /* a model being trained (app/trainview.h), not the text's */

typedef enum { VIEW_HOME_STATE, VIEW_HOME_UI, VIEW_HOME_LOOP } ViewHome; /* see above */

typedef struct {
    ViewId id;
    const char *name; /* lower case, as a lesson writes it: "compare-mask" */
    const char *what; /* one line, for messages and the handout */
    unsigned needs;   /* VIEW_NEEDS_* */
    ViewHome home;    /* who shows it; only VIEW_HOME_STATE on a lesson page */
} ViewInfo;

/* View v's row; an id out of range gives the attention view's. */
const ViewInfo *view_info(ViewId v);

/* The view called name (exactly, lower case), or -1; any home. */
int view_find(const char *name);

/* Every name a lesson may write (the views of VIEW_HOME_STATE), "attention,
 * pipeline, ... or heads", into buf (cut to cap). */
void view_name_list(char *buf, size_t cap);

#endif
