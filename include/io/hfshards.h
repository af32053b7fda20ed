/* hfshards.h - the shard files a sharded checkpoint's index names, for a
 * download that fetches them before any is on disk (hfindex.c, which also
 * opens them for io/hfmodel.h's reader), and whether a folder holds any.
 */
#ifndef ATTNVIZ_HFSHARDS_H
#define ATTNVIZ_HFSHARDS_H

#include <stdbool.h>
#include <stddef.h>

/* The shard files the index at index_path (a model.safetensors.index.json)
 * names, in the order they first appear, each checked to be a plain file
 * name: *files (malloc'd, and each name) holds *n of them. Returns AV_OK,
 * AV_ERR_IO (errno set), AV_ERR_MODEL or AV_ERR_NOMEM, why saying what is
 * wrong; on error nothing is left allocated. */
int hfmodel_shard_files(const char *index_path, char ***files, int *n, char *why, size_t whylen);

/* Whether dir holds a weights file other than model.safetensors (a shard,
 * model-00001-of-00002.safetensors say), as a folder whose index was lost
 * does. */
bool hfmodel_has_shards(const char *dir);

#endif
