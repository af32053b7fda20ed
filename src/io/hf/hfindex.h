/* hfindex.h - model.safetensors.index.json: a sharded checkpoint's shards
 * (hfindex.c; private to hfweights.c).
 */
#ifndef ATTNVIZ_HFINDEX_H
#define ATTNVIZ_HFINDEX_H

#include <stddef.h>

#include "io/safetensors.h"

#define HF_MAX_SHARDS 256
#define HF_MAX_INDEX_BYTES (64 << 20)

/* Read dir/model.safetensors.index.json, open every shard its weight_map
 * names (a plain file name in dir: no '/', at most HF_MAX_SHARDS of them) and
 * check that each tensor it lists is in the shard it names. On AV_OK,
 * *shards (malloc'd) holds *n open files; on error nothing is left open or
 * allocated and why says what is wrong. Returns AV_OK, AV_ERR_IO,
 * AV_ERR_MODEL or AV_ERR_NOMEM. */
int hfindex_open(const char *dir, StFile **shards, int *n, char *why, size_t whylen);

#endif
