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
#include "train/netresult.h"

/* One page's model, run as the page sets it up. */
typedef struct {
    ModelConfig cfg;
    ModelWeights w;
    NetModel net;      /* the page's trained model (model: DIR), when have_net */
    bool have_net;
    ModelResult r;
    int err;           /* AV_OK, or why the page could not run */
    char problem[256]; /* a sentence for the reader when err != AV_OK */
    int layer, head;   /* 0-based */
    int row;           /* selected query token (0-based), or -1 */
    int key;           /* inspected key token, or -1 */
} HandoutRun;

/* Run page k of l into *run (zeroed first; handout_run_free after, either
 * way). A missing weights or model folder, or a sentence the settings
 * cannot run, is reported in run->err and run->problem, not as a failure:
 * the function returns AV_OK then, and AV_ERR_NOMEM only when memory ran
 * out. sentences gives the text of a page without one (its first entry). */
int handout_run(const Lesson *l, int k, const char *const *sentences, HandoutRun *run);

void handout_run_free(HandoutRun *run);

/* The whole lesson as Markdown to f. Returns AV_OK, AV_ERR_IO when writing
 * failed, or AV_ERR_NOMEM. */
int handout_write(FILE *f, const Lesson *l, const char *const *sentences);

#endif
