/* hfcache.h - the Hugging Face cache as huggingface_hub lays it out
 * (hfcache.c), read to find a model by its hub id and written by a download.
 *
 *   ROOT/models--ORG--NAME/refs/REVISION       a commit hash (40 hex digits)
 *   ROOT/models--ORG--NAME/snapshots/HASH/FILE a symbolic link to
 *                                             ../../blobs/ETAG
 *   ROOT/models--ORG--NAME/blobs/ETAG          the file's bytes (ETAG: the
 *                                             sha256 of an LFS file, the git
 *                                             object id of a small one)
 *
 * ROOT is hfcache_root's (DESIGN.md "Hub ids and the Hugging Face cache"
 * names three of huggingface_hub's five places; the other two, its older
 * HUGGINGFACE_HUB_CACHE and XDG_CACHE_HOME, find the caches it writes
 * too). Nothing here touches the network or prints.
 */
#ifndef ATTNVIZ_HFCACHE_H
#define ATTNVIZ_HFCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* An organisation, and a name, of at most 96 characters each, as the hub
 * allows: a repo id ORG/NAME and its NUL fit in HF_ID_MAX. */
#define HF_ID_PART_MAX 96
#define HF_ID_MAX (2 * HF_ID_PART_MAX + 2)
#define HF_REV_MAX 256 /* a revision: a branch, a tag or a commit hash */
#define HF_PATH_MAX 4096

/* A model named by its hub id, with an optional @revision. */
typedef struct {
    char repo[HF_ID_MAX]; /* "openai-community/gpt2", or "gpt2" */
    char rev[HF_REV_MAX]; /* "main" when none was given */
} HfId;

/* Parse NAME[@REV]: NAME is ORG/NAME or NAME of letters, digits, '-', '_'
 * and '.', each part at most HF_ID_PART_MAX characters, with neither "--"
 * nor ".." and no part beginning or ending with '-' or '.'; REV is a
 * branch, a tag (may hold '/', never "..") or a commit hash. Returns true
 * when name is such an id (*id filled). */
bool hfcache_parse_id(const char *name, HfId *id);

/* When name would be a hub id (hfcache_parse_id) but for a part longer
 * than HF_ID_PART_MAX: that part's length, *part "organisation" or "name";
 * else 0. */
size_t hfcache_id_too_long(const char *name, const char **part);

/* Whether rev is a commit hash: 40 lower-case hexadecimal digits. */
bool hfcache_is_commit(const char *rev);

/* The cache's root from the environment into buf, as huggingface_hub
 * names it: $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (its older name),
 * else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
 * ~/.cache/huggingface/hub; a leading ~ is $HOME. Returns false when no
 * root can be named (a ~ and no HOME) or it is too long. */
bool hfcache_root(char *buf, size_t size);

/* The variable hfcache_root's root comes from: "HF_HUB_CACHE",
 * "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME" or "HOME". */
const char *hfcache_root_from(void);

/* The file where huggingface_hub's login (`hf auth login`) saves the token,
 * into buf: $HF_TOKEN_PATH, else $HF_HOME/token, else
 * $XDG_CACHE_HOME/huggingface/token, else ~/.cache/huggingface/token (a
 * leading ~ is $HOME); *from the variable that named it ("HF_TOKEN_PATH",
 * "HF_HOME", "XDG_CACHE_HOME", "HOME"). False as hfcache_root. */
bool hfcache_token_path(char *buf, size_t size, const char **from);

/* The names a repo is found under: itself, and the other name of the hub's
 * redirect for the short ids (gpt2 and openai-community/gpt2, distilgpt2 and
 * distilbert/distilgpt2, gpt2-medium, -large, -xl), canonical first. Fills
 * names[0..n) and returns n (1 or 2). */
int hfcache_names(const char *repo, const char *names[2]);

/* Bytes of the files a download of repo fetches, for the known GPT-2 ids
 * (either name); 0 when not known without asking the hub. */
double hfcache_known_size(const char *repo);

/* ROOT/models--ORG--NAME into buf. Returns false when it does not fit. */
bool hfcache_repo_dir(const char *root, const char *repo, char *buf, size_t size);

/* The snapshot of id in the cache at root: for each of its names, the
 * revision's commit (refs/REV, REV itself when it is a commit hash, or the
 * one snapshot REV abbreviates, 7 to 39 hex digits as git prints them) whose
 * snapshots/ folder exists; the first that lacks no file (io/hffolder.h),
 * else the first found. On true, dir holds the snapshot's folder and
 * *found the name it was under (one of hfcache_names). */
bool hfcache_find(const char *root, const HfId *id, char *dir, size_t size, const char **found);

/* The commits of the snapshots in the cache at root, under any of id's
 * names, that id->rev abbreviates (7 to 39 hex digits), each once: the
 * first max of them into hash[0..max), in no order. Returns how many there
 * are (more than max when they did not all fit); 0 when id->rev is no
 * abbreviation. Two or more: the abbreviation is ambiguous, and
 * hfcache_find finds none. */
int hfcache_candidates(const char *root, const HfId *id, char (*hash)[41], int max);

/* The hub id ("ORG/NAME" or "NAME") of the cache's snapshot folder dir
 * (ROOT/models--ORG--NAME/snapshots/COMMIT), into buf; false when dir is
 * not one. */
bool hfcache_repo_of(const char *dir, char *buf, size_t size);

/* ETag header's value as the cache names a blob: "W/" and quotes dropped.
 * Returns false when the rest is empty, too long for out, begins with '.',
 * or holds a character other than letters, digits, '-', '_', '.' and ':'
 * (a '/' would leave blobs/). */
bool hfcache_etag(const char *raw, char *out, size_t size);

/* Make snapshots/COMMIT/FILE in repo_dir a symbolic link to
 * ../../blobs/ETAG (one more ../ per '/' in file), replacing what was there
 * at once (a link made beside it, then renamed). Returns AV_OK or AV_ERR_IO
 * (errno set). */
int hfcache_link(const char *repo_dir, const char *commit, const char *file, const char *etag);

/* Write commit to repo_dir/refs/REV atomically (folders made). Returns AV_OK,
 * AV_ERR_IO (errno set) or AV_ERR_NOMEM. */
int hfcache_write_ref(const char *repo_dir, const char *rev, const char *commit);

/* Lock blob (ROOT/models--ORG--NAME/blobs/ETAG) for writing, as
 * huggingface_hub does around its download: an exclusive flock(2) on
 * ROOT/.locks/models--ORG--NAME/ETAG.lock (its folders made), the lock
 * Python's filelock takes, so that neither writes blobs/ETAG.incomplete
 * while the other does. The lock file's path into path (size). With wait,
 * blocks until the lock is free. Returns AV_OK with *fd holding the lock
 * (close it to release it), else AV_ERR_IO with errno set: EWOULDBLOCK
 * when another holds it and !wait, ENAMETOOLONG when blob is not such a
 * path or the lock's does not fit. */
int hfcache_lock_blob(const char *blob, bool wait, int *fd, char *path, size_t size);

/* Make path's folder and its parents (mkdir -p of all but the last part).
 * Returns AV_OK or AV_ERR_IO (errno set). */
int hfcache_make_parents(const char *path);

/* For a folder inside a cache (.../models--ORG--NAME/snapshots/HASH), the
 * repo's id as the cache names it into buf: ORG/NAME ("user/my-gpt2",
 * "openai-community/gpt2" also when found by the short id "gpt2"), or NAME
 * for a repo cached under a short id (models--gpt2): the name the exports
 * give it (svg_source_name); false for any other folder. */
bool hfcache_model_name(const char *dir, char *buf, size_t size);

/* A model folder's name for the status line into buf: hfcache_model_name's
 * for a cache's snapshot, else the folder's last part ("dir/" its part
 * before). */
void hfcache_display_name(const char *dir, char *buf, size_t size);

#endif
