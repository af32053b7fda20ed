/* lessoncheck.c - `attnviz --lesson NAME|FILE --check` (ui/lessoncheck.h):
 * a lesson's pages walked as a student walks them, n after n, at each size,
 * each page drawn off-screen by the interface's own composition
 * (frame_draw: the views, labels, status and cost lines, the page and its
 * veil) before the prediction, after one and after the reveal, and every
 * frame read for what a student would see wrong (lessonfind.c,
 * lessonleak.c). No terminal: curses is never started.
 */
#include "ui/lessoncheck.h"

#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "lessonclaim.h"
#include "lessonfind.h"
#include "lessonleak.h"
#include "uistate.h"
#include "views/view_predict.h"
#include "app/app.h"
#include "core/av.h"
#include "io/lesson_builtin.h"

static const int default_w[] = {80, 100, 120}, default_h[] = {24, 30, 40};

/* A page's frames at one size, kept for the pages after it. */
typedef struct {
    Shot last;      /* the page as the student leaves it (revealed, or as it is) */
    LessonAnswer a; /* its answer, when it asks and it could be computed */
    char atext[96];
    bool have;
} PageSeen;

/* Set u up as ui_run does for --lesson, without the terminal: colours as
 * on a 256-colour terminal, the lesson at its first page, run. */
static int open_state(UiState *u, const LessonCheckOptions *o, Lesson *l)
{
    memset(u, 0, sizeof *u);
    app_open(&u->a, NULL, NULL, o->cfg.weights_budget);
    if (app_init(&u->a.app, &o->cfg, NULL, o->sentences, false) != AV_OK)
        return AV_ERR_NOMEM;
    u->a.app.max_layers = AV_MAX_LAYERS;
    u->depth = DEPTH_256, u->hmode = HEATMAP_COLOR;
    u->no_clock = true;
    if (o->model) /* the page then says which of its claims are false, as on screen */
        lesson_state_use_model(&u->a.lesson, o->model, NULL);
    lesson_state_start(&u->a.lesson, l, &u->a.app);
    u->a.pending = APP_RUN | APP_WEIGHTS;
    return app_settle(&u->a) & APP_DO_NOMEM ? AV_ERR_NOMEM : AV_OK;
}

/* What the loop does after keys: the outputs a view needs, then the frame,
 * again when it asked for the predictions (as the loop's idle pass). */
static int settle(UiState *u, int w, int h)
{
    if (app_settle(&u->a) & APP_DO_NOMEM)
        return AV_ERR_NOMEM;
    frame_draw(u, &u->grid, w, h);
    unsigned bits = app_poll(&u->a); /* the predictions the frame wanted */
    if (bits & (APP_DO_NOMEM | APP_DO_FAIL))
        return AV_ERR_NOMEM;
    if (bits & APP_DO_REDRAW)
        frame_draw(u, &u->grid, w, h);
    return AV_OK;
}

/* A lesson input, then the frame. */
static int press(UiState *u, LessonInput in, int arg, int w, int h)
{
    AppInput key = {.lesson_in = (int)in + 1, .lesson_arg = arg};
    if (app_input(&u->a, &key) & APP_DO_NOMEM)
        return AV_ERR_NOMEM;
    return settle(u, w, h);
}

/* Make a prediction on the page's question: the first choice, the first
 * key, or the number 0. */
static int predict(UiState *u, const LessonQuestion *q, int w, int h)
{
    if (q->kind == LESSON_ASK_CHOICE)
        return press(u, LESSON_IN_CHAR, 'a', w, h);
    if (q->kind == LESSON_ASK_TOKEN)
        return press(u, LESSON_IN_RIGHT, 0, w, h);
    return press(u, LESSON_IN_CHAR, '0', w, h);
}

/* The question of page k answered at w x h: a prediction made, the
 * answer revealed, each frame checked, and the answer looked for on the
 * frames before its reveal (before, this page's; seen, the pages
 * before's). */
static int check_question(Finder *f, UiState *u, PageSeen *seen, int k, const Shot *before,
                          bool first)
{
    const LessonPage *p = &f->l->pages[k];
    int w = f->w, h = f->h, row = u->a.app.sel_row;
    Shot pred, shown;
    memset(&shown, 0, sizeof shown);
    int err = predict(u, &p->q, w, h);
    if (err || (err = shot_take(&pred, &u->grid, u)) != AV_OK)
        return err;
    find_frame(f, SHOT_PREDICTED, &pred, u);
    err = press(u, LESSON_IN_ENTER, 0, w, h);
    if (!err)
        err = shot_take(&shown, &u->grid, u);
    if (!err) {
        find_frame(f, SHOT_REVEALED, &shown, u);
        PageSeen *ps = &seen[k];
        ps->have = u->a.lesson.have_answer && u->a.lesson.active && u->a.lesson.page == k;
        ps->a = u->a.lesson.answer;
        snprintf(ps->atext, sizeof ps->atext, "%s", u->a.lesson.answer_text);
        const ModelResult *r = &u->a.ses.res;
        if (ps->have) {
            lessonleak_screen(f, SHOT_BEFORE, before, &ps->a, ps->atext, r, row, -1);
            lessonleak_screen(f, SHOT_PREDICTED, &pred, &ps->a, ps->atext, r, row, -1);
            for (int j = 0; j < k; j++)
                lessonleak_screen(f, SHOT_BEFORE, &seen[j].last, &ps->a, ps->atext, r, row, j);
        }
        if (first) {
            f->w = 0;
            lessonleak_text(f, &ps->a, ps->have);
        }
    }
    shot_free(&pred);
    shot_free(&shown);
    return err;
}

/* Page k's frames at w x h in its states; the findings into f. The page
 * as it opens is kept in seen[k] for the pages after it. */
static int check_page(Finder *f, UiState *u, PageSeen *seen, int k, bool first)
{
    const LessonPage *p = &f->l->pages[k];
    Shot *before = &seen[k].last;
    bool asks = p->q.kind != LESSON_ASK_NONE;
    if (shot_take(before, &u->grid, u) != AV_OK)
        return AV_ERR_NOMEM;
    find_frame(f, asks ? SHOT_BEFORE : SHOT_PAGE, before, u);
    if (first) {
        lessonclaim_check(f, u);
        lessonclaim_unclaimed(f);
    }
    if (asks)
        return check_question(f, u, seen, k, before, first);
    if (first) {
        LessonAnswer none = {0};
        f->w = 0;
        lessonleak_text(f, &none, false);
    }
    return AV_OK;
}

/* Every page of lesson name at w x h, n after n from the first. */
static int check_size(Finder *f, const char *name, const LessonCheckOptions *o, int w, int h,
                      bool first)
{
    Lesson l;
    LessonError e;
    int err = lesson_open(name, &l, &e);
    if (!err && o->model) /* --model: every page on it */
        err = lesson_use_model(&l, o->model);
    if (err) {
        lesson_free(&l);
        return err;
    }
    UiState *u = malloc(sizeof *u);
    PageSeen *seen = calloc((size_t)l.n_pages, sizeof *seen);
    int n = l.n_pages;
    if (!u || !seen) {
        free(u), free(seen), lesson_free(&l);
        return AV_ERR_NOMEM;
    }
    err = open_state(u, o, &l); /* takes l over */
    if (!err)
        err = settle(u, w, h);
    for (int k = 0; k < n && !err; k++) {
        f->page = k, f->w = w, f->h = h;
        err = check_page(f, u, seen, k, first);
        if (!err && k + 1 < n)
            err = press(u, LESSON_IN_NEXT, 0, w, h);
    }
    for (int k = 0; k < n; k++)
        shot_free(&seen[k].last);
    free(seen);
    frame_free(u);
    free(u);
    return err;
}

int lessoncheck_run(const char *name, const char *label, const LessonCheckOptions *o, FILE *out)
{
    Lesson l;
    LessonError e;
    int err = lesson_open(name, &l, &e); /* the pages the findings point into */
    if (!err && o->model)
        err = lesson_use_model(&l, o->model);
    if (err) {
        lesson_free(&l);
        return err;
    }
    Finder f;
    if (finder_init(&f, out, label, &l) != AV_OK) {
        lesson_free(&l);
        return AV_ERR_NOMEM;
    }
    int n = o->n_sizes ? o->n_sizes : 3;
    for (int k = 0; k < n && !err; k++)
        err = check_size(&f, name, o, o->n_sizes ? o->w[k] : default_w[k],
                         o->n_sizes ? o->h[k] : default_h[k], k == 0);
    finder_free(&f);
    lesson_free(&l);
    return err ? err : f.count;
}
