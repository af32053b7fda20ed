/* test_safetensors.c - the safetensors reader on file images made here: valid
 * layouts (any data order, scalars, empty tensors, padded headers), every
 * refusal with its message, the exhaustive F16 and BF16 conversions against
 * a reference written from the formats' definitions, and F32 in place or
 * copied by alignment in real mapped files.
 */
#include "test_common.h"

#define TEST_TMP_FILE "w.st"
#include "test_tmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/safetensors.h"

#define BUF_MAX 4096

/* A file image: the 8-byte length, the header (padded with spaces to pad
 * bytes when longer), then data. Returns the total length. */
static size_t image(unsigned char *buf, const char *header, size_t pad, const void *data,
                    size_t dlen)
{
    size_t n = strlen(header);
    size_t hn = pad > n ? pad : n;
    for (int k = 0; k < 8; k++)
        buf[k] = (unsigned char)(hn >> (8 * k));
    memcpy(buf + 8, header, n);
    memset(buf + 8 + n, ' ', hn - n);
    if (dlen)
        memcpy(buf + 8 + hn, data, dlen);
    return 8 + hn + dlen;
}

static bool is_zeroed(const StFile *f)
{
    static const StFile zero;
    return memcmp(f, &zero, sizeof zero) == 0;
}

/* Parse header + dlen bytes of data; expect refusal with want in the reason. */
static void refused(const char *header, size_t dlen, const char *want)
{
    static unsigned char buf[BUF_MAX], data[BUF_MAX];
    char why[512] = "";
    StFile f;
    size_t len = image(buf, header, 0, data, dlen);
    int rc = st_parse(buf, len, "x.safetensors", &f, why, sizeof why);
    if (rc != AV_ERR_MODEL || !strstr(why, want) || strncmp(why, "x.safetensors: ", 15) != 0 ||
        strchr(why, '\n')) {
        print_error("header %s\n  rc %d, why \"%s\"; wanted \"%s\"\n", header, rc, why, want);
        fail();
    }
    assert_true(is_zeroed(&f));
}

/* A tensor of two (2, 3) F32 arrays, data in the reverse of the header's
 * order, is read whole; st_find finds each. */
static void test_st_parse_two_tensors(void **state)
{
    (void)state;
    unsigned char buf[BUF_MAX];
    float data[12];
    for (int k = 0; k < 12; k++)
        data[k] = (float)k + 0.5f;
    size_t len = image(buf,
                       "{\"__metadata__\":{\"format\":\"pt\"},"
                       "\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[24,48]},"
                       "\"b\":{\"data_offsets\":[0,24],\"shape\":[3,2],\"dtype\":\"F32\"}}",
                       0, data, sizeof data);
    StFile f;
    char why[256];
    assert_int_equal(st_parse(buf, len, "x", &f, why, sizeof why), AV_OK);
    assert_int_equal(f.n, 2);
    const StTensor *a = st_find(&f, "a"), *b = st_find(&f, "b");
    assert_non_null(a);
    assert_non_null(b);
    assert_null(st_find(&f, "c"));
    assert_int_equal(a->ndim, 2);
    assert_int_equal(a->shape[0], 2);
    assert_int_equal(a->shape[1], 3);
    assert_int_equal(a->count, 6);
    assert_int_equal(a->dtype, ST_F32);
    float out[6];
    assert_int_equal(st_load_f32(&f, a, out), AV_OK);
    assert_memory_equal(out, data + 6, sizeof out);
    assert_int_equal(st_load_f32(&f, b, out), AV_OK);
    assert_memory_equal(out, data, sizeof out);
    st_close(&f);
    assert_true(is_zeroed(&f));
}

/* A scalar, an empty tensor, an empty header and trailing spaces are valid. */
static void test_st_parse_edge_layouts(void **state)
{
    (void)state;
    unsigned char buf[BUF_MAX];
    const unsigned char data[4] = {1, 2, 3, 4};
    StFile f;
    char why[256];
    size_t len = image(buf,
                       "{\"s\":{\"dtype\":\"I32\",\"shape\":[],\"data_offsets\":[0,4]},"
                       "\"e\":{\"dtype\":\"F16\",\"shape\":[0,7],\"data_offsets\":[4,4]}}",
                       200, data, 4);
    assert_int_equal(st_parse(buf, len, "x", &f, why, sizeof why), AV_OK);
    assert_int_equal(f.n, 2);
    assert_int_equal(st_find(&f, "s")->count, 1);
    assert_int_equal(st_find(&f, "s")->ndim, 0);
    assert_int_equal(st_find(&f, "e")->count, 0);
    assert_int_equal(f.data_start, 208);
    st_close(&f);
    len = image(buf, "{}", 0, NULL, 0);
    assert_int_equal(st_parse(buf, len, "x", &f, why, sizeof why), AV_OK);
    assert_int_equal(f.n, 0);
    assert_null(st_find(&f, "a"));
    st_close(&f);
}

/* The length prefix: too short, past the end, beyond the 100 MB cap. */
static void test_st_parse_refuses_bad_length(void **state)
{
    (void)state;
    unsigned char buf[64] = {0};
    StFile f;
    char why[256];
    assert_int_equal(st_parse(buf, 5, "x.st", &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "x.st: 5 bytes, too short"));
    buf[0] = 60;
    assert_int_equal(st_parse(buf, 64, "x.st", &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "runs past the end of the file (64 bytes)"));
    memset(buf, 0xff, 8);
    assert_int_equal(st_parse(buf, 64, "x.st", &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "beyond the limit of 100 MB"));
    assert_true(is_zeroed(&f));
}

/* Each malformed header is refused with its own reason. */
static void test_st_parse_refuses_bad_headers(void **state)
{
    (void)state;
    refused("[]", 0, "header byte 8: the header is not a JSON object");
    refused("{\"a\":{\"dtype\":\"F32\" \"shape\":[1],\"data_offsets\":[0,4]}}", 4,
            "tensor \"a\": the object is not closed");
    refused("{\"a\xff\":{}}", 0, "a string is not valid UTF-8");
    refused("{\"a\\nb\\u0085\":{\"dtype\":\"F\\t\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
            "tensor \"a\\x0ab\\x85\": unknown dtype \"F\\x09\"");
    refused("{\"a\":{\"dtype\":\"F31\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
            "tensor \"a\": unknown dtype \"F31\"");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,16],"
            "\"data_offsets\":[0,4]}}",
            4, "tensor \"a\": the shape's product overflows 64 bits");
    refused("{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,536870912],"
            "\"data_offsets\":[0,4]}}",
            4, "tensor \"a\": the shape's size in bytes overflows 64 bits");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}", 4,
            "more than 8 dimensions");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4,
            "not a whole number");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4,
            "not a whole number");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 4,
            "data_offsets [0, 8) run past the end of the data (4 bytes)");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8,
            "end before they begin");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,20]}}", 20,
            "data_offsets [0, 20) hold 20 bytes; its shape of F32 needs 24");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, "tensor \"a\": no \"data_offsets\"");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", 4,
            "unknown field \"x\"");
    refused("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
            "field \"dtype\" appears twice");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}} x", 4,
            "bytes follow the header's JSON object");
    refused("{\"__metadata__\":{\"k\":1}}", 0, "header byte 29: a string was expected");
    refused("{\"__metadata__\":{},\"__metadata__\":{}}", 0, "\"__metadata__\" appears twice");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
            "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
            8, "tensor \"a\": appears twice in the header");
}

/* The data must be covered exactly: holes (between, at the start, at the
 * end) and overlaps are refused, naming the tensor. */
static void test_st_parse_refuses_holes_and_overlaps(void **state)
{
    (void)state;
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
            12, "tensor \"b\": bytes [4, 8) of the data before it belong to no tensor");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8,
            "tensor \"a\": bytes [0, 4) of the data before it belong to no tensor");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 12,
            "bytes [4, 12) at the end of the data belong to no tensor");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
            "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
            8, "tensor \"b\": data_offsets [4, 8) overlap \"a\"");
    refused("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
            4, "overlap");
}

/* The IEEE half, decoded from its definition in double. */
static float ref_f16(unsigned h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(1024 + m, (int)e - 25);
    return (float)((h & 0x8000) ? -v : v);
}

static float ref_bf16(unsigned h)
{
    unsigned e = (h >> 7) & 255, m = h & 127;
    double v = e == 0     ? ldexp(m, -133)
               : e == 255 ? (m ? NAN : INFINITY)
                          : ldexp(128 + m, (int)e - 134);
    return (float)((h & 0x8000) ? -v : v);
}

static uint32_t bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
}

/* Every one of the 65,536 halves and bfloat16s: the same float32 bits as the
 * definition (signed zeros, subnormals, infinities); NaNs keep sign and
 * payload. */
static void test_st_f16_bf16_exhaustive(void **state)
{
    (void)state;
    int nans = 0, subnormals = 0;
    for (unsigned h = 0; h < 65536; h++) {
        float a = st_f16_to_f32((uint16_t)h), r = ref_f16(h);
        float b = st_bf16_to_f32((uint16_t)h), rb = ref_bf16(h);
        if (isnan(r)) {
            assert_true(isnan(a));
            assert_int_equal(bits(a), (h & 0x8000u) << 16 | 0x7f800000u | (h & 0x3ffu) << 13);
            nans++;
        } else if (bits(a) != bits(r)) {
            print_error("half 0x%04x: %a, reference %a\n", h, (double)a, (double)r);
            fail();
        }
        subnormals += ((h >> 10) & 31) == 0 && (h & 1023) != 0;
        if (isnan(rb)) {
            assert_true(isnan(b));
            assert_int_equal(bits(b), h << 16);
        } else if (bits(b) != bits(rb)) {
            print_error("bfloat16 0x%04x: %a, reference %a\n", h, (double)b, (double)rb);
            fail();
        }
    }
    assert_int_equal(nans, 2 * 1023);
    assert_int_equal(subnormals, 2 * 1023);
    assert_true(st_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(st_f16_to_f32(0x7bff) == 65504.0f);
    assert_true(st_bf16_to_f32(0x3f80) == 1.0f);
}

/* st_load_f32 over a tensor holding all 65,536 halves (and bfloat16s) gives
 * the scalar conversions, bit for bit. */
static void test_st_load_f16_bf16_tensor(void **state)
{
    (void)state;
    static unsigned char buf[8 + 256 + 2 * 131072];
    static float out[65536];
    unsigned char data[131072];
    for (unsigned h = 0; h < 65536; h++)
        data[2 * h] = (unsigned char)h, data[2 * h + 1] = (unsigned char)(h >> 8);
    for (int bf = 0; bf < 2; bf++) {
        char header[256];
        snprintf(header, sizeof header,
                 "{\"all\":{\"dtype\":\"%s\",\"shape\":[256,256],\"data_offsets\":[0,131072]}}",
                 bf ? "BF16" : "F16");
        size_t len = image(buf, header, 0, data, sizeof data);
        StFile f;
        char why[256];
        assert_int_equal(st_parse(buf, len, "x", &f, why, sizeof why), AV_OK);
        const StTensor *t = st_find(&f, "all");
        assert_null(st_f32_in_place(&f, t));
        assert_int_equal(st_load_f32(&f, t, out), AV_OK);
        for (unsigned h = 0; h < 65536; h++) {
            float want = bf ? st_bf16_to_f32((uint16_t)h) : st_f16_to_f32((uint16_t)h);
            assert_int_equal(bits(out[h]), bits(want));
        }
        st_close(&f);
    }
}

/* Messages show names on one line: controls escaped, long names cut at a
 * character. */
static void test_st_printable(void **state)
{
    (void)state;
    char buf[16];
    assert_string_equal(st_printable(buf, sizeof buf, "h.0.ln"), "h.0.ln");
    assert_string_equal(st_printable(buf, sizeof buf, "a\nb\x7f"), "a\\x0ab\\x7f");
    const char *l7 = "\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb";
    assert_string_equal(st_printable(buf, sizeof buf, l7 + 2), l7 + 2);
    assert_string_equal(st_printable(buf, sizeof buf, l7),
                        "\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb\xce\xbb...");
    assert_string_equal(st_printable(buf, sizeof buf, "abcdefghijklmnopq"), "abcdefghijkl...");
    assert_string_equal(st_printable(buf, sizeof buf, "\xff"), "\\xff");
}

static void write_file(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A mapped file: F32 data at an aligned start is used in place; at a start
 * of 3 modulo 4 (as gpt2's 14,291) it is not, and st_load_f32 copies it. */
static void test_st_open_alignment(void **state)
{
    Tmp *t = *state;
    unsigned char buf[BUF_MAX];
    float data[6] = {1.5f, -2.25f, 3e-39f, 4.0f, -0.0f, 65504.0f}, out[6];
    const char *h = "{\"w\":{\"dtype\":\"F32\",\"shape\":[6],\"data_offsets\":[0,24]}}";
    for (int mis = 0; mis < 2; mis++) {
        size_t pad = (strlen(h) + 16) / 8 * 8 + (mis ? 3 : 0);
        size_t len = image(buf, h, pad, data, sizeof data);
        write_file(t->path, buf, len);
        StFile f;
        char why[256];
        assert_int_equal(st_open(t->path, &f, why, sizeof why), AV_OK);
        assert_true(f.mapped);
        assert_int_equal(f.data_start % 4, mis ? 3 : 0);
        const StTensor *w = st_find(&f, "w");
        const float *p = st_f32_in_place(&f, w);
        if (mis) {
            assert_null(p);
        } else {
            assert_ptr_equal(p, st_data(&f, w));
            assert_memory_equal(p, data, sizeof data);
        }
        assert_int_equal(st_load_f32(&f, w, out), AV_OK);
        assert_memory_equal(out, data, sizeof data);
        st_close(&f);
        assert_true(is_zeroed(&f));
    }
}

/* st_open: a missing file and a folder are I/O failures; an empty file and
 * a malformed one are refused with the file's base name. */
static void test_st_open_refusals(void **state)
{
    Tmp *t = *state;
    StFile f;
    char why[512], path[256];
    snprintf(path, sizeof path, "%s/none.safetensors", t->dir);
    assert_int_equal(st_open(path, &f, why, sizeof why), AV_ERR_IO);
    assert_non_null(strstr(why, "No such file"));
    assert_int_equal(st_open(t->dir, &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "not a regular file"));
    /* a FIFO nobody writes to: refused at once, never a wait for a writer */
    snprintf(path, sizeof path, "%s/fifo.safetensors", t->dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(st_open(path, &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "not a regular file"));
    unlink(path);
    write_file(t->path, (const unsigned char *)"", 0);
    assert_int_equal(st_open(t->path, &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "st: 0 bytes, too short"));
    unsigned char buf[64];
    size_t len = image(buf, "{\"a\":1}", 0, NULL, 0);
    write_file(t->path, buf, len);
    assert_int_equal(st_open(t->path, &f, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "st: tensor \"a\": not an object"));
    assert_true(is_zeroed(&f));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_st_parse_two_tensors),
        cmocka_unit_test(test_st_parse_edge_layouts),
        cmocka_unit_test(test_st_parse_refuses_bad_length),
        cmocka_unit_test(test_st_parse_refuses_bad_headers),
        cmocka_unit_test(test_st_parse_refuses_holes_and_overlaps),
        cmocka_unit_test(test_st_printable),
        cmocka_unit_test(test_st_f16_bf16_exhaustive),
        cmocka_unit_test(test_st_load_f16_bf16_tensor),
        cmocka_unit_test_setup_teardown(test_st_open_alignment, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_st_open_refusals, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
