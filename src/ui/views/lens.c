/* lens.c - the logit lens view (lens.h).
 *
 * Draws app/lensview.h's lens (App.lens, asked of the kind by app_poll
 * whenever the text's result is new) as rows of layers (0: the embeddings,
 * L: the output) under a row of positions and the input token at each;
 * each cell the likeliest next token's text and its probability, the whole
 * cell on the heat ramp by that probability. The selected position (the
 * state's selected token) has its column marked, the selected cell the
 * cursor; on the right the selected cell's ten likeliest tokens and where
 * the text's real next token ranks there. Positions scroll so that the
 * selected one is the last shown (a causal model's prediction reads what
 * comes before it), layers so that the selected one is shown.
 */
#include "lens.h"

#include <stdio.h>
#include <string.h>

#include "app/lensview.h"
#include "core/av.h"
#include "render/heatmap.h"

#define LABEL_W 4 /* "12  " */
#define CELL_W 11 /* the token's text (6), its percentage (4), a gap */
#define NAME_W 6
#define PANEL_W 28  /* the selected cell's top ten */
#define HEAD_ROWS 4 /* title, hint, positions, input tokens */

/* The display text of id ("" for -1: past a vocabulary smaller than 10). */
static void name_of(const UiState *u, int id, char *out, size_t len)
{
    out[0] = 0;
    if (id >= 0)
        kind_token_text(u->a.ses.kind, id, out, len);
}

/* A probability as a percentage: one decimal, or two digits where that
 * would read 0.0% (a real next token can rank in the thousands). */
static void pct_text(float p, char *out, size_t len)
{
    double v = (double)p * 100;
    snprintf(out, len, v >= 0.05 || v == 0 ? "%.1f%%" : "%.2g%%", v);
}

/* The first of count items shown so that sel is among the shown ones
 * (the last of them when it is further on). */
static int first_shown(int sel, int shown, int count)
{
    int first = sel < shown ? 0 : sel - shown + 1;
    return first > count - shown && count > shown ? count - shown : first;
}

/* One cell: the top token of layer l at position i, on the ramp. */
static void cell(const UiState *u, Grid *g, int x, int y, const Lens *ls, int l, int i)
{
    const size_t at = lens_at(ls, l, i);
    const float p = ls->probs[at];
    const bool mono = u->depth == DEPTH_MONO;
    const int style = mono ? STYLE_TEXT : STYLE_HEAT, level = heatmap_level(p);
    char name[96];
    name_of(u, ls->ids[at], name, sizeof name);
    for (int k = 0; k < CELL_W - 1; k++)
        grid_put(g, x + k, y, ' ', style, level);
    /* "100%" takes the column that parts the name from a narrower figure */
    grid_puts(g, x, y, name, p >= 0.995f ? NAME_W - 1 : NAME_W, style);
    grid_printf(g, x + NAME_W, y, 4, style, "%3.0f%%", (double)p * 100);
    for (int k = 0; k < CELL_W - 1 && !mono; k++) { /* grid_puts set level 0: the ramp again */
        Cell *c = grid_at(g, x + k, y);
        if (c)
            c->level = (uint8_t)level;
    }
}

/* The header rows: positions, and the token at each (whose next token the
 * column predicts); the selected one marked. */
static void header(const UiState *u, Grid *g, const LensLayout *ll, const Lens *ls, int sel_i)
{
    char name[96];
    grid_puts(g, ll->x0 - LABEL_W, ll->y0 - 2, "pos", LABEL_W - 1, STYLE_DIM);
    grid_puts(g, ll->x0 - LABEL_W, ll->y0 - 1, "in", LABEL_W - 1, STYLE_DIM);
    for (int c = 0; c < ll->cols; c++) {
        const int i = ll->first_i + c, x = ll->x0 + c * CELL_W;
        const int style = i == sel_i ? STYLE_LABEL_SEL : STYLE_DIM;
        grid_printf(g, x, ll->y0 - 2, CELL_W - 1, style, "%s%d", i == sel_i ? "\u25bc" : "", i + 1);
        name_of(u, ls->tok[i], name, sizeof name);
        grid_puts(g, x, ll->y0 - 1, name, CELL_W - 1, i == sel_i ? STYLE_LABEL_SEL : STYLE_LABEL);
    }
}

/* The selected cell's ten likeliest tokens (fewer when h rows do not hold
 * them all), and the real next token. */
static void panel(const UiState *u, Grid *g, Rect r, int l, int i)
{
    const int x = r.x, y = r.y, w = r.w, shown = r.h - 5 < LENS_K ? r.h - 5 : LENS_K;
    const LensView *lv = &u->a.lens;
    const Lens *ls = &lv->ls;
    char name[96], line[160];
    name_of(u, ls->tok[i], name, sizeof name);
    grid_printf(g, x, y, w, STYLE_TITLE, "layer %d after %s", l, name);
    grid_printf(g, x, y + 1, w, STYLE_DIM, "position %d: its top %d", i + 1, shown);
    const size_t at = lens_at(ls, l, i);
    for (int q = 0; q < shown && ls->ids[at + q] >= 0; q++) {
        name_of(u, ls->ids[at + q], name, sizeof name);
        grid_printf(g, x, y + 2 + q, 3, STYLE_DIM, "%2d", q + 1);
        grid_puts(g, x + 3, y + 2 + q, name, w - 12, q == 0 ? STYLE_ACCENT : STYLE_TEXT);
        pct_text(ls->probs[at + q], line, sizeof line);
        grid_printf(g, x + w - 8, y + 2 + q, 8, STYLE_TEXT, "%8s", line);
    }
    int id, rank;
    float prob;
    const int yn = y + 3 + (shown > 0 ? shown : 0);
    if (!lensview_next(lv, l, i, &id, &rank, &prob)) {
        grid_puts(g, x, yn, "the last position: the text", w, STYLE_DIM);
        grid_puts(g, x, yn + 1, "has no next token yet", w, STYLE_DIM);
        return;
    }
    name_of(u, id, name, sizeof name);
    snprintf(line, sizeof line, "next in the text: %s", name);
    grid_puts(g, x, yn, line, w, STYLE_TEXT);
    pct_text(prob, name, sizeof name);
    grid_printf(g, x, yn + 1, w, rank == 1 ? STYLE_ACCENT : STYLE_TEXT, "rank %d, %s", rank, name);
}

/* text from row y of r on, wrapped at spaces to r.w columns (UTF-8
 * characters counted as one), over the rows left. */
static void wrapped(Grid *g, Rect r, int y, const char *text, int style)
{
    for (const char *p = text; *p && y < r.y + r.h; y++) {
        const char *end = p, *cut = NULL;
        for (int used = 0; *end && used < r.w; end++) {
            if (*end == ' ')
                cut = end;
            used += (*end & 0xC0) != 0x80;
        }
        if (*end && *end != ' ' && cut) /* a word runs past the line: break before it */
            end = cut;
        grid_printf(g, r.x, y, r.w, style, "%.*s", (int)(end - p), p);
        p = end + strspn(end, " ");
    }
}

/* What stands in for the lens when there is none to draw. */
static bool no_lens(const UiState *u, Grid *g, Rect r)
{
    const LensView *lv = &u->a.lens;
    if (lv->ls.n > 0 && lv->ls.rows > 0 && (lv->err == AV_OK || lv->err == KIND_BUSY))
        return false;
    if (lv->err == AV_ERR_NEEDS_MODEL && lv->why[0]) { /* the kind shown has none: why */
        wrapped(g, r, r.y + 2, lv->why, STYLE_DIM);
        return true;
    }
    const char *why = lv->err == KIND_BUSY || lv->err == AV_OK ? "computing the logit lens\u2026"
                      : lv->err == AV_ERR_EMPTY ? "the logit lens needs a text with tokens"
                                                : av_strerror(lv->err);
    grid_printf(g, r.x, r.y + 2, r.w, STYLE_DIM, "%s", why);
    return true;
}

void view_lens_draw(UiState *u, Grid *g, Rect r)
{
    const LensView *lv = &u->a.lens;
    const Lens *ls = &lv->ls;
    LensLayout *ll = &u->lay.lens;
    memset(ll, 0, sizeof *ll);
    char title[128];
    lensview_title(lv, title, sizeof title);
    grid_puts(g, r.x, r.y, title, r.w, STYLE_TITLE);
    const bool stale = !lensview_fresh(lv, u->a.ses.kind, u->a.ses.gen);
    grid_puts(g, r.x, r.y + 1,
              stale ? "computing the lens of the new text\u2026"
                    : "Up/Down: layer  Left/Right: position  e: edit  Esc: back",
              r.w, stale ? STYLE_ACCENT : STYLE_DIM);
    int l, i;
    if (no_lens(u, g, r) || !lensview_cell(lv, &u->a.app, &l, &i))
        return;
    const int pw = r.w >= 2 * PANEL_W + LABEL_W ? PANEL_W : r.w - LABEL_W - CELL_W - 1;
    ll->x0 = r.x + LABEL_W, ll->y0 = r.y + HEAD_ROWS;
    ll->cols = (r.w - pw - 1 - LABEL_W) / CELL_W;
    ll->cols = ll->cols < 1 ? 1 : ll->cols > ls->n ? ls->n : ll->cols;
    ll->rows = r.h - HEAD_ROWS < ls->rows ? r.h - HEAD_ROWS : ls->rows;
    if (ll->rows < 1)
        return;
    ll->first_i = first_shown(i, ll->cols, ls->n);
    ll->first_l = first_shown(l, ll->rows, ls->rows);
    ll->have = true;
    header(u, g, ll, ls, i);
    for (int row = 0; row < ll->rows; row++) {
        const int layer = ll->first_l + row, y = ll->y0 + row;
        grid_printf(g, r.x, y, LABEL_W - 1, layer == l ? STYLE_LABEL_SEL : STYLE_DIM, "%d", layer);
        for (int c = 0; c < ll->cols; c++) {
            const int x = ll->x0 + c * CELL_W;
            cell(u, g, x, y, ls, layer, ll->first_i + c);
            if (ll->first_i + c == i)
                grid_flag_rect(g, x, y, CELL_W - 1, 1, layer == l ? CELL_CURSOR : CELL_SELECTED);
        }
    }
    panel(u, g, (Rect){r.x + r.w - pw, r.y + 2, pw, r.h - 2}, l, i);
}

bool view_lens_click(const UiState *u, int x, int y, AppInput *in)
{
    const LensLayout *ll = &u->lay.lens;
    if (!ll->have || u->a.app.view != VIEW_ID_LENS || x < ll->x0 || y < ll->y0)
        return false;
    int c = (x - ll->x0) / CELL_W, row = y - ll->y0;
    if (c >= ll->cols || row >= ll->rows || (x - ll->x0) % CELL_W == CELL_W - 1)
        return false;
    in->action = ACT_CELL_SET, in->arg = ll->first_l + row, in->col = ll->first_i + c;
    return true;
}
