/* widgets.c - the pieces the views share: a cleared rectangle, a box, a
 * head's statistics as text, the 8-colour tint of a heatmap's shade glyphs,
 * and the panel of the selected token (its cell's weight and raw score, its
 * ranked bars). Each draws into the Grid only; numbers come from data.c.
 */
#include "widgets.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/sentences.h"

#include "core/attention.h"
#include "data.h"
#include "term.h"

void widget_rect_clear(Grid *g, Rect r)
{
    int x0 = r.x < 0 ? 0 : r.x, x1 = r.x + r.w > g->w ? g->w : r.x + r.w;
    int y0 = r.y < 0 ? 0 : r.y, y1 = r.y + r.h > g->h ? g->h : r.y + r.h;
    for (int y = y0; y < y1 && x0 < x1; y++) /* a row at a time, clipped */
        grid_fill_cells(&g->cells[(long)y * g->w + x0], x1 - x0, ' ', STYLE_TEXT, 0);
}

void widget_box(Grid *g, Rect r)
{
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x < r.x + r.w; x++) {
            bool ey = y == r.y || y == r.y + r.h - 1, ex = x == r.x || x == r.x + r.w - 1;
            uint32_t cp =
                ey && ex ? (y == r.y ? (x == r.x ? 0x250C : 0x2510) : (x == r.x ? 0x2514 : 0x2518))
                : ey     ? 0x2500
                : ex     ? 0x2502
                         : ' ';
            grid_put(g, x, y, cp, STYLE_TITLE, 0);
        }
}

const char *const *widget_col_labels(UiState *u, int cell_w, int letters)
{
    int every = cell_w >= 3 ? 1 : cell_w == 2 ? 2 : 3, sel = u->a.app.sel_col;
    letters = letters < 1 ? 1 : letters > 5 ? 5 : letters;
    for (int j = 0; j < u->a.app.n_k; j++) {
        const char *t = u->labels_k[j];
        char *out = u->abbr_k[j];
        size_t len = 0;
        for (int cps = 0; t[len] && cps < letters; cps++)
            do
                len++;
            while ((t[len] & 0xC0) == 0x80);
        bool show = j % every == 0 || j == sel;
        memcpy(out, t, show ? len : 0);
        out[show ? len : 0] = '\0';
        u->abbr_p[j] = out;
    }
    return u->abbr_p;
}

const char *widget_run_error(UiState *u, int err)
{
    return session_error_line(&u->a.ses, &u->a.app.cfg, err);
}

const char *widget_head_label(UiState *u, int h)
{
    const AppState *s = &u->a.app;
    if (s->example_weights[0] && s->layer == 0) {
        const char *about = sentences_weights_about(s->example_weights);
        if (about)
            snprintf(u->label_text, sizeof u->label_text, "weights of %s", about);
        else
            snprintf(u->label_text, sizeof u->label_text, "the example's weights (assets/%s)",
                     s->example_weights);
        return u->label_text;
    }
    return model_head_label(&s->cfg, s->layer, h);
}

int widget_head_of(const UiState *u, int h, char *buf, size_t size)
{
    const AppState *s = &u->a.app;
    if (comb_one_head(u->a.ses.comb.mode))
        return snprintf(buf, size, "%s", model_head_label(&s->cfg, s->layer, 0));
    return snprintf(buf, size, "head %d", h + 1);
}

/* A mean top weight as the captions write it: ".38", "1.00". */
static const char *top_text(double top, char buf[8])
{
    snprintf(buf, 8, "%.2f", top);
    return buf[0] == '0' ? buf + 1 : buf;
}

/* The statistics in words, the mean top weight named top_word ("mean top
 * weight", "top"); "~" before each where the rows were sampled. */
static int stats_words(const HeadStats *st, const char *top_word, char *buf, size_t size)
{
    const char *approx = st->sampled ? "~" : "";
    /* rows not a distribution (heads combined by max or sum): their entropy
     * is of the rows normalised (stats.h), and says so */
    const char *norm = st->normalised ? " (rows normalised)" : "";
    /* top: the mean over the rows of each row's largest weight (stats.h),
     * not the largest weight of the head */
    return snprintf(buf, size, "entropy %s%.2f bits%s, %s %s%.2f", approx, st->entropy, norm,
                    top_word, approx, st->top);
}

int widget_stats_text(const HeadStats *st, bool wide, char *buf, size_t size)
{
    if (!st)
        return snprintf(buf, size, "%s", "");
    if (wide)
        return stats_words(st, "mean top weight", buf, size);
    char top[8];
    return snprintf(buf, size, "%.2fb %s", st->entropy, top_text(st->top, top));
}

int widget_stats_fit(const HeadStats *st, int width, char *buf, size_t size)
{
    if (!st)
        return snprintf(buf, size, "%s", "");
    char wide[96], mid[96], narrow[32], top[8];
    const char *approx = st->sampled ? "~" : "";
    stats_words(st, "mean top weight", wide, sizeof wide);
    stats_words(st, "top", mid, sizeof mid);
    snprintf(narrow, sizeof narrow, "%s%.2fb %s%s", approx, st->entropy, approx,
             top_text(st->top, top));
    const char *const forms[] = {wide, mid, narrow};
    int k = grid_first_fit(forms, 3, width);
    return snprintf(buf, size, "%s", k >= 0 ? forms[k] : "");
}

int widget_stats_caption(const HeadStats *st, int width, char *buf, size_t size)
{
    int n = widget_stats_text(st, false, buf, size);
    if (!st || n <= width)
        return n;
    char top[8];
    const char *t = top_text(st->top, top);
    n = snprintf(buf, size, "%.2f %s", st->entropy, t); /* without the b */
    return n <= width ? n : snprintf(buf, size, "%.1f %s", st->entropy, t);
}

int widget_fit(const char *const *forms, int n, int width)
{
    int k = grid_first_fit(forms, n, width);
    return k < 0 ? n - 1 : k;
}

/* 8 colours: tint the shade glyphs of the cells by their level. */
void widget_tint_cells(const UiState *u, Grid *g, const HeatmapSpec *sp, const HeatmapLayout *l)
{
    if (u->depth != DEPTH_8)
        return;
    for (int r = 0; r < l->rows; r++)
        for (int c = 0; c < l->cols; c++) {
            int i = l->first_row + r, j = l->first_col + c;
            if (heatmap_masked(sp, i, j))
                continue;
            int level = heatmap_level(sp->P[(long)i * sp->n_k + j]);
            for (int k = 0; k < l->cell_w; k++) {
                Cell *cell = grid_at(g, l->cells_x + c * l->cell_w + k, l->cells_y + r);
                if (cell && cell->style == STYLE_TEXT)
                    cell->style = STYLE_HEAT, cell->level = (uint8_t)level;
            }
        }
}

/* The selected cell: exact weight and raw score, from row P_row. */
static void draw_cell_info(const UiState *u, Grid *g, int x, int y, int w, const ModelResult *res,
                           int h, const float *P_row)
{
    const AppState *s = &u->a.app;
    int i = s->sel_row, j = s->sel_col;
    if (j < 0) {
        grid_puts(g, x, y, "Left/Right or click a cell:", w, STYLE_DIM);
        const char *const its[] = {"its exact weight and raw score", "its weight and raw score"};
        grid_puts(g, x, y + 1, its[widget_fit(its, 2, w)], w, STYLE_DIM);
        return;
    }
    const AttnBuffers *ab = &res->layer[s->layer].ab;
    /* imported or combined weights come without vectors: no score; the mask
     * from the shape */
    bool qk = model_holds(res, s->layer) & MODEL_HOLDS_QK;
    float score = qk ? attention_score(&res->shape, h, ab->Q, ab->K, i, j)
                  : j < attention_visible_keys(&res->shape, i) ? 0.0f
                                                               : -INFINITY;
    float wt = P_row[j];
    int used = grid_printf(g, x, y, w, STYLE_LABEL_SEL, "%s", u->labels_q[i]);
    used += grid_puts(g, x + used, y, " \u2192 ", w - used, STYLE_TEXT);
    used += grid_printf(g, x + used, y, w - used, STYLE_LABEL_SEL, "%s", u->labels_k[j]);
    if (isinf(score)) {
        grid_puts(g, x + used, y, ": masked", w - used, STYLE_TEXT);
        /* imported weights have no scores: their mask is the file's zero triangle */
        const char *const why[] = {"score -inf before softmax, weight exactly 0",
                                   "score -inf, weight exactly 0", "score -inf, weight 0"};
        const char *const causal[] = {"weight exactly 0: the file is causal",
                                      "weight 0: the file is causal", "weight 0 (causal file)"};
        grid_puts(g, x, y + 1, qk ? why[widget_fit(why, 3, w)] : causal[widget_fit(causal, 3, w)],
                  w, STYLE_DIM);
        return;
    }
    char wf[3][48];
    snprintf(wf[0], sizeof wf[0], ": weight %.6f = %.1f%%", (double)wt, (double)wt * 100.0);
    snprintf(wf[1], sizeof wf[1], ": %.6f = %.1f%%", (double)wt, (double)wt * 100.0);
    snprintf(wf[2], sizeof wf[2], ": %.2f%%", (double)wt * 100.0);
    const char *const wfs[] = {wf[0], wf[1], wf[2]};
    grid_puts(g, x + used, y, wfs[widget_fit(wfs, 3, w - used)], w - used, STYLE_TEXT);
    if (!qk) {
        const char *const none[] = {"no raw score: these weights come without Q and K",
                                    "no raw score: weights without Q, K", "no raw score (no Q, K)"};
        grid_puts(g, x, y + 1, none[widget_fit(none, 3, w)], w, STYLE_DIM);
        return;
    }
    char how[48], sf[3][96];
    float t = s->cfg.temperature;
    snprintf(how, sizeof how, t != 1.0f ? "%s/T (T = %g)" : "%s",
             s->cfg.scale ? "q.k/sqrt(d_k)" : "q.k (unscaled)", (double)t);
    /* the formula goes before the word "raw score", which says what it is */
    snprintf(sf[0], sizeof sf[0], "raw score %s = %.4f", how, (double)score);
    snprintf(sf[1], sizeof sf[1], "raw score = %.4f", (double)score);
    snprintf(sf[2], sizeof sf[2], "raw score %.2f", (double)score);
    const char *const sfs[] = {sf[0], sf[1], sf[2]};
    grid_puts(g, x, y + 1, sfs[widget_fit(sfs, 3, w)], w, STYLE_TEXT);
}

/* "Token 3 she attends to (head 1):" in the first form that fits w: the
 * word "Token" goes first, then what the head is called beyond its first
 * words ("rollout of layers 1-2" to "rollout"), then the head (the view's
 * title names it), and only then is the token's label cut. */
static void draw_info_title(UiState *u, Grid *g, Rect r, int i, int h)
{
    char who[112], brief[112], num[16], tail[128];
    widget_head_of(u, h, who, sizeof who);
    snprintf(brief, sizeof brief, "%s", who);
    char *cut = strstr(brief, " of ");
    cut = cut ? cut : strstr(brief, " over ");
    if (cut)
        *cut = '\0';
    const char *lab = u->labels_q[i];
    int lw = grid_text_width(lab);
    static const struct {
        const char *num;
        int who; /* 0 whole, 1 brief, 2 none */
    } forms[] = {{"Token %d ", 0}, {"%d ", 0}, {"%d ", 1}, {"Token %d ", 2}, {"%d ", 2}};
    const int n = (int)(sizeof forms / sizeof forms[0]);
    for (int k = 0; k < n; k++) {
        if (forms[k].who == 1 && !cut)
            continue;
        snprintf(num, sizeof num, forms[k].num, i + 1);
        if (forms[k].who < 2)
            snprintf(tail, sizeof tail, " attends to (%s):", forms[k].who ? brief : who);
        else
            snprintf(tail, sizeof tail, " attends to:");
        int nw = grid_text_width(num), tw = grid_text_width(tail);
        if (nw + lw + tw <= r.w || k == n - 1) {
            int used = grid_puts(g, r.x, r.y, num, r.w, STYLE_TITLE);
            int room = r.w - used - tw;
            used += grid_puts(g, r.x + used, r.y, lab, room > 1 ? room : 1, STYLE_LABEL_SEL);
            grid_puts(g, r.x + used, r.y, tail, r.w - used, STYLE_TITLE);
            return;
        }
    }
}

int widget_info_rows(const UiState *u, const ModelResult *res)
{
    const AppState *s = &u->a.app;
    int i = s->sel_row, n_k = res->shape.n_k;
    if (s->n_multi > 0 || i < 0 || i >= res->shape.n_q)
        return INT_MAX;
    int vis = attention_visible_keys(&res->shape, i), bars = vis + (vis < n_k);
    /* the cell's lines come without a cell picked only from 8 rows on */
    int need = s->sel_col >= 0 || 1 + bars >= 8 ? 3 + bars : 1 + bars;
    return need < 4 ? 4 : need;
}

void widget_info_draw(UiState *u, Grid *g, Rect r, const ModelResult *res, int h)
{
    const AppState *s = &u->a.app;
    int i = s->sel_row;
    if (r.h < 4 || i < 0 || i >= res->shape.n_q)
        return;
    int n_multi;
    const float *sum = combsrc_multi_row(&u->a.ses.src, &u->a.app, res, h, &n_multi);
    if (n_multi < 0)
        term_die("out of memory");
    if (sum) { /* query tokens selected together (M): their rows summed */
        char who[112];
        widget_head_of(u, h, who, sizeof who);
        grid_printf(g, r.x, r.y, r.w, STYLE_TITLE, "%d quer%s summed (M, %s):", n_multi,
                    n_multi == 1 ? "y" : "ies", who);
        /* a sum of n_multi rows: up to n_multi (times the heads summed) */
        heatmap_bars_of(g, r.x, r.y + 1, r.w, r.h - 1, sum, res->shape.n_k, u->labels_k,
                        res->shape.n_k, (float)n_multi * comb_full(&u->a.ses.comb),
                        !lesson_state_veiled(&u->a.lesson));
        return;
    }
    draw_info_title(u, g, r, i, h);
    const float *P_row = data_row(u, res, s->layer, h, i);
    int top = 3; /* a short panel skips the hint on picking a cell: the bars come first */
    if (s->sel_col >= 0 || r.h >= 8)
        draw_cell_info(u, g, r.x, r.y + 1, r.w, res, h, P_row);
    else
        top = 1;
    /* before a lesson's reveal the bars (their numbers veiled) keep the
     * sentence's order: a ranked list would name the strongest key */
    heatmap_bars_of(g, r.x, r.y + top, r.w, r.h - top, P_row, res->shape.n_k, u->labels_k,
                    attention_visible_keys(&res->shape, i), comb_full(&u->a.ses.comb),
                    !lesson_state_veiled(&u->a.lesson));
}

int widget_hint_fit(const char *hint, int w, char *line, size_t size)
{
    enum { MOST = 24 };
    char part[MOST][96];
    int n = 0, tail, width = -3; /* the chosen parts' and their bars' */
    if (!size)
        return 0;
    line[0] = '\0';
    for (const char *p = hint; *p && n < MOST; n++) {
        const char *bar = strstr(p, " | ");
        int len = bar ? (int)(bar - p) : (int)strlen(p);
        snprintf(part[n], sizeof part[n], "%.*s", len, p);
        p = bar ? bar + 3 : p + len;
    }
    for (tail = n; tail > 0 && (strstr(part[tail - 1], "help") || strstr(part[tail - 1], "quit"));
         tail--)
        width += grid_text_width(part[tail - 1]) + 3; /* always kept */
    for (int k = 0; k < n; k++) {
        int pw = grid_text_width(part[k]);
        if (k < tail && width + pw + 3 > w)
            continue; /* a later, shorter part may fit */
        width += k < tail ? pw + 3 : 0;
        if (line[0])
            strncat(line, " | ", size - strlen(line) - 1);
        strncat(line, part[k], size - strlen(line) - 1);
    }
    return grid_text_width(line);
}
