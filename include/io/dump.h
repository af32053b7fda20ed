/* dump.h - --dump DIR: every intermediate tensor of a run as .npy files.
 *
 * Files are written one by one, each atomically (a temporary file renamed),
 * so a failed dump leaves whole files and no partial one.
 */
#ifndef ATTNVIZ_DUMP_H
#define ATTNVIZ_DUMP_H

#include "core/model.h"

/* Write tokens.txt, X.npy (after PE), Q.npy, K.npy, V.npy, scores.npy
 * (H, n, n), weights.npy (H, n, n), output.npy (n, d_model), heads.txt; with
 * L > 1 also layerN/ with each layer's files. The folder is created when
 * missing. Returns AV_OK, AV_ERR_IO (*which names the file at fault, or is
 * NULL when a folder could not be made) or AV_ERR_TOO_LARGE when the result
 * did not keep its scores (a text past the memory budget). */
int dump_write(const char *dir, const ModelResult *r, const ModelConfig *c, const char **which);

#endif
