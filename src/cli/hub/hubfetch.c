/* hubfetch.c - a hub model's files into the Hugging Face cache (hubfetch.h):
 * config.json first (read as opening the snapshot will read it, so that a
 * model attnviz cannot open is said before its weights are fetched), the
 * tokenizer, then the weights (one file or the shards an index lists),
 * each through hubget.h's HEAD and blob, linked from the snapshot, and the
 * ref written last; each failure said in one line with what to do.
 */
#include "hubfetch.h"

#include <errno.h>
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
#include "io/hfbert.h"
#include "io/hfmodel.h"
#include "io/hfshards.h"

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

static long env_seconds(const char *name, long dflt)
{
    const char *v = getenv(name);
    char *end;
    long s = v ? strtol(v, &end, 10) : 0;
    return v && *v && *end == 0 && s > 0 ? s : dflt;
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

int hubfetch_model(const HfId *id, const char *root, char *snap, size_t size)
{
    Get g = {.id = id};
    const char *e = getenv("HF_ENDPOINT");
    snprintf(g.endpoint, sizeof g.endpoint, "%s", e && *e ? e : HUB_DEFAULT_ENDPOINT);
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
