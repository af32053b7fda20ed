/* lesson_builtin.h - the built-in lessons and opening a lesson by name or
 * path (lesson_builtin.c).
 */
#ifndef ATTNVIZ_LESSON_BUILTIN_H
#define ATTNVIZ_LESSON_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>

#include "io/lesson.h"

/* A path a lesson names (weights, model): absolute as it is; else the first
 * that exists of dir/path, path (the working folder) and the folder of the
 * running binary / path. Writes it to out (size bytes) and returns true
 * when it exists; else writes path as given and returns false. */
bool lesson_find_path(const Lesson *l, const char *path, char *out, size_t size);

/* A model a lesson page names (model:): a folder found as lesson_find_path
 * finds it, else a hub id ("gpt2", "user/model@rev") whose snapshot is in
 * the Hugging Face cache (io/hfcache.h), as --model finds it; nothing is
 * downloaded. Writes the folder to out and returns true, or writes name as
 * given and returns false. */
bool lesson_find_model(const Lesson *l, const char *name, char *out, size_t size);

/* The one line for a page's model that lesson_find_model did not find
 * (l's, which may be NULL): a name that could be a hub id says how to fetch
 * it; a path that it is not there and, when relative, where it was looked
 * for; a path under assets/ (attnviz's own models) that make install
 * installs them, or that attnviz runs from its checkout. It promises
 * nothing the page says: a page that makes its model says so itself. Into
 * out (size bytes: LESSON_PROBLEM_MAX holds it). */
void lesson_model_missing(const Lesson *l, const char *name, char *out, size_t size);

/* Run every page of l on model (a folder or a hub id, as a page's model:
 * names it; copied) instead of the page's own model or weights: --lesson
 * NAME --model DIR. Returns AV_OK or AV_ERR_NOMEM (l unchanged). */
int lesson_use_model(Lesson *l, const char *model);

#define LESSON_MAX_BUILTIN 64

/* The built-in lessons: compiled into the binary when the build made
 * lessons.inc (scripts/gen-lessons.sh), else the *.lesson files of
 * assets/lessons/ in the working folder or beside the binary, in the order
 * of their file names; a file "03-softmax.lesson" is the lesson "softmax". */
typedef struct {
    int n;
    const char *name[LESSON_MAX_BUILTIN];
    const char *text[LESSON_MAX_BUILTIN]; /* not NUL-terminated when read: use len */
    size_t len[LESSON_MAX_BUILTIN];
    char *owned[LESSON_MAX_BUILTIN * 2]; /* what was read from files */
    int n_owned;
} LessonCatalog;

/* Fill c (zeroed first). Returns AV_OK (c->n may be 0 when none is found)
 * or AV_ERR_NOMEM. */
int lesson_catalog(LessonCatalog *c);
void lesson_catalog_free(LessonCatalog *c);
/* The index of the lesson called name in c, or -1. */
int lesson_catalog_find(const LessonCatalog *c, const char *name);

/* Open name: a built-in lesson's name, else a file path (its folder is
 * where its relative paths are read from). Returns AV_OK, AV_ERR_IO (errno
 * set: no such lesson or file), AV_ERR_LESSON (*err filled) or
 * AV_ERR_NOMEM. */
int lesson_open(const char *name, Lesson *out, LessonError *err);

#endif
