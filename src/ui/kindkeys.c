/* kindkeys.c - the interface on any model kind: g's marks (kindkeys.h).
 */
#include "kindkeys.h"

#include <string.h>

void kindkeys_overlay(UiState *u, Grid *g)
{
    const AppState *s = &u->a.app;
    const HeatmapLayout *l = &u->lay.focus;
    if (!kind_generates(u->a.ses.kind) || !u->a.ses.cached_rows ||
        s->text.len != u->a.ses.cached_len || u->a.ses.run_err || s->n_q <= u->a.ses.cached_rows ||
        !u->lay.have_focus || s->view != VIEW_ID_ATTN || l->cells_x < 1)
        return;
    for (int k = 0; k < l->rows; k++) {
        int r = l->first_row + k;
        if (r < u->a.ses.cached_rows)
            grid_put(g, l->cells_x - 1, l->cells_y + k, 0x00b7, STYLE_DIM, 0);
        else if (r < s->n_q)
            grid_put(g, l->cells_x - 1, l->cells_y + k, '+', STYLE_ACCENT, 0);
    }
}
