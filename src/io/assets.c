/* assets.c - finding the files attnviz ships (io/assets.h). */
#include "io/assets.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void asset_exe_dir(char *out, size_t size)
{
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        *slash = '\0';
        snprintf(out, size, "%s", path);
    }
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* dir/rel into out, when it fits and exists. */
static bool found_in(const char *dir, const char *rel, char *out, size_t size)
{
    int n = snprintf(out, size, "%s/%s", dir, rel);
    return n > 0 && (size_t)n < size && exists(out);
}

/* rel in the binary's folder or up to four above it, else in
 * BINDIR/../share/attnviz. */
static bool near_binary(const char *rel, char *out, size_t size)
{
    char dir[4096], share[4200];
    asset_exe_dir(dir, sizeof dir);
    if (!dir[0])
        return false;
    snprintf(share, sizeof share, "%s/../share/attnviz", dir);
    for (int up = 0; up <= 4; up++) {
        if (found_in(dir, rel, out, size))
            return true;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = '\0';
    }
    return found_in(share, rel, out, size);
}

bool asset_find(const char *rel, char *out, size_t size)
{
    if (!exists(rel) && rel[0] != '/' && near_binary(rel, out, size))
        return true;
    int n = snprintf(out, size, "%s", rel);
    return n >= 0 && (size_t)n < size && exists(rel);
}
