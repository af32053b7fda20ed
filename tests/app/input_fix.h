/* input_fix.h - the fixture of the tests that drive app_input
 * (test_input.c, test_input_views.c): the state started as ui_run starts
 * it, keys and lesson keys offered one at a time, a paste typed, the
 * burst's end, and a lesson of two pages. Included by tests/app/ only.
 */
#ifndef ATTNVIZ_INPUT_FIX_H
#define ATTNVIZ_INPUT_FIX_H

#include "test_common.h"

#include <stdio.h>
#include <string.h>

#include "app/action.h"
#include "app/app.h"
#include "core/av.h"

#define TROPHY "The trophy did not fit in the suitcase because it was too big."
#define DATA_IMPORT TEST_DATA_DIR "/import"

typedef struct {
    App a;
    SentenceList list;
    Kind kind; /* the command line's, when open */
    bool have_kind;
} Fix;

/* As ui_run starts: the state on text (NULL: the first example of
 * examples, a --sentences file's text, or NULL: the built-in list) and the
 * command line's c, the defaults when designed (designed heads, the
 * example's setting and note), the kind's settings, the first run. */
static inline void start_on(Fix *f, const char *text, bool designed, const char *examples,
                            ModelConfig c)
{
    if (examples)
        assert_int_equal(sentences_parse(examples, strlen(examples), &f->list), AV_OK);
    else
        assert_int_equal(sentences_builtin(&f->list), AV_OK);
    app_open(&f->a, NULL, f->have_kind ? &f->kind : NULL, 0);
    assert_int_equal(app_init(&f->a.app, &c, text, &f->list, false), AV_OK);
    f->a.app.max_layers = AV_MAX_LAYERS;
    if (f->have_kind)
        kind_config(&f->kind, &f->a.app.cfg);
    if (designed) /* no --preset or sizes given */
        app_defaults(&f->a, text != NULL);
    app_begin(&f->a);
    assert_int_equal(app_settle(&f->a), 0);
    app_kind_line(&f->a);
    assert_int_equal(app_poll(&f->a) & (APP_DO_FAIL | APP_DO_NOMEM), 0);
}

/* start_on with the built-in examples and the default settings. */
static inline void start(Fix *f, const char *text, bool designed)
{
    ModelConfig c;
    model_config_default(&c);
    start_on(f, text, designed, NULL, c);
}

static inline void stop(Fix *f)
{
    app_close(&f->a);
    if (f->have_kind)
        kind_close(&f->kind);
    sentences_free(&f->list);
}

static inline unsigned key(Fix *f, Action a, int arg)
{
    AppInput in = {.action = a, .arg = arg};
    return app_input(&f->a, &in);
}

/* A key with a lesson shown: its lesson input and its action, as the
 * interface reads both from one key. */
static inline unsigned lkey(Fix *f, LessonInput li, int arg, Action a)
{
    AppInput in = {.action = a, .lesson_in = (int)li + 1, .lesson_arg = arg};
    return app_input(&f->a, &in);
}

/* Text typed one character an input, as a paste arrives: no run yet. */
static inline void type(Fix *f, const char *s)
{
    for (; *s; s++) {
        AppInput in = {.action = ACT_NONE, .text = {*s}};
        assert_int_equal(app_input(&f->a, &in), APP_DO_REDRAW);
    }
}

static inline void settle(Fix *f)
{
    assert_int_equal(app_settle(&f->a) & (APP_DO_NOMEM | APP_DO_WORK), 0);
}

static inline const char *token(const Fix *f, int k)
{
    return f->a.ses.res.tokens.tok[k].str;
}

static inline bool starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* A token question, then the PE view. */
static const char lesson_text[] __attribute__((unused)) =
    "title: Walk\n"
    "== One\n"
    "sentence: the cat sat on the mat\n"
    "heads: 2\n"
    "token: cat\n"
    "Narration.\n"
    "ask: Which key does cat attend to most?\n"
    "answer: top\n"
    "== Two\n"
    "view: pe\n"
    "Positions.\n";

#endif
