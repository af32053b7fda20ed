/* views.h - the views attnviz draws, in one table: each one's name (what a
 * lesson's `view:` line and the handout call it), what it shows, and which
 * results it needs beyond the attention weights.
 *
 * The layers above read it: the lesson parser resolves `view:` names here
 * (io/lesson.c), the handout writes each view (render/handout.c), the app
 * layer puts a view on the interface's state and says what the state shows
 * (app_view_show, app_view_base in app/state.h), and the interface draws it
 * through its table of draw functions (src/ui/view_table.c). A new view: a row here,
 * its state in app, its draw function in ui.
 */
#ifndef ATTNVIZ_VIEWS_H
#define ATTNVIZ_VIEWS_H

#include <stddef.h>

typedef enum {
    VIEW_ID_ATTN,      /* the heatmaps (the default) */
    VIEW_ID_PIPELINE,  /* every stage of the focused head */
    VIEW_ID_TRACE,     /* the calculation trace of the selected token (a panel) */
    VIEW_ID_PE,        /* positional encodings */
    VIEW_ID_CMP_MASK,  /* the focused head with the mask off and on */
    VIEW_ID_CMP_HEADS, /* the focused head and the next */
    VIEW_ID_HEADS,     /* every head (the handout writes each one) */
    VIEW_ID_COUNT
} ViewId;

/* What a view needs beyond every head's attention weights. */
#define VIEW_NEEDS_OUTPUTS 1u /* the heads' outputs, concatenated and through W_O */
#define VIEW_NEEDS_FLIPPED 2u /* a second run with the mask the other way */

typedef struct {
    ViewId id;
    const char *name; /* lower case, as a lesson writes it: "compare-mask" */
    const char *what; /* one line, for messages and the handout */
    unsigned needs;   /* VIEW_NEEDS_* */
} ViewInfo;

/* View v's row; an id out of range gives the attention view's. */
const ViewInfo *view_info(ViewId v);

/* The view called name (exactly, lower case), or -1. */
int view_find(const char *name);

/* Every name, "attention, pipeline, ... or heads", into buf (cut to cap). */
void view_name_list(char *buf, size_t cap);

#endif
