/* import_cmd.h - `attnviz --attention FILE.npy --tokens FILE [--key-tokens
 * FILE]`: attention computed elsewhere, checked, then exported (-e text, csv,
 * json, md), dumped (--dump DIR) or opened in the interface.
 */
#ifndef ATTNVIZ_IMPORT_CMD_H
#define ATTNVIZ_IMPORT_CMD_H

#include "cli/cli.h"

/* Everything --attention asks for, from options cli_parse accepted (o->attention
 * set). Errors are one line on standard error ("attnviz: ..."); unnormalised
 * rows are a warning line ("attnviz: warning: ...") in batch and the status
 * line in the interface. Returns the exit status: 0, 1 (I/O, memory) or 2
 * (a bad file or option). */
int import_cmd_main(const CliOptions *o);

#endif
