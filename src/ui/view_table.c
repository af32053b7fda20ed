/* view_table.c - each view of io/views.h's table and the function that draws
 * it (view_table.h). A new view: its row in io/views.c; its state in app
 * (APP_VIEWS in app/state.c: an AppView, panel or comparison, which
 * app_view_base maps back to the row); its draw function here.
 */
#include "view_table.h"

#include "app/state.h"
#include "io/views.h"
#include "view_attn.h"
#include "view_cmp.h"
#include "view_pe.h"
#include "view_pipeline.h"

typedef void (*ViewDraw)(UiState *u, Grid *g, Rect r);

static const ViewDraw VIEW_DRAW[VIEW_ID_COUNT] = {
    [VIEW_ID_ATTN] = view_attn_draw,
    [VIEW_ID_PIPELINE] = view_pipeline_draw,
    [VIEW_ID_TRACE] = view_attn_draw, /* a panel (view_panel.c) over the view under it */
    [VIEW_ID_PE] = view_pe_draw,
    [VIEW_ID_CMP_MASK] = view_cmp_draw,
    [VIEW_ID_CMP_HEADS] = view_cmp_draw,
    [VIEW_ID_HEADS] = view_attn_draw, /* its small multiples show every head */
};

void view_table_draw(UiState *u, Grid *g, Rect r)
{
    ViewId v = app_view_base(&u->app);
    VIEW_DRAW[v >= 0 && v < VIEW_ID_COUNT ? v : VIEW_ID_ATTN](u, g, r);
}
