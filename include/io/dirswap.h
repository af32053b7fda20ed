/* dirswap.h - a folder written whole, then swapped in: a reader, or a run
 * killed at any moment, finds either the previous folder or the new one,
 * never a mix.
 *
 * The new folder is written into a hidden sibling (same parent, so a rename
 * moves it), ".NAME.new-PID-XXXXXX", its files and folders fsync'd, then
 * exchanged with NAME in one step (renameat2 RENAME_EXCHANGE) and the
 * previous folder, now under the sibling's name, removed. Where the exchange
 * is not available (an older kernel, a file system without it), NAME is
 * first renamed aside to ".NAME.old-PID-XXXXXX" and the new one renamed into
 * place. A run killed on the way leaves only such siblings: dirswap_begin
 * removes those of processes that no longer run (or whose id a later process
 * took), says those it leaves, and, when NAME is missing while an old one is
 * aside, puts it back (stale.h).
 */
#ifndef ATTNVIZ_DIRSWAP_H
#define ATTNVIZ_DIRSWAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char dir[4096];  /* the folder to replace, as given */
    char tmp[4096];  /* the sibling being written: write the files here */
    int no_exchange; /* for tests: take the two-rename way even where the
                      * exchange works (set after dirswap_begin) */
} DirSwap;

/* Clean up after killed runs, then make the empty sibling s->tmp for dir.
 * Returns AV_OK or AV_ERR_IO (errno set; nothing made). */
int dirswap_begin(DirSwap *s, const char *dir);

/* fsync s->tmp's folders (the files in it must have been fsync'd by their
 * writer, as file_write_atomic and npy_write do), swap it in as s->dir and
 * remove the previous folder. On failure (AV_ERR_IO, errno set) s->dir is as
 * it was and s->tmp is removed. */
int dirswap_commit(DirSwap *s);

/* Give up: remove s->tmp and all it holds. errno is kept. */
void dirswap_abort(DirSwap *s);

/* Remove the folder path and everything in it (files and folders, by
 * descriptor: no symbolic link followed, in it or in its place). A missing
 * path is not an error. Returns AV_OK or AV_ERR_IO (errno set). */
int dirswap_remove_tree(const char *path);

/* Whether a file named name is one of the folder's own (in a layerN
 * subfolder when in_layer): what a save or a dump writes there. */
typedef bool (*DirSwapOwn)(const char *name, bool in_layer);

/* Whether dir, a folder a save or a dump would replace, holds nothing of
 * anyone else's: only files own() names, the temporary files a killed
 * atomic write of one of them left (".NAME.PID.XXXXXX", ".NAME.XXXXXX"),
 * and at the top layerN folders (N > 0) of such files. AV_OK then, or when
 * dir is missing; else AV_ERR_IO, errno ENOTEMPTY (ENOTDIR where dir is a
 * file), the first other entry in which ("notes.md", "mine/",
 * "layer1/x.txt"; "" when none is to blame). */
int dirswap_only(const char *dir, DirSwapOwn own, char *which, size_t whichlen);

#endif
