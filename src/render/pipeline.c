/* pipeline.c - one head's calculation as eight labelled heatmaps: Q_h, K_h,
 * V_h, the raw scores, the scaled scores, the masked scores, the softmax
 * weights and the output (pipeline.h).
 *
 * The numbers are the model's own (Q, K, V, weights and output are copied
 * from the result); the three score stages are recomputed from Q_h and K_h
 * with one mat_sgemm, since the result keeps at most the scaled and masked
 * scores. Layout: a cell width is chosen for all stages (the fewest pages,
 * then the widest cells, so values show where they can), and the stages
 * flow into shelves and pages.
 */
#include "render/pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/mat.h"
#include "core/utf8.h"
#include "render/heatmap.h"
#include "render/plot.h"

#define PIPE_LABEL_MAX 8 /* columns of a row label's token text */
#define PIPE_GAP 2       /* columns between stages side by side */
#define PIPE_VALUE_CW 4  /* the narrowest cell that writes its value (3 characters) */

int pipeline_compute(const ModelResult *r, int layer, int h, PipelineData *d)
{
    const AttnShape *s = &r->shape;
    memset(d, 0, sizeof *d);
    if (s->n_q <= 0 || layer < 0 || layer >= r->L || h < 0 || h >= s->H)
        return AV_ERR_CONFIG;
    const float *P_h = model_head_P(r, layer, h);
    if (!P_h)
        return AV_ERR_TOO_LARGE;
    if (!model_has_vectors(r, layer))
        return AV_ERR_NEEDS_MODEL;
    const AttnBuffers *b = &r->layer[layer].ab;
    int n_q = s->n_q, n_k = s->n_k, d_k = s->d_model / s->H, dm = s->d_model;
    size_t qs = (size_t)n_q * d_k, ks = (size_t)n_k * d_k, ss = (size_t)n_q * n_k;
    d->arena = malloc(sizeof *d->arena * (2 * qs + 2 * ks + 4 * ss));
    if (!d->arena)
        return AV_ERR_NOMEM;
    d->n_q = n_q, d->n_k = n_k, d->d_k = d_k, d->d_model = dm, d->h = h, d->layer = layer;
    d->factor = attention_scale(s), d->temperature = s->temperature;
    d->scaled = s->scale, d->causal = s->causal, d->bias = r->qkv_bias;
    d->Q = d->arena, d->O = d->Q + qs, d->K = d->O + qs, d->V = d->K + ks;
    d->raw = d->V + ks, d->scaled_s = d->raw + ss;
    d->masked = d->scaled_s + ss, d->P = d->masked + ss;
    /* head h is columns h*d_k .. h*d_k+d_k-1 of Q, K, V and the concatenation */
    for (int i = 0; i < n_q; i++) {
        memcpy(d->Q + (size_t)i * d_k, b->Q + (size_t)i * dm + h * d_k, sizeof(float) * d_k);
        memcpy(d->O + (size_t)i * d_k, b->concat + (size_t)i * dm + h * d_k, sizeof(float) * d_k);
    }
    for (int j = 0; j < n_k; j++) {
        memcpy(d->K + (size_t)j * d_k, b->K + (size_t)j * dm + h * d_k, sizeof(float) * d_k);
        memcpy(d->V + (size_t)j * d_k, b->V + (size_t)j * dm + h * d_k, sizeof(float) * d_k);
    }
    /* raw (n_q, n_k) = Q_h (n_q, d_k) K_h^T (d_k, n_k) */
    mat_sgemm(false, true, n_q, n_k, d_k, 1.0f, d->Q, d_k, d->K, d_k, 0.0f, d->raw, n_k);
    for (int i = 0; i < n_q; i++) {
        int vis = attention_visible_keys(s, i);
        for (int j = 0; j < n_k; j++) {
            size_t k = (size_t)i * n_k + j;
            d->scaled_s[k] = d->raw[k] * d->factor;
            d->masked[k] = j < vis ? d->scaled_s[k] : -INFINITY;
        }
    }
    memcpy(d->P, P_h, sizeof(float) * ss);
    return AV_OK;
}

void pipeline_free(PipelineData *d)
{
    free(d->arena);
    memset(d, 0, sizeof *d);
}

const float *pipeline_stage(const PipelineData *d, PipelineStage s, int *rows, int *cols)
{
    static const int query_rows = (1 << PIPE_Q) | (1 << PIPE_RAW) | (1 << PIPE_SCALED) |
                                  (1 << PIPE_MASKED) | (1 << PIPE_WEIGHTS) | (1 << PIPE_OUT);
    bool vec = s == PIPE_Q || s == PIPE_K || s == PIPE_V || s == PIPE_OUT;
    *rows = (query_rows >> s) & 1 ? d->n_q : d->n_k;
    *cols = vec ? d->d_k : d->n_k;
    const float *m[PIPE_STAGES] = {d->Q, d->K, d->V, d->raw, d->scaled_s, d->masked, d->P, d->O};
    return s >= 0 && s < PIPE_STAGES ? m[s] : NULL;
}

void pipeline_stage_title(const PipelineData *d, PipelineStage s, char *buf, size_t size)
{
    double root = sqrt((double)d->d_k), t = d->temperature;
    switch (s) {
    case PIPE_Q: snprintf(buf, size, "1 Q_h = X W_q%s: queries", d->bias ? " + b_q" : ""); break;
    case PIPE_K: snprintf(buf, size, "2 K_h = X W_k%s: keys", d->bias ? " + b_k" : ""); break;
    case PIPE_V: snprintf(buf, size, "3 V_h = X W_v%s: values", d->bias ? " + b_v" : ""); break;
    case PIPE_RAW: snprintf(buf, size, "4 Q_h K_h^T: raw scores"); break;
    case PIPE_SCALED:
        if (d->scaled && t != 1.0)
            snprintf(buf, size, "5 ÷ sqrt(d_k) = %.2f, ÷ T = %g", root, t);
        else if (d->scaled)
            snprintf(buf, size, "5 ÷ sqrt(d_k) = sqrt(%d) = %.2f", d->d_k, root);
        else if (t != 1.0)
            snprintf(buf, size, "5 not scaled; ÷ T = %g", t);
        else
            snprintf(buf, size, "5 not scaled (scaling off)");
        break;
    case PIPE_MASKED:
        snprintf(buf, size, d->causal ? "6 causal mask: future = -inf" : "6 no mask: unchanged");
        break;
    case PIPE_WEIGHTS: snprintf(buf, size, "7 softmax: rows sum to 1"); break;
    default: snprintf(buf, size, "8 output = weights V_h"); break;
    }
}

/* The value in at most width characters: "-0.52", "-.52", "-0.5", "12"...;
 * "" when it cannot be written. */
static void fmt_value(float v, int width, char *out)
{
    char buf[32];
    out[0] = '\0';
    if (isinf(v)) {
        if (width >= 4)
            strcpy(out, "-inf");
        return;
    }
    for (int prec = 2; prec >= 0; prec--) {
        int n = snprintf(buf, sizeof buf, "%.*f", prec, (double)v);
        if (!strcmp(buf, "-0.00") || !strcmp(buf, "-0.0") || !strcmp(buf, "-0"))
            memmove(buf, buf + 1, (size_t)n--); /* no negative zero */
        if (n > width && !strncmp(buf, "0.", 2))
            memmove(buf, buf + 1, (size_t)n--);
        else if (n > width && !strncmp(buf, "-0.", 3))
            memmove(buf + 1, buf + 2, (size_t)(n-- - 1));
        if (n <= width) {
            strcpy(out, buf);
            return;
        }
    }
}

typedef struct {
    const PipelineSpec *sp;
    int cw, lw;     /* cell width, row label width */
    bool same_rows; /* K_h and V_h's rows are the query tokens (keys_are_queries) */
} Ctx;

/* The largest |value| of a matrix (finite values only), at least 1e-6. */
static float range_of(const float *m, size_t n)
{
    float r = 1e-6f;
    for (size_t k = 0; k < n; k++)
        if (isfinite(m[k]) && fabsf(m[k]) > r)
            r = fabsf(m[k]);
    return r;
}

/* The colour scale of a stage: the raw, scaled and masked scores share one
 * (the larger of the raw and the scaled ranges), so that dividing by
 * sqrt(d_k) is seen as paler cells, not hidden by each panel's own scale. */
static float score_range(const PipelineData *d, PipelineStage s, const float *m, size_t n)
{
    if (s != PIPE_RAW && s != PIPE_SCALED && s != PIPE_MASKED)
        return range_of(m, n);
    float a = range_of(d->raw, n), b = range_of(d->scaled_s, n);
    return a > b ? a : b;
}

static void draw_cell(Grid *g, const Ctx *c, int x, int y, float v, bool weights, float range,
                      bool masked)
{
    int cw = c->cw, fill = cw >= 3 ? cw - 1 : cw;
    char num[32] = "";
    if (cw >= PIPE_VALUE_CW) /* ".52", "-.5", "27": fewer columns leave no digit to read */
        fmt_value(v, cw - 1, num);
    if (masked) {
        for (int k = 0; k < cw; k++)
            grid_put(g, x + k, y, ' ', STYLE_TEXT, 0);
        if (num[0] && !weights)
            grid_puts(g, x + cw - 1 - (int)strlen(num), y, num, cw, STYLE_MASKED);
        else
            grid_put(g, x + (fill - 1) / 2, y, HEATMAP_MASKED_GLYPH, STYLE_MASKED, 0);
        return;
    }
    int style = weights ? STYLE_HEAT : STYLE_DIVERGE;
    int level = weights ? heatmap_level(v) : plot_diverge_level(v, range);
    uint32_t glyph = weights ? heatmap_glyph(heatmap_glyph_index(v)) : plot_diverge_glyph(v, range);
    int len = (int)strlen(num);
    for (int k = 0; k < cw; k++) {
        uint32_t cp = ' ';
        if (len && k >= cw - 1 - len && k < cw - 1)
            cp = (unsigned char)num[k - (cw - 1 - len)];
        else if (c->sp->glyphs && !len && k < fill)
            cp = glyph;
        grid_put(g, x + k, y, cp, c->sp->glyphs ? STYLE_TEXT : style, c->sp->glyphs ? 0 : level);
    }
}

/* The first row of a window of shown of rows rows that keeps row sel in
 * view (centred once it is past the first screen) and row also too where
 * both fit; -1 for either: none. */
static int row_first(int rows, int shown, int sel, int also)
{
    if (sel < 0)
        sel = also, also = -1;
    int first = sel >= shown ? sel - shown / 2 : 0;
    if (also >= 0 && also < first && sel - also < shown)
        first = also;
    else if (also >= first + shown && also - sel < shown)
        first = also - shown + 1;
    first = first + shown > rows ? rows - shown : first;
    return first < 0 ? 0 : first;
}

/* Whether the rows of K_h and V_h are the query tokens (self-attention):
 * then every stage shows the same rows, following the selected query, so
 * that the rows side by side are the same tokens. */
static bool keys_are_queries(const PipelineSpec *sp)
{
    if (sp->d->n_q != sp->d->n_k)
        return false;
    for (int i = 0; i < sp->d->n_q; i++)
        if (sp->row_labels[i] != sp->col_labels[i] && strcmp(sp->row_labels[i], sp->col_labels[i]))
            return false;
    return true;
}

/* The rows a stage of rows rows shows in a box of avail rows: *first and
 * *shown. Query rows follow the selected query (and keep the selected key
 * in view where it fits when the keys are the same tokens); key rows of
 * other tokens (cross-attention) follow the selected key. */
static void row_window(const Ctx *c, PipelineStage s, int rows, int avail, int *first, int *shown)
{
    const PipelineSpec *sp = c->sp;
    bool keys = s == PIPE_K || s == PIPE_V;
    *shown = rows < avail ? rows : avail;
    if (keys && !c->same_rows)
        *first = row_first(rows, *shown, sp->sel_col, -1);
    else
        *first = row_first(rows, *shown, sp->sel_row, c->same_rows ? sp->sel_col : -1);
}

/* Say which rows first .. first+shown-1 of rows a cut stage at (x, y), bw
 * wide, shows (1-based, as the token chips number them), in the longest
 * form that fits: at the right end of its title line ("rows 9-22 of 22",
 * "rows 9-22", "9-22"), else in the row labels' column of its key line
 * ("9-22"), else at the title line's end with the title shortened before
 * it. The boxes keep their widths: the pages a lesson counts on stay. */
static void draw_range(Grid *g, const Ctx *c, const char *title, int x, int y, int bw, int first,
                       int shown, int rows)
{
    char full[48], mid[32], bare[24];
    snprintf(full, sizeof full, "rows %d-%d of %d", first + 1, first + shown, rows);
    snprintf(mid, sizeof mid, "rows %d-%d", first + 1, first + shown);
    snprintf(bare, sizeof bare, "%d-%d", first + 1, first + shown);
    const char *const forms[] = {full, mid, bare};
    int tw = grid_text_width(title), k = grid_first_fit(forms, 3, bw - tw - 2);
    if (k >= 0) {
        int ww = grid_text_width(forms[k]);
        grid_puts(g, x + bw - ww, y, forms[k], ww, STYLE_DIM);
        return;
    }
    int ww = grid_text_width(bare);
    if (ww <= c->lw - 1) {
        grid_puts(g, x, y + 1, bare, ww, STYLE_DIM);
        return;
    }
    if (ww + 2 > bw)
        return; /* no room at all: a box narrower than its numbers */
    for (int k2 = bw - ww - 2; k2 < bw; k2++)
        grid_put(g, x + k2, y, ' ', STYLE_TEXT, 0);
    grid_puts(g, x, y, title, bw - ww - 1, STYLE_TITLE);
    grid_puts(g, x + bw - ww, y, bare, ww, STYLE_DIM);
}

static bool token_cols(PipelineStage s)
{
    return s == PIPE_RAW || s == PIPE_SCALED || s == PIPE_MASKED || s == PIPE_WEIGHTS;
}

/* The box of a stage: its width and height at cell width c->cw, in a w x h
 * rectangle. */
static void stage_size(const Ctx *c, PipelineStage s, int max_w, int max_h, int *bw, int *bh)
{
    int rows, cols;
    char title[96];
    pipeline_stage(c->sp->d, s, &rows, &cols);
    pipeline_stage_title(c->sp->d, s, title, sizeof title);
    int tw = grid_text_width(title), mw = c->lw + cols * c->cw;
    *bw = mw > tw ? mw : tw;
    *bw = *bw > max_w ? max_w : *bw;
    *bh = 2 + rows > max_h ? max_h : 2 + rows;
}

static void draw_labels(Grid *g, const Ctx *c, PipelineStage s, int x, int y, int bw, int cols)
{
    const PipelineSpec *sp = c->sp;
    int shown = (bw - c->lw) / c->cw;
    for (int j = 0; j < cols && j < shown; j++) {
        char num[16];
        const char *lab = num;
        if (token_cols(s) && c->cw <= 2) { /* one column: the token's first character */
            unsigned cp;
            const char *t = sp->col_labels[j];
            int n = utf8_decode(t, strlen(t), &cp);
            snprintf(num, sizeof num, "%.*s", n > 0 ? n : 1, t);
        } else if (token_cols(s)) {
            lab = sp->col_labels[j];
        } else {
            snprintf(num, sizeof num, "%d", c->cw >= 3 || cols <= 10 ? j : j % 10);
        }
        int style = token_cols(s) && j == sp->sel_col ? STYLE_LABEL_SEL : STYLE_DIM;
        int lw = grid_text_width(lab), room = c->cw > 1 ? c->cw - 1 : 1;
        int pad = lw < room ? room - lw : 0; /* right-aligned over the values */
        grid_puts(g, x + c->lw + j * c->cw + pad, y, lab, room, style);
    }
    if (cols > shown)
        grid_puts(g, x + bw - 1, y, "…", 1, STYLE_DIM);
}

static void draw_stage(Grid *g, const Ctx *c, PipelineStage s, int x, int y, int bw, int bh)
{
    const PipelineSpec *sp = c->sp;
    const PipelineData *d = sp->d;
    int rows, cols, first, shown;
    const float *m = pipeline_stage(d, s, &rows, &cols);
    const bool veiled = sp->veil && (int)s >= sp->veil - 1;
    char title[96];
    pipeline_stage_title(d, s, title, sizeof title);
    grid_puts(g, x, y, title, bw, STYLE_TITLE);
    draw_labels(g, c, s, x, y + 1, bw, cols);
    bool keys = s == PIPE_K || s == PIPE_V, weights = s == PIPE_WEIGHTS;
    int sel = keys ? sp->sel_col : sp->sel_row;
    const char *const *labels = keys ? sp->col_labels : sp->row_labels;
    float range = score_range(d, s, m, (size_t)rows * cols);
    int ncols = (bw - c->lw) / c->cw;
    ncols = ncols < cols ? ncols : cols;
    row_window(c, s, rows, bh - 2, &first, &shown);
    if (shown < rows)
        draw_range(g, c, title, x, y, bw, first, shown, rows);
    for (int r = 0; r < shown; r++) {
        int i = first + r, yy = y + 2 + r;
        bool is_sel = i == sel;
        grid_puts(g, x, yy, is_sel ? ">" : " ", 1, STYLE_ACCENT);
        grid_puts(g, x + 1, yy, labels[i], c->lw - 2, is_sel ? STYLE_LABEL_SEL : STYLE_LABEL);
        for (int j = 0; j < ncols; j++) {
            size_t k = (size_t)i * cols + j;
            bool masked = token_cols(s) && s != PIPE_RAW && s != PIPE_SCALED &&
                          isinf(d->masked[(size_t)i * d->n_k + j]);
            if (veiled) /* predict first: the values come with the reveal */
                grid_puts(g, x + c->lw + j * c->cw + (c->cw - 1) / 2, yy, "?", 1, STYLE_DIM);
            else
                draw_cell(g, c, x + c->lw + j * c->cw, yy, m[k], weights, range, masked);
        }
        if (is_sel)
            grid_flag_rect(g, x + c->lw, yy, ncols * c->cw, 1, CELL_SELECTED);
    }
}

typedef struct {
    int x, y, w, h, page;
} Box;

/* Lay the stages out at cell width c->cw in a w x h rectangle. Returns the
 * pages. */
static int flow(const Ctx *c, int w, int h, Box *box)
{
    int page = 0, cx = 0, cy = 0, shelf = 0;
    for (int s = 0; s < PIPE_STAGES; s++) {
        int bw, bh;
        stage_size(c, (PipelineStage)s, w, h, &bw, &bh);
        if (s == c->sp->lead - 1 && (cx > 0 || cy > 0)) /* the stage a lesson speaks of */
            page++, cx = cy = shelf = 0;
        if (cx > 0 && cx + bw > w)
            cx = 0, cy += shelf + 1, shelf = 0;
        if (cx == 0 && cy > 0 && cy + bh == h + 1)
            cy--; /* a page's last shelf may do without its blank line: its title parts it */
        if (cy > 0 && cy + bh > h)
            page++, cx = cy = shelf = 0;
        box[s] = (Box){cx, cy, bw, bh, page};
        cx += bw + PIPE_GAP;
        shelf = bh > shelf ? bh : shelf;
    }
    return page + 1;
}

static int label_width(const PipelineSpec *sp)
{
    int w = 1;
    for (int i = 0; i < sp->d->n_q; i++) {
        int tw = grid_text_width(sp->row_labels[i]);
        w = tw > w ? tw : w;
    }
    for (int j = 0; j < sp->d->n_k; j++) {
        int tw = grid_text_width(sp->col_labels[j]);
        w = tw > w ? tw : w;
    }
    return 1 + (w < PIPE_LABEL_MAX ? w : PIPE_LABEL_MAX) + 1; /* marker, text, gap */
}

/* Whether the stages a lesson's text names (lead .. lead_last) share a page. */
static bool span_together(const PipelineSpec *sp, const Box *box)
{
    if (sp->lead < 1 || sp->lead > PIPE_STAGES)
        return true;
    int last = sp->lead_last > sp->lead ? sp->lead_last : sp->lead;
    last = last > PIPE_STAGES ? PIPE_STAGES : last;
    return box[last - 1].page == box[sp->lead - 1].page;
}

/* Whether cells cw columns wide carry values and the n_q x n_k scores fit
 * whole across w (the Q, K, V and output stages may show their first
 * dimensions only: d_k is often wider than any screen). */
static bool values_fit(const Ctx *c, int cw, int w)
{
    return cw >= PIPE_VALUE_CW && c->lw + c->sp->d->n_k * cw <= w;
}

/* The cell width (sp's, or chosen) and the boxes of the stages in a w x h
 * rectangle. Returns the pages. The choice, first that applies: cells that
 * carry values to two digits (5 or 6 columns: fewest pages, then widest);
 * values to one or two (4 columns); the widest colour cells whose pages are
 * at most one more than the fewest. Each only where the stages a lesson's
 * text names share a page, as long as some width lets them. */
static int layout(const PipelineSpec *sp, int w, int h, Ctx *c, Box *box)
{
    enum { N_WIDTHS = 6 };
    static const int widths[N_WIDTHS] = {6, 5, 4, 3, 2, 1};
    *c = (Ctx){.sp = sp, .lw = label_width(sp), .same_rows = keys_are_queries(sp)};
    if (sp->cell_w > 0) {
        c->cw = sp->cell_w;
        return flow(c, w, h, box);
    }
    int pages[N_WIDTHS], pick = -1, best = -1;
    bool ok[N_WIDTHS], any = false; /* the stages a lesson's text names share a page */
    Box b[N_WIDTHS][PIPE_STAGES];
    for (int k = 0; k < N_WIDTHS; k++) {
        Ctx t = *c;
        t.cw = widths[k];
        pages[k] = flow(&t, w, h, b[k]);
        ok[k] = span_together(sp, b[k]);
        any |= ok[k];
    }
    for (int k = 0; k < N_WIDTHS; k++)
        ok[k] |= !any; /* no width lets them: any width */
    for (int k = 0; k < N_WIDTHS && widths[k] > PIPE_VALUE_CW; k++) /* two digits */
        if (ok[k] && values_fit(c, widths[k], w) && (pick < 0 || pages[k] < pages[pick]))
            pick = k;
    for (int k = 0; pick < 0 && k < N_WIDTHS; k++) /* one or two digits */
        if (ok[k] && widths[k] == PIPE_VALUE_CW && values_fit(c, widths[k], w))
            pick = k;
    for (int k = 0; pick < 0 && k < N_WIDTHS; k++) /* colour only: the fewest pages... */
        if (ok[k] && (best < 0 || pages[k] < pages[best]))
            best = k;
    for (int k = 0; pick < 0 && k < N_WIDTHS; k++) /* ... and one more for wider cells */
        if (ok[k] && pages[k] <= pages[best] + 1)
            pick = k;
    c->cw = widths[pick];
    memcpy(box, b[pick], sizeof b[pick]);
    return pages[pick];
}

int pipeline_page_of(const PipelineSpec *sp, int w, int h, PipelineStage stage)
{
    Ctx c;
    Box box[PIPE_STAGES];
    layout(sp, w, h, &c, box);
    return stage >= 0 && stage < PIPE_STAGES ? box[stage].page : 0;
}

int pipeline_draw(Grid *g, int x, int y, int w, int h, const PipelineSpec *sp, int *page_out)
{
    Ctx c;
    Box box[PIPE_STAGES];
    int pages = layout(sp, w, h, &c, box);
    int page = sp->page < 0 ? 0 : sp->page >= pages ? pages - 1 : sp->page;
    for (int s = 0; s < PIPE_STAGES; s++)
        if (box[s].page == page)
            draw_stage(g, &c, (PipelineStage)s, x + box[s].x, y + box[s].y, box[s].w, box[s].h);
    if (page_out)
        *page_out = page;
    return pages;
}

int pipeline_write(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h, int sel,
                   bool color, int width)
{
    PipelineData d;
    int err = pipeline_compute(r, layer, h, &d);
    if (err)
        return err;
    const TokenList *kt = model_key_tokens(r);
    const char **rows = malloc(sizeof *rows * (size_t)d.n_q);
    const char **cols = malloc(sizeof *cols * (size_t)d.n_k);
    Grid g = {0};
    width = width > 0 ? width : 100;
    int gh = 8 * (d.n_q > d.n_k ? d.n_q : d.n_k) + 60;
    err = rows && cols ? grid_init(&g, width, gh) : AV_ERR_NOMEM;
    if (!err) {
        for (int i = 0; i < d.n_q; i++)
            rows[i] = r->tokens.tok[i].str;
        for (int j = 0; j < d.n_k; j++)
            cols[j] = kt->tok[j].str;
        grid_printf(&g, 0, 0, width, STYLE_TITLE, "Head %d of %d: %s, layer %d: the pipeline%s%s",
                    h + 1, c->H, model_head_label(c, layer, h), layer + 1,
                    sel >= 0 ? " of query " : "", sel >= 0 ? rows[sel] : "");
        if (c->about) /* a kind's model: what it is, no seed, its own positions */
            grid_printf(&g, 0, 1, width, STYLE_DIM,
                        "(%s, d_model %d, d_k %d, mask %s, %s, "
                        "temperature %g)",
                        c->about, c->d_model, d.d_k, c->causal ? "causal" : "off",
                        c->scale ? "scaled" : "not scaled", (double)c->temperature);
        else
            grid_printf(&g, 0, 1, width, STYLE_DIM,
                        "(d_model %d, d_k %d, seed %llu, mask %s, "
                        "PE %s, %s, temperature %g)",
                        c->d_model, d.d_k, (unsigned long long)c->seed,
                        c->causal ? "causal" : "off", c->pe ? "on" : "off",
                        c->scale ? "scaled" : "not scaled", (double)c->temperature);
        grid_printf(&g, 0, 2, width, STYLE_DIM,
                    "(the formula in plain C: "
                    "src/core/attention_ref.c)");
        PipelineSpec sp = {.d = &d,
                           .row_labels = rows,
                           .col_labels = cols,
                           .sel_row = sel,
                           .sel_col = -1,
                           .glyphs = !color};
        pipeline_draw(&g, 0, 4, width, gh - 4, &sp, NULL);
        err = grid_write(&g, f, color) == 0 && fputc('\n', f) != EOF ? AV_OK : AV_ERR_IO;
    }
    grid_free(&g);
    free(rows), free(cols);
    pipeline_free(&d);
    return err;
}
