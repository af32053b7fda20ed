/* view_top.c - the frame around the views: the title line, the sentence
 * editor, the numbered token chips, the message line, the status line, and
 * the notice shown when the terminal is too small.
 */
#include "view_top.h"

#include <stdio.h>
#include <string.h>

#include "core/utf8.h"
#include "../term.h"
#include "../widgets.h"
#include "view_cost.h"
#include "view_heads.h"
#include "view_table.h"

#define KIND_LINE_MAX 320 /* a kind's line: as long as AppState.msg */

/* Rows a message wider than the screen (an example's note) may take. */
#define NOTE_ROWS_MOST 4

static void draw_title(const UiState *u, Grid *g)
{
    const AppState *s = &u->a.app;
    for (int x = 0; x < g->w; x++)
        grid_put(g, x, 0, ' ', STYLE_STATUS, 0);
    /* the view in front: the model view or the head scores over the state's */
    ViewId shown = view_heads_shown(u);
    const char *view = view_table_title(shown < VIEW_ID_COUNT ? shown : s->view);
    const char *other = s->view == VIEW_ID_ATTN ? "positional encodings" : "attention";
    /* v offered only where it goes somewhere: GPT-2 and BERT refuse the PE view */
    const bool v = s->view != VIEW_ID_ATTN || !kind_refuses(u->a.ses.kind, KIND_ASK_PE_VIEW);
    bool edit = s->mode == MODE_EDIT;
    /* e offered only where a text can be typed: imported attention's is fixed */
    const bool e = edit || !kind_refuses(u->a.ses.kind, KIND_ASK_EDIT);
    const char *mode = edit ? " | EDITING: type, Enter/Esc when done"
                       : e  ? " | e: edit the sentence"
                            : "";
    char line[256], key[64] = "";
    if (v)
        snprintf(key, sizeof key, " (F2/v: %s)", other);
    snprintf(line, sizeof line, " attnviz | %s%s%s | ?/F1: help", view, key, mode);
    if (grid_text_width(line) > g->w) { /* narrow: shorter words, the help hint whole */
        if (v)
            snprintf(key, sizeof key, " (v: %s)", s->view == VIEW_ID_ATTN ? "PE" : "attention");
        snprintf(line, sizeof line, " attnviz | %s%s%s | ?: help",
                 s->view == VIEW_ID_PE && shown == VIEW_ID_COUNT ? "PE" : view, key,
                 edit ? " | EDITING: Enter/Esc ends"
                 : e  ? " | e: edit"
                      : "");
    }
    grid_puts(g, 0, 0, line, g->w, STYLE_STATUS);
}

/* Browsing a sentence wider than the line: the scroll that shows the
 * selected token with some of its neighbours (a third of the line before). */
static int token_scroll(const UiState *u, const EditBuf *e, int field, int w)
{
    const TokenList *t = field ? &u->a.ses.res.cross_tokens : &u->a.ses.res.tokens;
    int sel = field ? u->a.app.sel_col : u->a.app.sel_row, total = edit_width(e, e->len);
    if (total <= w || u->a.ses.run_err || sel < 0 || sel >= t->n)
        return 0;
    int at = edit_width(e, t->tok[sel].start), scroll = at - w / 3;
    scroll = scroll > total - w + 1 ? total - w + 1 : scroll;
    return scroll < 0 ? 0 : scroll;
}

/* A sentence, scrolled to keep the cursor visible; the selected token and,
 * when editing it, the cursor are marked. field 0: the sentence (queries),
 * 1: the second sentence of cross-attention (keys and values). */
static void draw_editor(UiState *u, Grid *g, int y, int field)
{
    const AppState *s = &u->a.app;
    const EditBuf *e = field ? &s->cross : &s->text;
    bool active = s->mode == MODE_EDIT && (field == 1) == (s->cross_on && s->field == 1);
    const char *name = !s->cross_on ? "Sentence: " : field ? "Keys/values (2): " : "Queries (1): ";
    int x0 = grid_puts(g, 0, y, name, g->w, active ? STYLE_ACCENT : STYLE_DIM);
    int w = g->w - x0 - 1, cur = edit_width(e, e->cur);
    int scroll = cur >= w ? cur - w + 1 : 0;
    if (!active)
        scroll = token_scroll(u, e, field, w); /* browsing: the selection's neighbourhood */
    if (field) {
        u->lay.cross_line = (Rect){x0, y, w + 1, 1}, u->lay.cross_scroll = scroll;
    } else {
        u->lay.editor = (Rect){x0, y, w + 1, 1}, u->lay.editor_scroll = scroll;
    }
    size_t sel_a = 1, sel_b = 0;
    const TokenList *t = field ? &u->a.ses.res.cross_tokens : &u->a.ses.res.tokens;
    int sel = field ? s->sel_col : s->sel_row;
    if (sel >= 0 && sel < t->n && !u->a.ses.run_err) {
        sel_a = t->tok[sel].start;
        sel_b = sel_a + t->tok[sel].len;
    }
    int col = 0;
    for (size_t p = edit_offset_at(e, scroll); p < e->len;) {
        unsigned cp;
        int k = utf8_decode(e->s + p, e->len - p, &cp);
        int style = p >= sel_a && p < sel_b ? STYLE_LABEL_SEL : STYLE_TEXT;
        int used = grid_put(g, x0 + col, y, k > 0 ? edit_glyph(cp) : 0xFFFD, style, 0);
        p += (size_t)(k > 0 ? k : 1);
        if (used == 0 && col < w)
            continue; /* a zero-width mark (a cell holds one code point): skipped */
        if (col + used > w)
            break;
        col += used;
    }
    /* text before what is shown: marked, as the token chips are (a wide
     * first character gives way to the mark and a space) */
    if (scroll > 0 && !(active && cur == scroll)) {
        Cell *next = grid_at(g, x0 + 1, y);
        if (next && next->cp == 0)
            grid_put(g, x0 + 1, y, ' ', STYLE_TEXT, 0);
        grid_put(g, x0, y, 0x2026, STYLE_DIM, 0);
    }
    if (active)
        grid_flag_rect(g, x0 + cur - scroll, y, 1, 1, CELL_CURSOR);
}

static int chip_width(const UiState *u, int k)
{
    return grid_digits(k + 1) + 1 + grid_text_width(u->labels_q[k]) + 2; /* "%d " label */
}

/* Whether chips first..last fit on `rows` rows from column x0 (the "… "
 * mark before them, wrapping as draw_chips does). */
static bool chips_fit(const UiState *u, int first, int last, int x0, int w, int rows)
{
    int x = x0 + (first > 0 ? 2 : 0), row = 0;
    for (int k = first; k <= last; k++) {
        int cw = chip_width(u, k);
        if (x + cw > w - 1) {
            if (++row >= rows)
                return false;
            x = x0;
        }
        x += cw;
    }
    return true;
}

/* Numbered chips on `rows` rows, starting late enough to show the selection. */
static void draw_chips(UiState *u, Grid *g, int y, int rows)
{
    const AppState *s = &u->a.app;
    if (u->a.ses.run_err) {
        const char *why = session_cross_empty(&u->a.ses, s)
                              ? "the keys/values sentence has no tokens yet: type one (E)"
                          : u->a.ses.run_err == AV_ERR_EMPTY
                              ? "no tokens yet: type a sentence (e)"
                              : widget_run_error(u, u->a.ses.run_err);
        grid_printf(g, 0, y, g->w, STYLE_ACCENT, "Tokens: %s", why);
        return;
    }
    int x0 = grid_puts(g, 0, y, "Tokens:   ", g->w, STYLE_DIM);
    /* The first chip that lets the selected one be seen: fewer chips never
     * take more rows, so a binary search (a linear one was most of a typed
     * key's drawing at 2,048 tokens) */
    int first = 0, hi = s->sel_row > 0 ? s->sel_row : 0;
    while (first < hi) {
        int mid = first + (hi - first) / 2;
        if (chips_fit(u, mid, s->sel_row, x0, g->w, rows))
            hi = mid;
        else
            first = mid + 1;
    }
    u->lay.n_chips = s->n_q;
    for (int k = 0; k < s->n_q; k++)
        u->lay.chips[k] = (Rect){0, 0, 0, 0};
    int x = x0, row = 0;
    if (first > 0)
        x += grid_puts(g, x, y, "\u2026 ", 2, STYLE_DIM);
    for (int k = first; k < s->n_q; k++) {
        int cw = chip_width(u, k);
        if (x + cw > g->w - 1) {
            if (++row >= rows) {
                grid_puts(g, g->w - 1, y + rows - 1, "\u2026", 1, STYLE_DIM);
                break;
            }
            x = x0;
        }
        int style = k == s->sel_row ? STYLE_LABEL_SEL : STYLE_LABEL;
        int used = grid_printf(g, x, y + row, cw, STYLE_DIM, "%d ", k + 1);
        grid_puts(g, x + used, y + row, u->labels_q[k], cw - used - 2, style);
        u->lay.chips[k] = (Rect){x, y + row, cw - 1, 1};
        x += cw;
    }
}

int view_top_draw(UiState *u, Grid *g)
{
    int chip_rows = g->h >= 30 ? 2 : 1, y = 2;
    draw_title(u, g);
    draw_editor(u, g, 1, 0);
    if (u->a.app.cross_on)
        draw_editor(u, g, y++, 1);
    draw_chips(u, g, y, chip_rows);
    return y + chip_rows + (g->h >= 30 ? 1 : 0);
}

static const char *hint(UiState *u)
{
    if (u->a.app.mode == MODE_EDIT)
        return "typing edits the sentence | Enter/Esc: done | Up/Down: token | Tab: head | "
               "^K mask | ^P PE | ^T scaling | ^O export | F1 help";
    if (u->a.lesson.active && lesson_state_page(&u->a.lesson)) { /* its keys, not the view's */
        snprintf(u->hint_text, sizeof u->hint_text, "%s | ? help | q quit",
                 lesson_state_hint(&u->a.lesson));
        return u->hint_text;
    }
    return view_table_hint(u->a.app.view);
}

/* Where the line of text that starts at s ends at width w: after the last
 * space within w characters (the space not shown), or at w where a word is
 * longer, or at the end. *next: where the next line starts. */
static const char *line_end(const char *s, int w, const char **next)
{
    int used = 0;
    const char *cut = NULL, *p = s;
    for (; *p; p++) {
        if (*p == ' ') /* a space just past w characters still ends the line */
            cut = p;
        if ((*p & 0xC0) != 0x80 && used++ == w)
            break;
    }
    if (!*p || !cut) /* the end, or a word longer than the line */
        return *next = p, p;
    *next = cut + 1;
    return cut;
}

/* The rows msg takes wrapped at width w (a space breaks it), at most most. */
static int wrapped_rows(const char *msg, int w, int most)
{
    int rows = 0;
    for (const char *p = msg; *p && rows < most; rows++)
        line_end(p, w, &p);
    return rows;
}

/* A message wrapped over rows from y, the last cut with "…" where it is
 * longer than rows. */
static void draw_wrapped(Grid *g, int y, int rows, const char *msg)
{
    const char *p = msg;
    for (int r = 0; r < rows; r++) {
        for (int x = 0; x < g->w; x++)
            grid_put(g, x, y + r, ' ', STYLE_TEXT, 0);
        const char *next, *end = line_end(p, g->w, &next);
        if (r == rows - 1) /* the rest, cut by grid_puts where it is longer */
            end = p + strlen(p);
        grid_printf(g, 0, y + r, g->w, STYLE_ACCENT, "%.*s", (int)(end - p), p);
        p = next;
    }
}

/* Whether the line is an example's note whose sentence has gone (another
 * typed, a lesson opened): not shown, and app_layout clears it. */
static bool note_gone(const UiState *u)
{
    const AppState *s = &u->a.app;
    return s->note_shown && (s->sentence < 0 || u->a.lesson.active);
}

/* The message the bottom rows show at width w: "" for a note gone; the
 * kind's line (a model's, when it opens) in the longest of its forms that
 * fits, its name shortened when none does (kind_describe_fit), written into
 * buf, so that it keeps to one row over the cost line. */
static const char *shown_msg(const UiState *u, int w, char buf[][KIND_LINE_MAX])
{
    const char *msg = u->a.app.msg;
    if (note_gone(u))
        return "";
    if (!msg[0] || grid_text_width(msg) <= w)
        return msg;
    kind_describe(u->a.ses.kind, 0, buf[0], KIND_LINE_MAX);
    if (strcmp(msg, buf[0]) != 0) /* another message, shown whole over more rows */
        return msg;
    kind_describe_fit(u->a.ses.kind, w, buf[1], KIND_LINE_MAX);
    return buf[1];
}

/* A message wider than the screen (an example's note): the rows it takes
 * (2 to NOTE_ROWS_MOST), of which the cost line and the message line hold
 * two; 0 for a message of one line or none. */
static int note_rows(const UiState *u, int w)
{
    char buf[2][KIND_LINE_MAX];
    const char *msg = shown_msg(u, w, buf);
    if (!msg[0] || grid_text_width(msg) <= w)
        return 0;
    int rows = wrapped_rows(msg, w, NOTE_ROWS_MOST);
    return rows < 2 ? 2 : rows;
}

int view_top_note_rows(const UiState *u, int w)
{
    int rows = note_rows(u, w);
    return rows > 2 ? rows - 2 : 0;
}

/* The settings of the status line, in two parts (the second goes on a line
 * of its own when the two do not fit one), with separator sep. */
static void status_parts(const UiState *u, const char *sep, char *a, size_t na, char *b, size_t nb)
{
    const AppState *s = &u->a.app;
    const ModelConfig *c = &s->cfg;
    char heads[64]; /* "heads 6  d_k 32", "6 heads combined  d_k 32" */
    /* a lesson's question on d_k is worked out, not read here: "d_k ?",
     * in attnviz's settings and in a kind's own sizes alike */
    bool dk_hidden = lesson_state_hides(&u->a.lesson, LESSON_ANS_DK);
    comb_heads_text(&u->a.ses.comb, s, sep, dk_hidden, heads, sizeof heads);
    if (c->preset == PRESET_IMPORTED) { /* weights only: no sizes, seed or PE to show */
        snprintf(a, na, " imported attention%stokens %d x %d%s%s", sep, s->n_q, s->n_k, sep, heads);
        snprintf(b, nb, "%smask %s%slayer %d/%d", sep, c->causal ? "causal (detected)" : "none",
                 sep, s->layer + 1, c->layers);
        return;
    }
    char tokens[32];
    snprintf(tokens, sizeof tokens, "%d", s->n_q);
    char kind[160]; /* the kind's own sizes (a GPT-2's), else attnviz's settings */
    if (kind_status(u->a.ses.kind, c, strcmp(sep, " | ") == 0, dk_hidden, kind, sizeof kind)) {
        snprintf(a, na, " tokens %d%slayer %d/%d", s->n_q, sep, s->layer + 1, c->layers);
        snprintf(b, nb, "%s%s", sep, kind);
        return;
    }
    if (session_cross_empty(&u->a.ses, s)) /* the queries have tokens, the keys none */
        snprintf(tokens, sizeof tokens, "%d x 0", u->a.ses.res.tokens.n);
    snprintf(a, na, " tokens %s%sd_model %d%s%s%s%sseed %llu", tokens, sep, c->d_model,
             s->fixed_weights ? " (fixed)" : "", sep, heads, sep, (unsigned long long)c->seed);
    snprintf(b, nb, "%smask %s%sPE %s%sscaling %s%stemp %g%slayer %d/%d%s%s", sep,
             c->causal ? "on" : "off", sep, c->pe ? "on" : "off", sep, c->scale ? "on" : "off", sep,
             (double)c->temperature, sep, s->layer + 1, c->layers, s->cross_on ? sep : "",
             s->cross_on ? "cross" : "");
}

int view_top_status_rows(const UiState *u, int w)
{
    char a[160], b[160];
    status_parts(u, "  ", a, sizeof a, b, sizeof b);
    return grid_text_width(a) + grid_text_width(b) <= w ? 1 : 2;
}

/* The status line's second part b (opening with its separator, two
 * spaces) on the row under the first, which ends at column used. When b is
 * wider than that row, its first pieces (two spaces part them) go up
 * after the first part, as many as fit there: "BERT what-if: causal mask
 * (...)" beside "tokens 18  layer 1/2", the sizes, d_k and mask whole
 * below, not "d_k 8  ca…". */
static void status_second_row(Grid *g, int y, int used, const char *b)
{
    const char *rest = b;
    if (grid_text_width(b + 1) > g->w) {
        char head[160];
        for (const char *p = strstr(b + 2, "  "); p; p = strstr(p + 2, "  ")) {
            size_t n = (size_t)(p - b) < sizeof head ? (size_t)(p - b) : sizeof head - 1;
            memcpy(head, b, n), head[n] = '\0';
            if (used + grid_text_width(head) > g->w)
                break;
            rest = p;
        }
        if (rest != b) {
            memcpy(head, b, (size_t)(rest - b)), head[rest - b] = '\0';
            grid_puts(g, used, y, head, g->w - used, STYLE_STATUS);
        }
    }
    grid_puts(g, 0, y + 1, rest + 1, g->w, STYLE_STATUS); /* rest opens with its separator */
}

void view_top_bottom_draw(UiState *u, Grid *g)
{
    u->report.note_gone = note_gone(u); /* a note goes with its sentence */
    char buf[2][KIND_LINE_MAX];
    const char *msg = shown_msg(u, g->w, buf);
    int rows = view_top_status_rows(u, g->w), y = g->h - rows;
    view_cost_draw(u, g, y - 2);
    int note = note_rows(u, g->w);
    if (note) {
        draw_wrapped(g, y - note, note, msg); /* an example's note: over the cost, and above */
    } else if (msg[0])
        grid_puts(g, 0, y - 1, msg, g->w, STYLE_ACCENT);
    else {
        char fit[512];
        widget_hint_fit(hint(u), g->w, fit, sizeof fit);
        grid_puts(g, 0, y - 1, fit, g->w, STYLE_DIM);
    }
    for (int yy = y; yy < g->h; yy++)
        for (int x = 0; x < g->w; x++)
            grid_put(g, x, yy, ' ', STYLE_STATUS, 0);
    /* " | " where it fits, two spaces where not, and a second line below */
    char a[160], b[160];
    status_parts(u, " | ", a, sizeof a, b, sizeof b);
    bool wide = grid_text_width(a) + grid_text_width(b) + 12 <= g->w;
    if (!wide)
        status_parts(u, "  ", a, sizeof a, b, sizeof b);
    int used = grid_puts(g, 0, y, a, g->w, STYLE_STATUS);
    if (rows == 1)
        used += grid_puts(g, used, y, b, g->w - used, STYLE_STATUS);
    else
        status_second_row(g, y, used, b);
    if (wide && !u->no_clock)
        grid_printf(g, g->w - 10, y, 10, STYLE_STATUS, "%6.2f ms",
                    u->frame_ms + term_now_ms() - u->frame_t0); /* the key's update + drawing */
}

void view_top_too_small(Grid *g)
{
    char need[32], now[32];
    snprintf(need, sizeof need, "need %dx%d", UI_MIN_W, UI_MIN_H);
    snprintf(now, sizeof now, "now %dx%d", g->w, g->h);
    const char *lines[] = {"terminal", "too small", need, now, "q quits"};
    int n = 5, y0 = (g->h - n) / 2;
    if (g->w >= 32) {
        y0 = y0 < 0 ? 0 : y0;
        grid_printf(g, 0, y0, g->w, STYLE_ACCENT, "terminal too small (%s)", need);
        grid_puts(g, 0, y0 + 1, "keys wait for a larger terminal; q quits", g->w, STYLE_DIM);
        return;
    }
    for (int k = 0; k < n; k++)
        grid_puts(g, 0, (y0 < 0 ? 0 : y0) + k, lines[k], g->w, STYLE_ACCENT);
}

bool view_top_is_small(int w, int h)
{
    return w < UI_MIN_W || h < UI_MIN_H;
}

bool view_top_small_takes(int w, int h, AppInput *in)
{
    if (!view_top_is_small(w, h))
        return true;
    if (in->text[0] == 'q' && !in->text[1]) /* editing, unseen: q quits as well */
        in->action = ACT_QUIT;
    return in->action == ACT_QUIT;
}
