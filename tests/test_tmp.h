/* test_tmp.h - a temporary folder per test, for the tests that write files:
 * cmocka setup and teardown. The teardown empties the folder (no subfolders)
 * and removes it, also after a test made it read-only. */
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

static int tmp_teardown(void **state)
{
    Tmp *t = *state;
    DIR *d = opendir(t->dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", t->dir, e->d_name);
        unlink(p);
    }
    if (d)
        closedir(d);
    chmod(t->dir, 0700);
    rmdir(t->dir);
    free(t);
    return 0;
}

#endif
