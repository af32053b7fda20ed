/* fileio.c - whole-file reads and atomic writes.
 *
 * Reads grow a buffer chunk by chunk up to a stated limit, so standard input
 * and pipes work as well as regular files. Writes go to a temporary file in
 * the target's folder that is fsync'd, closed (both checked: a full disk shows
 * up at write, fsync or close) and only then renamed, or hard-linked for
 * no-clobber, so a reader never sees half a file. errno is kept meaningful on
 * every failure. SIGINT, SIGTERM and SIGHUP are held while the temporary file
 * exists (only SIGKILL can leave it; its name carries the writer's process
 * id, so that the next write of the same file removes it once that process
 * is gone: stale.c). This module prints nothing and never exits.
 */
#include "io/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/stale.h"

#define FILEIO_CHUNK ((size_t)1 << 16)

/* Make sure buf has room for more bytes, never beyond limit (+1 for the NUL). */
static int grow(char **buf, size_t *cap, size_t limit)
{
    size_t ncap = *cap ? *cap * 2 : FILEIO_CHUNK;
    if (ncap > limit || ncap < *cap)
        ncap = limit;
    char *p = realloc(*buf, ncap + 1);
    if (!p)
        return AV_ERR_NOMEM;
    *buf = p;
    *cap = ncap;
    return AV_OK;
}

int file_read_stream(FILE *f, size_t max, char **data, size_t *len)
{
    /* Read one byte past max so that "exactly max" and "more" differ. */
    size_t limit = max < SIZE_MAX - 1 ? max + 1 : SIZE_MAX - 1;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int rc = AV_OK;

    *data = NULL;
    *len = 0;
    for (;;) {
        if (n == cap) {
            if (cap >= limit)
                break;
            if ((rc = grow(&buf, &cap, limit)) != AV_OK)
                goto fail;
        }
        size_t want = cap - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got < want) {
            if (ferror(f)) {
                rc = AV_ERR_IO;
                goto fail;
            }
            break; /* end of file */
        }
    }
    if (n > max) {
        rc = AV_ERR_TOO_LARGE;
        goto fail;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return AV_OK;
fail:
    free(buf);
    return rc;
}

const char *file_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

bool file_name_ends(const char *name, const char *end)
{
    size_t n = strlen(name), k = strlen(end);
    return n >= k && strcmp(name + n - k, end) == 0;
}

bool file_is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool file_first_in(const char *dir, bool (*take)(const char *name, const char *path), char *name,
                   size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        char path[4096 + 256];
        found = snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path &&
                take(e->d_name, path);
        if (found && name)
            snprintf(name, size, "%s", e->d_name);
    }
    closedir(d);
    return found;
}

int file_open_read(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int file_read_all(const char *path, size_t max, char **data, size_t *len)
{
    if (strcmp(path, "-") == 0)
        return file_read_stream(stdin, max, data, len);
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return AV_ERR_IO;
    int rc = file_read_stream(f, max, data, len);
    int saved = errno;
    fclose(f); /* read-only: a close error loses nothing */
    errno = saved;
    return rc;
}

int file_read_regular(const char *path, size_t max, char **data, size_t *len)
{
    struct stat st;
    *data = NULL;
    *len = 0;
    int fd = file_open_read(path);
    if (fd < 0)
        return AV_ERR_IO;
    int bad = fstat(fd, &st) != 0 ? AV_ERR_IO : !S_ISREG(st.st_mode) ? AV_ERR_MODEL : AV_OK;
    if (bad) {
        int e = errno;
        close(fd);
        errno = e;
        return bad;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return AV_ERR_IO;
    }
    int rc = file_read_stream(f, max, data, len);
    int saved = errno;
    fclose(f);
    errno = saved;
    return rc;
}

int file_read_in(const char *dir, const char *name, size_t max, char **data, size_t *len, char *why,
                 size_t whylen)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        snprintf(why, whylen, "%s: the folder's path is too long", name);
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    int rc = file_read_regular(path, max, data, len);
    if (rc == AV_ERR_MODEL) {
        snprintf(why, whylen, "%s: not a regular file", path);
    } else if (rc == AV_ERR_IO) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", path, strerror(e));
        errno = e;
    } else if (rc == AV_ERR_TOO_LARGE) {
        snprintf(why, whylen, "%s: larger than %zu MB", path, max >> 20);
    }
    return rc;
}

/* write(2) until done, retrying on EINTR and short writes. */
static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A device or FIFO cannot be replaced by rename: write straight to it. */
static int write_direct(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return AV_ERR_IO;
    if (write_all(fd, data, len) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return AV_ERR_IO;
    }
    return close(fd) == 0 ? AV_OK : AV_ERR_IO;
}

/* The writer's process id in name when it is one of base's temporaries,
 * "." base "." PID "." and six letters or digits (mkstemp's), else 0. The
 * name is read from its end, so that no other target's temporary (".a.1" of
 * "a.1" beside "a") and no file of another kind matches. */
static long temp_pid(const char *name, const char *base)
{
    size_t n = strlen(name), bl = strlen(base);
    if (n < bl + 10 || name[0] != '.' || strncmp(name + 1, base, bl) || name[1 + bl] != '.')
        return 0;
    const char *suffix = name + n - 6;
    for (int k = 0; k < 6; k++)
        if (!isalnum((unsigned char)suffix[k]))
            return 0;
    const char *p = name + 2 + bl;
    if (suffix[-1] != '.' || p >= suffix - 1 || !isdigit((unsigned char)*p) || *p == '0')
        return 0;
    long pid = 0;
    for (; p < suffix - 1; p++) {
        if (!isdigit((unsigned char)*p) || pid > 99999999)
            return 0;
        pid = pid * 10 + (*p - '0');
    }
    return pid;
}

static long match_temp(const char *name, const void *base)
{
    return temp_pid(name, base);
}

/* The writer's process id in name when it is the temporary of a file of
 * the family (a name starting with stem, ending with one of exts), else 0:
 * the family's own name is whatever stands between the dot and the pid. */
static long family_pid(const char *name, const FileFamily *fam)
{
    size_t n = strlen(name), sl = strlen(fam->stem);
    if (n < sl + 10 || name[0] != '.' || strncmp(name + 1, fam->stem, sl))
        return 0;
    /* ".STEM...EXT.PID.XXXXXX": the pid is the run of digits before the last dot */
    const char *last = name + n - 7, *p = last;
    while (p > name + 1 + sl && isdigit((unsigned char)p[-1]))
        p--;
    if (p == last || p[-1] != '.')
        return 0;
    for (const char *const *e = fam->exts; *e; e++) {
        size_t el = strlen(*e);
        const char *dot = p - 1 - el;
        if (dot > name + 1 + sl && dot[-1] == '.' && !strncmp(dot, *e, el)) {
            char base[256];
            snprintf(base, sizeof base, "%.*s", (int)(p - 1 - (name + 1)), name + 1);
            return temp_pid(name, base);
        }
    }
    return 0;
}

static long match_family(const char *name, const void *fam)
{
    return family_pid(name, fam);
}

void file_sweep_family(const char *parent, const FileFamily *fam)
{
    stale_sweep(parent, fam->what, match_family, NULL, fam);
}

int file_temp_open(const char *path, char **tmp)
{
    *tmp = NULL;
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    const char *base = path + dirlen;
    if (*base == '\0' || !strcmp(base, ".") || !strcmp(base, "..")) {
        errno = EISDIR;
        return -1;
    }
    char parent[4096];
    if (dirlen >= sizeof parent) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (dirlen == 0)
        snprintf(parent, sizeof parent, ".");
    else /* "/file": the root folder */
        snprintf(parent, sizeof parent, "%.*s", dirlen > 1 ? (int)dirlen - 1 : 1, path);
    stale_sweep(parent, path, match_temp, NULL, base);
    /* "<dir>/.<base>.<pid>.XXXXXX": same folder, so rename and link stay on one file system */
    size_t size = strlen(path) + sizeof("..2147483647.XXXXXX");
    char *name = malloc(size);
    if (!name) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(name, size, "%.*s.%s.%ld.XXXXXX", (int)dirlen, path, base, (long)getpid());
    int fd = mkstemp(name);
    if (fd < 0) {
        int saved = errno;
        free(name);
        errno = saved;
        return -1;
    }
    *tmp = name;
    return fd;
}

/* Best effort: make the rename itself durable. A failure here loses no data. */
static void fsync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096] = ".";
    if (slash) {
        size_t n = (size_t)(slash - path);
        if (n == 0)
            n = 1; /* "/file": the root folder */
        if (n >= sizeof(dir))
            return;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* mkstemp makes mode 0600; give the file the mode open(2) would have given. */
static int set_default_mode(int fd)
{
    mode_t mask = umask(0);
    umask(mask);
    return fchmod(fd, 0666 & ~mask);
}

/* Fill, flush and close the temporary file; fd is closed in every case. */
static int fill_temp(int fd, const void *data, size_t len)
{
    if (write_all(fd, data, len) != 0 || set_default_mode(fd) != 0 || fsync(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return close(fd);
}

/* Move tmp to path. link() fails with EEXIST instead of replacing. */
static int publish(const char *tmp, const char *path, bool no_clobber)
{
    if (!no_clobber)
        return rename(tmp, path);
    if (link(tmp, path) != 0)
        return -1;
    unlink(tmp);
    return 0;
}

/* Write through a temporary file; see file_write_atomic. */
static int write_via_temp(const char *path, const void *data, size_t len, bool no_clobber)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (no_clobber) {
            errno = EEXIST;
            return AV_ERR_IO;
        }
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            return write_direct(path, data, len);
    }
    char *tmp;
    int fd = file_temp_open(path, &tmp);
    if (fd < 0)
        return errno == ENOMEM ? AV_ERR_NOMEM : AV_ERR_IO;
    if (fill_temp(fd, data, len) != 0 || publish(tmp, path, no_clobber) != 0) {
        int saved = errno;
        unlink(tmp);
        free(tmp);
        errno = saved;
        return AV_ERR_IO;
    }
    free(tmp);
    fsync_dir(path);
    return AV_OK;
}

/* The signal that came while a temporary file existed (0: none). A process
 * has one disposition per signal, so this is the one place it can be kept. */
static volatile sig_atomic_t held_signal;

static void hold_signal(int sig)
{
    held_signal = sig;
}

int file_write_atomic(const char *path, const void *data, size_t len, bool no_clobber)
{
    /* SIGINT, SIGTERM and SIGHUP wait until the temporary file is renamed or
     * removed, so that one of them never leaves it behind. A handler, not a
     * signal mask: a mask holds only this thread, and the kernel may hand a
     * process's signal to any other (OpenBLAS's workers); then it is raised
     * again, to the handler there was before. */
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hold_signal;
    sigemptyset(&sa.sa_mask);
    held_signal = 0;
    for (int k = 0; k < 3; k++)
        sigaction(sigs[k], &sa, &old[k]);
    int err = write_via_temp(path, data, len, no_clobber);
    int saved = errno;
    for (int k = 0; k < 3; k++)
        sigaction(sigs[k], &old[k], NULL);
    if (held_signal)
        raise(held_signal);
    errno = saved;
    return err;
}

int memfile_open(MemFile *m)
{
    m->buf = NULL;
    m->len = 0;
    m->f = open_memstream(&m->buf, &m->len);
    return m->f ? AV_OK : AV_ERR_NOMEM;
}

int memfile_close(MemFile *m)
{
    if (!m->f)
        return AV_OK;
    /* fclose flushes; with a memory stream the only way to fail is memory. */
    int bad = ferror(m->f);
    int rc = fclose(m->f);
    m->f = NULL;
    return (rc != 0 || bad || !m->buf) ? AV_ERR_NOMEM : AV_OK;
}

void memfile_free(MemFile *m)
{
    if (m->f)
        fclose(m->f);
    free(m->buf);
    m->buf = NULL;
    m->len = 0;
    m->f = NULL;
}
