/* model_cmd.h - the one model command: --model DIR and --generate N for
 * every kind of model folder (app/kind.h's kind_open_folder): the folder
 * opened and checked against the other options, and the text continued,
 * before the ordinary batch or interface runs on the result; and
 * `--attention FILE.npy --tokens FILE [--key-tokens FILE]`, attention
 * computed elsewhere, opened by its kind, checked, then exported (-e text,
 * csv, json, md, svg, html), dumped (--dump DIR) or shown in the interface.
 */
#ifndef ATTNVIZ_MODEL_CMD_H
#define ATTNVIZ_MODEL_CMD_H

#include <stdbool.h>

#include "app/kind.h"
#include "cli/cli.h"
#include "render/export.h"

/* Open o->model_dir into k (k owns the model; closed by the caller with
 * kind_close, or here on error), check --head and --layer against it,
 * continue text by o->generate tokens when asked (sampled with o's
 * --temperature, --top-k and --seed; the continuation is printed on standard
 * output unless an export goes there), set what the interface's g samples
 * with (k->temperature, k->top_k), then make o->cfg the model's (keeping
 * keep_scores and weights_budget; the softmax's temperature 1 for a kind
 * whose --temperature is generation's) and o->export.layer the last layer
 * unless --layer chose one. *whole gets the generated sequence, or the
 * kind's own text when TEXT is missing (malloc'd), or NULL. text may be NULL
 * (no TEXT given): a kind with a text of its own (start_text) starts on it
 * in the interface and refuses a batch run; the others read example (the
 * first built-in sentence). Returns 0 or the exit status after one
 * line on standard error naming what is wrong. */
int model_cmd_prepare(CliOptions *o, const char *text, const char *example, bool batch, Kind *k,
                      char **whole);

/* Open o->model_dir into k as model_cmd_prepare does (a Git LFS pointer
 * said, the folder of any kind read and checked): whether it opens, and
 * what it can show. Returns 0 (k open: the caller closes it) or the exit
 * status after one line on standard error (k zeroed). */
int model_cmd_check(const CliOptions *o, Kind *k);

/* The one line for an error of kind_run, kind_generate or kind_lens on o's
 * model k (k->bad: the piece outside the vocabulary). Returns the exit
 * status, 0 for AV_OK. */
int model_cmd_error(const CliOptions *o, const Kind *k, int err);

/* The export of r (the settings c, options eo as --export asked) to
 * standard output or --output, as k's class says: text and md open with
 * the sentence unless no_sentence; a lazy result (too large to keep every
 * weight) only pooled (text, trace, svg, html). Returns 0 or the exit
 * status after one line on standard error. */
int model_cmd_export(const CliOptions *o, const Kind *k, const ModelResult *r, const ModelConfig *c,
                     ExportOptions eo);

/* Everything --attention asks for, from options cli_parse accepted
 * (o->attention set). Errors are one line on standard error ("attnviz:
 * ..."); unnormalised rows are a warning line ("attnviz: warning: ...") in
 * batch and the status line in the interface. Returns the exit status: 0,
 * 1 (I/O, memory) or 2 (a bad file or option). */
int model_cmd_file(const CliOptions *o);

#endif
