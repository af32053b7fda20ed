/* hub_cmd.h - hub ids on the command line (hub_cmd.c): `attnviz get
 * NAME[@REV]`, which downloads a model into the Hugging Face cache, and
 * --model NAME, found in that cache when no folder has that name (with a
 * question before any download, on a terminal only).
 */
#ifndef ATTNVIZ_HUB_CMD_H
#define ATTNVIZ_HUB_CMD_H

#include "cli/cli.h"

/* attnviz get: argv[0] is "get". Returns the exit status, every error said
 * in one line. */
int hub_cmd_get(int argc, char **argv);

/* When o->model_dir names nothing on disk and is a hub id, point it at the
 * id's snapshot in the cache (o->model_path owns it), asking to download
 * it first when stdin and stderr are terminals. Returns 0 (also when
 * model_dir is left alone) or the exit status of an error said in one line. */
int hub_cmd_resolve(CliOptions *o);

/* The id `attnviz get` would fetch a folder dir from: its git remote's path
 * when dir is a clone, else its last part; "ORG/NAME" when neither is an id. */
void hub_cmd_guess_id(const char *dir, char *buf, size_t size);

#endif
