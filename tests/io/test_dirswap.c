/* test_dirswap.c - a folder replaced whole: by the exchange and by the two
 * renames, over a folder, in place of none; what a killed run leaves (the
 * siblings of a process that is gone) removed or, for a folder renamed aside
 * while its place is empty, put back; a running writer's sibling left alone;
 * and model folders saved over one another never mixed. */
#include "test_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/av.h"
#include "io/dirswap.h"
#include "io/fileio.h"
#include "io/modelfile.h"
#include "test_tmp.h"

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(file_write_atomic(path, text, strlen(text), false), AV_OK);
}

/* The text of dir/name, or "" when missing (static buffer). */
static const char *get(const char *dir, const char *name)
{
    static char buf[256];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

/* The number of entries of dir (. and .. aside). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

/* A pid that no process has now: a child that has exited. */
static long dead_pid(void)
{
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    assert_true(p > 0);
    waitpid(p, NULL, 0);
    return (long)p;
}

static void replace(const char *target, int no_exchange, const char *text)
{
    DirSwap s;
    assert_int_equal(dirswap_begin(&s, target), AV_OK);
    s.no_exchange = no_exchange;
    put(s.tmp, "a.txt", text);
    assert_int_equal(dirswap_commit(&s), AV_OK);
}

static void test_dirswap_both_ways(void **state)
{
    const char *root = tmp_dir(state);
    char target[512];
    snprintf(target, sizeof target, "%s/m", root);
    for (int way = 0; way < 2; way++) {
        /* a new folder, then one over it whose files differ */
        replace(target, way, "one");
        assert_string_equal(get(target, "a.txt"), "one");
        DirSwap s;
        assert_int_equal(dirswap_begin(&s, target), AV_OK);
        s.no_exchange = way;
        put(s.tmp, "b.txt", "two");
        assert_int_equal(dirswap_commit(&s), AV_OK);
        assert_string_equal(get(target, "b.txt"), "two");
        assert_string_equal(get(target, "a.txt"), ""); /* nothing of the old one */
        assert_int_equal(entries(target), 1);
        assert_int_equal(entries(root), 1); /* no sibling left */
        /* given up: the folder as it was, no sibling */
        assert_int_equal(dirswap_begin(&s, target), AV_OK);
        put(s.tmp, "c.txt", "three");
        dirswap_abort(&s);
        assert_string_equal(get(target, "b.txt"), "two");
        assert_int_equal(entries(root), 1);
        assert_int_equal(dirswap_remove_tree(target), AV_OK);
        assert_int_equal(entries(root), 0);
    }
    /* a file in the folder's place is not replaced */
    put(root, "m", "a file");
    DirSwap s;
    assert_int_equal(dirswap_begin(&s, target), AV_ERR_IO);
    assert_int_equal(errno, ENOTDIR);
    assert_int_equal(entries(root), 1);
}

static void test_dirswap_after_a_kill(void **state)
{
    const char *root = tmp_dir(state);
    char target[512], left[512], aside[512], live[512];
    snprintf(target, sizeof target, "%s/m", root);
    replace(target, 0, "new");
    /* killed while writing: a sibling of a dead process, removed */
    snprintf(left, sizeof left, "%s/.m.new-%ld-abc123", root, dead_pid());
    assert_int_equal(mkdir(left, 0777), 0);
    put(left, "half.npy", "x");
    /* a sibling of a running writer (this process's parent): left alone */
    snprintf(live, sizeof live, "%s/.m.new-%ld-zzz999", root, (long)getppid());
    assert_int_equal(mkdir(live, 0777), 0);
    replace(target, 0, "newer");
    struct stat st;
    assert_int_not_equal(stat(left, &st), 0);
    assert_int_equal(stat(live, &st), 0);
    assert_int_equal(rmdir(live), 0);
    /* killed between the two renames: the folder missing, the previous one
     * aside; the next run puts it back before it writes */
    snprintf(aside, sizeof aside, "%s/.m.old-%ld-qqq111", root, dead_pid());
    assert_int_equal(rename(target, aside), 0);
    DirSwap s;
    assert_int_equal(dirswap_begin(&s, target), AV_OK);
    assert_string_equal(get(target, "a.txt"), "newer");
    assert_int_not_equal(stat(aside, &st), 0);
    dirswap_abort(&s);
    assert_int_equal(entries(root), 1);
    /* names of other folders are never taken for siblings */
    char other[512];
    snprintf(other, sizeof other, "%s/.m.new-1.txt", root);
    put(root, ".m.new-1.txt", "keep");
    replace(target, 0, "again");
    assert_string_equal(get(root, ".m.new-1.txt"), "keep");
    unlink(other);
}

static void test_dirswap_stale_links_and_look_alikes(void **state)
{
    /* expect: a gone writer's sibling is removed whole without following a
     * link in it (a link to a folder outside, to a file outside) or in its
     * place; one of this process's id written before it started is an
     * earlier process's and goes; names not exactly a sibling's stay */
    const char *root = tmp_dir(state);
    char target[512], outside[512], left[512], path[1024];
    snprintf(target, sizeof target, "%s/m", root);
    snprintf(outside, sizeof outside, "%s/outside", root);
    assert_int_equal(mkdir(outside, 0777), 0);
    put(outside, "keep.txt", "mine");
    long dead = dead_pid();
    snprintf(left, sizeof left, "%s/.m.new-%ld-abc123", root, dead);
    assert_int_equal(mkdir(left, 0777), 0);
    put(left, "model.json", "{");
    snprintf(path, sizeof path, "%s/layer1", left);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/layer1/dir_link", left);
    assert_int_equal(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/file_link", left);
    char keep[600];
    snprintf(keep, sizeof keep, "%s/keep.txt", outside);
    assert_int_equal(symlink(keep, path), 0);
    /* a link in a sibling's place */
    snprintf(path, sizeof path, "%s/.m.old-%ld-zzz000", root, dead);
    assert_int_equal(symlink(outside, path), 0);
    /* this process's id, written in 2000 */
    char reused[512];
    snprintf(reused, sizeof reused, "%s/.m.new-%ld-qqq111", root, (long)getpid());
    assert_int_equal(mkdir(reused, 0777), 0);
    struct timespec old[2] = {{946684800, 0}, {946684800, 0}};
    assert_int_equal(utimensat(AT_FDCWD, reused, old, 0), 0);
    bool proc = access("/proc/self/stat", R_OK) == 0;
    /* look-alikes */
    const char *fmt[] = {".m.new-%ld-abc12",   ".m.new-%ld-ABC123",  ".m.new-%ld-abc1234",
                         ".mm.new-%ld-abc123", ".m.new-0%ld-abc123", ".m.newer-%ld-abc123",
                         "m.new-%ld-abc123",   ".m.new-%ld_abc123"};
    for (int k = 0; k < 8; k++) {
        char name[64];
        snprintf(name, sizeof name, fmt[k], dead);
        put(root, name, "keep");
    }
    replace(target, 0, "new");
    struct stat st;
    assert_int_not_equal(lstat(left, &st), 0);
    assert_int_not_equal(lstat(path, &st), 0);
    assert_int_equal(lstat(reused, &st) == 0, !proc);
    assert_string_equal(get(outside, "keep.txt"), "mine");
    /* outside/, m, the eight look-alikes (and the reused one without /proc) */
    assert_int_equal(entries(root), 2 + 8 + !proc);
}

static const char *VOCAB[] = {"a", "b", "c"};

static void test_dirswap_model_never_mixed(void **state)
{
    const char *root = tmp_dir(state);
    char dir[512], which[64], why[256];
    snprintf(dir, sizeof dir, "%s/model", root);
    ModelSpec s = {.task = "copy",
                   .V = 3,
                   .vocab = (char **)VOCAB,
                   .d_model = 4,
                   .heads = 2,
                   .layers = 3,
                   .context = 4,
                   .pe = MODEL_PE_SINUSOIDAL,
                   .steps = 1,
                   .seed = 1};
    ModelLayout lay;
    modelfile_layout(&s, &lay);
    float *p = calloc(lay.total, sizeof *p), *q = NULL;
    assert_non_null(p);
    assert_int_equal(modelfile_save(dir, &s, p, "three layers\n", which, sizeof which), AV_OK);
    /* two layers over three: layer3 gone, heads.txt gone (none given) */
    s.layers = 2, s.steps = 2;
    for (size_t i = 0; i < lay.total; i++)
        p[i] = 0.5f;
    assert_int_equal(modelfile_save(dir, &s, p, NULL, which, sizeof which), AV_OK);
    struct stat st;
    char path[600];
    snprintf(path, sizeof path, "%s/layer3", dir);
    assert_int_not_equal(stat(path, &st), 0);
    assert_string_equal(get(dir, "heads.txt"), "");
    ModelSpec back;
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_OK);
    assert_int_equal(back.layers, 2);
    assert_float_equal(q[0], 0.5f, 0.0f);
    modelfile_spec_free(&back);
    free(q);
    assert_int_equal(entries(root), 1);
    /* a folder holding something else is refused, and left as it was */
    put(dir, "layer1/notes.txt", "mine");
    assert_int_equal(modelfile_save(dir, &s, p, NULL, which, sizeof which), AV_ERR_IO);
    assert_int_equal(errno, ENOTEMPTY);
    assert_string_equal(which, "layer1/notes.txt");
    assert_string_equal(get(dir, "layer1/notes.txt"), "mine");
    /* the temporary files a killed atomic write left are not */
    snprintf(path, sizeof path, "%s/layer1/notes.txt", dir);
    unlink(path);
    put(dir, ".model.json.Ab12Cd", "{");
    put(dir, "layer1/.Wq.npy.4242.Ab12Cd", "{"); /* and one of this version's */
    assert_int_equal(modelfile_save(dir, &s, p, NULL, which, sizeof which), AV_OK);
    assert_string_equal(get(dir, ".model.json.Ab12Cd"), "");
    assert_string_equal(get(dir, "layer1/.Wq.npy.4242.Ab12Cd"), "");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_dirswap_both_ways, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dirswap_after_a_kill, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dirswap_model_never_mixed, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_dirswap_stale_links_and_look_alikes, tmp_setup,
                                        tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
