/* attnfile.c - imported attention: a memory-mapped .npy array of weights
 * (attnfile.h; its token files join it in attnimport.c).
 *
 * The map is read-only and private; its header goes through npy.h's parser
 * (npy_parse_header), so this file knows nothing of the .npy header syntax.
 * Validation walks the data once in file order, row by row: a fast pass per
 * row (eight lanes of sums and an OR of sign bits, which the compiler can
 * vectorise) and, only for a suspicious row, a slow pass that finds and
 * classifies the first bad value. Behind the pass the map's pages are
 * dropped from resident memory every ATTNFILE_RELEASE bytes (MADV_DONTNEED
 * on a read-only file map only unmaps clean page-cache pages), and
 * MADV_SEQUENTIAL asks the kernel to read ahead.
 */
#include "io/attnfile.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/fileio.h"
#include "io/npy.h"
#include "io/tokfile.h"

#define ATTNFILE_RELEASE ((size_t)32 << 20) /* bytes validated between releases */
#define ATTNFILE_BLOCK ((size_t)1 << 20)    /* bytes of rows read at once, unmapped */
#define ATTNFILE_HEADER_MAX 65536           /* header bytes read when the file is not mapped */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ATTNFILE_LE 1
#else
#define ATTNFILE_LE 0
#endif

static int fail_msg(int rc, char *msg, size_t msglen, const char *fmt, const char *name,
                    const char *what)
{
    snprintf(msg, msglen, fmt, name, what);
    return rc;
}

/* Dimensions of the header into af, or an error with its message. */
/* The one line for an array of another rank than 3 or 4, naming its shape. */
static int rank_msg(const char *name, int ndim, const char *shape, char *msg, size_t msglen)
{
    snprintf(msg, msglen, "%s: shape %s has %d dimension%s; attention is (L, H, n, n) or (H, n, n)",
             name, shape, ndim, ndim == 1 ? "" : "s");
    return AV_ERR_NPY_SHAPE;
}

static int take_shape(AttnFile *af, const NpyInfo *info, const char *name, char *msg, size_t msglen)
{
    size_t d[4] = {1, 0, 0, 0};
    if (info->ndim != 3 && info->ndim != 4) {
        char shape[128];
        npy_shape_text(info->ndim, info->shape, shape, sizeof shape);
        return rank_msg(name, info->ndim, shape, msg, msglen);
    }
    memcpy(d + 4 - info->ndim, info->shape, (size_t)info->ndim * sizeof(size_t));
    for (int k = 0; k < 4; k++)
        if (d[k] == 0)
            return fail_msg(AV_ERR_NPY_SHAPE, msg, msglen, "%s: %s", name,
                            "the array has an empty dimension");
    if (d[0] > ATTNFILE_MAX_LAYERS || d[1] > ATTNFILE_MAX_HEADS) {
        snprintf(msg, msglen, "%s: %zu layers and %zu heads; at most %d of each", name, d[0], d[1],
                 ATTNFILE_MAX_LAYERS);
        return AV_ERR_NPY_SHAPE;
    }
    if (d[2] > AV_MAX_TOKENS || d[3] > AV_MAX_TOKENS) {
        snprintf(msg, msglen, "%s: (%zu, %zu) weights per head; at most %d tokens", name, d[2],
                 d[3], AV_MAX_TOKENS);
        return AV_ERR_TOO_MANY;
    }
    af->ndim = info->ndim;
    af->L = (int)d[0];
    af->H = (int)d[1];
    af->n_q = (int)d[2];
    af->n_k = (int)d[3];
    af->itemsize = info->itemsize;
    af->data_offset = info->data_offset;
    return AV_OK;
}

/* The line for a header npy_parse_header refused for its number of
 * dimensions (past NPY_MAX_DIMS), naming the shape read from buf. */
static int shape_refused(const char *name, const unsigned char *buf, size_t len, char *msg,
                         size_t msglen)
{
    char shape[128];
    int ndim = npy_header_shape(buf, len, shape, sizeof shape);
    if (ndim < 0)
        return fail_msg(AV_ERR_NPY_SHAPE, msg, msglen, "%s: %s", name,
                        av_strerror(AV_ERR_NPY_SHAPE));
    return rank_msg(name, ndim, shape, msg, msglen);
}

/* Map the file whole, or, when the address space is too small for that
 * (ulimit -v), keep fd and read rows with pread; then parse the header.
 * Closes fd unless it is kept. */
static int map_or_read(AttnFile *af, int fd, const char *path, NpyInfo *info, char *msg,
                       size_t msglen)
{
    void *map = mmap(NULL, af->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    int rc;
    if (map != MAP_FAILED) {
        af->fd = fd; /* kept for attnfile_source_read */
        af->fd_open = true;
        af->map = map;
        rc = npy_parse_header(af->map, af->map_len, af->map_len, info);
        if (rc == AV_ERR_NPY_SHAPE)
            return shape_refused(af->name, af->map, af->map_len, msg, msglen);
    } else if (errno == ENOMEM) {
        af->unmapped = true;
        af->fd = fd;
        af->fd_open = true;
        unsigned char head[ATTNFILE_HEADER_MAX];
        size_t want = af->map_len < sizeof head ? af->map_len : sizeof head;
        ssize_t got = pread(fd, head, want, 0);
        if (got < 0)
            return fail_msg(AV_ERR_IO, msg, msglen, "%s: %s", path, strerror(errno));
        rc = npy_parse_header(head, (size_t)got, af->map_len, info);
        if (rc == AV_ERR_NPY_SHAPE)
            return shape_refused(af->name, head, (size_t)got, msg, msglen);
    } else {
        int e = errno;
        close(fd);
        errno = e;
        return fail_msg(AV_ERR_IO, msg, msglen, "%s: %s", path, strerror(e));
    }
    if (rc != AV_OK)
        fail_msg(rc, msg, msglen, "%s: %s", af->name, av_strerror(rc));
    return rc;
}

int attnfile_open(const char *path, AttnFile *af, char *msg, size_t msglen)
{
    const char *name = file_base_name(path);
    struct stat st;
    NpyInfo info;
    memset(af, 0, sizeof(*af));
    int fd = file_open_read(path);
    if (fd < 0)
        return fail_msg(AV_ERR_IO, msg, msglen, "%s: %s", path, strerror(errno));
    int bad = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? ENODEV : 0;
    if (bad) {
        close(fd);
        errno = bad;
        return fail_msg(AV_ERR_IO, msg, msglen, "%s: %s", path,
                        bad == ENODEV ? "not a regular file (it must be mapped)" : strerror(bad));
    }
    if (st.st_size < 10) {
        close(fd);
        return fail_msg(AV_ERR_NPY_FORMAT, msg, msglen, "%s: %s", name,
                        av_strerror(AV_ERR_NPY_FORMAT));
    }
    snprintf(af->name, sizeof af->name, "%s", name);
    af->map_len = (size_t)st.st_size;
    int rc = map_or_read(af, fd, path, &info, msg, msglen);
    if (rc == AV_OK)
        rc = take_shape(af, &info, name, msg, msglen);
    if (rc != AV_OK)
        attnfile_close(af);
    return rc;
}

/* Byte offset of row i of head h of layer l in the map. */
static size_t row_offset(const AttnFile *af, int l, int h, int i)
{
    size_t row = ((size_t)l * (size_t)af->H + (size_t)h) * (size_t)af->n_q + (size_t)i;
    return af->data_offset + row * (size_t)af->n_k * (size_t)af->itemsize;
}

static void load_row(const unsigned char *p, int n, int itemsize, float *out)
{
    if (itemsize == 4) {
        if (ATTNFILE_LE) {
            memcpy(out, p, (size_t)n * 4);
            return;
        }
        for (int j = 0; j < n; j++, p += 4) {
            uint32_t b =
                (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            memcpy(&out[j], &b, 4);
        }
        return;
    }
    for (int j = 0; j < n; j++, p += 8) {
        double d;
        if (ATTNFILE_LE) {
            memcpy(&d, p, 8);
        } else {
            uint64_t b = 0;
            for (int k = 7; k >= 0; k--)
                b = b << 8 | p[k];
            memcpy(&d, &b, 8);
        }
        out[j] = (float)d;
    }
}

/* The value at p as a double, whatever the host's byte order. */
static double load_value(const unsigned char *p, int itemsize)
{
    uint64_t b = 0;
    for (int k = itemsize - 1; k >= 0; k--)
        b = b << 8 | p[k];
    if (itemsize == 8) {
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    uint32_t b32 = (uint32_t)b;
    float f;
    memcpy(&f, &b32, 4);
    return f;
}

/* n values from byte offset off of the file as floats into out: from the
 * map, or by pread in chunks (a failed read gives zeros: the file was
 * checked whole when opened, so only an I/O error or a file cut short since
 * can do that). */
static void pread_values(const AttnFile *af, size_t off, size_t n, float *out);

static void read_values(const AttnFile *af, size_t off, size_t n, float *out)
{
    if (!af->unmapped) {
        load_row(af->map + off, (int)n, af->itemsize, out);
        return;
    }
    pread_values(af, off, n, out);
}

/* read_values with pread whether mapped or not. */
static void pread_values(const AttnFile *af, size_t off, size_t n, float *out)
{
    if (ATTNFILE_LE && af->itemsize == 4) { /* straight into out */
        size_t bytes = n * 4, got = 0;
        while (got < bytes) {
            ssize_t r = pread(af->fd, (char *)out + got, bytes - got, (off_t)(off + got));
            if (r <= 0 && !(r < 0 && errno == EINTR))
                break;
            got += r > 0 ? (size_t)r : 0;
        }
        if (got < bytes)
            memset((char *)out + got, 0, bytes - got);
        return;
    }
    unsigned char chunk[4096];
    size_t per = sizeof chunk / (size_t)af->itemsize;
    for (size_t k = 0; k < n; k += per) {
        size_t m = n - k < per ? n - k : per, bytes = m * (size_t)af->itemsize;
        ssize_t got = pread(af->fd, chunk, bytes, (off_t)(off + k * (size_t)af->itemsize));
        if (got != (ssize_t)bytes)
            memset(chunk, 0, bytes);
        load_row(chunk, (int)m, af->itemsize, out + k);
    }
}

/* The value at byte offset off as a double, as stored (float32 or float64). */
static double read_raw(const AttnFile *af, size_t off)
{
    unsigned char v[8] = {0};
    if (!af->unmapped)
        memcpy(v, af->map + off, (size_t)af->itemsize);
    else if (pread(af->fd, v, (size_t)af->itemsize, (off_t)off) != af->itemsize)
        memset(v, 0, sizeof v);
    return load_value(v, af->itemsize);
}

static bool in_place(const AttnFile *af)
{
    return ATTNFILE_LE && !af->unmapped && af->itemsize == 4 &&
           af->data_offset % sizeof(float) == 0;
}

const float *attnfile_row(const AttnFile *af, int l, int h, int i, float *buf)
{
    if (in_place(af))
        return (const float *)(const void *)(af->map + row_offset(af, l, h, i));
    read_values(af, row_offset(af, l, h, i), (size_t)af->n_k, buf);
    return buf;
}

const float *attnfile_head_ptr(const AttnFile *af, int l, int h)
{
    if (!in_place(af))
        return NULL;
    return (const float *)(const void *)(af->map + row_offset(af, l, h, 0));
}

void attnfile_head(const AttnFile *af, int l, int h, float *out)
{
    read_values(af, row_offset(af, l, h, 0), (size_t)af->n_q * (size_t)af->n_k, out);
}

/* madvise over the pages wholly inside map[from, to). */
static void advise(const AttnFile *af, size_t from, size_t to, int advice)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t a = (from + page - 1) / page * page, b = to / page * page;
    if (!af->map)
        return; /* read with pread: nothing mapped to advise */
    if (b > a)
        madvise(af->map + a, b - a, advice);
}

void attnfile_release(const AttnFile *af, int l)
{
    if (!af->map || l >= af->L) /* a layer the file has not (keys of a burst set it) */
        return;
    if (l < 0) {
        advise(af, 0, af->map_len, MADV_DONTNEED);
        return;
    }
    /* whole pages only: a page shared with the next layer stays */
    advise(af, row_offset(af, l, 0, 0),
           row_offset(af, l, af->H - 1, af->n_q - 1) + (size_t)af->n_k * (size_t)af->itemsize,
           MADV_DONTNEED);
}

static const float *source_row(const void *ctx, int l, int h, int i, float *buf)
{
    return attnfile_row(ctx, l, h, i, buf);
}

static void source_release(const void *ctx, int l)
{
    attnfile_release(ctx, l);
}

void attnfile_source(const AttnFile *af, AttnSource *src)
{
    *src = (AttnSource){af->L, af->H, af->n_q, af->n_k, source_row, source_release, af};
}

static const float *source_read_row(const void *ctx, int l, int h, int i, float *buf)
{
    const AttnFile *af = ctx;
    pread_values(af, row_offset(af, l, h, i), (size_t)af->n_k, buf);
    return buf;
}

void attnfile_source_read(const AttnFile *af, AttnSource *src)
{
    *src = (AttnSource){af->L, af->H, af->n_q, af->n_k, source_read_row, NULL, af};
}

void attnfile_close(AttnFile *af)
{
    if (af->map)
        munmap(af->map, af->map_len);
    if (af->fd_open)
        close(af->fd);
    memset(af, 0, sizeof(*af));
}

/* The sum of x[0..n) in eight lanes, and whether any value has its sign bit
 * set (a negative number, -0 or -NaN); NaN and Inf make the sum non-finite. */
static float row_scan(const float *x, int n, int *sign)
{
    float acc[8] = {0};
    uint32_t bits[8] = {0};
    int j = 0;
    for (; j + 8 <= n; j += 8) {
        for (int k = 0; k < 8; k++) {
            uint32_t b;
            memcpy(&b, &x[j + k], 4);
            acc[k] += x[j + k];
            bits[k] |= b;
        }
    }
    for (; j < n; j++) {
        uint32_t b;
        memcpy(&b, &x[j], 4);
        acc[0] += x[j];
        bits[0] |= b;
    }
    uint32_t all = 0;
    for (int k = 0; k < 8; k++)
        all |= bits[k];
    *sign = (all >> 31) != 0;
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* Whether x[from..n) are all +0 or -0. */
static int all_zero(const float *x, int from, int n)
{
    uint32_t any = 0;
    for (int j = from; j < n; j++) {
        uint32_t b;
        memcpy(&b, &x[j], 4);
        any |= b & 0x7FFFFFFFu;
    }
    return any == 0;
}

/* Column of the first non-finite (as float32) or negative value of the row
 * at byte offset off, or -1; *nonfinite tells which (2: a finite positive
 * float64 beyond float32's range, *value it). Reads the file's own values: a
 * float64 of -1e-300 is negative though it rounds to -0.0f. */
static int first_bad(const AttnFile *af, size_t off, int *nonfinite, double *value)
{
    for (int j = 0; j < af->n_k; j++) {
        double v = read_raw(af, off + (size_t)j * (size_t)af->itemsize);
        if (!isfinite((float)v)) {
            *nonfinite = !isfinite(v) ? 1 : v < 0 ? 0 : 2; /* -1e300: negative */
            *value = v;
            return j;
        }
        if (v < 0) {
            *nonfinite = 0;
            return j;
        }
    }
    return -1;
}

static void note_sum(AttnFile *af, int l, int h, int i, double sum)
{
    if (fabs(sum - 1.0) <= ATTNFILE_SUM_TOL)
        return;
    if (af->bad_rows++ == 0) {
        af->bad_l = l;
        af->bad_h = h;
        af->bad_i = i;
        af->bad_sum = sum;
    }
}

/* Check one row; AV_OK or an error with its message. */
static int check_row(AttnFile *af, int l, int h, int i, const float *x, const char *name, char *msg,
                     size_t msglen)
{
    int sign, nonfinite = 0;
    double v = 0;
    float sum = row_scan(x, af->n_k, &sign);
    if (sign || !isfinite(sum)) {
        int j = first_bad(af, row_offset(af, l, h, i), &nonfinite, &v);
        if (j >= 0 && nonfinite == 2)
            snprintf(msg, msglen,
                     "%s: %g at layer %d, head %d, row %d, column %d is finite but beyond "
                     "float32's range (a weight is at most 1)",
                     name, v, l + 1, h + 1, i + 1, j + 1);
        else if (j >= 0)
            snprintf(msg, msglen, "%s: %s at layer %d, head %d, row %d, column %d", name,
                     nonfinite ? "NaN or Inf" : "a negative weight", l + 1, h + 1, i + 1, j + 1);
        if (j >= 0)
            return nonfinite ? AV_ERR_NPY_NONFINITE : AV_ERR_NPY_NEGATIVE;
    }
    note_sum(af, l, h, i, sum);
    if (af->causal && !all_zero(x, i + 1, af->n_k))
        af->causal = false;
    return AV_OK;
}

static void make_warning(AttnFile *af)
{
    size_t rows = (size_t)af->L * (size_t)af->H * (size_t)af->n_q;
    char line[512] = "";
    if (af->bad_rows)
        snprintf(line, sizeof line,
                 "%s: %zu of %zu rows do not sum to 1 (first: layer %d, "
                 "head %d, row %d sums to %.4g)",
                 af->name, af->bad_rows, rows, af->bad_l + 1, af->bad_h + 1, af->bad_i + 1,
                 af->bad_sum);
    memcpy(af->warning, line, sizeof af->warning - 1);
    af->warning[sizeof af->warning - 1] = '\0';
}

/* Start a pass: no row counted yet, causal until a row says otherwise. */
static void validate_begin(AttnFile *af)
{
    af->bad_rows = 0;
    af->causal = af->n_q == af->n_k && af->n_q >= 2;
    af->validated = false;
}

/* Check layers [l0, l1) in file order; stops early (AV_OK, *stopped) when
 * stop is set. Returns AV_OK or the first bad value's error with msg. */
static int validate_layers(AttnFile *af, int l0, int l1, const atomic_int *stop,
                           atomic_int *layers_done, char *msg, size_t msglen)
{
    /* unmapped, rows are read ATTNFILE_BLOCK bytes at a time, not one by one */
    int block = af->unmapped ? (int)(ATTNFILE_BLOCK / ((size_t)af->n_k * sizeof(float))) : 1;
    block = block < 1 ? 1 : block > af->n_q ? af->n_q : block;
    float *buf = malloc((size_t)block * (size_t)af->n_k * sizeof(float));
    if (!buf)
        return fail_msg(AV_ERR_NOMEM, msg, msglen, "%s: %s", af->name, av_strerror(AV_ERR_NOMEM));
    size_t page = (size_t)sysconf(_SC_PAGESIZE), from = row_offset(af, l0, 0, 0);
    size_t released = from / page * page;
    advise(af, from, row_offset(af, l1 - 1, af->H - 1, af->n_q - 1), MADV_SEQUENTIAL);
    int rc = AV_OK;
    for (int l = l0; l < l1 && rc == AV_OK; l++) {
        for (int h = 0; h < af->H && rc == AV_OK && !(stop && atomic_load(stop)); h++) {
            for (int i = 0; i < af->n_q && rc == AV_OK; i++) {
                const float *x;
                if (block > 1) {
                    int k = i % block, rows = af->n_q - (i - k) < block ? af->n_q - (i - k) : block;
                    if (k == 0)
                        read_values(af, row_offset(af, l, h, i), (size_t)rows * af->n_k, buf);
                    x = buf + (size_t)k * af->n_k;
                } else {
                    x = attnfile_row(af, l, h, i, buf);
                }
                rc = check_row(af, l, h, i, x, af->name, msg, msglen);
            }
            size_t done = row_offset(af, l, h, af->n_q - 1) + (size_t)af->n_k * af->itemsize;
            if (done - released >= ATTNFILE_RELEASE) {
                advise(af, released, done, MADV_DONTNEED);
                released = done / page * page;
            }
        }
        if (layers_done && rc == AV_OK && !(stop && atomic_load(stop)))
            atomic_store(layers_done, l + 1);
    }
    advise(af, from,
           row_offset(af, l1 - 1, af->H - 1, af->n_q - 1) + (size_t)af->n_k * af->itemsize,
           MADV_DONTNEED);
    advise(af, 0, af->map_len, MADV_NORMAL);
    free(buf);
    return rc;
}

/* End a pass: the warning, or no causal claim after an error. */
static int validate_end(AttnFile *af, int rc)
{
    if (rc != AV_OK) {
        af->causal = false;
        return rc;
    }
    make_warning(af);
    af->validated = true;
    return AV_OK;
}

int attnfile_validate(AttnFile *af, char *msg, size_t msglen)
{
    validate_begin(af);
    return validate_end(af, validate_layers(af, 0, af->L, NULL, NULL, msg, msglen));
}

/* ---- the pass on a thread, for the interface ---- */

struct AttnCheck {
    pthread_t thread;
    AttnFile af;         /* the thread's copy: its counters, the same map */
    atomic_int stop;     /* set by attnfile_check_free */
    atomic_int finished; /* the thread is done: rc and msg are its */
    atomic_int layers;   /* layers checked, 0..L */
    int rc;
    char msg[512];
};

static void *check_main(void *arg)
{
    AttnCheck *c = arg;
    c->rc = validate_layers(&c->af, 1, c->af.L, &c->stop, &c->layers, c->msg, sizeof c->msg);
    atomic_store(&c->finished, 1);
    return NULL;
}

int attnfile_check_start(AttnFile *af, AttnCheck **out, char *msg, size_t msglen)
{
    *out = NULL;
    validate_begin(af);
    int rc = validate_layers(af, 0, af->L < 1 ? af->L : 1, NULL, NULL, msg, msglen);
    if (rc != AV_OK || af->L == 1)
        return validate_end(af, rc);
    AttnCheck *c = calloc(1, sizeof *c);
    if (c) {
        c->af = *af;
        atomic_init(&c->stop, 0);
        atomic_init(&c->finished, 0);
        atomic_init(&c->layers, 1);
    }
    if (!c || pthread_create(&c->thread, NULL, check_main, c) != 0) {
        free(c); /* no thread: the rest now */
        return validate_end(af, validate_layers(af, 1, af->L, NULL, NULL, msg, msglen));
    }
    *out = c;
    return AV_OK;
}

int attnfile_check_layers(const AttnCheck *c)
{
    return c ? atomic_load(&((AttnCheck *)(uintptr_t)c)->layers) : 0;
}

int attnfile_check_poll(AttnCheck *c, AttnFile *af, char *msg, size_t msglen)
{
    if (!c)
        return AV_OK;
    if (!atomic_load(&c->finished))
        return ATTNFILE_CHECKING;
    if (c->rc != AV_OK) {
        snprintf(msg, msglen, "%s", c->msg);
        return c->rc;
    }
    af->bad_rows = c->af.bad_rows;
    af->bad_l = c->af.bad_l, af->bad_h = c->af.bad_h, af->bad_i = c->af.bad_i;
    af->bad_sum = c->af.bad_sum;
    af->causal = c->af.causal;
    return validate_end(af, AV_OK);
}

void attnfile_check_free(AttnCheck *c)
{
    if (!c)
        return;
    atomic_store(&c->stop, 1);
    pthread_join(c->thread, NULL);
    free(c);
}
