/* hfindex.c - a sharded checkpoint's index (hfindex.h): the JSON's
 * "weight_map" (tensor name to shard file name), the shards it names opened
 * in the order they first appear, and the map checked against them. Other
 * keys ("metadata") are skipped.
 */
#include "hfindex.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/hfshards.h"
#include "io/json.h"

#define INDEX "model.safetensors.index.json"

typedef struct {
    char *name;
    int shard;
} Entry;

typedef struct {
    Json j;
    char jwhy[200];
    Entry *e;
    int n, cap;
    char *file[HF_MAX_SHARDS];
    int n_files;
    bool had_map;
} Index;

/* The shard called s (taken over, or freed when already known). */
static int shard_of(Index *x, char *s)
{
    for (int k = 0; k < x->n_files; k++)
        if (strcmp(x->file[k], s) == 0)
            return free(s), k;
    char shown[300]; /* a name that does not print as itself is refused */
    bool control = strcmp(st_printable(shown, sizeof shown, s), s) != 0;
    if (!s[0] || control || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
        json_fail(&x->j, "weight_map names \"%s\", not a file name in the folder",
                  st_printable((char[96]){0}, 96, s));
        return free(s), -1;
    }
    if (x->n_files == HF_MAX_SHARDS) {
        json_fail(&x->j, "weight_map names more than %d shards", HF_MAX_SHARDS);
        return free(s), -1;
    }
    x->file[x->n_files] = s;
    return x->n_files++;
}

static int take_map(Index *x)
{
    Json *j = &x->j;
    if (x->had_map)
        return json_fail(j, "\"weight_map\" appears twice");
    x->had_map = true;
    if (!json_eat(j, '{'))
        return json_fail(j, "\"weight_map\" is not an object");
    if (json_eat(j, '}'))
        return AV_OK;
    do {
        char *name = NULL, *file = NULL;
        if (x->n == x->cap) {
            int cap = x->cap ? 2 * x->cap : 256;
            Entry *e = x->n >= ST_MAX_TENSORS ? NULL : realloc(x->e, (size_t)cap * sizeof(*e));
            if (!e)
                return x->n >= ST_MAX_TENSORS ? json_fail(j, "too many tensors")
                                              : (j->err = AV_ERR_NOMEM);
            x->e = e;
            x->cap = cap;
        }
        if (json_string(j, &name) || !json_eat(j, ':') || json_string(j, &file)) {
            free(name);
            free(file);
            return json_fail(j, "\"weight_map\" is not an object of strings");
        }
        int s = shard_of(x, file);
        if (s < 0)
            return free(name), j->err;
        x->e[x->n++] = (Entry){name, s};
    } while (json_eat(j, ','));
    return json_eat(j, '}') ? AV_OK : json_fail(j, "\"weight_map\" is not closed");
}

static int parse(Index *x)
{
    Json *j = &x->j;
    if (!json_eat(j, '{'))
        return json_fail(j, "not a JSON object");
    if (!json_eat(j, '}')) {
        do {
            char *key;
            if (json_key(j, &key, "a key is malformed"))
                return j->err;
            bool map = strcmp(key, "weight_map") == 0;
            free(key);
            if (map ? take_map(x) : json_skip_value(j, 0))
                return j->err;
        } while (json_eat(j, ','));
        if (!json_eat(j, '}'))
            return json_fail(j, "the object is not closed");
    }
    json_skip_ws(j);
    if (j->p != j->end)
        return json_fail(j, "bytes follow the JSON object");
    return x->n ? AV_OK : json_fail(j, "no \"weight_map\", or an empty one");
}

static void index_free(Index *x)
{
    for (int k = 0; k < x->n; k++)
        free(x->e[k].name);
    free(x->e);
    for (int k = 0; k < x->n_files; k++)
        free(x->file[k]);
}

/* Open the shards and check every entry against its shard. */
static int open_shards(const char *dir, Index *x, StFile *sh, int *n, char *why, size_t whylen)
{
    char path[4096];
    for (*n = 0; *n < x->n_files; (*n)++) {
        snprintf(path, sizeof path, "%s/%s", dir, x->file[*n]);
        int rc = st_open(path, &sh[*n], why, whylen);
        if (rc != AV_OK)
            return rc;
    }
    for (int k = 0; k < x->n; k++)
        if (!st_find(&sh[x->e[k].shard], x->e[k].name)) {
            snprintf(why, whylen,
                     INDEX ": weight_map puts \"%s\" in %s, which does not "
                           "hold it",
                     st_printable((char[96]){0}, 96, x->e[k].name), x->file[x->e[k].shard]);
            return AV_ERR_MODEL;
        }
    return AV_OK;
}

/* Read and parse the index at path into x (freed by the caller). */
static int read_index(const char *path, Index *x, char *why, size_t whylen)
{
    char *text;
    size_t len;
    int rc = file_read_regular(path, HF_MAX_INDEX_BYTES, &text, &len);
    if (rc != AV_OK) {
        snprintf(why, whylen, "%s: %s", path,
                 rc == AV_ERR_IO      ? strerror(errno)
                 : rc == AV_ERR_MODEL ? "not a regular file"
                                      : av_strerror(rc));
        return rc == AV_ERR_TOO_LARGE ? AV_ERR_MODEL : rc;
    }
    x->j = (Json){text, text + len, x->jwhy, sizeof x->jwhy, 0};
    rc = parse(x);
    if (rc != AV_OK)
        snprintf(why, whylen, INDEX ": byte %zu: %s", (size_t)(x->j.p - text),
                 rc == AV_ERR_NOMEM ? av_strerror(rc) : x->jwhy);
    free(text);
    return rc;
}

int hfindex_open(const char *dir, StFile **shards, int *n, char *why, size_t whylen)
{
    char path[4096];
    Index x = {0};
    *shards = NULL;
    *n = 0;
    snprintf(path, sizeof path, "%s/" INDEX, dir);
    int rc = read_index(path, &x, why, whylen);
    StFile *sh = rc == AV_OK ? calloc((size_t)x.n_files, sizeof(*sh)) : NULL;
    if (rc == AV_OK && !sh)
        rc = AV_ERR_NOMEM, snprintf(why, whylen, "%s", av_strerror(rc));
    int opened = 0;
    if (rc == AV_OK)
        rc = open_shards(dir, &x, sh, &opened, why, whylen);
    index_free(&x);
    if (rc != AV_OK) {
        for (int k = 0; k < opened; k++)
            st_close(&sh[k]);
        free(sh);
        return rc;
    }
    *shards = sh;
    *n = opened;
    return AV_OK;
}

int hfmodel_shard_files(const char *index_path, char ***files, int *n, char *why, size_t whylen)
{
    Index x = {0};
    *files = NULL;
    *n = 0;
    int rc = read_index(index_path, &x, why, whylen);
    char **f = rc == AV_OK ? calloc((size_t)x.n_files, sizeof(*f)) : NULL;
    if (rc == AV_OK && !f)
        rc = AV_ERR_NOMEM, snprintf(why, whylen, "%s", av_strerror(rc));
    if (rc == AV_OK) {
        memcpy(f, x.file, (size_t)x.n_files * sizeof(*f));
        *files = f;
        *n = x.n_files;
        x.n_files = 0; /* taken over */
    }
    index_free(&x);
    return rc;
}

/* A weights file named as a shard is (NAME.safetensors, not
 * model.safetensors), and a regular file. */
static bool shard_entry(const char *name, const char *path)
{
    return strcmp(name, ".safetensors") != 0 && file_name_ends(name, ".safetensors") &&
           strcmp(name, "model.safetensors") != 0 && file_is_regular(path);
}

bool hfmodel_has_shards(const char *dir)
{
    return file_first_in(dir, shard_entry, NULL, 0);
}
