/* test_sha256.c - SHA-256 (sha256.h) against the FIPS 180-4 examples and
 * the NIST vectors, whole and fed in pieces of every size, both ways it
 * hashes: with the processor's SHA extensions and in plain C. */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"

/* The two ways to hash (sha256.h): the processor's SHA extensions where it
 * has them, and plain C; every test below holds for both. */
typedef void (*Init)(Sha256 *s);
static const Init inits[] = {sha256_init, sha256_init_portable};
static Init init = sha256_init;

static void hash(const void *p, size_t len, size_t piece, char hex[65])
{
    Sha256 s;
    uint8_t d[32];
    init(&s);
    for (size_t at = 0; at < len; at += piece)
        sha256_update(&s, (const char *)p + at, len - at < piece ? len - at : piece);
    sha256_final(&s, d, hex);
}

static void test_sha256_known_vectors(void **state)
{
    /* expect: the digests FIPS 180-4's examples and NIST's short vectors give */
    (void)state;
    static const struct {
        const char *msg, *hex;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklm"
         "nopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    char hex[65];
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        hash(v[k].msg, strlen(v[k].msg), 64, hex);
        assert_string_equal(hex, v[k].hex);
    }
}

static void test_sha256_million_a_in_any_pieces(void **state)
{
    /* expect: a million 'a's hash to NIST's digest whether fed whole or in
     * pieces of 1, 55, 63, 64, 65 and 4,097 bytes (each crossing a block's
     * edge differently) */
    (void)state;
    size_t n = 1000000;
    char *a = malloc(n), hex[65];
    assert_non_null(a);
    memset(a, 'a', n);
    static const size_t pieces[] = {1000000, 1, 55, 63, 64, 65, 4097};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        hash(a, n, pieces[k], hex);
        assert_string_equal(hex,
                            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
    free(a);
}

static void test_sha256_padding_edges(void **state)
{
    /* expect: messages of 55, 56, 63 and 64 bytes (where the length moves to
     * a second padding block) give the digests Python's hashlib gives */
    (void)state;
    static const struct {
        size_t n;
        const char *hex;
    } v[] = {
        {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
        {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
    };
    char a[64], hex[65];
    memset(a, 'a', sizeof a);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        hash(a, v[k].n, 7, hex);
        assert_string_equal(hex, v[k].hex);
    }
}

static void test_sha256_two_ways_agree(void **state)
{
    /* expect: on 3 MB of pseudo-random bytes cut at every length from 0 to
     * 300 and at 1 MB past a block's edge, the processor's way and plain C
     * give the same digest (where the processor has no SHA extensions both
     * are plain C, and the vectors above hold them to the standard) */
    (void)state;
    const size_t n = 3u << 20;
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    uint32_t x = 2463534242u;
    for (size_t k = 0; k < n; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        buf[k] = (uint8_t)(x >> 24);
    }
    static const size_t big[] = {(1u << 20) + 1, (1u << 20) + 63, 3u << 20};
    char a[65], b[65];
    for (size_t len = 0; len <= 300 + 3; len++) {
        const size_t L = len <= 300 ? len : big[len - 301];
        init = inits[0], hash(buf, L, 4096, a);
        init = inits[1], hash(buf, L, 4096, b);
        assert_string_equal(a, b);
    }
    init = sha256_init;
    free(buf);
}

/* Every test of the standard's vectors, with each way to hash. */
static int use_accelerated(void **state)
{
    (void)state;
    init = inits[0];
    return 0;
}

static int use_portable(void **state)
{
    (void)state;
    init = inits[1];
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_sha256_known_vectors, use_accelerated),
        cmocka_unit_test_setup(test_sha256_million_a_in_any_pieces, use_accelerated),
        cmocka_unit_test_setup(test_sha256_padding_edges, use_accelerated),
        cmocka_unit_test_setup(test_sha256_known_vectors, use_portable),
        cmocka_unit_test_setup(test_sha256_million_a_in_any_pieces, use_portable),
        cmocka_unit_test_setup(test_sha256_padding_edges, use_portable),
        cmocka_unit_test(test_sha256_two_ways_agree),
    };
    Sha256 s;
    sha256_init(&s);
    printf("# sha256: %s\n", sha256_accelerated(&s) ? "the processor's SHA extensions and plain C"
                                                    : "plain C only (no SHA extensions here)");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
