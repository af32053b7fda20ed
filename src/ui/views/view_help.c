/* view_help.c - the help overlay (view_help.h): one line per action or
 * pair of actions, its keys from the key tables (input_key_names: input.c's
 * and the views' rows in io/views.def), in columns as the screen allows.
 */
#include "view_help.h"

#include <stdio.h>
#include <string.h>

#include "../input.h"
#include "../widgets.h"
#include "view_table.h"

/* One line per action or -/+ pair; keys come from the key table. */
typedef struct {
    Action a, b;      /* b: the pair's second action, or ACT_NONE */
    const char *text; /* with a == ACT_NONE: a heading; NULL: a view's (views.def) */
} HelpLine;

/* In help_lines, where the lines of the views (io/views.def) named by no
 * line of the table go, in the views' order. */
/* clang-format 14 breaks a braced list in a macro into a line a brace */
/* clang-format off */
#define HELP_MORE_VIEWS {ACT_COUNT, ACT_NONE, NULL}
/* clang-format on */

static const HelpLine help_lines[] = {
    /* a view's text NULL: its row's */
    {ACT_NONE, ACT_NONE, "Commands (letters while browsing)"},
    {ACT_QUIT, ACT_NONE, "quit (Ctrl-L: redraw)"},
    {ACT_ESCAPE, ACT_NONE, "back out one level (never quits)"},
    {ACT_HELP, ACT_NONE, "this help"},
    {ACT_EDIT, ACT_NONE, "edit the sentence"},
    {ACT_VIEW, ACT_NONE, NULL},
    {ACT_HEAD_NEXT, ACT_HEAD_PREV, "next / previous head"},
    {ACT_HEAD_SET, ACT_NONE, "focus head 1-9"},
    {ACT_ROW_PREV, ACT_ROW_NEXT, "token up / down"},
    {ACT_ROW_PGUP, ACT_ROW_PGDN, "a page up / down"},
    {ACT_ROW_FIRST, ACT_ROW_LAST, "first / last token"},
    {ACT_COL_PREV, ACT_COL_NEXT, "cell weight & score"},
    {ACT_MASK, ACT_NONE, "causal mask on/off"},
    {ACT_PE, ACT_NONE, "pos. encoding on/off"},
    {ACT_SCALE, ACT_NONE, "1/sqrt(d_k) on/off"},
    {ACT_HEADS_DEC, ACT_HEADS_INC, "fewer / more heads"},
    {ACT_DMODEL_DEC, ACT_DMODEL_INC, "d_model down / up"},
    {ACT_SEED_DEC, ACT_SEED_INC, "seed - / +"},
    {ACT_SENT_NEXT, ACT_SENT_PREV, "next / prev. example"},
    {ACT_EXPORT_HEAD, ACT_NONE, "export this head"},
    {ACT_EXPORT_ALL, ACT_NONE, "export all heads"},
    {ACT_EXPORT_SVG, ACT_NONE, "save the view as SVG"},
    {ACT_PRESET, ACT_NONE, "designed/random heads"},
    {ACT_LAYER_NEXT, ACT_LAYER_PREV, "next / previous layer"},
    {ACT_LAYERS_DEC, ACT_LAYERS_INC, "fewer / more layers"},
    {ACT_NONE, ACT_NONE, "Teaching"},
    {ACT_TRACE, ACT_NONE, NULL},
    {ACT_PIPELINE, ACT_NONE, NULL},
    {ACT_HEAD_TABLE, ACT_NONE, NULL},
    {ACT_MODEL_VIEW, ACT_NONE, NULL},
    {ACT_LENS, ACT_NONE, NULL},
    {ACT_LESSONS, ACT_NONE, "lessons (n/p pages, Esc)"},
    {ACT_LESSON_TEXT_UP, ACT_LESSON_TEXT_DOWN, "lesson text back / on"},
    {ACT_HEADS_HELP, ACT_NONE, "how the heads were built"},
    {ACT_TEMP_DOWN, ACT_TEMP_UP, "temperature x0.5 / x2"},
    {ACT_CMP_MASK, ACT_NONE, NULL},
    {ACT_CMP_HEADS, ACT_NONE, NULL},
    {ACT_CROSS, ACT_NONE, "cross-attention on/off"},
    {ACT_EDIT_CROSS, ACT_NONE, "edit the 2nd sentence"},
    {ACT_GENERATE, ACT_NONE, "--model: next token"},
    HELP_MORE_VIEWS,
    {ACT_NONE, ACT_COUNT, "title: entropy (bits, mean"},
    {ACT_NONE, ACT_COUNT, " of rows), mean top weight"},
    {ACT_NONE, ACT_NONE, "Training view (W)"},
    {ACT_TRAIN, ACT_NONE, NULL},
    {ACT_TRAIN_PAUSE, ACT_NONE, "pause / train on"},
    {ACT_TRAIN_STEP, ACT_NONE, "one step (pauses)"},
    {ACT_TRAIN_FASTER, ACT_TRAIN_SLOWER, "more / fewer steps"},
    {ACT_TRAIN_RESET, ACT_NONE, "from step 0, next seed"},
    {ACT_TRAIN_SAVE, ACT_NONE, "save the model"},
    {ACT_NONE, ACT_NONE, "Combining (also imported)"},
    {ACT_COMBINE_HEADS, ACT_NONE, "heads mean/max/sum"},
    {ACT_ROLLOUT, ACT_NONE, "rollout across layers"},
    {ACT_NORMS, ACT_NONE, "value-weighted norms"},
    {ACT_SINK, ACT_NONE, "what-if: no first token"},
    {ACT_MULTI_ROW, ACT_NONE, "query +/- rows summed"},
    {ACT_NONE, ACT_NONE, "Long texts (pooled)"},
    {ACT_ZOOM_IN, ACT_ZOOM_OUT, "zoom in / out"},
    {ACT_ZOOM_ALL, ACT_NONE, "every token"},
    {ACT_POOL, ACT_NONE, "max / mean pooling"},
    {ACT_DIMS_PREV, ACT_DIMS_NEXT, "PE dims; pipeline pages"},
    {ACT_NONE, ACT_NONE, "Editing (letters type)"},
    {ACT_EDIT_DONE, ACT_NONE, "stop editing (or Esc)"},
    {ACT_FIELD_NEXT, ACT_NONE, "other sentence (cross)"},
    {ACT_CUR_LEFT, ACT_CUR_RIGHT, "cursor left / right"},
    {ACT_CUR_HOME, ACT_CUR_END, "start / end"},
    {ACT_WORD_LEFT, ACT_WORD_RIGHT, "word left/right; Alt-b/f"},
    {ACT_BACKSPACE, ACT_DELETE, "delete back / fwd"},
    {ACT_DEL_WORD, ACT_NONE, "delete word back"},
    {ACT_CLEAR, ACT_NONE, "clear the sentence"},
    {ACT_NONE, ACT_NONE, "Mouse"},
    {ACT_NONE, ACT_COUNT, "click chip/row/cell: select"},
    {ACT_NONE, ACT_COUNT, "click a small head: focus it"},
    {ACT_NONE, ACT_COUNT, "click sentence: edit there"},
    {ACT_NONE, ACT_COUNT, "wheel: token up / down"},
};

#define N_LINES ((int)(sizeof help_lines / sizeof help_lines[0]))
#define HELP_MAX (N_LINES + VIEW_ID_COUNT)

/* The lines shown: help_lines, a view's text from its row, the views no
 * line names where HELP_MORE_VIEWS stands. */
typedef struct {
    HelpLine l[HELP_MAX];
    int n;
} Help;

static bool named(Action a)
{
    for (int k = 0; k < N_LINES; k++)
        if (help_lines[k].a == a || help_lines[k].b == a)
            return true;
    return false;
}

static void help_collect(Help *h)
{
    h->n = 0;
    for (int k = 0; k < N_LINES; k++) {
        HelpLine hl = help_lines[k];
        Action a;
        if (hl.a == ACT_COUNT) {
            for (int v = 0; view_table_help_at(v, &a); v++)
                if (!named(a))
                    h->l[h->n++] = (HelpLine){a, ACT_NONE, view_table_help(a)};
            continue;
        }
        if (!hl.text)
            hl.text = view_table_help(hl.a);
        h->l[h->n++] = hl;
    }
}

/* "h/H F3/F4" for a pair with as many keys each, else "a b / c d". */
static void help_keys(const HelpLine *hl, char *buf, size_t size)
{
    const char *na[8], *nb[8];
    int ka = input_key_names(hl->a, na, 8);
    int kb = hl->b != ACT_NONE ? input_key_names(hl->b, nb, 8) : 0;
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < ka && len < size; k++) {
        if (kb == ka)
            len += (size_t)snprintf(buf + len, size - len, "%s%s/%s", k ? " " : "", na[k], nb[k]);
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : "", na[k]);
    }
    for (int k = 0; kb != ka && k < kb && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : " / ", nb[k]);
}

/* The widest key list among lines first .. first+count-1. */
static int keys_width(const Help *h, int first, int count)
{
    int w = 0;
    for (int k = first; k < first + count; k++) {
        char keys[96];
        if (h->l[k].a == ACT_NONE)
            continue;
        help_keys(&h->l[k], keys, sizeof keys);
        int kw = (int)strlen(keys);
        w = kw > w ? kw : w;
    }
    return w + 1;
}

static void help_line(Grid *g, const HelpLine *hl, int x, int y, int col_w, int key_w)
{
    char keys[96];
    if (hl->a == ACT_NONE && hl->b == ACT_NONE) {
        grid_puts(g, x + 1, y, hl->text, col_w - 2, STYLE_ACCENT);
    } else if (hl->b == ACT_COUNT) {
        grid_puts(g, x + 2, y, hl->text, col_w - 3, STYLE_TEXT);
    } else {
        help_keys(hl, keys, sizeof keys);
        grid_puts(g, x + 1, y, keys, key_w - 1, STYLE_LABEL);
        grid_puts(g, x + 1 + key_w, y, hl->text, col_w - key_w - 2, STYLE_TEXT);
    }
}

/* Columns of at least HELP_COL_W, as many as the width allows and the lines
 * need; a screen too short for them scrolls (Up/Down, PgUp/PgDn). */
#define HELP_COL_W 38

/* Whether lines first .. first+count-1 fit whole in a column col_w wide:
 * keys, a gap, the description and the box's margins. */
static bool help_fits(const Help *h, int first, int count, int col_w)
{
    int key_w = keys_width(h, first, count);
    key_w = key_w > col_w / 2 ? col_w / 2 : key_w;
    for (int k = first; k < first + count; k++) {
        int tw = grid_text_width(h->l[k].text);
        const HelpLine *hl = &h->l[k]; /* as help_line lays it out */
        int need = hl->a == ACT_NONE ? tw + 2 : hl->b == ACT_COUNT ? tw + 3 : key_w + tw + 2;
        if (need > col_w)
            return false;
    }
    return true;
}

/* The help's columns on a screen gw x gh: the box's width, the rows a
 * column shows and the lines a column holds. */
static int help_layout(const Help *h, int gw, int gh, int *w, int *rows, int *per_col)
{
    const int n = h->n;
    *w = gw - 2 > 120 ? 120 : gw - 2;
    *rows = gh - 2 - 3;
    int cols = (*w - 2) / HELP_COL_W;
    cols = cols < 1 ? 1 : cols;
    if (*rows > 0 && cols > (n + *rows - 1) / *rows)
        cols = (n + *rows - 1) / *rows;
    cols = cols < 1 ? 1 : cols;
    /* fewer columns (and more scrolling) rather than a description cut */
    for (bool fit = false; cols > 1 && !fit;) {
        int per = (n + cols - 1) / cols;
        fit = true;
        for (int c = 0; c < cols && fit; c++)
            fit = help_fits(h, c * per, n - c * per < per ? n - c * per : per, (*w - 2) / cols);
        cols -= !fit;
    }
    *per_col = (n + cols - 1) / cols;
    return cols;
}

void view_help_at(UiState *u, int gw, int gh, Action a)
{
    int w, rows, per_col;
    Help hh, *h = &hh;
    help_collect(h);
    help_layout(h, gw, gh, &w, &rows, &per_col);
    for (int k = 0; k < h->n; k++)
        if (h->l[k].a == a) {
            /* its heading first, when the line under one */
            int line = k > 0 && h->l[k - 1].a == ACT_NONE && h->l[k - 1].b == ACT_NONE ? k - 1 : k;
            line %= per_col; /* within its column; already in sight: no scroll */
            u->a.app.help_scroll = line < rows ? 0 : line; /* input_help_draw clamps the end */
            return;
        }
}

void view_help_draw(UiState *u, Grid *g)
{
    Help help;
    help_collect(&help);
    int n = help.n, w, rows, per_col;
    int cols = help_layout(&help, g->w, g->h, &w, &rows, &per_col), h = g->h - 2;
    int col_w = (w - 2) / cols;
    int most = per_col - rows > 0 ? per_col - rows : 0, box_h = per_col + 3 < h ? per_col + 3 : h;
    const AppState *s = &u->a.app;
    u->report.help_most = most;
    int x0 = (g->w - w) / 2, y0 = 1, top = s->help_scroll > most ? most : s->help_scroll;
    widget_box(g, (Rect){x0, y0, w, box_h});
    for (int y = y0; y < y0 + box_h; y++) { /* a blank column each side: no cut text's "…" */
        grid_put(g, x0 - 1, y, ' ', STYLE_TEXT, 0);
        grid_put(g, x0 + w, y, ' ', STYLE_TEXT, 0);
    }
    const char *way = top == 0 ? "Down" : top == most ? "Up" : "Up/Down"; /* where more is */
    if (most > 0)
        grid_printf(g, x0 + w - 32, y0 + box_h - 1, 30, STYLE_DIM, " %s: more (%d-%d of %d) ", way,
                    top + 1, top + rows, per_col);
    if (s->help_refused) /* a key pressed here acts once the help is closed, not unseen under it */
        grid_puts(g, x0 + 2, y0 + box_h - 1, " close the help first (Esc) ", w - 36, STYLE_ACCENT);
    grid_puts(g, x0 + 2, y0, " attnviz keys - Esc, ? or F1 closes ", w - 4, STYLE_TITLE);
    for (int c = 0; c < cols; c++) {
        int first = c * per_col, count = n - first < per_col ? n - first : per_col;
        int key_w = keys_width(&help, first, count);
        key_w = key_w > col_w / 2 ? col_w / 2 : key_w;
        for (int k = top; k < count && k - top < rows; k++)
            help_line(g, &help.l[first + k], x0 + 1 + c * col_w, y0 + 1 + k - top, col_w, key_w);
    }
}
