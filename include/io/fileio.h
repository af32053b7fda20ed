/* fileio.h - whole-file reads and atomic writes.
 *
 * A file attnviz writes appears whole or not at all: the bytes go to a
 * temporary file in the target's folder, are flushed with fsync, and only then
 * renamed (or, for no-clobber, hard-linked) to the final name.
 *
 * The temporary is ".NAME.PID.XXXXXX" beside NAME (PID the writer's process
 * id): one that a killed writer left is removed by the next write of NAME once
 * that process is gone, or said when it cannot be (stale.h).
 */
#ifndef ATTNVIZ_FILEIO_H
#define ATTNVIZ_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The last component of path (path itself when it ends in '/'), for
 * messages that name a file. */
const char *file_base_name(const char *path);

/* Whether name ends with end (".safetensors", "models.Transformer"). */
bool file_name_ends(const char *name, const char *end);

/* Whether path is a regular file (a symbolic link followed). */
bool file_is_regular(const char *path);

/* The first entry of the folder dir, in readdir's order, that take
 * accepts (given its name and the path dir/name), its name into name
 * unless NULL; false when none does or dir cannot be read. */
bool file_first_in(const char *dir, bool (*take)(const char *name, const char *path), char *name,
                   size_t size);

/* open(2) path for reading without waiting for a FIFO's writer, for a
 * reader that refuses anything but a regular file after fstat(2). The
 * descriptor is blocking again and close-on-exec. Returns it, or -1 with
 * errno set. */
int file_open_read(const char *path);

/* Read all of path ("-" is standard input) into a NUL-terminated malloc'd
 * buffer. Returns AV_OK, AV_ERR_IO (errno set), AV_ERR_TOO_LARGE (more than
 * max bytes) or AV_ERR_NOMEM. */
int file_read_all(const char *path, size_t max, char **data, size_t *len);

/* As file_read_all, for a file of a model's folder, which must be a regular
 * file: a folder, FIFO or device in its place is AV_ERR_MODEL, refused
 * without reading it or waiting for a writer. (file_read_all reads what it
 * is given, a FIFO too, as cat(1) would.) */
int file_read_regular(const char *path, size_t max, char **data, size_t *len);

/* file_read_regular of dir/name, with its one line in why when it fails:
 * the path too long, not a regular file, errno's words, or larger than max
 * (whole MB). Returns file_read_regular's codes (AV_ERR_IO with errno kept). */
int file_read_in(const char *dir, const char *name, size_t max, char **data, size_t *len, char *why,
                 size_t whylen);

/* As file_read_all, from an open stream f (not closed here). */
int file_read_stream(FILE *f, size_t max, char **data, size_t *len);

/* Write data[0..len) to path atomically. With no_clobber an existing path is
 * left alone and the call fails with AV_ERR_IO, errno EEXIST. Returns AV_OK,
 * AV_ERR_IO (errno set) or AV_ERR_NOMEM (no room for the temporary file's
 * name); no temporary file is left behind. When path is an
 * existing device, FIFO or socket (/dev/stdout, /dev/null) the bytes are written
 * to it directly, since it cannot be replaced by a rename. */
int file_write_atomic(const char *path, const void *data, size_t len, bool no_clobber);

/* Make path's temporary file, ".NAME.PID.XXXXXX" in path's folder (mode
 * 0600, as mkstemp makes it), after removing the temporaries of NAME that
 * killed writers left there (stale_sweep). Returns its descriptor with its
 * malloc'd name in *tmp, or -1 with errno set (ENOMEM: no room for the name;
 * EISDIR: path names no file) and *tmp NULL. */
int file_temp_open(const char *path, char **tmp);

/* A family of files a writer names anew each time (the interface's exports,
 * "attnviz-head2-20261206-101500.txt"): no later write has the same target,
 * so the family is swept as a whole. */
typedef struct {
    const char *stem;        /* every name starts with it ("attnviz-head") */
    const char *const *exts; /* and ends with one of these ("txt"), NULL-ended */
    const char *what;        /* the family in the note's line ("the exports") */
} FileFamily;

/* Remove from folder parent the temporaries of fam's files
 * (".NAME.PID.XXXXXX", NAME of the family) whose writers are gone, as
 * file_temp_open does for one target; one that a running writer may still
 * be writing is left and said to the note hook (stale.h). */
void file_sweep_family(const char *parent, const FileFamily *fam);

/* A memory stream for building a file before writing it atomically. */
typedef struct {
    char *buf;
    size_t len;
    FILE *f;
} MemFile;

/* Open a memory stream (open_memstream). Returns AV_OK or AV_ERR_NOMEM. */
int memfile_open(MemFile *m);

/* Close the stream, making buf/len valid. Returns AV_OK or AV_ERR_NOMEM. */
int memfile_close(MemFile *m);

void memfile_free(MemFile *m);

#endif
