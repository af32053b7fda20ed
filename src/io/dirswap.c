/* dirswap.c - write a folder beside its final place, then swap it in.
 *
 * The siblings are named after the folder and the writing process,
 * ".NAME.new-PID-SUFFIX" and ".NAME.old-PID-SUFFIX", so that a later run
 * knows which belong to processes that are gone and may be removed, and
 * never touches one that a running process is writing (stale.c judges and
 * removes). This module prints nothing and never exits; errno is kept
 * meaningful on every failure.
 */
#include "io/dirswap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/av.h"
#include "io/stale.h"

#define EXCHANGE 2u /* RENAME_EXCHANGE of renameat2(2) */

/* parent and base name of dir (trailing slashes ignored). */
static int split(const char *dir, char *parent, size_t pcap, char *base, size_t bcap)
{
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    size_t slash = len;
    while (slash > 0 && dir[slash - 1] != '/')
        slash--;
    if (len == 0 || slash == len)
        return errno = EINVAL, AV_ERR_IO;
    int n = slash == 0   ? snprintf(parent, pcap, ".")
            : slash == 1 ? snprintf(parent, pcap, "/")
                         : snprintf(parent, pcap, "%.*s", (int)(slash - 1), dir);
    int m = snprintf(base, bcap, "%.*s", (int)(len - slash), dir + slash);
    if (n < 0 || (size_t)n >= pcap || m < 0 || (size_t)m >= bcap)
        return errno = ENAMETOOLONG, AV_ERR_IO;
    return AV_OK;
}

/* fn on every entry of the folder path but "." and ".." (as path/name),
 * until one fails: AV_OK, AV_ERR_IO (errno says why) or fn's error. */
static int each_entry(const char *path, int (*fn)(const char *))
{
    DIR *d = opendir(path);
    if (!d)
        return AV_ERR_IO;
    char sub[4096];
    int err = AV_OK;
    for (struct dirent *e; !err && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int n = snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        err = n < 0 || (size_t)n >= sizeof sub ? (errno = ENAMETOOLONG, AV_ERR_IO) : fn(sub);
    }
    int e = errno;
    closedir(d);
    errno = e;
    return err;
}

int dirswap_remove_tree(const char *path)
{
    char parent[4096], base[1024];
    if (split(path, parent, sizeof parent, base, sizeof base))
        return AV_ERR_IO;
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? AV_OK : AV_ERR_IO;
    int err = stale_remove_at(fd, base);
    int e = errno;
    close(fd);
    errno = e;
    return err;
}

/* fsync the folder path and every folder in it (their entries); the files'
 * bytes were fsync'd by whoever wrote them (file_write_atomic does). */
static int fsync_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return AV_ERR_IO;
    if (!S_ISDIR(st.st_mode))
        return AV_OK;
    int err = each_entry(path, fsync_tree);
    if (err)
        return err;
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return AV_ERR_IO;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc == 0 || errno == EINVAL ? AV_OK : AV_ERR_IO; /* EINVAL: no fsync here */
}

static void fsync_parent(const char *dir)
{
    char parent[4096], base[1024];
    if (split(dir, parent, sizeof parent, base, sizeof base))
        return;
    int fd = open(parent, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The writer's pid in a sibling's name "." base "." kind "-PID-SUFFIX"
 * (SUFFIX six lower-case letters or digits, as sibling makes it), or 0 when
 * name is not one of base's siblings of that kind. */
static long sibling_pid(const char *name, const char *base, const char *kind)
{
    size_t bl = strlen(base), kl = strlen(kind);
    if (name[0] != '.' || strncmp(name + 1, base, bl) || name[1 + bl] != '.' ||
        strncmp(name + 2 + bl, kind, kl) || name[2 + bl + kl] != '-')
        return 0;
    const char *p = name + 3 + bl + kl;
    long pid = 0;
    if (*p < '1' || *p > '9')
        return 0;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((pid = pid * 10 + (*p - '0')) > 99999999)
            return 0;
    if (*p++ != '-' || strlen(p) != 6)
        return 0;
    for (int k = 0; k < 6; k++)
        if (!((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= '0' && p[k] <= '9')))
            return 0;
    return pid;
}

/* What the sweep of dir's parent is given. */
typedef struct {
    const char *dir, *base;
} Siblings;

static long match_sibling(const char *name, const void *ctx)
{
    const Siblings *sb = ctx;
    long pid = sibling_pid(name, sb->base, "new");
    return pid ? pid : sibling_pid(name, sb->base, "old");
}

/* A folder renamed aside by a run killed before the new one took its place
 * goes back when dir is missing (a folder: never a link in its place). */
static bool put_back(int dfd, const char *name, const void *ctx)
{
    const Siblings *sb = ctx;
    struct stat st;
    return sibling_pid(name, sb->base, "old") &&
           fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
           lstat(sb->dir, &st) != 0 && errno == ENOENT &&
           renameat(dfd, name, AT_FDCWD, sb->dir) == 0;
}

/* Remove the siblings left by runs that were killed; put a folder that was
 * renamed aside back in place when dir itself is missing. */
static void clean_siblings(const char *dir, const char *parent, const char *base)
{
    Siblings sb = {dir, base};
    stale_sweep(parent, dir, match_sibling, put_back, &sb);
}

/* Make a fresh sibling folder "." base "." kind "-PID-SUFFIX" (mode 0777 less
 * the umask, as mkdir gives), or only name it when make is false. */
static int sibling(char *out, size_t cap, const char *parent, const char *base, const char *kind,
                   bool make)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    unsigned long x = (unsigned long)t.tv_nsec ^ (unsigned long)t.tv_sec * 2654435761u;
    for (int tries = 0; tries < 100; tries++) {
        char suffix[7];
        x = x * 6364136223846793005u + 1442695040888963407u;
        for (int k = 0; k < 6; k++)
            suffix[k] = digits[(x >> (8 + 5 * k)) % 36];
        suffix[6] = '\0';
        int n = snprintf(out, cap, "%s/.%s.%s-%ld-%s", parent, base, kind, (long)getpid(), suffix);
        if (n < 0 || (size_t)n >= cap)
            return errno = ENAMETOOLONG, AV_ERR_IO;
        struct stat st;
        if (!make && lstat(out, &st) != 0 && errno == ENOENT)
            return AV_OK;
        if (make && mkdir(out, 0777) == 0)
            return AV_OK;
        if (make && errno != EEXIST)
            return AV_ERR_IO;
    }
    return errno = EEXIST, AV_ERR_IO;
}

int dirswap_begin(DirSwap *s, const char *dir)
{
    char parent[4096], base[1024];
    memset(s, 0, sizeof *s);
    struct stat st;
    /* a symbolic link to a folder: the folder it points to is replaced */
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        if (!realpath(dir, s->dir))
            return AV_ERR_IO;
    } else if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir) {
        return errno = ENAMETOOLONG, AV_ERR_IO;
    }
    if (split(s->dir, parent, sizeof parent, base, sizeof base))
        return AV_ERR_IO;
    clean_siblings(s->dir, parent, base);
    if (lstat(s->dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return errno = ENOTDIR, AV_ERR_IO;
    return sibling(s->tmp, sizeof s->tmp, parent, base, "new", true);
}

void dirswap_abort(DirSwap *s)
{
    int e = errno;
    if (s->tmp[0])
        dirswap_remove_tree(s->tmp);
    s->tmp[0] = '\0';
    errno = e;
}

static int exchange(const char *a, const char *b)
{
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, EXCHANGE);
#else
    (void)a, (void)b;
    return errno = ENOSYS, -1;
#endif
}

/* Without the exchange: dir aside, the new folder in, the old one removed.
 * Killed between the two renames, dir is missing and the old folder aside,
 * which the next dirswap_begin puts back. */
static int swap_by_two_renames(DirSwap *s)
{
    char parent[4096], base[1024], old[4096];
    if (split(s->dir, parent, sizeof parent, base, sizeof base) ||
        sibling(old, sizeof old, parent, base, "old", false) || rename(s->dir, old) != 0)
        return AV_ERR_IO;
    if (rename(s->tmp, s->dir) != 0) {
        int e = errno;
        rename(old, s->dir);
        errno = e;
        return AV_ERR_IO;
    }
    s->tmp[0] = '\0';
    fsync_parent(s->dir);
    dirswap_remove_tree(old);
    return AV_OK;
}

int dirswap_commit(DirSwap *s)
{
    struct stat st;
    int err = fsync_tree(s->tmp);
    if (!err && lstat(s->dir, &st) != 0) {
        if (errno != ENOENT || rename(s->tmp, s->dir) != 0)
            err = AV_ERR_IO;
        else
            s->tmp[0] = '\0';
    } else if (!err && !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR, err = AV_ERR_IO;
    } else if (!err && !s->no_exchange && exchange(s->tmp, s->dir) == 0) {
        /* s->tmp now holds the previous folder */
        fsync_parent(s->dir);
    } else if (!err &&
               (s->no_exchange || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
        err = swap_by_two_renames(s);
    } else if (!err) {
        err = AV_ERR_IO;
    }
    if (!err && !s->tmp[0])
        fsync_parent(s->dir);
    dirswap_abort(s);
    return err;
}

/* The file name a killed atomic write's temporary stands for
 * (".NAME.PID.XXXXXX" or ".NAME.XXXXXX": NAME) into out, or false. */
static bool temporary_of(const char *name, char *out, size_t size)
{
    size_t len = strlen(name);
    if (name[0] != '.' || len <= 8 || name[len - 7] != '.')
        return false;
    snprintf(out, size, "%.*s", (int)(len - 8), name + 1);
    char *dot = strrchr(out, '.'); /* the writer's pid */
    if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1))
        *dot = '\0';
    return true;
}

/* Whether the entry name (a folder when is_dir) may be in such a folder. */
static bool own_entry(DirSwapOwn own, const char *name, bool in_layer, bool is_dir)
{
    char inner[256];
    if (temporary_of(name, inner, sizeof inner))
        return !is_dir && own(inner, in_layer);
    if (is_dir) {
        int l = 0, used = 0;
        return !in_layer && sscanf(name, "layer%d%n", &l, &used) == 1 && l > 0 &&
               (size_t)used == strlen(name);
    }
    return own(name, in_layer);
}

static int only_in(const char *dir, DirSwapOwn own, bool in_layer, char *which, size_t whichlen)
{
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT && !in_layer ? AV_OK : AV_ERR_IO;
    char sub[4096];
    int err = AV_OK;
    struct stat st;
    for (struct dirent *e; !err && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int n = snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof sub) {
            errno = ENAMETOOLONG, err = AV_ERR_IO;
            break;
        }
        bool is_dir = lstat(sub, &st) == 0 && S_ISDIR(st.st_mode);
        if (!own_entry(own, e->d_name, in_layer, is_dir)) {
            snprintf(which, whichlen, "%s%s", e->d_name, is_dir ? "/" : "");
            errno = ENOTEMPTY, err = AV_ERR_IO;
        } else if (is_dir && (err = only_in(sub, own, true, which, whichlen)) && which[0]) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s", which);
            snprintf(which, whichlen, "%s/%s", e->d_name, inner);
        }
    }
    int keep = errno;
    closedir(d);
    errno = keep;
    return err;
}

int dirswap_only(const char *dir, DirSwapOwn own, char *which, size_t whichlen)
{
    snprintf(which, whichlen, "%s", "");
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return errno = ENOTDIR, AV_ERR_IO;
    return only_in(dir, own, false, which, whichlen);
}
