/* live_cmd.h - `attnviz --train TASK`: the live training view as the
 * program's first view, set up and checked before curses starts.
 */
#ifndef ATTNVIZ_LIVE_CMD_H
#define ATTNVIZ_LIVE_CMD_H

#include "cli/cli.h"
#include "io/sentences.h"

/* Set up the task o->train (with o->cfg.seed; text_data: the text of -f,
 * NUL-terminated, or NULL) and run the interface on its live view. A task
 * that cannot start, or no terminal, is one line on stderr before curses
 * (status 2; 1 for a grammar file that cannot be read). Returns the exit
 * status. */
int live_cmd_main(const CliOptions *o, const char *text_data, const SentenceList *sentences);

#endif
