/* test_tmp.h - a temporary folder per test, for the tests that write files:
 * cmocka setup and teardown. The teardown removes the folder with everything
 * in it, subfolders too (model folders, dumps), also after a test made a
 * folder read-only. */
#ifndef ATTNVIZ_TEST_TMP_H
#define ATTNVIZ_TEST_TMP_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TEST_TMP_FILE
#define TEST_TMP_FILE "out" /* the name of t->path in the folder */
#endif

typedef struct {
    char dir[64];
    char path[128];
} Tmp;

static int tmp_setup(void **state)
{
    Tmp *t = calloc(1, sizeof(*t));
    if (!t)
        return -1;
    strcpy(t->dir, "/tmp/attnviz_test.XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, TEST_TMP_FILE);
    *state = t;
    return 0;
}

/* The folder of the test (tmp_setup's state). */
static inline const char *tmp_dir(void **state)
{
    return ((const Tmp *)*state)->dir;
}

/* Remove path: a file or link, or a folder and all it holds (made writable
 * first, so that a test's read-only folder goes too). Symbolic links are
 * removed, never followed. */
static void tmp_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    chmod(path, 0700);
    DIR *d = opendir(path);
    struct dirent *e;
    char p[1024];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
        tmp_remove_tree(p);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

static int tmp_teardown(void **state)
{
    Tmp *t = *state;
    tmp_remove_tree(t->dir);
    free(t);
    return 0;
}

#endif
