/* safetensors.c - the safetensors reader (safetensors.h): the header's JSON
 * through json.h, straight from the map; every number checked before it is
 * used (sizes in uint64_t with overflow checks); then two sorts of the
 * tensors, by name (duplicates, and st_find's binary search) and by byte
 * range (holes and overlaps). It knows nothing of GPT-2 (hfmodel.c does).
 */
#include "io/safetensors.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "core/utf8.h"
#include "io/fileio.h"
#include "io/json.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ST_LE 1
#else
#define ST_LE 0
#endif

#define ST_MAX_INT 9007199254740992.0 /* 2^53: larger numbers are not exact as doubles */

static const struct {
    const char *name;
    int size;
} dtypes[ST_NDTYPES] = {
    [ST_BOOL] = {"BOOL", 1},       [ST_U8] = {"U8", 1},           [ST_I8] = {"I8", 1},
    [ST_F8_E5M2] = {"F8_E5M2", 1}, [ST_F8_E4M3] = {"F8_E4M3", 1}, [ST_I16] = {"I16", 2},
    [ST_U16] = {"U16", 2},         [ST_F16] = {"F16", 2},         [ST_BF16] = {"BF16", 2},
    [ST_I32] = {"I32", 4},         [ST_U32] = {"U32", 4},         [ST_F32] = {"F32", 4},
    [ST_F64] = {"F64", 8},         [ST_I64] = {"I64", 8},         [ST_U64] = {"U64", 8},
};

const char *st_dtype_name(int dtype)
{
    return dtype >= 0 && dtype < ST_NDTYPES ? dtypes[dtype].name : "?";
}

int st_dtype_size(int dtype)
{
    return dtype >= 0 && dtype < ST_NDTYPES ? dtypes[dtype].size : 0;
}

/* The parse of one header: the JSON cursor, the tensors so far, and the
 * tensor being read (named in messages). */
typedef struct {
    Json j;
    char jwhy[200];
    StFile *f;
    int cap;
    const char *tensor;
    uint64_t data_len;
} Parse;

/* A failure about the current tensor (or the header); the first one wins. */
static int pfail(Parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pfail(Parse *p, const char *fmt, ...)
{
    if (!p->j.err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->jwhy, sizeof p->jwhy, fmt, ap);
        va_end(ap);
        p->j.err = AV_ERR_MODEL;
    }
    return p->j.err;
}

/* A whole number from 0 to 2^53. */
static int take_u64(Parse *p, const char *what, uint64_t *out)
{
    double v;
    if (json_number(&p->j, what, &v))
        return p->j.err;
    if (v < 0 || v > ST_MAX_INT || v != (double)(uint64_t)v)
        return pfail(p, "%s holds %.17g, not a whole number from 0 to 2^53", what, v);
    *out = (uint64_t)v;
    return AV_OK;
}

static int take_dtype(Parse *p, StTensor *t)
{
    char *s;
    if (json_string(&p->j, &s))
        return p->j.err;
    t->dtype = -1;
    for (int k = 0; k < ST_NDTYPES; k++)
        if (strcmp(s, dtypes[k].name) == 0)
            t->dtype = k;
    if (t->dtype < 0)
        pfail(p, "unknown dtype \"%s\"", st_printable((char[48]){0}, 48, s));
    free(s);
    return p->j.err;
}

static int take_shape(Parse *p, StTensor *t)
{
    if (!json_eat(&p->j, '['))
        return pfail(p, "\"shape\" is not a list");
    t->ndim = 0;
    t->count = 1;
    if (json_eat(&p->j, ']'))
        return AV_OK;
    do {
        uint64_t d;
        if (t->ndim == ST_MAX_DIMS)
            return pfail(p, "more than %d dimensions", ST_MAX_DIMS);
        if (take_u64(p, "\"shape\"", &d))
            return p->j.err;
        t->shape[t->ndim++] = d;
        if (__builtin_mul_overflow(t->count, d, &t->count))
            return pfail(p, "the shape's product overflows 64 bits");
    } while (json_eat(&p->j, ','));
    return json_eat(&p->j, ']') ? AV_OK : pfail(p, "\"shape\" is not closed");
}

static int take_offsets(Parse *p, StTensor *t)
{
    if (!json_eat(&p->j, '[') || take_u64(p, "\"data_offsets\"", &t->begin) ||
        !json_eat(&p->j, ',') || take_u64(p, "\"data_offsets\"", &t->end) || !json_eat(&p->j, ']'))
        return pfail(p, "\"data_offsets\" is not a list of two numbers");
    return AV_OK;
}

/* The fields of one tensor, then the checks of its range against its shape
 * and the data section. */
static int take_fields(Parse *p, StTensor *t)
{
    unsigned seen = 0;
    if (!json_eat(&p->j, '{'))
        return pfail(p, "not an object");
    do {
        char *key;
        if (json_string(&p->j, &key) || !json_eat(&p->j, ':')) {
            free(key);
            return pfail(p, "a field is malformed");
        }
        unsigned bit = strcmp(key, "dtype") == 0          ? 1u
                       : strcmp(key, "shape") == 0        ? 2u
                       : strcmp(key, "data_offsets") == 0 ? 4u
                                                          : 0u;
        if (bit == 0 || (seen & bit))
            pfail(p, bit ? "field \"%s\" appears twice" : "unknown field \"%s\"",
                  st_printable((char[48]){0}, 48, key));
        free(key);
        seen |= bit;
        if (p->j.err || (bit == 1   ? take_dtype(p, t)
                         : bit == 2 ? take_shape(p, t)
                                    : take_offsets(p, t)))
            return p->j.err;
    } while (json_eat(&p->j, ','));
    if (!json_eat(&p->j, '}'))
        return pfail(p, "the object is not closed");
    if (seen != 7)
        return pfail(p, "no \"%s\"",
                     !(seen & 1)   ? "dtype"
                     : !(seen & 2) ? "shape"
                                   : "data_offsets");
    uint64_t bytes;
    if (__builtin_mul_overflow(t->count, (uint64_t)dtypes[t->dtype].size, &bytes))
        return pfail(p, "the shape's size in bytes overflows 64 bits");
    if (t->end < t->begin)
        return pfail(p, "data_offsets [%llu, %llu) end before they begin",
                     (unsigned long long)t->begin, (unsigned long long)t->end);
    if (t->end > p->data_len)
        return pfail(p, "data_offsets [%llu, %llu) run past the end of the data (%llu bytes)",
                     (unsigned long long)t->begin, (unsigned long long)t->end,
                     (unsigned long long)p->data_len);
    if (t->end - t->begin != bytes)
        return pfail(p, "data_offsets [%llu, %llu) hold %llu bytes; its shape of %s needs %llu",
                     (unsigned long long)t->begin, (unsigned long long)t->end,
                     (unsigned long long)(t->end - t->begin), dtypes[t->dtype].name,
                     (unsigned long long)bytes);
    return AV_OK;
}

/* "__metadata__": an object of strings, read and dropped. */
static int take_metadata(Parse *p)
{
    if (!json_eat(&p->j, '{'))
        return pfail(p, "\"__metadata__\" is not an object");
    if (json_eat(&p->j, '}'))
        return AV_OK;
    do {
        char *k = NULL, *v = NULL;
        if (json_string(&p->j, &k) || !json_eat(&p->j, ':') || json_string(&p->j, &v))
            pfail(p, "\"__metadata__\" is not an object of strings");
        free(k);
        free(v);
    } while (!p->j.err && json_eat(&p->j, ','));
    return p->j.err || json_eat(&p->j, '}') ? p->j.err
                                            : pfail(p, "\"__metadata__\" is not "
                                                       "closed");
}

/* One "name": {...} or "__metadata__": {...} pair. */
static int take_entry(Parse *p, bool *had_meta)
{
    char *name;
    if (json_string(&p->j, &name))
        return p->j.err;
    if (!json_eat(&p->j, ':')) {
        free(name);
        return pfail(p, "a ':' was expected");
    }
    if (strcmp(name, "__metadata__") == 0) {
        free(name);
        if (*had_meta)
            return pfail(p, "\"__metadata__\" appears twice");
        *had_meta = true;
        return take_metadata(p);
    }
    StFile *f = p->f;
    if (f->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        StTensor *t = f->n >= ST_MAX_TENSORS ? NULL : realloc(f->t, (size_t)cap * sizeof(*t));
        if (!t) {
            free(name);
            return f->n >= ST_MAX_TENSORS ? pfail(p, "more than %d tensors", ST_MAX_TENSORS)
                                          : (p->j.err = AV_ERR_NOMEM);
        }
        f->t = t;
        p->cap = cap;
    }
    StTensor *t = &f->t[f->n++];
    memset(t, 0, sizeof(*t));
    t->name = name;
    p->tensor = name;
    if (take_fields(p, t))
        return p->j.err;
    p->tensor = NULL;
    return AV_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const StTensor *)a)->name, ((const StTensor *)b)->name);
}

static int by_range(const void *a, const void *b)
{
    const StTensor *x = *(const StTensor *const *)a, *y = *(const StTensor *const *)b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Names unique; ranges covering [0, data_len) exactly. */
static int check_layout(Parse *p)
{
    StFile *f = p->f;
    if (f->n == 0) /* qsort must not see f->t NULL */
        return p->data_len ? pfail(p, "bytes [0, %llu) of the data belong to no tensor",
                                   (unsigned long long)p->data_len)
                           : AV_OK;
    qsort(f->t, (size_t)f->n, sizeof(*f->t), by_name);
    for (int k = 1; k < f->n; k++)
        if (strcmp(f->t[k - 1].name, f->t[k].name) == 0)
            return p->tensor = f->t[k].name, pfail(p, "appears twice in the header");
    const StTensor **r = malloc((size_t)f->n * sizeof(*r));
    if (!r)
        return p->j.err = AV_ERR_NOMEM;
    for (int k = 0; k < f->n; k++)
        r[k] = &f->t[k];
    qsort(r, (size_t)f->n, sizeof(*r), by_range);
    uint64_t at = 0;
    for (int k = 0; k < f->n && !p->j.err; k++) {
        p->tensor = r[k]->name;
        if (r[k]->begin > at)
            pfail(p, "bytes [%llu, %llu) of the data before it belong to no tensor (a hole)",
                  (unsigned long long)at, (unsigned long long)r[k]->begin);
        else if (r[k]->begin < at)
            pfail(p, "data_offsets [%llu, %llu) overlap \"%s\"", (unsigned long long)r[k]->begin,
                  (unsigned long long)r[k]->end, st_printable((char[96]){0}, 96, r[k - 1]->name));
        at = r[k]->end;
    }
    free(r);
    if (p->j.err)
        return p->j.err;
    p->tensor = NULL;
    if (at != p->data_len)
        pfail(p, "bytes [%llu, %llu) at the end of the data belong to no tensor",
              (unsigned long long)at, (unsigned long long)p->data_len);
    return p->j.err;
}

/* The header's JSON object, then nothing but spaces up to its end. */
static int parse_header(Parse *p)
{
    bool had_meta = false;
    if (!json_eat(&p->j, '{'))
        return pfail(p, "the header is not a JSON object");
    if (!json_eat(&p->j, '}')) {
        do {
            if (take_entry(p, &had_meta))
                return p->j.err;
        } while (json_eat(&p->j, ','));
        if (!json_eat(&p->j, '}'))
            return pfail(p, "the header's object is not closed");
    }
    json_skip_ws(&p->j);
    if (p->j.p != p->j.end)
        return pfail(p, "bytes follow the header's JSON object");
    return check_layout(p);
}

/* The reason of a failed parse, with the file and the tensor or offset. */
static void compose_why(const Parse *p, char *why, size_t whylen)
{
    const char *name = p->f->name;
    if (p->tensor)
        snprintf(why, whylen, "%s: tensor \"%s\": %s", name,
                 st_printable((char[96]){0}, 96, p->tensor), p->jwhy);
    else
        snprintf(why, whylen, "%s: header byte %zu: %s", name,
                 (size_t)(p->j.p - (const char *)p->f->base), p->jwhy);
}

static uint64_t le64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | b[k];
    return v;
}

int st_parse(const unsigned char *buf, size_t len, const char *name, StFile *f, char *why,
             size_t whylen)
{
    memset(f, 0, sizeof(*f));
    if (len < 8) {
        snprintf(why, whylen, "%s: %zu bytes, too short for a safetensors file", name, len);
        return AV_ERR_MODEL;
    }
    uint64_t n = le64(buf);
    if (n > ST_MAX_HEADER) {
        snprintf(why, whylen, "%s: the header's length %llu is beyond the limit of %zu MB", name,
                 (unsigned long long)n, ST_MAX_HEADER >> 20);
        return AV_ERR_MODEL;
    }
    if (n > len - 8) {
        snprintf(why, whylen,
                 "%s: the header's length %llu runs past the end of the file "
                 "(%zu bytes)",
                 name, (unsigned long long)n, len);
        return AV_ERR_MODEL;
    }
    snprintf(f->name, sizeof f->name, "%s", name);
    f->base = buf;
    f->len = len;
    f->data_start = 8 + (size_t)n;
    Parse p = {.f = f, .data_len = len - f->data_start};
    p.j = (Json){(const char *)buf + 8, (const char *)buf + 8 + n, p.jwhy, sizeof p.jwhy, 0};
    int rc = parse_header(&p);
    if (rc == AV_ERR_NOMEM)
        snprintf(why, whylen, "%s: %s", name, av_strerror(rc));
    else if (rc != AV_OK)
        compose_why(&p, why, whylen);
    if (rc != AV_OK) {
        f->mapped = false;
        st_close(f);
    }
    return rc;
}

int st_open(const char *path, StFile *f, char *why, size_t whylen)
{
    struct stat st;
    memset(f, 0, sizeof(*f));
    int fd = file_open_read(path);
    if (fd < 0) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", path, strerror(e));
        errno = e;
        return AV_ERR_IO;
    }
    int bad = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
    void *map = NULL;
    if (!bad && st.st_size > 0) {
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        bad = map == MAP_FAILED ? errno : 0;
    }
    close(fd);
    if (bad) { /* a folder or FIFO in a file's place: a broken folder, not I/O */
        bool irregular = bad == EINVAL && !S_ISREG(st.st_mode);
        snprintf(why, whylen, "%s: %s", path, irregular ? "not a regular file" : strerror(bad));
        errno = bad;
        return irregular ? AV_ERR_MODEL : AV_ERR_IO;
    }
    size_t len = (size_t)st.st_size;
    int rc =
        st_parse(map ? map : (const unsigned char *)"", len, file_base_name(path), f, why, whylen);
    if (rc != AV_OK) {
        if (map)
            munmap(map, len);
        return rc;
    }
    f->mapped = map != NULL;
    return AV_OK;
}

const StTensor *st_find(const StFile *f, const char *name)
{
    StTensor key = {.name = (char *)name};
    return f->n ? bsearch(&key, f->t, (size_t)f->n, sizeof(*f->t), by_name) : NULL;
}

const unsigned char *st_data(const StFile *f, const StTensor *t)
{
    return f->base + f->data_start + t->begin;
}

const float *st_f32_in_place(const StFile *f, const StTensor *t)
{
    const unsigned char *d = st_data(f, t);
    if (!ST_LE || t->dtype != ST_F32 || (uintptr_t)d % _Alignof(float) != 0)
        return NULL;
    return (const float *)(const void *)d;
}

/* Branch-free, so that a loop of it vectorises: the half's exponent and
 * mantissa placed in a float32 and scaled by 2^112 (exact: a power of two)
 * rebias every normal and subnormal half; exponent 31 (Inf, NaN) is set
 * apart, keeping the payload. */
float st_f16_to_f32(uint16_t h)
{
    uint32_t b = (uint32_t)(h & 0x7fffu) << 13;
    float v;
    memcpy(&v, &b, 4);
    v *= 0x1p112f;
    memcpy(&b, &v, 4);
    if ((h & 0x7c00u) == 0x7c00u)
        b = 0x7f800000u | (uint32_t)(h & 0x3ffu) << 13;
    b |= (uint32_t)(h & 0x8000u) << 16;
    memcpy(&v, &b, 4);
    return v;
}

float st_bf16_to_f32(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float v;
    memcpy(&v, &bits, 4);
    return v;
}

int st_load_f32(const StFile *f, const StTensor *t, float *out)
{
    return st_load_f32_part(f, t, 0, (size_t)t->count, out);
}

int st_load_f32_part(const StFile *f, const StTensor *t, size_t first, size_t n, float *out)
{
    if (t->dtype != ST_F32 && t->dtype != ST_F16 && t->dtype != ST_BF16)
        return AV_ERR_MODEL;
    assert(first <= t->count && n <= t->count - first);
    const unsigned char *d = st_data(f, t) + first * (size_t)dtypes[t->dtype].size;
    if (t->dtype == ST_F32 && ST_LE) {
        memcpy(out, d, n * 4);
    } else if (t->dtype == ST_F32) {
        for (size_t k = 0; k < n; k++, d += 4) {
            uint32_t b =
                (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
            memcpy(&out[k], &b, 4);
        }
    } else if (t->dtype == ST_F16) {
        for (size_t k = 0; k < n; k++, d += 2)
            out[k] = st_f16_to_f32((uint16_t)(d[0] | d[1] << 8));
    } else if (t->dtype == ST_BF16) {
        for (size_t k = 0; k < n; k++, d += 2)
            out[k] = st_bf16_to_f32((uint16_t)(d[0] | d[1] << 8));
    } else {
        return AV_ERR_MODEL;
    }
    return AV_OK;
}

const char *st_printable(char *dst, size_t size, const char *s)
{
    size_t at = 0;
    while (*s) {
        char piece[8];
        unsigned cp;
        int m = utf8_decode(s, strnlen(s, 4), &cp), k;
        if (m == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
            m = m ? m : 1;
            k = snprintf(piece, sizeof piece, "\\x%02x", m == 1 ? (unsigned char)*s : cp);
        } else {
            memcpy(piece, s, (size_t)m);
            k = m;
        }
        if (at + (size_t)k + 4 > size) {
            memcpy(dst + at, "...", 3);
            at += 3;
            break;
        }
        memcpy(dst + at, piece, (size_t)k);
        at += (size_t)k;
        s += m;
    }
    dst[at] = 0;
    return dst;
}

void st_close(StFile *f)
{
    for (int k = 0; k < f->n; k++)
        free(f->t[k].name);
    free(f->t);
    if (f->mapped)
        munmap((void *)f->base, f->len);
    memset(f, 0, sizeof(*f));
}
