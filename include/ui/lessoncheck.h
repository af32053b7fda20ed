/* lessoncheck.h - `attnviz --lesson NAME|FILE --check`: every page of a
 * lesson drawn off-screen by the interface's own drawing code (no
 * terminal) at the sizes a class meets, before the prediction, after one
 * and after the reveal, and what a student would see wrong on it reported,
 * one line a finding (lessoncheck.c walks the pages, lessonfind.c reads
 * the frames).
 */
#ifndef ATTNVIZ_LESSONCHECK_H
#define ATTNVIZ_LESSONCHECK_H

#include <stdio.h>

#include "core/model.h"
#include "io/sentences.h"

#define LESSONCHECK_MAX_SIZES 8

typedef struct {
    int n_sizes; /* 0: 80x24, 100x30 and 120x40 */
    int w[LESSONCHECK_MAX_SIZES], h[LESSONCHECK_MAX_SIZES];
    const SentenceList *sentences; /* the examples (a page without a sentence) */
    ModelConfig cfg;               /* the command line's starting settings */
    const char *model;             /* --model: every page runs on it, or NULL */
} LessonCheckOptions;

/* Check lesson name (a built-in lesson's name or a file, as lesson_open
 * takes it; label names it in the findings: its file) and write each
 * finding to out as "LABEL:LINE: WxH page K (STATE): what", LINE the
 * page's "==" line. Returns the number of findings (0: clean), or
 * AV_ERR_NOMEM, or the lesson's opening error (lesson_open's). */
int lessoncheck_run(const char *name, const char *label, const LessonCheckOptions *o, FILE *out);

#endif
