/* view_heads.c - the head scores table and the model view (view_heads.h).
 *
 * The table draws app/headtable.h's scores (run by app_input once per model
 * and settings) as one cell per head: two lines of up to four scores,
 * "p35 i02" / "d00 f05" (percentages of previous-token, induction,
 * duplicate-token, first-token, then next-token and the no-op scores on
 * [CLS] and [SEP]; a page of them at a time, Tab turning the pages, when a
 * column holds fewer than all seven; "c -" where the model has no such
 * token; the best head of a kind, when it reaches the kind's threshold
 * (core/headscore.h), has its letter in capitals), or, where the screen is
 * too narrow for two a line, one kind at a time (Tab) as a coloured
 * percentage with '*' on the best. The model view pools each head of the
 * current result to the cells its thumbnail has (model_pool_head, the
 * largest weight of each block).
 */
#include "view_heads.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/headscan.h"
#include "render/heatmap.h"
#include "../term.h"
#include "../widgets.h"

#define HALF_BLOCK 0x2580u
#define LABEL_W 4 /* "L12 " */

/* Where the heads were drawn in the last frame, for clicks, and the
 * table's scroll: the interface's own (the selection is app's HeadTable). */
struct HeadsView {
    int first_l;             /* the first layer shown (scrolled) */
    int x0, y0, cw, ch, gap; /* where the heads were drawn */
    int rows_shown, L, H;
};

static struct HeadsView *hv_of(UiState *u)
{
    if (!u->hv)
        u->hv = term_xrealloc(NULL, sizeof *u->hv), memset(u->hv, 0, sizeof *u->hv);
    return u->hv;
}

void view_heads_free(UiState *u)
{
    free(u->hv);
    u->hv = NULL;
}

bool view_heads_click(UiState *u, int x, int y, AppInput *in)
{
    struct HeadsView *hv = u->hv;
    if (!hv || u->a.heads.mode == HT_OFF || hv->cw <= 0 || x < hv->x0 || y < hv->y0)
        return false;
    int h = (x - hv->x0) / (hv->cw + hv->gap), row = (y - hv->y0) / hv->ch;
    if (h >= hv->H || row >= hv->rows_shown || (x - hv->x0) % (hv->cw + hv->gap) >= hv->cw)
        return false;
    in->action = ACT_CELL_SET, in->arg = hv->first_l + row, in->col = h;
    return true;
}

/* The first layer shown so that the selected one is among rows. */
static void scroll_to(struct HeadsView *hv, int sel_l, int rows, int L)
{
    if (sel_l < hv->first_l)
        hv->first_l = sel_l;
    if (sel_l >= hv->first_l + rows)
        hv->first_l = sel_l - rows + 1;
    if (hv->first_l > L - rows)
        hv->first_l = L - rows > 0 ? L - rows : 0;
}

/* A score as a percentage of two digits (99 for 0.985 and above). */
static int pct(float v)
{
    int p = headscore_percent(v);
    return p > 99 ? 99 : p < 0 ? 0 : p;
}

/* The heads' numbers over their columns: "h1" ... or, when the last one's
 * "h" and digits are wider than a cell (gpt2-large's 20 and gpt2-xl's 25
 * heads at 80 columns), the numbers alone, never a column of "h…". */
static void head_labels(Grid *g, const struct HeadsView *hv, int sel_h, int y, int width)
{
    char last[16];
    const bool h_fits = snprintf(last, sizeof last, "h%d", hv->H) <= hv->cw;
    for (int h = 0; h < hv->H; h++) {
        char t[16];
        snprintf(t, sizeof t, "%s%d", h_fits ? "h" : "", h + 1);
        int x = hv->x0 + h * (hv->cw + hv->gap);
        if (x + grid_text_width(t) <= width)
            grid_puts(g, x, y, t, hv->cw, h == sel_h ? STYLE_LABEL_SEL : STYLE_DIM);
    }
}

static void layer_label(Grid *g, int x, int y, int l, bool sel)
{
    char t[16];
    snprintf(t, sizeof t, "L%d", l + 1);
    grid_puts(g, x, y, t, LABEL_W - 1, sel ? STYLE_LABEL_SEL : STYLE_DIM);
}

static const char LETTER[HEADSCORE_KINDS] = {'p', 'i', 'd', 'f', 'n', 'c', 's'};

/* The kinds a cell of `slots` scores shows, kinds [*first, *first +
 * *count): one at a time (slots 1), the kind Tab selected; else Tab turns
 * the pages of them, the kind's number counting pages. */
static void page_of(const HeadTable *ht, int slots, int *first, int *count)
{
    int pages = (HEADSCORE_KINDS + slots - 1) / slots;
    *first = ht->kind % pages * slots;
    *count = HEADSCORE_KINDS - *first < slots ? HEADSCORE_KINDS - *first : slots;
}

/* One head's scores of the page, `per` to a line: "p35 i02" over "d00 f05",
 * the best of a kind in capitals when it reaches the kind's threshold
 * (headscore_threshold); a score the model cannot have "c -". */
static void table_cells(Grid *g, const HeadTable *ht, int x, int y, int i, int per, int slots)
{
    int first, count;
    page_of(ht, slots, &first, &count);
    for (int s = 0; s < count; s++) {
        HeadScoreKind k = (HeadScoreKind)(first + s);
        bool best = ht->scan.named[k] == i;
        float v = headscore_value(&ht->scan.t[i], k);
        char t[8];
        if (v < 0)
            snprintf(t, sizeof t, "%c -", LETTER[k]);
        else
            snprintf(t, sizeof t, "%c%02d", best ? LETTER[k] - 32 : LETTER[k], pct(v));
        grid_puts(g, x + (s % per) * 4, y + s / per, t, 3,
                  best    ? STYLE_ACCENT
                  : v < 0 ? STYLE_DIM
                          : STYLE_TEXT);
    }
}

/* One head's score of the kind shown, coloured by its value ("-" when the
 * model cannot have it). */
static void table_cell1(const UiState *u, Grid *g, int x, int y, int i)
{
    const struct HeadsView *hv = u->hv;
    const HeadTable *ht = &u->a.heads;
    float v = headscore_value(&ht->scan.t[i], (HeadScoreKind)ht->kind);
    char t[8];
    if (v < 0) {
        grid_puts(g, x, y, "-", hv->cw, STYLE_DIM);
        return;
    }
    snprintf(t, sizeof t, "%02d%s", pct(v), ht->scan.named[ht->kind] == i ? "*" : "");
    int level = heatmap_level(v);
    for (int k = 0; k < hv->cw; k++)
        grid_put(g, x + k, y, ' ', u->depth == DEPTH_MONO ? STYLE_TEXT : STYLE_HEAT, level);
    grid_puts(g, x, y, t, hv->cw, u->depth == DEPTH_MONO ? STYLE_TEXT : STYLE_HEAT);
    for (int k = 0; k < hv->cw; k++) { /* grid_puts set level 0: the shade again */
        Cell *c = grid_at(g, x + k, y);
        if (c && u->depth != DEPTH_MONO)
            c->level = (uint8_t)level;
    }
}

/* The notes under the table for the kinds [first, first + count) shown:
 * what a first-token score means (unless only no-op scores are shown), what
 * a no-op head is (or why the model has no no-op score) when one is shown.
 * Returns how many, into note[0..2). */
static int table_notes(const HeadScan *s, int first, int count, const char *note[2])
{
    int n = 0;
    bool noop = first + count > HEADSCORE_CLS;
    bool sink = (first <= HEADSCORE_FIRST && first + count > HEADSCORE_FIRST) || !noop;
    if (sink)
        note[n++] = "f: weight parked on token 1 when nothing else fits (a sink); K shows the rest";
    if (noop && (s->cls >= 0 || s->sep >= 0))
        note[n++] =
            "c, s: a no-op head parks weight on [CLS] or [SEP] when what it seeks is absent";
    else if (noop)
        note[n++] =
            "c, s are \"-\": this model has no [CLS] or [SEP], where BERT's no-op heads park";
    return n;
}

/* The kinds first .. first + count - 1 with their letters, in names of
 * length 0 (headscore_name: "previous-token"), 1 ("previous") or 2
 * ("prev"), each followed by two spaces. */
static void legend_kinds(int first, int count, int len, char *buf, size_t size)
{
    static const char *const mid[HEADSCORE_KINDS] = {
        "previous", "induction", "duplicate", "first", "next", "[CLS] no-op", "[SEP] no-op"};
    static const char *const brief[HEADSCORE_KINDS] = {"prev", "induct", "dup",  "first",
                                                       "next", "[CLS]",  "[SEP]"};
    size_t at = 0;
    buf[0] = '\0';
    for (int k = first; k < first + count && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%c %s  ", LETTER[k],
                               len == 0   ? headscore_name((HeadScoreKind)k)
                               : len == 1 ? mid[k]
                                          : brief[k]);
}

/* The legend of the table's second line, the longest form of it that fits
 * width: the kinds shown (in shorter names where the whole ones do not
 * fit: 80 and 100 columns), or the one kind shown one at a time. */
static void legend(const HeadTable *ht, bool many, int first, int count, int width, Grid *g, int x,
                   int y)
{
    char t[7][240];
    int n = 3;
    if (!many) {
        const char *name = headscore_name((HeadScoreKind)ht->kind);
        const double at = 100.0 * headscore_threshold((HeadScoreKind)ht->kind);
        snprintf(t[0], sizeof t[0], "%s (Tab: next score)  *: best, >= %.0f  Enter focuses", name,
                 at);
        snprintf(t[1], sizeof t[1], "%s (Tab: next)  *: best, >= %.0f  Enter focuses", name, at);
        snprintf(t[2], sizeof t[2], "%s (Tab: next)  *: best, >= %.0f", name, at);
    } else {
        char kinds[3][160];
        for (int len = 0; len < 3; len++)
            legend_kinds(first, count, len, kinds[len], sizeof kinds[len]);
        const char *more = count < HEADSCORE_KINDS ? "  Tab: more" : "";
        snprintf(t[0], sizeof t[0], "%sCAPITAL: the best, >= 50%s  Enter focuses", kinds[0], more);
        snprintf(t[1], sizeof t[1], "%sCAPITAL: best >= 50%s", kinds[0], more);
        snprintf(t[2], sizeof t[2], "%s%s", kinds[0], more[0] ? "Tab: more" : "");
        snprintf(t[3], sizeof t[3], "%sCAPITAL: best >= 50%s", kinds[1], more);
        snprintf(t[4], sizeof t[4], "%s%s", kinds[1], more[0] ? "Tab: more" : "");
        snprintf(t[5], sizeof t[5], "%sCAPITAL: best >= 50%s", kinds[2], more);
        snprintf(t[6], sizeof t[6], "%s%s", kinds[2], more[0] ? "Tab: more" : "");
        n = 7;
    }
    const char *forms[] = {t[0], t[1], t[2], t[3], t[4], t[5], t[6]};
    grid_puts(g, x, y, forms[widget_fit(forms, n, width)], width, STYLE_DIM);
}

/* The table's title, the longest form of it that fits width. */
static void table_title(const HeadScan *s, int width, Grid *g, int x, int y)
{
    const char *in = s->cls >= 0 ? ", in [CLS] and [SEP]" : "";
    char t[3][200];
    snprintf(t[0], sizeof t[0],
             "Head scores (%% of attention) on %d random sequences of %d tokens repeated once%s",
             s->seqs, s->P, in);
    snprintf(t[1], sizeof t[1], "Head scores (%%): %d random sequences of %d tokens, repeated%s",
             s->seqs, s->P, in);
    snprintf(t[2], sizeof t[2], "Head scores (%%): %d random %d-token sequences, repeated%s",
             s->seqs, s->P, in);
    const char *forms[] = {t[0], t[1], t[2]};
    grid_puts(g, x, y, forms[widget_fit(forms, 3, width)], width, STYLE_TITLE);
}

void view_heads_table_draw(UiState *u, Grid *g, Rect r)
{
    struct HeadsView *hv = hv_of(u);
    const HeadTable *ht = &u->a.heads;
    const HeadScan *s = &ht->scan;
    hv->L = s->L, hv->H = s->H, hv->x0 = r.x + LABEL_W, hv->gap = 1;
    /* scores a line: as many "p35 " as a head's column holds, up to 4 (two
     * lines of them); one at a time, coloured, when not even 2 fit */
    int room = (r.w - LABEL_W) / s->H - 1, per = (room + 1) / 4;
    per = per > 4 ? 4 : per;
    bool many = per >= 2 && r.h - 5 >= 2;
    int slots = many ? 2 * per : 1, first, count;
    hv->cw = many ? 4 * per - 1 : room > 4 ? 4 : room;
    hv->ch = many ? 2 : 1;
    page_of(ht, slots, &first, &count);
    u->report.table_pages = (HEADSCORE_KINDS + slots - 1) / slots; /* 1: Tab has none to turn */
    table_title(s, r.w, g, r.x, r.y);
    legend(ht, many, first, count, r.w, g, r.x, r.y + 1);
    const char *note[2];
    int notes = table_notes(s, first, count, note);
    hv->y0 = r.y + 3;
    hv->rows_shown = (r.h - 3 - notes) / hv->ch; /* the last lines: the notes */
    hv->rows_shown = hv->rows_shown > s->L ? s->L : hv->rows_shown;
    scroll_to(hv, ht->sel_l, hv->rows_shown, s->L);
    head_labels(g, hv, ht->sel_h, r.y + 2, r.x + r.w);
    for (int row = 0; row < hv->rows_shown; row++) {
        int l = hv->first_l + row, y = hv->y0 + row * hv->ch;
        layer_label(g, r.x, y, l, l == ht->sel_l);
        for (int h = 0; h < s->H; h++) {
            int x = hv->x0 + h * (hv->cw + hv->gap);
            if (many)
                table_cells(g, ht, x, y, l * s->H + h, per, slots);
            else
                table_cell1(u, g, x, y, l * s->H + h);
            if (l == ht->sel_l && h == ht->sel_h)
                grid_flag_rect(g, x, y, hv->cw, hv->ch, CELL_CURSOR);
        }
    }
    for (int k = 0; k < notes; k++)
        grid_puts(g, r.x, hv->y0 + hv->rows_shown * hv->ch + k, note[k], r.w, STYLE_DIM);
}

/* A pooled block (POOL_MASKED: every weight masked) into one screen cell:
 * the top half up, the bottom half lo (lo < -1: no lower half). */
static void put_block(const UiState *u, Grid *g, int x, int y, float up, float lo)
{
    Cell *c = grid_at(g, x, y);
    if (!c)
        return;
    if (u->hmode == HEATMAP_COLOR && lo >= -1.0f) {
        bool um = up < 0, lm = lo < 0;
        *c = (Cell){HALF_BLOCK, STYLE_HEAT, 0, GRID_CELL_HALF};
        c->level = grid_half_level(um ? 0 : heatmap_level(up), lm ? 0 : heatmap_level(lo));
        c->flags |= (um ? GRID_CELL_UP_MASKED : 0) | (lm ? GRID_CELL_LO_MASKED : 0);
    } else if (up < 0) {
        grid_put(g, x, y, HEATMAP_MASKED_GLYPH, STYLE_MASKED, 0);
    } else if (u->hmode == HEATMAP_COLOR) {
        grid_put(g, x, y, ' ', STYLE_HEAT, heatmap_level(up));
    } else {
        grid_put(g, x, y, heatmap_glyph(heatmap_glyph_index(up)),
                 u->depth == DEPTH_8 ? STYLE_HEAT : STYLE_TEXT, heatmap_level(up));
    }
}

/* Head (l, h) of the result pooled to cw columns and rows screen rows (two
 * blocks a row in colour) at (x, y); a head of fewer tokens than cells is
 * stretched, each token's block over several cells. */
static void thumbnail(UiState *u, Grid *g, int x, int y, int l, int h, int rows, float *buf)
{
    struct HeadsView *hv = u->hv;
    const ModelResult *r = &u->a.ses.res;
    int n_q = r->shape.n_q, n_k = r->shape.n_k, half = u->hmode == HEATMAP_COLOR;
    int sh = rows << half, gh = sh > n_q ? n_q : sh, gw = hv->cw > n_k ? n_k : hv->cw;
    if (model_pool_head(r, l, h, 0, n_q, 0, n_k, gh, gw, POOL_MAX, buf) != AV_OK)
        term_die("out of memory");
    for (int yy = 0; yy < rows; yy++)
        for (int xx = 0; xx < hv->cw; xx++) {
            int c = xx * gw / hv->cw, s0 = yy << half;
            float up = buf[(size_t)(s0 * gh / sh) * gw + c];
            float lo = half ? buf[(size_t)((s0 + 1) * gh / sh) * gw + c] : -2.0f;
            put_block(u, g, x + xx, y + yy, up, lo);
        }
}

void view_heads_model_draw(UiState *u, Grid *g, Rect r)
{
    struct HeadsView *hv = hv_of(u);
    const ModelResult *res = &u->a.ses.res;
    if (u->a.ses.run_err || res->shape.n_q == 0) {
        grid_puts(g, r.x, r.y + 1, "the model view needs a text with tokens", r.w, STYLE_DIM);
        return;
    }
    int L = res->L, H = res->shape.H;
    hv->L = L, hv->H = H, hv->x0 = r.x + LABEL_W, hv->gap = 1, hv->y0 = r.y + 2;
    /* the selection within the result's heads (app_input keeps it so too) */
    int sel_l = u->a.heads.sel_l < L ? u->a.heads.sel_l : L - 1;
    int sel_h = u->a.heads.sel_h < H ? u->a.heads.sel_h : H - 1;
    hv->cw = (r.w - LABEL_W) / H - 1;
    hv->cw = hv->cw > 2 * res->shape.n_k ? 2 * res->shape.n_k : hv->cw;
    if (hv->cw > res->shape.n_k) /* every key as many columns: 18 keys in 18, not 23 */
        hv->cw -= hv->cw % res->shape.n_k;
    hv->cw = hv->cw < 1 ? 1 : hv->cw;
    int per = (r.h - 2) / L; /* rows a layer has: a gap row under each when 3 or more */
    per = per < 1 ? 1 : per > 13 ? 13 : per;
    int rows = per >= 3 ? per - 1 : per;
    /* every query as many rows (two a cell in colour) where the height allows */
    const int half = u->hmode == HEATMAP_COLOR, n_q = res->shape.n_q;
    for (int t = rows; (rows << half) > n_q && t >= 1; t--)
        if ((t << half) % n_q == 0 && (t << half) >= n_q) {
            rows = t;
            break;
        }
    hv->ch = per >= 3 ? rows + 1 : rows; /* the gap row kept */
    hv->rows_shown = (r.h - 2) / hv->ch > L ? L : (r.h - 2) / hv->ch;
    scroll_to(hv, sel_l, hv->rows_shown, L);
    char title[3][320], heads[96];
    const CombView *cv = &u->a.ses.comb;
    if (cv->mode == COMB_ROLLOUT) /* one head a layer: what it stands for */
        snprintf(heads, sizeof heads, "the rollout of %d heads", comb_model_heads(cv, &u->a.app));
    else if (comb_one_head(cv->mode))
        snprintf(heads, sizeof heads, "%s", model_head_label(&u->a.app.cfg, 0, 0));
    else
        snprintf(heads, sizeof heads, "%d heads", H);
    snprintf(title[0], sizeof title[0],
             "Model view: %d layer%s x %s, each head's %d x %d weights at its largest per "
             "block   arrows, Enter focuses, Esc back",
             L, L == 1 ? "" : "s", heads, res->shape.n_q, res->shape.n_k);
    snprintf(title[1], sizeof title[1],
             "Model view: %d layer%s x %s, each head's %d x %d weights at its largest per block", L,
             L == 1 ? "" : "s", heads, res->shape.n_q, res->shape.n_k);
    snprintf(title[2], sizeof title[2],
             "Model view: %d layer%s x %s, %d x %d weights, the largest per block", L,
             L == 1 ? "" : "s", heads, res->shape.n_q, res->shape.n_k);
    const char *forms[] = {title[0], title[1], title[2]};
    grid_puts(g, r.x, r.y, forms[widget_fit(forms, 3, r.w)], r.w, STYLE_TITLE);
    head_labels(g, hv, sel_h, r.y + 1, r.x + r.w);
    float *buf = term_xrealloc(NULL, sizeof *buf * (size_t)(2 * rows) * (size_t)hv->cw);
    for (int row = 0; row < hv->rows_shown; row++) {
        int l = hv->first_l + row, y = hv->y0 + row * hv->ch;
        layer_label(g, r.x, y, l, l == sel_l);
        for (int h = 0; h < H; h++) {
            int x = hv->x0 + h * (hv->cw + hv->gap);
            thumbnail(u, g, x, y, l, h, rows, buf);
            if (l == sel_l && h == sel_h) { /* brackets in the gaps around it */
                grid_put(g, x - 1, y, '[', STYLE_ACCENT, 0);
                grid_put(g, x + hv->cw, y, ']', STYLE_ACCENT, 0);
            }
        }
        kind_release(u->a.ses.kind, l);
    }
    free(buf);
}

ViewId view_heads_shown(const UiState *u)
{
    return headtable_shown(&u->a.heads);
}
