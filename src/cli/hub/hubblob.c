/* hubblob.c - a file's bytes into a blob of the cache (hubget.h's
 * hubget_blob): a GET into BLOB.incomplete, from where a partial one ended
 * (Range), under huggingface_hub's lock and a flock of the part, with a
 * progress bar, retries after a dropped or stalled connection, the room on
 * the disk checked first, and only a whole file whose sha256 (LFS) or git
 * blob id is the one the hub named (hubcheck.c) renamed to its blob's name;
 * a resumed part that ends with another checksum is fetched once more,
 * from the start.
 *
 * What the hub says of the file (hubget_head) and the requests' handles,
 * headers and retries are hubhttp.c's (hubhttp.h).
 */
#include "cli/hubget.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/av.h"
#include "cli/say.h"
#include "io/hfcache.h"
#include "hubcheck.h"
#include "hubhttp.h"

#define HUB_LOW_SPEED 1024 /* bytes a second: slower for stall_seconds is a stall */

/* One download's state, shared with libcurl's callbacks. */
typedef struct {
    int fd;
    long long have;  /* bytes in the file */
    long long start; /* bytes there when this transfer began */
    int write_errno; /* a failed write's errno */
    bool restarted;  /* the server ignored the Range: written from byte 0 */
    bool misplaced;  /* a part that does not start where it was asked to */
    bool checked;    /* the part's checksum was found the hub's */
    bool resumed;    /* the part holds bytes of an earlier download */
    HubHeaders hd;   /* the answer's */
    CURL *c;
    const char *label;
    double size; /* bytes expected, -1 unknown */
    bool bar;
    double t0, last;
} Transfer;

static size_t on_data(char *p, size_t size, size_t nitems, void *ctx)
{
    Transfer *t = ctx;
    size_t len = size * nitems;
    long status = 0;
    curl_easy_getinfo(t->c, CURLINFO_RESPONSE_CODE, &status);
    if (status == 206 && t->have == t->start &&
        (strncasecmp(t->hd.range, "bytes ", 6) != 0 ||
         strtoll(t->hd.range + 6, NULL, 10) != t->start)) {
        t->misplaced = true; /* not the bytes asked for: written nowhere */
        return 0;
    }
    if (status == 200 && t->have > 0 && t->have == t->start && !t->restarted) {
        /* a whole answer to a Range request: start the file over */
        if (ftruncate(t->fd, 0) != 0 || lseek(t->fd, 0, SEEK_SET) != 0) {
            t->write_errno = errno;
            return 0;
        }
        t->have = t->start = 0;
        t->restarted = true;
        t->resumed = false;
    }
    for (size_t at = 0; at < len;) {
        ssize_t w = write(t->fd, p + at, len - at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            t->write_errno = w < 0 ? errno : ENOSPC;
            return 0;
        }
        at += (size_t)w;
    }
    t->have += (long long)len;
    return len;
}

/* The bar on standard error, on one line of the terminal whatever its
 * width (a longer one would wrap, and "\r" go back only to the wrapped
 * part): the file, the bar, how much, how fast, how long left; the bar
 * and then the file's name give way to the figures. */
static void draw_bar(const Transfer *t, double elapsed)
{
    char have[32], total[32] = "?", left[32] = "", figures[160];
    double speed = elapsed > 0 ? (t->have - t->start) / elapsed : 0;
    say_mb(have, sizeof have, (double)t->have);
    if (t->size > 0)
        say_mb(total, sizeof total, t->size);
    if (t->size > 0 && speed > 0) {
        long s = (long)((t->size - (double)t->have) / speed);
        snprintf(left, sizeof left, "  %ld:%02ld left", s / 60, s % 60);
    }
    int nf =
        snprintf(figures, sizeof figures, "%s / %s  %.1f MB/s%s", have, total, speed / 1e6, left);
    /* the name in 20 columns and a space, the bar in 4 to 24 and " []";
     * narrower: the name alone, cut to no fewer than 8; then neither */
    const int cols = say_columns() - 1; /* the last column left empty: no wrap */
    const int room = cols - nf;
    int name = room >= 21 ? 20 : room >= 9 ? room - 1 : 0;
    int width = room - 21 - 3 >= 4 ? room - 21 - 3 : 0;
    width = width > 24 ? 24 : width;
    int fill = t->size > 0 ? (int)(width * (double)t->have / t->size) : 0;
    fill = fill > width ? width : fill;
    if (nf > cols) /* too narrow even for the figures: them, cut */
        nf = cols > 0 ? cols : 0;
    fprintf(stderr, "\r\033[K%-*.*s", name, name, t->label);
    if (width)
        fprintf(stderr, " [%.*s%*s]", fill, "########################", width - fill, "");
    fprintf(stderr, "%s%.*s", name || width ? " " : "", nf, figures);
    fflush(stderr);
}

static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ul,
                       curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ul, (void)ulnow;
    Transfer *t = ctx;
    double s = say_now();
    if (t->bar && s - t->last >= 0.1) {
        t->last = s;
        draw_bar(t, s - t->t0);
    }
    return 0;
}

/* One GET of url from t->have on. Returns the curl code; *status the HTTP one. */
static CURLcode get_once(const HubNet *n, struct curl_slist *h, const char *url, Transfer *t,
                         long *status, char *err)
{
    CURL *c = hubhttp_easy(n, h, url, err);
    if (!c)
        return CURLE_OUT_OF_MEMORY;
    char range[48];
    t->c = c;
    t->start = t->have;
    t->restarted = t->misplaced = false;
    memset(&t->hd, 0, sizeof t->hd);
    if (t->have > 0) {
        snprintf(range, sizeof range, "%lld-", t->have);
        curl_easy_setopt(c, CURLOPT_RANGE, range);
    }
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)HUB_MAX_REDIRECTS);
    curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, (long)HUB_LOW_SPEED);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, n->stall_seconds);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, hubhttp_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &t->hd);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, t);
    CURLcode rc = curl_easy_perform(c);
    *status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(c);
    return rc;
}

/* The downloaded part against what the hub named: an LFS file's sha256, a
 * small file's git blob id; a mismatch deletes it. */
static HubErr check_part(const HubMeta *m, const char *part, const char *label, bool bar, char *why,
                         size_t whylen)
{
    char hex[65];
    const char *what;
    if (hubcheck_same(m, part, label, bar, &what, hex))
        return HUB_OK;
    unlink(part); /* wrong bytes: nothing to resume from */
    return hubhttp_fail(why, whylen, HUB_CHECKSUM, "its %s is %.12s..., the hub's %.12s...", what,
                        hex, m->etag);
}

/* Enough room beside blob for the bytes still to come, as the hub announces
 * them; when not, says so without calling the disk full (the size may be a
 * server's mistake, and nothing was written). */
static HubErr room(const char *part, double need, char *why, size_t whylen)
{
    char dir[HF_PATH_MAX];
    struct statvfs v;
    snprintf(dir, sizeof dir, "%s", part);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    if (need <= 0 || statvfs(dir, &v) != 0)
        return HUB_OK;
    double free_bytes = (double)v.f_bavail * (double)v.f_frsize;
    if (free_bytes >= need)
        return HUB_OK;
    char a[32], b[32];
    say_mb(a, sizeof a, need), say_mb(b, sizeof b, free_bytes);
    errno = 0; /* not ENOSPC: hubfetch.c would add "the disk is full" */
    return hubhttp_fail(why, whylen, HUB_DISK,
                        "the hub announces %s still to fetch, more than the %s free there", a, b);
}

/* The host of a download sent elsewhere than the endpoint by the hub's
 * redirect, into host (curl_free it); NULL when it is the endpoint's. */
static char *elsewhere(const HubNet *n, const HubMeta *m)
{
    char *host = NULL;
    CURLU *u = hubhttp_url_parse(m->url);
    if (!hubhttp_same_origin(m->url, n->endpoint) &&
        (!u || curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK))
        host = NULL;
    curl_url_cleanup(u);
    return host;
}

/* A download that cannot connect (cr) or is answered status (a server's
 * error) after its tries: said of the host the hub sent it to, when that
 * is not the endpoint (whose failure say_error names). */
static HubErr unreachable(const HubNet *n, const HubMeta *m, CURLcode cr, long status, int tries,
                          const char *err, char *why, size_t whylen)
{
    char *host = elsewhere(n, m);
    HubErr rc;
    if (!host && status)
        rc =
            hubhttp_fail(why, whylen, HUB_HTTP, "the server answered %ld, %d times", status, tries);
    else if (!host)
        rc = hubhttp_net_error(cr, err, m->url, why, whylen);
    else if (status)
        rc = hubhttp_fail(why, whylen, HUB_HTTP,
                          "%s, where the hub sent the download, answered %ld, %d times", host,
                          status, tries);
    else
        rc = hubhttp_fail(why, whylen, HUB_HTTP,
                          "cannot reach %s, where the hub sent the download: %s", host,
                          err[0] ? err : curl_easy_strerror(cr));
    curl_free(host);
    return rc;
}

/* The one line of a download refused with status, after its HEAD was
 * answered: by the hub, or by the host a redirect sent it to (a signed
 * link that expired, a mirror's refusal). */
static HubErr refused(const HubNet *n, const HubMeta *m, long status, char *why, size_t whylen)
{
    if (hubhttp_same_origin(m->url, n->endpoint)) /* its HEAD said yes: not a missing model */
        return hubhttp_fail(why, whylen, HUB_HTTP, "the server answered %ld to the download",
                            status);
    char *host = NULL;
    CURLU *u = hubhttp_url_parse(m->url);
    if (!u || curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
        host = NULL;
    HubErr rc = hubhttp_fail(
        why, whylen, HUB_HTTP, "%s, where the hub sent the download, answered %ld%s",
        host ? host : "the host", status,
        status == 401 || status == 403 ? " (an expired link? run it again for a new one)" : "");
    curl_free(host);
    curl_url_cleanup(u);
    return rc;
}

/* Start part (t->fd) over from byte 0. */
static bool restart(Transfer *t)
{
    if (ftruncate(t->fd, 0) != 0 || lseek(t->fd, 0, SEEK_SET) != 0)
        return false;
    t->have = 0;
    t->resumed = false;
    return true;
}

/* The file's size from a 416's Content-Range ("bytes * /SIZE"), -1 unknown. */
static long long range_total(const char *range)
{
    const char *slash = strchr(range, '/');
    char *end;
    long long v = slash ? strtoll(slash + 1, &end, 10) : -1;
    return slash && end != slash + 1 && *end == 0 && v >= 0 ? v : -1;
}

/* An answer that ended well at another size than announced (at_end: a
 * 416 where the part ends, the server's file no longer): when the part's
 * checksum is the hub's, the announced size was wrong and the part is the
 * file (t->checked); else, when the server has no other bytes to send, *rc
 * and why say both sizes and the part is deleted. Returns whether the
 * download ends here (else it is asked again). */
static bool wrong_size(const HubMeta *m, Transfer *t, const char *part, bool at_end, HubErr *rc,
                       char *why, size_t whylen)
{
    const long long total = at_end ? range_total(t->hd.range) : t->have;
    const char *what;
    char hex[65];
    if ((hubcheck_named(m) || total == t->have) && t->have > 0 &&
        hubcheck_same(m, part, t->label, t->bar, &what, hex)) {
        t->checked = true;
        *rc = HUB_OK;
        return true;
    }
    if (!at_end && t->have < (long long)m->size) /* ended early: asked again */
        return false;
    if (at_end && total >= 0 && total < t->have) /* a part longer than the file: from the start */
        return false;
    unlink(part); /* nothing more to come: nothing to resume */
    if (total < 0)
        *rc = hubhttp_fail(why, whylen, HUB_HTTP,
                           "the hub announced %.0f bytes and the server has none past %lld%s",
                           m->size, t->have,
                           hubcheck_named(m) ? " (and those do not match its checksum)" : "");
    else
        *rc = hubhttp_fail(why, whylen, HUB_HTTP,
                           "the hub announced %.0f bytes and the server has %lld%s", m->size, total,
                           hubcheck_named(m) ? " (and those do not match its checksum)" : "");
    return true;
}

/* Download into part (t->fd) until whole: after a dropped connection or a
 * transient answer (Retry-After obeyed), from where the part ends, until
 * n->tries tries in a row have added no byte (a try that did begins the
 * count again). */
static HubErr fetch(const HubNet *n, const HubMeta *m, Transfer *t, const char *part, char *why,
                    size_t whylen)
{
    struct curl_slist *h = hubhttp_headers(n, m->url);
    HubErr rc = HUB_DROPPED;
    char err[CURL_ERROR_SIZE];
    CURLcode cr = CURLE_OK;
    long status = 0, waited = 0;
    /* row: the tries in a row, to the last, that added no byte */
    for (int k = 0, row = 0; row < n->tries; k++) {
        if (k && cr == CURLE_OPERATION_TIMEDOUT) /* seconds went by: say why */
            fprintf(stderr,
                    "%sattnviz: %s: stalled (under 1 KB/s for %ld s); resuming at %.1f MB "
                    "(try %d)\n",
                    t->bar ? "\r\033[K" : "", t->label, n->stall_seconds, (double)t->have / 1e6,
                    k + 1);
        if (k && !hubhttp_backoff(row ? row : 1, t->hd.retry_after, t->label, t->bar, &waited)) {
            rc = hubhttp_fail(why, whylen, HUB_HTTP,
                              "the server answered %ld and asks to wait (Retry-After) past the "
                              "%d s attnviz waits: try later",
                              status, HUB_WAIT_MAX);
            break;
        }
        if (m->size >= 0 && t->have == (long long)m->size)
            return curl_slist_free_all(h), HUB_OK;
        if ((rc = room(part, m->size - (double)t->have, why, whylen)) != HUB_OK)
            break;
        cr = get_once(n, h, m->url, t, &status, err);
        row = t->have > t->start ? 0 : row + 1;
        if (t->write_errno) {
            errno = t->write_errno;
            rc = hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(t->write_errno));
            break;
        }
        bool whole = m->size < 0 || t->have == (long long)m->size;
        if (cr == CURLE_OK && whole) {
            rc = HUB_OK;
            break;
        }
        const bool at_end = cr == CURLE_HTTP_RETURNED_ERROR && status == 416;
        if ((cr == CURLE_OK || at_end) && wrong_size(m, t, part, at_end, &rc, why, whylen))
            break;
        /* past the end, or a part from elsewhere than asked: from the start */
        if (at_end || t->misplaced) {
            rc = hubhttp_fail(why, whylen, HUB_BAD,
                              "the server sends other bytes than those asked for");
            if (!restart(t))
                break;
            continue;
        }
        if (cr == CURLE_HTTP_RETURNED_ERROR && !hubhttp_transient_status(status)) {
            rc = refused(n, m, status, why, whylen);
            break;
        }
        if (cr == CURLE_HTTP_RETURNED_ERROR || cr == CURLE_COULDNT_CONNECT)
            rc = unreachable(n, m, cr, cr == CURLE_COULDNT_CONNECT ? 0 : status, row, err, why,
                             whylen);
        else if (cr != CURLE_OK && !hubhttp_transient(cr)) {
            rc = unreachable(n, m, cr, 0, row, err, why, whylen);
            break;
        } else
            rc = hubhttp_fail(why, whylen, HUB_DROPPED, "%s after %d tries (%lld of %.0f bytes)",
                              cr == CURLE_OK ? "the answer ended early"
                              : err[0]       ? err
                                             : curl_easy_strerror(cr),
                              k + 1, t->have, m->size);
    }
    curl_slist_free_all(h);
    return rc;
}

/* Whether another attnviz holds part (its flock, taken for the whole
 * download). */
static bool part_busy(const char *part)
{
    int fd = open(part, O_RDONLY | O_CLOEXEC);
    bool busy = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (fd >= 0)
        close(fd);
    return busy;
}

/* The lock huggingface_hub takes around writing blob (io/hfcache.h) into
 * *fd. Another download of it, another attnviz get's or another program's
 * (Python's huggingface_hub), is waited for, the wait said: the caller then
 * finds the blob whole, or resumes the part of a download that ended. */
static HubErr lock_blob(const char *blob, const char *part, const char *label, int *fd, char *why,
                        size_t whylen)
{
    char path[HF_PATH_MAX];
    int err = hfcache_lock_blob(blob, false, fd, path, sizeof path);
    if (err && errno == EWOULDBLOCK) {
        if (part_busy(part))
            fprintf(stderr, "attnviz: %s: another attnviz get is downloading it: waiting for it\n",
                    label);
        else
            fprintf(stderr, "attnviz: %s: another download of it holds %s: waiting for it\n", label,
                    path);
        err = hfcache_lock_blob(blob, true, fd, path, sizeof path);
    }
    if (err)
        return hubhttp_fail(why, whylen, HUB_DISK, "cannot lock %s: %s", path, strerror(errno));
    return HUB_OK;
}

/* Download m into part and, whole and checked, rename it to blob;
 * *resumed whether the part held bytes of an earlier download, kept. */
static HubErr download(const HubNet *n, const HubMeta *m, const char *label, const char *blob,
                       const char *part, bool *resumed, char *why, size_t whylen)
{
    Transfer t = {.fd = open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0644),
                  .label = label,
                  .size = m->size,
                  .bar = n->bar,
                  .t0 = say_now()};
    struct stat st;
    if (t.fd < 0 || fstat(t.fd, &st) != 0) {
        int e = errno;
        if (t.fd >= 0)
            close(t.fd);
        errno = e;
        return hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(e));
    }
    if (flock(t.fd, LOCK_EX | LOCK_NB) != 0) { /* held until closed, or the process ends */
        close(t.fd);
        return hubhttp_fail(why, whylen, HUB_BUSY, "another attnviz get is downloading it");
    }
    t.have = st.st_size;
    if ((m->size >= 0 && t.have > (long long)m->size) ||
        lseek(t.fd, (off_t)t.have, SEEK_SET) < 0) { /* longer than the file: start over */
        t.have = 0;
        if (ftruncate(t.fd, 0) != 0 || lseek(t.fd, 0, SEEK_SET) != 0)
            t.have = -1;
    }
    t.resumed = t.have > 0;
    HubErr rc = t.have < 0 ? hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(errno))
                           : fetch(n, m, &t, part, why, whylen);
    if (t.bar)
        fputs("\r\033[K", stderr);
    if (rc == HUB_OK && fsync(t.fd) != 0)
        rc = hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    if (close(t.fd) != 0 && rc == HUB_OK)
        rc = hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    *resumed = t.resumed;
    if (rc == HUB_OK && !t.checked)
        rc = check_part(m, part, label, n->bar, why, whylen);
    if (rc == HUB_OK && rename(part, blob) != 0)
        rc = hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    return rc;
}

/* Whether path is still the file st describes: the same inode, size and
 * time of its last change (a download that renamed its part there made
 * another). */
static bool unchanged(const char *path, const struct stat *st)
{
    struct stat now;
    return stat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino &&
           now.st_size == st->st_size && now.st_mtim.tv_sec == st->st_mtim.tv_sec &&
           now.st_mtim.tv_nsec == st->st_mtim.tv_nsec && now.st_ctim.tv_sec == st->st_ctim.tv_sec &&
           now.st_ctim.tv_nsec == st->st_ctim.tv_nsec;
}

HubErr hubget_blob(const HubNet *n, const HubMeta *m, const char *label, const char *blob,
                   const struct stat *bad, char *why, size_t whylen)
{
    char part[HF_PATH_MAX];
    snprintf(part, sizeof part, "%s.incomplete", blob);
    if (hfcache_make_parents(part) != AV_OK)
        return hubhttp_fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    int lock;
    HubErr rc = lock_blob(blob, part, label, &lock, why, whylen);
    if (rc)
        return rc;
    /* whole now: a download waited for put it there (not read again when
     * it is still the file the caller found bad) */
    bool resumed = false;
    if (!(bad && unchanged(blob, bad)) && hubget_blob_whole(m, blob, label, n->bar, NULL))
        rc = HUB_OK;
    else
        rc = download(n, m, label, blob, part, &resumed, why, whylen);
    /* the bytes an earlier download left were wrong (check_part deleted
     * them): once more from the start, before the user is asked to */
    if (rc == HUB_CHECKSUM && resumed) {
        say(0,
            "%s: checksum mismatch after resuming an earlier download (%s): fetching it again "
            "from the start",
            label, why);
        rc = download(n, m, label, blob, part, &resumed, why, whylen);
    }
    close(lock);
    return rc;
}
