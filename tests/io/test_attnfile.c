/* test_attnfile.c - imported attention: the committed NumPy files of
 * tests/data/import (float32, float64, causal, cross) read row by row and
 * head by head against npy_read, every kind of bad file refused with its
 * code and a message that places the fault, row sums as a warning, causal
 * detection, rollout over the map,
 * and a 512 MiB sparse file validated with resident memory far below its size.
 */
#include "test_common.h"

#define TEST_TMP_FILE "a.npy"
#include "test_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/av.h"
#include "core/combine.h"
#include "io/attnfile.h"
#include "io/npy.h"

#define IMP TEST_DATA_DIR "/import/"

static char msg[512];

/* Write a .npy of version 1.0 with the given header dict and raw data. */
static void write_raw(const char *path, const char *dict, const void *data, size_t len)
{
    char hdr[256];
    size_t hl = (size_t)snprintf(hdr, sizeof hdr, "%s", dict);
    while ((10 + hl + 1) % 64)
        hdr[hl++] = ' ';
    hdr[hl++] = '\n';
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)hl, 0};
    assert_int_equal(fwrite(pre, 1, 10, f), 10);
    assert_int_equal(fwrite(hdr, 1, hl, f), hl);
    if (len)
        assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A (2, 3, 4, 4) float32 array of uniform rows (0.25), which rows sum to 1. */
static float *uniform(void)
{
    float *a = malloc(2 * 3 * 16 * sizeof(float));
    for (int k = 0; k < 96; k++)
        a[k] = 0.25f;
    return a;
}

static int open_validate(const char *path, AttnFile *af)
{
    msg[0] = '\0';
    int rc = attnfile_open(path, af, msg, sizeof msg);
    if (rc == AV_OK)
        rc = attnfile_validate(af, msg, sizeof msg);
    return rc;
}

static void test_attnfile_f32_rows_heads(void **state)
{
    /* expect: the committed (3, 2, 7, 7) float32 file opens and validates without
       a warning; every row and head equals npy_read's numbers bit for bit, rows by
       pointer into the map */
    (void)state;
    AttnFile af;
    NpyArray ref;
    assert_int_equal(open_validate(IMP "attn_l3h2n7.npy", &af), AV_OK);
    assert_int_equal(npy_read(IMP "attn_l3h2n7.npy", &ref), AV_OK);
    assert_int_equal(af.L, 3);
    assert_int_equal(af.H, 2);
    assert_int_equal(af.n_q, 7);
    assert_int_equal(af.n_k, 7);
    assert_int_equal(af.itemsize, 4);
    assert_true(af.validated);
    assert_false(af.causal);
    assert_int_equal(af.bad_rows, 0);
    assert_string_equal(af.warning, "");
    float buf[7], head[49];
    for (int l = 0; l < 3; l++)
        for (int h = 0; h < 2; h++) {
            const float *want = ref.data + (l * 2 + h) * 49;
            for (int i = 0; i < 7; i++) {
                const float *r = attnfile_row(&af, l, h, i, buf);
                assert_ptr_not_equal(r, buf);
                assert_memory_equal(r, want + i * 7, sizeof buf);
            }
            assert_memory_equal(attnfile_head_ptr(&af, l, h), want, sizeof head);
            attnfile_head(&af, l, h, head);
            assert_memory_equal(head, want, sizeof head);
        }
    npy_free(&ref);
    attnfile_close(&af);
    assert_null(af.map);
    attnfile_close(&af); /* twice is fine */
}

static void test_attnfile_f64_causal(void **state)
{
    /* expect: the float64 causal (2, 3, 6, 6) file converts to npy_read's floats,
       has no pointer into the map, and is detected causal */
    (void)state;
    AttnFile af;
    NpyArray ref;
    assert_int_equal(open_validate(IMP "attn_causal_f64.npy", &af), AV_OK);
    assert_int_equal(npy_read(IMP "attn_causal_f64.npy", &ref), AV_OK);
    assert_int_equal(af.itemsize, 8);
    assert_true(af.causal);
    assert_null(attnfile_head_ptr(&af, 0, 0));
    float buf[6], head[36];
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 3; h++) {
            const float *want = ref.data + (l * 3 + h) * 36;
            for (int i = 0; i < 6; i++) {
                const float *r = attnfile_row(&af, l, h, i, buf);
                assert_ptr_equal(r, buf);
                assert_memory_equal(r, want + i * 6, sizeof buf);
            }
            attnfile_head(&af, l, h, head);
            assert_memory_equal(head, want, sizeof head);
        }
    npy_free(&ref);
    attnfile_close(&af);
}

static void test_attnfile_source_read(void **state)
{
    /* expect: the source whose rows are read with pread gives npy_read's
       numbers bit for bit, for float32 and float64 files, always into the
       caller's buffer, with no release */
    (void)state;
    const char *files[2] = {IMP "attn_l3h2n7.npy", IMP "attn_causal_f64.npy"};
    for (int k = 0; k < 2; k++) {
        AttnFile af;
        NpyArray ref;
        AttnSource src;
        assert_int_equal(open_validate(files[k], &af), AV_OK);
        assert_int_equal(npy_read(files[k], &ref), AV_OK);
        attnfile_source_read(&af, &src);
        assert_null(src.release);
        float buf[7];
        for (int l = 0; l < af.L; l++)
            for (int h = 0; h < af.H; h++)
                for (int i = 0; i < af.n_q; i++) {
                    const float *r = combine_row(&src, l, h, i, buf);
                    assert_ptr_equal(r, buf);
                    assert_memory_equal(r, ref.data + ((l * af.H + h) * af.n_q + i) * af.n_k,
                                        (size_t)af.n_k * sizeof(float));
                }
        npy_free(&ref);
        attnfile_close(&af);
    }
}

static void test_attnfile_rank3_and_cross(void **state)
{
    /* expect: an (H, n, n) file is one layer; a cross (2, 2, 3, 5) file is n_q 3,
       n_k 5 and never causal */
    Tmp *t = *state;
    float *a = uniform();
    size_t shape[3] = {3, 4, 4};
    assert_int_equal(npy_write(t->path, 3, shape, a), AV_OK);
    AttnFile af;
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    assert_int_equal(af.L, 1);
    assert_int_equal(af.H, 3);
    assert_int_equal(af.ndim, 3);
    assert_false(af.causal);
    attnfile_close(&af);
    assert_int_equal(open_validate(IMP "attn_cross.npy", &af), AV_OK);
    assert_int_equal(af.n_q, 3);
    assert_int_equal(af.n_k, 5);
    assert_false(af.causal);
    attnfile_close(&af);
    free(a);
}

/* Open and validate path; expect code want and a message containing part. */
static void expect_bad(const char *path, int want, const char *part)
{
    AttnFile af;
    int rc = open_validate(path, &af);
    if (rc != want || !strstr(msg, part))
        print_error("got %d '%s', want %d '%s'\n", rc, msg, want, part);
    assert_int_equal(rc, want);
    assert_non_null(strstr(msg, part));
    assert_null(strchr(msg, '\n'));
    attnfile_close(&af);
}

static void test_attnfile_bad_values(void **state)
{
    /* expect: NaN, +Inf and -Inf are AV_ERR_NPY_NONFINITE and a negative weight
       AV_ERR_NPY_NEGATIVE, each message naming layer, head, row and column (1-based) */
    Tmp *t = *state;
    size_t shape[4] = {2, 3, 4, 4};
    const float bad[4] = {NAN, INFINITY, -INFINITY, -0.5f};
    const int want[4] = {AV_ERR_NPY_NONFINITE, AV_ERR_NPY_NONFINITE, AV_ERR_NPY_NONFINITE,
                         AV_ERR_NPY_NEGATIVE};
    for (int k = 0; k < 4; k++) {
        float *a = uniform();
        a[(1 * 3 + 2) * 16 + 2 * 4 + 3] = bad[k]; /* layer 2, head 3, row 3, column 4 */
        a[95] = -1.0f;                            /* a later fault is not the one named */
        assert_int_equal(npy_write(t->path, 4, shape, a), AV_OK);
        expect_bad(t->path, want[k], "layer 2, head 3, row 3, column 4");
        free(a);
    }
    float *a = uniform();
    a[5] = -0.0f; /* negative zero is zero */
    assert_int_equal(npy_write(t->path, 4, shape, a), AV_OK);
    AttnFile af;
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    attnfile_close(&af);
    free(a);
}

static void test_attnfile_bad_f64_values(void **state)
{
    /* expect: a float64 of -1e-300 is negative (though it rounds to -0.0f) and
       1e300 is beyond float32, so non-finite, said as finite but too large */
    Tmp *t = *state;
    double d[2 * 2 * 2];
    const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }";
    for (int k = 0; k < 8; k++)
        d[k] = 0.5;
    d[6] = -1e-300;
    write_raw(t->path, dict, d, sizeof d);
    expect_bad(t->path, AV_ERR_NPY_NEGATIVE, "layer 1, head 2, row 2, column 1");
    d[6] = 1e300;
    write_raw(t->path, dict, d, sizeof d);
    expect_bad(t->path, AV_ERR_NPY_NONFINITE,
               "a.npy: 1e+300 at layer 1, head 2, row 2, column 1 is finite but beyond "
               "float32's range (a weight is at most 1)");
    d[6] = INFINITY;
    write_raw(t->path, dict, d, sizeof d);
    expect_bad(t->path, AV_ERR_NPY_NONFINITE, "a.npy: NaN or Inf at layer 1, head 2, row 2");
}

static void test_attnfile_bad_shapes(void **state)
{
    /* expect: rank 2, 5 and 1 (each line naming the shape), empty dimensions, and too many tokens
       are refused with a message; so are non-.npy, truncated, integer, big-endian, Fortran and
       empty files, a missing file and a folder */
    Tmp *t = *state;
    float z[64] = {0};
    struct {
        const char *dict;
        size_t len;
        int want;
        const char *part;
    } cases[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", 64, AV_ERR_NPY_SHAPE,
         "a.npy: shape (4, 4) has 2 dimensions; attention is (L, H, n, n) or (H, n, n)"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 2, 2), }", 16,
         AV_ERR_NPY_SHAPE,
         "a.npy: shape (1, 1, 1, 2, 2) has 5 dimensions; attention is (L, H, n, n) or (H, n, n)"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (16,), }", 64, AV_ERR_NPY_SHAPE,
         "a.npy: shape (16,) has 1 dimension;"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0, 4, 4), }", 0, AV_ERR_NPY_SHAPE,
         "empty dimension"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 16385), }", 0, AV_ERR_NPY_FORMAT,
         "a.npy"}, /* truncated: the header promises data */
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 4, 4), }", 64, AV_ERR_NPY_FORMAT,
         "truncated"},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (1, 4, 4), }", 64, AV_ERR_NPY_DTYPE,
         "float32/float64"},
        {"{'descr': '>f4', 'fortran_order': False, 'shape': (1, 4, 4), }", 64, AV_ERR_NPY_DTYPE,
         "little-endian"},
        {"{'descr': '<f4', 'fortran_order': True, 'shape': (1, 4, 4), }", 64, AV_ERR_NPY_DTYPE,
         "C order"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_raw(t->path, cases[k].dict, z, cases[k].len);
        expect_bad(t->path, cases[k].want, cases[k].part);
    }
    float *many = calloc(300, sizeof(float));
    write_raw(t->path, "{'descr': '<f4', 'fortran_order': False, 'shape': (300, 1, 1, 1), }", many,
              300 * sizeof(float));
    expect_bad(t->path, AV_ERR_NPY_SHAPE, "300 layers");
    free(many);
    /* more rows than tokens allowed: the whole (1, 16385, 1) array present */
    float *big = calloc(16385, sizeof(float));
    write_raw(t->path, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 16385, 1), }", big,
              16385 * sizeof(float));
    expect_bad(t->path, AV_ERR_TOO_MANY, "at most 16384 tokens");
    free(big);
    FILE *f = fopen(t->path, "w");
    fputs("hello, not a numpy file", f);
    fclose(f);
    expect_bad(t->path, AV_ERR_NPY_FORMAT, "a.npy: not a .npy file");
    f = fopen(t->path, "w");
    fclose(f);
    expect_bad(t->path, AV_ERR_NPY_FORMAT, "a.npy");
    expect_bad(IMP "no-such.npy", AV_ERR_IO, "No such file");
    expect_bad(t->dir, AV_ERR_IO, "not a regular file");
}

static void test_attnfile_row_sums_warning(void **state)
{
    /* expect: rows not summing to 1 within 1e-3 are counted, the first placed, and
       reported as a warning while the file still opens; 1 + 0.9e-3 is within */
    Tmp *t = *state;
    size_t shape[4] = {2, 3, 4, 4};
    float *a = uniform();
    a[0] += 0.0009f;                /* layer 1 head 1 row 1: within the tolerance */
    a[(0 * 3 + 1) * 16 + 4] = 2.0f; /* layer 1, head 2, row 2 sums to 2.75 */
    for (int j = 0; j < 4; j++)
        a[(1 * 3 + 2) * 16 + 12 + j] = 0.0f; /* layer 2, head 3, row 4 sums to 0 */
    assert_int_equal(npy_write(t->path, 4, shape, a), AV_OK);
    AttnFile af;
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    assert_int_equal(af.bad_rows, 2);
    assert_int_equal(af.bad_l, 0);
    assert_int_equal(af.bad_h, 1);
    assert_int_equal(af.bad_i, 1);
    assert_float_equal(af.bad_sum, 2.75, 1e-6);
    assert_string_equal(af.warning, "a.npy: 2 of 24 rows do not sum to 1 (first: layer 1, "
                                    "head 2, row 2 sums to 2.75)");
    attnfile_close(&af);
    free(a);
}

static void test_attnfile_causal_detection(void **state)
{
    /* expect: lower-triangular heads are causal; one non-zero above the diagonal
       in the last head of the last layer is not; a 1-token file is not */
    Tmp *t = *state;
    size_t shape[4] = {2, 3, 4, 4};
    float *a = calloc(96, sizeof(float));
    for (int m = 0; m < 6; m++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j <= i; j++)
                a[m * 16 + i * 4 + j] = 1.0f / (float)(i + 1);
    assert_int_equal(npy_write(t->path, 4, shape, a), AV_OK);
    AttnFile af;
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    assert_true(af.causal);
    assert_int_equal(af.bad_rows, 0);
    attnfile_close(&af);
    a[5 * 16 + 2 * 4 + 3] = 1e-30f;
    assert_int_equal(npy_write(t->path, 4, shape, a), AV_OK);
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    assert_false(af.causal);
    attnfile_close(&af);
    size_t one[3] = {2, 1, 1};
    assert_int_equal(npy_write(t->path, 3, one, a), AV_OK);
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    assert_false(af.causal);
    attnfile_close(&af);
    free(a);
}

/* attnfile_check_start and its thread to the end: the poll's result. */
static int check_to_end(const char *path, AttnFile *af, int *start_rc)
{
    AttnCheck *c = NULL;
    msg[0] = '\0';
    assert_int_equal(attnfile_open(path, af, msg, sizeof msg), AV_OK);
    *start_rc = attnfile_check_start(af, &c, msg, sizeof msg);
    if (*start_rc != AV_OK) {
        assert_null(c);
        return *start_rc;
    }
    int rc;
    while ((rc = attnfile_check_poll(c, af, msg, sizeof msg)) == ATTNFILE_CHECKING)
        usleep(1000);
    assert_int_equal(attnfile_check_layers(c), c ? (rc == AV_OK ? af->L : 1) : 0);
    attnfile_check_free(c);
    return rc;
}

static void test_attnfile_check_on_thread(void **state)
{
    /* expect: layer 0 checked at once, the rest on a thread, give what
       attnfile_validate gives: the same warning and causal flag (layer 0's
       until the end), a bad value in layer 1 refused by the start, one in
       layer 2 by the poll, each message placing it */
    Tmp *t = *state;
    size_t shape[4] = {2, 3, 4, 4};
    AttnFile af;
    int start;
    float *a = uniform();
    a[(0 * 3 + 1) * 16 + 4] = 2.0f;
    for (int j = 0; j < 4; j++)
        a[(1 * 3 + 2) * 16 + 12 + j] = 0.0f;
    assert_int_equal(npy_write(t->path, 4, shape, a), AV_OK);
    assert_int_equal(check_to_end(t->path, &af, &start), AV_OK);
    assert_true(af.validated);
    assert_int_equal(af.bad_rows, 2);
    assert_string_equal(af.warning, "a.npy: 2 of 24 rows do not sum to 1 (first: layer 1, "
                                    "head 2, row 2 sums to 2.75)");
    attnfile_close(&af);
    for (int layer = 0; layer < 2; layer++) {
        float *b = uniform();
        b[(layer * 3 + 2) * 16 + 2 * 4 + 3] = NAN;
        assert_int_equal(npy_write(t->path, 4, shape, b), AV_OK);
        assert_int_equal(check_to_end(t->path, &af, &start), AV_ERR_NPY_NONFINITE);
        assert_int_equal(start, layer == 0 ? AV_ERR_NPY_NONFINITE : AV_OK);
        assert_non_null(strstr(msg, layer == 0 ? "layer 1, head 3, row 3, column 4"
                                               : "layer 2, head 3, row 3, column 4"));
        assert_false(af.validated);
        attnfile_close(&af);
        free(b);
    }
    float *c = calloc(96, sizeof(float)); /* causal in both layers, then not in layer 2 */
    for (int m = 0; m < 6; m++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j <= i; j++)
                c[m * 16 + i * 4 + j] = 1.0f / (float)(i + 1);
    for (int k = 0; k < 2; k++) {
        AttnCheck *ck = NULL;
        assert_int_equal(npy_write(t->path, 4, shape, c), AV_OK);
        assert_int_equal(attnfile_open(t->path, &af, msg, sizeof msg), AV_OK);
        assert_int_equal(attnfile_check_start(&af, &ck, msg, sizeof msg), AV_OK);
        assert_true(af.causal); /* layer 0's */
        assert_false(af.validated);
        int rc;
        while ((rc = attnfile_check_poll(ck, &af, msg, sizeof msg)) == ATTNFILE_CHECKING)
            usleep(1000);
        assert_int_equal(rc, AV_OK);
        assert_true(af.causal == (k == 0));
        attnfile_check_free(ck);
        attnfile_close(&af);
        c[5 * 16 + 2 * 4 + 3] = 1e-30f;
    }
    free(c);
    free(a);
}

static void test_attnfile_rollout_over_map(void **state)
{
    /* expect: rollout and heads combined read through attnfile_source equal the
       NumPy references */
    (void)state;
    AttnFile af;
    NpyArray want;
    assert_int_equal(open_validate(IMP "attn_l3h2n7.npy", &af), AV_OK);
    AttnSource src;
    attnfile_source(&af, &src);
    assert_int_equal(src.L * 1000 + src.H * 100 + src.n_q * 10, 3270);
    float got[49];
    assert_int_equal(combine_rollout(&src, 2, got), AV_OK);
    assert_int_equal(npy_read(IMP "rollout_l3h2n7.npy", &want), AV_OK);
    assert_floats_near(got, want.data, 49, 2e-6);
    npy_free(&want);
    attnfile_close(&af);
    assert_int_equal(open_validate(IMP "attn_causal_f64.npy", &af), AV_OK);
    attnfile_source(&af, &src);
    assert_int_equal(combine_rollout(&src, 1, got), AV_OK);
    assert_int_equal(npy_read(IMP "rollout_causal_f64.npy", &want), AV_OK);
    assert_floats_near(got, want.data, 36, 2e-6);
    npy_free(&want);
    attnfile_close(&af);
}

static void test_attnfile_header_only(void **state)
{
    /* expect: npy_parse_header finds the shape, dtype and data offset of a file
       without its data being present beyond what the shape needs */
    Tmp *t = *state;
    float z[8] = {0};
    write_raw(t->path, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", z, sizeof z);
    unsigned char buf[256];
    FILE *f = fopen(t->path, "rb");
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    NpyInfo info;
    assert_int_equal(npy_parse_header(buf, len, len, &info), AV_OK);
    assert_int_equal(info.ndim, 2);
    assert_int_equal(info.shape[1], 4);
    assert_int_equal(info.count, 8);
    assert_int_equal(info.itemsize, 4);
    assert_int_equal(info.data_offset, len - sizeof z);
    assert_int_equal(info.data_offset % 64, 0);
    assert_int_equal(npy_parse_header(buf, len - 1, len - 1, &info), AV_ERR_NPY_FORMAT);
    /* the header alone, the data elsewhere */
    assert_int_equal(npy_parse_header(buf, len - sizeof z, len, &info), AV_OK);
    assert_int_equal(info.count, 8);
    assert_int_equal(npy_parse_header(buf, 40, len, &info), AV_ERR_NPY_FORMAT); /* cut header */
    assert_int_equal(info.ndim, 0);
    unsigned char h[257] = {0};
    size_t shape[4] = {12, 12, 2048, 2048};
    size_t hl = npy_format_header(4, shape, h, 256);
    assert_int_equal(hl % 64, 0);
    assert_non_null(strstr((const char *)h + 10, "'shape': (12, 12, 2048, 2048)"));
    assert_int_equal(npy_format_header(5, shape, h, sizeof h), 0);
}

/* Peak resident memory of this process in KiB (VmHWM), or -1. */
static long vm_hwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

static void test_attnfile_large_file_low_rss(void **state)
{
    /* expect: a sparse 512 MiB (2, 4, 4096, 4096) file validates with the process's
       peak RSS growing by less than 160 MiB (reading or keeping it whole would add
       512 MiB);
       its zero rows are a warning; a NaN in its very last value is found and placed */
    Tmp *t = *state;
    size_t shape[4] = {2, 4, 4096, 4096};
    unsigned char hdr[256];
    size_t hl = npy_format_header(4, shape, hdr, sizeof hdr);
    size_t data = (size_t)2 * 4 * 4096 * 4096 * 4;
    int fd = open(t->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, hdr, hl), (ssize_t)hl);
    float one = 1.0f;
    /* layer 2, head 4, row 4096 gets a 1 in its first column: the one good row */
    assert_int_equal(pwrite(fd, &one, 4, (off_t)(hl + data - 4096 * 4)), 4);
    assert_int_equal(ftruncate(fd, (off_t)(hl + data)), 0);
    /* reset the peak to the current RSS (Linux >= 4.0); else the baseline is the peak so far */
    int cr = open("/proc/self/clear_refs", O_WRONLY);
    if (cr >= 0) {
        assert_int_equal(write(cr, "5", 1), 1);
        close(cr);
    }
    long before = vm_hwm_kib();
    assert_true(before > 0);
    AttnFile af;
    assert_int_equal(open_validate(t->path, &af), AV_OK);
    long grew = vm_hwm_kib() - before;
    print_message("validated 512 MiB: peak RSS grew by %ld KiB\n", grew);
    assert_true(grew < 160 * 1024);
    assert_int_equal(af.bad_rows, (size_t)2 * 4 * 4096 - 1);
    assert_non_null(strstr(af.warning, "32767 of 32768 rows"));
    float buf[4096];
    assert_true(attnfile_row(&af, 1, 3, 4095, buf)[0] == 1.0f);
    attnfile_close(&af);
    float nan = NAN;
    assert_int_equal(pwrite(fd, &nan, 4, (off_t)(hl + data - 4)), 4);
    close(fd);
    expect_bad(t->path, AV_ERR_NPY_NONFINITE, "layer 2, head 4, row 4096, column 4096");
}

#if !defined(__SANITIZE_ADDRESS__)
/* Make a sparse (L, H, 4096, 4096) file of the given dtype at path whose
 * data are zeros but for the (offset, value) pairs given (values as doubles,
 * stored in the file's dtype). */
static void sparse_file(const char *path, const char *descr, int itemsize, int L, int H,
                        const size_t *at, const double *val, int count)
{
    char dict[128];
    snprintf(dict, sizeof dict,
             "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d, "
             "4096, 4096), }",
             descr, L, H);
    write_raw(path, dict, NULL, 0);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long hl = ftell(f);
    for (int k = 0; k < count; k++) {
        float v32 = (float)val[k];
        assert_int_equal(fseek(f, hl + (long)(at[k] * (size_t)itemsize), SEEK_SET), 0);
        assert_int_equal(fwrite(itemsize == 4 ? (const void *)&v32 : (const void *)&val[k],
                                (size_t)itemsize, 1, f),
                         1);
    }
    assert_int_equal(fclose(f), 0);
    assert_int_equal(truncate(path, hl + (off_t)((size_t)L * H * 4096 * 4096 * itemsize)), 0);
}

/* In a child process whose address space is limited to its current size plus
 * 256 MiB (as under ulimit -v), open path (which cannot be mapped), check
 * it, and return an exit status: 0 when it was read unmapped and rc, the
 * first row's value v0 at (l, h, i, 0) and the message agree. */
static int child_unmapped(const char *path, int want_rc, int l, int h, int i, float v0,
                          const char *part)
{
    long vm = -1;
    char line[256];
    FILE *st = fopen("/proc/self/status", "r");
    while (st && fgets(line, sizeof line, st))
        if (sscanf(line, "VmSize: %ld kB", &vm) == 1)
            break;
    if (st)
        fclose(st);
    struct rlimit lim = {(rlim_t)(vm + 256 * 1024) * 1024, (rlim_t)(vm + 256 * 1024) * 1024};
    if (vm < 0 || setrlimit(RLIMIT_AS, &lim) != 0)
        return 10;
    AttnFile af;
    float buf[4096];
    int rc = open_validate(path, &af);
    if (!af.unmapped && rc == AV_OK)
        return 11;
    if (rc != want_rc || !strstr(msg, part))
        return 12;
    if (rc == AV_OK &&
        (attnfile_head_ptr(&af, l, h) != NULL || attnfile_row(&af, l, h, i, buf)[0] != v0))
        return 13;
    attnfile_close(&af);
    return 0;
}

#endif

static void test_attnfile_unmapped_under_address_limit(void **state)
{
    /* expect: under an address-space limit smaller than the file (ulimit -v), a
       512 MiB float32 file and a 512 MiB float64 file are read with pread: the
       same checks, the same numbers, faults placed as when mapped */
    Tmp *t = *state;
#if defined(__SANITIZE_ADDRESS__)
    (void)t;
    print_message("skipped: AddressSanitizer reserves more address space than any limit\n");
    skip();
#else
    size_t last = (size_t)2 * 4 * 4096 * 4096 - 1, row_end = last - 4095;
    size_t at32[2] = {row_end, 4096 * 7 + 2};
    double val32[2] = {1.0, 0.5};
    sparse_file(t->path, "<f4", 4, 2, 4, at32, val32, 2);
    struct {
        size_t at;
        double v;
        int rc;
        int l, h, i;
        float v0;
        const char *part;
    } c[3] = {
        {0, 0, AV_OK, 1, 3, 4095, 1.0f, ""},
        {last, NAN, AV_ERR_NPY_NONFINITE, 0, 0, 0, 0, "layer 2, head 4, row 4096, column 4096"},
        {0, 0, AV_ERR_NPY_NEGATIVE, 0, 0, 0, 0, "layer 1, head 4, row 2, column 3"},
    };
    for (int k = 0; k < 3; k++) {
        if (k == 1)
            sparse_file(t->path, "<f4", 4, 2, 4, &c[1].at, &c[1].v, 1);
        if (k == 2) { /* float64, (1, 4, 4096, 4096): -1e-300 at head 4, row 2, column 3 */
            size_t at[2] = {(size_t)3 * 4096 * 4096 + 4096 + 2, 7};
            double v[2] = {-1e-300, 0.25};
            sparse_file(t->path, "<f8", 8, 1, 4, at, v, 2);
        }
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(child_unmapped(t->path, c[k].rc, c[k].l, c[k].h, c[k].i, c[k].v0, c[k].part));
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) != 0)
            print_error("case %d: child status %d\n", k, WEXITSTATUS(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_attnfile_large_file_low_rss, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_attnfile_f32_rows_heads),
        cmocka_unit_test(test_attnfile_f64_causal),
        cmocka_unit_test(test_attnfile_source_read),
        cmocka_unit_test_setup_teardown(test_attnfile_rank3_and_cross, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_bad_values, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_bad_f64_values, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_bad_shapes, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_row_sums_warning, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_causal_detection, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_check_on_thread, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_attnfile_rollout_over_map),
        cmocka_unit_test_setup_teardown(test_attnfile_header_only, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_attnfile_unmapped_under_address_limit, tmp_setup,
                                        tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
