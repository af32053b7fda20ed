/* lessonclaim.c - the lesson checker's reading of what a page claims
 * (lessonclaim.h): each claim: line checked on the page's own result, and
 * the narration's sentences that state a number, a ranking or a comparison
 * on a page with no claim to check them by.
 *
 * The sentence test is a heuristic, kept narrow so that a page names what
 * it shows without a claim: a number counts when it stands alone as a
 * value ("87.2%", "0.38", "8 numbers"), not when it names a thing ("head
 * 2", "layer 6", "stage 4", "W_q^i", "GPT-3"); a ranking or comparison is
 * one of the words below ("more than", "highest", "most", "top", ...).
 */
#include "lessonclaim.h"

#include <ctype.h>
#include <regex.h>
#include <string.h>
#include <strings.h>

#include "app/lesson.h"

/* Words a number after them names a thing by (head 2, layer 6, ...). */
static const char *const naming[] = {
    "head", "heads",     "layer",   "layers",  "stage",  "stages",   "panel",     "panels",
    "page", "step",      "token",   "seed",    "lesson", "position", "positions", "pos",
    "dim",  "dimension", "row",     "rows",    "column", "columns",  "component", "example",
    "part", "number",    "chapter", "section", NULL,
};

static const char *const ranking =
    "(^|[^a-z])(more|less|fewer|higher|lower|larger|smaller|bigger|greater|stronger|weaker) "
    "than|(^|[^a-z])(highest|lowest|largest|smallest|biggest|strongest|weakest|most|least|top|"
    "twice|half as|at most|at least)([^a-z]|$)";

void lessonclaim_check(Finder *f, const UiState *u)
{
    const LessonPage *p = &f->l->pages[f->page];
    int w = f->w;
    f->w = 0; /* the page's numbers are the same at every size */
    /* the lens only when it is of the result shown (lens claims go on lens pages) */
    const LensView *lv = &u->a.lens;
    const Lens *lens =
        lensview_fresh(lv, u->a.ses.kind, u->a.ses.gen) && lv->ls.n > 0 ? &lv->ls : NULL;
    for (int k = 0; k < p->n_claims; k++) {
        const LessonClaim *c = &f->l->claims[p->claim_first + k];
        LessonClaimVerdict v;
        if (lesson_state_claim(&u->a.lesson, &u->a.app, &u->a.ses.res, lens, k, &v))
            finder_say(f, SHOT_PAGE, "the claim \"%s\" (line %d) cannot be checked: %s", c->text,
                       c->line, v.why);
        else if (!v.holds)
            finder_say(f, SHOT_PAGE,
                       "the claim \"%s\" (line %d) is false: the left side is "
                       "%s, the right %s",
                       c->text, c->line, v.a, v.b);
    }
    f->w = w;
}

static bool is_naming(const char *word, size_t n)
{
    for (int k = 0; naming[k]; k++)
        if (strlen(naming[k]) == n && !strncasecmp(naming[k], word, n))
            return true;
    return false;
}

/* Whether s holds a number standing as a value: digits not inside a word
 * (W_q^1, GPT-3, head_1) and not after a word that makes it a name. */
static bool states_number(const char *s)
{
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) ||
            (p > s && (isalnum((unsigned char)p[-1]) || strchr("_^.,", p[-1]))))
            continue;
        if (p > s + 1 && p[-1] == '-' && isalpha((unsigned char)p[-2]))
            continue;
        const char *e = p;
        while (e > s && e[-1] == ' ')
            e--;
        const char *b = e;
        while (b > s && isalpha((unsigned char)b[-1]))
            b--;
        if (b < e && e < p && is_naming(b, (size_t)(e - b)))
            continue;
        return true;
    }
    return false;
}

/* Calls say for each sentence of the paragraph para that states a number,
 * a ranking or a comparison; *n counts them. */
static void scan_sentences(Finder *f, const regex_t *re, char *para)
{
    for (char *s = para; *s;) {
        char *e = s;
        while (*e && !(strchr(".?!", *e) && (e[1] == ' ' || !e[1])))
            e++;
        char keep = *e ? e[1] : '\0';
        if (*e)
            e[1] = '\0';
        s += strspn(s, " ");
        if (*s && (states_number(s) || !regexec(re, s, 0, NULL, 0)))
            finder_say(f, SHOT_PAGE,
                       "a sentence states a number or a ranking and the page has "
                       "no claim: \"%.70s\"",
                       s);
        if (!*e)
            break;
        e[1] = keep;
        s = e + 1;
    }
}

void lessonclaim_unclaimed(Finder *f)
{
    const LessonPage *p = &f->l->pages[f->page];
    regex_t re;
    if (p->n_claims || regcomp(&re, ranking, REG_EXTENDED | REG_ICASE | REG_NOSUB))
        return;
    int w = f->w;
    f->w = 0;
    char para[2048];
    size_t len = 0;
    for (int k = 0; k <= p->n_text; k++) {
        const char *s = k < p->n_text ? f->l->lines[p->text_first + k] : "";
        bool own = s[0] == ' ' || !s[0]; /* a formula or a table row: a line of its own */
        if (len && (own || k == p->n_text))
            scan_sentences(f, &re, para), len = 0;
        if (own && s[0]) {
            snprintf(para, sizeof para, "%s", s + strspn(s, " "));
            scan_sentences(f, &re, para);
        } else if (!own && len < sizeof para) {
            int m = snprintf(para + len, sizeof para - len, "%s%s", len ? " " : "", s);
            len = m < 0 ? len : len + (size_t)m < sizeof para ? len + (size_t)m : sizeof para - 1;
        }
    }
    f->w = w;
    regfree(&re);
}
