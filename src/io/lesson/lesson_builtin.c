/* lesson_builtin.c - the built-in lessons and opening a lesson by name or
 * path, and where a lesson's relative paths are found.
 *
 * The build compiles the .lesson files of assets/lessons/ into lessons.inc
 * (scripts/gen-lessons.sh) when its rule is in place; without it (or when
 * lessons.inc is not on the include path) the same files are read at run
 * time from assets/lessons/ in the working folder or beside the binary.
 */
#include "io/lesson_builtin.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/assets.h"
#include "io/fileio.h"
#include "io/hfcache.h"

#if defined(__has_include)
#if __has_include("lessons.inc")
#include "lessons.inc" /* LESSON_BUILTIN_N, lesson_builtin_names[], lesson_builtin_texts[] */
#define LESSON_COMPILED 1
#endif
#endif

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

bool lesson_find_path(const Lesson *l, const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    if (path[0] == '/')
        return exists(out);
    if (l && l->dir && l->dir[0]) {
        snprintf(out, size, "%s/%s", l->dir, path);
        if (exists(out))
            return true;
    }
    return asset_find(path, out, size); /* the working folder, near the binary */
}

bool lesson_find_model(const Lesson *l, const char *name, char *out, size_t size)
{
    HfId id;
    char root[4096];
    const char *found;
    if (lesson_find_path(l, name, out, size))
        return true;
    /* a hub id ("gpt2", "user/model@rev"), as --model finds it: no download */
    if (name[0] != '/' && name[0] != '.' && hfcache_parse_id(name, &id) &&
        hfcache_root(root, sizeof root) && hfcache_find(root, &id, out, size, &found))
        return true;
    snprintf(out, size, "%s", name);
    return false;
}

void lesson_model_missing(const Lesson *l, const char *name, char *out, size_t size)
{
    HfId id;
    if (name[0] != '/' && name[0] != '.' && hfcache_parse_id(name, &id)) {
        snprintf(out, size,
                 "The model %.100s is neither a folder nor in the Hugging Face "
                 "cache: attnviz get %.100s fetches it.",
                 name, name);
        return;
    }
    if (name[0] == '/') {
        snprintf(out, size, "The model folder %.200s is not there.", name);
        return;
    }
    /* where lesson_find_path looked: beside the lesson, the working folder,
     * the binary's folder and those above it, its installed assets */
    char cwd[1024], exe[1024], beside[1200] = "";
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    asset_exe_dir(exe, sizeof exe);
    if (l && l->dir && l->dir[0])
        snprintf(beside, sizeof beside, "beside the lesson (%.150s), ", l->dir);
    int n = snprintf(out, size,
                     "The model folder %.120s is not there: attnviz looked %sin the working "
                     "folder (%.150s) and beside attnviz (%.150s, the folders above it and "
                     "its installed share/attnviz).",
                     name, beside, cwd, exe[0] ? exe : "?");
    /* the project's own models (the built-in lessons' assets/models/...) */
    if (!strncmp(name, "assets/", 7) && n > 0 && (size_t)n < size)
        snprintf(out + n, size - (size_t)n,
                 " attnviz's own models come with it: make install installs them, or run "
                 "attnviz from its checkout.");
}

int lesson_use_model(Lesson *l, const char *model)
{
    char *m = strdup(model);
    if (!m)
        return AV_ERR_NOMEM;
    free(l->model);
    l->model = m;
    for (int k = 0; k < l->n_pages; k++) { /* the model brings its own sizes and weights */
        l->pages[k].set.model = m;
        l->pages[k].set.weights = NULL;
    }
    return AV_OK;
}

#ifndef LESSON_COMPILED
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lesson name of file "03-softmax.lesson": "softmax"; NULL when the
 * file is not a lesson. The name is malloc'd. */
static char *file_lesson_name(const char *file)
{
    size_t n = strlen(file);
    if (n <= 7 || strcmp(file + n - 7, ".lesson") != 0 || file[0] == '.')
        return NULL;
    const char *s = file + strspn(file, "0123456789");
    s = s > file && *s == '-' ? s + 1 : file;
    return strndup(s, (size_t)(file + n - 7 - s));
}

/* Read every lesson of folder dir into c. */
static int catalog_dir(LessonCatalog *c, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return AV_OK;
    char *files[LESSON_MAX_BUILTIN] = {0};
    int n = 0, err = AV_OK;
    struct dirent *e;
    while (n < LESSON_MAX_BUILTIN && (e = readdir(d)) != NULL) {
        char *name = file_lesson_name(e->d_name);
        free(name);
        if (name && !(files[n++] = strdup(e->d_name)))
            err = AV_ERR_NOMEM, n--;
    }
    closedir(d);
    qsort(files, (size_t)n, sizeof *files, by_name);
    for (int k = 0; k < n; k++) {
        char path[4096], *text = NULL, *name = file_lesson_name(files[k]);
        size_t len = 0;
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        free(files[k]);
        if (err || !name || file_read_all(path, LESSON_MAX_BYTES, &text, &len) != AV_OK) {
            free(name), free(text);
            continue;
        }
        c->owned[c->n_owned++] = name;
        c->owned[c->n_owned++] = text;
        c->name[c->n] = name, c->text[c->n] = text, c->len[c->n] = len;
        c->n++;
    }
    return err;
}
#endif

int lesson_catalog(LessonCatalog *c)
{
    memset(c, 0, sizeof *c);
#ifdef LESSON_COMPILED
    for (int k = 0; k < LESSON_BUILTIN_N && k < LESSON_MAX_BUILTIN; k++) {
        c->name[k] = lesson_builtin_names[k];
        c->text[k] = lesson_builtin_texts[k];
        c->len[k] = strlen(lesson_builtin_texts[k]);
        c->n++;
    }
    return AV_OK;
#else
    char dir[4096];
    int err = catalog_dir(c, "assets/lessons");
    if (!err && !c->n) {
        asset_exe_dir(dir, sizeof dir);
        if (dir[0] && strlen(dir) < sizeof dir - 20) {
            strcat(dir, "/assets/lessons");
            err = catalog_dir(c, dir);
        }
    }
    return err;
#endif
}

void lesson_catalog_free(LessonCatalog *c)
{
    for (int k = 0; k < c->n_owned; k++)
        free(c->owned[k]);
    memset(c, 0, sizeof *c);
}

int lesson_catalog_find(const LessonCatalog *c, const char *name)
{
    for (int k = 0; k < c->n; k++)
        if (strcmp(c->name[k], name) == 0)
            return k;
    return -1;
}

/* A file's folder: "a/b.lesson" -> "a", "b.lesson" -> "". */
static void dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        out[0] = '\0';
    else
        snprintf(out, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

int lesson_open(const char *name, Lesson *out, LessonError *err)
{
    LessonCatalog cat;
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    int rc = lesson_catalog(&cat);
    int k = rc ? -1 : lesson_catalog_find(&cat, name);
    if (k >= 0)
        rc = lesson_parse(cat.text[k], cat.len[k], name, "", out, err);
    lesson_catalog_free(&cat);
    if (rc || k >= 0)
        return rc;
    char *text = NULL, dir[4096];
    size_t len = 0;
    rc = file_read_all(name, LESSON_MAX_BYTES, &text, &len);
    if (rc == AV_ERR_TOO_LARGE) {
        snprintf(err->msg, sizeof err->msg, "larger than the %d KiB a lesson may have",
                 LESSON_MAX_BYTES / 1024);
        rc = AV_ERR_LESSON;
    }
    if (!rc) {
        const char *base = strrchr(name, '/');
        char *stem = strdup(base ? base + 1 : name);
        if (stem && strlen(stem) > 7 && !strcmp(stem + strlen(stem) - 7, ".lesson"))
            stem[strlen(stem) - 7] = '\0';
        dir_of(name, dir, sizeof dir);
        rc = stem ? lesson_parse(text, len, stem, dir, out, err) : AV_ERR_NOMEM;
        free(stem);
    }
    free(text);
    return rc;
}
