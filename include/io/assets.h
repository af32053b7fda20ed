/* assets.h - finding the files attnviz ships under assets/ (the example
 * weights, the lessons' models, the grammar), wherever the program runs:
 * from a checkout (./attnviz, or a test under build/tests/), or installed
 * by `make install`, which puts them in PREFIX/share/attnviz/assets beside
 * PREFIX/bin/attnviz.
 */
#ifndef ATTNVIZ_IO_ASSETS_H
#define ATTNVIZ_IO_ASSETS_H

#include <stdbool.h>
#include <stddef.h>

/* Where a relative path rel ("assets/models/chars") is found, into out
 * (size bytes): rel itself when it exists (from the working folder); else
 * in the running binary's folder or up to four folders above it; else in
 * share/attnviz beside the binary's folder (BINDIR/../share/attnviz/rel).
 * An absolute rel is only itself. Returns whether it was found; out holds
 * rel when not, or when a candidate does not fit size. */
bool asset_find(const char *rel, char *out, size_t size);

/* The folder of the running binary, without a trailing '/', into out; ""
 * when it cannot be known. */
void asset_exe_dir(char *out, size_t size);

#endif
