/* hub_cmd.c - hub ids on the command line (hub_cmd.h): `attnviz get
 * NAME[@REV]`, whose download is hubfetch.c's, and --model NAME, found in
 * the Hugging Face cache (io/hfcache.h), or asked about and fetched; what
 * is wrong with a name, a revision or the cache's path said in one line
 * with what to do.
 */
#include "cli/hub_cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "cli/say.h"
#include "io/fileio.h"
#include "io/hfcache.h"
#include "io/hffolder.h"
#include "hubfetch.h"

static bool offline(void)
{
    const char *v = getenv("HF_HUB_OFFLINE");
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "on") == 0);
}

/* " (about 550 MB)" for a known id, "" otherwise. */
static void about(const char *repo, char *buf, size_t size)
{
    double b = hfcache_known_size(repo);
    if (b >= 1e9)
        snprintf(buf, size, " (about %.1f GB)", b / 1e9);
    else if (b > 0)
        snprintf(buf, size, " (about %.0f MB)", b / 1e6);
    else
        buf[0] = 0;
}

#define HUB_CANDIDATES 6 /* an ambiguous abbreviation's commits listed */

static int by_hash(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* When id->rev abbreviates two or more of the cache's snapshots: said
 * with them, git's way, each in as many digits as tell them apart (12 at
 * least); status 2. Else 0. */
static int ambiguous(const HfId *id, const char *root)
{
    char hash[HUB_CANDIDATES][41], list[HUB_CANDIDATES * 48] = "";
    int found = hfcache_candidates(root, id, hash, HUB_CANDIDATES);
    int n = found < HUB_CANDIDATES ? found : HUB_CANDIDATES, digits = 12;
    if (found < 2)
        return 0;
    qsort(hash, (size_t)n, sizeof hash[0], by_hash);
    for (int k = 1; k < n; k++) { /* sorted: a neighbour shares the most */
        int same = 0;
        while (hash[k][same] == hash[k - 1][same])
            same++;
        digits = same + 1 > digits ? same + 1 : digits;
    }
    for (int k = 0; k < n; k++) {
        size_t at = strlen(list);
        snprintf(list + at, sizeof list - at, "%s%.*s...", k ? ", " : "", digits, hash[k]);
    }
    return say(2, "%s: %s is ambiguous: %s%s (more digits name one)", id->repo, id->rev, list,
               found > n ? ", ..." : "");
}

/* The cache's root when it cannot be one: a file (or another thing, not a
 * folder), or a path through a file. Said after lead ("NAME: no such
 * folder, and "), with the variable that names it, status 2; else 0 (a
 * folder, or none yet, which a download makes). */
static int bad_root(const char *root, const char *lead)
{
    struct stat st;
    const char *var = hfcache_root_from();
    const char *set = strcmp(var, "HOME") == 0 ? "HF_HUB_CACHE" : var;
    const bool there = stat(root, &st) == 0;
    if (there && S_ISDIR(st.st_mode))
        return 0;
    if (there)
        return say(2, "%sthe Hugging Face cache %s (from %s) is %snot a folder: set %s to a folder",
                   lead, root, var, S_ISREG(st.st_mode) ? "a file, " : "", set);
    if (errno == ENOENT)
        return 0;
    if (errno != ENOTDIR)
        return say(2, "%sthe Hugging Face cache %s (from %s) cannot be reached: %s", lead, root,
                   var, strerror(errno));
    char file[HF_PATH_MAX]; /* the part of the path that is a file */
    snprintf(file, sizeof file, "%s", root);
    for (char *slash; (slash = strrchr(file, '/')) != NULL && slash > file;) {
        *slash = 0;
        if (stat(file, &st) == 0)
            break;
    }
    return say(2,
               "%sthe Hugging Face cache %s (from %s) lies under %s, a file, not a folder: set "
               "%s to a folder",
               lead, root, var, file, set);
}

/* Download id into the cache at root (hubfetch_model), or with
 * HF_HUB_OFFLINE find a whole copy there; snap (size) receives the
 * snapshot. */
static int get_model(const HfId *id, const char *root, char *snap, size_t size)
{
    if (offline()) { /* a whole copy already there will do, as huggingface_hub's */
        const char *found;
        char list[256];
        const bool have = hfcache_find(root, id, snap, size, &found);
        if (!have && ambiguous(id, root))
            return 2;
        if (!have)
            return say(1, "HF_HUB_OFFLINE is set: nothing is downloaded (unset it to fetch %s)",
                       id->repo);
        if (hffolder_missing(snap, list, sizeof list))
            return say(1,
                       "HF_HUB_OFFLINE is set: the cache's copy of %s (%s) lacks %s, and "
                       "nothing is downloaded (unset it to fetch %s)",
                       id->repo, snap, list, id->repo);
        return 0;
    }
    return hubfetch_model(id, root, snap, size);
}

/* A name that would be a hub id but for the length of a part: said, with
 * what (it is not), status 2; else 0. */
static int id_too_long(const char *name, const char *what)
{
    const char *part;
    size_t len = hfcache_id_too_long(name, &part);
    if (!len)
        return 0;
    return say(2, "%s: %s: its %s is %zu characters long, and the hub allows at most %d", name,
               what, part, len, HF_ID_PART_MAX);
}

int hub_cmd_get(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        puts("usage: attnviz get NAME[@REVISION]   download a Hugging Face model into its cache");
        return 0;
    }
    HfId id;
    if (argc != 2)
        return say(2, "usage: attnviz get NAME[@REVISION] (a hub id such as gpt2 or "
                      "openai-community/gpt2)");
    if (!hfcache_parse_id(argv[1], &id) && id_too_long(argv[1], "not a hub id"))
        return 2;
    if (!hfcache_parse_id(argv[1], &id))
        return say(2, "'%s' is not a hub id (NAME or ORG/NAME, optionally @REVISION)", argv[1]);
    char root[HF_PATH_MAX], snap[HF_PATH_MAX];
    if (!hfcache_root(root, sizeof root))
        return say(2,
                   "no cache folder: set HF_HUB_CACHE, HF_HOME or HOME (a path of at most "
                   "%d bytes)",
                   HF_PATH_MAX - 1);
    int status = bad_root(root, "");
    if (!status)
        status = get_model(&id, root, snap, sizeof snap);
    if (status)
        return status;
    printf("%s\n", snap);
    return fflush(stdout) != 0 ? say(1, "cannot write to standard output") : 0;
}

/* Ask on the terminal; true for yes (no, an empty line and the end of the
 * input are no). */
static bool ask(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static bool ask(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("attnviz: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" [y/N] ", stderr);
    fflush(stderr);
    char line[64];
    const bool got = fgets(line, sizeof line, stdin) != NULL;
    if (!got || (!strchr(line, '\n') && feof(stdin)))
        fputc('\n', stderr); /* Ctrl-D ends no line: what follows goes on its own */
    return got && (line[0] == 'y' || line[0] == 'Y');
}

/* The snapshot of id in the cache: missing files said with what to do. */
static int use_snapshot(CliOptions *o, const char *name, const char *snap)
{
    char list[256];
    if (hffolder_missing(snap, list, sizeof list))
        return say(2, "the cache's copy of %s (%s) lacks %s: %s`attnviz get %s` fetches it", name,
                   snap, list, offline() ? "with HF_HUB_OFFLINE unset, " : "", name);
    free(o->model_path);
    o->model_path = strdup(snap);
    if (!o->model_path)
        return say(1, "out of memory");
    o->model_dir = o->model_path;
    o->export.source = o->model_path; /* the exports' "from ORG/NAME", read off the path */
    return 0;
}

/* Whether the cache at root holds a folder of id's repo under any of its
 * names (its path into dir), whatever its refs and snapshots. */
static bool cached_elsewise(const HfId *id, const char *root, char *dir, size_t size)
{
    const char *names[2];
    struct stat st;
    int n = hfcache_names(id->repo, names);
    for (int k = 0; k < n; k++)
        if (hfcache_repo_dir(root, names[k], dir, size) && stat(dir, &st) == 0 &&
            S_ISDIR(st.st_mode))
            return true;
    return false;
}

/* What the cache at root holds of id (--model name), which has no snapshot
 * of its revision there, into buf: the repo without that snapshot (a ref
 * deleted, a download interrupted), or nothing. Returns true for the repo. */
static bool not_cached(const HfId *id, const char *name, const char *root, char *buf, size_t size)
{
    char dir[HF_PATH_MAX];
    if (!cached_elsewise(id, root, dir, sizeof dir)) {
        snprintf(buf, size, "%s is neither a folder nor in the Hugging Face cache", name);
        return false;
    }
    const bool commit = hfcache_is_commit(id->rev);
    snprintf(buf, size, "the Hugging Face cache holds %s (%s) but no snapshot %s%s%s", id->repo,
             dir, commit ? "of commit " : "that refs/", id->rev, commit ? "" : " names");
    return true;
}

/* A hub id whose revision is what is wrong ("user/m@", "gpt2@a..b"): said,
 * status 2; anything else (a path) 0, for the folder's reader to say. */
static int bad_revision(const char *name)
{
    const char *at = strchr(name, '@');
    char repo[HF_ID_MAX];
    HfId id;
    if (!at || (size_t)(at - name) >= sizeof repo)
        return 0;
    memcpy(repo, name, (size_t)(at - name));
    repo[at - name] = 0;
    if (!hfcache_parse_id(repo, &id))
        return 0;
    if (!at[1])
        return say(2,
                   "%s: no such folder, and nothing follows @: a revision is a branch, a "
                   "tag or a commit (%s@main)",
                   name, repo);
    return say(2,
               "%s: no such folder, and '%s' is not a revision (a branch, a tag or a "
               "commit: %s@main)",
               name, at + 1, repo);
}

int hub_cmd_resolve(CliOptions *o)
{
    struct stat st;
    HfId id;
    char root[HF_PATH_MAX], snap[HF_PATH_MAX], size[32], what[2 * HF_PATH_MAX];
    const char *name = o->model_dir, *found;
    if (stat(name, &st) == 0 || errno != ENOENT)
        return 0; /* a folder (or file) of that name wins */
    if (!hfcache_parse_id(name, &id) && id_too_long(name, "no such folder, and not a hub id"))
        return 2;
    if (!hfcache_parse_id(name, &id))
        return bad_revision(name); /* else a path, said as one */
    if (!hfcache_root(root, sizeof root))
        return say(2,
                   "%s: no such folder, and no Hugging Face cache to look in: set "
                   "HF_HUB_CACHE, HF_HOME or HOME",
                   name);
    char lead[HF_ID_MAX + 64];
    snprintf(lead, sizeof lead, "%s: no such folder, and ", name);
    int status = bad_root(root, lead);
    if (status)
        return status;
    if (hfcache_find(root, &id, snap, sizeof snap, &found))
        return use_snapshot(o, name, snap);
    status = ambiguous(&id, root);
    if (status)
        return status;
    about(id.repo, size, sizeof size);
    const bool held = not_cached(&id, name, root, what, sizeof what);
    const bool asked = !offline() && isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
    if (held && !asked) /* the repo there, not that revision: said as such */
        return say(2, "%s: %s`attnviz get %s` fetches it", what,
                   offline() ? "with HF_HUB_OFFLINE unset, " : "", name);
    if (offline())
        return say(2,
                   "%s is neither a folder nor in the Hugging Face cache (%s), and "
                   "HF_HUB_OFFLINE is set: unset it, then `attnviz get %s` downloads it%s",
                   name, root, name, size);
    if (!asked)
        return say(2, "%s: `attnviz get %s` downloads it%s into %s", what, name, size, root);
    const char *e = getenv("HF_ENDPOINT");
    if (!ask("%s. Download it%s from %s into %s?", what, size, e && *e ? e : HUB_DEFAULT_ENDPOINT,
             root))
        return say(2, "%s: not downloaded (`attnviz get %s` downloads it)", name, name);
    status = get_model(&id, root, snap, sizeof snap);
    return status ? status : use_snapshot(o, name, snap);
}

void hub_cmd_guess_id(const char *dir, char *buf, size_t size)
{
    char path[HF_PATH_MAX], *text = NULL;
    size_t len;
    HfId id;
    if (hfcache_repo_of(dir, buf, size))
        return;
    snprintf(path, sizeof path, "%s/.git/config", dir);
    if (file_read_regular(path, 1 << 16, &text, &len) == AV_OK) {
        char *url = strstr(text, "url = ");
        char *end = url ? url + strcspn(url, "\r\n") : NULL;
        if (end) {
            *end = 0;
            if (end - url > 4 && strcmp(end - 4, ".git") == 0)
                end[-4] = 0;
            char *host = strstr(url, "://");
            char *p = host ? strchr(host + 3, '/') : NULL;
            if (p && hfcache_parse_id(p + 1, &id)) {
                snprintf(buf, size, "%s", id.repo);
                free(text);
                return;
            }
        }
    }
    free(text);
    snprintf(path, sizeof path, "%s", dir);
    for (size_t n = strlen(path); n > 1 && path[n - 1] == '/'; n--)
        path[n - 1] = 0;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(buf, size, "%s", hfcache_parse_id(base, &id) ? id.repo : "ORG/NAME");
}
