/* hubhttp.h - what hubhttp.c, asking the hub about a file, shares with
 * hubblob.c, the transfer of its bytes into the cache: the answer's
 * headers, a libcurl handle with the request headers and the token for the
 * endpoint only, when to try again and how long to wait, and a failure as
 * one line. Private to src/cli/hub/, not part of the interface (cli/hubget.h).
 */
#ifndef ATTNVIZ_HUBHTTP_H
#define ATTNVIZ_HUBHTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "cli/hubget.h"

#define HUB_MAX_REDIRECTS 5

/* The headers of an answer that hubhttp_on_header keeps, emptied when a new
 * answer begins (after a followed redirect, those of the last). */
typedef struct {
    char commit[64], etag[128], linked_etag[128], linked_size[32], length[32], location[4096],
        code[64], retry_after[32], range[96];
} HubHeaders;

/* why = the printf of fmt; returns rc. */
HubErr hubhttp_fail(char *why, size_t whylen, HubErr rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* url's scheme, host and port into a CURLU; NULL when it is not a URL. */
CURLU *hubhttp_url_parse(const char *url);

/* Whether a and b share their scheme, host and port (the token goes only
 * to the endpoint's, never to where a redirect sends the bytes). */
bool hubhttp_same_origin(const char *a, const char *b);

/* The request headers for url: identity encoding so that Content-Length
 * is the file's size, and the token where url is the endpoint's. */
struct curl_slist *hubhttp_headers(const HubNet *n, const char *url);

/* A handle for url with headers h (hubhttp_headers), the user agent, a
 * connect timeout, http(s) only, and its error text into err
 * (CURL_ERROR_SIZE bytes, emptied); NULL when out of memory. */
CURL *hubhttp_easy(const HubNet *n, struct curl_slist *h, const char *url, char *err);

/* libcurl's header callback: the headers of HubHeaders from each line into
 * ctx (a HubHeaders), emptied when a new answer begins. */
size_t hubhttp_on_header(char *line, size_t size, size_t nitems, void *ctx);

/* An HTTP answer that may be another when asked again: too many requests,
 * a server's error. */
bool hubhttp_transient_status(long status);

#define HUB_WAIT_MAX 60 /* seconds: the most Retry-After waits of one request, in all */

/* Before try k (1, 2, ...) of label: Retry-After's seconds (a number, or
 * an HTTP date) when the server gave them (at most HUB_RETRY_AFTER_MAX;
 * 5 or more said on standard error, over the bar when there is one), else
 * 0.25, 0.5, 1, 2 s. False, without waiting, when *waited (the seconds
 * waited so far, added to) would pass HUB_WAIT_MAX. */
bool hubhttp_backoff(int k, const char *retry_after, const char *label, bool bar, long *waited);

/* A transfer that may work when tried again. */
bool hubhttp_transient(CURLcode rc);

/* A failed transfer as HUB_NET (no connection: the endpoint cannot be
 * reached) or HUB_HTTP, with libcurl's text err (else rc's) in why. */
HubErr hubhttp_net_error(CURLcode rc, const char *err, const char *url, char *why, size_t whylen);

#endif
