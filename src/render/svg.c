/* svg.c - heatmaps as SVG 1.1: title, labels, cells, colour bar (the
 * words of them, escaped: svgtext.c).
 *
 * The picture is laid out in user units that are pixels at 100%: a cell is
 * 4 to 40 units square, token labels are text beside and above it (rotated
 * to read upwards when wider than a cell), values are written in cells of
 * 24 units or more. Masked cells are filled with a hatching <pattern>
 * defined in the picture, the screen's dark cell with its lighter cross.
 */
#include "render/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/grid.h"
#include "render/heatmap.h"

#define LABEL_CHARS 12 /* code points of a token label before the ellipsis */
#define CAPTION_H 20   /* a panel's caption line */
#define GAP 24         /* between panels */
#define MARGIN 16
#define BAR_STEP 18 /* width of one level of the colour bar */
#define FONT "DejaVu Sans, Verdana, Arial, sans-serif"

/* Sixteen colours of rising lightness (CIELAB L* 14 to 96 in even steps,
 * hue turning from blue through teal and green to yellow), made for attnviz:
 * the screen's ramp with its lightness no longer stalling in the middle. */
static const uint32_t ramp_rgb[GRID_LEVELS] = {
    0x0e1e57, 0x002f6c, 0x00407e, 0x00518d, 0x006198, 0x00719e, 0x0082a0, 0x00919e,
    0x00a59f, 0x00b593, 0x00c483, 0x00d270, 0x5fdf5c, 0x9aea48, 0xd0f335, 0xfff92a,
};

uint32_t svg_ramp_rgb(int level, bool mono)
{
    level = level < 0 ? 0 : level >= GRID_LEVELS ? GRID_LEVELS - 1 : level;
    if (!mono)
        return ramp_rgb[level];
    unsigned g = 255u - (unsigned)level * 15u; /* white .. #1e1e1e */
    return g << 16 | g << 8 | g;
}

uint32_t svg_ramp_text_rgb(int level, bool mono)
{
    bool dark = mono ? level >= GRID_LEVELS / 2 : level < GRID_LEVELS / 2;
    return dark ? 0xffffffu : 0x000000u;
}

int svg_matrix(const ModelResult *r, int layer, int h, SvgMatrix *m)
{
    const AttnShape *s = &r->shape;
    const TokenList *q = &r->tokens, *k = model_key_tokens(r);
    memset(m, 0, sizeof *m);
    m->pooled = r->lazy || s->n_q > SVG_POOL_CELLS || s->n_k > SVG_POOL_CELLS;
    m->rows = m->pooled && s->n_q > SVG_POOL_CELLS ? SVG_POOL_CELLS : s->n_q;
    m->cols = m->pooled && s->n_k > SVG_POOL_CELLS ? SVG_POOL_CELLS : s->n_k;
    m->causal = s->causal;
    m->row_labels = malloc(sizeof *m->row_labels * (size_t)m->rows);
    m->col_labels = malloc(sizeof *m->col_labels * (size_t)m->cols);
    if (m->pooled) {
        m->own = malloc(sizeof *m->own * (size_t)m->rows * m->cols);
        m->labbuf = malloc((size_t)24 * (m->rows + m->cols));
    }
    if (!m->row_labels || !m->col_labels || (m->pooled && (!m->own || !m->labbuf))) {
        svg_matrix_free(m);
        return AV_ERR_NOMEM;
    }
    if (!m->pooled) {
        m->P = model_head_P(r, layer, h);
        for (int i = 0; i < m->rows; i++)
            m->row_labels[i] = q->tok[i].str;
        for (int j = 0; j < m->cols; j++)
            m->col_labels[j] = k->tok[j].str;
        return AV_OK;
    }
    int err =
        model_pool_head(r, layer, h, 0, s->n_q, 0, s->n_k, m->rows, m->cols, POOL_MAX, m->own);
    if (err) {
        svg_matrix_free(m);
        return err;
    }
    m->P = m->own;
    for (int c = 0; c < m->rows + m->cols; c++) { /* "a-b": 1-based token ranges */
        bool row = c < m->rows;
        int n = row ? s->n_q : s->n_k, cells = row ? m->rows : m->cols, x = row ? c : c - m->rows;
        int a = (int)((long)x * n / cells) + 1, b = (int)((long)(x + 1) * n / cells);
        char *lab = m->labbuf + 24 * c;
        snprintf(lab, 24, a == b ? "%d" : "%d-%d", a, b);
        if (row)
            m->row_labels[x] = lab;
        else
            m->col_labels[x] = lab;
    }
    return AV_OK;
}

void svg_matrix_free(SvgMatrix *m)
{
    free(m->own), free(m->labbuf);
    free((void *)m->row_labels), free((void *)m->col_labels);
    memset(m, 0, sizeof *m);
}

bool svg_matrix_masked(const SvgMatrix *m, int i, int j)
{
    if (m->pooled)
        return m->P[(size_t)i * m->cols + j] < 0.0f;
    AttnShape s = {.n_q = m->rows, .n_k = m->cols, .causal = m->causal};
    return j >= attention_visible_keys(&s, i);
}

/* Whether the panels' masks differ (the interface's b: off beside causal). */
static bool masks_differ(const SvgPanel *p, int n)
{
    for (int k = 1; k < n; k++)
        if (p[k].r->shape.causal != p[0].r->shape.causal)
            return true;
    return false;
}

/* Whether every panel shows the same head of the same layer. */
static bool one_head(const SvgPanel *p, int n)
{
    for (int k = 1; k < n; k++)
        if (p[k].layer != p[0].layer || p[k].head != p[0].head)
            return false;
    return true;
}

/* The geometry of one panel. */
typedef struct {
    int cs, fs;       /* cell size, label font size */
    int row_w, col_h; /* room of the row and column labels */
    int w, h;
    bool labels, rot, values;
} Geom;

/* Estimated width in units of label k at font size fs (LABEL_CHARS at most
 * and the row number first). */
static int label_units(const char *s, int fs, int number)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n <= LABEL_CHARS; p++)
        n += (*p & 0xC0) != 0x80;
    if (number > 0)
        n += grid_digits(number) + 1;
    return (int)(n * fs * 0.62) + 2;
}

static void geom(const SvgMatrix *m, int target, Geom *g)
{
    int n = m->rows > m->cols ? m->rows : m->cols;
    g->cs = target / n > 40 ? 40 : target / n < 4 ? 4 : target / n;
    g->labels = g->cs >= 8;
    g->fs = g->cs * 11 / 20 > 12 ? 12 : g->cs * 11 / 20 < 7 ? 7 : g->cs * 11 / 20;
    g->values = g->cs >= 24;
    int rw = 0, cw = 0;
    for (int i = 0; g->labels && i < m->rows; i++) {
        int w = label_units(m->row_labels[i], g->fs, m->pooled ? 0 : m->rows);
        rw = w > rw ? w : rw;
    }
    for (int j = 0; g->labels && j < m->cols; j++) {
        int w = label_units(m->col_labels[j], g->fs, 0);
        cw = w > cw ? w : cw;
    }
    g->rot = cw > g->cs - 2;
    g->row_w = g->labels ? rw + 6 : 0;
    g->col_h = !g->labels ? 4 : g->rot ? cw + 6 : g->fs + 8;
    g->w = g->row_w + g->cs * m->cols;
    g->h = CAPTION_H + g->col_h + g->cs * m->rows;
}

static void hex(FILE *f, uint32_t rgb)
{
    fprintf(f, "#%06x", (unsigned)rgb & 0xffffffu);
}

static void panel_labels(FILE *f, const SvgMatrix *m, const Geom *g, int x0, int y0)
{
    fprintf(f, "<g font-size=\"%d\" fill=\"#222\">\n", g->fs);
    for (int i = 0; i < m->rows; i++) {
        fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", x0 + g->row_w - 4,
                y0 + g->cs * (i + 0.5) + g->fs * 0.35);
        if (!m->pooled)
            fprintf(f, "%d ", i + 1);
        svg_escape(f, m->row_labels[i], LABEL_CHARS);
        fputs("</text>\n", f);
    }
    for (int j = 0; j < m->cols; j++) {
        double cx = x0 + g->row_w + g->cs * (j + 0.5);
        if (g->rot)
            fprintf(f, "<text transform=\"translate(%.1f %d) rotate(-90)\">", cx + g->fs * 0.35,
                    y0 - 4);
        else
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", cx, y0 - 4);
        svg_escape(f, m->col_labels[j], LABEL_CHARS);
        fputs("</text>\n", f);
    }
    fputs("</g>\n", f);
}

/* The cells of m with their top-left at (x, y). */
static void panel_cells(FILE *f, const SvgMatrix *m, const Geom *g, int x, int y, int k,
                        const SvgOptions *o, bool tips)
{
    const char *id = o->id ? o->id : "";
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++) {
            float w = m->P[(size_t)i * m->cols + j];
            bool masked = svg_matrix_masked(m, i, j);
            int level = heatmap_level(w), cx = x + g->cs * j, cy = y + g->cs * i;
            fprintf(f,
                    "<rect id=\"%sp%d-%d-%d\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"",
                    id, k, i, j, cx, cy, g->cs, g->cs);
            if (masked)
                fprintf(f, "url(#%shatch)", id);
            else
                hex(f, svg_ramp_rgb(level, o->mono));
            fputs(tips ? "\">" : "\"/>", f);
            if (tips) {
                fputs("<title>", f);
                svg_escape(f, m->row_labels[i], LABEL_CHARS);
                fputs(" \xe2\x86\x92 ", f); /* → */
                svg_escape(f, m->col_labels[j], LABEL_CHARS);
                if (masked)
                    fputs(": masked", f);
                else
                    fprintf(f, ": %.1f%%", 100.0 * w);
                fputs("</title></rect>", f);
            }
            if (!masked && g->values) {
                fprintf(f,
                        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"middle\" "
                        "fill=\"",
                        cx + g->cs * 0.5, cy + g->cs * 0.5 + g->cs * 0.11, g->cs * 3 / 10);
                hex(f, svg_ramp_text_rgb(level, o->mono));
                fprintf(f, "\">%.0f</text>", floor(100.0 * w + 0.5));
            }
            fputc('\n', f);
        }
}

static void panel(FILE *f, const SvgMatrix *m, const Geom *g, int x, int y, int k,
                  const char *caption, const SvgOptions *o, bool tips)
{
    fprintf(f,
            "<g id=\"%spanel%d\">\n<text x=\"%d\" y=\"%d\" font-size=\"13\" "
            "font-weight=\"bold\" fill=\"#222\">",
            o->id ? o->id : "", k, x, y + 14);
    svg_escape(f, caption, 80);
    fputs("</text>\n", f);
    int cy = y + CAPTION_H + g->col_h;
    if (g->labels)
        panel_labels(f, m, g, x, cy);
    panel_cells(f, m, g, x + g->row_w, cy, k, o, tips);
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
            "stroke=\"#888\" stroke-width=\"0.5\"/>\n</g>\n",
            x + g->row_w, cy, g->cs * m->cols, g->cs * m->rows);
}

/* What the hatching of the panels means, for the legend: NULL when no cell
 * is hatched (the mask off, or nothing above the diagonal); a pooled cell is
 * hatched when every pair it covers is masked. */
static const char *hatch_meaning(const SvgMatrix *m, int n)
{
    const char *what = NULL;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < m[k].rows; i++)
            for (int j = 0; j < m[k].cols; j++)
                if (svg_matrix_masked(&m[k], i, j)) {
                    if (m[k].pooled)
                        return "masked (causal mask): every pair the cell covers";
                    what = "masked (causal mask)";
                    break;
                }
    return what;
}

/* The colour bar at (x, y): sixteen levels, ticks at 0, 5, 25, 50 and 100%
 * where floor(16 sqrt(w)) puts them, and the masked swatch saying what the
 * hatching means (masked: hatch_meaning, NULL when nothing is hatched). */
static void colour_bar(FILE *f, int x, int y, const char *masked, const SvgOptions *o)
{
    static const double ticks[] = {0.0, 0.05, 0.25, 0.5, 1.0};
    fprintf(f,
            "<g id=\"%scolourbar\" font-size=\"11\" fill=\"#222\">\n<text x=\"%d\" y=\"%d\">"
            "attention weight (colour level floor(16 \xe2\x88\x9aw))</text>\n",
            o->id ? o->id : "", x, y + 10);
    for (int l = 0; l < GRID_LEVELS; l++) {
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\" fill=\"", x + l * BAR_STEP,
                y + 16, BAR_STEP);
        hex(f, svg_ramp_rgb(l, o->mono));
        fputs("\"/>\n", f);
    }
    for (int t = 0; t < 5; t++) {
        double tx = x + sqrt(ticks[t]) * GRID_LEVELS * BAR_STEP;
        fprintf(f,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#222\"/>"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g%%</text>\n",
                tx, y + 30, tx, y + 35, tx, y + 47, 100.0 * ticks[t]);
    }
    if (masked)
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"url(#%shatch)\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text>\n",
                x + GRID_LEVELS * BAR_STEP + 24, y + 16, o->id ? o->id : "",
                x + GRID_LEVELS * BAR_STEP + 44, y + 27, masked);
    fputs("</g>\n", f);
}

static void defs(FILE *f, const SvgOptions *o)
{
    fprintf(f,
            "<defs><pattern id=\"%shatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
            "height=\"6\"><rect width=\"6\" height=\"6\" fill=\"%s\"/><path d=\"M0 6L6 0M-1 "
            "1L1 -1M5 7L7 5M0 0L6 6M-1 5L1 7M5 -1L7 1\" stroke=\"#808080\" stroke-width=\"1\"/>"
            "</pattern></defs>\n",
            o->id ? o->id : "", o->mono ? "#ffffff" : "#303030");
}

/* The tokens of t joined by spaces, at most left bytes (a " …" after a cut):
 * the text of a result that has only its tokens. Returns the bytes used. */
static int token_line(FILE *f, const TokenList *t, int left)
{
    int i = 0, used = 0;
    for (; i < t->n && left - used > (int)strlen(t->tok[i].str); i++) {
        fputs(i ? " " : "", f);
        svg_escape(f, t->tok[i].str, 0);
        used += (int)strlen(t->tok[i].str) + 1;
    }
    if (i < t->n)
        fputs(" \xe2\x80\xa6", f);
    return used;
}

/* The sentence(s) of the picture as one title line: the text as typed
 * (the tokens are the axes), or the tokens when there is no text. */
static void sentence_line(FILE *f, const ModelResult *r, int left)
{
    const TokenList *t[2] = {&r->tokens, r->cross_tokens.n ? &r->cross_tokens : NULL};
    const char *text[2] = {r->text, r->cross_text};
    for (int k = 0; k < 2 && t[k]; k++) {
        fputs(k ? "  |  keys: " : "Sentence: ", f);
        left -= text[k] ? svg_one_line(f, text[k], left) : token_line(f, t[k], left);
    }
}

/* Whether r is drawn pooled (svg_matrix). */
static bool pooled(const ModelResult *r)
{
    return r->lazy || r->shape.n_q > SVG_POOL_CELLS || r->shape.n_k > SVG_POOL_CELLS;
}

/* Where the settings line s breaks to fit chars code points: the byte
 * after the last "; " that leaves the first part within chars, or 0 when
 * s fits (or has no such place). */
static size_t settings_break(const char *s, int chars)
{
    size_t at = 0;
    int cps = 0;
    for (size_t i = 0; s[i]; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            cps++;
        if (cps > chars)
            return at;
        if (s[i] == ';' && s[i + 1] == ' ')
            at = i + 2;
    }
    return 0;
}

/* The title: what is shown, the sentence, the settings (on two lines when
 * settings_break says so) and, for a long text, how it is pooled; chars:
 * code points that fit a line. */
static void title(FILE *f, const ModelConfig *c, const SvgPanel *p, int n, const SvgOptions *o,
                  const char *settings, int x, int y, int chars)
{
    const ModelResult *r = p[0].r;
    const size_t cut = settings_break(settings, chars);
    fprintf(f,
            "<g id=\"%stitle\" fill=\"#222\">\n<text x=\"%d\" y=\"%d\" font-size=\"16\" "
            "font-weight=\"bold\">",
            o->id ? o->id : "", x, y + 16);
    if (n == 1 || one_head(p, n)) { /* one head, or one head twice (b: the mask off and on) */
        if (c->heads_combined <= 0) /* a combining view: its label alone */
            fprintf(f, "Head %d of %d: ", p[0].head + 1, c->H);
        svg_escape(
            f, p[0].caption && n == 1 ? p[0].caption : model_head_label(c, p[0].layer, p[0].head),
            60);
        if (n > 1 && masks_differ(p, n))
            fprintf(f, ", mask %s and %s", p[0].r->shape.causal ? "causal" : "off",
                    p[0].r->shape.causal ? "off" : "causal");
        else if (n > 1)
            fputs(", side by side", f);
    } else if (p[0].r == p[n - 1].r && p[0].layer == p[n - 1].layer && n == c->H)
        fprintf(f, "All %d heads", n);
    else
        fprintf(f, "Side by side");
    fprintf(f, ", layer %d of %d</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">", p[0].layer + 1,
            r->L, x, y + 34);
    sentence_line(f, r, chars - 12);
    y += 50;
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">", x, y);
    if (cut) {
        char first[512];
        snprintf(first, sizeof first, "%.*s", (int)cut - 1, settings); /* up to the ';' */
        svg_escape(f, first, chars);
        fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">", x, y += 16);
    }
    svg_escape(f, settings + cut, chars);
    if (pooled(r))
        fprintf(f,
                "</text>\n<text x=\"%d\" y=\"%d\" font-size=\"12\">%d tokens pooled: a "
                "cell is the largest weight of the tokens it covers",
                x, y + 16, r->shape.n_q);
    fputs("</text>\n</g>\n", f);
}

int svg_write(FILE *f, const ModelConfig *c, const SvgPanel *p, int n, const SvgOptions *o)
{
    SvgMatrix *m = calloc((size_t)n, sizeof *m);
    Geom *g = calloc((size_t)n, sizeof *g);
    char settings[512];
    int err = m && g ? AV_OK : AV_ERR_NOMEM;
    for (int k = 0; k < n && !err; k++)
        err = svg_matrix(p[k].r, p[k].layer, p[k].head, &m[k]);
    if (!err) {
        /* one panel large; two side by side; more in a square-ish grid */
        int cols = n == 1 ? 1 : n == 2 ? 2 : (int)ceil(sqrt((double)n));
        int target = n == 1 ? 720 : n == 2 ? 420 : 260, pw = 0, ph = 0;
        for (int k = 0; k < n; k++) {
            geom(&m[k], target, &g[k]);
            pw = g[k].w > pw ? g[k].w : pw, ph = g[k].h > ph ? g[k].h : ph;
        }
        int W = 2 * MARGIN + cols * pw + (cols - 1) * GAP;
        W = W < 760 ? 760 : W;
        const int chars = (W - 2 * MARGIN) / 7;
        /* one settings line for panels whose masks differ: it says which is which */
        char mask[64] = "";
        if (masks_differ(p, n) && n == 2)
            snprintf(mask, sizeof mask, "%s (left), %s (right)",
                     p[0].r->shape.causal ? "causal" : "off",
                     p[1].r->shape.causal ? "causal" : "off");
        else if (masks_differ(p, n))
            snprintf(mask, sizeof mask, "as each panel says");
        svg_settings_mask(p[0].r, c, o->source, mask[0] ? mask : NULL, settings, sizeof settings);
        int rows = (n + cols - 1) / cols,
            top = MARGIN + (pooled(p[0].r) ? 78 : 62) + (settings_break(settings, chars) ? 16 : 0);
        int H = top + rows * ph + (rows - 1) * GAP + 70 + MARGIN;
        if (!o->inline_svg)
            fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
        fprintf(f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
                "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"%s\">\n",
                W, H, W, H, FONT);
        fputs("<desc>attnviz attention heatmap</desc>\n", f);
        defs(f, o);
        fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);
        title(f, c, p, n, o, settings, MARGIN, MARGIN, chars);
        char cap[160];
        for (int k = 0; k < n; k++) {
            const char *lab = model_head_label(c, p[k].layer, p[k].head);
            snprintf(cap, sizeof cap, "Head %d: %s", p[k].head + 1, lab);
            panel(f, &m[k], &g[k], MARGIN + (k % cols) * (pw + GAP), top + (k / cols) * (ph + GAP),
                  k, p[k].caption && n > 1 ? p[k].caption : cap, o, n <= 2 && !o->inline_svg);
        }
        colour_bar(f, MARGIN, top + rows * ph + (rows - 1) * GAP + 12, hatch_meaning(m, n), o);
        fputs("</svg>\n", f);
    }
    for (int k = 0; m && k < n; k++)
        svg_matrix_free(&m[k]);
    free(m), free(g);
    if (!err && (fflush(f) != 0 || ferror(f)))
        err = AV_ERR_IO;
    return err;
}
