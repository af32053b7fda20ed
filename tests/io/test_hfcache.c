/* test_hfcache.c - the Hugging Face cache (hfcache.h) and a folder's files
 * (hffolder.h) on caches laid out by hand the way huggingface_hub writes
 * them: refs/REV holding a commit, snapshots/HASH/FILE linked into blobs/. */
#include "test_common.h"
#include "test_tmp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/hfcache.h"
#include "io/fileio.h"
#include "io/hffolder.h"

#define HASH1 "607a30d783dfa663caf39e06633721c8d4cfcd7e"
#define HASH2 "11c5a3d5811f50298f278a704980280950aedb10"
#define SHA "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"

static void put(const char *path, const char *text)
{
    assert_int_equal(hfcache_make_parents(path), AV_OK);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A repo of the cache at root: refs/main -> hash, its snapshot holding
 * config.json linked into blobs/ by hand, as huggingface_hub makes it. */
static void lay_out(const char *root, const char *dir_name, const char *hash)
{
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s/%s/refs/main", root, dir_name);
    put(p, hash);
    snprintf(p, sizeof p, "%s/%s/blobs/" SHA, root, dir_name);
    put(p, "{\"model_type\": \"gpt2\"}");
    snprintf(p, sizeof p, "%s/%s/snapshots/%s/config.json", root, dir_name, hash);
    assert_int_equal(hfcache_make_parents(p), AV_OK);
    assert_int_equal(symlink("../../blobs/" SHA, p), 0);
    (void)q;
}

static void test_hfcache_parse_ids(void **state)
{
    /* expect: hub ids with and without an organisation and a revision parse;
     * paths, empty parts, "--", ".." and odd characters are not ids */
    (void)state;
    HfId id;
    assert_true(hfcache_parse_id("gpt2", &id));
    assert_string_equal(id.repo, "gpt2");
    assert_string_equal(id.rev, "main");
    assert_true(hfcache_parse_id("openai-community/gpt2-medium@refs/pr/1", &id));
    assert_string_equal(id.repo, "openai-community/gpt2-medium");
    assert_string_equal(id.rev, "refs/pr/1");
    assert_true(hfcache_parse_id("user_1/my.model@" HASH1, &id));
    assert_true(hfcache_is_commit(id.rev));
    assert_false(hfcache_is_commit("main"));
    static const char *const bad[] = {"",       "./gpt2",   "/tmp/gpt2", "a/b/c",      "gpt2/",
                                      "/gpt2",  "a--b",     "a/..",      "-gpt2",      "gpt2.",
                                      "gpt 2",  "gpt2@",    "gpt2@../x", "gpt2@/main", "a@b@c",
                                      "gpt2@.", "gpt2@x/.", "gpt2@./x",  "gpt2@a/./b"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        assert_false(hfcache_parse_id(bad[k], &id));
}

static void test_hfcache_id_lengths(void **state)
{
    /* expect: an organisation and a name of up to 96 characters each parse
     * (some-organisation/ and 90 more); 97 in either is said as too long,
     * with which part; a name bad for another reason is not */
    (void)state;
    char name[256], part96[97], part97[98];
    const char *part = NULL;
    HfId id;
    memset(part96, 'a', 96), part96[96] = 0;
    memset(part97, 'b', 97), part97[97] = 0;
    snprintf(name, sizeof name, "some-organisation/%.90s", part96);
    assert_true(hfcache_parse_id(name, &id));
    assert_string_equal(id.repo, name);
    snprintf(name, sizeof name, "%s/%s@main", part96, part96);
    assert_true(hfcache_parse_id(name, &id));
    assert_int_equal(strlen(id.repo), 193);
    assert_int_equal(hfcache_id_too_long(name, &part), 0);
    snprintf(name, sizeof name, "some-organisation/%s", part97);
    assert_false(hfcache_parse_id(name, &id));
    assert_int_equal(hfcache_id_too_long(name, &part), 97);
    assert_string_equal(part, "name");
    snprintf(name, sizeof name, "%s", part97);
    assert_int_equal(hfcache_id_too_long(name, &part), 97);
    assert_string_equal(part, "name");
    snprintf(name, sizeof name, "%s/gpt2@v1", part97);
    assert_false(hfcache_parse_id(name, &id));
    assert_int_equal(hfcache_id_too_long(name, &part), 97);
    assert_string_equal(part, "organisation");
    snprintf(name, sizeof name, "a b/%s", part97); /* a space: not an id anyway */
    assert_int_equal(hfcache_id_too_long(name, &part), 0);
    snprintf(name, sizeof name, "/tmp/%s", part97); /* a path */
    assert_int_equal(hfcache_id_too_long(name, &part), 0);
}

static void test_hfcache_root_from_environment(void **state)
{
    /* expect: huggingface_hub's order: HF_HUB_CACHE, else
     * HUGGINGFACE_HUB_CACHE, else HF_HOME/hub, else
     * XDG_CACHE_HOME/huggingface/hub, else HOME/.cache/huggingface/hub;
     * empty is unset; a leading ~ is HOME, and without HOME no root;
     * hfcache_root_from names the variable the root came from */
    (void)state;
    static const char *const vars[] = {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                                       "XDG_CACHE_HOME"};
    char buf[256];
    const char *home = getenv("HOME");
    char *saved = home ? strdup(home) : NULL;
    for (int k = 0; k < 4; k++)
        unsetenv(vars[k]);
    setenv("HOME", "/home/t", 1);
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/home/t/.cache/huggingface/hub");
    assert_string_equal(hfcache_root_from(), "HOME");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/xdg/huggingface/hub");
    assert_string_equal(hfcache_root_from(), "XDG_CACHE_HOME");
    setenv("HF_HOME", "~/hf", 1);
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/home/t/hf/hub");
    setenv("HF_HOME", "/data/hf", 1);
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/data/hf/hub");
    assert_string_equal(hfcache_root_from(), "HF_HOME");
    setenv("HUGGINGFACE_HUB_CACHE", "/old/name", 1);
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/old/name");
    setenv("HF_HUB_CACHE", "", 1); /* empty: as if unset */
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/old/name");
    assert_string_equal(hfcache_root_from(), "HUGGINGFACE_HUB_CACHE");
    setenv("HF_HUB_CACHE", "/fast/cache", 1);
    assert_true(hfcache_root(buf, sizeof buf));
    assert_string_equal(buf, "/fast/cache");
    assert_string_equal(hfcache_root_from(), "HF_HUB_CACHE");
    assert_false(hfcache_root(buf, 5)); /* too long for the buffer */
    for (int k = 0; k < 4; k++)
        unsetenv(vars[k]);
    unsetenv("HOME");
    assert_false(hfcache_root(buf, sizeof buf)); /* ~ and no HOME */
    setenv("HF_HOME", "~", 1);
    assert_false(hfcache_root(buf, sizeof buf));
    unsetenv("HF_HOME");
    if (saved)
        setenv("HOME", saved, 1);
    free(saved);
}

static void test_hfcache_token_path_from_environment(void **state)
{
    /* expect: the file `hf auth login` saves, as huggingface_hub names it:
     * HF_TOKEN_PATH, else HF_HOME/token, else
     * XDG_CACHE_HOME/huggingface/token, else HOME/.cache/huggingface/token;
     * empty is unset; a leading ~ is HOME, and the variable is named */
    (void)state;
    static const char *const vars[] = {"HF_TOKEN_PATH", "HF_HOME", "XDG_CACHE_HOME"};
    char buf[256];
    const char *from = NULL, *home = getenv("HOME");
    char *saved = home ? strdup(home) : NULL;
    for (int k = 0; k < 3; k++)
        unsetenv(vars[k]);
    setenv("HOME", "/home/t", 1);
    assert_true(hfcache_token_path(buf, sizeof buf, &from));
    assert_string_equal(buf, "/home/t/.cache/huggingface/token");
    assert_string_equal(from, "HOME");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    assert_true(hfcache_token_path(buf, sizeof buf, &from));
    assert_string_equal(buf, "/xdg/huggingface/token");
    assert_string_equal(from, "XDG_CACHE_HOME");
    setenv("HF_HOME", "~/hf", 1);
    assert_true(hfcache_token_path(buf, sizeof buf, &from));
    assert_string_equal(buf, "/home/t/hf/token");
    assert_string_equal(from, "HF_HOME");
    setenv("HF_TOKEN_PATH", "", 1); /* empty: as if unset */
    assert_true(hfcache_token_path(buf, sizeof buf, &from));
    assert_string_equal(buf, "/home/t/hf/token");
    setenv("HF_TOKEN_PATH", "~/secret/tok", 1);
    assert_true(hfcache_token_path(buf, sizeof buf, &from));
    assert_string_equal(buf, "/home/t/secret/tok");
    assert_string_equal(from, "HF_TOKEN_PATH");
    for (int k = 0; k < 3; k++)
        unsetenv(vars[k]);
    unsetenv("HOME");
    assert_false(hfcache_token_path(buf, sizeof buf, &from)); /* ~ and no HOME */
    if (saved)
        setenv("HOME", saved, 1);
    free(saved);
}

static void test_hfcache_finds_snapshot_through_refs(void **state)
{
    /* expect: refs/main names the snapshot, whose config.json reads through
     * its link into blobs/; a commit hash names a snapshot directly, and so
     * does a unique abbreviation of it; an
     * unknown revision, a ref to a missing snapshot and a missing repo are
     * not found */
    const char *root = tmp_dir(state), *found = NULL;
    char dir[512], want[1024], p[1024];
    lay_out(root, "models--user--tiny", HASH1);
    HfId id;
    assert_true(hfcache_parse_id("user/tiny", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    snprintf(want, sizeof want, "%s/models--user--tiny/snapshots/" HASH1, root);
    assert_string_equal(dir, want);
    assert_string_equal(found, "user/tiny");
    snprintf(p, sizeof p, "%s/config.json", dir);
    assert_int_equal(access(p, R_OK), 0);

    assert_true(hfcache_parse_id("user/tiny@" HASH1, &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_true(hfcache_parse_id("user/tiny@" HASH2, &id)); /* no such snapshot */
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_true(hfcache_parse_id("user/tiny@v1", &id)); /* no refs/v1 */
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));
    snprintf(p, sizeof p, "%s/models--user--tiny/refs/v2", root);
    put(p, HASH2 "\n"); /* a ref to a snapshot that is not there */
    assert_true(hfcache_parse_id("user/tiny@v2", &id));
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));
    snprintf(p, sizeof p, "%s/models--user--tiny/refs/pr/1", root);
    put(p, HASH1 "\n"); /* a revision with a '/', the newline of some writers */
    assert_true(hfcache_parse_id("user/tiny@pr/1", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    /* white space around the hash (spaces, a tab, CR LF) stripped, as
     * huggingface_hub's read_text().strip() */
    static const char *const spaced[] = {"  " HASH1 " \r\n", "\t" HASH1 "\r", "\n" HASH1};
    for (size_t k = 0; k < sizeof spaced / sizeof spaced[0]; k++) {
        snprintf(p, sizeof p, "%s/models--user--tiny/refs/v3", root);
        put(p, spaced[k]);
        assert_true(hfcache_parse_id("user/tiny@v3", &id));
        dir[0] = 0;
        assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
        assert_string_equal(dir, want);
    }
    snprintf(p, sizeof p, "%s/models--user--tiny/refs/v3", root);
    put(p, HASH1 " x\n"); /* something else after the hash: no commit */
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_true(hfcache_parse_id("user/other", &id));
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));

    /* a commit abbreviated as git prints it (7 to 39 hex digits) names the
     * one snapshot it begins; 6 digits, or a prefix of two, name none */
    assert_true(hfcache_parse_id("user/tiny@607a30d", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(dir, want);
    assert_true(hfcache_parse_id("user/tiny@607a30", &id));
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));
    lay_out(root, "models--user--tiny", "607a30d7ffffffffffffffffffffffffffffffff");
    assert_true(hfcache_parse_id("user/tiny@607a30d", &id));
    assert_false(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_true(hfcache_parse_id("user/tiny@607a30d78", &id)); /* unique again */
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(dir, want);
}

static void test_hfcache_candidates_of_an_abbreviation(void **state)
{
    /* expect: the snapshots an abbreviation begins are counted, each once
     * (a short id's two names may hold the same commit), the first max of
     * them given; 6 digits, a branch and a whole commit are no
     * abbreviation */
    const char *root = tmp_dir(state);
    char hash[2][41];
    HfId id;
    lay_out(root, "models--openai-community--gpt2", HASH1);
    lay_out(root, "models--gpt2", HASH1);
    assert_true(hfcache_parse_id("gpt2@607a30d", &id));
    assert_int_equal(hfcache_candidates(root, &id, hash, 2), 1);
    assert_string_equal(hash[0], HASH1);
    lay_out(root, "models--gpt2", "607a30d7ffffffffffffffffffffffffffffffff");
    assert_int_equal(hfcache_candidates(root, &id, hash, 2), 2);
    assert_int_not_equal(strcmp(hash[0], hash[1]), 0);
    assert_int_equal(hfcache_candidates(root, &id, hash, 1), 2); /* more than fit */
    assert_true(hfcache_parse_id("openai-community/gpt2@607a30d78", &id));
    assert_int_equal(hfcache_candidates(root, &id, hash, 2), 1);
    assert_true(hfcache_parse_id("gpt2@607a30", &id));
    assert_int_equal(hfcache_candidates(root, &id, hash, 2), 0);
    assert_true(hfcache_parse_id("gpt2@main", &id));
    assert_int_equal(hfcache_candidates(root, &id, hash, 2), 0);
    assert_true(hfcache_parse_id("gpt2@" HASH1, &id));
    assert_int_equal(hfcache_candidates(root, &id, hash, 2), 0);
}

static void test_hfcache_short_ids_under_either_name(void **state)
{
    /* expect: gpt2 is found under models--openai-community--gpt2 and
     * openai-community/gpt2 under models--gpt2 (an older download); the
     * canonical name comes first; distilgpt2 is distilbert's */
    const char *root = tmp_dir(state), *found = NULL, *names[2];
    char dir[1024];
    HfId id;
    lay_out(root, "models--openai-community--gpt2", HASH1);
    assert_true(hfcache_parse_id("gpt2", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(found, "openai-community/gpt2");
    lay_out(root, "models--gpt2-medium", HASH2);
    assert_true(hfcache_parse_id("openai-community/gpt2-medium", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(found, "gpt2-medium");
    assert_non_null(strstr(dir, "/models--gpt2-medium/snapshots/" HASH2));
    assert_int_equal(hfcache_names("distilgpt2", names), 2);
    assert_string_equal(names[0], "distilbert/distilgpt2");
    assert_int_equal(hfcache_names("user/model", names), 1);
    assert_true(hfcache_known_size("gpt2") > 5e8 && hfcache_known_size("gpt2") < 6e8);
    assert_true(hfcache_known_size("user/model") == 0);
}

static void test_hfcache_writes_the_layout(void **state)
{
    /* expect: a link made by hfcache_link is relative, into ../../blobs/
     * (one ../ more per folder of the file), replaces an older one, and
     * leaves no temporary name; refs/REV holds the commit */
    const char *root = tmp_dir(state);
    char repo[512], p[1024], target[256], *text;
    size_t len;
    assert_true(hfcache_repo_dir(root, "org/m", repo, sizeof repo));
    snprintf(p, sizeof p, "%s/models--org--m", root);
    assert_string_equal(repo, p);
    snprintf(p, sizeof p, "%s/blobs/" SHA, repo);
    put(p, "weights");
    assert_int_equal(hfcache_link(repo, HASH1, "model.safetensors", "old"), AV_OK);
    assert_int_equal(hfcache_link(repo, HASH1, "model.safetensors", SHA), AV_OK);
    snprintf(p, sizeof p, "%s/snapshots/" HASH1 "/model.safetensors", repo);
    ssize_t n = readlink(p, target, sizeof target - 1);
    assert_true(n > 0);
    target[n] = 0;
    assert_string_equal(target, "../../blobs/" SHA);
    assert_int_equal(file_read_all(p, 100, &text, &len), AV_OK);
    assert_string_equal(text, "weights");
    free(text);
    assert_int_equal(hfcache_link(repo, HASH1, "sub/dir/x.json", SHA), AV_OK);
    snprintf(p, sizeof p, "%s/snapshots/" HASH1 "/sub/dir/x.json", repo);
    n = readlink(p, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    assert_string_equal(target, "../../../../blobs/" SHA);
    assert_int_equal(access(p, R_OK), 0);
    assert_int_equal(hfcache_write_ref(repo, "main", HASH1), AV_OK);
    /* the same link and ref again write nothing (a complete cache on a
     * read-only disk): their inodes stay */
    struct stat before, after;
    char ref[1024];
    snprintf(ref, sizeof ref, "%s/refs/main", repo);
    assert_int_equal(lstat(p, &before), 0);
    assert_int_equal(hfcache_link(repo, HASH1, "sub/dir/x.json", SHA), AV_OK);
    assert_int_equal(lstat(p, &after), 0);
    assert_true(before.st_ino == after.st_ino);
    assert_int_equal(stat(ref, &before), 0);
    assert_int_equal(hfcache_write_ref(repo, "main", HASH1), AV_OK);
    assert_int_equal(stat(ref, &after), 0);
    assert_true(before.st_ino == after.st_ino);
    HfId id;
    const char *found;
    char dir[1024];
    assert_true(hfcache_parse_id("org/m", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    snprintf(p, sizeof p, "%s/snapshots/" HASH1, repo);
    assert_string_equal(dir, p);
    DIR *d = opendir(dir);
    struct dirent *e;
    int entries = 0;
    while ((e = readdir(d)))
        entries += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(entries, 2); /* model.safetensors and sub: no temporary link */
    char name[64];
    assert_true(hfcache_model_name(dir, name, sizeof name));
    assert_string_equal(name, "org/m"); /* a fine-tune keeps its owner */
    assert_true(hfcache_model_name("/c/models--openai-community--gpt2/snapshots/" HASH1, name,
                                   sizeof name));
    assert_string_equal(name, "openai-community/gpt2"); /* as the exports say, not "gpt2" */
    assert_true(hfcache_model_name("/c/models--gpt2/snapshots/" HASH1, name, sizeof name));
    assert_string_equal(name, "gpt2");
    assert_false(hfcache_model_name("/tmp/gpt2", name, sizeof name));
}

static void test_hfcache_etag_normalised(void **state)
{
    /* expect: quotes and a weak W/ go; a '/', a leading '.', a space or an
     * empty tag is refused; a server's own tag with '.' and ':' is taken */
    (void)state;
    char e[80];
    assert_true(hfcache_etag("\"" SHA "\"", e, sizeof e));
    assert_string_equal(e, SHA);
    assert_true(hfcache_etag(" W/\"abc-12\" ", e, sizeof e));
    assert_string_equal(e, "abc-12");
    assert_false(hfcache_etag("\"\"", e, sizeof e));
    assert_false(hfcache_etag("\"../x\"", e, sizeof e));
    assert_false(hfcache_etag("\"..\"", e, sizeof e)); /* blobs/.. is the repo's folder */
    assert_false(hfcache_etag("\".hidden\"", e, sizeof e));
    assert_false(hfcache_etag("\"a b\"", e, sizeof e));
    assert_true(hfcache_etag("\"v1.2:5f2b-1a3c\"", e, sizeof e)); /* a mirror's own tag */
    assert_string_equal(e, "v1.2:5f2b-1a3c");
    assert_false(hfcache_etag(SHA, e, 10));
}

static void test_hffolder_lfs_pointer_and_missing(void **state)
{
    /* expect: a Git LFS pointer in place of model.safetensors is named; a
     * snapshot whose link points at a missing blob lacks that file; the
     * missing files are listed, tokenizer.json standing for the two */
    const char *root = tmp_dir(state);
    char p[1024], name[64], list[256];
    snprintf(p, sizeof p, "%s/m/config.json", root);
    put(p, "{}");
    snprintf(p, sizeof p, "%s/m/model.safetensors", root);
    put(p, "version https://git-lfs.github.com/spec/v1\noid sha256:" SHA "\nsize 548105171\n");
    snprintf(p, sizeof p, "%s/m", root);
    assert_true(hffolder_lfs_pointer(p, name, sizeof name));
    assert_string_equal(name, "model.safetensors");
    assert_int_equal(hffolder_missing(p, list, sizeof list), 2);
    assert_string_equal(list, "vocab.json, merges.txt");
    snprintf(p, sizeof p, "%s/m/tokenizer.json", root);
    put(p, "{}");
    snprintf(p, sizeof p, "%s/m/config.json", root);
    unlink(p);
    assert_int_equal(symlink("../blobs/gone", p), 0); /* a dangling link */
    snprintf(p, sizeof p, "%s/m", root);
    assert_int_equal(hffolder_missing(p, list, sizeof list), 1);
    assert_string_equal(list, "config.json");
    snprintf(p, sizeof p, "%s/m/model.safetensors", root);
    put(p, "version 1 but not a pointer");
    snprintf(p, sizeof p, "%s/m", root);
    assert_false(hffolder_lfs_pointer(p, name, sizeof name));
}

/* root/rel holding text. */
static void put_at(const char *root, const char *rel, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    put(p, text);
}

/* The files root/rel lacks (hffolder_missing), ", " between, into list. */
static int missing_at(const char *root, const char *rel, char *list, size_t size)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    return hffolder_missing(p, list, size);
}

static void test_hffolder_missing_by_kind(void **state)
{
    /* expect: a BERT (config.json's model_type) lacks vocab.txt, not GPT-2's
     * two files; a sharded folder lacks the shard its index names and its
     * link lost, not model.safetensors, and shards without their index
     * lack the index */
    const char *root = tmp_dir(state);
    char p[1024], list[256];
    put_at(root, "b/config.json", "{\"model_type\": \"bert\"}");
    put_at(root, "b/model.safetensors", "x");
    assert_int_equal(missing_at(root, "b", list, sizeof list), 1);
    assert_string_equal(list, "vocab.txt");
    put_at(root, "b/vocab.txt", "[PAD]\n");
    assert_int_equal(missing_at(root, "b", list, sizeof list), 0);

    put_at(root, "s/config.json", "{\"model_type\": \"gpt2\"}");
    put_at(root, "s/tokenizer.json", "{}");
    put_at(root, "s/model.safetensors.index.json",
           "{\"metadata\": {}, \"weight_map\": {\"wte.weight\": "
           "\"model-00001-of-00002.safetensors\", \"wpe.weight\": "
           "\"model-00002-of-00002.safetensors\"}}");
    put_at(root, "s/model-00001-of-00002.safetensors", "x");
    snprintf(p, sizeof p, "%s/s/model-00002-of-00002.safetensors", root);
    assert_int_equal(symlink("../blobs/gone", p), 0);
    assert_int_equal(missing_at(root, "s", list, sizeof list), 1);
    assert_string_equal(list, "model-00002-of-00002.safetensors");

    /* shards whose index was lost: the index is what is missing */
    put_at(root, "x/config.json", "{\"model_type\": \"gpt2\"}");
    put_at(root, "x/tokenizer.json", "{}");
    put_at(root, "x/model-00001-of-00002.safetensors", "x");
    put_at(root, "x/model-00002-of-00002.safetensors", "x");
    assert_int_equal(missing_at(root, "x", list, sizeof list), 1);
    assert_string_equal(list, "model.safetensors.index.json");
}

static void test_hfcache_whole_copy_first(void **state)
{
    /* expect: where models--openai-community--gpt2 lacks a file and
     * models--gpt2 (transformers' older download) is whole, gpt2 opens the
     * whole one; with neither whole, the first found; bert-base-uncased is
     * found as google-bert's; a snapshot's folder names its repo */
    const char *root = tmp_dir(state), *found = NULL;
    char dir[1024], p[1024], id_of[128];
    static const char *const files[] = {"model.safetensors", "vocab.json", "merges.txt"};
    HfId id;
    lay_out(root, "models--openai-community--gpt2", HASH1);
    lay_out(root, "models--gpt2", HASH2);
    assert_true(hfcache_parse_id("gpt2", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(found, "openai-community/gpt2"); /* neither whole: the first */
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
        snprintf(p, sizeof p, "%s/models--gpt2/snapshots/" HASH2 "/%s", root, files[k]);
        put(p, "x");
    }
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(found, "gpt2");
    assert_non_null(strstr(dir, "/models--gpt2/snapshots/" HASH2));
    assert_true(hfcache_repo_of(dir, id_of, sizeof id_of));
    assert_string_equal(id_of, "gpt2");
    lay_out(root, "models--google-bert--bert-base-uncased", HASH1);
    assert_true(hfcache_parse_id("bert-base-uncased", &id));
    assert_true(hfcache_find(root, &id, dir, sizeof dir, &found));
    assert_string_equal(found, "google-bert/bert-base-uncased");
    assert_true(hfcache_repo_of(dir, id_of, sizeof id_of));
    assert_string_equal(id_of, "google-bert/bert-base-uncased");
    assert_false(hfcache_repo_of(root, id_of, sizeof id_of));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hfcache_parse_ids),
        cmocka_unit_test(test_hfcache_id_lengths),
        cmocka_unit_test(test_hfcache_root_from_environment),
        cmocka_unit_test(test_hfcache_token_path_from_environment),
        cmocka_unit_test_setup_teardown(test_hfcache_finds_snapshot_through_refs, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfcache_candidates_of_an_abbreviation, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfcache_short_ids_under_either_name, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfcache_writes_the_layout, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_hfcache_etag_normalised),
        cmocka_unit_test_setup_teardown(test_hffolder_missing_by_kind, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfcache_whole_copy_first, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hffolder_lfs_pointer_and_missing, tmp_setup,
                                        tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
