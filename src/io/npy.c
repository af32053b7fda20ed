/* npy.c - reading and writing NumPy .npy files (format versions 1.0-3.0).
 *
 * The reader parses the header dict itself instead of evaluating it: keys in
 * any order, any spacing, an optional trailing comma, Python 2 "3L" lengths.
 * It accepts '<f4' and '<f8' in C order with 0 to NPY_MAX_DIMS dimensions,
 * checks every size product for overflow, and refuses truncated data and
 * NaN/Inf. Bytes are assembled little-endian by hand, so the code does not
 * depend on the host's byte order. The writer emits version 1.0 '<f4' with the
 * header padded to 64 bytes, as NumPy does, through file_write_atomic.
 */
#include "io/npy.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "io/fileio.h"

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
#define NPY_NAMED_DIMS 8               /* dims of a refused shape kept to name it */
#define NPY_MAX_FILE ((size_t)1 << 31) /* 2 GiB */

typedef struct {
    const char *p, *end;
} Cursor;

typedef struct {
    int have_descr, have_fortran, have_shape;
    int itemsize; /* 4 or 8; 0 for a dtype we refuse */
    int fortran;
    int ndim;                     /* may exceed NPY_MAX_DIMS: refused after parsing */
    size_t shape[NPY_NAMED_DIMS]; /* the first NPY_NAMED_DIMS, to name the shape */
} NpyHeader;

static void skip_ws(Cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int accept(Cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A Python string literal in ' or " quotes, without escapes; copied into out
 * (truncated to cap - 1 bytes; the caller treats long values as unknown). */
static int parse_str(Cursor *c, char *out, size_t cap)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return AV_ERR_NPY_FORMAT;
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (n + 1 < cap)
            out[n++] = *c->p;
        c->p++;
    }
    out[n] = '\0';
    if (c->p >= c->end)
        return AV_ERR_NPY_FORMAT;
    c->p++;
    return AV_OK;
}

static int parse_bool(Cursor *c, int *v)
{
    skip_ws(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
        c->p += 4;
        *v = 1;
        return AV_OK;
    }
    if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
        c->p += 5;
        *v = 0;
        return AV_OK;
    }
    return AV_ERR_NPY_FORMAT;
}

/* A non-negative decimal integer, refusing values that do not fit a size_t. */
static int parse_size(Cursor *c, size_t *v)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return AV_ERR_NPY_FORMAT;
    size_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        size_t d = (size_t)(*c->p++ - '0');
        if (x > (SIZE_MAX - d) / 10)
            return AV_ERR_NPY_FORMAT;
        x = x * 10 + d;
    }
    if (c->p < c->end && *c->p == 'L')
        c->p++; /* Python 2 long literal */
    *v = x;
    return AV_OK;
}

/* "()", "(3,)", "(2, 3)", "(2, 3,)": dims past NPY_NAMED_DIMS are counted only. */
static int parse_shape(Cursor *c, NpyHeader *h)
{
    if (!accept(c, '('))
        return AV_ERR_NPY_FORMAT;
    h->ndim = 0;
    while (!accept(c, ')')) {
        size_t dim;
        if (parse_size(c, &dim) != AV_OK)
            return AV_ERR_NPY_FORMAT;
        if (h->ndim < NPY_NAMED_DIMS)
            h->shape[h->ndim] = dim;
        h->ndim++;
        if (!accept(c, ',')) {
            if (!accept(c, ')'))
                return AV_ERR_NPY_FORMAT;
            break;
        }
    }
    return AV_OK;
}

static int parse_descr(Cursor *c, NpyHeader *h)
{
    char descr[16];
    skip_ws(c);
    if (c->p < c->end && *c->p == '[')
        return AV_ERR_NPY_DTYPE; /* a structured dtype */
    if (parse_str(c, descr, sizeof(descr)) != AV_OK)
        return AV_ERR_NPY_FORMAT;
    h->itemsize = strcmp(descr, "<f4") == 0 ? 4 : strcmp(descr, "<f8") == 0 ? 8 : 0;
    return AV_OK;
}

/* One "key: value" entry of the header dict. */
static int parse_entry(Cursor *c, NpyHeader *h)
{
    char key[32];
    if (parse_str(c, key, sizeof(key)) != AV_OK || !accept(c, ':'))
        return AV_ERR_NPY_FORMAT;
    if (strcmp(key, "descr") == 0 && !h->have_descr) {
        h->have_descr = 1;
        return parse_descr(c, h);
    }
    if (strcmp(key, "fortran_order") == 0 && !h->have_fortran) {
        h->have_fortran = 1;
        return parse_bool(c, &h->fortran);
    }
    if (strcmp(key, "shape") == 0 && !h->have_shape) {
        h->have_shape = 1;
        return parse_shape(c, h);
    }
    return AV_ERR_NPY_FORMAT; /* unknown or repeated key */
}

static int parse_dict(const char *text, size_t len, NpyHeader *h)
{
    Cursor c = {text, text + len};
    int rc;
    memset(h, 0, sizeof(*h));
    if (!accept(&c, '{'))
        return AV_ERR_NPY_FORMAT;
    while (!accept(&c, '}')) {
        if ((rc = parse_entry(&c, h)) != AV_OK)
            return rc;
        if (!accept(&c, ',')) {
            if (!accept(&c, '}'))
                return AV_ERR_NPY_FORMAT;
            break;
        }
    }
    skip_ws(&c);
    if (c.p != c.end || !h->have_descr || !h->have_fortran || !h->have_shape)
        return AV_ERR_NPY_FORMAT;
    if (h->itemsize == 0 || h->fortran)
        return AV_ERR_NPY_DTYPE;
    if (h->ndim > NPY_MAX_DIMS)
        return AV_ERR_NPY_SHAPE;
    return AV_OK;
}

/* Magic, version and header length; *hstart and *hlen locate the dict. */
static int parse_preamble(const unsigned char *buf, size_t len, size_t *hstart, size_t *hlen)
{
    if (len < 10 || memcmp(buf, NPY_MAGIC, NPY_MAGIC_LEN) != 0)
        return AV_ERR_NPY_FORMAT;
    int major = buf[6], minor = buf[7];
    if (minor != 0 || major < 1 || major > 3)
        return AV_ERR_NPY_FORMAT;
    if (major == 1) {
        *hstart = 10;
        *hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    } else {
        if (len < 12)
            return AV_ERR_NPY_FORMAT;
        *hstart = 12;
        *hlen =
            (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    }
    return *hlen <= len - *hstart ? AV_OK : AV_ERR_NPY_FORMAT;
}

/* Little-endian element k of a '<f4' or '<f8' array, as float; 0 if not finite. */
static int load_value(const unsigned char *p, int itemsize, float *out)
{
    uint64_t bits = 0;
    for (int b = itemsize - 1; b >= 0; b--)
        bits = bits << 8 | p[b];
    float f;
    if (itemsize == 4) {
        uint32_t b32 = (uint32_t)bits;
        memcpy(&f, &b32, sizeof(f));
    } else {
        double d;
        memcpy(&d, &bits, sizeof(d));
        f = (float)d; /* a finite double beyond FLT_MAX becomes Inf: refused too */
    }
    *out = f;
    return isfinite(f);
}

/* Product of the shape and the data size in bytes, refusing overflow. */
static int data_size(const NpyHeader *h, size_t *count, size_t *bytes)
{
    size_t n = 1;
    for (int k = 0; k < h->ndim; k++) {
        if (h->shape[k] != 0 && n > SIZE_MAX / h->shape[k])
            return AV_ERR_NPY_FORMAT;
        n *= h->shape[k];
    }
    if (n > SIZE_MAX / (size_t)h->itemsize)
        return AV_ERR_NPY_FORMAT;
    *count = n;
    *bytes = n * (size_t)h->itemsize;
    return AV_OK;
}

int npy_parse(const unsigned char *buf, size_t len, NpyArray *out)
{
    NpyInfo h;
    memset(out, 0, sizeof(*out));
    int rc = npy_parse_header(buf, len, len, &h); /* the data within len, or truncated */
    if (rc != AV_OK)
        return rc;
    const unsigned char *data = buf + h.data_offset;
    /* at least one float, so a successful read never has data == NULL */
    float *dst = malloc(h.count ? h.count * sizeof(float) : sizeof(float));
    if (!dst)
        return AV_ERR_NOMEM;
    for (size_t k = 0; k < h.count; k++) {
        if (!load_value(data + k * (size_t)h.itemsize, h.itemsize, &dst[k])) {
            free(dst);
            return AV_ERR_NPY_NONFINITE;
        }
    }
    out->ndim = h.ndim;
    memcpy(out->shape, h.shape, sizeof(out->shape));
    out->count = h.count;
    out->data = dst;
    return AV_OK;
}

int npy_parse_header(const unsigned char *buf, size_t len, size_t file_len, NpyInfo *out)
{
    size_t hstart, hlen, count, bytes;
    NpyHeader h;
    int rc;
    memset(out, 0, sizeof(*out));
    if ((rc = parse_preamble(buf, len, &hstart, &hlen)) != AV_OK ||
        (rc = parse_dict((const char *)buf + hstart, hlen, &h)) != AV_OK ||
        (rc = data_size(&h, &count, &bytes)) != AV_OK)
        return rc;
    if (file_len < len || bytes > file_len - hstart - hlen)
        return AV_ERR_NPY_FORMAT; /* truncated */
    out->ndim = h.ndim;
    memcpy(out->shape, h.shape, sizeof(out->shape));
    out->count = count;
    out->itemsize = h.itemsize;
    out->data_offset = hstart + hlen;
    return AV_OK;
}

void npy_shape_text(int ndim, const size_t *shape, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return;
    out[0] = '\0';
    n += (size_t)snprintf(out, cap, "(");
    for (int k = 0; k < ndim && n < cap; k++) {
        if (k == NPY_NAMED_DIMS) {
            n += (size_t)snprintf(out + n, cap - n, ", ...");
            break;
        }
        n += (size_t)snprintf(out + n, cap - n, k ? ", %zu" : "%zu", shape[k]);
    }
    if (n < cap)
        snprintf(out + n, cap - n, ndim == 1 ? ",)" : ")");
}

int npy_header_shape(const unsigned char *buf, size_t len, char *out, size_t cap)
{
    size_t hstart, hlen;
    NpyHeader h = {0};
    int rc = parse_preamble(buf, len, &hstart, &hlen);
    if (rc == AV_OK)
        rc = parse_dict((const char *)buf + hstart, hlen, &h);
    if (rc == AV_OK || rc == AV_ERR_NPY_SHAPE) {
        npy_shape_text(h.ndim, h.shape, out, cap);
        return h.ndim;
    }
    if (cap)
        out[0] = '\0';
    return -1;
}

int npy_read(const char *path, NpyArray *out)
{
    struct stat st;
    char *buf;
    size_t len;
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "rb");
    if (!f)
        return AV_ERR_IO;
    /* refuse a huge regular file before reading any of it */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (uintmax_t)st.st_size > (uintmax_t)NPY_MAX_FILE) {
        fclose(f);
        return AV_ERR_TOO_LARGE;
    }
    int rc = file_read_stream(f, NPY_MAX_FILE, &buf, &len);
    fclose(f);
    if (rc != AV_OK)
        return rc;
    rc = npy_parse((const unsigned char *)buf, len, out);
    free(buf);
    return rc;
}

/* The header dict padded with spaces and '\n' so that the data starts at a
 * multiple of NPY_ALIGN bytes. Returns the header length (without preamble). */
static size_t format_header(char *hdr, size_t cap, const char *descr, int ndim, const size_t *shape)
{
    char dims[NPY_MAX_DIMS * 24 + 4] = "";
    size_t n = 0;
    for (int k = 0; k < ndim; k++)
        n += (size_t)snprintf(dims + n, sizeof(dims) - n, k ? ", %zu" : "%zu", shape[k]);
    if (ndim == 1)
        snprintf(dims + n, sizeof(dims) - n, ",");
    size_t hl = (size_t)snprintf(hdr, cap,
                                 "{'descr': '%s', 'fortran_order': False, "
                                 "'shape': (%s), }",
                                 descr, dims);
    size_t total = (10 + hl + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    size_t padded = total - 10;
    assert(padded <= cap && padded > hl);
    memset(hdr + hl, ' ', padded - hl - 1);
    hdr[padded - 1] = '\n';
    return padded;
}

size_t npy_format_header(int ndim, const size_t *shape, unsigned char *buf, size_t cap)
{
    if (ndim < 0 || ndim > NPY_MAX_DIMS || cap < 256)
        return 0;
    size_t hlen = format_header((char *)buf + 10, cap - 10, "<f4", ndim, shape);
    memcpy(buf, NPY_MAGIC "\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xFF);
    buf[9] = (unsigned char)(hlen >> 8);
    return 10 + hlen;
}

/* npy_write of 4-byte elements described by descr ('<f4' or '<i4'). */
static int write_4byte(const char *path, const char *descr, int ndim, const size_t *shape,
                       const void *data)
{
    char hdr[256];
    size_t count = 1;
    if (ndim < 0 || ndim > NPY_MAX_DIMS)
        return AV_ERR_NPY_SHAPE;
    for (int k = 0; k < ndim; k++)
        if (shape[k] == 0)
            count = 0; /* an empty array, whatever its other dimensions (as npy_parse) */
    for (int k = 0; k < ndim && count; k++) {
        /* leave room for the header too, so size below cannot wrap */
        if (count > (SIZE_MAX - 256) / sizeof(float) / shape[k])
            return AV_ERR_NPY_SHAPE;
        count *= shape[k];
    }
    size_t hlen = format_header(hdr, sizeof(hdr), descr, ndim, shape);
    size_t size = 10 + hlen + count * sizeof(float);
    unsigned char *buf = malloc(size);
    if (!buf)
        return AV_ERR_NOMEM;
    memcpy(buf, NPY_MAGIC "\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xFF);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, hdr, hlen);
    unsigned char *p = buf + 10 + hlen;
    for (size_t k = 0; k < count; k++, p += 4) {
        uint32_t bits;
        memcpy(&bits, (const unsigned char *)data + 4 * k, sizeof(bits));
        for (int b = 0; b < 4; b++)
            p[b] = (unsigned char)(bits >> (8 * b));
    }
    int rc = file_write_atomic(path, buf, size, false);
    free(buf);
    return rc;
}

int npy_write(const char *path, int ndim, const size_t *shape, const float *data)
{
    return write_4byte(path, "<f4", ndim, shape, data);
}

int npy_write_int32(const char *path, int ndim, const size_t *shape, const int32_t *data)
{
    return write_4byte(path, "<i4", ndim, shape, data);
}

void npy_free(NpyArray *a)
{
    free(a->data);
    memset(a, 0, sizeof(*a));
}
