/* attnfile.h - attention computed elsewhere: an (L, H, n_q, n_k) or
 * (H, n_q, n_k) .npy array of float32 or float64 (little-endian, C order),
 * memory-mapped read-only (with its token files: attnimport.h).
 *
 * The array is never read whole into memory: attnfile_open maps it and reads
 * the header, attnfile_validate makes one streamed pass over the data (NaN,
 * Inf, negative weights, row sums, causal structure) that drops the pages it
 * has read from resident memory as it goes, and rows are then read from the
 * map on demand (float64 converted on the fly). Where the address space is too
 * small to map the file (ulimit -v below its size), it is read with pread
 * instead, a row at a time: slower, but the same numbers. Errors come back
 * as an AV_ERR_* code and a one-line message (without the "attnviz: "
 * prefix) naming the file and what is wrong with it; nothing here prints.
 */
#ifndef ATTNVIZ_ATTNFILE_H
#define ATTNVIZ_ATTNFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/combine.h"

#define ATTNFILE_SUM_TOL 1e-3   /* a row summing to 1 within this is normalised */
#define ATTNFILE_MAX_LAYERS 256 /* L and H accepted in a file */
#define ATTNFILE_MAX_HEADS 256

typedef struct {
    int L, H, n_q, n_k; /* (H, n_q, n_k) files have L = 1 */
    int ndim;           /* 3 or 4, as in the file */
    int itemsize;       /* 4 (float32) or 8 (float64) */
    char name[128];     /* the file's base name, for messages */
    /* set by attnfile_validate: */
    bool validated;
    bool causal;             /* square, n >= 2, every head's upper triangle exactly 0 */
    size_t bad_rows;         /* rows whose sum is not within ATTNFILE_SUM_TOL of 1 */
    int bad_l, bad_h, bad_i; /* the first such row (0-based), when bad_rows > 0 */
    double bad_sum;          /* and its sum */
    char warning[192];       /* "" or one line for the status line about those rows */
    /* the map (private) */
    bool unmapped; /* no room to map it (ulimit -v): rows are read with pread */
    bool fd_open;  /* fd is open (for pread: always, mapped or not) */
    int fd;
    unsigned char *map;
    size_t map_len;
    size_t data_offset;
} AttnFile;

/* Map path read-only (or, when mmap fails for want of address space, keep
 * it open for pread: af->unmapped) and parse its header. Accepts ndim 3
 * (H, n_q, n_k) and 4 (L, H, n_q, n_k), every dimension at least 1, L and H at most
 * ATTNFILE_MAX_*, n_q and n_k at most AV_MAX_TOKENS. Reads only the header.
 * Returns AV_OK, AV_ERR_IO (cannot open or map: errno set), AV_ERR_NPY_FORMAT,
 * AV_ERR_NPY_DTYPE, AV_ERR_NPY_SHAPE (wrong rank, an empty dimension, too many
 * layers or heads) or AV_ERR_TOO_MANY (more rows or columns than AV_MAX_TOKENS);
 * msg[0..msglen) receives one line. On error *af is closed (attnfile_close is
 * still allowed). */
int attnfile_open(const char *path, AttnFile *af, char *msg, size_t msglen);

/* One streamed pass over the data: refuses NaN and Inf (and float64 values
 * beyond float32's range) with AV_ERR_NPY_NONFINITE and negative weights with
 * AV_ERR_NPY_NEGATIVE, the message naming the first one's layer, head, row
 * and column (1-based); counts rows that do not sum to 1 within
 * ATTNFILE_SUM_TOL (af->bad_rows, af->warning: not an error) and detects
 * causal structure (af->causal). Pages are dropped from resident memory
 * behind the pass (madvise), so a 2.4 GB file validates in well under 800 MB
 * of RSS. Returns AV_OK or one of the two errors; af->validated on AV_OK. */
int attnfile_validate(AttnFile *af, char *msg, size_t msglen);

/* The check of a large file while the interface is up: layer 0 at once
 * (what the first frame shows), the other layers on a thread of their own. */
typedef struct AttnCheck AttnCheck;

#define ATTNFILE_CHECKING 1 /* attnfile_check_poll: the thread is still going */
#define ATTNFILE_BACKGROUND_BYTES ((size_t)256 << 20) /* larger files are checked so */

/* attnfile_validate's pass over layer 0 of af now, then over layers 1..L-1
 * on a thread, which reads af's map through a copy of af (af must stay
 * open, and its map and shape unchanged, until attnfile_check_free). Returns
 * layer 0's error (AV_ERR_NPY_NONFINITE, AV_ERR_NPY_NEGATIVE, AV_ERR_NOMEM,
 * msg set; *out NULL) or AV_OK: af->causal then says layer 0's causal
 * structure, and *out is the running check, or NULL when there is nothing
 * left (one layer; or no thread could start, and the rest was checked here:
 * af->validated either way). */
int attnfile_check_start(AttnFile *af, AttnCheck **out, char *msg, size_t msglen);

/* ATTNFILE_CHECKING while the thread runs; then, every time, the pass's
 * result: AV_OK with af->validated, af->causal (every layer), af->bad_rows and
 * af->warning set as attnfile_validate sets them, or its error with msg set
 * (the first bad value in file order after layer 0). c NULL: AV_OK. Never
 * blocks. */
int attnfile_check_poll(AttnCheck *c, AttnFile *af, char *msg, size_t msglen);

/* Layers checked so far (1..L; 0 for NULL), for a progress line. */
int attnfile_check_layers(const AttnCheck *c);

/* Stop the thread (it notices within a head's rows), wait for it, free c.
 * Accepts NULL. */
void attnfile_check_free(AttnCheck *c);

/* Row i of head h of layer l (n_k weights): a pointer into the map for a
 * mapped float32 file on this little-endian host, else the row converted (or
 * read with pread) into buf (n_k floats, the caller's) and buf returned.
 * Indices must be in range. Safe from several threads. */
const float *attnfile_row(const AttnFile *af, int l, int h, int i, float *buf);

/* Head h of layer l as (n_q, n_k) float32 in the map (no copy), or NULL
 * when the file is float64 or unmapped (use attnfile_head or rows). */
const float *attnfile_head_ptr(const AttnFile *af, int l, int h);

/* Head h of layer l copied into out (n_q, n_k) as float32. */
void attnfile_head(const AttnFile *af, int l, int h, float *out);

/* The file as an AttnSource (combine.h); its release drops a layer's pages
 * from resident memory. Valid while af is open. */
void attnfile_source(const AttnFile *af, AttnSource *src);

/* attnfile_source whose rows are always read with pread into the caller's
 * buffer, never through the map: for a sample of rows scattered over a large
 * file (the interface's pooled views), which through the map would cost a
 * page fault a row and leave pages mapped. The same numbers; no release.
 * Safe from several threads. Valid while af is open. */
void attnfile_source_read(const AttnFile *af, AttnSource *src);

/* Drop layer l's pages (l < 0: the whole map) from resident memory; they are
 * read again from the page cache or the disk when next needed. Nothing to do
 * when unmapped, or for a layer l >= the file's L. */
void attnfile_release(const AttnFile *af, int l);

/* Unmap; accepts a zeroed or closed AttnFile. Leaves it zeroed. */
void attnfile_close(AttnFile *af);

#endif
