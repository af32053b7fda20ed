/* view_panel.c - text panels over the middle of the screen: the calculation
 * trace of the selected query token in the focused head (trace_write's
 * text, the same as `--export trace`), and how each head was built (the
 * designed preset's help, or what random heads are). The text is made into a
 * memory file when what it shows changes, then scrolled with PgUp/PgDn.
 */
#include "view_panel.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/designed.h"
#include "io/fileio.h"
#include "render/trace.h"
#include "../term.h"
#include "../widgets.h"

/* Words of text written to f in lines of at most width columns, indented. */
static void wrap(FILE *f, const char *text, int width, const char *indent)
{
    int col = 0;
    while (*text) {
        size_t len = strcspn(text, " ");
        if (col > 0 && col + 1 + (int)len > width)
            fputc('\n', f), col = 0;
        if (col == 0)
            col = fprintf(f, "%s", indent);
        else
            fputc(' ', f), col++;
        col += fprintf(f, "%.*s", (int)len, text);
        text += len;
        text += strspn(text, " ");
    }
    fputc('\n', f);
}

/* Columns of the len bytes at s on the screen. */
static int span_width(const char *s, size_t len)
{
    char buf[256];
    if (len >= sizeof buf)
        return (int)len; /* never narrower than that on screen */
    memcpy(buf, s, len), buf[len] = '\0';
    return grid_text_width(buf);
}

/* Whether a line may break before the word at w (after the text before
 * it): after a vector's "]", a list's "," or a ")", before a sum's "+",
 * never before "=", so that "v[cat] = [...]" and "0.97 v[cat]" stay whole. */
static bool break_before(const char *line, size_t w)
{
    size_t e = w;
    while (e > 0 && line[e - 1] == ' ')
        e--;
    const char prev = e > 0 ? line[e - 1] : ' ';
    return line[w] != '=' && (line[w] == '+' || prev == ']' || prev == ',' || prev == ')');
}

/* One line of text written to f in lines of at most width columns, broken
 * at spaces (where two or more part two things, else where break_before
 * allows, when it can), so that a narrow screen shows every value (a
 * trace's v[...] beside its k[...]) instead of cutting it. A piece after a
 * break where two things part starts where the line does (v[...] under
 * k[...]); one that goes on with the same thing, 4 columns further in. */
static void wrap_line(FILE *f, const char *line, size_t len, int width)
{
    const int indent = (int)strspn(line, " ");
    size_t at = 0;
    bool parted = false; /* the last break was between two things */
    for (bool first = true; at < len; first = false) {
        const int lead = first ? 0 : parted ? indent : indent + 4;
        if (!first) {
            at += strspn(line + at, " ");
            fprintf(f, "%*s", lead, "");
        }
        int col = lead;
        size_t p = at, cut = len, gap = 0, good = 0, any = 0;
        while (p < len) {
            size_t w = p + strspn(line + p, " "), e = w;
            while (e < len && line[e] != ' ')
                e++;
            const int add = span_width(line + p, e - p);
            if (p > at && col + add > width) {
                cut = gap ? gap : good ? good : any ? any : p;
                parted = gap != 0;
                break;
            }
            if (p > at && w < len) {
                any = p;
                good = break_before(line, w) ? p : good;
                gap = w - p > 1 ? p : gap; /* two spaces or more part two things */
            }
            col += add, p = e;
        }
        fwrite(line + at, 1, (cut < len ? cut : len) - at, f);
        fputc('\n', f);
        at = cut;
    }
    if (len == 0)
        fputc('\n', f);
}

/* text's lines (len bytes) wrapped to width columns each (wrap_line). */
static void wrap_text(FILE *f, const char *text, size_t len, int width)
{
    for (size_t p = 0; p < len;) {
        const char *nl = memchr(text + p, '\n', len - p);
        const size_t end = nl ? (size_t)(nl - text) : len;
        wrap_line(f, text + p, end - p, width);
        p = end + 1;
    }
}

static void heads_text(const UiState *u, FILE *f, int width)
{
    const ModelConfig *c = &u->a.app.cfg;
    if (c->preset == PRESET_LOADED) {
        fprintf(f, "The %d heads come from --weights\n\n", c->H);
        wrap(f,
             "Layer 1's W_q, W_k, W_v and W_o were read from Wq.npy, Wk.npy, Wv.npy and "
             "Wo.npy, and X.npy, when present, replaced the toy embeddings. Deeper layers "
             "keep toy weights from the seed.",
             width, "  ");
        return;
    }
    if (c->preset == PRESET_TRAINED) {
        fprintf(f, "The %d x %d heads were trained (--model)\n\n", c->layers, c->H);
        wrap(f,
             "Each head is labelled by its best score on probe sequences when it passes "
             "0.5 (heads.txt, written by attnviz train), else \"mixed\".",
             width, "  ");
        for (int l = 0; l < c->layers; l++)
            for (int h = 0; h < c->H; h++)
                fprintf(f, "\nLayer %d head %d: %s\n", l + 1, h + 1, model_head_label(c, l, h));
        return;
    }
    if (c->preset != PRESET_DESIGNED) {
        fprintf(f, "The %d heads are random (seed %llu)\n\n", c->H, (unsigned long long)c->seed);
        wrap(f,
             "Their W_q, W_k and W_v have the spread the articles' MultiHeadAttention "
             "gives them, standard deviation sqrt(2/d_model), drawn uniformly rather than "
             "normally so that no libm call is involved and every machine draws the same "
             "numbers. Nothing was learnt: the patterns you see come from the toy "
             "embeddings and the positional encoding alone. Press P for the designed "
             "heads, built by hand so that each does one known thing.",
             width, "  ");
        return;
    }
    fputs("The designed heads (P: back to random weights)\n\n", f);
    wrap(f,
         "d_model 192, 6 heads of d_k 32. The embeddings are feature vectors from a toy "
         "lexicon (assets/lexicon.txt): word class, agreement and an identity code; "
         "dimensions 0-31 carry the positional encoding alone.",
         width, "  ");
    for (int h = 0; h < DESIGNED_HEADS; h++) {
        fprintf(f, "\nHead %d: %s\n", h + 1, designed_head_label(h));
        wrap(f, designed_head_help(h), width, "  ");
    }
}

/* Split the panel's text into lines. */
static void panel_lines(UiState *u)
{
    u->panel_n = 0;
    for (size_t p = 0; p < u->panel_len;) {
        if (u->panel_n >= u->panel_cap) {
            u->panel_cap = u->panel_cap ? 2 * u->panel_cap : 256;
            u->panel_lines = term_xrealloc(u->panel_lines, sizeof(int) * (size_t)u->panel_cap);
        }
        u->panel_lines[u->panel_n++] = (int)p;
        char *nl = memchr(u->panel + p, '\n', u->panel_len - p);
        if (nl)
            *nl = '\0';
        p = nl ? (size_t)(nl - u->panel) + 1 : u->panel_len;
    }
}

/* Make the text again when what it shows has changed. */
static void panel_make(UiState *u, int width)
{
    const AppState *s = &u->a.app;
    char key[96];
    snprintf(key, sizeof key, "%d %u %d %d %d %d %d %d", s->panel, u->a.ses.gen, s->layer, s->head,
             s->sel_row, width, s->cfg.preset, s->cfg.H);
    if (u->panel && strcmp(key, u->panel_key) == 0)
        return;
    MemFile m;
    if (memfile_open(&m) != AV_OK)
        term_die("out of memory");
    if (s->panel == PANEL_TRACE) { /* --export trace's text, wrapped to the panel */
        MemFile t;
        if (memfile_open(&t) != AV_OK)
            term_die("out of memory");
        trace_write(t.f, &u->a.ses.res, &s->cfg, s->layer, s->head, s->sel_row);
        if (memfile_close(&t) != AV_OK)
            term_die("out of memory");
        wrap_text(m.f, t.buf, t.len, width);
        memfile_free(&t);
    } else
        heads_text(u, m.f, width);
    if (memfile_close(&m) != AV_OK)
        term_die("out of memory");
    free(u->panel);
    u->panel = m.buf, u->panel_len = m.len;
    m.buf = NULL;
    memfile_free(&m);
    snprintf(u->panel_key, sizeof u->panel_key, "%s", key);
    panel_lines(u);
}

void view_panel_free(UiState *u)
{
    free(u->panel), free(u->panel_lines);
    u->panel = NULL, u->panel_lines = NULL;
    u->panel_n = u->panel_cap = 0;
}

void view_panel_draw(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    if (r.h < 5 || r.w < 20)
        return;
    if (s->panel == PANEL_TRACE && (u->a.ses.run_err || s->sel_row < 0)) {
        u->report.no_trace = true; /* app_layout closes it, with a line */
        return;
    }
    panel_make(u, r.w - 6);
    widget_box(g, r);
    int rows = r.h - 2, most = u->panel_n - rows > 0 ? u->panel_n - rows : 0;
    int top = s->panel_scroll > most ? most : s->panel_scroll;
    u->report.panel_most = most;
    const char *what = s->panel == PANEL_TRACE
                           ? " Calculation trace: Up/Down token, Tab head, PgUp/PgDn scroll, w/Esc "
                             "closes "
                           : " How the heads were built: PgUp/PgDn scroll, I/Esc closes ";
    grid_puts(g, r.x + 2, r.y, what, r.w - 4, STYLE_TITLE);
    for (int k = 0; k < rows && top + k < u->panel_n; k++) {
        const char *line = u->panel + u->panel_lines[top + k];
        bool head = strncmp(line, "Step", 4) == 0 || strncmp(line, "Head", 4) == 0 ||
                    strncmp(line, "Calculation", 11) == 0 || strncmp(line, "The ", 4) == 0;
        grid_puts(g, r.x + 2, r.y + 1 + k, line, r.w - 4, head ? STYLE_ACCENT : STYLE_TEXT);
    }
    if (most > 0)
        grid_printf(g, r.x + r.w - 22, r.y + r.h - 1, 20, STYLE_DIM, " lines %d-%d of %d ", top + 1,
                    top + rows, u->panel_n);
}
