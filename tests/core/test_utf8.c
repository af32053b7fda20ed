/* test_utf8.c - strict UTF-8 decoding and encoding (utf8.h). */
#include "test_common.h"

#include <string.h>

#include "core/utf8.h"

static void test_utf8_decode_encode_round_trip(void **state)
{
    /* expect: code points of every length round-trip; surrogates encode as U+FFFD */
    (void)state;
    static const unsigned cps[] = {0x24,   0x7F,   0x80,    0xE9,    0x7FF,   0x800,
                                   0x2019, 0xFFFD, 0x10000, 0x1F600, 0x10FFFF};
    static const int lens[] = {1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4};
    char buf[4];
    unsigned cp;
    for (size_t k = 0; k < sizeof(cps) / sizeof(cps[0]); k++) {
        int n = utf8_encode(cps[k], buf);
        assert_int_equal(n, lens[k]);
        assert_int_equal(utf8_decode(buf, (size_t)n, &cp), n);
        assert_int_equal(cp, cps[k]);
        assert_int_equal(utf8_decode(buf, (size_t)n - 1, &cp), 0); /* one byte short */
    }
    assert_int_equal(utf8_encode(0xD800, buf), 3);
    assert_memory_equal(buf, "\xef\xbf\xbd", 3);
    assert_int_equal(utf8_encode(0x110000, buf), 3);
    assert_memory_equal(buf, "\xef\xbf\xbd", 3);
}

static void test_utf8_rejects_overlong_surrogate_and_large(void **state)
{
    /* expect: overlong forms, surrogates, code points above U+10FFFF and a lone
     * continuation byte are invalid; the valid prefix stops at the first */
    (void)state;
    unsigned cp;
    assert_int_equal(utf8_decode("\xc0\xaf", 2, &cp), 0);         /* overlong '/' */
    assert_int_equal(utf8_decode("\xe0\x80\xaf", 3, &cp), 0);     /* overlong, 3 bytes */
    assert_int_equal(utf8_decode("\xed\xa0\x80", 3, &cp), 0);     /* U+D800 */
    assert_int_equal(utf8_decode("\xf4\x90\x80\x80", 4, &cp), 0); /* U+110000 */
    assert_int_equal(utf8_decode("\x80", 1, &cp), 0);
    assert_int_equal(utf8_valid_prefix("ab\xc3\xa9\xff", 5), 4);
    assert_int_equal(utf8_valid_prefix("ab\xc3", 3), 2);
}

static void test_utf8_valid_prefix_long_ascii_runs(void **state)
{
    /* expect: ASCII is checked eight bytes at a time; a bad byte or a
     * truncated sequence at every offset of a long run, and a valid one after
     * it, give the same prefix as byte by byte */
    (void)state;
    char buf[40];
    for (int at = 0; at < 30; at++) {
        memset(buf, 'a', sizeof buf);
        buf[at] = (char)0xff;
        assert_int_equal(utf8_valid_prefix(buf, sizeof buf), at);
        assert_int_equal(utf8_valid_prefix(buf, (size_t)at), at); /* ends before it */
        memcpy(buf + at, "\xc3\xa9", 2); /* e acute: valid, the run goes on */
        assert_int_equal(utf8_valid_prefix(buf, sizeof buf), sizeof buf);
        buf[at + 1] = 'a'; /* a lead byte without its continuation */
        assert_int_equal(utf8_valid_prefix(buf, sizeof buf), at);
    }
    assert_int_equal(utf8_valid_prefix("", 0), 0);
    assert_int_equal(utf8_valid_prefix("abcdefgh", 8), 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_decode_encode_round_trip),
        cmocka_unit_test(test_utf8_rejects_overlong_surrogate_and_large),
        cmocka_unit_test(test_utf8_valid_prefix_long_ascii_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
