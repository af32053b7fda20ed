/* hubget.c - a hub repository's files over HTTP with libcurl (hubget.h).
 *
 * A HEAD without following absolute redirects gives the metadata the hub
 * puts on its answer (the commit, the ETag, for an LFS file the sha256 and
 * size and, as a redirect, where the bytes are); a GET then fetches the
 * bytes into BLOB.incomplete, from where a partial one ended (Range), and
 * only a whole, checked file is renamed to its blob's name.
 */
#include "cli/hubget.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/av.h"
#include "core/sha1.h"
#include "core/sha256.h"
#include "cli/say.h"
#include "io/hfcache.h"

#define HUB_MAX_REDIRECTS 5
#define HUB_RETRY_AFTER_MAX 30 /* seconds: the longest Retry-After obeyed */
#define HUB_LOW_SPEED 1024     /* bytes a second: slower for stall_seconds is a stall */

static HubErr fail(char *why, size_t whylen, HubErr rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static HubErr fail(char *why, size_t whylen, HubErr rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
    return rc;
}

bool hubget_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

/* url's scheme, host and port into a CURLU; NULL when it is not a URL. */
static CURLU *url_parse(const char *url)
{
    CURLU *u = curl_url();
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
        curl_url_cleanup(u);
        u = NULL;
    }
    return u;
}

/* Whether a and b share their scheme, host and port (the token goes only
 * to the endpoint's, never to where a redirect sends the bytes). */
static bool same_origin(const char *a, const char *b)
{
    static const CURLUPart parts[] = {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
    CURLU *ua = url_parse(a), *ub = url_parse(b);
    bool same = ua && ub;
    for (size_t k = 0; same && k < sizeof parts / sizeof parts[0]; k++) {
        char *pa = NULL, *pb = NULL;
        same = curl_url_get(ua, parts[k], &pa, CURLU_DEFAULT_PORT) == CURLUE_OK &&
               curl_url_get(ub, parts[k], &pb, CURLU_DEFAULT_PORT) == CURLUE_OK &&
               strcasecmp(pa, pb) == 0;
        curl_free(pa), curl_free(pb);
    }
    curl_url_cleanup(ua), curl_url_cleanup(ub);
    return same;
}

/* out = location read against base: a relative one keeps base's scheme,
 * host and port (and a path without '/' base's folder), as a browser does. */
static bool url_join(const char *base, const char *location, char *out, size_t size)
{
    CURLU *u = url_parse(base);
    char *s = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, location, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && strlen(s) < size;
    if (ok)
        memcpy(out, s, strlen(s) + 1);
    curl_free(s);
    curl_url_cleanup(u);
    return ok;
}

/* The request headers for url: identity encoding so that Content-Length
 * is the file's size, and the token where url is the endpoint's. */
static struct curl_slist *headers(const HubNet *n, const char *url)
{
    struct curl_slist *h = curl_slist_append(NULL, "Accept-Encoding: identity");
    if (h && n->token && *n->token && same_origin(url, n->endpoint)) {
        char auth[1024];
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", n->token);
        struct curl_slist *t = curl_slist_append(h, auth);
        if (!t)
            curl_slist_free_all(h);
        h = t;
    }
    return h;
}

static CURL *easy(const HubNet *n, struct curl_slist *h, const char *url, char *err)
{
    CURL *c = curl_easy_init();
    if (!c)
        return NULL;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "attnviz/" AV_VERSION);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    (void)n;
    err[0] = 0;
    return c;
}

/* Copy a header's value (trimmed) into out when the line is name's. */
static bool header_value(const char *line, size_t len, const char *name, char *out, size_t size)
{
    size_t k = strlen(name);
    if (len <= k || line[k] != ':' || strncasecmp(line, name, k) != 0)
        return false;
    const char *v = line + k + 1, *end = line + len;
    while (v < end && isspace((unsigned char)*v))
        v++;
    while (end > v && isspace((unsigned char)end[-1]))
        end--;
    snprintf(out, size, "%.*s", (int)(end - v), v);
    return true;
}

typedef struct {
    char commit[64], etag[128], linked_etag[128], linked_size[32], length[32], location[4096],
        code[64], retry_after[32], range[96];
} Headers;

static size_t on_header(char *line, size_t size, size_t nitems, void *ctx)
{
    Headers *h = ctx;
    size_t len = size * nitems;
    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0)
        memset(h, 0, sizeof *h); /* a new answer */
    static const struct {
        const char *name;
        size_t at, size;
    } want[] = {
        {"X-Repo-Commit", offsetof(Headers, commit), sizeof(((Headers *)0)->commit)},
        {"ETag", offsetof(Headers, etag), sizeof(((Headers *)0)->etag)},
        {"X-Linked-Etag", offsetof(Headers, linked_etag), sizeof(((Headers *)0)->linked_etag)},
        {"X-Linked-Size", offsetof(Headers, linked_size), sizeof(((Headers *)0)->linked_size)},
        {"Content-Length", offsetof(Headers, length), sizeof(((Headers *)0)->length)},
        {"Location", offsetof(Headers, location), sizeof(((Headers *)0)->location)},
        {"X-Error-Code", offsetof(Headers, code), sizeof(((Headers *)0)->code)},
        {"Retry-After", offsetof(Headers, retry_after), sizeof(((Headers *)0)->retry_after)},
        {"Content-Range", offsetof(Headers, range), sizeof(((Headers *)0)->range)},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (header_value(line, len, want[k].name, (char *)h + want[k].at, want[k].size))
            break;
    return len;
}

/* An HTTP answer that may be another when asked again: too many requests,
 * a server's error. */
static bool transient_status(long status)
{
    return status == 429 || status >= 500;
}

/* Before try k (1, 2, ...) of label: Retry-After's seconds when the
 * server gave them (at most HUB_RETRY_AFTER_MAX; 5 or more said on
 * standard error, over the bar when there is one), else 0.25, 0.5, 1, 2 s. */
static void backoff(int k, const char *retry_after, const char *label, bool bar)
{
    char *end;
    long s = retry_after && *retry_after ? strtol(retry_after, &end, 10) : -1;
    if (s >= 0 && *end == 0) {
        s = s < HUB_RETRY_AFTER_MAX ? s : HUB_RETRY_AFTER_MAX;
        if (s >= 5)
            fprintf(stderr, "%sattnviz: %s: the server asks to wait %ld s (Retry-After)\n",
                    bar ? "\r\033[K" : "", label, s);
        sleep((unsigned)s);
        return;
    }
    usleep((useconds_t)(250000 << (k < 4 ? k - 1 : 3)));
}

/* A transfer that may work when tried again. */
static bool transient(CURLcode rc)
{
    return rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
           rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_GOT_NOTHING || rc == CURLE_HTTP2 ||
           rc == CURLE_HTTP2_STREAM || rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_COULDNT_CONNECT;
}

static HubErr net_error(CURLcode rc, const char *err, const char *url, char *why, size_t whylen)
{
    const char *what = err[0] ? err : curl_easy_strerror(rc);
    if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_CONNECT ||
        rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_OPERATION_TIMEDOUT)
        return fail(why, whylen, HUB_NET, "%s", what);
    (void)url;
    return fail(why, whylen, HUB_HTTP, "%s", what);
}

/* m from an answer's headers; a redirect's own Content-Length is not the
 * file's size. */
static void meta_from(HubMeta *m, const Headers *h, bool redirect)
{
    snprintf(m->code, sizeof m->code, "%s", h->code);
    m->commit[0] = 0;
    if (strlen(h->commit) == 40) /* else none: a malformed one is refused as missing */
        memcpy(m->commit, h->commit, 41);
    m->lfs = h->linked_etag[0] != 0;
    if (!hfcache_etag(m->lfs ? h->linked_etag : h->etag, m->etag, sizeof m->etag))
        m->etag[0] = 0;
    bool hex = m->etag[0] != 0; /* a sha256 or a git id names its blob in lower case */
    for (const char *p = m->etag; *p; p++)
        hex = hex && isxdigit((unsigned char)*p);
    for (char *p = m->etag; hex && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    const char *size = h->linked_size[0] ? h->linked_size : redirect ? "" : h->length;
    char *end;
    double v = strtod(size, &end);
    m->size = size[0] && *end == 0 && v >= 0 ? v : -1;
}

/* repo's resolve URL of file at rev: a '/' of the revision escaped. */
static void resolve_url(const HubNet *n, const char *repo, const char *rev, const char *file,
                        char *url, size_t size)
{
    char r[3 * HF_REV_MAX];
    size_t k = 0;
    for (const char *p = rev; *p && k + 4 < sizeof r; p++)
        k += (size_t)(*p == '/' ? snprintf(r + k, 4, "%%2F") : snprintf(r + k, 2, "%c", *p));
    r[k] = 0;
    snprintf(url, size, "%s/%s/resolve/%s/%s", n->endpoint, repo, r, file);
}

/* One HEAD of url (for file) into *hd and *status, tried again
 * (n->tries in all) after a transient failure or answer, *tries of them
 * made. Returns the curl code of the last. */
static CURLcode head_once(const HubNet *n, const char *url, const char *file, Headers *hd,
                          long *status, int *tries, char *err)
{
    CURLcode cr = CURLE_OUT_OF_MEMORY;
    for (int k = *tries = 0; k < n->tries; k++) {
        if (k && cr == CURLE_OPERATION_TIMEDOUT) /* seconds went by: say why */
            fprintf(stderr, "attnviz: %s: no answer in %ld s; asking again (%d of %d)\n", file,
                    n->head_seconds, k + 1, n->tries);
        if (k)
            backoff(k, hd->retry_after, file, false);
        ++*tries;
        struct curl_slist *h = headers(n, url);
        CURL *c = h ? easy(n, h, url, err) : NULL;
        if (!c) {
            curl_slist_free_all(h);
            return CURLE_OUT_OF_MEMORY;
        }
        memset(hd, 0, sizeof *hd);
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, n->head_seconds);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, hd);
        cr = curl_easy_perform(c);
        *status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
        curl_easy_cleanup(c);
        curl_slist_free_all(h);
        if (cr == CURLE_OK ? !transient_status(*status) : !transient(cr))
            break;
    }
    return cr;
}

HubErr hubget_head(const HubNet *n, const char *repo, const char *rev, const char *file, HubMeta *m,
                   char *why, size_t whylen)
{
    char err[CURL_ERROR_SIZE];
    memset(m, 0, sizeof *m);
    resolve_url(n, repo, rev, file, m->url, sizeof m->url);
    for (int hop = 0;; hop++) {
        Headers hd;
        int tries;
        CURLcode cr = head_once(n, m->url, file, &hd, &m->status, &tries, err);
        if (cr != CURLE_OK) {
            HubErr rc = net_error(cr, err, m->url, why, whylen);
            size_t at = strlen(why);
            if (tries > 1 && at < whylen)
                snprintf(why + at, whylen - at, " (%d tries)", tries);
            return rc;
        }
        const bool redirect = m->status >= 300 && m->status < 400;
        meta_from(m, &hd, redirect);
        if (redirect && !hd.location[0])
            return fail(why, whylen, HUB_BAD, "a redirect (%ld) without a Location", m->status);
        if (redirect && !url_join(m->url, hd.location, m->url, sizeof m->url))
            return fail(why, whylen, HUB_BAD, "a redirect to '%.200s', not a URL", hd.location);
        /* a redirect without the file's metadata: a renamed repo, asked again there */
        if (redirect && hd.location[0] == '/' && !hd.linked_etag[0]) {
            if (hop == HUB_MAX_REDIRECTS)
                return fail(why, whylen, HUB_BAD, "more than %d redirects", HUB_MAX_REDIRECTS);
            continue;
        }
        /* the hub answers 401 for a repo that does not exist, to one without a token */
        if (m->status == 404 ||
            ((m->status == 401 || m->status == 403) && strcmp(m->code, "RepoNotFound") == 0))
            return fail(why, whylen, HUB_NOT_FOUND, "%ld %s", m->status, m->code);
        if (m->status == 401 || m->status == 403)
            return fail(why, whylen, HUB_DENIED, "%ld %s", m->status, m->code);
        if (m->status >= 400)
            return fail(why, whylen, HUB_HTTP, "the server answered %ld%s", m->status,
                        transient_status(m->status) ? " every time it was asked" : "");
        if (!m->etag[0]) /* a redirect to the bytes too: they are named by it */
            return fail(why, whylen, HUB_BAD, "no ETag in the answer for %s", file);
        return HUB_OK;
    }
}

/* One download's state, shared with libcurl's callbacks. */
typedef struct {
    int fd;
    long long have;  /* bytes in the file */
    long long start; /* bytes there when this transfer began */
    int write_errno; /* a failed write's errno */
    bool restarted;  /* the server ignored the Range: written from byte 0 */
    bool misplaced;  /* a part that does not start where it was asked to */
    Headers hd;      /* the answer's */
    CURL *c;
    const char *label;
    double size; /* bytes expected, -1 unknown */
    bool bar;
    double t0, last;
} Transfer;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

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

/* "12.3 MB" */
static void mb(char *buf, size_t size, double bytes)
{
    if (bytes >= 1e9)
        snprintf(buf, size, "%.2f GB", bytes / 1e9);
    else
        snprintf(buf, size, "%.1f MB", bytes / 1e6);
}

/* The bar on standard error, on one line of the terminal whatever its
 * width (a longer one would wrap, and "\r" go back only to the wrapped
 * part): the file, the bar, how much, how fast, how long left; the bar
 * and then the file's name give way to the figures. */
static void draw_bar(const Transfer *t, double elapsed)
{
    char have[32], total[32] = "?", left[32] = "", figures[160];
    double speed = elapsed > 0 ? (t->have - t->start) / elapsed : 0;
    mb(have, sizeof have, (double)t->have);
    if (t->size > 0)
        mb(total, sizeof total, t->size);
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
    double s = now();
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
    CURL *c = easy(n, h, url, err);
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
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
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

/* The sha256 of path's bytes as hex[65]. */
static bool file_sha256(const char *path, char hex[65])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    static unsigned char buf[1 << 16];
    Sha256 s;
    uint8_t d[32];
    sha256_init(&s);
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&s, buf, (size_t)r);
    close(fd);
    sha256_final(&s, d, hex);
    return r == 0;
}

/* The git blob id of path's bytes as hex[41]: sha1("blob SIZE\0" bytes),
 * the ETag the hub gives a small (not LFS) file. */
static bool file_git_id(const char *path, char hex[41])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return false;
    }
    static unsigned char buf[1 << 16];
    char head[32];
    Sha1 s;
    uint8_t d[20];
    sha1_init(&s);
    const int len = snprintf(head, sizeof head, "blob %lld", (long long)st.st_size);
    sha1_update(&s, head, (size_t)len + 1); /* with its NUL */
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        sha1_update(&s, buf, (size_t)r);
    close(fd);
    sha1_final(&s, d, hex);
    return r == 0;
}

/* Whether etag is 40 lower-case hexadecimal digits: a git object id. */
static bool is_git_id(const char *etag)
{
    size_t k = 0;
    while (etag[k] && isxdigit((unsigned char)etag[k]) && !isupper((unsigned char)etag[k]))
        k++;
    return k == 40 && !etag[k];
}

/* The downloaded part against what the hub named: an LFS file's sha256, a
 * small file's git blob id; a mismatch deletes it. */
static HubErr check_part(const HubMeta *m, const char *part, char *why, size_t whylen)
{
    char hex[65] = "";
    if (m->lfs && strlen(m->etag) == 64 && (!file_sha256(part, hex) || strcmp(hex, m->etag) != 0)) {
        unlink(part); /* wrong bytes: nothing to resume from */
        return fail(why, whylen, HUB_CHECKSUM, "its sha256 is %.12s..., the hub's %.12s...", hex,
                    m->etag);
    }
    if (!m->lfs && is_git_id(m->etag) && (!file_git_id(part, hex) || strcmp(hex, m->etag) != 0)) {
        unlink(part);
        return fail(why, whylen, HUB_CHECKSUM, "its git blob id is %.12s..., the hub's %.12s...",
                    hex, m->etag);
    }
    return HUB_OK;
}

/* Enough room beside blob for the bytes still to come. */
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
    mb(a, sizeof a, need), mb(b, sizeof b, free_bytes);
    errno = ENOSPC;
    return fail(why, whylen, HUB_DISK, "%s more are needed and %s are free", a, b);
}

/* The one line of a download refused with status, after its HEAD was
 * answered: by the hub, or by the host a redirect sent it to (a signed
 * link that expired, a mirror's refusal). */
static HubErr refused(const HubNet *n, const HubMeta *m, long status, char *why, size_t whylen)
{
    if (same_origin(m->url, n->endpoint)) /* its HEAD said yes: not a missing model */
        return fail(why, whylen, HUB_HTTP, "the server answered %ld to the download", status);
    char *host = NULL;
    CURLU *u = url_parse(m->url);
    if (!u || curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
        host = NULL;
    HubErr rc = fail(
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
    return true;
}

/* Download into part (t->fd) until whole, trying n->tries times: after a
 * dropped connection or a transient answer (Retry-After obeyed), from
 * where the part ends. */
static HubErr fetch(const HubNet *n, const HubMeta *m, Transfer *t, const char *part, char *why,
                    size_t whylen)
{
    struct curl_slist *h = headers(n, m->url);
    HubErr rc = HUB_DROPPED;
    char err[CURL_ERROR_SIZE];
    CURLcode cr = CURLE_OK;
    for (int k = 0; k < n->tries; k++) {
        if (k && cr == CURLE_OPERATION_TIMEDOUT) /* seconds went by: say why */
            fprintf(stderr,
                    "%sattnviz: %s: stalled (under 1 KB/s for %ld s); resuming at %.1f MB "
                    "(%d of %d)\n",
                    t->bar ? "\r\033[K" : "", t->label, n->stall_seconds, (double)t->have / 1e6,
                    k + 1, n->tries);
        if (k)
            backoff(k, t->hd.retry_after, t->label, t->bar);
        if (m->size >= 0 && t->have == (long long)m->size)
            return curl_slist_free_all(h), HUB_OK;
        if ((rc = room(part, m->size - (double)t->have, why, whylen)) != HUB_OK)
            break;
        long status;
        cr = get_once(n, h, m->url, t, &status, err);
        if (t->write_errno) {
            errno = t->write_errno;
            rc = fail(why, whylen, HUB_DISK, "%s", strerror(t->write_errno));
            break;
        }
        bool whole = m->size < 0 || t->have == (long long)m->size;
        if (cr == CURLE_OK && whole) {
            rc = HUB_OK;
            break;
        }
        if (cr == CURLE_OK && t->have > (long long)m->size) {
            rc = fail(why, whylen, HUB_BAD, "%lld bytes came where %.0f were announced", t->have,
                      m->size);
            break;
        }
        /* past the end, or a part from elsewhere than asked: from the start */
        if ((cr == CURLE_HTTP_RETURNED_ERROR && status == 416) || t->misplaced) {
            rc = fail(why, whylen, HUB_BAD, "the server sends other bytes than those asked for");
            if (!restart(t))
                break;
            continue;
        }
        if (cr == CURLE_HTTP_RETURNED_ERROR && !transient_status(status)) {
            rc = refused(n, m, status, why, whylen);
            break;
        }
        if (cr == CURLE_HTTP_RETURNED_ERROR)
            rc = fail(why, whylen, HUB_HTTP, "the server answered %ld, %d times", status, k + 1);
        else if (cr != CURLE_OK && !transient(cr)) {
            rc = net_error(cr, err, m->url, why, whylen);
            break;
        } else
            rc = fail(why, whylen, HUB_DROPPED, "%s after %d tries (%lld of %.0f bytes)",
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
 * *fd: another attnviz get downloading it is HUB_BUSY at once; another
 * program (Python's huggingface_hub) is waited for, the wait said. */
static HubErr lock_blob(const char *blob, const char *part, const char *label, int *fd, char *why,
                        size_t whylen)
{
    char path[HF_PATH_MAX];
    int err = hfcache_lock_blob(blob, false, fd, path, sizeof path);
    if (err && errno == EWOULDBLOCK) {
        if (part_busy(part))
            return fail(why, whylen, HUB_BUSY, "another attnviz get is downloading it");
        fprintf(stderr, "attnviz: %s: another download of it holds %s: waiting for it\n", label,
                path);
        err = hfcache_lock_blob(blob, true, fd, path, sizeof path);
    }
    if (err)
        return fail(why, whylen, HUB_DISK, "cannot lock %s: %s", path, strerror(errno));
    return HUB_OK;
}

/* Download m into part and, whole and checked, rename it to blob. */
static HubErr download(const HubNet *n, const HubMeta *m, const char *label, const char *blob,
                       const char *part, char *why, size_t whylen)
{
    Transfer t = {.fd = open(part, O_WRONLY | O_CREAT | O_CLOEXEC, 0644),
                  .label = label,
                  .size = m->size,
                  .bar = n->bar,
                  .t0 = now()};
    struct stat st;
    if (t.fd < 0 || fstat(t.fd, &st) != 0) {
        int e = errno;
        if (t.fd >= 0)
            close(t.fd);
        errno = e;
        return fail(why, whylen, HUB_DISK, "%s", strerror(e));
    }
    if (flock(t.fd, LOCK_EX | LOCK_NB) != 0) { /* held until closed, or the process ends */
        close(t.fd);
        return fail(why, whylen, HUB_BUSY, "another attnviz get is downloading it");
    }
    t.have = st.st_size;
    if ((m->size >= 0 && t.have > (long long)m->size) ||
        lseek(t.fd, (off_t)t.have, SEEK_SET) < 0) { /* longer than the file: start over */
        t.have = 0;
        if (ftruncate(t.fd, 0) != 0 || lseek(t.fd, 0, SEEK_SET) != 0)
            t.have = -1;
    }
    HubErr rc = t.have < 0 ? fail(why, whylen, HUB_DISK, "%s", strerror(errno))
                           : fetch(n, m, &t, part, why, whylen);
    if (t.bar)
        fputs("\r\033[K", stderr);
    if (rc == HUB_OK && fsync(t.fd) != 0)
        rc = fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    if (close(t.fd) != 0 && rc == HUB_OK)
        rc = fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    if (rc == HUB_OK)
        rc = check_part(m, part, why, whylen);
    if (rc == HUB_OK && rename(part, blob) != 0)
        rc = fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    return rc;
}

HubErr hubget_blob(const HubNet *n, const HubMeta *m, const char *label, const char *blob,
                   char *why, size_t whylen)
{
    char part[HF_PATH_MAX];
    snprintf(part, sizeof part, "%s.incomplete", blob);
    if (hfcache_make_parents(part) != AV_OK)
        return fail(why, whylen, HUB_DISK, "%s", strerror(errno));
    int lock;
    HubErr rc = lock_blob(blob, part, label, &lock, why, whylen);
    if (rc)
        return rc;
    struct stat st; /* whole now: the download waited for put it there */
    if (stat(blob, &st) == 0 && S_ISREG(st.st_mode) && (m->size < 0 || st.st_size == m->size))
        rc = HUB_OK;
    else
        rc = download(n, m, label, blob, part, why, whylen);
    close(lock);
    return rc;
}
