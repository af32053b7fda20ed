/* hubcheck.c - a file's bytes against the checksum the hub named
 * (hubcheck.h), and hubget_blob_whole (cli/hubget.h). Reading a
 * checkpoint of several hundred MB through takes a while, so on a terminal
 * a progress line says so meanwhile.
 */
#include "hubcheck.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha1.h"
#include "core/sha256.h"
#include "cli/say.h"

#define CHECK_CHUNK ((size_t)1 << 16) /* bytes read at a time */
#define CHECK_FRAME_S 0.1             /* seconds between two frames of the progress */

/* One read through a file, with its progress on a terminal. */
typedef struct {
    const char *label; /* the file's name in the progress; NULL: no progress */
    double size, done, last;
    bool drawn;
} Reading;

/* len more bytes read: the progress line again when its frame is due. */
static void advance(Reading *r, size_t len)
{
    r->done += (double)len;
    double t = say_now();
    if (!r->label || t - r->last < CHECK_FRAME_S)
        return;
    char total[32];
    say_mb(total, sizeof total, r->size);
    say_progress("checking %s: %3.0f%% of %s", r->label,
                 r->size > 0 ? 100 * r->done / r->size : 100.0, total);
    r->last = t, r->drawn = true;
}

/* The sha256 of fd's bytes from where it is, as hex[65]. */
static bool read_sha256(int fd, Reading *r, char hex[65])
{
    static unsigned char buf[CHECK_CHUNK];
    Sha256 s;
    uint8_t d[32];
    sha256_init(&s);
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        sha256_update(&s, buf, (size_t)n);
        advance(r, (size_t)n);
    }
    sha256_final(&s, d, hex);
    return n == 0;
}

/* The git blob id of fd's size bytes as hex[41]: sha1("blob SIZE\0"
 * bytes), the ETag the hub gives a small (not LFS) file. */
static bool read_git_id(int fd, long long size, Reading *r, char hex[41])
{
    static unsigned char buf[CHECK_CHUNK];
    char head[32];
    Sha1 s;
    uint8_t d[20];
    sha1_init(&s);
    const int len = snprintf(head, sizeof head, "blob %lld", size);
    sha1_update(&s, head, (size_t)len + 1); /* with its NUL */
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        sha1_update(&s, buf, (size_t)n);
        advance(r, (size_t)n);
    }
    sha1_final(&s, d, hex);
    return n == 0;
}

/* Whether etag is 40 lower-case hexadecimal digits: a git object id. */
static bool is_git_id(const char *etag)
{
    size_t k = 0;
    while (etag[k] && isxdigit((unsigned char)etag[k]) && !isupper((unsigned char)etag[k]))
        k++;
    return k == 40 && !etag[k];
}

bool hubcheck_named(const HubMeta *m)
{
    return m->lfs ? strlen(m->etag) == 64 : !m->unchecked && is_git_id(m->etag);
}

bool hubcheck_same(const HubMeta *m, const char *path, const char *label, bool bar,
                   const char **what, char hex[65])
{
    hex[0] = 0;
    *what = !hubcheck_named(m) ? "" : m->lfs ? "sha256" : "git blob id";
    if (!*what[0])
        return true;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    bool ok = fstat(fd, &st) == 0;
    Reading r = {.label = bar ? label : NULL, .size = ok ? (double)st.st_size : 0, .last = -1};
    ok = ok &&
         (m->lfs ? read_sha256(fd, &r, hex) : read_git_id(fd, (long long)st.st_size, &r, hex)) &&
         strcmp(hex, m->etag) == 0;
    close(fd);
    if (r.drawn)
        fputs("\r\033[K", stderr);
    return ok;
}

bool hubget_blob_whole(const HubMeta *m, const char *path, const char *label, bool bar,
                       const char **what)
{
    struct stat st;
    char hex[65];
    const char *w = "";
    /* a checksum is the file's, whatever size the hub announced */
    bool ok = stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
              (hubcheck_named(m) || m->size < 0 || st.st_size == m->size) &&
              hubcheck_same(m, path, label, bar, &w, hex);
    if (what)
        *what = ok ? "" : w;
    return ok;
}
