/* fuzz_hfindex.c - libFuzzer harness for a sharded checkpoint's index,
 * model.safetensors.index.json (src/io/hf/hfindex.h, private to the GPT-2
 * folder reader).
 *
 * The input is the index, written into a scratch folder that holds two real
 * shards (a.safetensors with tensors "x" and "y", b.safetensors with "z"), a
 * folder named like a shard (sub.safetensors) and a file outside the folder
 * (../outside.safetensors, a valid shard too). Besides the sanitizers, the
 * harness aborts when hfindex_open's contract breaks: a refusal is a
 * documented code with one line of UTF-8 reason without control characters
 * (C0, DEL, C1) and nothing left open; an accepted
 * index opened only the folder's two regular shards, each once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/io/hf/hfindex.h"
#include "core/av.h"
#include "core/utf8.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_hfindex: invariant broken: %s\n", what);
        abort();
    }
}

/* A shard of float32 scalars named names[0..n), 1.0 each. */
static void write_shard(const char *path, const char *const *names, int n)
{
    char head[256];
    size_t at = 0;
    at += (size_t)snprintf(head + at, sizeof head - at, "{");
    for (int k = 0; k < n; k++)
        at += (size_t)snprintf(head + at, sizeof head - at,
                               "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[%d,%d]}",
                               k ? "," : "", names[k], 4 * k, 4 * k + 4);
    at += (size_t)snprintf(head + at, sizeof head - at, "}");
    uint64_t len = at;
    unsigned char size[8];
    for (int b = 0; b < 8; b++)
        size[b] = (unsigned char)(len >> (8 * b));
    const float one = 1.0f;
    FILE *f = fopen(path, "wb");
    check(f != NULL, "cannot write a shard");
    fwrite(size, 1, 8, f);
    fwrite(head, 1, at, f);
    for (int k = 0; k < n; k++)
        fwrite(&one, 4, 1, f);
    check(fclose(f) == 0, "cannot write a shard");
}

static char top[200], dir[256]; /* the scratch folder, and the model folder in it */

/* At exit: the scratch folder goes (a crash leaves it, for the record). */
static void folder_remove(void)
{
    static const char *const files[] = {"model/a.safetensors", "model/b.safetensors",
                                        "model/model.safetensors.index.json",
                                        "outside.safetensors"};
    char path[300];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", top, files[k]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/model/sub.safetensors", top);
    rmdir(path);
    rmdir(dir);
    rmdir(top);
}

static const char *folder(void)
{
    if (dir[0])
        return dir;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char path[300];
    snprintf(top, sizeof top, "%s/fuzz_hfindex.%ld", base, (long)getpid());
    snprintf(dir, sizeof dir, "%s/model", top);
    check(mkdir(top, 0700) == 0 || access(top, W_OK) == 0, "cannot make the scratch folder");
    check(mkdir(dir, 0700) == 0 || access(dir, W_OK) == 0, "cannot make the scratch folder");
    snprintf(path, sizeof path, "%s/a.safetensors", dir);
    write_shard(path, (const char *const[]){"x", "y"}, 2);
    snprintf(path, sizeof path, "%s/b.safetensors", dir);
    write_shard(path, (const char *const[]){"z"}, 1);
    snprintf(path, sizeof path, "%s/outside.safetensors", top);
    write_shard(path, (const char *const[]){"x", "y", "z"}, 3);
    snprintf(path, sizeof path, "%s/sub.safetensors", dir);
    check(mkdir(path, 0700) == 0 || access(path, W_OK) == 0, "cannot make sub.safetensors");
    atexit(folder_remove);
    return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *model = folder();
    char path[300], why[512] = "";
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", model);
    FILE *f = fopen(path, "wb");
    check(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write the index");
    StFile *sh = (StFile *)&sh; /* must be replaced: NULL on error */
    int n = -1;
    int rc = hfindex_open(model, &sh, &n, why, sizeof why);
    if (rc != AV_OK) {
        check(rc == AV_ERR_IO || rc == AV_ERR_MODEL || rc == AV_ERR_NOMEM, "an undocumented code");
        check(sh == NULL && n == 0, "a refusal left shards");
        check(why[0] != '\0', "a refusal without a reason");
        size_t len = strlen(why);
        check(utf8_valid_prefix(why, len) == len, "a reason that is not UTF-8");
        for (const unsigned char *c = (const unsigned char *)why; *c; c++)
            check(*c >= 0x20 && *c != 0x7f && !(c[0] == 0xc2 && c[1] >= 0x80 && c[1] < 0xa0),
                  "a reason with a control character (C0, DEL or C1)");
        return 0;
    }
    check(sh != NULL && n >= 1 && n <= 2, "an accepted index opened other shards");
    for (int k = 0; k < n; k++) {
        check(strcmp(sh[k].name, "a.safetensors") == 0 || strcmp(sh[k].name, "b.safetensors") == 0,
              "a shard from outside the folder");
        check(k == 0 || strcmp(sh[k].name, sh[0].name) != 0, "a shard opened twice");
        check(st_find(&sh[k], strcmp(sh[k].name, "a.safetensors") == 0 ? "x" : "z") != NULL,
              "a shard without its tensors");
    }
    for (int k = 0; k < n; k++)
        st_close(&sh[k]);
    free(sh);
    return 0;
}
