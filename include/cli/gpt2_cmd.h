/* gpt2_cmd.h - --model DIR when DIR is a Hugging Face GPT-2 folder: opened
 * with its progress on standard error, --head and --layer checked against its
 * sizes, --generate N continued by sampling, before the batch or interface
 * runs (app/kind.h's GPT-2 kind).
 */
#ifndef ATTNVIZ_GPT2_CMD_H
#define ATTNVIZ_GPT2_CMD_H

#include <stdbool.h>

#include "app/kind.h"
#include "cli/cli.h"

/* Open o->model_dir into k and make o->cfg the model's (keeping --no-scale
 * and --temperature, a what-if); with --generate, *whole (malloc'd) is text
 * continued by o->generate tokens (printed when batch and not exporting to
 * standard output). Returns 0 or an exit status, the error said in one line;
 * on error k is zeroed. */
int gpt2_cmd_prepare(CliOptions *o, const char *text, bool batch, Kind *k, char **whole);

/* The one line for an error of kind_run on a GPT-2 model: 0 for AV_OK, else
 * the exit status. */
int gpt2_cmd_error(const CliOptions *o, const Kind *k, int err);

#endif
