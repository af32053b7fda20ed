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

#define LESSON_MAX_BUILTIN 64

/* The built-in lessons: compiled into the binary when the build made
 * lessons.inc (scripts/gen-lessons.sh), else the *.lesson files of
 * assets/lessons/ in the working folder or beside the binary, in the order
 * of their file names; a file "03-softmax.lesson" is the lesson "softmax". */
typedef struct {
    int n;
    const char *name[LESSON_MAX_BUILTIN];
    const char *text[LESSON_MAX_BUILTIN];  /* not NUL-terminated when read: use len */
    size_t len[LESSON_MAX_BUILTIN];
    char *owned[LESSON_MAX_BUILTIN * 2];   /* what was read from files */
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
