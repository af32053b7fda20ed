/* export.c - a model result as text heatmaps, CSV, JSON or Markdown.
 *
 * The text export renders each head with heatmap_draw, the renderer of the
 * interface, so what is exported is what is seen. The number formats print
 * every weight with nine significant digits, enough to round-trip a float32.
 */
#include "render/export.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/grid.h"
#include "render/heatmap.h"
#include "render/trace.h"
#include "render/pipeline.h"
#include "core/stats.h"
#include "render/html.h"
#include "render/svg.h"

int export_parse_format(const char *s, ExportFormat *f)
{
    static const char *const names[] = {"text",  "csv",      "json", "md",
                                        "trace", "pipeline", "svg",  "html"};
    for (int k = 0; k < 8; k++)
        if (strcmp(s, names[k]) == 0) {
            *f = (ExportFormat)k;
            return 0;
        }
    return -1;
}

static const char *const *token_labels(const TokenList *t, const char **buf)
{
    for (int i = 0; i < t->n; i++)
        buf[i] = t->tok[i].str;
    return buf;
}

static void head_title(const ModelResult *r, const ModelConfig *c, int layer, int h, char *buf,
                       size_t size)
{
    /* a combining view's one head is named by its label ("6 heads combined:
     * sum"), and d_k is that of one of the heads it combines */
    int hk = c->heads_combined > 0 ? c->heads_combined : c->H;
    int n = c->heads_combined > 0 ? snprintf(buf, size, "%s", model_head_label(c, layer, h))
                                  : snprintf(buf, size, "Head %d of %d: %s", h + 1, c->H,
                                             model_head_label(c, layer, h));
    if (r->L > 1)
        n += snprintf(buf + n, size - n, ", layer %d of %d", layer + 1, r->L);
    if (c->preset == PRESET_IMPORTED) { /* weights only: no d_model, seed, PE */
        snprintf(buf + n, size - n, "  (%d queries x %d keys, mask %s)", r->shape.n_q, r->shape.n_k,
                 c->causal ? "causal (detected)" : "off");
        return;
    }
    if (c->about) /* a model of its own kind: no seed, and its own positions */
        n += snprintf(buf + n, size - n, "  (%s, d_model %d, d_k %d, mask %s, %s", c->about,
                      c->d_model, c->d_model / hk, c->causal ? "causal" : "off",
                      c->scale ? "scaled by 1/sqrt(d_k)" : "not scaled");
    else
        n += snprintf(buf + n, size - n, "  (d_model %d, d_k %d, seed %llu, mask %s, PE %s, %s",
                      c->d_model, c->d_model / hk, (unsigned long long)c->seed,
                      c->causal ? "causal" : "off", c->pe ? "on" : "off",
                      c->scale ? "scaled by 1/sqrt(d_k)" : "not scaled");
    if (c->temperature != 1.0f)
        n += snprintf(buf + n, size - n, ", temperature %g", (double)c->temperature);
    snprintf(buf + n, size - n, ")");
}

/* Split buf in place into at most max pieces at its spaces (after_comma:
 * only at the spaces of ", "); pieces never empty. Returns the pieces. */
static int split(char *buf, bool after_comma, const char **out, int max)
{
    int n = 0;
    for (char *p = buf; *p && n < max;) {
        char *end = p;
        while (*end && !(*end == ' ' && (!after_comma || (end > p && end[-1] == ','))))
            end++;
        bool last = *end == '\0';
        *end = '\0';
        if (end > p)
            out[n++] = p;
        if (last)
            break;
        p = end + 1;
    }
    return n;
}

/* The words of text as lines of g->w columns from row y (g NULL: counted,
 * width columns), the lines after the first indented. Returns the rows. */
static int put_words(Grid *g, int width, int y, int indent, const char *text, bool after_comma,
                     int style)
{
    char buf[1024];
    const char *parts[128], *pieces[128];
    snprintf(buf, sizeof buf, "%s", text);
    int w = g ? g->w : width, k = split(buf, after_comma, parts, 128), n = 0;
    for (int i = 0; i < k && n < 128; i++) /* a part wider than a line: at its spaces */
        if (after_comma && grid_text_width(parts[i]) > w)
            n += split((char *)parts[i], false, pieces + n, 128 - n);
        else
            pieces[n++] = parts[i];
    return grid_wrap(g, 0, y, w, indent, pieces, n, style);
}

/* The title in the grid: the head on one line, its settings on the next
 * ones, broken after a ", ", when both do not fit the width; a line wider
 * than the grid is broken at its spaces. With g NULL the rows are counted
 * for width columns. Returns the rows used. */
static int put_title(Grid *g, int width, const char *title)
{
    const char *paren = strstr(title, "  (");
    if (!paren)
        return put_words(g, width, 0, 2, title, false, STYLE_TITLE);
    char head[128];
    snprintf(head, sizeof head, "%.*s", (int)(paren - title), title);
    if (grid_text_width(title) <= width) {
        if (g)
            grid_puts(g, 0, 0, title, g->w, STYLE_TITLE);
        return 1;
    }
    int y = put_words(g, width, 0, 2, head, false, STYLE_TITLE);
    return y + put_words(g, width, y, 0, paren + 2, true, STYLE_DIM);
}

/* Labels "a-b" (1-based, inclusive) of the n token ranges that pooling into
 * cells cells makes; one buffer of 24 bytes a label. */
static void range_labels(int n, int cells, char *buf, const char **labels)
{
    for (int c = 0; c < cells; c++) {
        int a = (int)((long)c * n / cells) + 1, b = (int)((long)(c + 1) * n / cells);
        snprintf(buf + 24 * c, 24, a == b ? "%d" : "%d-%d", a, b);
        labels[c] = buf + 24 * c;
    }
}

/* The pooled drawing of a head too large to draw a cell a token: each cell
 * shows the largest weight of the tokens it covers. */
static int text_pooled(Grid *g, const ModelResult *r, int layer, int h, bool color, int width,
                       int top)
{
    const AttnShape *s = &r->shape;
    int gh = s->n_q < 200 ? s->n_q : 200, gw = width - 14 < s->n_k ? width - 14 : s->n_k;
    float *P = malloc(sizeof *P * (size_t)gh * gw);
    char *buf = malloc((size_t)24 * gh);
    const char **rows = malloc(sizeof *rows * (size_t)gh),
               **cols = calloc((size_t)gw, sizeof *cols);
    int err = P && buf && rows && cols ? AV_OK : AV_ERR_NOMEM;
    if (!err)
        err = model_pool_head(r, layer, h, 0, s->n_q, 0, s->n_k, gh, gw, POOL_MAX, P);
    if (!err) {
        range_labels(s->n_q, gh, buf, rows);
        for (int c = 0; c < gw; c++)
            cols[c] = "";
        HeatmapSpec sp = {.P = P,
                          .n_q = gh,
                          .n_k = gw,
                          .row_labels = rows,
                          .col_labels = cols,
                          .mode = color ? HEATMAP_COLOR : HEATMAP_GLYPH,
                          .sel_row = -1,
                          .sel_col = -1,
                          .cell_w = 1,
                          .label_w = 12,
                          .pooled = true};
        char why[160];
        snprintf(why, sizeof why,
                 "%d tokens pooled: a cell is the largest weight of about %d x %d tokens "
                 "(query rows x key columns)",
                 s->n_q, (s->n_q + gh - 1) / gh, (s->n_k + gw - 1) / gw);
        top += put_words(g, g->w, top, 0, why, false, STYLE_DIM) + 1;
        HeatmapLayout lay;
        int used = heatmap_draw(g, 0, top, g->w, g->h - 6, &sp, &lay);
        heatmap_legend(g, 0, top + used + 1, g->w, sp.mode, s->causal);
    }
    free(P), free(buf), free(rows), free(cols);
    return err;
}

/* Entropy and largest weights of a head whose weights are kept: every row. */
static HeadStats head_stats(const ModelResult *r, int layer, int h)
{
    HeadStats st;
    /* with the weights at hand nothing is allocated, so this cannot fail */
    model_stats_head(r, layer, h, LONG_MAX, &st);
    return st;
}

/* The drawing of a head with a cell a token. */
static int text_cells(Grid *g, const ModelResult *r, int layer, int h, const ExportOptions *o,
                      int width, int top)
{
    const AttnShape *s = &r->shape;
    const char **rows = malloc((size_t)s->n_q * sizeof *rows);
    const char **cols = malloc((size_t)s->n_k * sizeof *cols);
    if (!rows || !cols) {
        free(rows), free(cols);
        return AV_ERR_NOMEM;
    }
    HeatmapSpec sp = {
        .P = model_head_P(r, layer, h),
        .n_q = s->n_q,
        .n_k = s->n_k,
        .row_labels = token_labels(&r->tokens, rows),
        .col_labels = token_labels(model_key_tokens(r), cols),
        .causal = s->causal,
        .sel_row = -1,
        .sel_col = -1,
        .label_w = 12,
        .number_rows = true,
    };
    int avail = width - 20;
    sp.cell_w = avail / s->n_k > 4 ? 4 : avail / s->n_k < 1 ? 1 : avail / s->n_k;
    /* colour mode writes the percentages: with --numbers they show without
     * colour too, as on the screen, where a cell holds them (3 columns);
     * narrower cells keep the glyphs, or the matrix would be blank */
    sp.mode = o->color || (o->numbers && sp.cell_w >= 3) ? HEATMAP_COLOR : HEATMAP_GLYPH;
    HeatmapLayout lay;
    int used = heatmap_draw(g, 0, top + 1, g->w, g->h - 6, &sp, &lay);
    int y = top + 1 + used + 1;
    if (o->color || sp.mode == HEATMAP_GLYPH)
        y += heatmap_legend(g, 0, y, g->w, sp.mode, s->causal);
    else /* numbers without colour: a colour ramp would mean nothing */
        y += 1 + (grid_puts(g, 0, y,
                            s->causal ? "cells: weights in per cent; \u2573 masked"
                                      : "cells: weights in per cent",
                            g->w, STYLE_DIM) > 0);
    HeadStats st = head_stats(r, layer, h);
    char line[160];
    snprintf(line, sizeof line,
             "entropy %.2f bits (uniform over %d keys: %.2f), mean largest weight %.0f%%",
             st.entropy, s->n_k, log2((double)s->n_k), 100.0 * st.top);
    put_words(g, g->w, y, 0, line, false, STYLE_DIM);
    free(rows);
    free(cols);
    return AV_OK;
}

int export_text_head(FILE *f, const ModelResult *r, const ModelConfig *c, int h,
                     const ExportOptions *o)
{
    const AttnShape *s = &r->shape;
    const int layer = o->layer, width = o->width > 0 ? o->width : 100;
    const bool color = o->color;
    /* A cell a token while that fits the width and a page; pooled beyond. */
    bool pooled = r->lazy || s->n_k > width - 20 || s->n_q > 400;
    char title[256];
    head_title(r, c, layer, h, title, sizeof title);
    /* room for the title, rotated labels, the legend and the lines of text
     * a narrow width breaks */
    int gh = (pooled ? 200 : s->n_q) + 30 + put_title(NULL, width, title) + 2 * 160 / width;
    Grid g = {0};
    int err = grid_init(&g, width, gh);
    if (!err) {
        int top = put_title(&g, width, title);
        err = pooled ? text_pooled(&g, r, layer, h, color, width, top)
                     : text_cells(&g, r, layer, h, o, width, top);
    }
    if (!err)
        err = grid_write(&g, f, color) == 0 && fputc('\n', f) != EOF ? AV_OK : AV_ERR_IO;
    grid_free(&g);
    return err;
}

/* A CSV field, quoted when it holds a comma, quote or line break (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void export_csv(FILE *f, const ModelResult *r, int layer, int h0, int h1)
{
    const AttnShape *s = &r->shape;
    const TokenList *keys = model_key_tokens(r);
    fputs("head,query_index,query,key_index,key,weight,masked\n", f);
    for (int h = h0; h < h1; h++) {
        const float *P_h = model_head_P(r, layer, h);
        for (int i = 0; i < s->n_q; i++)
            for (int j = 0; j < s->n_k; j++) {
                fprintf(f, "%d,%d,", h + 1, i);
                csv_field(f, r->tokens.tok[i].str);
                fprintf(f, ",%d,", j);
                csv_field(f, keys->tok[j].str);
                fprintf(f, ",%.9g,%d\n", (double)P_h[(size_t)i * s->n_k + j],
                        j >= attention_visible_keys(s, i));
            }
    }
}

void export_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_tokens(FILE *f, const char *key, const TokenList *t)
{
    fprintf(f, "  \"%s\": [", key);
    for (int i = 0; i < t->n; i++) {
        fputs(i ? ", " : "", f);
        export_json_string(f, t->tok[i].str);
    }
    fputs("],\n", f);
}

static void export_json(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h0,
                        int h1)
{
    const AttnShape *s = &r->shape;
    fputs("{\n", f);
    json_tokens(f, "tokens", &r->tokens);
    if (r->cross_tokens.n)
        json_tokens(f, "key_tokens", &r->cross_tokens);
    if (c->preset == PRESET_IMPORTED) {
        fprintf(f,
                "  \"config\": {\"imported\": true, \"heads\": %d, \"causal\": %s, "
                "\"layers\": %d, \"layer\": %d},\n",
                c->H, c->causal ? "true" : "false", r->L, layer + 1);
    } else if (c->about) { /* no seed, and its own positions: what it is */
        fputs("  \"config\": {\"model\": ", f);
        export_json_string(f, c->about);
        fprintf(f,
                ", \"heads\": %d, \"d_model\": %d, \"d_k\": %d, \"causal\": %s, "
                "\"scale\": %s, \"layers\": %d, \"layer\": %d},\n",
                c->H, c->d_model, c->d_model / c->H, c->causal ? "true" : "false",
                c->scale ? "true" : "false", r->L, layer + 1);
    } else {
        fprintf(f,
                "  \"config\": {\"heads\": %d, \"d_model\": %d, \"d_k\": %d, \"seed\": %llu, "
                "\"causal\": %s, \"pe\": %s, \"scale\": %s, \"layers\": %d, \"layer\": %d},\n",
                c->H, c->d_model, c->d_model / c->H, (unsigned long long)c->seed,
                c->causal ? "true" : "false", c->pe ? "true" : "false", c->scale ? "true" : "false",
                r->L, layer + 1);
    }
    if (c->temperature != 1.0f) /* before "heads": a key of the top-level object */
        fprintf(f, "  \"temperature\": %g,\n", (double)c->temperature);
    fputs("  \"heads\": [\n", f);
    for (int h = h0; h < h1; h++) {
        const float *P_h = model_head_P(r, layer, h);
        HeadStats st = head_stats(r, layer, h);
        fprintf(f, "    {\"head\": %d, \"label\": ", h + 1);
        export_json_string(f, model_head_label(c, layer, h));
        fprintf(f, ", \"entropy_bits\": %.6g, \"mean_max_weight\": %.6g, \"weights\": [\n",
                st.entropy, st.top);
        for (int i = 0; i < s->n_q; i++) {
            fputs("      [", f);
            for (int j = 0; j < s->n_k; j++)
                fprintf(f, "%s%.9g", j ? ", " : "", (double)P_h[(size_t)i * s->n_k + j]);
            fprintf(f, "]%s\n", i + 1 < s->n_q ? "," : "");
        }
        fprintf(f, "    ]}%s\n", h + 1 < h1 ? "," : "");
    }
    fputs("  ]\n}\n", f);
}

/* A Markdown table cell: pipes escaped so a token cannot break the table. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '\\' || *s == '`' || *s == '*' || *s == '_')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static void export_md(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h0,
                      int h1)
{
    const AttnShape *s = &r->shape;
    const TokenList *keys = model_key_tokens(r);
    char title[256];
    for (int h = h0; h < h1; h++) {
        const float *P_h = model_head_P(r, layer, h);
        head_title(r, c, layer, h, title, sizeof title);
        fprintf(f, "### %s\n\n| query \\ key |", title);
        for (int j = 0; j < s->n_k; j++) {
            fputc(' ', f);
            md_cell(f, keys->tok[j].str);
            fputs(" |", f);
        }
        fputs("\n|---|", f);
        for (int j = 0; j < s->n_k; j++)
            fputs("---:|", f);
        for (int i = 0; i < s->n_q; i++) {
            fputs("\n| ", f);
            md_cell(f, r->tokens.tok[i].str);
            fputs(" |", f);
            for (int j = 0; j < s->n_k; j++) {
                if (j >= attention_visible_keys(s, i))
                    fputs(" masked |", f);
                else
                    fprintf(f, " %.1f%% |", 100.0 * P_h[(size_t)i * s->n_k + j]);
            }
        }
        fputs("\n\n", f);
    }
}

/* The sentence the heatmaps belong to (and the second one under
 * cross-attention), tokens numbered as on the screen, in lines of width
 * columns broken between tokens, the lines after the first indented. */
static int text_sentences(FILE *f, const ModelResult *r, int width)
{
    const TokenList *t[2] = {&r->tokens, r->cross_tokens.n ? &r->cross_tokens : NULL};
    int err = AV_OK;
    for (int k = 0; k < 2 && t[k] && !err; k++) {
        const char *lead = k ? "Keys and values:" : "Sentence:";
        const char **pieces = malloc(sizeof *pieces * ((size_t)t[k]->n + 3));
        size_t bytes = 0;
        for (int i = 0; i < t[k]->n; i++)
            bytes += strlen(t[k]->tok[i].str) + 8;
        char *buf = malloc(bytes + 1), *p = buf, lb[24];
        Grid g = {0};
        err = pieces && buf ? AV_OK : AV_ERR_NOMEM;
        if (!err) {
            int n = split(strcpy(lb, lead), false, pieces, 3);
            for (int i = 0; i < t[k]->n; i++) {
                pieces[n++] = p;
                p += sprintf(p, "%d:%s", i + 1, t[k]->tok[i].str) + 1;
            }
            /* under the first token, while that leaves room */
            int in = (int)strlen(lead) + 1 <= width / 3 ? (int)strlen(lead) + 1 : 2;
            err = grid_init(&g, width, grid_wrap(NULL, 0, 0, width, in, pieces, n, STYLE_TEXT));
            if (!err) {
                grid_wrap(&g, 0, 0, width, in, pieces, n, STYLE_TEXT);
                err = grid_write(&g, f, false) ? AV_ERR_IO : AV_OK;
            }
        }
        grid_free(&g);
        free(pieces), free(buf);
    }
    return err ? err : fputc('\n', f) == EOF ? AV_ERR_IO : AV_OK;
}

/* The same for Markdown, the tokens escaped. */
static void md_sentences(FILE *f, const ModelResult *r)
{
    const TokenList *t[2] = {&r->tokens, r->cross_tokens.n ? &r->cross_tokens : NULL};
    for (int k = 0; k < 2 && t[k]; k++) {
        fputs(k ? "Keys and values: " : "Sentence: ", f);
        for (int i = 0; i < t[k]->n; i++) {
            fprintf(f, "%s%d:", i ? " " : "", i + 1);
            md_cell(f, t[k]->tok[i].str);
        }
        fputs("\n\n", f);
    }
}

/* Heads h0 .. h1-1 of layer as one picture: one head, or small multiples. */
static int export_svg(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h0,
                      int h1, const SvgOptions *so)
{
    SvgPanel p[AV_MAX_HEADS];
    for (int h = h0; h < h1; h++)
        p[h - h0] = (SvgPanel){.r = r, .layer = layer, .head = h};
    return svg_write(f, c, p, h1 - h0, so);
}

int export_write(FILE *f, const ModelResult *r, const ModelConfig *c, const ExportOptions *o)
{
    int h0 = o->head < 0 ? 0 : o->head, h1 = o->head < 0 ? c->H : o->head + 1;
    int err = AV_OK;
    /* Every weight of a text too long to keep them is more than a file should hold. */
    if (r->lazy && o->format != EXPORT_TEXT && o->format != EXPORT_TRACE &&
        o->format != EXPORT_SVG && o->format != EXPORT_HTML)
        return AV_ERR_TOO_LARGE;
    SvgOptions so = {.mono = o->mono, .source = o->source};
    switch (o->format) {
    case EXPORT_TEXT:
        if (o->sentence)
            err = text_sentences(f, r, o->width > 0 ? o->width : 100);
        for (int h = h0; h < h1 && !err; h++)
            err = export_text_head(f, r, c, h, o);
        break;
    case EXPORT_CSV: export_csv(f, r, o->layer, h0, h1); break;
    case EXPORT_JSON: export_json(f, r, c, o->layer, h0, h1); break;
    case EXPORT_MD:
        if (o->sentence)
            md_sentences(f, r);
        export_md(f, r, c, o->layer, h0, h1);
        break;
    case EXPORT_TRACE:
        for (int h = h0; h < h1 && !err; h++)
            err = trace_write(f, r, c, o->layer, h, o->token);
        break;
    case EXPORT_PIPELINE:
        for (int h = h0; h < h1 && !err; h++)
            err = pipeline_write(f, r, c, o->layer, h, o->token, o->color, o->width);
        break;
    case EXPORT_SVG: err = export_svg(f, r, c, o->layer, h0, h1, &so); break;
    case EXPORT_HTML: err = html_write(f, r, c, o->layer, h0, &so); break;
    }
    if (!err && (fflush(f) != 0 || ferror(f)))
        err = AV_ERR_IO;
    return err;
}
