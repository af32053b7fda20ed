/* test_fileio.c - whole-file reads with limits, atomic and no-clobber writes,
 * error reporting with errno, and memory streams. Each test works in its own
 * temporary directory, removed afterwards.
 */
#include "test_common.h"

#define TEST_TMP_FILE "out.txt"
#include "test_tmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/stale.h"

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

static void write_plain(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
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

static bool present(const char *dir, const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

static char noted[512];
static int n_noted;

static void keep_note(const char *line)
{
    snprintf(noted, sizeof noted, "%s", line);
    n_noted++;
}

static void test_fileio_temp_name_has_pid(void **state)
{
    /* expect: the temporary is ".out.txt.PID.XXXXXX" beside out.txt, PID this
     * process's, XXXXXX six letters or digits */
    Tmp *t = *state;
    char *tmp, want[160];
    int fd = file_temp_open(t->path, &tmp);
    assert_true(fd >= 0);
    close(fd);
    snprintf(want, sizeof want, "%s/.out.txt.%ld.", t->dir, (long)getpid());
    assert_int_equal(strncmp(tmp, want, strlen(want)), 0);
    assert_int_equal(strlen(tmp), strlen(want) + 6);
    assert_int_equal(unlink(tmp), 0);
    free(tmp);
}

static void test_fileio_stale_temporaries(void **state)
{
    /* expect: writing out.txt removes the temporaries of out.txt whose writer
     * is gone (a file, a folder of that name whole) or whose id a later
     * process took; a running writer's is left and said in one line; no
     * other name is touched */
    Tmp *t = *state;
    long dead = dead_pid(), live = (long)getppid();
    char gone[64], gone_dir[64], running[64], reused[64], path[1024];
    snprintf(gone, sizeof gone, ".out.txt.%ld.Ab12Cd", dead);
    snprintf(gone_dir, sizeof gone_dir, ".out.txt.%ld.zz9Q00", dead);
    snprintf(running, sizeof running, ".out.txt.%ld.Ab12Cd", live);
    snprintf(reused, sizeof reused, ".out.txt.%ld.Zz99Yy", live);
    char kept[10][64];
    snprintf(kept[0], 64, ".out.txt.Ab12Cd"); /* no pid: an earlier version's */
    snprintf(kept[1], 64, ".out.txt.%ld.Ab12C", dead);
    snprintf(kept[2], 64, ".out.txt.%ld.Ab12Cde", dead);
    snprintf(kept[3], 64, ".out.txt.0%ld.Ab12Cd", dead);
    snprintf(kept[4], 64, ".out.txtx.%ld.Ab12Cd", dead);
    snprintf(kept[5], 64, ".out.txt.x.%ld.Ab12Cd", dead); /* out.txt.x's */
    snprintf(kept[6], 64, "out.txt.%ld.Ab12Cd", dead);
    snprintf(kept[7], 64, ".out.txt.%ld.Ab-2Cd", dead);
    snprintf(kept[8], 64, ".out.txt.%ldx.Ab12Cd", dead);
    snprintf(kept[9], 64, ".out.%ld.Ab12Cd", dead);
    for (int k = 0; k < 10; k++) {
        snprintf(path, sizeof path, "%s/%s", t->dir, kept[k]);
        write_plain(path, "keep");
    }
    const char *temps[] = {gone, running, reused};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", t->dir, temps[k]);
        write_plain(path, "half");
    }
    snprintf(path, sizeof path, "%s/%s", t->dir, gone_dir);
    assert_int_equal(mkdir(path, 0777), 0);
    snprintf(path, sizeof path, "%s/%s/inner", t->dir, gone_dir);
    write_plain(path, "half");
    /* written long before the running process started: not its own */
    struct timespec old[2] = {{946684800, 0}, {946684800, 0}};
    bool proc = access("/proc/self/stat", R_OK) == 0;
    snprintf(path, sizeof path, "%s/%s", t->dir, reused);
    assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);

    n_noted = 0;
    stale_set_note(keep_note);
    int err = file_write_atomic(t->path, "new", 3, false);
    stale_set_note(NULL);
    assert_int_equal(err, AV_OK);
    assert_false(present(t->dir, gone));
    assert_false(present(t->dir, gone_dir));
    assert_true(present(t->dir, running));
    assert_int_equal(present(t->dir, reused), !proc); /* without /proc: kill() trusted */
    for (int k = 0; k < 10; k++)
        assert_true(present(t->dir, kept[k]));
    assert_int_equal(count_entries(t->dir), 10 + 1 + !proc + 1);
    assert_int_equal(n_noted, 1 + !proc);
    assert_non_null(strstr(noted, running));
    assert_non_null(strstr(noted, "out.txt"));
}

static void test_fileio_sweep_family(void **state)
{
    /* expect: the interface's exports, each a new name, are swept as a
     * family: a gone writer's temporary of any of them is removed, a running
     * one's is left and said, and no other name (another extension, another
     * stem, an export itself, a malformed suffix) is touched */
    Tmp *t = *state;
    long dead = dead_pid(), live = (long)getppid();
    char gone[2][96], running[96], kept[6][96], path[1024];
    snprintf(gone[0], 96, ".attnviz-head2-20261206-101500.txt.%ld.Ab12Cd", dead);
    snprintf(gone[1], 96, ".attnviz-heads-20261206-101500-3.txt.%ld.Zz99Yy", dead);
    snprintf(running, 96, ".attnviz-head1-20261206-101501.txt.%ld.Ab12Cd", live);
    snprintf(kept[0], 96, ".attnviz-head2-20261206-101500.csv.%ld.Ab12Cd", dead);
    snprintf(kept[1], 96, ".other-20261206.txt.%ld.Ab12Cd", dead);
    snprintf(kept[2], 96, "attnviz-head2-20261206-101500.txt");
    snprintf(kept[3], 96, ".attnviz-head2-20261206-101500.txt.%ld.Ab12C", dead);
    snprintf(kept[4], 96, ".attnviz-head2.txt.x%ld.Ab12Cd", dead);
    snprintf(kept[5], 96, "attnviz-head2.txt.%ld.Ab12Cd", dead);
    const char *all[] = {gone[0], gone[1], running, kept[0], kept[1],
                         kept[2], kept[3], kept[4], kept[5]};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
        snprintf(path, sizeof path, "%s/%s", t->dir, all[k]);
        write_plain(path, "half");
    }
    static const char *const txt[] = {"txt", NULL};
    FileFamily fam = {"attnviz-head", txt, "the exports"};
    n_noted = 0;
    stale_set_note(keep_note);
    file_sweep_family(t->dir, &fam);
    stale_set_note(NULL);
    assert_false(present(t->dir, gone[0]));
    assert_false(present(t->dir, gone[1]));
    assert_true(present(t->dir, running));
    for (int k = 0; k < 6; k++)
        assert_true(present(t->dir, kept[k]));
    assert_int_equal(n_noted, 1);
    assert_non_null(strstr(noted, running));
}

static void test_fileio_atomic_write_creates_whole_file(void **state)
{
    /* expect: the file holds exactly the bytes written, mode 0644 under umask 022,
     * and no temporary file remains */
    Tmp *t = *state;
    mode_t old = umask(022);
    assert_int_equal(file_write_atomic(t->path, "hello\nworld\n", 12, false), AV_OK);
    umask(old);
    char *data;
    size_t len;
    assert_int_equal(file_read_all(t->path, 100, &data, &len), AV_OK);
    assert_int_equal(len, 12);
    assert_string_equal(data, "hello\nworld\n");
    free(data);
    struct stat st;
    assert_int_equal(stat(t->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(count_entries(t->dir), 1);
}

static void test_fileio_atomic_write_replaces_existing(void **state)
{
    /* expect: without no_clobber an existing file is replaced by the new bytes */
    Tmp *t = *state;
    write_plain(t->path, "old contents, longer than the new");
    assert_int_equal(file_write_atomic(t->path, "new", 3, false), AV_OK);
    char *data;
    size_t len;
    assert_int_equal(file_read_all(t->path, 100, &data, &len), AV_OK);
    assert_string_equal(data, "new");
    free(data);
    assert_int_equal(count_entries(t->dir), 1);
}

static void test_fileio_no_clobber_keeps_existing(void **state)
{
    /* expect: no_clobber on an existing file fails with AV_ERR_IO/EEXIST, file unchanged */
    Tmp *t = *state;
    write_plain(t->path, "keep me");
    errno = 0;
    assert_int_equal(file_write_atomic(t->path, "lost", 4, true), AV_ERR_IO);
    assert_int_equal(errno, EEXIST);
    char *data;
    size_t len;
    assert_int_equal(file_read_all(t->path, 100, &data, &len), AV_OK);
    assert_string_equal(data, "keep me");
    free(data);
    assert_int_equal(count_entries(t->dir), 1);
}

static void test_fileio_no_clobber_creates_new(void **state)
{
    /* expect: no_clobber on a new name writes it and leaves only that file */
    Tmp *t = *state;
    assert_int_equal(file_write_atomic(t->path, "fresh", 5, true), AV_OK);
    char *data;
    size_t len;
    assert_int_equal(file_read_all(t->path, 100, &data, &len), AV_OK);
    assert_string_equal(data, "fresh");
    free(data);
    assert_int_equal(count_entries(t->dir), 1);
}

static void test_fileio_missing_directory_fails(void **state)
{
    /* expect: a folder that does not exist gives AV_ERR_IO with errno ENOENT */
    Tmp *t = *state;
    char p[256];
    snprintf(p, sizeof(p), "%s/no/such/out.txt", t->dir);
    errno = 0;
    assert_int_equal(file_write_atomic(p, "x", 1, false), AV_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(count_entries(t->dir), 0);
}

static void test_fileio_file_as_directory_fails(void **state)
{
    /* expect: a regular file used as a folder gives AV_ERR_IO/ENOTDIR, even for root */
    Tmp *t = *state;
    char p[256];
    write_plain(t->path, "x");
    snprintf(p, sizeof(p), "%s/out.txt/inner", t->dir);
    errno = 0;
    assert_int_equal(file_write_atomic(p, "x", 1, false), AV_ERR_IO);
    assert_int_equal(errno, ENOTDIR);
    assert_int_equal(count_entries(t->dir), 1);
}

static void test_fileio_unwritable_directory_fails(void **state)
{
    /* expect: a read-only folder gives AV_ERR_IO/EACCES and no temporary file (root skips) */
    Tmp *t = *state;
    if (geteuid() == 0)
        skip(); /* root bypasses permission bits */
    assert_int_equal(chmod(t->dir, 0500), 0);
    errno = 0;
    assert_int_equal(file_write_atomic(t->path, "x", 1, false), AV_ERR_IO);
    assert_int_equal(errno, EACCES);
    assert_int_equal(chmod(t->dir, 0700), 0);
    assert_int_equal(count_entries(t->dir), 0);
}

static void test_fileio_directory_target_fails(void **state)
{
    /* expect: writing over a folder fails with AV_ERR_IO and leaves no temporary file */
    Tmp *t = *state;
    errno = 0;
    assert_int_equal(file_write_atomic(t->dir, "x", 1, false), AV_ERR_IO);
    assert_int_not_equal(errno, 0);
    assert_int_equal(count_entries(t->dir), 0);
}

static void test_fileio_full_device_reports_enospc(void **state)
{
    /* expect: /dev/full is written in place and reports AV_ERR_IO with errno ENOSPC */
    (void)state;
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode))
        skip();
    errno = 0;
    assert_int_equal(file_write_atomic("/dev/full", "data", 4, false), AV_ERR_IO);
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

static void test_fileio_read_limit_edges(void **state)
{
    /* expect: a 10-byte file reads with max 10 and gives AV_ERR_TOO_LARGE with max 9 */
    Tmp *t = *state;
    write_plain(t->path, "0123456789");
    char *data = (char *)1;
    size_t len = 99;
    assert_int_equal(file_read_all(t->path, 10, &data, &len), AV_OK);
    assert_int_equal(len, 10);
    assert_int_equal(data[10], '\0');
    free(data);
    assert_int_equal(file_read_all(t->path, 9, &data, &len), AV_ERR_TOO_LARGE);
    assert_null(data);
    assert_int_equal(len, 0);
}

static void test_fileio_read_large_and_empty(void **state)
{
    /* expect: 300000 bytes (several chunks) read back equal; an empty file gives len 0 */
    Tmp *t = *state;
    size_t n = 300000;
    char *big = malloc(n), *data;
    size_t len;
    assert_non_null(big);
    for (size_t k = 0; k < n; k++)
        big[k] = (char)('a' + k % 26);
    assert_int_equal(file_write_atomic(t->path, big, n, false), AV_OK);
    assert_int_equal(file_read_all(t->path, n, &data, &len), AV_OK);
    assert_int_equal(len, n);
    assert_memory_equal(data, big, n);
    free(data);
    free(big);
    assert_int_equal(file_write_atomic(t->path, "", 0, false), AV_OK);
    assert_int_equal(file_read_all(t->path, 10, &data, &len), AV_OK);
    assert_int_equal(len, 0);
    assert_string_equal(data, "");
    free(data);
}

static void test_fileio_read_missing_file(void **state)
{
    /* expect: a missing file gives AV_ERR_IO with errno ENOENT */
    Tmp *t = *state;
    char *data;
    size_t len;
    errno = 0;
    assert_int_equal(file_read_all(t->path, 10, &data, &len), AV_ERR_IO);
    assert_int_equal(errno, ENOENT);
}

static void test_fileio_read_regular_refuses_others(void **state)
{
    /* expect: file_read_regular reads a regular file as file_read_all does,
       and refuses a folder and a FIFO nobody writes to with AV_ERR_MODEL at
       once (the alarm ends the test if it waits for a writer) */
    Tmp *t = *state;
    char *data;
    size_t len = 1;
    write_plain(t->path, "abc");
    assert_int_equal(file_read_regular(t->path, 10, &data, &len), AV_OK);
    assert_int_equal(len, 3);
    assert_string_equal(data, "abc");
    free(data);
    assert_int_equal(file_read_regular(t->path, 2, &data, &len), AV_ERR_TOO_LARGE);
    assert_null(data);
    unlink(t->path);
    errno = 0;
    assert_int_equal(file_read_regular(t->path, 10, &data, &len), AV_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(file_read_regular(t->dir, 10, &data, &len), AV_ERR_MODEL);
    assert_int_equal(mkfifo(t->path, 0600), 0);
    alarm(10);
    assert_int_equal(file_read_regular(t->path, 10, &data, &len), AV_ERR_MODEL);
    assert_null(data);
    int fd = file_open_read(t->path);
    alarm(0);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* blocking again */
    close(fd);
    unlink(t->path);
}

static void test_fileio_memfile_collects_output(void **state)
{
    /* expect: text printed to a MemFile is in buf/len after memfile_close */
    (void)state;
    MemFile m;
    assert_int_equal(memfile_open(&m), AV_OK);
    fprintf(m.f, "n=%d %s", 42, "ok");
    assert_int_equal(memfile_close(&m), AV_OK);
    assert_null(m.f);
    assert_int_equal(m.len, 7);
    assert_memory_equal(m.buf, "n=42 ok", 7);
    memfile_free(&m);
    assert_null(m.buf);
}

static void test_file_base_name(void **state)
{
    /* expect: the last component, the path itself when it has none or ends in '/' */
    (void)state;
    assert_string_equal(file_base_name("a/b/attn.npy"), "attn.npy");
    assert_string_equal(file_base_name("/attn.npy"), "attn.npy");
    assert_string_equal(file_base_name("attn.npy"), "attn.npy");
    assert_string_equal(file_base_name("dir/"), "dir/");
}

static void test_file_name_ends(void **state)
{
    (void)state;
    assert_true(file_name_ends("model-00001-of-00002.safetensors", ".safetensors"));
    assert_true(file_name_ends(".safetensors", ".safetensors"));
    assert_false(file_name_ends("safetensors", ".safetensors"));
    assert_false(file_name_ends("model.safetensors.index.json", ".safetensors"));
    assert_true(file_name_ends("x", ""));
}

/* file_first_in's test: a regular file whose name begins with "b" */
static bool regular_b(const char *name, const char *path)
{
    return name[0] == 'b' && file_is_regular(path);
}

static void test_file_first_in(void **state)
{
    /* expect: the entry the test takes, named, given dir/name as its
     * path; a folder is not regular; none, or no such folder: false */
    char path[256], name[64] = "";
    snprintf(path, sizeof path, "%s/a", tmp_dir(state));
    assert_int_equal(file_write_atomic(path, "1", 1, false), AV_OK);
    snprintf(path, sizeof path, "%s/bdir", tmp_dir(state));
    assert_int_equal(mkdir(path, 0700), 0);
    assert_false(file_is_regular(path));
    assert_false(file_first_in(tmp_dir(state), regular_b, name, sizeof name));
    snprintf(path, sizeof path, "%s/bfile", tmp_dir(state));
    assert_int_equal(file_write_atomic(path, "2", 1, false), AV_OK);
    assert_true(file_is_regular(path));
    assert_true(file_first_in(tmp_dir(state), regular_b, name, sizeof name));
    assert_string_equal(name, "bfile");
    assert_true(file_first_in(tmp_dir(state), regular_b, NULL, 0));
    snprintf(path, sizeof path, "%s/none", tmp_dir(state));
    assert_false(file_first_in(path, regular_b, name, sizeof name));
    assert_false(file_is_regular(path));
}

#ifdef __SANITIZE_ADDRESS__
/* the sanitizer's allocator returns NULL when memory runs out, as libc's
 * does, instead of ending the program: the NOMEM test below needs it */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#endif

static void test_fileio_atomic_write_out_of_memory(void **state)
{
    /* expect: AV_ERR_NOMEM when the temporary file's name cannot be
     * allocated (a child process whose address space is capped 16 MiB above
     * its size, given a 64 MiB path), and nothing is written */
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        size_t len = (size_t)64 << 20;
        char *path = malloc(len + 1);
        long pages = 0, page = sysconf(_SC_PAGESIZE);
        FILE *f = fopen("/proc/self/statm", "r");
        if (!path || !f || fscanf(f, "%ld", &pages) != 1)
            _exit(3);
        fclose(f);
        memset(path, 'a', len);
        memcpy(path, "/tmp/", 5);
        path[len] = '\0';
        rlim_t cap = (rlim_t)pages * (rlim_t)page + ((rlim_t)16 << 20);
        struct rlimit rl = {cap, cap};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(4);
        _exit(file_write_atomic(path, "x", 1, false) == AV_ERR_NOMEM ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_base_name),
        cmocka_unit_test(test_file_name_ends),
        cmocka_unit_test_setup_teardown(test_file_first_in, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_fileio_atomic_write_out_of_memory),
        cmocka_unit_test_setup_teardown(test_fileio_atomic_write_creates_whole_file, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_atomic_write_replaces_existing, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_no_clobber_keeps_existing, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_no_clobber_creates_new, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_missing_directory_fails, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_file_as_directory_fails, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_unwritable_directory_fails, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_directory_target_fails, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test(test_fileio_full_device_reports_enospc),
        cmocka_unit_test_setup_teardown(test_fileio_read_limit_edges, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_read_large_and_empty, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_read_missing_file, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_read_regular_refuses_others, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test(test_fileio_memfile_collects_output),
        cmocka_unit_test_setup_teardown(test_fileio_temp_name_has_pid, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_stale_temporaries, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_fileio_sweep_family, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
