/* hffolder.c - a Hugging Face folder's files before they are read (hffolder.h). */
#include "io/hffolder.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/fileio.h"

#define LFS_MAGIC "version https://git-lfs.github.com/spec/"
#define LFS_MAX_BYTES 1024 /* a pointer is about 130 bytes */

bool hffolder_is_lfs_pointer(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > LFS_MAX_BYTES)
        return false;
    int fd = file_open_read(path);
    if (fd < 0)
        return false;
    char head[sizeof LFS_MAGIC - 1];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && memcmp(head, LFS_MAGIC, sizeof head) == 0;
}

static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), k = strlen(end);
    return n >= k && strcmp(s + n - k, end) == 0;
}

/* A file of the folder that attnviz reads. */
static bool read_by_attnviz(const char *name)
{
    static const char *const fixed[] = {"config.json",    "vocab.json", "merges.txt",
                                        "tokenizer.json", "vocab.txt",  "tokenizer_config.json",
                                        "model.safetensors.index.json"};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++)
        if (strcmp(name, fixed[k]) == 0)
            return true;
    return ends_with(name, ".safetensors");
}

bool hffolder_lfs_pointer(const char *dir, char *name, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        char path[4096];
        if (!read_by_attnviz(e->d_name) ||
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        if ((found = hffolder_is_lfs_pointer(path)))
            snprintf(name, size, "%s", e->d_name);
    }
    closedir(d);
    return found;
}

static bool has(const char *dir, const char *file)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int add(char *list, size_t size, int n, const char *file)
{
    size_t at = strlen(list);
    snprintf(list + at, size - at, "%s%s", n ? ", " : "", file);
    return n + 1;
}

int hffolder_missing(const char *dir, char *list, size_t size)
{
    int n = 0;
    list[0] = 0;
    if (!has(dir, "config.json"))
        n = add(list, size, n, "config.json");
    if (!has(dir, "model.safetensors") && !has(dir, "model.safetensors.index.json"))
        n = add(list, size, n, "model.safetensors");
    if (!has(dir, "tokenizer.json") && !has(dir, "vocab.txt")) { /* BERT's: either */
        if (!has(dir, "vocab.json"))
            n = add(list, size, n, "vocab.json");
        if (!has(dir, "merges.txt"))
            n = add(list, size, n, "merges.txt");
    }
    return n;
}
