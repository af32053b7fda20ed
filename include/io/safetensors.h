/* safetensors.h - a read-only, memory-mapped safetensors file (safetensors.c).
 *
 * The format: an 8-byte little-endian header length N, N bytes of JSON (an
 * object from tensor name to {"dtype", "shape", "data_offsets"}, and an
 * optional "__metadata__" object of strings), then the data; data_offsets are
 * [begin, end) relative to byte 8 + N. Everything is validated before a
 * tensor is handed out: the header's JSON and UTF-8, the dtype, the shape's
 * product (no overflow), the byte range against the shape and the file, and
 * the data as a whole: the ranges cover it exactly, with no hole and no
 * overlap, in any order. The map is never written. Nothing here prints: a
 * failure is an AV_ERR_* code and one line in the caller's why buffer that
 * names the file (and the tensor, where there is one).
 */
#ifndef ATTNVIZ_SAFETENSORS_H
#define ATTNVIZ_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ST_MAX_DIMS 8                     /* more dimensions are refused */
#define ST_MAX_HEADER ((size_t)100 << 20) /* the header's N, as the reference caps it */
#define ST_MAX_TENSORS 1000000

/* The dtypes of the format; only F32, F16 and BF16 can be read as floats. */
enum {
    ST_BOOL,
    ST_U8,
    ST_I8,
    ST_F8_E5M2,
    ST_F8_E4M3,
    ST_I16,
    ST_U16,
    ST_F16,
    ST_BF16,
    ST_I32,
    ST_U32,
    ST_F32,
    ST_F64,
    ST_I64,
    ST_U64,
    ST_NDTYPES
};

typedef struct {
    char *name; /* NUL-terminated UTF-8, owned */
    int dtype;  /* ST_* */
    int ndim;   /* 0 .. ST_MAX_DIMS (0: a scalar) */
    uint64_t shape[ST_MAX_DIMS];
    uint64_t count;      /* product of shape */
    uint64_t begin, end; /* byte range, relative to the data section */
} StTensor;

typedef struct {
    char name[128];            /* the file's base name, for messages */
    const unsigned char *base; /* the whole file: a map (owned) or the caller's bytes */
    size_t len;
    size_t data_start; /* 8 + N */
    bool mapped;
    StTensor *t; /* sorted by name */
    int n;
} StFile;

/* The dtype's name ("F32") and size in bytes. */
const char *st_dtype_name(int dtype);
int st_dtype_size(int dtype);

/* Map path read-only and parse it (st_parse). Returns AV_OK, AV_ERR_IO (the
 * file cannot be opened or mapped; errno set), AV_ERR_MODEL (not a regular
 * file, such as a folder or a FIFO, which is never waited on; or malformed:
 * why says what and where) or AV_ERR_NOMEM.
 * On error *f is zeroed and nothing is left mapped or allocated. */
int st_open(const char *path, StFile *f, char *why, size_t whylen);

/* Parse the file image buf[0..len) (not copied: it must outlive *f), name
 * naming it in messages. Returns AV_OK, AV_ERR_MODEL or AV_ERR_NOMEM; on
 * error *f is zeroed and nothing is left allocated. */
int st_parse(const unsigned char *buf, size_t len, const char *name, StFile *f, char *why,
             size_t whylen);

/* The tensor called name, or NULL. */
const StTensor *st_find(const StFile *f, const char *name);

/* The first byte of t's data. */
const unsigned char *st_data(const StFile *f, const StTensor *t);

/* t's data as float32 in place (no copy) when t is F32, 4-byte aligned in
 * memory and the host little-endian; otherwise NULL. */
const float *st_f32_in_place(const StFile *f, const StTensor *t);

/* t's data (F32, F16 or BF16; little-endian) converted to float32 into
 * out[0..t->count). Returns AV_OK, or AV_ERR_MODEL for another dtype. */
int st_load_f32(const StFile *f, const StTensor *t, float *out);

/* As st_load_f32, for elements [first, first + n) of t (in range) into
 * out[0..n). */
int st_load_f32_part(const StFile *f, const StTensor *t, size_t first, size_t n, float *out);

/* IEEE half and bfloat16 to float32, exact (subnormals, infinities and NaN
 * payloads kept). */
float st_f16_to_f32(uint16_t h);
float st_bf16_to_f32(uint16_t h);

/* s (UTF-8) as one printable line for a message, into dst[0..size) (size at
 * least 16): control characters (C0, DEL, C1) and bytes that are not UTF-8
 * as \xHH, cut at a character with "..." when longer. Returns dst. */
const char *st_printable(char *dst, size_t size, const char *s);

/* Unmap and free; accepts a zeroed or closed StFile, and leaves it zeroed. */
void st_close(StFile *f);

#endif
