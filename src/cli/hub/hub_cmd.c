/* hub_cmd.c - `attnviz get NAME[@REV]` and --model NAME (hub_cmd.h): the
 * files attnviz reads, fetched into the Hugging Face cache's layout
 * (io/hfcache.h) with cli/hubget.h, and each failure said in one line with
 * what to do.
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
#include "cli/hubget.h"
#include "cli/say.h"
#include "io/fileio.h"
#include "io/hfcache.h"
#include "io/hfbert.h"
#include "io/hffolder.h"
#include "io/hfmodel.h"
#include "io/hfshards.h"

#define DEFAULT_ENDPOINT "https://huggingface.co"

/* One download: where from, where to. */
typedef struct {
    HubNet net;
    const HfId *id;
    char endpoint[1024];
    char repo_dir[HF_PATH_MAX - 512]; /* room for /snapshots/HASH/FILE */
    char commit[41];
    char pre[256]; /* the model's folder in the repository, "0_BERT/" (modules.json), or "" */
    char token_said[HF_PATH_MAX + 256]; /* where the token came from, or why none (hubget_token) */
} Get;

static bool offline(void)
{
    const char *v = getenv("HF_HUB_OFFLINE");
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "on") == 0);
}

static long env_seconds(const char *name, long dflt)
{
    const char *v = getenv(name);
    char *end;
    long s = v ? strtol(v, &end, 10) : 0;
    return v && *v && *end == 0 && s > 0 ? s : dflt;
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

/* The one line of a failed HEAD or download of file. */
static int say_error(const Get *g, const char *file, HubErr err, const HubMeta *m, const char *why)
{
    const char *repo = g->id->repo;
    switch (err) {
    case HUB_OK: return 0;
    case HUB_NOT_FOUND:
        if (strcmp(m->code, "RevisionNotFound") == 0)
            return say(2, "%s has no revision %s at %s", repo, g->id->rev, g->endpoint);
        if (strcmp(m->code, "EntryNotFound") == 0)
            return say(2, "%s has no %s at %s", repo, file, g->endpoint);
        if (m->status != 404 && !g->net.token) /* the hub's 401: none, or a private one */
            return say(2, "no model %s at %s (%ld %s); if it is private: %s", repo, g->endpoint,
                       m->status, m->code, g->token_said);
        return say(2, "no model %s at %s (%ld)", repo, g->endpoint, m->status);
    case HUB_DENIED: {
        char st[64]; /* the HEAD's status, or the download's refusal */
        if (m->status == 401 || m->status == 403)
            snprintf(st, sizeof st, "%ld", m->status);
        else
            snprintf(st, sizeof st, "%.60s", why);
        if (g->net.token)
            return say(1,
                       "%s: the token from %s was refused (%s): is it a token of an account "
                       "that may read %s (a gated model's conditions accepted)?",
                       repo, g->token_said, st, repo);
        return say(1, "%s is gated or private (%s): %s", repo, st, g->token_said);
    }
    case HUB_NET: return say(1, "cannot reach %s: %s (no network? HF_ENDPOINT?)", g->endpoint, why);
    case HUB_DROPPED:
        return say(1, "%s: the connection dropped: %s; `attnviz get %s` again resumes it", file,
                   why, repo);
    case HUB_CHECKSUM:
        return say(1,
                   "%s: checksum mismatch: %s; the bad copy was deleted, `attnviz get %s` "
                   "again fetches it anew",
                   file, why, repo);
    case HUB_DISK:
        return say(1, "cannot write %s into %s: %s%s", file, g->repo_dir, why,
                   errno == ENOSPC ? " (the disk is full)" : "");
    case HUB_HTTP: return say(1, "%s from %s: %s", file, g->endpoint, why);
    case HUB_BUSY: return say(1, "%s: %s: wait for it to end", file, why);
    case HUB_BAD:
    default:
        return say(1, "%s from %s: %s (is HF_ENDPOINT a Hugging Face hub?)", file, g->endpoint,
                   why);
    }
}

/* file (m from its HEAD) into blobs/ and linked from the snapshot. */
static int get_file(Get *g, const char *file, const HubMeta *m)
{
    char blob[HF_PATH_MAX], why[512] = "";
    snprintf(blob, sizeof blob, "%s/blobs/%s", g->repo_dir, m->etag);
    const double t0 = say_now();
    struct stat st; /* a blob of the checksum (or size) the hub gives is the file */
    const bool there = stat(blob, &st) == 0 && S_ISREG(st.st_mode);
    const char *what = "";
    const bool had = there && hubget_blob_whole(m, blob, file, g->net.bar, &what);
    if (there && !had && m->size >= 0 && st.st_size != m->size)
        say(0, "%s: the cache's copy is %.1f MB, not %.1f MB: fetching it again", file,
            (double)st.st_size / 1e6, m->size / 1e6);
    else if (there && !had)
        say(0, "%s: the cache's copy is damaged (its %s is not the hub's): fetching it again", file,
            what);
    HubErr err =
        had ? HUB_OK : hubget_blob(&g->net, m, file, blob, there ? &st : NULL, why, sizeof why);
    if (err)
        return say_error(g, file, err, m, why);
    if (hfcache_link(g->repo_dir, g->commit, file, m->etag) != AV_OK)
        return say(1, "cannot link %s into %s/snapshots/%s: %s", file, g->repo_dir, g->commit,
                   strerror(errno));
    const double s = say_now() - t0;
    if (had)
        say(0, "%s: already in the cache", file);
    else if (m->size >= 0)
        say(0, "%s: %.1f MB in %.1f s", file, m->size / 1e6, s);
    else
        say(0, "%s: done in %.1f s", file, s);
    return 0;
}

/* HEAD of file at the commit (or the revision, before the commit is known). */
static HubErr head(Get *g, const char *file, HubMeta *m, char *why, size_t whylen)
{
    return hubget_head(&g->net, g->id->repo, g->commit[0] ? g->commit : g->id->rev, file, m, why,
                       whylen);
}

/* HEAD then get of g->pre + name; with optional, a 404 of the file is
 * *absent, not an error. */
static int fetch(Get *g, const char *name, bool optional, bool *absent)
{
    HubMeta m;
    char why[512] = "", file[512];
    snprintf(file, sizeof file, "%s%s", g->pre, name);
    HubErr err = head(g, file, &m, why, sizeof why);
    if (absent)
        *absent = err == HUB_NOT_FOUND && strcmp(m.code, "RepoNotFound") != 0 &&
                  strcmp(m.code, "RevisionNotFound") != 0;
    if (optional && absent && *absent)
        return 0;
    if (err)
        return say_error(g, file, err, &m, why);
    if (!g->commit[0]) {
        if (!hfcache_is_commit(m.commit))
            return say(1,
                       "%s from %s: no commit of 40 hexadecimal digits (X-Repo-Commit) in "
                       "the answer (is HF_ENDPOINT a Hugging Face hub?)",
                       file, g->endpoint);
        memcpy(g->commit, m.commit, sizeof g->commit);
    }
    return get_file(g, file, &m);
}

/* The weights: model.safetensors, or the index and every shard it lists. */
static int fetch_weights(Get *g)
{
    bool absent;
    int status = fetch(g, "model.safetensors", true, &absent);
    if (status || !absent)
        return status;
    status = fetch(g, "model.safetensors.index.json", true, &absent);
    if (status)
        return status;
    if (absent)
        return say(2,
                   "%s has neither model.safetensors nor model.safetensors.index.json at %s "
                   "(attnviz reads safetensors weights only)",
                   g->id->repo, g->endpoint);
    char path[HF_PATH_MAX], why[512], **files;
    int n;
    snprintf(path, sizeof path, "%s/snapshots/%s/%smodel.safetensors.index.json", g->repo_dir,
             g->commit, g->pre);
    int err = hfmodel_shard_files(path, &files, &n, why, sizeof why);
    if (err)
        return say(av_exit_status(err), "%s", why);
    for (int k = 0; k < n && !status; k++)
        status = fetch(g, files[k], false, NULL);
    for (int k = 0; k < n; k++)
        free(files[k]);
    free(files);
    return status;
}

/* The tokenizer: vocab.json and merges.txt (GPT-2's), or else
 * tokenizer.json, vocab.txt (BERT's WordPiece) and tokenizer_config.json
 * (BERT's do_lower_case), each when the repository has it. */
static int fetch_tokenizer(Get *g)
{
    bool no_vocab, no_merges, no_tok, no_txt, no_conf;
    int status = fetch(g, "vocab.json", true, &no_vocab);
    if (!status)
        status = fetch(g, "merges.txt", true, &no_merges);
    if (status || (!no_vocab && !no_merges))
        return status;
    status = fetch(g, "tokenizer.json", true, &no_tok);
    if (!status)
        status = fetch(g, "vocab.txt", true, &no_txt);
    if (!status)
        status = fetch(g, "tokenizer_config.json", true, &no_conf);
    if (!status && no_tok && no_txt)
        return say(2,
                   "%s has no tokenizer at %s (vocab.json and merges.txt, tokenizer.json or "
                   "vocab.txt)",
                   g->id->repo, g->endpoint);
    return status;
}

/* config.json, or for a sentence-transformers repository without one at
 * its root (older ones: the BERT in "0_BERT/" or "0_Transformer/"),
 * modules.json and the Transformer module's folder named g->pre, its
 * config.json fetched there. */
static int fetch_config(Get *g)
{
    bool no_config, no_modules;
    int status = fetch(g, "config.json", true, &no_config);
    if (status || !no_config)
        return status;
    status = fetch(g, "modules.json", true, &no_modules);
    if (status)
        return status;
    if (no_modules)
        return say(2, "%s has no config.json at %s", g->id->repo, g->endpoint);
    char snap[HF_PATH_MAX], sub[HF_PATH_MAX], why[512];
    snprintf(snap, sizeof snap, "%s/snapshots/%s", g->repo_dir, g->commit);
    int err = hfbert_model_dir(snap, sub, sizeof sub, why, sizeof why);
    if (err)
        return say(av_exit_status(err), "%s: %s", g->id->repo, why);
    size_t at = strlen(snap);
    if (sub[at] == '/' &&
        (size_t)snprintf(g->pre, sizeof g->pre, "%s/", sub + at + 1) >= sizeof g->pre)
        return say(2, "%s: modules.json: the path is too long", g->id->repo);
    if (!g->pre[0])
        return say(2, "%s has no config.json at %s (its modules.json puts the model there)",
                   g->id->repo, g->endpoint);
    return fetch(g, "config.json", false, NULL);
}

/* The config.json just fetched, read as opening the snapshot will read it
 * (a BERT's or a GPT-2's), so that a model attnviz cannot open is said
 * before its weights are fetched, not after. */
static int check_config(const Get *g)
{
    char dir[HF_PATH_MAX], why[512];
    snprintf(dir, sizeof dir, "%s/snapshots/%s/%s", g->repo_dir, g->commit, g->pre);
    char *text;
    size_t len;
    int err = file_read_in(dir, "config.json", HF_MAX_CONFIG_BYTES, &text, &len, why, sizeof why);
    if (err)
        return say(av_exit_status(err), "%s", why);
    if (hfbert_config_is_bert(text, len)) {
        BertConfig bc;
        bool distil;
        err = hfbert_parse_config(text, len, "config.json", &bc, &distil, NULL, why, sizeof why);
    } else {
        Gpt2Config gc;
        err = hfmodel_parse_config(text, len, "config.json", &gc, NULL, why, sizeof why);
    }
    free(text);
    if (err)
        return say(av_exit_status(err), "%s: %s (its weights are not fetched)", g->id->repo, why);
    return 0;
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

/* Download id into the cache at root; snap (size) receives the snapshot. */
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
    Get g = {.id = id};
    const char *e = getenv("HF_ENDPOINT");
    snprintf(g.endpoint, sizeof g.endpoint, "%s", e && *e ? e : DEFAULT_ENDPOINT);
    for (size_t n = strlen(g.endpoint); n > 0 && g.endpoint[n - 1] == '/'; n--)
        g.endpoint[n - 1] = 0;
    if (strncasecmp(g.endpoint, "http://", 7) != 0 && strncasecmp(g.endpoint, "https://", 8) != 0)
        return say(2, "HF_ENDPOINT is '%s': it needs http:// or https:// before the host",
                   g.endpoint);
    if (strpbrk(g.endpoint, "?# ")) /* the files' paths go after it */
        return say(2,
                   "HF_ENDPOINT is '%s': a hub's address has no query, fragment or space "
                   "(https://host or https://host/path)",
                   g.endpoint);
    if (!hfcache_repo_dir(root, id->repo, g.repo_dir, sizeof g.repo_dir))
        return say(1, "the cache's path is too long: %s", root);
    if (!hubget_init())
        return say(1, "libcurl cannot start");
    bool nomem;
    char *token = hubget_token(g.token_said, sizeof g.token_said, &nomem);
    if (nomem)
        return say(1, "out of memory");
    g.net = (HubNet){.endpoint = g.endpoint,
                     .token = token,
                     .head_seconds = env_seconds("HF_HUB_ETAG_TIMEOUT", 10),
                     .stall_seconds = env_seconds("HF_HUB_DOWNLOAD_TIMEOUT", 10),
                     .tries = 5,
                     .bar = isatty(STDERR_FILENO)};
    say(0, "fetching %s (%s) from %s into %s", id->repo, id->rev, g.endpoint, g.repo_dir);
    if (hfcache_is_commit(id->rev))
        memcpy(g.commit, id->rev, sizeof g.commit);
    /* the small files first: a model attnviz cannot open, or one without
     * a tokenizer, is said before hundreds of MB are fetched */
    int status = fetch_config(&g);
    if (!status)
        status = check_config(&g);
    if (!status)
        status = fetch_tokenizer(&g);
    if (!status)
        status = fetch_weights(&g);
    if (!status && !hfcache_is_commit(id->rev) &&
        hfcache_write_ref(g.repo_dir, id->rev, g.commit) != AV_OK)
        status = say(1, "cannot write %s/refs/%s: %s", g.repo_dir, id->rev, strerror(errno));
    free(token);
    if (!status)
        snprintf(snap, size, "%s/snapshots/%s", g.repo_dir, g.commit);
    return status;
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
    if (!ask("%s. Download it%s from %s into %s?", what, size, e && *e ? e : DEFAULT_ENDPOINT,
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
