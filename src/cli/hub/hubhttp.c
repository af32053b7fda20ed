/* hubhttp.c - asking a hub about a file over HTTP with libcurl (hubget.h's
 * hubget_init and hubget_head, and what hubblob.c shares, hubhttp.h):
 * the URLs (a revision escaped, a redirect's Location joined, the origin
 * that gets the token), the request headers, a HEAD tried again after a
 * transient failure, and the metadata the hub puts on its answer.
 *
 * A HEAD that follows only a renamed repo's redirect (one on the hub's
 * origin naming no file) gives that metadata (the commit, the ETag, for an
 * LFS file the sha256 and size and, as a redirect, where the bytes are). The transfer of the bytes
 * into the cache is hubblob.c's.
 */
#define _XOPEN_SOURCE 700 /* strptime */
#include "cli/hubget.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "core/av.h"
#include "io/hfcache.h"
#include "hubhttp.h"

#define HUB_RETRY_AFTER_MAX 30 /* seconds: the longest Retry-After obeyed */

HubErr hubhttp_fail(char *why, size_t whylen, HubErr rc, const char *fmt, ...)
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

CURLU *hubhttp_url_parse(const char *url)
{
    CURLU *u = curl_url();
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
        curl_url_cleanup(u);
        u = NULL;
    }
    return u;
}

bool hubhttp_same_origin(const char *a, const char *b)
{
    static const CURLUPart parts[] = {CURLUPART_SCHEME, CURLUPART_HOST, CURLUPART_PORT};
    CURLU *ua = hubhttp_url_parse(a), *ub = hubhttp_url_parse(b);
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
    CURLU *u = hubhttp_url_parse(base);
    char *s = NULL;
    bool ok = u && curl_url_set(u, CURLUPART_URL, location, 0) == CURLUE_OK &&
              curl_url_get(u, CURLUPART_URL, &s, 0) == CURLUE_OK && strlen(s) < size;
    if (ok)
        memcpy(out, s, strlen(s) + 1);
    curl_free(s);
    curl_url_cleanup(u);
    return ok;
}

struct curl_slist *hubhttp_headers(const HubNet *n, const char *url)
{
    struct curl_slist *h = curl_slist_append(NULL, "Accept-Encoding: identity");
    if (h && n->token && *n->token && hubhttp_same_origin(url, n->endpoint)) {
        const size_t len = strlen(n->token) + 32; /* a token of any length, whole */
        char *auth = malloc(len);
        if (auth)
            snprintf(auth, len, "Authorization: Bearer %s", n->token);
        struct curl_slist *t = auth ? curl_slist_append(h, auth) : NULL;
        free(auth);
        if (!t)
            curl_slist_free_all(h);
        h = t;
    }
    return h;
}

CURL *hubhttp_easy(const HubNet *n, struct curl_slist *h, const char *url, char *err)
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

size_t hubhttp_on_header(char *line, size_t size, size_t nitems, void *ctx)
{
    HubHeaders *h = ctx;
    size_t len = size * nitems;
    if (len >= 5 && strncmp(line, "HTTP/", 5) == 0)
        memset(h, 0, sizeof *h); /* a new answer */
    static const struct {
        const char *name;
        size_t at, size;
    } want[] = {
        {"X-Repo-Commit", offsetof(HubHeaders, commit), sizeof(((HubHeaders *)0)->commit)},
        {"ETag", offsetof(HubHeaders, etag), sizeof(((HubHeaders *)0)->etag)},
        {"X-Linked-Etag", offsetof(HubHeaders, linked_etag),
         sizeof(((HubHeaders *)0)->linked_etag)},
        {"X-Linked-Size", offsetof(HubHeaders, linked_size),
         sizeof(((HubHeaders *)0)->linked_size)},
        {"Content-Length", offsetof(HubHeaders, length), sizeof(((HubHeaders *)0)->length)},
        {"Location", offsetof(HubHeaders, location), sizeof(((HubHeaders *)0)->location)},
        {"X-Error-Code", offsetof(HubHeaders, code), sizeof(((HubHeaders *)0)->code)},
        {"Retry-After", offsetof(HubHeaders, retry_after), sizeof(((HubHeaders *)0)->retry_after)},
        {"Content-Range", offsetof(HubHeaders, range), sizeof(((HubHeaders *)0)->range)},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (header_value(line, len, want[k].name, (char *)h + want[k].at, want[k].size))
            break;
    return len;
}

bool hubhttp_transient_status(long status)
{
    return status == 429 || status >= 500;
}

/* Retry-After's seconds, given as such or as an HTTP date; -1 without. */
static long retry_seconds(const char *v)
{
    char *end;
    long s = v && *v ? strtol(v, &end, 10) : -1;
    if (s >= 0 && *end == 0)
        return s;
    struct tm tm = {0};
    end = v && *v ? strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm) : NULL;
    if (!end || *end)
        return -1;
    double d = difftime(timegm(&tm), time(NULL));
    return d > 0 ? (long)d : 0;
}

bool hubhttp_backoff(int k, const char *retry_after, const char *label, bool bar, long *waited)
{
    long s = retry_seconds(retry_after);
    if (s < 0) {
        usleep((useconds_t)(250000 << (k < 4 ? k - 1 : 3)));
        return true;
    }
    if (*waited + s > HUB_WAIT_MAX) /* asked for longer than is left: not begun */
        return false;
    s = s < HUB_RETRY_AFTER_MAX ? s : HUB_RETRY_AFTER_MAX;
    *waited += s;
    if (s >= 5)
        fprintf(stderr, "%sattnviz: %s: the server asks to wait %ld s (Retry-After)\n",
                bar ? "\r\033[K" : "", label, s);
    sleep((unsigned)s);
    return true;
}

bool hubhttp_transient(CURLcode rc)
{
    return rc == CURLE_PARTIAL_FILE || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
           rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_GOT_NOTHING || rc == CURLE_HTTP2 ||
           rc == CURLE_HTTP2_STREAM || rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_COULDNT_CONNECT;
}

HubErr hubhttp_net_error(CURLcode rc, const char *err, const char *url, char *why, size_t whylen)
{
    const char *what = err[0] ? err : curl_easy_strerror(rc);
    if (rc == CURLE_COULDNT_RESOLVE_HOST || rc == CURLE_COULDNT_CONNECT ||
        rc == CURLE_COULDNT_RESOLVE_PROXY || rc == CURLE_OPERATION_TIMEDOUT)
        return hubhttp_fail(why, whylen, HUB_NET, "%s", what);
    (void)url;
    return hubhttp_fail(why, whylen, HUB_HTTP, "%s", what);
}

/* m from an answer's headers; a redirect's own Content-Length is not the
 * file's size. */
static void meta_from(HubMeta *m, const HubHeaders *h, bool redirect)
{
    snprintf(m->code, sizeof m->code, "%s", h->code);
    m->commit[0] = 0;
    if (strlen(h->commit) == 40) /* else none: a malformed one is refused as missing */
        memcpy(m->commit, h->commit, 41);
    m->lfs = h->linked_etag[0] != 0;
    /* without X-Linked-Etag, a redirect's ETag is the git id of the LFS
     * pointer, not of the bytes it sends to: it names the blob only */
    m->unchecked = redirect && !m->lfs;
    if (!hfcache_etag(m->lfs ? h->linked_etag : h->etag, m->etag, sizeof m->etag))
        m->etag[0] = 0;
    bool hex = m->etag[0] != 0; /* a sha256 or a git id names its blob in lower case */
    for (const char *p = m->etag; *p; p++)
        hex = hex && isxdigit((unsigned char)*p);
    for (char *p = m->etag; hex && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    const char *total = strchr(h->range, '/'); /* a GET of byte 0's answer: "bytes 0-0/SIZE" */
    const char *size = h->linked_size[0] ? h->linked_size
                       : redirect        ? ""
                       : total           ? total + 1
                                         : h->length;
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

/* libcurl's write callback that keeps nothing: the transfer ends. */
static size_t no_body(char *p, size_t size, size_t nitems, void *ctx)
{
    (void)p, (void)size, (void)nitems, (void)ctx;
    return 0;
}

/* One HEAD of url (for file) into *hd and *status (a GET of byte 0, its
 * body not kept, where HEAD is refused with 405 or 501), tried again
 * (n->tries in all) after a transient failure or answer, *tries of them
 * made. Returns the curl code of the last. */
static CURLcode head_once(const HubNet *n, const char *url, const char *file, HubHeaders *hd,
                          long *status, int *tries, char *err)
{
    CURLcode cr = CURLE_OUT_OF_MEMORY;
    long waited = 0;
    bool get = false;
    for (int k = *tries = 0; k < n->tries; k++) {
        if (k && cr == CURLE_OPERATION_TIMEDOUT) /* seconds went by: say why */
            fprintf(stderr, "attnviz: %s: no answer in %ld s; asking again (%d of %d)\n", file,
                    n->head_seconds, k + 1, n->tries);
        if (k && !hubhttp_backoff(k, hd->retry_after, file, false, &waited))
            break; /* the answer kept: said by its status */
        ++*tries;
        struct curl_slist *h = hubhttp_headers(n, url);
        CURL *c = h ? hubhttp_easy(n, h, url, err) : NULL;
        if (!c) {
            curl_slist_free_all(h);
            return CURLE_OUT_OF_MEMORY;
        }
        memset(hd, 0, sizeof *hd);
        if (get) { /* a server that refuses HEAD: its headers from a GET of one byte */
            curl_easy_setopt(c, CURLOPT_RANGE, "0-0");
            curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, no_body);
        } else
            curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, n->head_seconds);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, hubhttp_on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, hd);
        cr = curl_easy_perform(c);
        *status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
        curl_easy_cleanup(c);
        curl_slist_free_all(h);
        if (get && cr == CURLE_WRITE_ERROR) /* the body, not kept: the headers came */
            cr = CURLE_OK;
        if (cr == CURLE_OK && !get && (*status == 405 || *status == 501)) {
            get = true; /* HEAD not allowed: asked again as a GET, not a try */
            k--, --*tries;
            continue;
        }
        if (cr == CURLE_OK ? !hubhttp_transient_status(*status) : !hubhttp_transient(cr))
            break;
    }
    return cr;
}

/* m->size, which a redirect without X-Linked-Size does not give, from
 * where it sends the bytes: a HEAD there (redirects followed) and its
 * Content-Length; left unknown when that does not answer with one. */
static void size_there(const HubNet *n, HubMeta *m)
{
    HubHeaders hd;
    char err[CURL_ERROR_SIZE], *end;
    struct curl_slist *h = hubhttp_headers(n, m->url);
    CURL *c = h ? hubhttp_easy(n, h, m->url, err) : NULL;
    long status = 0;
    memset(&hd, 0, sizeof hd);
    if (c) {
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
        curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)HUB_MAX_REDIRECTS);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, n->head_seconds);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, hubhttp_on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &hd);
        if (curl_easy_perform(c) == CURLE_OK)
            curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_cleanup(c);
    }
    curl_slist_free_all(h);
    double v = strtod(hd.length, &end);
    if (status == 200 && hd.length[0] && *end == 0 && v >= 0)
        m->size = v;
}

HubErr hubget_head(const HubNet *n, const char *repo, const char *rev, const char *file, HubMeta *m,
                   char *why, size_t whylen)
{
    char err[CURL_ERROR_SIZE];
    memset(m, 0, sizeof *m);
    resolve_url(n, repo, rev, file, m->url, sizeof m->url);
    for (int hop = 0;; hop++) {
        HubHeaders hd;
        int tries;
        CURLcode cr = head_once(n, m->url, file, &hd, &m->status, &tries, err);
        if (cr != CURLE_OK) {
            HubErr rc = hubhttp_net_error(cr, err, m->url, why, whylen);
            size_t at = strlen(why);
            if (tries > 1 && at < whylen)
                snprintf(why + at, whylen - at, " (%d tries)", tries);
            return rc;
        }
        const bool redirect = m->status >= 300 && m->status < 400;
        meta_from(m, &hd, redirect);
        if (redirect && !hd.location[0])
            return hubhttp_fail(why, whylen, HUB_BAD, "a redirect (%ld) without a Location",
                                m->status);
        if (redirect && !url_join(m->url, hd.location, m->url, sizeof m->url))
            return hubhttp_fail(why, whylen, HUB_BAD, "a redirect to '%.200s', not a URL",
                                hd.location);
        /* a renamed repo, asked again there: a relative redirect without
         * X-Linked-Etag, as huggingface_hub follows it, or an absolute one
         * to the hub's own origin that names no file (no ETag either) */
        const bool relative = hd.location[0] == '/' && hd.location[1] != '/';
        if (redirect && !hd.linked_etag[0] &&
            (relative || (!hd.etag[0] && hubhttp_same_origin(m->url, n->endpoint)))) {
            if (hop == HUB_MAX_REDIRECTS)
                return hubhttp_fail(why, whylen, HUB_BAD, "more than %d redirects",
                                    HUB_MAX_REDIRECTS);
            continue;
        }
        /* the hub answers 401 for a repo that does not exist, to one without a token */
        if (m->status == 404 ||
            ((m->status == 401 || m->status == 403) && strcmp(m->code, "RepoNotFound") == 0))
            return hubhttp_fail(why, whylen, HUB_NOT_FOUND, "%ld %s", m->status, m->code);
        if (m->status == 401 || m->status == 403)
            return hubhttp_fail(why, whylen, HUB_DENIED, "%ld %s", m->status, m->code);
        if (m->status == 429 && retry_seconds(hd.retry_after) >= 0)
            return hubhttp_fail(why, whylen, HUB_HTTP,
                                "the server answered 429 (too many requests) and asks to wait "
                                "%ld s more (Retry-After), past the %d s attnviz waits: try later",
                                retry_seconds(hd.retry_after), HUB_WAIT_MAX);
        if (m->status >= 400)
            return hubhttp_fail(why, whylen, HUB_HTTP, "the server answered %ld%s", m->status,
                                hubhttp_transient_status(m->status) ? " every time it was asked"
                                                                    : "");
        if (!m->etag[0]) /* a redirect to the bytes too: they are named by it */
            return hubhttp_fail(why, whylen, HUB_BAD, "no ETag in the answer for %s", file);
        /* nothing checks those bytes but their size: a cut copy in the
         * cache would otherwise pass for whole */
        if (m->unchecked && m->size < 0)
            size_there(n, m);
        return HUB_OK;
    }
}
