/* view_lesson.c - a lesson on the screen: the page's title, narration,
 * question, the student's prediction and the revealed answer beside or
 * below the view it set up, and the list of lessons. Everything it shows
 * comes from app/lesson.h's LessonState; it only lays text out.
 */
#include "view_lesson.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "app/lesson.h"
#include "../widgets.h"

#define LESSON_SIDE_MIN 110 /* screens this wide get the page at the right */
#define LESSON_SIDE_W 44
#define LESSON_LINES 64 /* wrapped lines of a part of a page, at most */

void view_lesson_key(const UiState *u, int key, bool code, AppInput *in)
{
    const LessonState *ls = &u->a.lesson;
    in->lesson_in = 0;
    if ((!ls->active && !ls->list) || u->a.app.mode == MODE_EDIT || u->a.app.help)
        return;
    int li = -1;
    if (code && key == KEY_NPAGE)
        li = LESSON_IN_NEXT;
    else if (code && key == KEY_PPAGE)
        li = LESSON_IN_PREV;
    else if (code && (key == KEY_LEFT || key == KEY_RIGHT || key == KEY_UP || key == KEY_DOWN))
        li = key == KEY_LEFT    ? LESSON_IN_LEFT
             : key == KEY_RIGHT ? LESSON_IN_RIGHT
             : key == KEY_UP    ? LESSON_IN_UP
                                : LESSON_IN_DOWN;
    else if (code && ls->list && (key == KEY_HOME || key == KEY_END))
        li = key == KEY_HOME ? LESSON_IN_FIRST : LESSON_IN_LAST; /* a page's: the tokens' */
    else if (code && key == KEY_ENTER)
        li = LESSON_IN_ENTER;
    else if (code && key == KEY_BACKSPACE)
        li = LESSON_IN_BACKSPACE;
    else if (!code && key == 27)
        li = LESSON_IN_LEAVE;
    else if (!code && (key == '\r' || key == '\n'))
        li = LESSON_IN_ENTER;
    else if (!code && (key == 127 || key == 8))
        li = LESSON_IN_BACKSPACE;
    else if (!code && key > 0x20 && key < 0x7f)
        li = LESSON_IN_CHAR, in->lesson_arg = key;
    in->lesson_in = li + 1;
}

typedef struct {
    char text[200];
    int style;
    int indent;
} Line;

typedef struct {
    Line line[LESSON_LINES];
    int n, w;
} Lines;

/* Append s wrapped to the width at the words, each piece a line. */
static void add(Lines *L, const char *s, int style, int indent)
{
    int w = L->w - indent;
    do {
        char piece[200];
        size_t len = strlen(s), cut = len, best = 0;
        for (size_t k = 1; k <= len && k < sizeof piece; k++) {
            if (k < len && s[k] != ' ')
                continue;
            memcpy(piece, s, k), piece[k] = '\0';
            if (grid_text_width(piece) > w)
                break;
            best = k;
        }
        cut = best ? best : (len < sizeof piece - 1 ? len : sizeof piece - 1);
        if (L->n == LESSON_LINES)
            return;
        Line *l = &L->line[L->n++];
        snprintf(l->text, sizeof l->text, "%.*s", (int)cut, s);
        l->style = style, l->indent = indent;
        s += cut;
        while (*s == ' ')
            s++;
    } while (*s);
}

/* Lines first .. first+n of the lesson as paragraphs: consecutive lines
 * join and wrap to the width; a line that starts with a space (a formula, a
 * table row) stays a line of its own; an empty line is an empty line. */
static void add_paragraphs(Lines *L, const Lesson *l, int first, int n, int style)
{
    char para[600];
    size_t len = 0;
    for (int k = 0; k <= n; k++) {
        const char *s = k < n ? l->lines[first + k] : "";
        bool own = s[0] == ' ' || !s[0];
        if (len && (own || k == n))
            add(L, para, style, 0), len = 0;
        if (k == n)
            break;
        if (!s[0]) {
            add(L, "", style, 0);
        } else if (own) {
            add(L, s + strspn(s, " "), style, 2);
        } else {
            int m = snprintf(para + len, sizeof para - len, "%s%s", len ? " " : "", s);
            len = m < 0 ? len : len + (size_t)m < sizeof para ? len + (size_t)m : sizeof para - 1;
        }
    }
}

/* The choices on one line, "(a) Cat  >(b) eats  (c) fish" (the picked one
 * marked), when the page is below the view (its lines are the picture's)
 * and they fit; else false. */
static bool choices_inline(const UiState *u, const LessonQuestion *q, Lines *L, bool compact)
{
    char buf[256];
    size_t len = 0;
    if (!compact || !q->n_choices)
        return false;
    for (int k = 0; k < q->n_choices && len < sizeof buf; k++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s(%c) %s", k ? "  " : "",
                                k == u->a.lesson.pick ? ">" : " ", 'a' + k, q->choices[k]);
    if (len >= sizeof buf || grid_text_width(buf) > L->w)
        return false;
    add(L, buf, STYLE_TEXT, 0);
    return true;
}

/* The question, the prediction and, once revealed, the answer. */
static void question_lines(const UiState *u, const LessonPage *p, Lines *L, bool compact)
{
    const LessonState *ls = &u->a.lesson;
    const LessonQuestion *q = &p->q;
    char buf[256];
    add(L, q->text, STYLE_TITLE, 0);
    for (int k = 0; !choices_inline(u, q, L, compact) && k < q->n_choices; k++) {
        bool right = ls->revealed && ls->have_answer && k == ls->answer.choice;
        snprintf(buf, sizeof buf, "%s(%c) %s%s", k == ls->pick ? ">" : " ", 'a' + k, q->choices[k],
                 right ? "  <- the answer" : "");
        add(L, buf, k == ls->pick ? STYLE_LABEL_SEL : right ? STYLE_ACCENT : STYLE_TEXT, 1);
    }
    const char *pred = "";
    if (q->kind == LESSON_ASK_TOKEN && ls->pick >= 0 && ls->pick < u->a.app.n_k)
        pred = u->labels_k[ls->pick];
    else if (q->kind == LESSON_ASK_CHOICE && ls->pick >= 0)
        pred = q->choices[ls->pick];
    else if (q->kind == LESSON_ASK_NUMBER)
        pred = ls->typed;
    snprintf(buf, sizeof buf, "your prediction: %s%s", pred,
             !ls->revealed && q->kind == LESSON_ASK_NUMBER ? "_" : "");
    add(L, buf, STYLE_LABEL, 0);
    if (!ls->revealed)
        return;
    snprintf(buf, sizeof buf, "answer: %s%s", ls->answer_text,
             !ls->have_answer ? ""
             : !ls->predicted ? "  (no prediction)"
             : ls->correct    ? "  - right"
                              : "  - not this time");
    add(L, buf, STYLE_ACCENT, 0);
    add_paragraphs(L, &ls->lesson, q->explain_first, q->n_explain, STYLE_TEXT);
}

static bool is_digit(const Cell *c)
{
    return c->cp >= '0' && c->cp <= '9';
}

/* A number or a shade of a weight, in a cell that is not a label. */
static bool veils(const Cell *c)
{
    bool digit = is_digit(c);
    bool shade = (c->cp >= 0x2580 && c->cp <= 0x259F) || c->cp == 0x00B7;
    return c->style == STYLE_TEXT && (digit || shade);
}

/* Blank a ranked bar's label, left of its first bar cell x0: back over its
 * two words, the percentage and the token (tokens hold no space), and the
 * token's number before them when the bars number repeated tokens. */
static void veil_bar_label(Grid *g, Rect r, int y, int x0)
{
    int words = 0, x = x0 - 1;
    bool in_word = false;
    for (; x >= r.x; x--) {
        Cell *c = grid_at(g, x, y);
        if (!c)
            break;
        if (c->cp != ' ')
            in_word = true;
        else if (in_word && ++words == 2)
            break;
        else
            in_word = false;
        c->cp = ' ', c->style = STYLE_TEXT, c->level = 0, c->flags = 0;
    }
    for (Cell *c; x >= r.x && (c = grid_at(g, x, y)) && (c->cp == ' ' || is_digit(c)); x--) {
        bool digit = is_digit(c);
        if (!digit && x < x0 - 1 && is_digit(grid_at(g, x + 1, y)))
            break; /* the space before the number: done */
        c->cp = ' ', c->style = STYLE_TEXT, c->level = 0, c->flags = 0;
    }
}

/* Decimal numbers (a run of digits and points holding a point) in any text
 * but labels: a head's entropy and largest weight, a weight in per cent. */
static void veil_decimals(Grid *g, Rect r, int y)
{
    for (int x = r.x; x < r.x + r.w;) {
        int end = x, dot = 0;
        for (Cell *c; (c = grid_at(g, end, y)) && end < r.x + r.w &&
                      (is_digit(c) || c->cp == '.' || c->cp == '?');
             end++)
            dot |= c->cp == '.';
        for (int k = x; dot && k < end; k++) {
            Cell *c = grid_at(g, k, y);
            if (c->style != STYLE_LABEL && c->style != STYLE_LABEL_SEL && c->cp != '.')
                c->cp = '?';
        }
        x = end > x ? end : x + 1;
    }
}

/* Every hidden number, whatever its width ("5", "100", "0.38"), becomes one
 * '?' at the end of its run: a placeholder's width must not tell the answer. */
static void veil_one_width(Grid *g, Rect r, int y)
{
    for (int x = r.x; x < r.x + r.w;) {
        int end = x, marks = 0;
        for (Cell *c; (c = grid_at(g, end, y)) && end < r.x + r.w &&
                      (c->cp == '?' || c->cp == '.' || c->cp == '%');
             end++)
            marks += c->cp == '?';
        for (int k = x; marks && k < end - 1; k++)
            grid_at(g, k, y)->cp = ' ';
        if (marks)
            grid_at(g, end - 1, y)->cp = '?';
        x = end > x ? end : x + 1;
    }
}

/* The positional-encoding view before a reveal: its pictures stay (the PE
 * matrix's colours, the line plots, their formulas and axes state no value
 * of PE); the numbers written in the similarity's cells are hidden, one '?'
 * each, so no cell's text can be read as the answer. */
static void veil_pe(Grid *g, Rect r)
{
    for (int y = r.y; y < r.y + r.h; y++) {
        for (int x = r.x; x < r.x + r.w; x++) {
            Cell *c = grid_at(g, x, y);
            if (c && (c->style == STYLE_HEAT || c->style == STYLE_DIVERGE) &&
                (is_digit(c) || c->cp == '.' || c->cp == '-'))
                c->cp = c->cp == '-' ? ' ' : '?';
        }
        veil_one_width(g, r, y);
    }
}

void view_lesson_veil(const UiState *u, Grid *g, Rect r)
{
    if (!lesson_state_veiled(&u->a.lesson) || u->a.app.view == VIEW_ID_PIPELINE ||
        u->a.app.panel != PANEL_NONE)
        return;
    if (u->a.app.view == VIEW_ID_PE) {
        veil_pe(g, r);
        return;
    }
    for (int y = r.y; y < r.y + r.h; y++) {
        int first_bar = -1;
        for (int x = r.x; x < r.x + r.w; x++) {
            Cell *c = grid_at(g, x, y);
            if (!c)
                break;
            if (c->style == STYLE_HEAT || c->style == STYLE_DIVERGE) {
                bool digit = is_digit(c) || c->cp == '.';
                c->cp = digit ? '?' : ' ', c->style = STYLE_DIM, c->level = 0;
            } else if (c->style == STYLE_BAR) {
                first_bar = first_bar < 0 ? x : first_bar;
                c->cp = ' ', c->style = STYLE_TEXT, c->level = 0;
            } else if (veils(c)) {
                c->cp = is_digit(c) ? '?' : ' ';
            }
            c->flags &= (uint8_t) ~(GRID_CELL_HALF | GRID_CELL_UP_MASKED | GRID_CELL_LO_MASKED);
        }
        veil_decimals(g, r, y);
        if (first_bar >= 0)
            veil_bar_label(g, r, y, first_bar);
        veil_one_width(g, r, y);
    }
}

/* The page's lines at width w: the header, the narration, what the model
 * shown says against its numbers (app's notes), the question. */
static void page_lines(const UiState *u, const LessonPage *p, int w, bool compact, Lines *head,
                       Lines *text, Lines *notes, Lines *q)
{
    const LessonState *ls = &u->a.lesson;
    char buf[256];
    const char *note[LESSON_NOTES_MAX + 2];
    head->n = text->n = notes->n = q->n = 0;
    head->w = notes->w = q->w = w;
    text->w = w - 1; /* the last column marks more narration above or below */
    snprintf(buf, sizeof buf, "Lesson %d/%d: %s%s%s", ls->page + 1, ls->lesson.n_pages,
             ls->lesson.title, compact ? " - " : "", compact ? p->title : "");
    add(head, buf, compact ? STYLE_TITLE : STYLE_DIM, 0);
    if (!compact) /* below the view: one line for both, the picture needs the rows */
        add(head, p->title, STYLE_TITLE, 0);
    if (ls->problem[0])
        add(head, ls->problem, STYLE_ACCENT, 0);
    add_paragraphs(text, &ls->lesson, p->text_first, p->n_text, STYLE_TEXT);
    int nn = lesson_state_notes(ls, note, LESSON_NOTES_MAX + 2);
    for (int k = 0; k < nn; k++)
        add(notes, note[k], STYLE_ACCENT, k ? 1 : 0);
    if (p->q.kind != LESSON_ASK_NONE)
        question_lines(u, p, q, compact);
}

/* Rows the view under a lesson page keeps at least: the title, one row of
 * key labels (a short view abbreviates them across the cells rather than
 * rotate them, view_attn.c), the selected token's row and its neighbours,
 * the legend (the pipeline, PE and side-by-side views fit in as many). */
static int view_min_rows(const UiState *u)
{
    int rows = u->a.app.n_q < 3 ? u->a.app.n_q : 3;
    return 5 + rows;
}

void view_lesson_split(const UiState *u, Rect *mid, Rect *panel)
{
    const LessonPage *p = lesson_state_page(&u->a.lesson);
    *panel = (Rect){0, 0, 0, 0};
    if (!p)
        return;
    if (mid->w >= LESSON_SIDE_MIN) {
        *panel = (Rect){mid->x + mid->w - LESSON_SIDE_W, mid->y, LESSON_SIDE_W, mid->h};
        mid->w -= LESSON_SIDE_W + 1;
        return;
    }
    /* below the view, as tall as the page needs but leaving the picture its
     * rows: the narration scrolls ({ }) in what is left */
    Lines head, text, notes, q;
    page_lines(u, p, mid->w, true, &head, &text, &notes, &q);
    int h = head.n + text.n + notes.n + q.n + (q.n ? 1 : 0) + 1;
    int most = mid->h - view_min_rows(u) - 1;
    most = most < 6 ? 6 : most;
    h = h > most ? most : h < 6 ? 6 : h;
    *panel = (Rect){mid->x, mid->y + mid->h - h, mid->w, h};
    mid->h -= h + 1;
}

static void put_lines(Grid *g, const Lines *L, int first, int n, int x, int y)
{
    for (int k = 0; k < n; k++) {
        const Line *l = &L->line[first + k];
        grid_puts(g, x + l->indent, y + k, l->text, L->w - l->indent, l->style);
    }
}

/* The hint line: the page's keys, and where the narration is scrolled
 * when it does not fit ("}: more text 1-3 of 9"). */
static void draw_hint(const UiState *u, Grid *g, Rect r, int first, int shown, int total)
{
    char buf[160];
    int n = snprintf(buf, sizeof buf, "%s", lesson_state_hint(&u->a.lesson));
    if (shown < total)
        snprintf(buf + n, sizeof buf - n, "  %s text %d-%d of %d",
                 first + shown < total ? (first ? "{ }:" : "}: more") : "{: back,", first + 1,
                 first + shown, total);
    grid_puts(g, r.x, r.y + r.h - 1, buf, r.w, STYLE_DIM);
}

void view_lesson_draw(UiState *u, Grid *g, Rect r)
{
    const LessonState *ls = &u->a.lesson;
    const LessonPage *p = lesson_state_page(ls);
    if (!p || r.w < 10 || r.h < 4)
        return;
    widget_rect_clear(g, r);
    bool side = r.x > 0; /* at the right: a rule on its left; else one above */
    for (int k = 0; k < (side ? r.h : r.w); k++)
        grid_put(g, side ? r.x - 1 : r.x + k, side ? r.y + k : r.y - 1, side ? 0x2502 : 0x2500,
                 STYLE_DIM, 0);
    Lines head, text, notes, q;
    page_lines(u, p, r.w, !side, &head, &text, &notes, &q);
    int room = r.h - 1; /* the hint takes the last row */
    int nh = head.n < room ? head.n : room;
    put_lines(g, &head, 0, nh, r.x, r.y);
    int keep = text.n ? 1 : 0; /* a narration line at least */
    int nq = q.n < room - nh - keep ? q.n : room - nh - keep;
    nq = nq < 0 ? 0 : nq;
    /* then the notes, in sight under the narration, which scrolls */
    int nn = notes.n < room - nh - nq - keep ? notes.n : room - nh - nq - keep;
    nn = nn < 0 ? 0 : nn;
    int gap = nq && room - nh - nn - nq >= 3 ? 1 : 0; /* a blank line when there is room */
    int nt = room - nh - nn - nq - gap;
    nt = nt < 0 ? 0 : nt > text.n ? text.n : nt;
    /* the narration scrolls, never cut: { and } (or Shift-Up/Down) move it */
    int most = text.n - nt > 0 ? text.n - nt : 0;
    int first = u->a.app.lesson_scroll > most ? most : u->a.app.lesson_scroll;
    u->report.lesson_most = most;
    put_lines(g, &text, first, nt, r.x, r.y + nh);
    if (nt > 0 && first > 0)
        grid_puts(g, r.x + r.w - 1, r.y + nh, "\u25b2", 1, STYLE_ACCENT);
    if (nt > 0 && first + nt < text.n)
        grid_puts(g, r.x + r.w - 1, r.y + nh + nt - 1, "\u25bc", 1, STYLE_ACCENT);
    put_lines(g, &notes, 0, nn, r.x, r.y + nh + nt);
    put_lines(g, &q, q.n - nq, nq, r.x, r.y + room - nq);
    draw_hint(u, g, r, first, nt, text.n);
}

void view_lesson_list_draw(const UiState *u, Grid *g)
{
    const LessonState *ls = &u->a.lesson;
    if (!ls->list)
        return;
    int w = g->w - 8 < 76 ? g->w - 8 : 76, rows = g->h - 6;
    rows = rows > ls->list_n ? ls->list_n : rows;
    Rect r = {(g->w - w) / 2, (g->h - rows - 4) / 2, w, rows + 4};
    widget_box(g, r);
    grid_puts(g, r.x + 2, r.y + 1, "Lessons: Up/Down, Enter opens, Esc closes", w - 4, STYLE_TITLE);
    int first = ls->list_sel >= rows ? ls->list_sel - rows + 1 : 0;
    for (int k = 0; k < rows; k++) {
        int i = first + k;
        char buf[160];
        snprintf(buf, sizeof buf, "%2d %-15s %s", i + 1, ls->list_name[i], ls->list_title[i]);
        grid_puts(g, r.x + 2, r.y + 2 + k, buf, w - 4,
                  i == ls->list_sel ? STYLE_LABEL_SEL : STYLE_TEXT);
    }
    if (!ls->list_n)
        grid_puts(g, r.x + 2, r.y + 2, "no lessons found", w - 4, STYLE_DIM);
}
