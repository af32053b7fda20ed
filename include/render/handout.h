/* handout.h - a lesson written out as Markdown for students: every page's
 * narration, its question with room for a prediction, the answer computed
 * by running the page's model (never written in the lesson), and what the
 * page shows as text (heatmap, pipeline or trace) in a code block.
 */
#ifndef ATTNVIZ_HANDOUT_H
#define ATTNVIZ_HANDOUT_H

#include <stdio.h>

#include "core/model.h"
#include "io/lesson.h"

typedef struct HandoutRun HandoutRun;

/* How a page's model is opened and run, given from above (the app layer's
 * model kinds, app/pagerun.h): the handout does not tell the kinds apart. */
typedef struct {
    /* Open the model the page's settings s name (folders found beside l) into
     * run->model, with run->cfg made the model's. A folder that is missing or
     * unreadable is a problem for the reader (handout_problem), not a failure.
     * Returns AV_OK, or AV_ERR_NOMEM. */
    int (*open)(const Lesson *l, const LessonSettings *s, HandoutRun *run);
    /* Run text (and cross, when not NULL) with run->cfg into run->r. Returns
     * AV_OK or an AV_ERR_* code. */
    int (*run)(HandoutRun *run, const char *text, const char *cross);
    /* Free run->model; accepts NULL. */
    void (*close)(void *model);
    /* The logit lens of the text run last, as --export lens writes it
     * (render/lens.h) at width columns, to f. Returns AV_OK,
     * AV_ERR_NEEDS_MODEL (the page's model predicts no tokens), or another
     * error. NULL: no page has one. */
    int (*lens)(HandoutRun *run, FILE *f, int width);
} HandoutModel;

/* What the command line may change in a handout (the pages set the rest):
 * the code blocks' width in columns (0: HANDOUT_WIDTH), and the limits
 * every page's model runs within, as the interface's pages keep them
 * (0: the defaults). */
typedef struct {
    int width;
    int max_tokens;
    double weights_budget;
} HandoutOptions;

#define HANDOUT_WIDTH 100

/* One page's model, run as the page sets it up. */
struct HandoutRun {
    const HandoutModel *hm;
    ModelConfig cfg;
    void *model; /* hm's: the page's weights or trained model */
    ModelResult r;
    int err;          /* AV_OK, or why the page could not run */
    const char *text; /* the sentence the page runs (its own, or the first example) */
    bool stand_in;    /* the page's model or weights folder did not open: the
                         interface shows toy weights of cfg meanwhile */
    char problem[LESSON_PROBLEM_MAX]; /* a sentence for the reader when err != AV_OK */
    int layer, head;                  /* 0-based */
    int row;                          /* selected query token (0-based), or -1 */
    int key;                          /* inspected key token, or -1 */
    int width;                        /* the code blocks' columns */
};

/* Say why the page cannot show what it should: run->err = err and
 * run->problem the sentence fmt with what in it. Returns AV_OK. */
int handout_problem(HandoutRun *run, int err, const char *fmt, const char *what);

/* Run page k of l with hm into *run (zeroed first; handout_run_free after,
 * either way). A missing weights or model folder, or a sentence the settings
 * cannot run, is reported in run->err and run->problem, not as a failure:
 * the function returns AV_OK then, and AV_ERR_NOMEM only when memory ran
 * out. sentences gives the text of a page without one (its first entry). */
int handout_run(const Lesson *l, int k, const char *const *sentences, const HandoutModel *hm,
                const HandoutOptions *ho, HandoutRun *run);

void handout_run_free(HandoutRun *run);

/* The whole lesson as Markdown to f, each page's model through hm, with
 * ho's width and limits (NULL: the defaults). Returns AV_OK, AV_ERR_IO when
 * writing failed, or AV_ERR_NOMEM. */
int handout_write(FILE *f, const Lesson *l, const char *const *sentences, const HandoutModel *hm,
                  const HandoutOptions *ho);

#endif
