/* lesson.c - the plain-text lesson format parsed into pages (lesson.h).
 *
 * The file is copied once and cut into lines in place; every string of the
 * Lesson points into that copy. Pages inherit the settings of the page
 * before; each value is checked where it is read, and the combination
 * (heads dividing d_model, the designed preset's size, ...) when the page's
 * settings end. The first problem stops the parse with its line number.
 * Answers to questions are computed in lesson_answer.c; built-in lessons
 * and opening by name are in lesson_builtin.c.
 */
#include "io/lesson.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/av.h"
#include "core/designed.h"
#include "core/utf8.h"
#include "io/lesson_claim.h"
#include "io/lesson_kind.h"
#include "io/lesson_value.h"
#include "io/views.h"

static const char *const setting_names[] = {
    "sentence", "cross",   "weights",     "model", "preset", "d-model", "heads",
    "layers",   "layer",   "head",        "token", "key",    "seed",    "mask",
    "pe",       "scaling", "temperature", "view",  "stage",  "plot",    NULL,
};

static const char *const question_names[] = {"ask",       "answer",  "choice",
                                             "tolerance", "explain", NULL};

typedef struct {
    Lesson *l;
    LessonError *err;
    int line;         /* current line, 1-based */
    LessonPage *page; /* the page being read, or NULL before the first */
    int cap_pages, cap_lines, cap_claims;
    bool in_text;  /* narration has begun on this page */
    bool asked;    /* the page's question has begun */
    bool answered; /* ... and has its answer: line */
    int ask_line;
    bool blank;        /* the last line was blank */
    int set_dims_line; /* the line that set d-model or heads on this page, or 0 */
    bool set_preset, set_weights;
} Parser;

void lesson_settings_default(LessonSettings *s)
{
    memset(s, 0, sizeof *s);
    ModelConfig c;
    model_config_default(&c);
    s->preset = PRESET_RANDOM;
    s->d_model = c.d_model, s->H = c.H, s->layers = c.layers;
    s->head = 1;
    s->seed = c.seed;
    s->causal = c.causal, s->pe = c.pe, s->scale = c.scale;
    s->temperature = c.temperature;
    s->view = VIEW_ID_ATTN;
}

static int perr(Parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(Parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    p->err->line = p->line;
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
    for (char *c = p->err->msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return AV_ERR_LESSON;
}

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

/* The value readers of lesson_value.h, their message turned into the
 * parse error of this line. */
static int val(Parser *p, int err, const char *msg)
{
    return err ? perr(p, "%s", msg) : AV_OK;
}

static int get_int(Parser *p, const char *name, const char *v, long lo, long hi, int *out)
{
    char m[160];
    return val(p, lesson_value_int(name, v, lo, hi, out, m, sizeof m), m);
}

static int get_number(Parser *p, const char *name, const char *v, double lo, double hi, double *out)
{
    char m[160];
    return val(p, lesson_value_number(name, v, lo, hi, out, m, sizeof m), m);
}

static int get_onoff(Parser *p, const char *name, const char *v, bool *out)
{
    char m[160];
    return val(p, lesson_value_onoff(name, v, out, m, sizeof m), m);
}

static int get_token(Parser *p, const char *name, char *v, LessonTokenRef *ref)
{
    char m[160];
    memset(ref, 0, sizeof *ref);
    return val(p, lesson_value_token(name, v, &ref->index, &ref->text, m, sizeof m), m);
}

static int set_stage(Parser *p, const char *v, int *out, int *last)
{
    char m[160];
    return val(p, lesson_value_stage(v, out, last, m, sizeof m), m);
}

/* A path or "none". */
static const char *get_path(const char *v)
{
    return strcmp(v, "none") == 0 ? NULL : v;
}

/* A name of the views table (io/views.h) that a lesson page can show. */
static int set_view(Parser *p, const char *v, ViewId *out)
{
    int k = view_find(v);
    if (k >= 0 && view_info((ViewId)k)->home == VIEW_HOME_STATE) {
        *out = (ViewId)k;
        return AV_OK;
    }
    char names[160];
    view_name_list(names, sizeof names);
    if (k >= 0) /* a view of the interface's own, opened by its key */
        return perr(p, "view %s is the interface's own, no lesson page shows it; view takes %s", v,
                    names);
    return perr(p, "view takes %s, not '%.40s'", names, v);
}

static int set_preset(Parser *p, const char *v, LessonSettings *s)
{
    if (strcmp(v, "designed") == 0)
        s->preset = PRESET_DESIGNED;
    else if (strcmp(v, "random") == 0)
        s->preset = PRESET_RANDOM;
    else
        return perr(p, "preset takes random or designed, not '%.40s'", v);
    p->set_preset = true;
    return AV_OK;
}

static int setting_numeric(Parser *p, const char *key, char *v, LessonSettings *s)
{
    if (!strcmp(key, "d-model") || !strcmp(key, "heads")) {
        p->set_dims_line = p->line;
        return key[0] == 'd' ? get_int(p, key, v, 1, AV_MAX_D_MODEL_OWN, &s->d_model)
                             : get_int(p, key, v, 1, AV_MAX_HEADS, &s->H);
    }
    if (!strcmp(key, "layers"))
        return get_int(p, key, v, 1, AV_MAX_LAYERS, &s->layers);
    if (!strcmp(key, "layer"))
        return !strcmp(v, "last") ? (s->layer = 0, AV_OK)
                                  : get_int(p, key, v, 1, AV_MAX_LAYERS, &s->layer);
    if (!strcmp(key, "head")) {
        s->head_label = NULL;
        if (strspn(v, "0123456789") != strlen(v)) { /* a head by its label */
            s->head = 1, s->head_label = v;
            return AV_OK;
        }
        return get_int(p, key, v, 1, AV_MAX_HEADS, &s->head);
    }
    if (!strcmp(key, "seed")) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (!*v || *end || errno || strchr(v, '-'))
            return perr(p, "seed takes a whole number, not '%.40s'", v);
        s->seed = x;
        return AV_OK;
    }
    double t;
    int err = get_number(p, key, v, 0.01, 100, &t);
    s->temperature = (float)t;
    return err;
}

static int setting(Parser *p, const char *key, char *v)
{
    LessonSettings *s = &p->page->set;
    /* values (a head label, a folder) go into one-line messages */
    for (const unsigned char *c = (const unsigned char *)v; *c; c++)
        if (*c < 0x20 || *c == 0x7f || (c[0] == 0xc2 && c[1] >= 0x80 && c[1] < 0xa0))
            return perr(p, "%s: a value may not hold control characters", key);
    if (!strcmp(key, "sentence")) {
        s->sentence = v;
        return *v ? AV_OK : perr(p, "sentence is empty");
    }
    if (!strcmp(key, "cross")) {
        s->cross = strcmp(v, "off") == 0 ? NULL : v;
        return *v ? AV_OK : perr(p, "cross takes a second sentence or off");
    }
    if (!strcmp(key, "weights")) {
        s->weights = get_path(v);
        p->set_weights = true;
        return AV_OK;
    }
    if (!strcmp(key, "model")) {
        s->model = get_path(v);
        return AV_OK;
    }
    if (!strcmp(key, "preset"))
        return set_preset(p, v, s);
    if (!strcmp(key, "token"))
        return get_token(p, key, v, &s->token);
    if (!strcmp(key, "key"))
        return get_token(p, key, v, &s->key);
    if (!strcmp(key, "mask"))
        return get_onoff(p, key, v, &s->causal);
    if (!strcmp(key, "pe"))
        return get_onoff(p, key, v, &s->pe);
    if (!strcmp(key, "scaling"))
        return get_onoff(p, key, v, &s->scale);
    if (!strcmp(key, "view"))
        return set_view(p, v, &s->view);
    if (!strcmp(key, "stage"))
        return set_stage(p, v, &s->stage, &s->stage_last);
    if (!strcmp(key, "plot")) { /* the PE view's picture a short screen keeps */
        if (strcmp(v, "lines") && strcmp(v, "similarity"))
            return perr(p, "plot takes lines or similarity, not '%.40s'", v);
        s->pe_similarity = !strcmp(v, "similarity");
        return AV_OK;
    }
    return setting_numeric(p, key, v, s);
}

/* The settings of a page are complete: resolve the preset's size and check
 * the combination. Called when narration or the question begins, and at
 * the end of the page. */
static int settings_done(Parser *p)
{
    LessonSettings *s = &p->page->set;
    int at = p->line;
    if (p->set_weights && s->weights && s->preset == PRESET_DESIGNED && p->set_preset)
        return perr(p, "preset designed and weights exclude each other (use weights: none)");
    if (p->set_weights && s->weights)
        s->preset = PRESET_RANDOM;
    if (p->set_preset && s->preset == PRESET_DESIGNED) {
        if (p->set_dims_line && (s->d_model != DESIGNED_D_MODEL || s->H != DESIGNED_HEADS)) {
            p->line = p->set_dims_line;
            return perr(p,
                        "preset designed has d-model %d and %d heads: leave out d-model "
                        "and heads",
                        DESIGNED_D_MODEL, DESIGNED_HEADS);
        }
        s->d_model = DESIGNED_D_MODEL, s->H = DESIGNED_HEADS;
        s->weights = NULL;
    }
    if (s->d_model % s->H) {
        p->line = p->set_dims_line ? p->set_dims_line : at;
        return perr(p, "d-model %d is not divisible by heads %d", s->d_model, s->H);
    }
    if (s->head > s->H)
        return perr(p, "head %d is out of range: the page has %d heads", s->head, s->H);
    if (s->layer > s->layers && !s->model) /* a trained model brings its own layers */
        return perr(p, "layer %d is out of range: the page has %d layers", s->layer, s->layers);
    p->set_dims_line = 0, p->set_preset = p->set_weights = false;
    p->line = at;
    return AV_OK;
}

static int push_line(Parser *p, const char *s)
{
    Lesson *l = p->l;
    if (l->n_lines == p->cap_lines) {
        int cap = p->cap_lines ? 2 * p->cap_lines : 64;
        const char **n = realloc(l->lines, (size_t)cap * sizeof *n);
        if (!n)
            return AV_ERR_NOMEM;
        l->lines = n, p->cap_lines = cap;
    }
    l->lines[l->n_lines++] = s;
    return AV_OK;
}

/* "weight fish", "output 2", "pe 3 0", "top", ... */
static int get_answer(Parser *p, char *v, LessonQuestion *q)
{
    char *arg = v + strcspn(v, " \t");
    if (*arg)
        *arg++ = '\0';
    arg += strspn(arg, " \t");
    int k = (int)lesson_kind_of(v);
    if (k == LESSON_ANS_COUNT)
        return perr(p,
                    "answer takes top, low, weight KEY, score KEY, dot KEY, max, sum, "
                    "entropy, visible, output D, cells, tokens, d_k or pe POS DIM, not '%.30s'",
                    v);
    if (k >= LESSON_ANS_LENS_ROWS)
        return perr(p, "%s reads the logit lens: it is a claim's term, not an answer", v);
    q->answer = (LessonAnswerKind)k;
    bool keyed = k == LESSON_ANS_WEIGHT || k == LESSON_ANS_SCORE || k == LESSON_ANS_DOT;
    if (keyed)
        return *arg ? get_token(p, "answer's key", arg, &q->key)
                    : perr(p, "answer %s needs a key token: '%s 2' or '%s fish'", v, v, v);
    if (k == LESSON_ANS_OUTPUT)
        return get_int(p, "answer output", arg, 1, AV_MAX_D_MODEL_OWN, &q->arg1);
    if (k == LESSON_ANS_PE) {
        char *dim = arg + strcspn(arg, " \t");
        if (*dim)
            *dim++ = '\0';
        dim += strspn(dim, " \t");
        if (get_int(p, "answer pe's position", arg, 0, AV_MAX_TOKENS, &q->arg1) ||
            get_int(p, "answer pe's dimension", dim, 0, AV_MAX_D_MODEL_OWN - 1, &q->arg2))
            return AV_ERR_LESSON;
        return AV_OK;
    }
    return *arg ? perr(p, "answer %s takes nothing after it, not '%.30s'", v, arg) : AV_OK;
}

static int question(Parser *p, const char *key, char *v)
{
    LessonQuestion *q = &p->page->q;
    if (strcmp(key, "ask") == 0) {
        if (q->text)
            return perr(p, "a page asks one question: start a new page with '== Title'");
        if (!*v)
            return perr(p, "ask: needs the question");
        q->text = v;
        q->kind = LESSON_ASK_NUMBER;
        q->tolerance = -1;
        p->asked = true;
        p->ask_line = p->line;
        return AV_OK;
    }
    if (!q->text)
        return perr(p, "%s: belongs to a question: write ask: first", key);
    if (strcmp(key, "answer") == 0) {
        if (p->answered)
            return perr(p, "the question has its answer already");
        p->answered = true;
        int err = get_answer(p, v, q);
        q->kind = q->answer <= LESSON_ANS_LOW ? LESSON_ASK_TOKEN : LESSON_ASK_NUMBER;
        return err;
    }
    if (strcmp(key, "choice") == 0) {
        if (q->n_choices == LESSON_MAX_CHOICES)
            return perr(p, "a question has at most %d choices", LESSON_MAX_CHOICES);
        if (!*v)
            return perr(p, "choice: is empty");
        q->choices[q->n_choices++] = v;
        return AV_OK;
    }
    if (strcmp(key, "tolerance") == 0)
        return get_number(p, key, v, 0, 1e9, &q->tolerance);
    if (!q->n_explain)
        q->explain_first = p->l->n_lines;
    q->n_explain++;
    return push_line(p, v);
}

/* The page ends: its question must be whole. */
static int page_done(Parser *p)
{
    if (!p->page)
        return AV_OK;
    if (!p->asked && !p->in_text) {
        int err = settings_done(p);
        if (err)
            return err;
    }
    LessonQuestion *q = &p->page->q;
    int line = p->line;
    p->line = p->ask_line;
    if (q->text && !p->answered)
        return perr(p, "the question has no answer: line (what to compute, e.g. 'answer: top')");
    if (q->n_choices == 1)
        return perr(p, "a question with choices needs 2 to %d of them", LESSON_MAX_CHOICES);
    if (q->n_choices)
        q->kind = LESSON_ASK_CHOICE;
    /* a trailing paragraph break is no paragraph */
    while (p->page->n_text && !*p->l->lines[p->page->text_first + p->page->n_text - 1])
        p->page->n_text--;
    while (q->n_explain && !*p->l->lines[q->explain_first + q->n_explain - 1])
        q->n_explain--;
    p->line = line;
    return AV_OK;
}

static int page_begin(Parser *p, char *title)
{
    int err = page_done(p);
    if (err)
        return err;
    Lesson *l = p->l;
    if (!l->title)
        return perr(p, "the lesson needs 'title: ...' before its first page");
    if (l->n_pages == LESSON_MAX_PAGES)
        return perr(p, "a lesson has at most %d pages", LESSON_MAX_PAGES);
    if (l->n_pages == p->cap_pages) {
        int cap = p->cap_pages ? 2 * p->cap_pages : 16;
        LessonPage *n = realloc(l->pages, (size_t)cap * sizeof *n);
        if (!n)
            return AV_ERR_NOMEM;
        l->pages = n, p->cap_pages = cap;
    }
    LessonPage *pg = &l->pages[l->n_pages];
    memset(pg, 0, sizeof *pg);
    if (l->n_pages)
        pg->set = l->pages[l->n_pages - 1].set;
    else
        lesson_settings_default(&pg->set);
    l->n_pages++;
    title += strspn(title, "= \t");
    if (!*title)
        return perr(p, "a page needs a title after '=='");
    pg->title = title, pg->line = p->line;
    p->page = pg;
    p->in_text = p->asked = p->answered = p->blank = false;
    p->set_dims_line = 0, p->set_preset = p->set_weights = false;
    return AV_OK;
}

/* "name: value" with a lower-case name: the name (NUL-terminated in place,
 * '_' read as '-') and *value; NULL when the line is not of that form. */
static char *split_key(char *s, char **value)
{
    if (!islower((unsigned char)s[0]))
        return NULL;
    size_t k = 1;
    while (islower((unsigned char)s[k]) || isdigit((unsigned char)s[k]) || s[k] == '-' ||
           s[k] == '_')
        k++;
    if (s[k] != ':' || (s[k + 1] && s[k + 1] != ' ' && s[k + 1] != '\t'))
        return NULL;
    s[k] = '\0';
    for (size_t j = 0; j < k; j++)
        s[j] = s[j] == '_' ? '-' : s[j];
    *value = s + k + 1 + strspn(s + k + 1, " \t");
    return s;
}

static int top_key(Parser *p, const char *key, char *v)
{
    if (p->page)
        return perr(p, "%s: belongs at the top of the file, before the first page", key);
    if (!*v)
        return perr(p, "%s: is empty", key);
    if (key[0] == 't')
        p->l->title = v;
    else
        p->l->summary = v;
    return AV_OK;
}

/* "claim: ...", anywhere on a page. */
static int claim_line(Parser *p, char *v)
{
    Lesson *l = p->l;
    if (!p->page)
        return perr(p, "claim: belongs to a page: start one with '== Title'");
    if (l->n_claims == p->cap_claims) {
        int cap = p->cap_claims ? 2 * p->cap_claims : 16;
        LessonClaim *n = realloc(l->claims, (size_t)cap * sizeof *n);
        if (!n)
            return AV_ERR_NOMEM;
        l->claims = n, p->cap_claims = cap;
    }
    LessonClaim *c = &l->claims[l->n_claims];
    char msg[160];
    if (lesson_claim_parse(v, c, msg, sizeof msg))
        return perr(p, "%s", msg);
    c->line = p->line;
    if (!p->page->n_claims)
        p->page->claim_first = l->n_claims;
    p->page->n_claims++, l->n_claims++;
    return AV_OK;
}

static int keyed_line(Parser *p, const char *key, char *v)
{
    if (!strcmp(key, "title") || !strcmp(key, "summary"))
        return top_key(p, key, v);
    if (!strcmp(key, "claim"))
        return claim_line(p, v);
    bool is_set = in_list(setting_names, key), is_q = in_list(question_names, key);
    if (!is_set && !is_q)
        return perr(p, "unknown setting '%s:' (start the line with '\\' if it is narration)", key);
    if (!p->page)
        return perr(p, "%s: belongs to a page: start one with '== Title'", key);
    if (is_set && (p->in_text || p->asked))
        return perr(p,
                    "%s: comes too late: a page's settings come before its text and "
                    "question",
                    key);
    if (is_set)
        return setting(p, key, v);
    if (!p->in_text && !p->asked) {
        int err = settings_done(p);
        if (err)
            return err;
    }
    return question(p, key, v);
}

static int text_line(Parser *p, char *s)
{
    if (!p->page)
        return perr(p, "text before the first page: start a page with '== Title'");
    if (p->asked)
        return perr(p, "text after ask: goes in explain: lines (or start a new page)");
    if (!p->in_text) {
        int err = settings_done(p);
        if (err)
            return err;
        p->in_text = true;
        p->page->text_first = p->l->n_lines;
    }
    if (p->blank && p->page->n_text) {
        int err = push_line(p, "");
        if (err)
            return err;
        p->page->n_text++;
    }
    p->page->n_text++;
    return push_line(p, s[0] == '\\' ? s + 1 : s);
}

static int parse_line(Parser *p, char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    if (utf8_valid_prefix(s, n) != n)
        return perr(p, "invalid UTF-8 at byte %zu of the line", utf8_valid_prefix(s, n) + 1);
    if (!n) {
        p->blank = true;
        if (p->asked && p->page->q.n_explain)
            return question(p, "explain", s);
        return AV_OK;
    }
    int err;
    char *value;
    const char *key;
    if (s[0] == '#')
        err = AV_OK;
    else if (s[0] == '=' && s[1] == '=')
        err = page_begin(p, s);
    else if ((key = split_key(s, &value)) != NULL)
        err = keyed_line(p, key, value);
    else
        err = text_line(p, s);
    p->blank = false;
    return err;
}

int lesson_parse(const char *data, size_t len, const char *name, const char *dir, Lesson *out,
                 LessonError *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    Parser p = {.l = out, .err = err};
    int rc = AV_OK;
    out->buf = malloc(len + 1);
    out->name = strdup(name ? name : "");
    out->dir = strdup(dir ? dir : "");
    if (!out->buf || !out->name || !out->dir)
        rc = AV_ERR_NOMEM;
    if (!rc && len > LESSON_MAX_BYTES) {
        snprintf(err->msg, sizeof err->msg, "larger than the %d KiB a lesson may have",
                 LESSON_MAX_BYTES / 1024);
        rc = AV_ERR_LESSON;
    }
    if (!rc && memchr(data, '\0', len)) {
        snprintf(err->msg, sizeof err->msg, "the file holds a NUL byte: not a text file");
        rc = AV_ERR_LESSON;
    }
    char *s = out->buf;
    if (!rc) {
        memcpy(s, data, len);
        s[len] = '\0';
    }
    while (!rc && *s) {
        char *nl = strchr(s, '\n');
        if (nl)
            *nl = '\0';
        p.line++;
        rc = parse_line(&p, s);
        s = nl ? nl + 1 : s + strlen(s);
    }
    if (!rc)
        rc = page_done(&p);
    if (!rc && !out->n_pages) {
        p.line = 0;
        rc = perr(&p, out->title ? "the lesson has no page: start one with '== Title'"
                                 : "not a lesson: no 'title:' line and no page");
    }
    if (!rc && !out->summary)
        out->summary = "";
    if (rc) {
        lesson_free(out);
        if (rc == AV_ERR_LESSON && err->line == 0 && p.line && !err->msg[0])
            err->line = p.line;
    }
    return rc;
}

void lesson_free(Lesson *l)
{
    free(l->pages);
    free(l->lines);
    free(l->claims);
    free(l->buf);
    free((char *)l->name);
    free((char *)l->dir);
    free(l->model);
    memset(l, 0, sizeof *l);
}
