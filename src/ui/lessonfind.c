/* lessonfind.c - what the lesson checker finds on one drawn frame of a
 * lesson page, and in a page's text (lessonfind.h).
 *
 * A frame is read as a student reads the terminal: rows of text, the view
 * on the left or above, the page at the right or below. The checks are the
 * ones the tmux walks once made on captures (an answer's forms before its
 * reveal, the selected token's picture) and more: the status and cost lines
 * are searched too,
 * the narration must be on screen whole, not scrolled, and what the page
 * names (a head, a layer, a pipeline stage, every head) must be drawn.
 */
#include "lessonfind.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "render/grid.h"

static const char *const patterns[FIND_RE_COUNT] = {
    [FIND_RE_ERROR] = "error|not computable|too small",
    [FIND_RE_CHOICE] = "\\([a-i]\\) |your prediction:",
    [FIND_RE_LEGEND] = "0 +5 +25 +50 +100%",
    [FIND_RE_HEAD] = "(^|[^a-z_])heads? ([0-9]+)((, | and | or | to )([0-9]+))?",
    [FIND_RE_LAYER] = "(^|[^a-z_])layer ([0-9]+)",
    [FIND_RE_STAGE] = "(^|[^a-z_])(stage|panel)s? ([1-8])((, | and | to |-)([1-8]))?",
    [FIND_RE_EVERY_HEAD] = "(^|[^a-z])(every head|all (the |its |[0-9]+ |two |three |four |six "
                           "|eight )?heads|each head|heads side by side|small multiples)",
};

static const char *const state_name[] = {"no question", "before the prediction",
                                         "after a prediction", "after the reveal"};

int finder_init(Finder *f, FILE *out, const char *label, const Lesson *l)
{
    memset(f, 0, sizeof *f);
    f->out = out, f->label = label, f->l = l;
    for (int k = 0; k < FIND_RE_COUNT; k++)
        if (regcomp(&f->re[k], patterns[k], REG_EXTENDED | REG_ICASE)) {
            for (int j = 0; j < k; j++)
                regfree(&f->re[j]);
            return AV_ERR_NOMEM;
        }
    f->re_ok = true;
    return AV_OK;
}

void finder_free(Finder *f)
{
    for (int k = 0; f->re_ok && k < FIND_RE_COUNT; k++)
        regfree(&f->re[k]);
    f->re_ok = false;
}

void finder_say(Finder *f, ShotState st, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const LessonPage *p = &f->l->pages[f->page];
    if (f->w)
        fprintf(f->out, "%s:%d: %dx%d page %d (%s): %s\n", f->label, p->line, f->w, f->h,
                f->page + 1, state_name[st], msg);
    else
        fprintf(f->out, "%s:%d: page %d: %s\n", f->label, p->line, f->page + 1, msg);
    f->count++;
}

/* Row y's columns x0 .. x0+w-1 as UTF-8 into buf (size bytes), trailing
 * blanks cut. */
static void cells_text(const Grid *g, int x0, int y, int w, char *buf, size_t size)
{
    size_t len = 0, keep = 0;
    for (int x = x0; x < x0 + w && x < g->w; x++) {
        const Cell *c = grid_at((Grid *)g, x, y);
        if (!c || c->cp == 0) /* the right half of a wide character */
            continue;
        char u[4];
        int n = utf8_encode(c->cp, u);
        if (len + (size_t)n + 1 > size)
            break;
        memcpy(buf + len, u, (size_t)n), len += (size_t)n;
        if (c->cp != ' ')
            keep = len;
    }
    buf[keep] = '\0';
}

/* The pipeline stages whose titles ("4 Q_h K_h^T: raw scores") the view shows. */
static int stage_titles(const Grid *g, Rect r)
{
    int bits = 0;
    for (int y = r.y; y < r.y + r.h; y++)
        for (int x = r.x; x + 1 < r.x + r.w; x++) {
            const Cell *c = grid_at((Grid *)g, x, y), *n = grid_at((Grid *)g, x + 1, y);
            const Cell *b = x > r.x ? grid_at((Grid *)g, x - 1, y) : NULL;
            if (c && n && c->style == STYLE_TITLE && c->cp >= '1' && c->cp <= '8' && n->cp == ' ' &&
                n->style == STYLE_TITLE && (!b || b->style != STYLE_TITLE || b->cp == ' '))
                bits |= 1 << (c->cp - '1');
        }
    return bits;
}

int shot_take(Shot *s, const Grid *g, const UiState *u)
{
    memset(s, 0, sizeof *s);
    s->row = calloc((size_t)g->h, sizeof *s->row);
    if (!s->row)
        return AV_ERR_NOMEM;
    s->w = g->w, s->h = g->h;
    size_t size = (size_t)g->w * 4 + 1;
    for (int y = 0; y < g->h; y++) {
        if (!(s->row[y] = malloc(size)))
            return AV_ERR_NOMEM;
        cells_text(g, 0, y, g->w, s->row[y], size);
    }
    s->view = u->lay.view, s->page = u->lay.page;
    s->stages = u->a.app.view == VIEW_ID_PIPELINE ? stage_titles(g, s->view) : 0;
    s->n_tiles = u->lay.n_tiles, s->have_focus = u->lay.have_focus;
    return AV_OK;
}

void shot_free(Shot *s)
{
    for (int y = 0; s->row && y < s->h; y++)
        free(s->row[y]);
    free(s->row);
    memset(s, 0, sizeof *s);
}

/* Whitespace runs as one space, none at the ends; ▲ and ▼ (the narration's
 * scroll marks) dropped. Writes at most size bytes. */
static void squash(const char *s, char *out, size_t size)
{
    size_t n = 0;
    bool space = false;
    for (; *s && n + 1 < size; s++) {
        if (!strncmp(s, "\u25b2", 3) || !strncmp(s, "\u25bc", 3)) {
            s += 2, space = true;
            continue;
        }
        if (*s == ' ' || *s == '\t') {
            space = n > 0;
            continue;
        }
        if (space && n + 2 < size)
            out[n++] = ' ';
        space = false;
        out[n++] = *s;
    }
    out[n] = '\0';
}

/* Bytes of the character at p (1 for a byte that starts none). */
static int step(const char *p)
{
    unsigned cp;
    int n = utf8_decode(p, strlen(p), &cp);
    return n > 0 ? n : 1;
}

/* A row cut to the columns of r (a column is a character). */
static void row_part(const char *row, Rect r, char *out, size_t size)
{
    const char *p = row, *e;
    for (int x = 0; x < r.x && *p; x++)
        p += step(p);
    e = p;
    for (int x = 0; x < r.w && *e; x++)
        e += step(e);
    size_t len = (size_t)(e - p) < size - 1 ? (size_t)(e - p) : size - 1;
    memcpy(out, p, len), out[len] = '\0';
}

/* The text of rect r of s: its rows' parts joined with one space, squashed. */
static char *rect_text(const Shot *s, Rect r)
{
    size_t cap = (size_t)(r.w * 4 + 2) * (size_t)(r.h > 0 ? r.h : 1) + 1, len = 0;
    char *buf = malloc(cap), part[2048];
    if (!buf)
        return NULL;
    buf[0] = '\0';
    for (int y = r.y; y < r.y + r.h && y < s->h; y++) {
        row_part(s->row[y], r, part, sizeof part);
        len += (size_t)snprintf(buf + len, cap - len, "%s ", part);
    }
    char *out = malloc(len + 1);
    if (out)
        squash(buf, out, len + 1);
    free(buf);
    return out;
}

/* A row quoted in a finding: squashed, at most 72 bytes. */
const char *shot_quote(const char *row, char *buf, size_t size)
{
    char sq[1024];
    squash(row, sq, sizeof sq);
    snprintf(buf, size, "%.72s", sq);
    size_t n = strlen(buf), k = n;
    while (k > 0 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80)
        k--; /* back to the start of the last character */
    if (k > 0 && ((unsigned char)buf[k - 1] & 0x80) && n - k + 1 < (size_t)step(buf + k - 1))
        buf[k - 1] = '\0'; /* cut short: drop it whole */
    return buf;
}

/* Paragraphs of narration lines first .. first+n as view_lesson.c lays
 * them out (lines joined, a line starting with a space on its own), each
 * squashed; calls fn for each. Returns the first paragraph fn refused, or
 * -1. */
static int paragraphs(const Lesson *l, int first, int n, const char *hay, char *missing,
                      size_t size)
{
    char para[2048], sq[2048];
    size_t len = 0;
    for (int k = 0; k <= n; k++) {
        const char *s = k < n ? l->lines[first + k] : "";
        bool own = s[0] == ' ' || !s[0];
        if (len && (own || k == n)) {
            squash(para, sq, sizeof sq);
            if (sq[0] && !strstr(hay, sq)) {
                snprintf(missing, size, "%s", sq);
                return k;
            }
            len = 0;
        }
        if (k == n)
            break;
        if (own && s[0]) {
            squash(s, sq, sizeof sq);
            if (!strstr(hay, sq)) {
                snprintf(missing, size, "%s", sq);
                return k;
            }
        } else if (!own) {
            int m = snprintf(para + len, sizeof para - len, "%s%s", len ? " " : "", s);
            len = m < 0 ? len : len + (size_t)m < sizeof para ? len + (size_t)m : sizeof para - 1;
        }
    }
    return -1;
}

/* The page shown: its header, its title, its narration, question and
 * answer whole. */
static void find_page_text(Finder *f, ShotState st, const Shot *s)
{
    const LessonPage *p = &f->l->pages[f->page];
    if (s->page.w <= 0 || s->page.h <= 0) {
        finder_say(f, st, "the lesson's page is not drawn");
        return;
    }
    char *hay = rect_text(s, s->page), want[2048], head[64];
    if (!hay)
        return;
    snprintf(head, sizeof head, "Lesson %d/%d: ", f->page + 1, f->l->n_pages);
    if (!strstr(hay, head))
        finder_say(f, st, "no \"%s\" header on the page", head);
    squash(p->title, want, sizeof want);
    if (!strstr(hay, want))
        finder_say(f, st, "the page's title \"%.60s\" is not whole on screen", want);
    if (strstr(hay, "\u2026"))
        finder_say(f, st, "a line of the page is cut short with '\u2026'");
    int k = paragraphs(f->l, p->text_first, p->n_text, hay, want, sizeof want);
    if (k >= 0) {
        const char *more = strstr(hay, " text ");
        char where[48] = "";
        int a, b, t;
        if (more && sscanf(more, " text %d-%d of %d", &a, &b, &t) == 3)
            snprintf(where, sizeof where, " (lines %d-%d of %d shown)", a, b, t);
        finder_say(f, st, "the narration is not whole on screen%s: \"%.60s\"", where, want);
    }
    if (p->q.kind != LESSON_ASK_NONE) {
        squash(p->q.text, want, sizeof want);
        if (!strstr(hay, want))
            finder_say(f, st, "the question is not whole on screen: \"%.60s\"", want);
    }
    if (st == SHOT_REVEALED) {
        const char *ans = strstr(hay, "answer: ");
        if (!ans)
            finder_say(f, st, "no answer line after the reveal");
        else if (!strncmp(ans, "answer: (not computable", 23))
            finder_say(f, st, "the answer is not computable: \"%.60s\"", ans);
        k = paragraphs(f->l, p->q.explain_first, p->q.n_explain, hay, want, sizeof want);
        if (k >= 0)
            finder_say(f, st, "the explanation is not whole on screen: \"%.60s\"", want);
    }
    free(hay);
}

/* Rows of the view rect, as row_part cuts them. */
static void view_rows(const Shot *s, char (*rows)[1024], int *n)
{
    *n = 0;
    for (int y = s->view.y; y < s->view.y + s->view.h && y < s->h; y++)
        row_part(s->row[y], s->view, rows[(*n)++], sizeof rows[0]);
}

static bool rows_match(char (*rows)[1024], int n, const char *re)
{
    regex_t x;
    if (regcomp(&x, re, REG_EXTENDED | REG_NOSUB))
        return false;
    bool found = false;
    for (int k = 0; k < n && !found; k++)
        found = regexec(&x, rows[k], 0, NULL, 0) == 0;
    regfree(&x);
    return found;
}

/* A token's text as a literal in an extended regex. */
static void re_quote(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 3 < size; s++) {
        if (strchr(".[]()*+?{}|^$\\", *s))
            out[n++] = '\\';
        out[n++] = *s;
    }
    out[n] = '\0';
}

/* The picture checks: the selected token's heatmap row, the
 * pipeline's query row, the positional encodings' picture the page asks. */
static void find_picture(Finder *f, ShotState st, const Shot *s, const UiState *u)
{
    static char rows[256][1024];
    int n;
    view_rows(s, rows, &n);
    char re[512], q[256];
    regmatch_t m[4];
    regex_t tok;
    bool pipe = false, pe = false;
    for (int k = 0; k < n; k++)
        pipe |= strstr(rows[k], "Pipeline of head") != NULL,
            pe |= strstr(rows[k], "PE matrix:") != NULL;
    if (pipe) {
        for (int k = 0; k < n; k++) {
            const char *at = strstr(rows[k], "query ");
            if (!at)
                continue;
            char word[128];
            if (sscanf(at, "query %127s", word) != 1)
                continue;
            re_quote(word, q, sizeof q);
            snprintf(re, sizeof re, "^>%s( |$)", q);
            if (!rows_match(rows, n, re))
                finder_say(f, st, "the pipeline draws no row of its query %s", word);
            return;
        }
        return;
    }
    if (pe) {
        const LessonSettings *set = &f->l->pages[f->page].set;
        bool lines =
            rows_match(rows, n, "dim [0-9]+ = (sin|cos)\\(pos / 10000\\^\\(") && u->lay.have_pe;
        bool sim =
            rows_match(rows, n, "cos\\(PE\\(i\\), PE\\(j\\)\\)") /* each form of its title */ &&
            u->lay.have_sim;
        if (set->pe_similarity && !sim)
            finder_say(f, st,
                       "the positional encodings view draws no similarity (plot: similarity)");
        else if (!set->pe_similarity && !lines)
            finder_say(f, st, "the positional encodings view draws no line plot");
        return;
    }
    /* the bars' title, "Token 3 she attends to" or, narrow, "3 she attends to" */
    if (regcomp(&tok, "(Token )?([0-9]+) ([^ ]+) attends to", REG_EXTENDED))
        return;
    for (int k = 0; k < n; k++) {
        if (regexec(&tok, rows[k], 4, m, 0))
            continue;
        char num[16], word[256];
        snprintf(num, sizeof num, "%.*s", (int)(m[2].rm_eo - m[2].rm_so), rows[k] + m[2].rm_so);
        snprintf(word, sizeof word, "%.*s", (int)(m[3].rm_eo - m[3].rm_so), rows[k] + m[3].rm_so);
        re_quote(word, q, sizeof q);
        snprintf(re, sizeof re, "^ *%s %s( |$)", num, q);
        if (!rows_match(rows, n, re))
            finder_say(f, st, "no heatmap row of token %s %s", num, word);
        regfree(&tok);
        return;
    }
    regfree(&tok);
    bool titled = false;
    for (int k = 0; k < n; k++)
        titled |= strstr(rows[k], "Head ") != NULL;
    if (titled &&
        !rows_match(rows, n, "^ *[0-9]+ [^ ]+ +[?0-9 \u00b7\u2591\u2592\u2593\u2588\u2573]"))
        finder_say(f, st, "no heatmap row at all");
}

/* The text a student reads about the page: narration, question and, once
 * revealed, the explanation, joined into buf. */
void find_page_words(const Lesson *l, const LessonPage *p, bool revealed, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < p->n_text && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s ", l->lines[p->text_first + k]);
    if (p->q.kind != LESSON_ASK_NONE && len < size)
        len += (size_t)snprintf(buf + len, size - len, "%s ", p->q.text);
    for (int k = 0; revealed && k < p->q.n_explain && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s ", l->lines[p->q.explain_first + k]);
}

bool shot_has(const Shot *s, const char *fmt, int v)
{
    char re[160], part[2048];
    snprintf(re, sizeof re, fmt, v);
    regex_t x;
    if (regcomp(&x, re, REG_EXTENDED | REG_ICASE | REG_NOSUB))
        return true;
    bool found = false, side = s->page.w > 0 && s->page.x > 0;
    for (int y = 0; y < s->h && !found; y++) {
        bool beside = side && y >= s->page.y && y < s->page.y + s->page.h;
        Rect left = {0, 0, beside ? s->page.x - 1 : s->w, 1}; /* the status lines: whole */
        bool below = !side && s->page.w > 0 && y >= s->page.y - 1 && y < s->page.y + s->page.h;
        if (below && y < s->h - 3) /* the page, not the status and cost lines under it */
            continue;
        row_part(s->row[y], left, part, sizeof part);
        found = regexec(&x, part, 0, NULL, 0) == 0;
    }
    regfree(&x);
    return found;
}

/* Pipeline stage k's bit (1-8), 0 for any other k. */
static int stage_bit(int k)
{
    return k >= 1 && k <= 8 ? 1 << (k - 1) : 0;
}

/* The heads, layers and pipeline stages the page's text (and settings)
 * name, each drawn; every head drawn when the text speaks of every head. */
static void find_names(Finder *f, ShotState st, const Shot *s, const UiState *u)
{
    const LessonPage *p = &f->l->pages[f->page];
    char words[8192];
    find_page_words(f->l, p, st == SHOT_REVEALED, words, sizeof words);
    int H = u->a.app.cfg.H, L = u->a.app.cfg.layers;
    regmatch_t m[8];
    for (const char *w = words; !regexec(&f->re[FIND_RE_HEAD], w, 8, m, 0); w += m[0].rm_eo) {
        for (int g = 2; g <= 5; g += 3) {
            if (m[g].rm_so < 0)
                continue;
            int h = atoi(w + m[g].rm_so);
            if (h < 1 || h > H)
                finder_say(f, st, "the text names head %d; the model has %d heads", h, H);
            else if (!shot_has(s, "(^|[^a-z0-9])(head|h) ?%d([^0-9]|$)", h))
                finder_say(f, st, "the text names head %d, which is not drawn", h);
        }
    }
    for (const char *w = words; !regexec(&f->re[FIND_RE_LAYER], w, 8, m, 0); w += m[0].rm_eo) {
        int l = atoi(w + m[2].rm_so);
        if (l < 1 || l > L)
            finder_say(f, st, "the text names layer %d; the model has %d layers", l, L);
        else if (!shot_has(s, "layer %d([^0-9]|$)", l))
            finder_say(f, st, "the text names layer %d, which is not shown", l);
    }
    if (u->a.app.view == VIEW_ID_PIPELINE) {
        int want = 0;
        for (int k = p->set.stage; k && k <= (p->set.stage_last ? p->set.stage_last : k); k++)
            want |= stage_bit(k);
        for (const char *w = words; !regexec(&f->re[FIND_RE_STAGE], w, 8, m, 0); w += m[0].rm_eo) {
            int a = atoi(w + m[3].rm_so), b = m[6].rm_so >= 0 ? atoi(w + m[6].rm_so) : a;
            for (int k = a; k <= b && k <= 8; k++)
                want |= stage_bit(k);
        }
        for (int k = 0; k < 8; k++)
            if ((want & (1 << k)) && !(s->stages & (1 << k)))
                finder_say(f, st, "the page names pipeline stage %d, which is not drawn", k + 1);
    }
    if (u->a.app.view == VIEW_ID_ATTN && H > 1 &&
        !regexec(&f->re[FIND_RE_EVERY_HEAD], words, 1, m, 0) && s->n_tiles < H)
        finder_say(f, st, "the text speaks of every head (\"%.*s\"); %d of %d heads are drawn",
                   (int)(m[0].rm_eo - m[0].rm_so), words + m[0].rm_so, s->n_tiles, H);
}

void find_frame(Finder *f, ShotState st, const Shot *s, const UiState *u)
{
    char q[96];
    regmatch_t m[1];
    for (int y = 0; y < s->h; y++)
        if (!regexec(&f->re[FIND_RE_ERROR], s->row[y], 1, m, 0)) {
            finder_say(f, st, "the screen says \"%.*s\" (row %d: \"%s\")",
                       (int)(m[0].rm_eo - m[0].rm_so), s->row[y] + m[0].rm_so, y + 1,
                       shot_quote(s->row[y], q, sizeof q));
            break;
        }
    if (s->w < UI_MIN_W || s->h < UI_MIN_H)
        return;
    find_page_text(f, st, s);
    find_picture(f, st, s, u);
    find_names(f, st, s, u);
}
