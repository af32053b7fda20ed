/* test_stale.c - temporaries left by killed writers: whose they are (a gone
 * process, a running one, a process id used again by a later process), a
 * stale folder removed whole without following a symbolic link in it or in
 * its place, and what a sweep leaves said in one line each. */
#include "test_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/av.h"
#include "io/stale.h"
#include "test_tmp.h"

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

static void make_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static bool exists(const char *dir, const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static void test_stale_owner(void **state)
{
    (void)state;
    time_t now = time(NULL);
    /* a process that has exited, and ids no process can have */
    assert_int_equal(stale_owner(dead_pid(), now), STALE_GONE);
    assert_int_equal(stale_owner(0, now), STALE_GONE);
    assert_int_equal(stale_owner((long)INT_MAX + 1, now), STALE_GONE);
    /* this process, for a file written now: running (its start time is read
     * where /proc is there; without /proc kill() alone says so) */
    StaleOwner self = stale_owner((long)getpid(), now);
    assert_true(self == STALE_LIVE || self == STALE_UNSURE);
    /* the parent, which runs, for a file written now */
    StaleOwner parent = stale_owner((long)getppid(), now);
    assert_true(parent == STALE_LIVE || parent == STALE_UNSURE);
    if (access("/proc/self/stat", R_OK) != 0) {
        skip(); /* without /proc a process id used again cannot be told */
        return;
    }
    assert_int_equal(self, STALE_LIVE);
    /* the id used again: a file last written a year before this process
     * started is not this process's */
    assert_int_equal(stale_owner((long)getpid(), now - 86400 * 365), STALE_GONE);
    /* a process started now (a child that waits): a file written 10 s
     * before is not its own; one written after it started is */
    time_t t0 = time(NULL);
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    assert_true(child > 0);
    usleep(100000); /* until the child runs: its start time is set at fork */
    StaleOwner before = stale_owner((long)child, t0 - 10);
    StaleOwner after = stale_owner((long)child, time(NULL));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    assert_int_equal(before, STALE_GONE);
    assert_int_equal(after, STALE_LIVE);
    assert_int_equal(stale_owner((long)child, time(NULL)), STALE_GONE); /* reaped */
}

static void test_stale_remove_whole_no_link_followed(void **state)
{
    const char *root = tmp_dir(state);
    char dir[512], outside[256], path[512];
    /* outside/keep.txt, and a folder whose links point there */
    snprintf(outside, sizeof outside, "%s/outside", root);
    assert_int_equal(mkdir(outside, 0777), 0);
    make_file(outside, "keep.txt", "mine");
    snprintf(dir, sizeof dir, "%s/gone", root);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/gone/layer1", root);
    assert_int_equal(mkdir(path, 0777), 0);
    make_file(path, "W.npy", "x");
    make_file(dir, "a.npy", "y");
    snprintf(path, sizeof path, "%s/gone/link", root);
    assert_int_equal(symlink(outside, path), 0);
    snprintf(path, sizeof path, "%s/gone/layer1/file_link", root);
    snprintf(dir, sizeof dir, "%s/keep.txt", outside);
    assert_int_equal(symlink(dir, path), 0);
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    assert_int_equal(stale_remove_at(fd, "gone"), AV_OK);
    assert_false(exists(root, "gone"));
    assert_true(exists(outside, "keep.txt"));
    /* a link in the folder's place: the link goes, what it points to stays */
    snprintf(path, sizeof path, "%s/link_in_place", root);
    assert_int_equal(symlink(outside, path), 0);
    assert_int_equal(stale_remove_at(fd, "link_in_place"), AV_OK);
    assert_false(exists(root, "link_in_place"));
    assert_true(exists(outside, "keep.txt"));
    /* a missing entry is not an error */
    assert_int_equal(stale_remove_at(fd, "never_was"), AV_OK);
    close(fd);
}

static char said[4][512];
static int n_said;

static void keep_note(const char *line)
{
    if (n_said < 4)
        snprintf(said[n_said], sizeof said[0], "%s", line);
    n_said++;
}

/* The test's pattern: "t.PID" for target t. */
static long match_t(const char *name, const void *ctx)
{
    (void)ctx;
    char *end;
    long pid = strncmp(name, "t.", 2) ? 0 : strtol(name + 2, &end, 10);
    return pid > 0 && *end == '\0' ? pid : 0;
}

static bool claim_none(int dfd, const char *name, const void *ctx)
{
    (void)dfd;
    return !strcmp(name, ctx); /* ctx: the one name kept as if put back */
}

static void test_stale_sweep_says_what_it_leaves(void **state)
{
    const char *root = tmp_dir(state);
    char dead[32], dead2[32], live[32], own[32], other[32];
    snprintf(dead, sizeof dead, "t.%ld", dead_pid());
    snprintf(dead2, sizeof dead2, "t.%ld", dead_pid());
    snprintf(live, sizeof live, "t.%ld", (long)getppid());
    snprintf(own, sizeof own, "t.%ld", (long)getpid());
    snprintf(other, sizeof other, "u.%ld", dead_pid());
    const char *names[] = {dead, dead2, live, own, other};
    for (int k = 0; k < 5; k++)
        make_file(root, names[k], "x");
    n_said = 0;
    stale_set_note(keep_note);
    stale_sweep(root, "t", match_t, claim_none, dead2);
    stale_set_note(NULL);
    assert_false(exists(root, dead)); /* gone process: removed */
    assert_true(exists(root, dead2)); /* claimed: left to the claimer */
    assert_true(exists(root, live));  /* running: left, and said */
    assert_true(exists(root, own));   /* this process's own: left, not said */
    assert_true(exists(root, other)); /* not the pattern: never looked at */
    assert_int_equal(n_said, 1);
    assert_non_null(strstr(said[0], live));
    assert_non_null(strstr(said[0], "left"));
    assert_null(strchr(said[0], '\n'));
    /* an unreadable folder: nothing swept, nothing said, errno kept */
    errno = 1234;
    stale_sweep("/nonexistent/folder", "t", match_t, NULL, NULL);
    assert_int_equal(errno, 1234);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stale_owner),
        cmocka_unit_test_setup_teardown(test_stale_remove_whole_no_link_followed, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_stale_sweep_says_what_it_leaves, tmp_setup,
                                        tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
