/* lessonleak.c - a question's answer looked for where a student reads it
 * before the reveal, and the checks of a page's text (lessonleak.h).
 *
 * A number is looked for in every form the interface and the lessons write
 * numbers in: a weight of 32.2% as "32.2%", "32%" and "0.32"; a value of
 * 0.5 as "0.5", "0.50", "0.500", "0.5000", "50%" and "50.0%"; an entropy
 * to 2 and 3 decimals; d_k and the weights a head computes as the status
 * and cost lines write them ("d_k 8", "n² 36"). Rows offering the choices,
 * the typed prediction and the colour legend are left out: the answer is
 * one of the choices by design.
 */
#include "lessonleak.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "io/lesson_answer.h"

#define FORMS_MAX 12

typedef struct {
    char text[FORMS_MAX][40];
    bool digit_first[FORMS_MAX]; /* a bare number: no digit, '.' or '-' may precede it */
    int n;
} Forms;

static void add(Forms *fo, bool bare, const char *fmt, double v)
{
    if (fo->n == FORMS_MAX)
        return;
    snprintf(fo->text[fo->n], sizeof fo->text[0], fmt, v);
    for (int k = 0; k < fo->n; k++)
        if (!strcmp(fo->text[k], fo->text[fo->n]))
            return;
    fo->digit_first[fo->n++] = bare;
}

/* The forms a's number is written in (none for a token). */
static void forms_of(const LessonQuestion *q, const LessonAnswer *a, Forms *fo)
{
    fo->n = 0;
    double v = a->value;
    if (a->is_token)
        return;
    switch (q->answer) {
    case LESSON_ANS_DK:
        add(fo, false, "d_k %.0f", v), add(fo, false, "d_k = %.0f", v);
        add(fo, false, "d_k=%.0f", v), add(fo, true, "%.0f numbers per", v);
        return;
    case LESSON_ANS_CELLS:
        add(fo, false, "n\u00b2 %.0f", v), add(fo, false, "n\u00b2 = %.0f", v);
        add(fo, true, "%.0f weights", v);
        return;
    case LESSON_ANS_VISIBLE:
    case LESSON_ANS_TOKENS: return; /* counted from the screen's shape, by design */
    default: break;
    }
    if (!strcmp(a->unit, "%")) {
        add(fo, true, "%.1f%%", v), add(fo, true, "%.0f%%", v);
        if (v < 100)
            add(fo, true, "%.2f", v / 100);
        return;
    }
    add(fo, true, "%.2f", v), add(fo, true, "%.3f", v), add(fo, true, "%.4f", v);
    if (fabs(v * 10 - round(v * 10)) < 1e-9)
        add(fo, true, "%.1f", v);
    if (v >= 0 && v <= 1 && strcmp(a->unit, " bits"))
        add(fo, true, "%.0f%%", v * 100), add(fo, true, "%.1f%%", v * 100);
}

/* Where form k of fo stands in row as a number of its own, or NULL. */
static const char *find_form(const Forms *fo, int k, const char *row)
{
    const char *f = fo->text[k];
    size_t len = strlen(f);
    for (const char *p = row; (p = strstr(p, f)); p++) {
        char b = p > row ? p[-1] : ' ', a = p[len];
        if (fo->digit_first[k] &&
            (isdigit((unsigned char)b) || b == '.' || (b == '-' && f[0] != '-')))
            continue;
        if (isdigit((unsigned char)a) || (a == '.' && isdigit((unsigned char)p[len + 1])))
            continue;
        if (!strncmp(p + len, " ms", 3))
            continue; /* a run's time (0.000 ms off-screen), not a value */
        return p;
    }
    return NULL;
}

/* Rows a prediction is made on (the choices, the typed number) and the
 * colour legend: the answer may stand there by design. */
static bool row_exempt(Finder *f, const char *row)
{
    return !regexec(&f->re[FIND_RE_CHOICE], row, 0, NULL, 0) ||
           !regexec(&f->re[FIND_RE_LEGEND], row, 0, NULL, 0);
}

/* A ranked list's rows in the view ("Cat 38.2% ███", "petted ?"): the
 * key of each, by its index in the keys; a run of two or more whose keys
 * are not in the sentence's order is ranked. The answer token first in it
 * (the top key; the last for the lowest) tells the answer. */
static void find_ranked(Finder *f, ShotState st, const Shot *s, const LessonAnswer *a,
                        const ModelResult *r, const char *when)
{
    const TokenList *keys = model_key_tokens(r);
    const LessonPage *p = &f->l->pages[f->page];
    bool low = p->q.answer == LESSON_ANS_LOW;
    regex_t x;
    if (!keys || a->token < 0 || a->token >= keys->n ||
        regcomp(&x, "(^| )(([0-9]+) )?([^ ]+) +(\\?|[0-9]+\\.[0-9]%)( |$)", REG_EXTENDED))
        return;
    int idx[256], row_of[256], n = 0;
    bool hidden = true;
    for (int y = s->view.y; y <= s->view.y + s->view.h && y < s->h; y++) {
        regmatch_t m[7];
        int i = -1;
        char text[2048], *bar;
        snprintf(text, sizeof text, "%s", y < s->view.y + s->view.h ? s->row[y] : "");
        while ((bar = strstr(text, "\u2502"))) /* side by side: the rule between */
            memset(bar, ' ', 3);
        if (!regexec(&x, text, 7, m, 0)) {
            char word[128];
            snprintf(word, sizeof word, "%.*s", (int)(m[4].rm_eo - m[4].rm_so), text + m[4].rm_so);
            int num = m[3].rm_so >= 0 ? atoi(text + m[3].rm_so) : 0;
            for (int j = 0; j < keys->n && i < 0; j++)
                if (!strcmp(keys->tok[j].str, word) && (!num || num == j + 1))
                    i = j;
            if (i >= 0 && n < 256)
                hidden &= text[m[5].rm_so] == '?';
        }
        if (i >= 0 && n < 256) {
            idx[n] = i, row_of[n++] = y;
            continue;
        }
        bool ranked = false;
        for (int k = 1; k < n; k++)
            ranked |= idx[k] <= idx[k - 1];
        int at = low ? n - 1 : 0;
        char q[96];
        if (n >= 2 && ranked && hidden) {
            finder_say(f, st, "hidden weights listed in ranked order, %s first (row %d: \"%s\")",
                       keys->tok[idx[0]].str, row_of[0] + 1,
                       shot_quote(s->row[row_of[0]], q, sizeof q));
            break;
        }
        if (n >= 2 && ranked && idx[at] == a->token) {
            finder_say(f, st, "the answer %s is %s in a ranked list%s (row %d: \"%s\")",
                       keys->tok[a->token].str, low ? "last" : "first", when, row_of[at] + 1,
                       shot_quote(s->row[row_of[at]], q, sizeof q));
            break;
        }
        n = 0, hidden = true;
    }
    regfree(&x);
}

/* Whether row holds word as a word of its own (a token's label). */
static bool has_word(const char *row, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = row; len && (p = strstr(p, word)); p++) {
        char b = p > row ? p[-1] : ' ', e = p[len];
        if (!isalnum((unsigned char)b) && !isalnum((unsigned char)e))
            return true;
    }
    return false;
}

/* On an earlier page: whether the row speaks of the question's query
 * token (row), or for a weight in per cent of its key (a ranked bar); a
 * number elsewhere is another's. */
static bool row_names(const Finder *f, const LessonAnswer *a, const ModelResult *r, int row,
                      const char *text)
{
    const LessonPage *p = &f->l->pages[f->page];
    const TokenList *keys = model_key_tokens(r);
    int j = lesson_token_index(&p->q.key, keys);
    return (row >= 0 && row < r->tokens.n && has_word(text, r->tokens.tok[row].str)) ||
           (j >= 0 && !strcmp(a->unit, "%") && has_word(text, keys->tok[j].str));
}

void lessonleak_screen(Finder *f, ShotState st, const Shot *s, const LessonAnswer *a,
                       const char *atext, const ModelResult *r, int row, int seen)
{
    const LessonPage *p = &f->l->pages[f->page];
    char when[48] = "", q[96];
    if (seen >= 0)
        snprintf(when, sizeof when, " on page %d, before the question", seen + 1);
    for (int y = 0; y < s->h && seen < 0; y++)
        if (strstr(s->row[y], "??") && !row_exempt(f, s->row[y])) {
            finder_say(f, st, "a placeholder wider than one '?' (row %d: \"%s\")", y + 1,
                       shot_quote(s->row[y], q, sizeof q));
            break; /* a hidden number's width must not tell the answer */
        }
    if (a->is_token) {
        if (seen < 0)
            find_ranked(f, st, s, a, r, when);
        return;
    }
    Forms fo;
    forms_of(&p->q, a, &fo);
    for (int y = 0; y < s->h; y++) {
        if (row_exempt(f, s->row[y]) || (seen >= 0 && !row_names(f, a, r, row, s->row[y])))
            continue;
        for (int k = 0; k < fo.n; k++)
            if (find_form(&fo, k, s->row[y])) {
                finder_say(f, st, "the answer %s is on screen as \"%s\"%s (row %d: \"%s\")", atext,
                           fo.text[k], when, y + 1, shot_quote(s->row[y], q, sizeof q));
                return;
            }
    }
}

/* Words that tell a change of each model setting. */
static bool says(const char *words, const char *re)
{
    regex_t x;
    if (regcomp(&x, re, REG_EXTENDED | REG_ICASE | REG_NOSUB))
        return true;
    bool yes = !regexec(&x, words, 0, NULL, 0);
    regfree(&x);
    return yes;
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Model settings changed from the page before, each one the narration
 * does not speak of. */
static void find_changes(Finder *f)
{
    const LessonPage *p = &f->l->pages[f->page];
    const LessonSettings *a = &f->l->pages[f->page - 1].set, *b = &p->set;
    char words[8192];
    find_page_words(f->l, p, false, words, sizeof words);
    struct {
        bool changed;
        const char *what, *re;
    } ch[] = {
        {a->d_model != b->d_model, "d_model", "d_model|d-model|dimension|numbers per|width"},
        {a->H != b->H, "the number of heads",
         "[0-9]+ heads|(one|a|single|two|three|four|six|eight) heads?|heads:"},
        {a->layers != b->layers, "the number of layers", "layers?"},
        {a->seed != b->seed, "the seed", "seed"},
        {a->causal != b->causal, "the causal mask", "mask|causal|future"},
        {a->pe != b->pe, "positional encoding", "position|PE"},
        {a->scale != b->scale, "scaling", "scal|sqrt|√"},
        {a->temperature != b->temperature, "the temperature", "temperature|temp "},
        {!same(a->weights, b->weights) || !same(a->model, b->model) || a->preset != b->preset,
         "the weights", "weights|model|trained|designed|random"},
    };
    for (size_t k = 0; k < sizeof ch / sizeof ch[0]; k++)
        if (ch[k].changed && !says(words, ch[k].re))
            finder_say(f, SHOT_PAGE, "%s changes from page %d's and the narration does not say so",
                       ch[k].what, f->page);
}

void lessonleak_text(Finder *f, const LessonAnswer *a, bool have)
{
    const LessonPage *p = &f->l->pages[f->page];
    bool told = false;
    for (int k = 0; k < p->n_text; k++)
        told |= f->l->lines[p->text_first + k][0] != '\0';
    if (p->q.kind != LESSON_ASK_NONE && !told)
        finder_say(f, SHOT_PAGE, "a question page with no narration");
    if (f->page > 0)
        find_changes(f);
    if (!have || p->q.kind == LESSON_ASK_NONE)
        return;
    Forms fo;
    forms_of(&p->q, a, &fo);
    for (int j = 0; j < f->page; j++) {
        char words[8192];
        find_page_words(f->l, &f->l->pages[j], true, words, sizeof words);
        for (int k = 0; k < fo.n; k++)
            if (find_form(&fo, k, words)) {
                finder_say(f, SHOT_PAGE, "the text of page %d states the answer as \"%s\"", j + 1,
                           fo.text[k]);
                return;
            }
    }
}
