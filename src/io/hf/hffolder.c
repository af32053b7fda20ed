/* hffolder.c - a Hugging Face folder's files before they are read (hffolder.h). */
#include "io/hffolder.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/fileio.h"
#include "io/hfbert.h"
#include "io/hfshards.h"

#define LFS_MAGIC "version https://git-lfs.github.com/spec/"
#define LFS_MAX_BYTES 1024 /* a pointer is about 130 bytes */

bool hffolder_is_lfs_pointer(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > LFS_MAX_BYTES)
        return false;
    int fd = file_open_read(path);
    if (fd < 0)
        return false;
    char head[sizeof LFS_MAGIC - 1];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && memcmp(head, LFS_MAGIC, sizeof head) == 0;
}

/* A file of the folder that attnviz reads. */
static bool read_by_attnviz(const char *name)
{
    static const char *const fixed[] = {"config.json",
                                        "vocab.json",
                                        "merges.txt",
                                        "tokenizer.json",
                                        "vocab.txt",
                                        "tokenizer_config.json",
                                        "model.safetensors.index.json"};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (strcmp(name, fixed[k]) == 0)
            return true;
    return file_name_ends(name, ".safetensors");
}

static bool lfs_entry(const char *name, const char *path)
{
    return read_by_attnviz(name) && hffolder_is_lfs_pointer(path);
}

bool hffolder_lfs_pointer(const char *dir, char *name, size_t size)
{
    return file_first_in(dir, lfs_entry, name, size);
}

static bool has(const char *dir, const char *file)
{
    char path[4096 + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return file_is_regular(path);
}

static int add(char *list, size_t size, int n, const char *file)
{
    size_t at = strlen(list);
    snprintf(list + at, size - at, "%s%s", n ? ", " : "", file);
    return n + 1;
}

/* The shards dir's index names that dir lacks, added to list. */
static int missing_shards(const char *dir, const char *pre, char *list, size_t size, int n)
{
    char path[4096 + 64], why[256], name[1200], **files;
    int count;
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    if (hfmodel_shard_files(path, &files, &count, why, sizeof why) != AV_OK)
        return n; /* a bad index is the reader's to say */
    for (int k = 0; k < count; k++) {
        if (!has(dir, files[k])) {
            snprintf(name, sizeof name, "%s%s%s", pre, pre[0] ? "/" : "", files[k]);
            n = add(list, size, n, name);
        }
        free(files[k]);
    }
    free(files);
    return n;
}

/* The files dir/pre lacks, named pre + name: a tokenizer as the config's
 * model_type reads it (BERT's vocab.txt, GPT-2's vocab.json and
 * merges.txt; either's tokenizer.json), any of them without a config. */
static int missing_in(const char *dir, const char *pre, char *list, size_t size)
{
    char d[4096], name[1200];
    int n = 0;
    snprintf(d, sizeof d, "%s%s%s", dir, pre[0] ? "/" : "", pre);
#define NEED(file) (snprintf(name, sizeof name, "%s%s%s", pre, pre[0] ? "/" : "", file), name)
    const bool config = has(d, "config.json"), bert = config && hfbert_is_folder(d);
    if (!config)
        n = add(list, size, n, NEED("config.json"));
    if (has(d, "model.safetensors.index.json") && !has(d, "model.safetensors"))
        n = missing_shards(d, pre, list, size, n);
    else if (!has(d, "model.safetensors"))
        n = add(list, size, n,
                NEED(hfmodel_has_shards(d) ? "model.safetensors.index.json" : "model.safetensors"));
    if (bert && !has(d, "tokenizer.json") && !has(d, "vocab.txt"))
        n = add(list, size, n, NEED("vocab.txt"));
    if (!bert && !has(d, "tokenizer.json") && (config || !has(d, "vocab.txt"))) {
        if (!has(d, "vocab.json"))
            n = add(list, size, n, NEED("vocab.json"));
        if (!has(d, "merges.txt"))
            n = add(list, size, n, NEED("merges.txt"));
    }
#undef NEED
    return n;
}

int hffolder_missing(const char *dir, char *list, size_t size)
{
    char sub[4096], why[256];
    list[0] = 0;
    size_t at = strlen(dir);
    /* a sentence-transformers folder whose BERT is in a subfolder (0_BERT/) */
    if (!has(dir, "config.json") && has(dir, "modules.json") &&
        hfbert_model_dir(dir, sub, sizeof sub, why, sizeof why) == AV_OK &&
        strncmp(sub, dir, at) == 0 && sub[at] == '/')
        return missing_in(dir, sub + at + 1, list, size);
    return missing_in(dir, "", list, size);
}
