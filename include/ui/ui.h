/* ui.h - the ncurses front end, started by main.c after the command line and
 * every input file have been checked (errors before curses starts, as ncdu).
 */
#ifndef ATTNVIZ_UI_H
#define ATTNVIZ_UI_H

#include <stdbool.h>

#include "app/kind.h"
#include "app/trainview.h"
#include "core/model.h"
#include "io/lesson.h"
#include "io/sentences.h"

typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct {
    ModelConfig cfg;               /* starting settings from the command line */
    const char *text;              /* starting sentence; NULL = the first example */
    const char *cross;             /* second sentence for cross-attention, or NULL */
    const SentenceList *sentences; /* examples cycled with a key (never empty) */
    const ModelWeights *weights;   /* from --weights, or NULL for toy weights */
    ColorMode color;
    bool defaults;         /* no --preset, --heads or --d-model: the interface
                              chooses (the designed heads, on the first example) */
    Kind *kind;            /* --model or --attention: the kind that runs instead of the
                              pipeline (cfg is its, text an import's tokens' text; the
                              caller opens it and closes it after), or NULL */
    TrainView *train;      /* --train: the live training view first (set up by the
                              caller, who frees it), or NULL */
    Lesson *lesson;        /* --lesson NAME: opened at its first page (taken over:
                            *lesson is left empty), or NULL */
    const char *model_dir; /* --model's folder (absolute): the lessons o opens run on
                              it (on kind when kind is its), or NULL */
} UiOptions;

/* Run the interface until the user quits. The caller has checked that
 * standard input and output are terminals and set a UTF-8 locale (main.c).
 * Returns the process exit status (0; a fatal error exits with 1 after
 * restoring the terminal and saying why on stderr). */
int ui_run(const UiOptions *o);

/* Whether output in colour is wanted: --color always / never decide; auto
 * means colour on a terminal (tty) unless NO_COLOR is set and not empty.
 * The one place NO_COLOR is read, for the interface and the exports. */
bool ui_color_wanted(ColorMode mode, bool tty);

#endif
