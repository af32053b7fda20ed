/* test_npy.c - .npy round trips through real files, and hand-made byte
 * buffers that exercise every refusal of npy_parse.
 */
#include "test_common.h"

#define TEST_TMP_FILE "a.npy"
#include "test_tmp.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "io/npy.h"

/* Build a .npy image: magic, version major.0, header length (2 or 4 bytes),
 * the header text as given, then data. Returns the total length. */
static size_t make_npy(unsigned char *buf, int major, const char *header, const void *data,
                       size_t datalen)
{
    size_t hl = strlen(header), pre = major == 1 ? 10 : 12;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    buf[8] = (unsigned char)(hl & 0xFF);
    buf[9] = (unsigned char)(hl >> 8);
    if (major != 1) {
        buf[10] = 0;
        buf[11] = 0;
    }
    memcpy(buf + pre, header, hl);
    memcpy(buf + pre + hl, data, datalen);
    return pre + hl + datalen;
}

static const float F6[6] = {1.5f, -2.0f, 0.25f, 3.0f, -0.125f, 1e-3f};

/* Parse header + F6 (as '<f4' bytes of this little-endian test host) and return the code. */
static int parse_with_header(int major, const char *header, size_t nbytes)
{
    unsigned char buf[512];
    NpyArray a;
    size_t len = make_npy(buf, major, header, F6, nbytes);
    int rc = npy_parse(buf, len, &a);
    if (rc != AV_OK)
        assert_null(a.data);
    npy_free(&a);
    return rc;
}

static void test_npy_parse_f4_keys_any_order(void **state)
{
    /* expect: shuffled keys, odd spacing and no trailing comma parse to a 2x3 array */
    (void)state;
    unsigned char buf[512];
    NpyArray a;
    size_t len = make_npy(buf, 1, "{ 'shape':(2,3),'fortran_order' : False, \"descr\": '<f4'}\n",
                          F6, sizeof(F6));
    assert_int_equal(npy_parse(buf, len, &a), AV_OK);
    assert_int_equal(a.ndim, 2);
    assert_int_equal(a.shape[0], 2);
    assert_int_equal(a.shape[1], 3);
    assert_int_equal(a.count, 6);
    assert_floats_near(a.data, F6, 6, 0.0);
    npy_free(&a);
    assert_null(a.data);
}

static void test_npy_parse_f8_converted(void **state)
{
    /* expect: '<f8' values are converted to the nearest floats */
    (void)state;
    const double d[3] = {0.1, -1e10, 3.0};
    const float want[3] = {0.1f, -1e10f, 3.0f};
    unsigned char buf[512];
    NpyArray a;
    size_t len =
        make_npy(buf, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", d, sizeof(d));
    assert_int_equal(npy_parse(buf, len, &a), AV_OK);
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.count, 3);
    assert_floats_near(a.data, want, 3, 0.0);
    npy_free(&a);
}

static void test_npy_parse_version2_and_3(void **state)
{
    /* expect: versions 2.0 and 3.0 with 4-byte header lengths parse */
    (void)state;
    const char *h = "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }\n";
    assert_int_equal(parse_with_header(2, h, sizeof(F6)), AV_OK);
    assert_int_equal(parse_with_header(3, h, sizeof(F6)), AV_OK);
}

static void test_npy_parse_scalar_and_empty(void **state)
{
    /* expect: shape () holds one value; shape (0, 3) holds none */
    (void)state;
    unsigned char buf[512];
    NpyArray a;
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", F6, 4);
    assert_int_equal(npy_parse(buf, len, &a), AV_OK);
    assert_int_equal(a.ndim, 0);
    assert_int_equal(a.count, 1);
    assert_true(a.data[0] == 1.5f);
    npy_free(&a);
    len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3)}", F6, 0);
    assert_int_equal(npy_parse(buf, len, &a), AV_OK);
    assert_int_equal(a.count, 0);
    npy_free(&a);
}

static void test_npy_parse_rejects_dtypes(void **state)
{
    /* expect: fortran_order True, '>f4', '<i4', '|f4' and structured dtypes are AV_ERR_NPY_DTYPE */
    (void)state;
    assert_int_equal(parse_with_header(1,
                                       "{'descr': '<f4', 'fortran_order': True, "
                                       "'shape': (6,), }",
                                       24),
                     AV_ERR_NPY_DTYPE);
    assert_int_equal(parse_with_header(1,
                                       "{'descr': '>f4', 'fortran_order': False, "
                                       "'shape': (6,), }",
                                       24),
                     AV_ERR_NPY_DTYPE);
    assert_int_equal(parse_with_header(1,
                                       "{'descr': '<i4', 'fortran_order': False, "
                                       "'shape': (6,), }",
                                       24),
                     AV_ERR_NPY_DTYPE);
    assert_int_equal(parse_with_header(1,
                                       "{'descr': '|f4', 'fortran_order': False, "
                                       "'shape': (6,), }",
                                       24),
                     AV_ERR_NPY_DTYPE);
    assert_int_equal(parse_with_header(1,
                                       "{'descr': [('x', '<f4')], 'fortran_order': False, "
                                       "'shape': (6,), }",
                                       24),
                     AV_ERR_NPY_DTYPE);
}

static void test_npy_parse_rejects_truncated_data(void **state)
{
    /* expect: 6 floats declared but 23 bytes present is AV_ERR_NPY_FORMAT */
    (void)state;
    assert_int_equal(parse_with_header(1,
                                       "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (2, 3), }",
                                       23),
                     AV_ERR_NPY_FORMAT);
}

static void test_npy_parse_rejects_nonfinite(void **state)
{
    /* expect: a NaN, an Inf, or an f8 beyond float range is AV_ERR_NPY_NONFINITE */
    (void)state;
    const char *h4 = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    const char *h8 = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }";
    unsigned char buf[512];
    NpyArray a;
    float f[2] = {1.0f, NAN};
    assert_int_equal(npy_parse(buf, make_npy(buf, 1, h4, f, 8), &a), AV_ERR_NPY_NONFINITE);
    f[1] = INFINITY;
    assert_int_equal(npy_parse(buf, make_npy(buf, 1, h4, f, 8), &a), AV_ERR_NPY_NONFINITE);
    double d = 1e300;
    assert_int_equal(npy_parse(buf, make_npy(buf, 1, h8, &d, 8), &a), AV_ERR_NPY_NONFINITE);
    assert_null(a.data);
}

static void test_npy_parse_rejects_bad_magic_and_version(void **state)
{
    /* expect: a wrong magic byte, version 4.0 and version 1.1 are AV_ERR_NPY_FORMAT */
    (void)state;
    const char *h = "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }";
    unsigned char buf[512];
    NpyArray a;
    size_t len = make_npy(buf, 1, h, F6, sizeof(F6));
    buf[1] = 'X';
    assert_int_equal(npy_parse(buf, len, &a), AV_ERR_NPY_FORMAT);
    len = make_npy(buf, 4, h, F6, sizeof(F6));
    assert_int_equal(npy_parse(buf, len, &a), AV_ERR_NPY_FORMAT);
    len = make_npy(buf, 1, h, F6, sizeof(F6));
    buf[7] = 1;
    assert_int_equal(npy_parse(buf, len, &a), AV_ERR_NPY_FORMAT);
    assert_int_equal(npy_parse(buf, 5, &a), AV_ERR_NPY_FORMAT);
}

static void test_npy_parse_rejects_too_many_dims(void **state)
{
    /* expect: a 5-dimensional shape is AV_ERR_NPY_SHAPE */
    (void)state;
    assert_int_equal(parse_with_header(1,
                                       "{'descr': '<f4', 'fortran_order': False, "
                                       "'shape': (1, 1, 2, 1, 3), }",
                                       24),
                     AV_ERR_NPY_SHAPE);
}

static void test_npy_header_shape_names_any_rank(void **state)
{
    /* expect: npy_header_shape writes the shape as NumPy prints it and returns
       its rank for 5, 1, 0 and 10 dimensions (past 8 ending in ", ..."); -1 and
       "" for a header that does not parse */
    (void)state;
    struct {
        const char *dims, *text;
        int ndim;
    } cases[] = {
        {"(1, 1, 1, 6, 6)", "(1, 1, 1, 6, 6)", 5},
        {"(6,)", "(6,)", 1},
        {"()", "()", 0},
        {"(1,2,3,4,5,6,7,8,9,10)", "(1, 2, 3, 4, 5, 6, 7, 8, ...)", 10},
        {"(2, 3", "", -1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unsigned char buf[512];
        char header[128], text[64];
        snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }",
                 cases[k].dims);
        size_t len = make_npy(buf, 1, header, F6, 0);
        assert_int_equal(npy_header_shape(buf, len, text, sizeof text), cases[k].ndim);
        assert_string_equal(text, cases[k].text);
    }
}

static void test_npy_parse_rejects_header_beyond_buffer(void **state)
{
    /* expect: a header length past the end of the buffer is AV_ERR_NPY_FORMAT */
    (void)state;
    unsigned char buf[512];
    NpyArray a;
    size_t len = make_npy(buf, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", F6,
                          sizeof(F6));
    buf[8] = 0xFF;
    buf[9] = 0x7F;
    assert_int_equal(npy_parse(buf, len, &a), AV_ERR_NPY_FORMAT);
}

static void test_npy_parse_rejects_bad_headers(void **state)
{
    /* expect: missing keys, unknown keys, repeated keys, bad tuples and size overflow
     * are AV_ERR_NPY_FORMAT */
    (void)state;
    static const char *bad[] = {
        "{'descr': '<f4', 'shape': (6,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}",
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)",
        "{'descr': '<f4', 'fortran_order': false, 'shape': (6,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
        assert_int_equal(parse_with_header(1, bad[k], 24), AV_ERR_NPY_FORMAT);
}

static void test_npy_round_trip_1d_to_4d(void **state)
{
    /* expect: arrays of 0 to 4 dims write and read back with the same shape and values */
    Tmp *t = *state;
    static const size_t shapes[5][4] = {{0}, {7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 5}};
    float data[120];
    for (int k = 0; k < 120; k++)
        data[k] = (float)k * 0.37f - 11.0f;
    for (int nd = 0; nd <= 4; nd++) {
        size_t count = 1;
        for (int k = 0; k < nd; k++)
            count *= shapes[nd][k];
        NpyArray a;
        assert_int_equal(npy_write(t->path, nd, shapes[nd], data), AV_OK);
        assert_int_equal(npy_read(t->path, &a), AV_OK);
        assert_int_equal(a.ndim, nd);
        assert_int_equal(a.count, count);
        for (int k = 0; k < nd; k++)
            assert_int_equal(a.shape[k], shapes[nd][k]);
        assert_floats_near(a.data, data, count, 0.0);
        npy_free(&a);
    }
}

static void test_npy_write_header_layout(void **state)
{
    /* expect: version 1.0, '<f4', the data at a multiple of 64, the header ending in '\n' */
    Tmp *t = *state;
    const size_t shape[2] = {2, 3};
    assert_int_equal(npy_write(t->path, 2, shape, F6), AV_OK);
    unsigned char buf[256];
    FILE *f = fopen(t->path, "rb");
    assert_non_null(f);
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    size_t hl = (size_t)buf[8] | (size_t)buf[9] << 8;
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    assert_int_equal((10 + hl) % 64, 0);
    assert_int_equal(len, 10 + hl + 24);
    assert_int_equal(buf[10 + hl - 1], '\n');
    assert_memory_equal(buf + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                        59);
    assert_memory_equal(buf + 10 + hl, F6, 24);
}

static void test_npy_write_int32(void **state)
{
    /* expect: '<i4' in version 1.0, the shape of three dimensions, the data at
     * a multiple of 64 and the ids' own little-endian bytes (-1 included);
     * npy_read, which reads floats, refuses the dtype */
    Tmp *t = *state;
    const size_t shape[3] = {2, 1, 3};
    const int32_t ids[6] = {0, 1, -1, 50256, 7, 65536};
    assert_int_equal(npy_write_int32(t->path, 3, shape, ids), AV_OK);
    unsigned char buf[256];
    FILE *f = fopen(t->path, "rb");
    assert_non_null(f);
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    size_t hl = (size_t)buf[8] | (size_t)buf[9] << 8;
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    assert_int_equal((10 + hl) % 64, 0);
    assert_int_equal(len, 10 + hl + sizeof ids);
    assert_memory_equal(buf + 10, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 1, 3), }",
                        62);
    const unsigned char want[8] = {0, 0, 0, 0, 1, 0, 0, 0};
    assert_memory_equal(buf + 10 + hl, want, 8);
    assert_memory_equal(buf + 10 + hl + 8, "\xff\xff\xff\xff", 4);
    assert_memory_equal(buf + 10 + hl + 20, "\x00\x00\x01\x00", 4);
    NpyArray a;
    assert_int_equal(npy_read(t->path, &a), AV_ERR_NPY_DTYPE);
}

static void test_npy_read_missing_file(void **state)
{
    /* expect: a missing file gives AV_ERR_IO with errno ENOENT and a zeroed array */
    Tmp *t = *state;
    NpyArray a;
    errno = 0;
    assert_int_equal(npy_read(t->path, &a), AV_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_null(a.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_npy_parse_f4_keys_any_order),
        cmocka_unit_test(test_npy_parse_f8_converted),
        cmocka_unit_test(test_npy_parse_version2_and_3),
        cmocka_unit_test(test_npy_parse_scalar_and_empty),
        cmocka_unit_test(test_npy_parse_rejects_dtypes),
        cmocka_unit_test(test_npy_parse_rejects_truncated_data),
        cmocka_unit_test(test_npy_parse_rejects_nonfinite),
        cmocka_unit_test(test_npy_parse_rejects_bad_magic_and_version),
        cmocka_unit_test(test_npy_parse_rejects_too_many_dims),
        cmocka_unit_test(test_npy_parse_rejects_header_beyond_buffer),
        cmocka_unit_test(test_npy_parse_rejects_bad_headers),
        cmocka_unit_test_setup_teardown(test_npy_round_trip_1d_to_4d, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_npy_write_header_layout, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_npy_write_int32, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_npy_read_missing_file, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_npy_header_shape_names_any_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
