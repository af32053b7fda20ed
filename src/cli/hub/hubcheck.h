/* hubcheck.h - a file's bytes against the checksum the hub named for it
 * (hubcheck.c): an LFS file's sha256, a small file's git blob id. Shared by
 * hubblob.c, which checks a download before it names it, and by
 * hubget_blob_whole (cli/hubget.h). Private to src/cli/hub/.
 */
#ifndef ATTNVIZ_HUBCHECK_H
#define ATTNVIZ_HUBCHECK_H

#include <stdbool.h>

#include "cli/hubget.h"

/* Whether the hub named a checksum of m's bytes (hubcheck_same checks it). */
bool hubcheck_named(const HubMeta *m);

/* Whether path's bytes are the ones the hub named (true when it named
 * none); *what is which checksum ("sha256", "git blob id", "" for none),
 * hex the one found. With bar, a progress line on standard error names
 * label while the file is read, and is cleared after. */
bool hubcheck_same(const HubMeta *m, const char *path, const char *label, bool bar,
                   const char **what, char hex[65]);

#endif
