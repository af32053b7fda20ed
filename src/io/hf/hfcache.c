/* hfcache.c - the Hugging Face cache's layout (hfcache.h): hub ids, the
 * cache's root, finding a snapshot through refs/, and the writes a download
 * makes (a blob's link, a ref) so that a reader never sees half of one.
 */
#include "io/hfcache.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/hffolder.h"

/* The short ids the hub redirects to an organisation's copy, and the bytes
 * of what a download fetches (the weights, the tokenizer, config.json),
 * rounded. */
static const struct {
    const char *alias, *repo;
    double bytes;
} KNOWN[] = {
    {"gpt2", "openai-community/gpt2", 550e6},
    {"gpt2-medium", "openai-community/gpt2-medium", 1.52e9},
    {"gpt2-large", "openai-community/gpt2-large", 3.25e9},
    {"gpt2-xl", "openai-community/gpt2-xl", 6.43e9},
    {"distilgpt2", "distilbert/distilgpt2", 355e6},
    {"bert-base-uncased", "google-bert/bert-base-uncased", 440e6},
    {"bert-base-cased", "google-bert/bert-base-cased", 436e6},
    {"bert-large-uncased", "google-bert/bert-large-uncased", 1.34e9},
    {"bert-large-cased", "google-bert/bert-large-cased", 1.33e9},
    {"bert-base-multilingual-cased", "google-bert/bert-base-multilingual-cased", 714e6},
    {"distilbert-base-uncased", "distilbert/distilbert-base-uncased", 268e6},
    {"distilbert-base-cased", "distilbert/distilbert-base-cased", 263e6},
};
#define N_KNOWN (sizeof KNOWN / sizeof KNOWN[0])

static bool id_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* One part of a repo id: [0, len) of allowed characters, not starting or
 * ending with '-' or '.'. */
static bool id_part(const char *p, size_t len)
{
    if (len == 0 || len > HF_ID_PART_MAX || strchr("-.", p[0]) || strchr("-.", p[len - 1]))
        return false;
    for (size_t k = 0; k < len; k++)
        if (!id_char(p[k]))
            return false;
    return true;
}

static bool rev_ok(const char *r)
{
    size_t n = strlen(r);
    if (n == 0 || n >= HF_REV_MAX || r[0] == '/' || r[n - 1] == '/' || strstr(r, "..") ||
        strstr(r, "//"))
        return false;
    /* no "." segment: a URL's path would lose it */
    if (!strcmp(r, ".") || !strncmp(r, "./", 2) || strstr(r, "/./") ||
        (n >= 2 && !strcmp(r + n - 2, "/.")))
        return false;
    for (size_t k = 0; k < n; k++)
        if (!id_char(r[k]) && r[k] != '/')
            return false;
    return true;
}

bool hfcache_parse_id(const char *name, HfId *id)
{
    const char *at = strchr(name, '@');
    size_t n = at ? (size_t)(at - name) : strlen(name);
    if (n == 0 || n >= HF_ID_MAX)
        return false;
    const char *slash = memchr(name, '/', n);
    if (slash && memchr(slash + 1, '/', n - (size_t)(slash - name) - 1))
        return false;
    size_t first = slash ? (size_t)(slash - name) : n;
    if (!id_part(name, first) || (slash && !id_part(slash + 1, n - first - 1)))
        return false;
    memcpy(id->repo, name, n);
    id->repo[n] = 0;
    if (strstr(id->repo, "--") || strstr(id->repo, ".."))
        return false;
    const char *rev = at ? at + 1 : "main";
    if (!rev_ok(rev))
        return false;
    snprintf(id->rev, sizeof id->rev, "%s", rev);
    return true;
}

size_t hfcache_id_too_long(const char *name, const char **part)
{
    char cut[2 * HF_PATH_MAX];
    size_t n = strcspn(name, "@"), first = strcspn(name, "/@");
    size_t second = first < n ? n - first - 1 : 0;
    size_t len = first > HF_ID_PART_MAX ? first : second > HF_ID_PART_MAX ? second : 0;
    if (!len || strlen(name) >= sizeof cut)
        return 0;
    /* the id with each part cut to the limit: an id then, its length the fault */
    size_t a = first < HF_ID_PART_MAX ? first : HF_ID_PART_MAX;
    size_t b = second < HF_ID_PART_MAX ? second : HF_ID_PART_MAX;
    snprintf(cut, sizeof cut, "%.*s%s%.*s%s", (int)a, name, first < n ? "/" : "", (int)b,
             first < n ? name + first + 1 : "", name + n);
    HfId id;
    if (!hfcache_parse_id(cut, &id))
        return 0;
    *part = first > HF_ID_PART_MAX && first < n ? "organisation" : "name";
    return len;
}

bool hfcache_is_commit(const char *rev)
{
    size_t n = 0;
    for (; rev[n]; n++)
        if (!isdigit((unsigned char)rev[n]) && (rev[n] < 'a' || rev[n] > 'f'))
            return false;
    return n == 40;
}

/* The variable's value, set and not empty, or NULL. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* buf = dir (a leading "~/" or a lone "~" the home folder) then tail. */
static bool root_path(char *buf, size_t size, const char *dir, const char *tail)
{
    const char *home = env("HOME");
    int n;
    if (dir[0] == '~' && (dir[1] == '/' || !dir[1]))
        n = home ? snprintf(buf, size, "%s%s%s", home, dir + 1, tail) : -1;
    else
        n = snprintf(buf, size, "%s%s", dir, tail);
    return n > 0 && (size_t)n < size;
}

/* buf = huggingface_hub's home folder ($HF_HOME, else
 * $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface) then tail;
 * *from the variable that named it. */
static bool home_path(char *buf, size_t size, const char *tail, const char **from)
{
    char t[64];
    const char *v;
    if ((v = env("HF_HOME")))
        return *from = "HF_HOME", root_path(buf, size, v, tail);
    snprintf(t, sizeof t, "/huggingface%s", tail);
    if ((v = env("XDG_CACHE_HOME")))
        return *from = "XDG_CACHE_HOME", root_path(buf, size, v, t);
    snprintf(t, sizeof t, "/.cache/huggingface%s", tail);
    return *from = "HOME", root_path(buf, size, "~", t);
}

bool hfcache_root(char *buf, size_t size)
{
    const char *v, *from;
    if ((v = env("HF_HUB_CACHE")) || (v = env("HUGGINGFACE_HUB_CACHE")))
        return root_path(buf, size, v, "");
    return home_path(buf, size, "/hub", &from);
}

const char *hfcache_root_from(void)
{
    static const char *const vars[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                                       "XDG_CACHE_HOME"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
        if (env(vars[k]))
            return vars[k];
    return "HOME";
}

bool hfcache_token_path(char *buf, size_t size, const char **from)
{
    const char *v = env("HF_TOKEN_PATH");
    if (v)
        return *from = "HF_TOKEN_PATH", root_path(buf, size, v, "");
    return home_path(buf, size, "/token", from);
}

int hfcache_names(const char *repo, const char *names[2])
{
    names[0] = repo;
    for (size_t k = 0; k < N_KNOWN; k++) {
        if (strcmp(repo, KNOWN[k].alias) == 0) {
            names[0] = KNOWN[k].repo, names[1] = KNOWN[k].alias;
            return 2;
        }
        if (strcmp(repo, KNOWN[k].repo) == 0) {
            names[1] = KNOWN[k].alias;
            return 2;
        }
    }
    return 1;
}

double hfcache_known_size(const char *repo)
{
    for (size_t k = 0; k < N_KNOWN; k++)
        if (strcmp(repo, KNOWN[k].alias) == 0 || strcmp(repo, KNOWN[k].repo) == 0)
            return KNOWN[k].bytes;
    return 0;
}

bool hfcache_repo_dir(const char *root, const char *repo, char *buf, size_t size)
{
    const char *slash = strchr(repo, '/');
    int n = slash ? snprintf(buf, size, "%s/models--%.*s--%s", root, (int)(slash - repo), repo,
                             slash + 1)
                  : snprintf(buf, size, "%s/models--%s", root, repo);
    return n > 0 && (size_t)n < size;
}

/* The commit refs/REV of repo_dir names, into hash[41]: the file's text
 * stripped of the white space around it (a newline, a CR, spaces), as
 * huggingface_hub reads it. */
static bool read_ref(const char *repo_dir, const char *rev, char hash[41])
{
    char path[HF_PATH_MAX], *text;
    size_t len, at = 0;
    if (snprintf(path, sizeof path, "%s/refs/%s", repo_dir, rev) >= (int)sizeof path)
        return false;
    if (file_read_regular(path, 4096, &text, &len) != AV_OK)
        return false;
    while (len && isspace((unsigned char)text[len - 1]))
        text[--len] = 0;
    while (at < len && isspace((unsigned char)text[at]))
        at++;
    bool ok = hfcache_is_commit(text + at);
    if (ok)
        memcpy(hash, text + at, 41);
    free(text);
    return ok;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether rev may abbreviate a commit: 7 to 39 lower-case hex digits, as
 * git prints them (huggingface_hub finds only whole ones). */
static bool abbreviation(const char *rev)
{
    size_t n = strlen(rev);
    return n >= 7 && n < 40 && strspn(rev, "0123456789abcdef") == n;
}

/* The snapshots of repo_dir whose commit begins with rev (an abbreviation)
 * and is not in hash[0..*n) yet, added there up to max; returns how many
 * there are, those past max too. */
static int abbreviated(const char *repo_dir, const char *rev, char (*hash)[41], int *n, int max)
{
    char path[HF_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/snapshots", repo_dir) >= (int)sizeof path)
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!hfcache_is_commit(e->d_name) || strncmp(e->d_name, rev, strlen(rev)) != 0)
            continue;
        bool seen = false; /* a short id's two names may hold one commit */
        for (int k = 0; k < *n && !seen; k++)
            seen = strcmp(hash[k], e->d_name) == 0;
        if (seen)
            continue;
        if (*n < max)
            memcpy(hash[(*n)++], e->d_name, 41);
        found++;
    }
    closedir(d);
    return found;
}

/* The one snapshot of repo_dir that rev abbreviates, into hash[41]; false
 * when none does, or several do. */
static bool abbreviated_one(const char *repo_dir, const char *rev, char hash[41])
{
    char one[1][41];
    int n = 0;
    if (!abbreviation(rev) || abbreviated(repo_dir, rev, one, &n, 1) != 1)
        return false;
    memcpy(hash, one[0], 41);
    return true;
}

int hfcache_candidates(const char *root, const HfId *id, char (*hash)[41], int max)
{
    const char *names[2];
    char repo_dir[HF_PATH_MAX];
    int n = 0, found = 0, m = hfcache_names(id->repo, names);
    if (!abbreviation(id->rev))
        return 0;
    for (int k = 0; k < m; k++)
        if (hfcache_repo_dir(root, names[k], repo_dir, sizeof repo_dir))
            found += abbreviated(repo_dir, id->rev, hash, &n, max);
    return found;
}

bool hfcache_find(const char *root, const HfId *id, char *dir, size_t size, const char **found)
{
    const char *names[2];
    char list[256];
    int n = hfcache_names(id->repo, names);
    *found = NULL;
    for (int k = 0; k < n; k++) {
        char repo_dir[HF_PATH_MAX], hash[41], snap[HF_PATH_MAX];
        if (!hfcache_repo_dir(root, names[k], repo_dir, sizeof repo_dir))
            continue;
        if (hfcache_is_commit(id->rev))
            memcpy(hash, id->rev, 41);
        else if (!read_ref(repo_dir, id->rev, hash) && !abbreviated_one(repo_dir, id->rev, hash))
            continue;
        int w = snprintf(snap, sizeof snap, "%s/snapshots/%s", repo_dir, hash);
        if (w <= 0 || (size_t)w >= size || !is_dir(snap))
            continue;
        if (!*found) /* the first copy found, unless a later one is whole */
            snprintf(dir, size, "%s", snap), *found = names[k];
        if (hffolder_missing(snap, list, sizeof list) == 0) {
            snprintf(dir, size, "%s", snap), *found = names[k];
            return true;
        }
    }
    return *found != NULL;
}

bool hfcache_etag(const char *raw, char *out, size_t size)
{
    while (isspace((unsigned char)*raw))
        raw++;
    if (strncmp(raw, "W/", 2) == 0)
        raw += 2;
    size_t n = strlen(raw);
    while (n && (isspace((unsigned char)raw[n - 1]) || raw[n - 1] == '"'))
        n--;
    if (*raw == '"')
        raw++, n--;
    if (n == 0 || n >= size || raw[0] == '.') /* no ".", "..", nor a hidden name */
        return false;
    for (size_t k = 0; k < n; k++) /* a server's own tags: "5f2b-1a3c", "v1.2:abc" */
        if (!isalnum((unsigned char)raw[k]) && !strchr("-_.:", raw[k]))
            return false;
    memcpy(out, raw, n);
    out[n] = 0;
    return true;
}

int hfcache_make_parents(const char *path)
{
    char p[HF_PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            return AV_ERR_IO;
        *s = '/';
    }
    return AV_OK;
}

/* ROOT/.locks/models--ORG--NAME/ETAG.lock of blob ROOT/models--ORG--NAME/blobs/ETAG. */
static bool lock_path(const char *blob, char *path, size_t size)
{
    const char *etag = strrchr(blob, '/'), *repo = etag;
    if (!etag || etag - blob < 6 || strncmp(etag - 6, "/blobs", 6) != 0)
        return false;
    for (repo = etag - 6; repo > blob && repo[-1] != '/';)
        repo--;
    if (repo == blob || strncmp(repo, "models--", 8) != 0)
        return false;
    int n = snprintf(path, size, "%.*s.locks/%.*s%s.lock", (int)(repo - blob), blob,
                     (int)(etag - 6 - repo), repo, etag);
    return n > 0 && (size_t)n < size;
}

int hfcache_lock_blob(const char *blob, bool wait, int *fd, char *path, size_t size)
{
    *fd = -1;
    if (!lock_path(blob, path, size)) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    if (hfcache_make_parents(path) != AV_OK)
        return AV_ERR_IO;
    int f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0 && errno == EACCES) /* another user's lock file: flock needs no write */
        f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return AV_ERR_IO;
    int rc;
    while ((rc = flock(f, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        int e = errno;
        close(f);
        errno = e;
        return AV_ERR_IO;
    }
    *fd = f;
    return AV_OK;
}

int hfcache_link(const char *repo_dir, const char *commit, const char *file, const char *etag)
{
    char link[HF_PATH_MAX], tmp[HF_PATH_MAX], target[HF_PATH_MAX] = "../../";
    if (snprintf(link, sizeof link, "%s/snapshots/%s/%s", repo_dir, commit, file) >=
            (int)sizeof link ||
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", link, (long)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    for (const char *s = strchr(file, '/'); s; s = strchr(s + 1, '/'))
        strcat(target, "../");
    size_t at = strlen(target);
    if (snprintf(target + at, sizeof target - at, "blobs/%s", etag) >= (int)(sizeof target - at)) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    char had[HF_PATH_MAX];
    ssize_t n = readlink(link, had, sizeof had - 1);
    if (n >= 0 && (had[n] = 0, strcmp(had, target) == 0))
        return AV_OK; /* there already: nothing written (a cache on a read-only disk) */
    if (hfcache_make_parents(link) != AV_OK)
        return AV_ERR_IO;
    unlink(tmp);
    if (symlink(target, tmp) != 0)
        return AV_ERR_IO;
    if (rename(tmp, link) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return AV_ERR_IO;
    }
    return AV_OK;
}

int hfcache_write_ref(const char *repo_dir, const char *rev, const char *commit)
{
    char path[HF_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/refs/%s", repo_dir, rev) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return AV_ERR_IO;
    }
    char had[64];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(had, 1, sizeof had - 1, f) : 0;
    if (f)
        fclose(f);
    had[n] = 0;
    if (f && strcmp(had, commit) == 0)
        return AV_OK; /* there already: nothing written */
    if (hfcache_make_parents(path) != AV_OK)
        return AV_ERR_IO;
    return file_write_atomic(path, commit, strlen(commit), false);
}

bool hfcache_repo_of(const char *dir, char *buf, size_t size)
{
    const char *snap = strstr(dir, "/snapshots/");
    if (!snap)
        return false;
    const char *start = snap;
    while (start > dir && start[-1] != '/')
        start--;
    if (strncmp(start, "models--", 8) != 0)
        return false;
    const char *name = start + 8, *sep = strstr(name, "--");
    int n = sep && sep < snap ? snprintf(buf, size, "%.*s/%.*s", (int)(sep - name), name,
                                         (int)(snap - sep - 2), sep + 2)
                              : snprintf(buf, size, "%.*s", (int)(snap - name), name);
    HfId id;
    return n > 0 && (size_t)n < size && hfcache_parse_id(buf, &id);
}

bool hfcache_model_name(const char *dir, char *buf, size_t size)
{
    char repo[HF_ID_MAX];
    if (!hfcache_repo_of(dir, repo, sizeof repo))
        return false;
    int n = snprintf(buf, size, "%s", repo); /* as the exports name it (svg_source_name) */
    return n > 0 && (size_t)n < size;
}

void hfcache_display_name(const char *dir, char *buf, size_t size)
{
    if (hfcache_model_name(dir, buf, size))
        return;
    const char *base = strrchr(dir, '/');
    while (base && base[1] == 0 && base > dir) { /* "dir/": the part before */
        const char *p = base - 1;
        while (p > dir && *p != '/')
            p--;
        base = p;
    }
    snprintf(buf, size, "%s", base && *base == '/' ? base + 1 : dir);
    char *slash = strchr(buf, '/');
    if (slash)
        *slash = 0;
}
