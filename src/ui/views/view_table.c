/* view_table.c - each view of io/views.h's table and how the interface shows
 * it (view_table.h): a draw function for the views a frame draws (the
 * state's, VIEW_HOME_STATE, and the interface's own, VIEW_HOME_UI), the
 * function that opens it for a view with its own loop (VIEW_HOME_LOOP). A
 * new view: its row in io/views.c; for VIEW_HOME_STATE its state in app
 * (APP_VIEWS in app/state.c: an AppView, panel or comparison, which
 * app_view_base maps back to the row); its draw or open function here.
 */
#include "view_table.h"

#include <stddef.h>

#include "app/state.h"
#include "io/views.h"
#include "view_attn.h"
#include "view_cmp.h"
#include "lens.h"
#include "view_heads.h"
#include "view_pe.h"
#include "view_pipeline.h"
#include "view_train.h"

typedef void (*ViewDraw)(UiState *u, Grid *g, Rect r);
typedef bool (*ViewOpen)(UiState *u);

/* The live training view opens on the induction task (as W always has). */
static bool train_open(UiState *u)
{
    return view_train_open(u, "induction");
}

static const struct {
    ViewDraw draw; /* a frame draws it (NULL: its own loop draws it) */
    ViewOpen open; /* VIEW_HOME_LOOP: runs it until left */
} VIEW_TABLE[VIEW_ID_COUNT] = {
    [VIEW_ID_ATTN] = {view_attn_draw, NULL},
    [VIEW_ID_PIPELINE] = {view_pipeline_draw, NULL},
    [VIEW_ID_TRACE] = {view_attn_draw, NULL}, /* a panel (view_panel.c) over the view under it */
    [VIEW_ID_PE] = {view_pe_draw, NULL},
    [VIEW_ID_CMP_MASK] = {view_cmp_draw, NULL},
    [VIEW_ID_CMP_HEADS] = {view_cmp_draw, NULL},
    [VIEW_ID_HEADS] = {view_attn_draw, NULL}, /* its small multiples show every head */
    [VIEW_ID_LENS] = {view_lens_draw, NULL},
    [VIEW_ID_HEAD_SCORES] = {view_heads_table_draw, NULL},
    [VIEW_ID_MODEL] = {view_heads_model_draw, NULL},
    [VIEW_ID_TRAIN] = {NULL, train_open},
};

void view_table_draw(UiState *u, Grid *g, Rect r)
{
    ViewId v = view_heads_shown(u); /* the interface's own over the state's */
    if (v < 0 || v >= VIEW_ID_COUNT)
        v = app_view_base(&u->a.app);
    ViewDraw draw = v >= 0 && v < VIEW_ID_COUNT ? VIEW_TABLE[v].draw : NULL;
    (draw ? draw : view_attn_draw)(u, g, r);
}

bool view_table_open(UiState *u, ViewId v)
{
    ViewOpen open = v >= 0 && v < VIEW_ID_COUNT ? VIEW_TABLE[v].open : NULL;
    return open ? open(u) : false;
}
