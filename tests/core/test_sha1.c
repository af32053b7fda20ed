/* test_sha1.c - SHA-1 (sha1.h) against the FIPS 180-4 examples, NIST's
 * million 'a's fed whole and in pieces of every size, and a git blob id
 * (what the hub names a small file by). */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/sha1.h"

static void hash(const void *p, size_t len, size_t piece, char hex[41])
{
    Sha1 s;
    uint8_t d[20];
    sha1_init(&s);
    for (size_t at = 0; at < len; at += piece)
        sha1_update(&s, (const char *)p + at, len - at < piece ? len - at : piece);
    sha1_final(&s, d, hex);
}

static void test_sha1_known_vectors(void **state)
{
    /* expect: the digests of FIPS 180-4's examples, and git's id of the
     * blob "hello\n" (`git hash-object`): sha1 of "blob 6\0hello\n" */
    (void)state;
    static const struct {
        const char *msg;
        size_t len;
        const char *hex;
    } v[] = {
        {"", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
        {"abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
         "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
        {"blob 6\0hello\n", 13, "ce013625030ba8dba906f756967f9e9ca394464a"},
    };
    char hex[41];
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        hash(v[k].msg, v[k].len, 64, hex);
        assert_string_equal(hex, v[k].hex);
    }
}

static void test_sha1_million_a_in_any_pieces(void **state)
{
    /* expect: a million 'a's hash to NIST's digest whether fed whole or in
     * pieces of 1, 55, 63, 64, 65 and 4,097 bytes (each crossing a block's
     * edge differently) */
    (void)state;
    size_t n = 1000000;
    char *a = malloc(n), hex[41];
    assert_non_null(a);
    memset(a, 'a', n);
    static const size_t pieces[] = {1000000, 1, 55, 63, 64, 65, 4097};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        hash(a, n, pieces[k], hex);
        assert_string_equal(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    }
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha1_known_vectors),
        cmocka_unit_test(test_sha1_million_a_in_any_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
