/* lesson.c - a lesson running in the interface (app/lesson.h): pages
 * applied to the AppState, predictions, reveals computed from the result on
 * screen, and the list of built-in lessons. No curses and no model runs:
 * the caller runs the model when the flags say so and reports back with
 * lesson_state_after_run.
 */
#include "app/lesson.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/weights.h"
#include "app/lessonfit.h"
#include "render/pipeline.h"
#include "io/lesson_answer.h"
#include "io/lesson_builtin.h"

void lesson_state_init(LessonState *ls)
{
    memset(ls, 0, sizeof *ls);
    ls->pick = -1;
}

void lesson_state_free(LessonState *ls)
{
    lesson_free(&ls->lesson);
    model_weights_free(&ls->weights);
    kind_close(&ls->kind); /* zero when borrowed */
    lesson_state_init(ls);
}

void lesson_state_use_model(LessonState *ls, const char *dir, Kind *host)
{
    snprintf(ls->use_model, sizeof ls->use_model, "%s", dir);
    ls->host = host;
}

/* The kind the page's model runs as (when have_model). */
static Kind *page_kind(LessonState *ls)
{
    return ls->borrowed ? ls->host : &ls->kind;
}

const LessonPage *lesson_state_page(const LessonState *ls)
{
    return ls->active && ls->page < ls->lesson.n_pages ? &ls->lesson.pages[ls->page] : NULL;
}

const char *lesson_state_stand_in(const LessonState *ls)
{
    return lesson_state_page(ls) && ls->stand_in[0] ? ls->stand_in : NULL;
}

const ModelWeights *lesson_state_weights(const LessonState *ls)
{
    return ls->have_weights ? &ls->weights : NULL;
}

NetModel *lesson_state_net(LessonState *ls)
{
    return ls->have_model ? kind_trained_model(page_kind(ls)) : NULL;
}

Kind *lesson_state_kind(LessonState *ls)
{
    return ls->have_model ? page_kind(ls) : NULL;
}

/* The page's model (a folder of any kind the table of folder kinds opens,
 * or a hub id in the Hugging Face cache), opened unless it is open already
 * (the host's folder: the host, never opened twice). */
static void load_model(LessonState *ls, const LessonSettings *set)
{
    char path[4096], why[512];
    bool there = set->model && lesson_find_model(&ls->lesson, set->model, path, sizeof path);
    if (ls->have_model && there && !strcmp(path, ls->model_dir))
        return;
    kind_close(&ls->kind); /* zero when borrowed or none */
    ls->have_model = ls->borrowed = false, ls->model_dir[0] = '\0';
    if (!set->model)
        return;
    if (!there) {
        char why_missing[LESSON_PROBLEM_MAX - 32];
        lesson_model_missing(&ls->lesson, set->model, why_missing, sizeof why_missing);
        snprintf(ls->problem, sizeof ls->problem, "%s Toy weights run meanwhile.", why_missing);
        snprintf(ls->stand_in, sizeof ls->stand_in, "the page's model %.200s was not found",
                 set->model);
        return;
    }
    if (ls->host && !strcmp(path, ls->use_model)) {
        ls->have_model = ls->borrowed = true;
        snprintf(ls->model_dir, sizeof ls->model_dir, "%s", path);
        return;
    }
    int err = kind_open_folder(&ls->kind, path, NULL, NULL, why, sizeof why);
    if (err) {
        snprintf(ls->problem, sizeof ls->problem, "The model could not be opened: %.200s",
                 why[0] ? why : av_strerror(err));
        snprintf(ls->stand_in, sizeof ls->stand_in, "the page's model %.200s could not be opened",
                 set->model);
        return;
    }
    ls->have_model = true;
    snprintf(ls->model_dir, sizeof ls->model_dir, "%s", path);
}

/* The page's weights folder, loaded unless it is the one loaded already. */
static void load_weights(LessonState *ls, const LessonSettings *set, const ModelConfig *c)
{
    char path[4096];
    if (!set->weights) {
        if (ls->have_weights)
            model_weights_free(&ls->weights);
        ls->have_weights = false, ls->weights_dir[0] = '\0';
        return;
    }
    bool found = lesson_find_path(&ls->lesson, set->weights, path, sizeof path);
    if (ls->have_weights && !strcmp(path, ls->weights_dir) && ls->weights.d_model == c->d_model)
        return;
    model_weights_free(&ls->weights);
    ls->have_weights = false, ls->weights_dir[0] = '\0';
    const char *which = "";
    if (!found || weights_load(c, path, &ls->weights, &which) != AV_OK) {
        model_weights_free(&ls->weights);
        snprintf(ls->problem, sizeof ls->problem,
                 "The weights folder %s %s: the screen shows "
                 "toy weights instead, and the answers are not the article's.",
                 set->weights, found ? "could not be read" : "was not found");
        return;
    }
    ls->have_weights = true;
    snprintf(ls->weights_dir, sizeof ls->weights_dir, "%s", path);
}

/* Why the page's model cannot show what the page asks for (its view, its
 * cross sentence), as the kind refuses the key that shows it; or NULL. A
 * lesson run on one model (use_model) is refused before it opens when a
 * page's view is one it cannot give (lessonfit_lesson); a page's own model
 * shows the heatmaps and says why. */
static const char *model_refuses(const LessonState *ls, const LessonSettings *set)
{
    const Kind *k = ls->borrowed ? ls->host : &ls->kind;
    if (!ls->have_model)
        return NULL;
    const char *why = set->cross ? kind_refuses(k, KIND_ASK_CROSS) : NULL;
    return why ? why : lessonfit_view(k, set->view);
}

/* The page's settings, its weights folder and its model loaded: the
 * settings it runs with (a model's own sizes), keeping was's limits. */
static ModelConfig page_config(LessonState *ls, const LessonSettings *set, const ModelConfig *was)
{
    ModelConfig c;
    lesson_config(set, &c);
    c.max_tokens = was->max_tokens, c.weights_budget = was->weights_budget;
    c.keep_scores = was->keep_scores;
    load_weights(ls, set, &c);
    load_model(ls, set);
    if (set->weights && !ls->have_weights)
        c.preset = PRESET_RANDOM;
    if (ls->have_model) { /* a model brings its own sizes */
        model_config_default(&c);
        kind_config(page_kind(ls), &c);
        c.max_tokens = was->max_tokens, c.weights_budget = was->weights_budget;
        c.keep_scores = was->keep_scores;
    }
    return c;
}

unsigned lesson_state_goto(LessonState *ls, AppState *s, int k)
{
    const Lesson *l = &ls->lesson;
    k = k < 0 ? 0 : k >= l->n_pages ? l->n_pages - 1 : k;
    ls->page = k;
    const LessonSettings *set = &l->pages[k].set;
    ls->problem[0] = ls->stand_in[0] = '\0';
    ModelConfig c = page_config(ls, set, &s->cfg);
    s->cfg = c;
    const char *text = set->sentence                     ? set->sentence
                       : s->sentences && s->sentences->n ? s->sentences->items[0]
                                                         : "";
    edit_set(&s->text, text);
    const char *refused = model_refuses(ls, set);
    s->cross_on = set->cross && !(ls->have_model && kind_refuses(page_kind(ls), KIND_ASK_CROSS));
    if (set->cross)
        edit_set(&s->cross, set->cross);
    s->field = 0, s->mode = MODE_BROWSE, s->help = false, s->sentence = -1;
    int layer = set->layer ? set->layer : c.layers; /* last: the model's, now it is known */
    s->layer = (layer < c.layers ? layer : c.layers) - 1;
    int h = lesson_head_index(set, &c, s->layer);
    if (h < 0 && !ls->problem[0])
        snprintf(ls->problem, sizeof ls->problem,
                 "No head of this model is labelled \"%.60s\": "
                 "head 1 is shown.",
                 set->head_label);
    s->head = h < 0 ? 0 : h;
    s->fixed_weights = ls->have_weights || ls->have_model;
    s->max_layers = ls->have_weights ? ls->weights.L : ls->have_model ? c.layers : AV_MAX_LAYERS;
    ls->want_stage = set->stage;
    s->zoom = 0;
    app_view_show(s, refused ? VIEW_ID_ATTN : set->view);
    s->sel_row = set->token.index > 0 ? set->token.index - 1 : -1; /* last: after the run */
    s->sel_col = set->key.index > 0 ? set->key.index - 1 : -1;
    /* the page's settings replace an example's: its token to select after
     * the run (the first example's "it") and its own weights */
    s->want_token[0] = '\0', s->example_weights[0] = '\0';
    s->lesson_scroll = 0; /* a page's narration opens at its start */
    ls->resolve = true;
    memset(&ls->notes, 0, sizeof ls->notes); /* the page's own, after its run */
    ls->revealed = ls->predicted = ls->have_answer = ls->correct = false;
    ls->pick = -1, ls->typed[0] = '\0', ls->answer_text[0] = '\0';
    /* what the model cannot show is said as its key's refusal is */
    snprintf(s->msg, sizeof s->msg, "%s", refused ? refused : "");
    s->note_shown = false; /* an example's note was the line's: it went */
    return APP_RUN | APP_WEIGHTS;
}

unsigned lesson_state_start(LessonState *ls, Lesson *l, AppState *s)
{
    lesson_free(&ls->lesson);
    ls->lesson = *l;
    memset(l, 0, sizeof *l);
    if (!ls->active && !s->lesson_kept) { /* what an example brings back after it */
        s->cfg_home = s->example_weights[0] ? s->cfg_before : s->cfg;
        s->max_layers_home = s->max_layers;
    }
    s->lesson_kept = false;
    ls->active = true, ls->list = false;
    return lesson_state_goto(ls, s, 0);
}

/* The answer, computed from the result on screen; and whether the
 * prediction was right. */
static void compute_answer(LessonState *ls, const AppState *s, const ModelResult *r)
{
    const LessonPage *p = lesson_state_page(ls);
    ls->have_answer = false;
    if (!p || p->q.kind == LESSON_ASK_NONE || !r || r->shape.n_q == 0)
        return;
    int row = s->sel_row >= 0 ? s->sel_row : 0;
    int err = lesson_answer(&p->q, r, &s->cfg, s->layer, s->head, row, &ls->answer);
    if (err) { /* the result on screen lacks what the answer reads (model_holds) */
        snprintf(ls->answer_text, sizeof ls->answer_text, "%s",
                 err == AV_ERR_NEEDS_MODEL ? "(not computable from the weights shown here)"
                                           : "(not computable on this sentence)");
        return;
    }
    ls->have_answer = true;
    lesson_answer_text(&ls->answer, r, ls->answer_text, sizeof ls->answer_text);
    const LessonAnswer *a = &ls->answer;
    if (!ls->predicted)
        ls->correct = false;
    else if (p->q.kind == LESSON_ASK_CHOICE)
        ls->correct = ls->pick == a->choice;
    else if (p->q.kind == LESSON_ASK_TOKEN)
        ls->correct = ls->pick == a->token;
    else
        ls->correct = lesson_typed_right(&p->q, a, ls->typed);
}

int lesson_state_claim(const LessonState *ls, const AppState *s, const ModelResult *r,
                       const Lens *lens, int k, LessonClaimVerdict *v)
{
    const LessonPage *p = lesson_state_page(ls);
    memset(v, 0, sizeof *v);
    if (!p || k < 0 || k >= p->n_claims || !r || r->shape.n_q == 0) {
        snprintf(v->why, sizeof v->why, "no result to check it on");
        return AV_ERR_CONFIG;
    }
    int row = s->sel_row >= 0 ? s->sel_row : 0;
    return lesson_answer_claim(&ls->lesson.claims[p->claim_first + k], r, &s->cfg, lens, s->layer,
                               s->head, row, v);
}

void lesson_state_after_run(LessonState *ls, AppState *s, const ModelResult *r)
{
    const LessonPage *p = lesson_state_page(ls);
    if (!p || !r)
        return;
    if (ls->resolve && r->shape.n_q > 0) {
        int i = lesson_token_index(&p->set.token, &r->tokens);
        int j = lesson_token_index(&p->set.key, model_key_tokens(r));
        const LessonTokenRef *t = &p->set.token;
        char which[64];
        if (t->text)
            snprintf(which, sizeof which, "\"%.40s\"", t->text);
        else
            snprintf(which, sizeof which, "%d", t->index);
        if (i < 0 && (t->index || t->text) && !ls->problem[0]) /* another model's tokens */
            snprintf(ls->problem, sizeof ls->problem,
                     "This model splits the sentence into %d "
                     "tokens, none of them token %s: the first is selected.",
                     r->tokens.n, which);
        s->sel_row = i >= 0 ? i : 0;
        s->sel_col = j;
        ls->resolve = false;
        ls->page_layer = s->layer, ls->page_head = s->head, ls->page_row = s->sel_row;
    }
    if (ls->revealed)
        compute_answer(ls, s, r);
    lesson_state_notes_update(ls, s, r, NULL);
}

/* Whether the page runs on a model other than the one it was written for:
 * every page on --model's, or toy weights in place of its model or its
 * weights folder. */
static bool off_model(const LessonState *ls)
{
    const LessonPage *p = lesson_state_page(ls);
    return ls->use_model[0] || ls->stand_in[0] || (p->set.weights && !ls->have_weights);
}

void lesson_state_notes_update(LessonState *ls, const AppState *s, const ModelResult *r,
                               const Lens *lens)
{
    const LessonPage *p = lesson_state_page(ls);
    memset(&ls->notes, 0, sizeof ls->notes);
    if (!p || !r || r->shape.n_q == 0 || ls->resolve || !off_model(ls))
        return;
    int row = ls->page_row < r->shape.n_q ? ls->page_row : r->shape.n_q - 1;
    lessonnote_make(&ls->notes, &ls->lesson.claims[p->claim_first], p->n_claims, r, &s->cfg, lens,
                    ls->page_layer, ls->page_head, row);
}

int lesson_state_notes(const LessonState *ls, const char **line, int max)
{
    const LessonNotes *n = &ls->notes;
    const LessonPage *p = lesson_state_page(ls);
    int k = 0;
    if (!p || !n->n || max < 1)
        return 0;
    for (int i = 0; i < n->n && k < max; i++) {
        const LessonNote *nt = &n->note[i];
        bool hide = false; /* a value the page's question asks for, before its reveal */
        for (int side = 0; side < 2; side++)
            hide |= nt->reads[side] && lesson_state_hides(ls, nt->kind[side]);
        line[k++] = hide ? nt->veiled : nt->said;
    }
    if (n->more && k < max)
        line[k++] = n->more_text;
    return k;
}

static void reveal(LessonState *ls, AppState *s, const ModelResult *r)
{
    const LessonPage *p = lesson_state_page(ls);
    ls->predicted = p->q.kind == LESSON_ASK_NUMBER ? ls->typed[0] != '\0' : ls->pick >= 0;
    ls->revealed = true;
    compute_answer(ls, s, r);
}

/* A question waiting for its prediction takes these inputs. */
static bool question_input(LessonState *ls, AppState *s, const ModelResult *r, LessonInput in,
                           int arg)
{
    const LessonQuestion *q = &lesson_state_page(ls)->q;
    int n = q->kind == LESSON_ASK_CHOICE       ? q->n_choices
            : q->kind == LESSON_ASK_TOKEN && r ? r->shape.n_k
                                               : 0;
    bool back = in == LESSON_IN_LEFT || in == LESSON_IN_UP;
    switch (in) {
    case LESSON_IN_ENTER: reveal(ls, s, r); return true;
    case LESSON_IN_LEFT:
    case LESSON_IN_RIGHT:
    case LESSON_IN_UP:
    case LESSON_IN_DOWN:
        if (n == 0)
            return false;
        ls->pick = ls->pick < 0 ? (back ? n - 1 : 0) : (ls->pick + (back ? n - 1 : 1)) % n;
        if (q->kind == LESSON_ASK_TOKEN)
            s->sel_col = ls->pick; /* the picked key is the inspected cell */
        return true;
    case LESSON_IN_LEAVE: { /* the prediction being made, not the lesson */
        char was[32];
        if (q->kind == LESSON_ASK_NUMBER ? !ls->typed[0] : ls->pick < 0)
            return false;
        if (q->kind == LESSON_ASK_NUMBER)
            snprintf(was, sizeof was, "%s", ls->typed);
        else
            snprintf(was, sizeof was, q->kind == LESSON_ASK_CHOICE ? "(%c)" : "key %d",
                     q->kind == LESSON_ASK_CHOICE ? 'a' + ls->pick : ls->pick + 1);
        if (q->kind == LESSON_ASK_TOKEN)
            s->sel_col = -1; /* the picked key was the inspected cell */
        ls->pick = -1, ls->typed[0] = '\0';
        snprintf(s->msg, sizeof s->msg, "prediction %s cleared: Esc again leaves the lesson", was);
        return true;
    }
    case LESSON_IN_BACKSPACE: {
        size_t len = strlen(ls->typed);
        if (q->kind != LESSON_ASK_NUMBER || !len)
            return q->kind == LESSON_ASK_NUMBER;
        ls->typed[len - 1] = '\0';
        return true;
    }
    case LESSON_IN_CHAR:
        if (q->kind == LESSON_ASK_CHOICE && arg >= 'a' && arg < 'a' + n) {
            ls->pick = arg - 'a';
            return true;
        }
        if (q->kind == LESSON_ASK_NUMBER && (isdigit(arg) || arg == '.' || arg == '-')) {
            size_t len = strlen(ls->typed);
            if (len < LESSON_TYPED_MAX)
                ls->typed[len] = (char)arg, ls->typed[len + 1] = '\0';
            return true;
        }
        return false;
    default: return false;
    }
}

/* The kind of --model's folder, on which a lesson from the list runs: the
 * session's (host), or the one a page of --lesson NAME --model DIR opened
 * from it; NULL when there is none (no --model). */
static const Kind *use_kind(const LessonState *ls)
{
    if (!ls->use_model[0])
        return NULL;
    if (ls->host)
        return ls->host;
    return ls->have_model && !strcmp(ls->model_dir, ls->use_model) ? &ls->kind : NULL;
}

static bool list_input(LessonState *ls, AppState *s, LessonInput in, int arg, unsigned *flags)
{
    if (in == LESSON_IN_CHAR && arg == 'q')
        return false; /* q quits, as everywhere */
    if (in == LESSON_IN_UP || in == LESSON_IN_LEFT || in == LESSON_IN_PREV)
        ls->list_sel = ls->list_sel > 0 ? ls->list_sel - 1 : 0;
    else if (in == LESSON_IN_DOWN || in == LESSON_IN_RIGHT || in == LESSON_IN_NEXT)
        ls->list_sel = ls->list_sel + 1 < ls->list_n ? ls->list_sel + 1 : ls->list_sel;
    else if (in == LESSON_IN_FIRST)
        ls->list_sel = 0;
    else if (in == LESSON_IN_LAST)
        ls->list_sel = ls->list_n > 0 ? ls->list_n - 1 : 0;
    else if (in == LESSON_IN_LEAVE)
        ls->list = false;
    else if (in == LESSON_IN_ENTER && ls->list_n > 0) {
        Lesson l;
        LessonError e;
        int err = lesson_open(ls->list_name[ls->list_sel], &l, &e);
        ls->list = false;
        if (!err && ls->use_model[0] && lesson_use_model(&l, ls->use_model) != AV_OK) {
            lesson_free(&l);
            snprintf(s->msg, sizeof s->msg, "out of memory");
            return true;
        }
        const Kind *k = use_kind(ls);
        if (err)
            snprintf(s->msg, sizeof s->msg, "lesson %.40s: line %d: %.100s",
                     ls->list_name[ls->list_sel], e.line,
                     err == AV_ERR_LESSON ? e.msg : av_strerror(err));
        else if (k && !lessonfit_lesson(&l, k, NULL, s->msg, sizeof s->msg))
            ; /* said on the status line, which the list would hide: o opens it again */
        else
            *flags |= lesson_state_start(ls, &l, s);
        lesson_free(&l); /* zeroed when started */
    }
    return true; /* the list takes every other key it is given while it is open */
}

bool lesson_state_input(LessonState *ls, AppState *s, const ModelResult *r, LessonInput in, int arg,
                        unsigned *flags)
{
    *flags = 0;
    if (ls->list)
        return list_input(ls, s, in, arg, flags);
    const LessonPage *p = lesson_state_page(ls);
    if (!p)
        return false;
    bool asking = p->q.kind != LESSON_ASK_NONE && !ls->revealed;
    /* Esc backs out of what was opened over the page before the page */
    if (in == LESSON_IN_LEAVE &&
        app_view_back(s, model_refuses(ls, &p->set) ? VIEW_ID_ATTN : p->set.view)) {
        snprintf(s->msg, sizeof s->msg, "back to the page's own view");
        return true;
    }
    if (asking && question_input(ls, s, r, in, arg))
        return true;
    int last = ls->lesson.n_pages - 1;
    switch (in) {
    case LESSON_IN_LEAVE:
        ls->active = false;
        s->lesson_kept = true; /* the page's weights stay until an example replaces them */
        snprintf(s->msg, sizeof s->msg, "left the lesson: free exploration of the same screen");
        return true;
    case LESSON_IN_ENTER:
    case LESSON_IN_NEXT:
        if (ls->page == last) {
            snprintf(s->msg, sizeof s->msg, "the last page: Esc leaves the lesson");
            return true;
        }
        *flags = lesson_state_goto(ls, s, ls->page + 1);
        return true;
    case LESSON_IN_PREV:
        if (ls->page > 0)
            *flags = lesson_state_goto(ls, s, ls->page - 1);
        return true;
    case LESSON_IN_CHAR:
        if (arg == 'n' || arg == 'p') /* n / p page, as PgDn / PgUp */
            return lesson_state_input(ls, s, r, arg == 'n' ? LESSON_IN_NEXT : LESSON_IN_PREV, 0,
                                      flags);
        return false;
    default: return false;
    }
}

int lesson_state_list_open(LessonState *ls, AppState *s)
{
    LessonCatalog cat;
    if (lesson_catalog(&cat) != AV_OK)
        return AV_ERR_NOMEM;
    ls->list_n = 0;
    for (int k = 0; k < cat.n && k < LESSON_MAX_BUILTIN; k++) {
        Lesson l;
        LessonError e;
        int err = lesson_parse(cat.text[k], cat.len[k], cat.name[k], "", &l, &e);
        snprintf(ls->list_name[ls->list_n], sizeof ls->list_name[0], "%s", cat.name[k]);
        snprintf(ls->list_title[ls->list_n], sizeof ls->list_title[0], "%s",
                 err ? "(malformed)" : l.title);
        ls->list_n++;
        lesson_free(&l);
    }
    lesson_catalog_free(&cat);
    ls->list = true;
    ls->list_sel = 0;
    if (!ls->list_n)
        snprintf(s->msg, sizeof s->msg, "no built-in lessons: assets/lessons was not found");
    return AV_OK;
}

bool lesson_state_veiled(const LessonState *ls)
{
    const LessonPage *p = lesson_state_page(ls);
    if (!p || p->q.kind == LESSON_ASK_NONE || ls->revealed)
        return false;
    switch (p->q.answer) {
    case LESSON_ANS_VISIBLE:
    case LESSON_ANS_CELLS:
    case LESSON_ANS_TOKENS:
    case LESSON_ANS_DK: /* counts of the result's shape (d_k is its d_model / heads), no
                           cell of the view; the status and cost lines hide d_k and the
                           cells (lesson_state_hides) */
        return false;
    default: return true;
    }
}

bool lesson_state_hides(const LessonState *ls, LessonAnswerKind k)
{
    const LessonPage *p = lesson_state_page(ls);
    return p && p->q.kind != LESSON_ASK_NONE && !ls->revealed && p->q.answer == k;
}

int lesson_state_veil_stage(const LessonState *ls)
{
    if (!lesson_state_veiled(ls))
        return 0;
    switch (lesson_state_page(ls)->q.answer) {
    case LESSON_ANS_DOT: return 1 + PIPE_RAW;
    case LESSON_ANS_SCORE: return 1 + PIPE_SCALED;
    case LESSON_ANS_OUTPUT: return 1 + PIPE_OUT;
    case LESSON_ANS_PE: return 0; /* the pipeline shows no positional encoding */
    default: return 1 + PIPE_WEIGHTS;
    }
}

const char *lesson_state_hint(const LessonState *ls)
{
    const LessonPage *p = lesson_state_page(ls);
    if (!p)
        return "";
    if (p->q.kind == LESSON_ASK_NONE || ls->revealed)
        return ls->page + 1 < ls->lesson.n_pages ? "n/PgDn: next  p/PgUp: back  Esc: leave"
                                                 : "last page  p/PgUp: back  Esc: leave";
    switch (p->q.kind) {
    case LESSON_ASK_TOKEN: return "Left/Right: pick a key; Enter: reveal";
    case LESSON_ASK_CHOICE: {
        static const char *const keys[] = {
            "a-b or Up/Down: choose; Enter: reveal", "a-c or Up/Down: choose; Enter: reveal",
            "a-d or Up/Down: choose; Enter: reveal", "a-e or Up/Down: choose; Enter: reveal",
            "a-f or Up/Down: choose; Enter: reveal", "a-g or Up/Down: choose; Enter: reveal",
            "a-h or Up/Down: choose; Enter: reveal", "a-i or Up/Down: choose; Enter: reveal",
        };
        int n = p->q.n_choices < 2 ? 2 : p->q.n_choices > 9 ? 9 : p->q.n_choices;
        return keys[n - 2]; /* the keys match the choices offered */
    }
    default: return "type a number; Enter: reveal";
    }
}
