/* model_cmd.h - --model DIR and --generate N on the command line: the saved
 * model opened and checked against the other options, and the text
 * continued, before the ordinary batch or interface runs on the result.
 */
#ifndef ATTNVIZ_MODEL_CMD_H
#define ATTNVIZ_MODEL_CMD_H

#include "app/kind.h"
#include "cli/cli.h"

/* Open o->model_dir as the trained kind k (kind_trained_load: k owns the
 * model; closed by the caller with kind_close, or here on error), check
 * --head and --layer against it, continue text by o->generate tokens when
 * asked (sampled with o's --temperature, --top-k and --seed; the
 * continuation is printed on standard output unless an export goes there),
 * set what the interface's g samples with (k->temperature, k->top_k), then
 * make o->cfg the model's (keeping keep_scores and weights_budget) and
 * o->export.layer the last layer unless --layer chose one. *whole gets the
 * generated sequence (malloc'd) or NULL. text may be NULL (no TEXT given: an
 * error in batch, an empty interface). Returns 0 or the exit status after
 * one line on standard error naming what is wrong. */
int model_cmd_prepare(CliOptions *o, const char *text, bool batch, Kind *k, char **whole);

/* The one line for an error of kind_run or kind_generate on o's model:
 * bad is the piece outside the vocabulary. Returns the exit status. */
int model_cmd_error(const CliOptions *o, int err, const char *bad);

#endif
