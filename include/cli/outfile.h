/* outfile.h - a command's output written whole (outfile.c): what a writer
 * writes goes to a memory file first, then to its file by a rename
 * (file_write_atomic), so the file appears whole or not at all (DESIGN.md);
 * without a file, to standard output once the writer is done.
 */
#ifndef ATTNVIZ_OUTFILE_H
#define ATTNVIZ_OUTFILE_H

#include <stdio.h>

/* Writes the output into f; returns AV_OK or an error (errno says why). */
typedef int (*OutfileWriter)(FILE *f, void *ctx);

/* write(f, ctx) into a memory file, then to path whole (NULL: standard
 * output). Returns the exit status: 0, or 1 after one line, "out of memory"
 * when the memory file cannot be made, else "cannot write PATH: REASON"
 * (what in place of PATH for standard output; REASON errno's). */
int outfile_write(const char *path, const char *what, OutfileWriter write, void *ctx);

#endif
