/* export.c - a model result as text heatmaps, CSV, JSON or Markdown.
 *
 * The text export renders each head with heatmap_draw, the renderer of the
 * interface, so what is exported is what is seen. The number formats print
 * every weight with nine significant digits, enough to round-trip a float32.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "grid.h"
#include "heatmap.h"

int export_parse_format(const char *s, ExportFormat *f)
{
    static const char *const names[] = {"text", "csv", "json", "md", "trace"};
    for (int k = 0; k < 5; k++)
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

/* The key tokens: the cross sentence's, or the query sentence's own. */
static const TokenList *key_tokens(const ModelResult *r)
{
    return r->cross_tokens.n ? &r->cross_tokens : &r->tokens;
}

static const float *head_weights(const ModelResult *r, int layer, int h)
{
    return r->layer[layer].ab.P + (size_t)h * r->shape.n_q * r->shape.n_k;
}

static void head_title(const ModelResult *r, const ModelConfig *c, int layer, int h, char *buf,
                       size_t size)
{
    int n = snprintf(buf, size, "Head %d of %d: %s", h + 1, c->H, model_head_label(c, layer, h));
    if (r->L > 1)
        n += snprintf(buf + n, size - n, ", layer %d of %d", layer + 1, r->L);
    snprintf(buf + n, size - n, "  (d_model %d, d_k %d, seed %llu, mask %s, PE %s, %s)",
             c->d_model, c->d_model / c->H, (unsigned long long)c->seed,
             c->causal ? "causal" : "off", c->pe ? "on" : "off",
             c->scale ? "scaled by 1/sqrt(d_k)" : "not scaled");
}

int export_text_head(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h,
                     bool color, int width)
{
    const AttnShape *s = &r->shape;
    const char **rows = malloc((size_t)s->n_q * sizeof *rows);
    const char **cols = malloc((size_t)s->n_k * sizeof *cols);
    Grid g = {0};
    int err = AV_ERR_NOMEM;
    if (!rows || !cols)
        goto done;
    HeatmapSpec sp = {
        .P = head_weights(r, layer, h), .n_q = s->n_q, .n_k = s->n_k,
        .row_labels = token_labels(&r->tokens, rows),
        .col_labels = token_labels(key_tokens(r), cols), .causal = s->causal,
        .mode = color ? HEATMAP_COLOR : HEATMAP_GLYPH, .sel_row = -1, .sel_col = -1,
        .label_w = 12, .number_rows = true,
    };
    width = width > 0 ? width : 100;
    int avail = width - 20;
    sp.cell_w = avail / s->n_k > 4 ? 4 : avail / s->n_k < 1 ? 1 : avail / s->n_k;
    int gw = width > 20 + s->n_k * sp.cell_w ? width : 20 + s->n_k * sp.cell_w;
    int gh = s->n_q + 30; /* room for rotated labels (a third of the height) */
    if (grid_init(&g, gw, gh))
        goto done;
    char title[256];
    head_title(r, c, layer, h, title, sizeof title);
    grid_puts(&g, 0, 0, title, gw, STYLE_TITLE);
    HeatmapLayout lay;
    int used = heatmap_draw(&g, 0, 2, gw, gh - 5, &sp, &lay);
    heatmap_legend(&g, 0, 2 + used + 1, gw, sp.mode, s->causal);
    err = grid_write(&g, f, color) == 0 && fputc('\n', f) != EOF ? AV_OK : AV_ERR_IO;
done:
    grid_free(&g);
    free(rows);
    free(cols);
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
    const TokenList *keys = key_tokens(r);
    fputs("head,query_index,query,key_index,key,weight,masked\n", f);
    for (int h = h0; h < h1; h++) {
        const float *P_h = head_weights(r, layer, h);
        for (int i = 0; i < s->n_q; i++)
            for (int j = 0; j < s->n_k; j++) {
                fprintf(f, "%d,%d,", h + 1, i);
                csv_field(f, r->tokens.tok[i].str);
                fprintf(f, ",%d,", j);
                csv_field(f, keys->tok[j].str);
                fprintf(f, ",%.9g,%d\n", (double)P_h[(size_t)i * s->n_k + j],
                        s->causal && j > i);
            }
    }
}

static void json_string(FILE *f, const char *s)
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
        json_string(f, t->tok[i].str);
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
    fprintf(f, "  \"config\": {\"heads\": %d, \"d_model\": %d, \"d_k\": %d, \"seed\": %llu, "
               "\"causal\": %s, \"pe\": %s, \"scale\": %s, \"layers\": %d, \"layer\": %d},\n",
            c->H, c->d_model, c->d_model / c->H, (unsigned long long)c->seed,
            c->causal ? "true" : "false", c->pe ? "true" : "false",
            c->scale ? "true" : "false", r->L, layer + 1);
    fputs("  \"heads\": [\n", f);
    for (int h = h0; h < h1; h++) {
        const float *P_h = head_weights(r, layer, h);
        fprintf(f, "    {\"head\": %d, \"weights\": [\n", h + 1);
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
    const TokenList *keys = key_tokens(r);
    char title[256];
    for (int h = h0; h < h1; h++) {
        const float *P_h = head_weights(r, layer, h);
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
                if (s->causal && j > i)
                    fputs(" masked |", f);
                else
                    fprintf(f, " %.1f%% |", 100.0 * P_h[(size_t)i * s->n_k + j]);
            }
        }
        fputs("\n\n", f);
    }
}

int export_write(FILE *f, const ModelResult *r, const ModelConfig *c, const ExportOptions *o)
{
    int h0 = o->head < 0 ? 0 : o->head, h1 = o->head < 0 ? c->H : o->head + 1;
    int err = AV_OK;
    switch (o->format) {
    case EXPORT_TEXT:
        for (int h = h0; h < h1 && !err; h++)
            err = export_text_head(f, r, c, o->layer, h, o->color, o->width);
        break;
    case EXPORT_CSV: export_csv(f, r, o->layer, h0, h1); break;
    case EXPORT_JSON: export_json(f, r, c, o->layer, h0, h1); break;
    case EXPORT_MD: export_md(f, r, c, o->layer, h0, h1); break;
    case EXPORT_TRACE:
        for (int h = h0; h < h1 && !err; h++)
            err = export_trace(f, r, c, o->layer, h, o->token);
        break;
    }
    if (!err && (fflush(f) != 0 || ferror(f)))
        err = AV_ERR_IO;
    return err;
}
