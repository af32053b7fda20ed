/* html.c - the self-contained HTML page: a header, the focused head as
 * inline SVG for readers without JavaScript, the data as JSON in a script
 * element, and the page's CSS and JavaScript (generated from assets/export/).
 */
#include "render/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "render/grid.h"
#include "render/svg.h"

static const char view_css[] =
#include "export_view_css.inc"
    ;
static const char view_js[] =
#include "export_view_js.inc"
    ;

uint16_t html_half(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    uint16_t sign = (uint16_t)(b >> 16 & 0x8000u);
    if (isnan(x))
        return sign | 0x7e00u;
    float a = fabsf(x);
    if (a >= 65520.0f) /* rounds past the largest half, 65504 */
        return sign | 0x7c00u;
    if (a < 0x1p-14f) /* subnormal: a multiple of 2^-24, rounded to even */
        return sign | (uint16_t)nearbyintf(a * 0x1p24f);
    int e;
    float m = frexpf(a, &e);                           /* a = m 2^e, m in [0.5, 1) */
    uint32_t mant = (uint32_t)nearbyintf(m * 2048.0f); /* 1024 .. 2048 */
    if (mant == 2048)
        mant = 1024, e++;
    return sign | (uint16_t)((uint32_t)(e + 14) << 10 | (mant - 1024));
}

void html_base64(FILE *f, const unsigned char *p, size_t n)
{
    static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t k = 0; k < n; k += 3) {
        uint32_t v = (uint32_t)p[k] << 16 | (k + 1 < n ? (uint32_t)p[k + 1] << 8 : 0) |
                     (k + 2 < n ? p[k + 2] : 0);
        char out[4] = {al[v >> 18 & 63], al[v >> 12 & 63], k + 1 < n ? al[v >> 6 & 63] : '=',
                       k + 2 < n ? al[v & 63] : '='};
        fwrite(out, 1, 4, f);
    }
}

/* A JSON string safe inside a <script> element: < > & as \u escapes, bytes
 * that are not UTF-8 as U+FFFD. */
static void json_str(FILE *f, const char *s)
{
    size_t len = strlen(s);
    fputc('"', f);
    while (len > 0) {
        unsigned cp;
        int k = utf8_decode(s, len, &cp);
        if (k == 0)
            cp = 0xFFFD, k = 1;
        if (cp == '"' || cp == '\\')
            fprintf(f, "\\%c", (char)cp);
        else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029)
            fprintf(f, "\\u%04x", cp);
        else {
            char buf[4];
            int nb = utf8_encode(cp, buf);
            fwrite(buf, 1, (size_t)nb, f);
        }
        s += k, len -= (size_t)k;
    }
    fputc('"', f);
}

static void json_labels(FILE *f, const char *key, const char *const *lab, int n)
{
    fprintf(f, "\"%s\":[", key);
    for (int k = 0; k < n; k++) {
        fputs(k ? "," : "", f);
        json_str(f, lab[k]);
    }
    fputs("],\n", f);
}

/* The cells of every head, layer by layer, as uint16 of the visible cells
 * (vis[i] of row i), and the raw scores as halves when scores is not NULL.
 * Returns AV_OK or AV_ERR_NOMEM. */
static int pack(const ModelResult *r, const SvgMatrix *m0, const int *vis, unsigned char *w,
                unsigned char *sc)
{
    const AttnShape *s = &r->shape;
    size_t o = 0;
    for (int l = 0; l < r->L; l++)
        for (int h = 0; h < s->H; h++) {
            SvgMatrix m;
            int err = svg_matrix(r, l, h, &m);
            if (err)
                return err;
            const float *S = sc ? r->layer[l].ab.S + (size_t)h * s->n_q * s->n_k : NULL;
            for (int i = 0; i < m0->rows; i++)
                for (int j = 0; j < vis[i]; j++, o += 2) {
                    float p = m.P[(size_t)i * m.cols + j];
                    unsigned v =
                        p < 0.0f ? HTML_MASKED : (unsigned)lrint(fmin(p, 1.0) * HTML_WEIGHT_SCALE);
                    w[o] = (unsigned char)(v & 255), w[o + 1] = (unsigned char)(v >> 8);
                    if (S) {
                        uint16_t hv = html_half(S[(size_t)i * s->n_k + j]);
                        sc[o] = (unsigned char)(hv & 255), sc[o + 1] = (unsigned char)(hv >> 8);
                    }
                }
            svg_matrix_free(&m);
            model_release_layer(r, l);
        }
    return AV_OK;
}

/* Why a cell shows no raw score, or NULL when the scores are in the page. */
static const char *score_note(const ModelResult *r, const SvgMatrix *m)
{
    if (r->src)
        return "imported attention has weights only, no raw scores";
    if (m->pooled)
        return "a long text is pooled: its cells have no single raw score";
    for (int l = 0; l < r->L; l++)
        if (!r->layer[l].ab.S)
            return "the raw scores were not kept for this result";
    return NULL;
}

static void data_json(FILE *f, const ModelResult *r, const ModelConfig *c, const SvgMatrix *m,
                      const int *vis, const char *note, int layer, int head, const SvgOptions *o)
{
    char buf[512];
    fprintf(f,
            "{\"version\":1,\"L\":%d,\"H\":%d,\"rows\":%d,\"cols\":%d,\"pooled\":%s,"
            "\"causal\":%s,\"mono\":%s,\"numberRows\":%s,\"scale\":%.1f,\"masked\":%u,\n",
            r->L, c->H, m->rows, m->cols, m->pooled ? "true" : "false",
            r->shape.causal ? "true" : "false", o->mono ? "true" : "false",
            m->pooled ? "false" : "true", HTML_WEIGHT_SCALE, HTML_MASKED);
    fprintf(f, "\"tokens\":%d,\"focus\":{\"layer\":%d,\"head\":%d},\n", r->shape.n_q, layer, head);
    json_labels(f, "rowLabels", m->row_labels, m->rows);
    json_labels(f, "colLabels", m->col_labels, m->cols);
    fputs("\"headLabels\":[", f);
    for (int l = 0; l < r->L; l++) {
        fputs(l ? ",[" : "[", f);
        for (int h = 0; h < c->H; h++) {
            fputs(h ? "," : "", f);
            json_str(f, model_head_label(c, l, h));
        }
        fputs("]", f);
    }
    fputs("],\n\"vis\":[", f);
    for (int i = 0; i < m->rows; i++)
        fprintf(f, "%s%d", i ? "," : "", vis[i]);
    fputs("],\n\"ramp\":[", f);
    for (int k = 0; k < GRID_LEVELS; k++)
        fprintf(f, "%s\"#%06x\"", k ? "," : "", (unsigned)svg_ramp_rgb(k, o->mono));
    fprintf(f, "],\"maskFill\":\"%s\",\n", o->mono ? "#ffffff" : "#303030");
    svg_settings(r, c, o->source, buf, sizeof buf);
    fputs("\"settings\":", f);
    json_str(f, buf);
    /* what a visible cell's raw score is; a masked cell has none (its
     * score is -inf before softmax) and the page says "masked" only there */
    fprintf(f, ",\n\"scoreKind\":\"%s\",\n\"scoreNote\":",
            c->scale ? "Q\xc2\xb7K scaled by 1/\xe2\x88\x9a"
                       "d_k, before softmax"
                     : "Q\xc2\xb7K not scaled, before softmax");
    if (note)
        json_str(f, note);
    else
        fputs("null", f);
}

static void header(FILE *f, const ModelResult *r, const ModelConfig *c, const SvgOptions *o)
{
    char buf[512];
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>attnviz: ",
          f);
    if (r->text) /* the text as typed */
        svg_one_line(f, r->text, 80);
    for (int i = 0; !r->text && i < r->tokens.n && i < 12; i++) {
        fputs(i ? " " : "", f);
        svg_escape(f, r->tokens.tok[i].str, 20);
    }
    const TokenList *keys = r->cross_tokens.n ? &r->cross_tokens : NULL;
    fprintf(f,
            "%s</title>\n<style>\n%s</style>\n</head>\n<body>\n<header>\n"
            "<h1>attnviz: %sattention of every layer and head</h1>\n<p id=\"sentence\">%s",
            !r->text && r->tokens.n > 12 ? " \xe2\x80\xa6" : "", view_css, keys ? "cross-" : "",
            keys ? "<span class=\"role\">Queries:</span> " : "");
    for (int i = 0; i < r->tokens.n; i++) {
        /* view.js makes each chip select its token's row */
        fprintf(f, "%s<span class=\"tok\" data-token=\"%d\">", i ? " " : "", i + 1);
        svg_escape(f, r->tokens.tok[i].str, 0);
        fputs("</span>", f);
    }
    fputs("</p>\n", f);
    if (keys) { /* the second sentence, whose tokens are the columns */
        fputs("<p id=\"keys\"><span class=\"role\">Keys and values:</span> ", f);
        if (r->cross_text)
            svg_escape(f, r->cross_text, 0);
        for (int j = 0; !r->cross_text && j < keys->n; j++) {
            fputs(j ? " " : "", f);
            svg_escape(f, keys->tok[j].str, 0);
        }
        fputs("</p>\n", f);
    }
    svg_settings(r, c, o->source, buf, sizeof buf);
    fputs("<p id=\"settings\">", f);
    svg_escape(f, buf, 0);
    fprintf(f, "; %d layer%s of %d head%s</p>\n</header>\n", r->L, r->L == 1 ? "" : "s", c->H,
            c->H == 1 ? "" : "s");
}

int html_write(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int head,
               const SvgOptions *o)
{
    SvgMatrix m;
    int err = svg_matrix(r, layer, head, &m);
    if (err)
        return err;
    int *vis = malloc(sizeof *vis * (size_t)m.rows);
    long cells = 0;
    for (int i = 0; vis && i < m.rows; i++) {
        AttnShape s = {.n_q = m.rows, .n_k = m.cols, .causal = !m.pooled && m.causal};
        vis[i] = attention_visible_keys(&s, i);
        cells += vis[i];
    }
    const char *note = score_note(r, &m);
    size_t bytes = (size_t)cells * 2 * (size_t)r->L * (size_t)c->H;
    if (!note && (double)bytes * 2 * 4 / 3 > HTML_DATA_BUDGET)
        note = "raw scores left out to keep the page small (--dump writes them)";
    unsigned char *w = malloc(bytes ? bytes : 1), *sc = note ? NULL : malloc(bytes ? bytes : 1);
    if (!vis || !w || (!note && !sc))
        err = AV_ERR_NOMEM;
    if (!err)
        err = pack(r, &m, vis, w, sc);
    if (!err) {
        header(f, r, c, o);
        fputs("<noscript><p>JavaScript is off: the focused head alone is shown.</p></noscript>\n"
              "<div id=\"static\">\n",
              f);
        SvgPanel p = {.r = r, .layer = layer, .head = head};
        SvgOptions so = *o;
        so.inline_svg = true, so.id = "s";
        err = svg_write(f, c, &p, 1, &so);
        fputs("</div>\n<div id=\"app\" hidden></div>\n"
              "<script id=\"attnviz-data\" type=\"application/json\">\n",
              f);
        data_json(f, r, c, &m, vis, note, layer, head, o);
        fputs(",\n\"weights\":\"", f);
        html_base64(f, w, bytes);
        fputs("\",\n\"scores\":", f);
        if (sc) {
            fputc('"', f);
            html_base64(f, sc, bytes);
            fputc('"', f);
        } else {
            fputs("null", f);
        }
        fprintf(f, "}\n</script>\n<script>\n%s</script>\n</body>\n</html>\n", view_js);
    }
    free(vis), free(w), free(sc);
    svg_matrix_free(&m);
    if (!err && (fflush(f) != 0 || ferror(f)))
        err = AV_ERR_IO;
    return err;
}
