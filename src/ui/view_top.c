/* view_top.c - the frame around the views: the title line, the sentence
 * editor, the numbered token chips, the message line, the status line, and
 * the notice shown when the terminal is too small.
 */
#include <stdio.h>
#include <string.h>

#include "ui_int.h"

static void draw_title(const UiState *u, Grid *g)
{
    const AppState *s = &u->app;
    for (int x = 0; x < g->w; x++)
        grid_put(g, x, 0, ' ', STYLE_STATUS, 0);
    const char *view = s->view == VIEW_PE ? "Positional encodings" : "Attention";
    const char *other = s->view == VIEW_PE ? "attention" : "positional encodings";
    const char *mode = s->mode == MODE_EDIT ? "EDITING: type, Enter/Esc when done"
                                            : "e: edit the sentence";
    grid_printf(g, 0, 0, g->w, STYLE_STATUS, " attnviz | %s (F2/v: %s) | %s | ?/F1: help",
                view, other, mode);
}

/* The sentence, scrolled to keep the cursor visible; the selected token and,
 * when editing, the cursor are marked. */
static void draw_editor(UiState *u, Grid *g, int y)
{
    const EditBuf *e = &u->app.text;
    int x0 = grid_puts(g, 0, y, "Sentence: ", g->w, u->app.mode == MODE_EDIT ? STYLE_ACCENT
                                                                           : STYLE_DIM);
    int w = g->w - x0 - 1, cur = edit_width(e, e->cur);
    int scroll = cur >= w ? cur - w + 1 : 0;
    u->lay.editor = (Rect){x0, y, w + 1, 1};
    u->lay.editor_scroll = scroll;
    size_t sel_a = 1, sel_b = 0;
    if (u->app.sel_row >= 0 && u->app.sel_row < u->res.tokens.n) {
        sel_a = u->res.tokens.tok[u->app.sel_row].start;
        sel_b = sel_a + u->res.tokens.tok[u->app.sel_row].len;
    }
    int col = 0;
    for (size_t p = edit_offset_at(e, scroll); p < e->len;) {
        unsigned cp;
        int k = utf8_decode(e->s + p, e->len - p, &cp);
        int style = p >= sel_a && p < sel_b ? STYLE_LABEL_SEL : STYLE_TEXT;
        int used = grid_put(g, x0 + col, y, k > 0 ? cp : 0xFFFD, style, 0);
        if (col + used > w || used == 0)
            break;
        col += used;
        p += (size_t)(k > 0 ? k : 1);
    }
    if (u->app.mode == MODE_EDIT)
        grid_flag_rect(g, x0 + cur - scroll, y, 1, 1, CELL_CURSOR);
}

static int chip_width(const UiState *u, int k)
{
    char num[16];
    return snprintf(num, sizeof num, "%d ", k + 1) + grid_text_width(u->labels_q[k]) + 2;
}

/* Numbered chips on `rows` rows, starting late enough to show the selection. */
static void draw_chips(UiState *u, Grid *g, int y, int rows)
{
    const AppState *s = &u->app;
    if (u->run_err) {
        const char *why = u->run_err == AV_ERR_EMPTY ? "no tokens yet: type a sentence (e)"
                                                     : av_strerror(u->run_err);
        grid_printf(g, 0, y, g->w, STYLE_ACCENT, "Tokens: %s", why);
        return;
    }
    int x0 = grid_puts(g, 0, y, "Tokens:   ", g->w, STYLE_DIM), avail = (g->w - x0 - 2) * rows;
    int first = 0, span = 0;
    for (int k = 0; k <= s->sel_row && k < s->n_q; k++) {
        span += chip_width(u, k);
        while (span > avail && first < k)
            span -= chip_width(u, first++);
    }
    u->lay.n_chips = s->n_q;
    for (int k = 0; k < s->n_q; k++)
        u->lay.chips[k] = (Rect){0, 0, 0, 0};
    int x = x0, row = 0;
    if (first > 0)
        x += grid_puts(g, x, y, "\u2026 ", 2, STYLE_DIM);
    for (int k = first; k < s->n_q; k++) {
        int cw = chip_width(u, k);
        if (x + cw > g->w - 1) {
            if (++row >= rows) {
                grid_puts(g, g->w - 1, y + rows - 1, "\u2026", 1, STYLE_DIM);
                break;
            }
            x = x0;
        }
        int style = k == s->sel_row ? STYLE_LABEL_SEL : STYLE_LABEL;
        int used = grid_printf(g, x, y + row, cw, STYLE_DIM, "%d ", k + 1);
        grid_puts(g, x + used, y + row, u->labels_q[k], cw - used - 2, style);
        u->lay.chips[k] = (Rect){x, y + row, cw - 1, 1};
        x += cw;
    }
}

int ui_top_draw(UiState *u, Grid *g)
{
    int chip_rows = g->h >= 30 ? 2 : 1;
    draw_title(u, g);
    draw_editor(u, g, 1);
    draw_chips(u, g, 2, chip_rows);
    return 2 + chip_rows + (g->h >= 30 ? 1 : 0);
}

static const char *hint(const UiState *u)
{
    if (u->app.mode == MODE_EDIT)
        return "typing edits the sentence | Enter/Esc: done | Up/Down: token | Tab: head | "
               "^K mask | ^P PE | ^T scaling | ^O export | F1 help";
    if (u->app.view == VIEW_PE)
        return "Up/Down: position | [ ]: plotted dims | p: PE on/off | d/D: d_model | "
               "v: attention view | e: edit | ? help | q quit";
    return "Tab: head | Up/Down: token | Left/Right: cell | m: mask | p: PE | s: scaling | "
           "h/H heads | d/D d_model | r/R seed | n: next example | x/X export | e: edit | "
           "? help | q quit";
}

void ui_bottom_draw(UiState *u, Grid *g)
{
    const AppState *s = &u->app;
    const ModelConfig *c = &s->cfg;
    int y = g->h - 1;
    bool wide = g->w >= 100;
    if (s->msg[0])
        grid_puts(g, 0, y - 1, s->msg, g->w, STYLE_ACCENT);
    else
        grid_puts(g, 0, y - 1, hint(u), g->w, STYLE_DIM);
    for (int x = 0; x < g->w; x++)
        grid_put(g, x, y, ' ', STYLE_STATUS, 0);
    const char *sep = wide ? " | " : "  ";
    char layer[32] = "";
    if (c->layers > 1)
        snprintf(layer, sizeof layer, "%slayer %d/%d", sep, s->layer + 1, c->layers);
    int used = grid_printf(
        g, 0, y, g->w, STYLE_STATUS,
        " tokens %d%sd_model %d%s%sheads %d%sd_k %d%sseed %llu%smask %s%sPE %s%sscaling %s%s",
        s->n_q, sep, c->d_model, s->fixed_weights ? " (fixed)" : "", sep, c->H, sep,
        c->d_model / c->H, sep, (unsigned long long)c->seed, sep, c->causal ? "on" : "off",
        sep, c->pe ? "on" : "off", sep, c->scale ? "on" : "off", layer);
    if (wide && used + 12 < g->w)
        grid_printf(g, g->w - 10, y, 10, STYLE_STATUS, "%6.2f ms", u->frame_ms);
}

void ui_too_small_draw(Grid *g)
{
    char need[32], now[32];
    snprintf(need, sizeof need, "need %dx%d", UI_MIN_W, UI_MIN_H);
    snprintf(now, sizeof now, "now %dx%d", g->w, g->h);
    const char *lines[] = {"terminal", "too small", need, now};
    int n = 4, y0 = (g->h - n) / 2;
    if (g->w >= 32) {
        grid_printf(g, 0, y0 < 0 ? 0 : y0, g->w, STYLE_ACCENT, "terminal too small (%s)", need);
        return;
    }
    for (int k = 0; k < n; k++)
        grid_puts(g, 0, (y0 < 0 ? 0 : y0) + k, lines[k], g->w, STYLE_ACCENT);
}
