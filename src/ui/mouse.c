/* mouse.c - a mouse event mapped to an Action through the layout of the last
 * frame (the same layouts the renderers returned): chips, the sentence, the
 * small heads, the focused heatmap's cells and labels, the PE matrices.
 */
#include "mouse.h"

#include <curses.h>

#include "term.h"
#include "views/view_table.h"
#include "views/view_heads.h"

static bool in_rect(Rect r, int x, int y)
{
    return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}

static bool click_editor(UiState *u, int x, int y, AppInput *in)
{
    bool cross = u->a.app.cross_on && in_rect(u->lay.cross_line, x, y);
    Rect r = cross ? u->lay.cross_line : u->lay.editor;
    if (!in_rect(r, x, y))
        return false;
    EditBuf *e = cross ? &u->a.app.cross : &u->a.app.text;
    e->cur = edit_offset_at(e, x - r.x + (cross ? u->lay.cross_scroll : u->lay.editor_scroll));
    in->action = cross ? ACT_EDIT_CROSS : ACT_EDIT;
    in->arg = cross ? 1 : 0;
    return true;
}

/* A cell of the pooled view: its first token (row and column). */
static bool click_long(UiState *u, int x, int y, AppInput *in)
{
    const UiLayout *l = &u->lay;
    if (!l->have_long || y < l->long_y || y >= l->long_y + l->long_rows || x < l->long_x - 14)
        return false;
    int t0, t1, cy = l->long_half ? 2 * (y - l->long_y) : y - l->long_y;
    axis_cell_range(&l->long_r, cy, &t0, &t1);
    if (x < l->long_x) {
        in->action = ACT_ROW_SET, in->arg = t0;
        return true;
    }
    int cx = (x - l->long_x) / (l->long_cw > 0 ? l->long_cw : 1), c0;
    if (cx >= l->long_c.cells)
        return false;
    axis_cell_range(&l->long_c, cx, &c0, &t1);
    in->action = ACT_CELL_SET, in->arg = t0, in->col = c0;
    return true;
}

static bool click_chip(UiState *u, int x, int y, AppInput *in)
{
    for (int k = 0; k < u->lay.n_chips; k++)
        if (u->lay.chips[k].w > 0 && in_rect(u->lay.chips[k], x, y)) {
            in->action = ACT_ROW_SET, in->arg = k;
            return true;
        }
    return false;
}

static bool click_tile(UiState *u, int x, int y, AppInput *in)
{
    for (int k = 0; k < u->lay.n_tiles; k++)
        if (in_rect(u->lay.tile_rect[k], x, y)) {
            in->action = ACT_HEAD_SET, in->arg = u->lay.tile_head[k];
            return true;
        }
    return false;
}

static bool click_focus(UiState *u, int x, int y, AppInput *in)
{
    int row, col;
    if (!u->lay.have_focus || !heatmap_hit(&u->lay.focus, x, y, &row, &col))
        return false;
    if (row >= 0 && col >= 0)
        in->action = ACT_CELL_SET, in->arg = row, in->col = col;
    else if (row >= 0)
        in->action = ACT_ROW_SET, in->arg = row;
    else
        in->action = ACT_CELL_SET, in->arg = u->a.app.sel_row > 0 ? u->a.app.sel_row : 0,
        in->col = col;
    return true;
}

static bool click_pe(UiState *u, int x, int y, AppInput *in)
{
    int row = -1;
    if (u->lay.have_pe)
        row = plot_hit_row(&u->lay.pe, x, y);
    if (row < 0 && u->lay.have_sim)
        row = plot_hit_row(&u->lay.sim, x, y);
    if (row < 0 || row >= u->a.app.n_q)
        return false;
    in->action = ACT_ROW_SET, in->arg = row;
    return true;
}

static bool wheel(const MEVENT *ev, AppInput *in)
{
#if NCURSES_MOUSE_VERSION > 1
    if (ev->bstate & BUTTON4_PRESSED) {
        in->action = ACT_ROW_PREV;
        return true;
    }
    if (ev->bstate & BUTTON5_PRESSED) {
        in->action = ACT_ROW_NEXT;
        return true;
    }
#else
    (void)ev, (void)in;
#endif
    return false;
}

bool mouse_read(UiState *u, AppInput *in)
{
    MEVENT ev;
    int got = getmouse(&ev);
    term_mouse_forget(); /* a press never released must not swallow the next click */
    if (got != OK)
        return false;
    if (wheel(&ev, in))
        return true;
    if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)))
        return false;
    if (u->a.app.help) {
        in->action = ACT_HELP; /* a click closes the help */
        return true;
    }
    if (view_heads_click(u, ev.x, ev.y, in))
        return true;
    if (view_table_clicks(u)) /* a view of its own clicks (views.def's CLICK) */
        return click_editor(u, ev.x, ev.y, in) || click_chip(u, ev.x, ev.y, in) ||
               view_table_click(u, ev.x, ev.y, in);
    return click_editor(u, ev.x, ev.y, in) || click_chip(u, ev.x, ev.y, in) ||
           click_tile(u, ev.x, ev.y, in) || click_long(u, ev.x, ev.y, in) ||
           click_focus(u, ev.x, ev.y, in) || click_pe(u, ev.x, ev.y, in);
}
