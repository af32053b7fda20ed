/* hffolder.h - what a Hugging Face GPT-2 or BERT folder holds, checked
 * before it is read (hffolder.c): files a clone without git-lfs left as
 * pointers, and files a snapshot lacks. Nothing prints.
 */
#ifndef ATTNVIZ_HFFOLDER_H
#define ATTNVIZ_HFFOLDER_H

#include <stdbool.h>
#include <stddef.h>

/* Whether path is a Git LFS pointer file (a small text file opening with
 * "version https://git-lfs.github.com/spec/") rather than the file itself. */
bool hffolder_is_lfs_pointer(const char *path);

/* The first file of dir that attnviz reads (config.json, *.safetensors,
 * model.safetensors.index.json, vocab.json, merges.txt, tokenizer.json,
 * vocab.txt, tokenizer_config.json) and that is a Git LFS pointer, its name
 * into name; false when there is none. */
bool hffolder_lfs_pointer(const char *dir, char *name, size_t size);

/* The files dir lacks (a link whose blob is gone counts as lacking):
 * config.json; model.safetensors, or where model.safetensors.index.json is
 * there the shards it names, or where only shards are there that index; the tokenizer, unless
 * tokenizer.json is there: vocab.txt for a BERT (config.json's model_type), vocab.json and
 * merges.txt otherwise (without config.json, vocab.txt will do). A
 * sentence-transformers folder with no config.json whose modules.json puts
 * the model in a subfolder is checked there, the names with its path
 * ("0_BERT/config.json"). Their names, ", " between, into list. Returns
 * how many. */
int hffolder_missing(const char *dir, char *list, size_t size);

#endif
