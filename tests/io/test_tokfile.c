/* test_tokfile.c - token files of imported attention: one a line and JSON
 * lists (escapes, surrogate pairs), made printable, cut, counted, and every
 * malformed file refused with a message that places the fault.
 */
#include "test_common.h"

#define TEST_TMP_FILE "t.txt"
#include "test_tmp.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/tokfile.h"

#define IMP TEST_DATA_DIR "/import/"

static char msg[256];

static void put(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Write s (NUL-terminated) to the temp file and read it. */
static int read_str(Tmp *t, const char *s, int max, TokenList *tl)
{
    put(t->path, s, strlen(s));
    msg[0] = '\0';
    return tokfile_read(t->path, 0, max, tl, msg, sizeof msg);
}

static const char *const SEVEN[7] = {
    "The", "caf\xc3\xa9", "[CLS]", "two words", "\xf0\x9f\x98\x80", "\xc4\xa0it", "."};

static void check_seven(const TokenList *tl)
{
    assert_int_equal(tl->n, 7);
    size_t pos = 0;
    for (int k = 0; k < 7; k++) {
        assert_string_equal(tl->tok[k].str, SEVEN[k]);
        assert_int_equal(tl->tok[k].len, strlen(SEVEN[k]));
        assert_int_equal(tl->tok[k].start, pos);
        pos += strlen(SEVEN[k]) + 1;
    }
}

static void test_tokfile_lines_and_json_agree(void **state)
{
    /* expect: the committed one-a-line and JSON files (escapes, \u00e9, a surrogate
       pair, \u0120) give the same 7 tokens, "[CLS]" first in a line file is a token */
    (void)state;
    TokenList a = {0}, b = {0};
    assert_int_equal(tokfile_read(IMP "tokens7.txt", 0, 100, &a, msg, sizeof msg), AV_OK);
    check_seven(&a);
    assert_int_equal(tokfile_read(IMP "tokens7.json", 0, 100, &b, msg, sizeof msg), AV_OK);
    check_seven(&b);
    char *text;
    size_t len;
    assert_int_equal(tokfile_text(&b, &text, &len), AV_OK);
    assert_int_equal(len, strlen(text));
    assert_memory_equal(text + b.tok[3].start, "two words", 9);
    free(text);
    tokenize_free(&a);
    tokenize_free(&b);
    assert_null(b.tok);
}

static void test_tokfile_lines_rules(void **state)
{
    /* expect: CRLF and a BOM are dropped, an empty line is a token (U+2205), only
       one final newline ends the file, a tab becomes U+2409 */
    Tmp *t = *state;
    TokenList tl = {0};
    assert_int_equal(read_str(t,
                              "\xEF\xBB\xBF"
                              "a\r\n\r\nb\tc\r\n",
                              10, &tl),
                     AV_OK);
    assert_int_equal(tl.n, 3);
    assert_string_equal(tl.tok[0].str, "a");
    assert_string_equal(tl.tok[1].str, "\xe2\x88\x85");
    assert_string_equal(tl.tok[2].str, "b\xe2\x90\x89"
                                       "c");
    tokenize_free(&tl);
    assert_int_equal(read_str(t, "x\ny", 10, &tl), AV_OK);
    assert_int_equal(tl.n, 2);
    tokenize_free(&tl);
    assert_int_equal(read_str(t, "x\ny\n\n", 10, &tl), AV_OK);
    assert_int_equal(tl.n, 3);
    tokenize_free(&tl);
}

static void test_tokfile_json_escapes(void **state)
{
    /* expect: every JSON escape, \u0000 and a newline shown as control pictures,
       an empty list is no token, spaces around the list are fine */
    Tmp *t = *state;
    TokenList tl = {0};
    assert_int_equal(read_str(t,
                              " [ \"\\\"\\\\\\/\", \"\\b\\f\\n\\r\\t\", \"\\u0000\", \"\" ,"
                              "\"\\u00E9\\ud83d\\ude00\"]\n",
                              10, &tl),
                     AV_OK);
    assert_int_equal(tl.n, 5);
    assert_string_equal(tl.tok[0].str, "\"\\/");
    assert_string_equal(tl.tok[1].str, "\xe2\x90\x88\xe2\x90\x8c\xe2\x90\x8a\xe2\x90\x8d"
                                       "\xe2\x90\x89");
    assert_string_equal(tl.tok[2].str, "\xe2\x90\x80");
    assert_string_equal(tl.tok[3].str, "\xe2\x88\x85");
    assert_string_equal(tl.tok[4].str, "\xc3\xa9\xf0\x9f\x98\x80");
    tokenize_free(&tl);
    assert_int_equal(read_str(t, "  []  ", 10, &tl), AV_ERR_EMPTY);
    assert_non_null(strstr(msg, "no token"));
}

static void test_tokfile_bad_json(void **state)
{
    /* expect: malformed lists are TOKFILE_ERR naming the byte; bad UTF-8 inside a
       string is AV_ERR_UTF8; nothing is left allocated */
    Tmp *t = *state;
    const char *bad[] = {"[\"a\"",     "[\"a\",]",      "[\"a\" \"b\"]", "[\"a\"] x",
                         "[\"\\x\"]",  "[\"\\ud83d\"]", "[\"\\ude00\"]", "[\"\\u12G4\"]",
                         "[\"a\nb\"]", "[\"a\", 1]",    "[\"a\"}"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        TokenList tl = {0};
        int rc = read_str(t, bad[k], 10, &tl);
        if (rc != TOKFILE_ERR)
            print_error("'%s' gave %d '%s'\n", bad[k], rc, msg);
        assert_int_equal(rc, TOKFILE_ERR);
        assert_non_null(strstr(msg, "t.txt: byte "));
        assert_null(tl.tok);
    }
    TokenList tl = {0};
    assert_int_equal(read_str(t, "[\"a\", \"\\x\"]", 10, &tl), TOKFILE_ERR);
    assert_string_equal(msg, "t.txt: byte 10: a string has a bad escape");
    assert_int_equal(read_str(t, "[\"ok\", \"\xC3\x28\"]", 10, &tl), AV_ERR_UTF8);
    assert_string_equal(msg, "t.txt: byte 9: not valid UTF-8");
}

static void test_tokfile_limits(void **state)
{
    /* expect: invalid UTF-8 names its line; more than max tokens, an empty file and a
       missing file are refused; a 300-byte token is cut to 256 bytes at a code point */
    Tmp *t = *state;
    TokenList tl = {0};
    assert_int_equal(read_str(t, "ok\nbad\xff\n", 10, &tl), AV_ERR_UTF8);
    assert_string_equal(msg, "t.txt: line 2 is not valid UTF-8 (byte 4 of the line)");
    assert_int_equal(read_str(t, "a\nb\nc\n", 2, &tl), AV_ERR_TOO_MANY);
    assert_string_equal(msg, "t.txt: more than 2 tokens");
    assert_int_equal(read_str(t, "", 2, &tl), AV_ERR_EMPTY);
    assert_int_equal(tokfile_read(IMP "none.txt", 0, 5, &tl, msg, sizeof msg), AV_ERR_IO);
    assert_non_null(strstr(msg, "none.txt: No such file"));
    char longtok[302];
    longtok[0] = 'x';
    for (int k = 1; k < 301; k += 2)
        memcpy(longtok + k, "\xc3\xa9", 2); /* 'x' then 150 two-byte letters */
    longtok[301] = '\0';
    assert_int_equal(read_str(t, longtok, 5, &tl), AV_OK);
    assert_int_equal(tl.tok[0].len, 255); /* 'x' + 127 letters: the next would pass 256 */
    tokenize_free(&tl);
}

/* fuzz_attn's finding: C1 controls (U+0085, U+009B: CSI to some
 * terminals) went to the screen as they were; they become U+FFFD. */
static void test_tokfile_c1_controls(void **state)
{
    Tmp *t = *state;
    TokenList tl = {0};
    assert_int_equal(read_str(t,
                              "a\xc2\x9b"
                              "b\n\xc2\x85\n\xc2\xa0x\n",
                              8, &tl),
                     AV_OK);
    assert_int_equal(tl.n, 3);
    assert_string_equal(tl.tok[0].str, "a\xef\xbf\xbd"
                                       "b");
    assert_string_equal(tl.tok[1].str, "\xef\xbf\xbd");
    assert_string_equal(tl.tok[2].str, "\xc2\xa0x"); /* U+00A0 is printable */
    tokenize_free(&tl);
}

static void test_tokfile_numbered(void **state)
{
    /* expect: no path gives tokens "1".."n" */
    (void)state;
    TokenList tl = {0};
    assert_int_equal(tokfile_read(NULL, 12, 100, &tl, msg, sizeof msg), AV_OK);
    assert_int_equal(tl.n, 12);
    assert_string_equal(tl.tok[0].str, "1");
    assert_string_equal(tl.tok[11].str, "12");
    assert_int_equal(tl.tok[11].start, 9 * 2 + 2 * 3);
    tokenize_free(&tl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokfile_lines_and_json_agree),
        cmocka_unit_test_setup_teardown(test_tokfile_lines_rules, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_tokfile_json_escapes, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_tokfile_bad_json, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_tokfile_limits, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_tokfile_c1_controls, tmp_setup, tmp_teardown),
        cmocka_unit_test(test_tokfile_numbered),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
