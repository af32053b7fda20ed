/* npy.h - reading and writing NumPy .npy files (format versions 1.0, 2.0, 3.0).
 *
 * Reads little-endian float32 ('<f4') and float64 ('<f8') arrays in C order
 * (fortran_order False), of 0 to 4 dimensions, converting to float32. Writes
 * float32 in version 1.0. Refuses NaN and Inf on reading: attnviz's inputs
 * are weights and embeddings, where a non-finite number is always an error.
 */
#ifndef ATTNVIZ_NPY_H
#define ATTNVIZ_NPY_H

#include <stddef.h>
#include <stdint.h>

#define NPY_MAX_DIMS 4

typedef struct {
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t count; /* product of the shape */
    float *data;  /* count floats, owned; free with npy_free */
} NpyArray;

/* Parse a whole .npy file held in buf[0..len) into *out. Returns AV_OK,
 * AV_ERR_NPY_FORMAT (bad magic, header or truncated data), AV_ERR_NPY_DTYPE,
 * AV_ERR_NPY_SHAPE (more than NPY_MAX_DIMS dimensions),
 * AV_ERR_NPY_NONFINITE or AV_ERR_NOMEM. On error *out is zeroed. */
int npy_parse(const unsigned char *buf, size_t len, NpyArray *out);

/* Read path into *out: as npy_parse, or AV_ERR_IO when the file cannot be read
 * (errno tells why), AV_ERR_TOO_LARGE past 2 GiB. */
int npy_read(const char *path, NpyArray *out);

/* Write a float32 array atomically: a temporary file in the same folder, then
 * rename, so path appears whole or not at all. Returns AV_OK, AV_ERR_IO,
 * AV_ERR_NOMEM, or AV_ERR_NPY_SHAPE when ndim is not 0..NPY_MAX_DIMS. */
int npy_write(const char *path, int ndim, const size_t *shape, const float *data);

/* The same for an int32 array ('<i4': token ids). npy_read reads only
 * float arrays. Returns as npy_write. */
int npy_write_int32(const char *path, int ndim, const size_t *shape, const int32_t *data);

/* Where an array lies in a .npy file, from its header alone. */
typedef struct {
    int ndim;
    size_t shape[NPY_MAX_DIMS];
    size_t count;       /* product of the shape */
    int itemsize;       /* 4 ('<f4') or 8 ('<f8'), little-endian, C order */
    size_t data_offset; /* byte offset of element 0 from the start of the file */
} NpyInfo;

/* Parse only the preamble and header dict of a .npy file of file_len bytes
 * whose first len bytes are buf[0..len) (the whole file as a read-only
 * memory map, or just its beginning): the data are neither read nor checked,
 * only that count * itemsize bytes follow the header within file_len.
 * Returns AV_OK, AV_ERR_NPY_FORMAT (bad magic or header, a header longer
 * than len, or truncated data), AV_ERR_NPY_DTYPE or AV_ERR_NPY_SHAPE (more
 * than NPY_MAX_DIMS dimensions), as npy_parse. On error *out is zeroed. */
int npy_parse_header(const unsigned char *buf, size_t len, size_t file_len, NpyInfo *out);

/* The preamble and header of a version 1.0 '<f4' C-order file of this shape,
 * padded as npy_write pads it (data at a multiple of 64 bytes), into
 * buf[0..cap): the bytes npy_write puts before the data. Returns their
 * length, or 0 when ndim is not 0..NPY_MAX_DIMS or cap is below 256. */
size_t npy_format_header(int ndim, const size_t *shape, unsigned char *buf, size_t cap);

/* A shape as NumPy prints it, "(6, 6)", "(6,)" or "()", into out[0..cap)
 * (truncated to fit); past 8 dimensions the rest is ", ...". */
void npy_shape_text(int ndim, const size_t *shape, char *out, size_t cap);

/* The shape in the header of the .npy file whose first len bytes are buf, as
 * npy_shape_text writes it, whatever its number of dimensions: for naming a
 * shape npy_parse_header refused (AV_ERR_NPY_SHAPE). Returns the number of
 * dimensions, or -1 and "" when the header itself does not parse or is
 * refused for another reason. */
int npy_header_shape(const unsigned char *buf, size_t len, char *out, size_t cap);

/* Free out->data and zero *out; accepts a zeroed array. */
void npy_free(NpyArray *a);

#endif
