/* lens_cmd.h - `--export lens` and `--export lens-json`: the logit lens of
 * the text (app/kind.h's kind_lens) written as render/lens.h draws it.
 */
#ifndef ATTNVIZ_LENS_CMD_H
#define ATTNVIZ_LENS_CMD_H

#include "app/kind.h"
#include "cli/cli.h"

/* Run text through k's lens and write it to standard output or o->output
 * (atomically). A kind that predicts no tokens is one line and 2; the
 * text's errors are the model commands' lines. Returns the exit status. */
int lens_cmd_write(const CliOptions *o, Kind *k, const char *text);

#endif
