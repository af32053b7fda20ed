/* hubget.h - files of a Hugging Face hub repository over HTTP, with libcurl:
 * the metadata a HEAD of /{repo}/resolve/{rev}/{file} answers with
 * (hubhttp.c), and a file's bytes into a blob of the cache, resumed and
 * checked (hubblob.c, hubcheck.c).
 *
 * The only layer that reaches the network, and only when the user asked
 * (attnviz get, or yes to the question of --model NAME). Nothing here prints
 * but the progress; a failure is a HubErr and one line in why.
 */
#ifndef ATTNVIZ_HUBGET_H
#define ATTNVIZ_HUBGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

typedef enum {
    HUB_OK = 0,
    HUB_NOT_FOUND, /* 404: no such repo, revision or file (see code) */
    HUB_DENIED,    /* 401 or 403: gated, private, or a refused token */
    HUB_NET,       /* the endpoint cannot be reached */
    HUB_DROPPED,   /* the connection dropped or stalled, every retry too */
    HUB_CHECKSUM,  /* the bytes are not the ones the hub named (sha256, git blob id) */
    HUB_DISK,      /* the cache could not be written (full disk: errno) */
    HUB_HTTP,      /* another answer: a server error after the retries, ... */
    HUB_BAD,       /* an answer without what a hub sends (no ETag, ...) */
    HUB_BUSY,      /* another process is downloading the same blob */
} HubErr;

/* How to reach the hub: from $HF_ENDPOINT, the token (hubget_token) and the
 * timeouts. */
typedef struct {
    const char *endpoint; /* "https://huggingface.co", no trailing '/' */
    const char *token;    /* sent as "Authorization: Bearer TOKEN", or NULL */
    long head_seconds;    /* a HEAD's whole time (HF_HUB_ETAG_TIMEOUT) */
    long stall_seconds;   /* no byte for this long is a dropped connection
                           * (HF_HUB_DOWNLOAD_TIMEOUT) */
    int tries;            /* a HEAD's attempts, a download's in a row that add
                           * no byte, before it fails */
    bool bar;             /* a progress bar on standard error (a terminal) */
} HubNet;

/* What the hub says of one file. */
typedef struct {
    long status;     /* the HTTP status */
    char code[64];   /* X-Error-Code ("RepoNotFound", "EntryNotFound", ...) */
    char commit[41]; /* X-Repo-Commit */
    char etag[80];   /* X-Linked-Etag, else ETag, as the cache names blobs */
    bool lfs;        /* X-Linked-Etag was given: etag is the sha256 */
    bool unchecked;  /* a redirect without X-Linked-Etag: etag (the LFS
                      * pointer's git id) names the blob, checks no byte */
    double size;     /* X-Linked-Size, else Content-Length; -1 unknown */
    char url[4096];  /* where the bytes are: a redirect's Location, or the file's URL */
} HubMeta;

/* Start libcurl once, before any other call. Returns false when it cannot. */
bool hubget_init(void);

/* The token to send, as huggingface_hub picks it (hubtoken.c): none when
 * $HF_HUB_DISABLE_IMPLICIT_TOKEN is true; else $HF_TOKEN, else
 * $HUGGING_FACE_HUB_TOKEN (the first set and not empty), else the file
 * `hf auth login` saves (hfcache_token_path: $HF_TOKEN_PATH, else
 * $HF_HOME/token, ...), each without line breaks (a token pasted from a
 * file) and the spaces around it; NULL when that leaves nothing, or out of
 * memory (*nomem). said (size) receives, for the line of a 401 or 403,
 * where the token came from ("HF_TOKEN", "PATH (saved by `hf auth
 * login`)"), or without one why none was sent and how to send one; never
 * the token. free() it. */
char *hubget_token(char *said, size_t size, bool *nomem);

/* HEAD of file of repo at rev (a redirect on the endpoint's origin naming
 * no file, relative or absolute, followed: a renamed repo; one with the
 * file's ETag, or to another host, is where the bytes are). HUB_OK with *m filled, or the
 * error (m->status and m->code set for an HTTP answer). */
HubErr hubget_head(const HubNet *n, const char *repo, const char *rev, const char *file, HubMeta *m,
                   char *why, size_t whylen);

/* Whether the file at path is whole: the checksum the hub named (an LFS
 * file's sha256, a small file's git blob id), read through (with bar, a
 * progress line naming label meanwhile), or where it named none m's size
 * (when known). When not, *what (unless NULL) is "sha256" or "git blob
 * id" when bytes were checked, else "". */
bool hubget_blob_whole(const HubMeta *m, const char *path, const char *label, bool bar,
                       const char **what);

/* The bytes m names into blob, under huggingface_hub's lock on it
 * (hfcache_lock_blob: another download of it, another attnviz get's or
 * another program's, is waited for, the wait said, and its blob used when
 * whole, hubget_blob_whole; bad, unless NULL, is the stat of the blob
 * the caller found not whole, which is not read through again while blob
 * is still that file; HUB_BUSY only where a part is held without that
 * lock): written to
 * blob.incomplete (resumed with a Range request when one is there),
 * retried when the connection drops or stalls (n->tries tries in a row
 * without a byte, at most), its size
 * checked against m->size and, for an LFS file, its sha256 against
 * m->etag, for a small file its git blob id (a mismatch deletes it; when
 * the part was resumed from an earlier download, the file is fetched once
 * more from the start, said in a line), then renamed to blob. label names the file in the progress.
 */
HubErr hubget_blob(const HubNet *n, const HubMeta *m, const char *label, const char *blob,
                   const struct stat *bad, char *why, size_t whylen);

#endif
