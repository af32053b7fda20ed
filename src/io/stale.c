/* stale.c - temporaries left by killed writers: whose they are (the process
 * id in the name, checked against the process table and, where /proc is
 * there, against the process's start time), and removing them by file
 * descriptor (openat, fdopendir, unlinkat) so that no symbolic link in a
 * stale folder is followed. This module prints nothing and never exits; what
 * it leaves goes to the note hook.
 */
#include "io/stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"

/* The rounding of btime (whole seconds, and itself computed by the kernel
 * from the clock less the uptime) and of the file's time: a process that
 * started within this of the file's last write may have written it. */
#define STALE_MARGIN 2.0

/* The hook for what a sweep leaves. Set once by the program before it
 * writes, read by every sweep. */
static StaleNote note_fn;

void stale_set_note(StaleNote fn)
{
    note_fn = fn;
}

static void note(const char *fmt, ...)
{
    if (!note_fn)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    note_fn(line);
}

/* The system's boot time in seconds since the epoch (btime of /proc/stat),
 * or -1 without /proc. */
static double boot_time(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    char line[256];
    double btime = -1;
    long long v;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "btime %lld", &v) == 1) {
            btime = (double)v;
            break;
        }
        /* a line longer than the buffer (intr): skip the rest of it */
        while (!strchr(line, '\n') && fgets(line, sizeof line, f))
            ;
    }
    fclose(f);
    return btime;
}

/* When process pid started, in seconds since the epoch, or -1 when /proc
 * does not say. Field 22 of /proc/PID/stat counts clock ticks since boot;
 * the fields are counted after the last ')', as the command name (field 2)
 * may hold spaces and parentheses. */
static double start_time(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    for (int field = 2; field < 22 && p; field++) /* p: the space before field+1 */
        p = strchr(p + 1, ' ');
    char *end;
    unsigned long long ticks = p ? strtoull(p + 1, &end, 10) : 0;
    long hz = sysconf(_SC_CLK_TCK);
    double btime = boot_time();
    if (!p || end == p + 1 || hz <= 0 || btime < 0)
        return -1;
    return btime + (double)ticks / (double)hz;
}

StaleOwner stale_owner(long pid, time_t mtime)
{
    if (pid <= 0 || pid > INT_MAX)
        return STALE_GONE; /* no process can have it */
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return STALE_GONE;
    /* it runs (EPERM: another user's), or kill said something else */
    double start = start_time(pid);
    if (start < 0)
        return STALE_UNSURE;
    return start > (double)mtime + STALE_MARGIN ? STALE_GONE : STALE_LIVE;
}

/* Empty the open folder d of all it holds (one pass; entries removed while
 * reading may hide others from readdir, so the caller tries again). */
static int empty_dir(DIR *d)
{
    int err = AV_OK;
    for (struct dirent *e; !err && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            err = stale_remove_at(dirfd(d), e->d_name);
    return err;
}

int stale_remove_at(int dfd, const char *name)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? AV_OK : AV_ERR_IO;
    if (!S_ISDIR(st.st_mode))
        return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? AV_OK : AV_ERR_IO;
    /* O_NOFOLLOW: a link put in the folder's place since fstatat fails here */
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? AV_OK : AV_ERR_IO;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        errno = e;
        return AV_ERR_IO;
    }
    int err = AV_OK;
    for (int pass = 0; pass < 3; pass++) {
        rewinddir(d);
        err = empty_dir(d);
        if (err || unlinkat(dfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) {
            err = err ? err : AV_OK;
            break;
        }
        err = AV_ERR_IO;
        if (errno != ENOTEMPTY && errno != EEXIST)
            break;
    }
    int e = errno;
    closedir(d);
    errno = e;
    return err;
}

/* One entry that match named: removed, claimed, or left and said. */
static void sweep_one(int dfd, const char *parent, const char *target, const char *name, long pid,
                      StaleClaim claim, const void *ctx)
{
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return; /* gone meanwhile */
    StaleOwner who = stale_owner(pid, st.st_mtime);
    if (who == STALE_LIVE && pid == (long)getpid())
        return; /* this process's own, being written */
    if (who == STALE_LIVE) {
        note("left %s/%s in place: process %ld may still be writing %s", parent, name, pid, target);
        return;
    }
    if (who == STALE_UNSURE) {
        note("left %s/%s in place: cannot tell whether process %ld still writes %s", parent, name,
             pid, target);
        return;
    }
    if (claim && claim(dfd, name, ctx))
        return;
    if (stale_remove_at(dfd, name) != AV_OK)
        note("cannot remove %s/%s, a killed run's temporary for %s: %s", parent, name, target,
             strerror(errno));
}

void stale_sweep(const char *parent, const char *target, StaleMatch match, StaleClaim claim,
                 const void *ctx)
{
    int saved = errno;
    int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        errno = saved;
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        long pid = match(e->d_name, ctx);
        if (pid > 0)
            sweep_one(dirfd(d), parent, target, e->d_name, pid, claim, ctx);
    }
    closedir(d);
    errno = saved;
}
