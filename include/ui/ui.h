/* ui.h - the ncurses front end, started by main.c after the command line and
 * every input file have been checked (errors before curses starts, as ncdu).
 */
#ifndef ATTNVIZ_UI_H
#define ATTNVIZ_UI_H

#include "core/model.h"
#include "io/sentences.h"

typedef enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER } ColorMode;

typedef struct {
    ModelConfig cfg;           /* starting settings from the command line */
    const char *text;          /* starting sentence; NULL = the first example */
    const char *cross;         /* second sentence for cross-attention, or NULL */
    const SentenceList *sentences; /* examples cycled with a key (never empty) */
    const ModelWeights *weights;   /* from --weights, or NULL for toy weights */
    ColorMode color;
} UiOptions;

/* Run the interface until the user quits. Returns the process exit status
 * (0, or 1 after a fatal error already reported on stderr). */
int ui_run(const UiOptions *o);

#endif
