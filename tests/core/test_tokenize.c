/* test_tokenize.c - the tokeniser rule of tokenize.h, on the seed articles'
 * sentences and on the edges: UTF-8 validation, limits and long words.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/tokenize.h"
#include "core/utf8.h"

/* Tokenise a NUL-terminated string with the default limit, expecting success. */
static TokenList tok_ok(const char *text)
{
    TokenList tl = {0};
    assert_int_equal(tokenize(text, strlen(text), AV_MAX_TOKENS_DEFAULT, &tl), AV_OK);
    return tl;
}

static void check_tok(const TokenList *tl, int i, const char *str, size_t start)
{
    assert_true(i < tl->n);
    assert_string_equal(tl->tok[i].str, str);
    assert_int_equal(tl->tok[i].start, start);
    assert_int_equal(tl->tok[i].len, strlen(str));
}

static void test_tokenize_many_tokens_spans(void **state)
{
    (void)state;
    /* 63 to 66 tokens and 300: the first pass keeps the spans of up to 64
     * tokens, more are found again; every count gives the same tokens. */
    static const int counts[] = {63, 64, 65, 66, 300};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        char text[4096], want[16];
        size_t len = 0, starts[300];
        for (int k = 0; k < counts[c]; k++) {
            /* one space before each word, two before every third */
            len += (size_t)snprintf(text + len, sizeof text - len, k % 3 == 1 ? "  " : " ");
            starts[k] = len;
            len += (size_t)snprintf(text + len, sizeof text - len, "w%d", k);
        }
        TokenList tl;
        assert_int_equal(tokenize(text, len, 1000, &tl), AV_OK);
        assert_int_equal(tl.n, counts[c]);
        for (int k = 0; k < counts[c]; k++) {
            snprintf(want, sizeof want, "w%d", k);
            check_tok(&tl, k, want, starts[k]);
        }
        tokenize_free(&tl);
        assert_int_equal(tokenize(text, len, counts[c] - 1, &tl), AV_ERR_TOO_MANY);
        tokenize_free(&tl);
    }
}

static void test_tokenize_cat_sentence_spans(void **state)
{
    /* expect: 10 words and the final period, each with its exact byte span */
    (void)state;
    TokenList tl = tok_ok("The cat sat on the mat because it was tired.");
    static const char *words[] = {"The",     "cat", "sat", "on",    "the", "mat",
                                  "because", "it",  "was", "tired", "."};
    static const size_t starts[] = {0, 4, 8, 12, 15, 19, 23, 31, 34, 38, 43};
    assert_int_equal(tl.n, 11);
    for (int i = 0; i < 11; i++)
        check_tok(&tl, i, words[i], starts[i]);
    tokenize_free(&tl);
}

static void test_tokenize_contraction_one_token(void **state)
{
    /* expect: "didn't" stays one token, 12 tokens in all */
    (void)state;
    TokenList tl = tok_ok("The trophy didn't fit in the suitcase because it was too big");
    assert_int_equal(tl.n, 12);
    check_tok(&tl, 2, "didn't", 11);
    check_tok(&tl, 11, "big", 57);
    tokenize_free(&tl);
}

static void test_tokenize_anna_sentence(void **state)
{
    /* expect: 8 words and the period */
    (void)state;
    TokenList tl = tok_ok("Anna saw the dog and she petted it.");
    assert_int_equal(tl.n, 9);
    check_tok(&tl, 0, "Anna", 0);
    check_tok(&tl, 6, "petted", 25);
    check_tok(&tl, 8, ".", 34);
    tokenize_free(&tl);
}

static void test_tokenize_numbers_keep_separators(void **state)
{
    /* expect: "3.14" and "1,024" whole; a comma or period not followed by a digit split */
    (void)state;
    TokenList tl = tok_ok("pi is 3.14 and 1,024 items, 2.");
    assert_int_equal(tl.n, 9);
    check_tok(&tl, 2, "3.14", 6);
    check_tok(&tl, 4, "1,024", 15);
    check_tok(&tl, 5, "items", 21);
    check_tok(&tl, 6, ",", 26);
    check_tok(&tl, 7, "2", 28);
    check_tok(&tl, 8, ".", 29);
    tokenize_free(&tl);
}

static void test_tokenize_apostrophe_needs_letters_both_sides(void **state)
{
    /* expect: O'Neil and it's joined; a leading or trailing quote is its own token */
    (void)state;
    TokenList tl = tok_ok("O'Neil said it's the dogs' 'toy'");
    assert_int_equal(tl.n, 9);
    check_tok(&tl, 0, "O'Neil", 0);
    check_tok(&tl, 2, "it's", 12);
    check_tok(&tl, 4, "dogs", 21);
    check_tok(&tl, 5, "'", 25);
    check_tok(&tl, 6, "'", 27);
    check_tok(&tl, 7, "toy", 28);
    check_tok(&tl, 8, "'", 31);
    tokenize_free(&tl);
}

static void test_tokenize_right_single_quote_apostrophe(void **state)
{
    /* expect: "it\u2019s" (6 bytes) is one token */
    (void)state;
    TokenList tl = tok_ok("it\xe2\x80\x99s fine");
    assert_int_equal(tl.n, 2);
    check_tok(&tl, 0, "it\xe2\x80\x99s", 0);
    check_tok(&tl, 1, "fine", 7);
    tokenize_free(&tl);
}

static void test_tokenize_utf8_words(void **state)
{
    /* expect: accented letters stay inside words; byte spans count bytes */
    (void)state;
    TokenList tl = tok_ok("na\xc3\xafve caf\xc3\xa9");
    assert_int_equal(tl.n, 2);
    check_tok(&tl, 0, "na\xc3\xafve", 0);
    check_tok(&tl, 1, "caf\xc3\xa9", 7);
    tokenize_free(&tl);
}

static void test_tokenize_cjk_run_and_punctuation(void **state)
{
    /* expect: a CJK run is one word; U+3002 and U+FF01 are punctuation tokens */
    (void)state;
    TokenList tl = tok_ok("\xe7\x8c\xab\xe3\x81\x8c\xe5\xa5\xbd\xe3\x81\x8d\xe3\x80\x82"
                          "\xef\xbc\x81");
    assert_int_equal(tl.n, 3);
    check_tok(&tl, 0, "\xe7\x8c\xab\xe3\x81\x8c\xe5\xa5\xbd\xe3\x81\x8d", 0);
    check_tok(&tl, 1, "\xe3\x80\x82", 12);
    check_tok(&tl, 2, "\xef\xbc\x81", 15);
    tokenize_free(&tl);
}

static void test_tokenize_unicode_spaces_separate(void **state)
{
    /* expect: NBSP, U+3000 and a BOM separate words and are never tokens */
    (void)state;
    TokenList tl = tok_ok("\xef\xbb\xbf"
                          "a\xc2\xa0"
                          "b\xe3\x80\x80"
                          "c\xe2\x80\x83"
                          "d");
    assert_int_equal(tl.n, 4);
    check_tok(&tl, 0, "a", 3);
    check_tok(&tl, 1, "b", 6);
    check_tok(&tl, 2, "c", 10);
    check_tok(&tl, 3, "d", 14);
    tokenize_free(&tl);
}

static void test_tokenize_controls_separate(void **state)
{
    /* expect: tab, newline, U+0001, DEL and a NUL byte separate four words */
    (void)state;
    const char text[] = "a\tb\n\x01"
                        "c\x7f\0d";
    TokenList tl = {0};
    assert_int_equal(tokenize(text, sizeof(text) - 1, 100, &tl), AV_OK);
    assert_int_equal(tl.n, 4);
    check_tok(&tl, 2, "c", 5);
    check_tok(&tl, 3, "d", 8);
    tokenize_free(&tl);
}

static void test_tokenize_punctuation_each_own_token(void **state)
{
    /* expect: "!!", guillemets, U+00D7 and '_' are one token per character */
    (void)state;
    TokenList tl = tok_ok("\xc2\xab"
                          "hi!!\xc2\xbb 2\xc3\x97"
                          "3 a_b");
    assert_int_equal(tl.n, 11);
    check_tok(&tl, 0, "\xc2\xab", 0);
    check_tok(&tl, 1, "hi", 2);
    check_tok(&tl, 2, "!", 4);
    check_tok(&tl, 3, "!", 5);
    check_tok(&tl, 4, "\xc2\xbb", 6);
    check_tok(&tl, 6, "\xc3\x97", 10);
    check_tok(&tl, 9, "_", 15);
    tokenize_free(&tl);
}

static void test_tokenize_every_ascii_byte(void **state)
{
    /* expect: every ASCII byte c between two letters gives what the rule of
     * tokenize.h says of its class: a letter or digit joins them (1 token),
     * the apostrophe joins letters (1), punctuation stands alone (3), a
     * space or control separates them (2); between two digits '.' and ','
     * join too */
    (void)state;
    for (int c = 1; c < 128; c++) {
        char text[4] = {'a', (char)c, 'b', 0}, num[4] = {'1', (char)c, '2', 0};
        TokenList tl;
        int want = c <= 0x20 || c == 0x7F ? 2
                   : (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                           c == '\''
                       ? 1
                       : 3;
        assert_int_equal(tokenize(text, 3, 16, &tl), AV_OK);
        if (tl.n != want)
            fail_msg("byte 0x%02x between letters: %d tokens, want %d", c, tl.n, want);
        tokenize_free(&tl);
        int want_num = c == '.' || c == ',' ? 1 : c == '\'' ? 3 : want;
        assert_int_equal(tokenize(num, 3, 16, &tl), AV_OK);
        if (tl.n != want_num)
            fail_msg("byte 0x%02x between digits: %d tokens, want %d", c, tl.n, want_num);
        tokenize_free(&tl);
    }
}

static void test_tokenize_empty_text(void **state)
{
    /* expect: empty and all-space texts give AV_OK with no tokens */
    (void)state;
    TokenList tl = {0};
    assert_int_equal(tokenize("", 0, 10, &tl), AV_OK);
    assert_int_equal(tl.n, 0);
    assert_int_equal(tokenize(" \t\n\xc2\xa0", 5, 10, &tl), AV_OK);
    assert_int_equal(tl.n, 0);
    assert_null(tl.tok);
    tokenize_free(&tl);
}

/* Expect AV_ERR_UTF8 at bad_offset for text[0..len). */
static void check_bad_utf8(const char *text, size_t len, size_t bad_offset)
{
    TokenList tl = {0};
    assert_int_equal(tokenize(text, len, 100, &tl), AV_ERR_UTF8);
    assert_int_equal(tl.bad_offset, bad_offset);
    assert_int_equal(tl.n, 0);
    assert_null(tl.tok);
    assert_int_equal(utf8_valid_prefix(text, len), bad_offset);
}

static void test_tokenize_invalid_utf8_offsets(void **state)
{
    /* expect: each malformed sequence is refused at the offset of its first byte */
    (void)state;
    check_bad_utf8("ab\x80", 3, 2);              /* lone continuation */
    check_bad_utf8("a \xc0\x80", 4, 2);          /* overlong NUL */
    check_bad_utf8("\xe0\x80\xaf", 3, 0);        /* overlong 3-byte '/' */
    check_bad_utf8("x\xed\xa0\x80y", 5, 1);      /* surrogate U+D800 */
    check_bad_utf8("\xf5\x80\x80\x80", 4, 0);    /* lead byte beyond U+10FFFF */
    check_bad_utf8("ok \xf4\x90\x80\x80", 7, 3); /* U+110000 */
    check_bad_utf8("abc\xe2\x82", 5, 3);         /* truncated at the end */
    check_bad_utf8("\xc3(", 2, 0);               /* continuation missing */
}

static void test_tokenize_limit_exact_and_over(void **state)
{
    /* expect: 3 tokens fit a limit of 3; a limit of 2 gives AV_ERR_TOO_MANY, list zeroed */
    (void)state;
    TokenList tl = {0};
    assert_int_equal(tokenize("a b c", 5, 3, &tl), AV_OK);
    assert_int_equal(tl.n, 3);
    tokenize_free(&tl);
    assert_int_equal(tokenize("a b c", 5, 2, &tl), AV_ERR_TOO_MANY);
    assert_int_equal(tl.n, 0);
    assert_null(tl.tok);
    assert_null(tl.pool);
}

static void test_tokenize_long_word_split(void **state)
{
    /* expect: 600 ASCII letters become pieces of 256, 256 and 88 bytes */
    (void)state;
    char text[600];
    memset(text, 'a', sizeof(text));
    TokenList tl = {0};
    assert_int_equal(tokenize(text, sizeof(text), 10, &tl), AV_OK);
    assert_int_equal(tl.n, 3);
    assert_int_equal(tl.tok[0].len, AV_MAX_TOKEN_BYTES);
    assert_int_equal(tl.tok[1].start, 256);
    assert_int_equal(tl.tok[2].start, 512);
    assert_int_equal(tl.tok[2].len, 88);
    assert_int_equal(strlen(tl.tok[2].str), 88);
    tokenize_free(&tl);
}

static void test_tokenize_long_word_split_at_code_points(void **state)
{
    /* expect: 100 three-byte CJK letters split after 85 of them (255 bytes), not mid-character */
    (void)state;
    char text[300];
    for (int k = 0; k < 100; k++)
        memcpy(text + 3 * k, "\xe7\x8c\xab", 3);
    TokenList tl = {0};
    assert_int_equal(tokenize(text, sizeof(text), 10, &tl), AV_OK);
    assert_int_equal(tl.n, 2);
    assert_int_equal(tl.tok[0].len, 255);
    assert_int_equal(tl.tok[1].start, 255);
    assert_int_equal(tl.tok[1].len, 45);
    tokenize_free(&tl);
}

static void test_tokenize_zero_width_joiner(void **state)
{
    /* expect: an emoji sequence glued by U+200D is one token; a joiner that
     * joins nothing separates and is never an invisible token of its own */
    (void)state;
    TokenList tl = tok_ok("a \xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb b \xe2\x80\x8d c");
    assert_int_equal(tl.n, 4);
    check_tok(&tl, 0, "a", 0);
    check_tok(&tl, 1, "\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x92\xbb", 2);
    check_tok(&tl, 2, "b", 14);
    check_tok(&tl, 3, "c", 20);
    tokenize_free(&tl);
}

/* The tokens of a and of b are the same whether tokenize made them or
 * tokenize_again did over the list's earlier result (spans, strings, count). */
static void assert_same_tokens(const TokenList *a, const TokenList *b)
{
    assert_int_equal(a->n, b->n);
    for (int k = 0; k < a->n; k++) {
        assert_int_equal(a->tok[k].start, b->tok[k].start);
        assert_int_equal(a->tok[k].len, b->tok[k].len);
        assert_string_equal(a->tok[k].str, b->tok[k].str);
    }
}

/* tokenize_again over texts that grow, shrink and fail: the tokens
 * tokenize gives, its buffers kept while they have room (the same pointers
 * for a shorter text), an error leaving n = 0, bad_offset and a list
 * tokenize_free frees (the sanitizer build checks that nothing leaks). */
static void test_tokenize_ascii_word_hand_off(void **state)
{
    /* expect: where an ASCII word meets a byte that may continue it (a
     * non-ASCII letter, a joiner, the length limit) the token is the general
     * rule's; where it meets one that cannot, it ends there */
    (void)state;
    TokenList tl = tok_ok("abc\xc3\xa9 x'y 3.5 a.b 1,2, q!");
    assert_int_equal(tl.n, 10);
    check_tok(&tl, 0, "abc\xc3\xa9", 0);
    check_tok(&tl, 1, "x'y", 6);
    check_tok(&tl, 2, "3.5", 10);
    check_tok(&tl, 3, "a", 14);
    check_tok(&tl, 4, ".", 15);
    check_tok(&tl, 5, "b", 16);
    check_tok(&tl, 6, "1,2", 18);
    check_tok(&tl, 7, ",", 21);
    check_tok(&tl, 8, "q", 23);
    check_tok(&tl, 9, "!", 24);
    tokenize_free(&tl);
    /* AV_MAX_TOKEN_BYTES letters then one more, then a space, then the end */
    char text[2 * AV_MAX_TOKEN_BYTES + 8], word[AV_MAX_TOKEN_BYTES + 1];
    memset(text, 'a', AV_MAX_TOKEN_BYTES);
    memcpy(text + AV_MAX_TOKEN_BYTES, "b ", 3);
    memset(text + AV_MAX_TOKEN_BYTES + 2, 'c', AV_MAX_TOKEN_BYTES);
    text[2 * AV_MAX_TOKEN_BYTES + 2] = '\0';
    tl = tok_ok(text);
    assert_int_equal(tl.n, 3);
    memset(word, 'a', AV_MAX_TOKEN_BYTES);
    word[AV_MAX_TOKEN_BYTES] = '\0';
    check_tok(&tl, 0, word, 0);
    check_tok(&tl, 1, "b", AV_MAX_TOKEN_BYTES);
    memset(word, 'c', AV_MAX_TOKEN_BYTES);
    check_tok(&tl, 2, word, AV_MAX_TOKEN_BYTES + 2);
    tokenize_free(&tl);
}

static void test_tokenize_again_reuses(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "the cat sat on the mat because it was tired",
        "a b",
        "didn't 3.14 \xE2\x80\x94 caf\xC3\xA9 one two three four five six seven eight nine",
        "",
        "the quick brown fox",
    };
    TokenList again = {0};
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        TokenList fresh = {0};
        const Token *before = again.tok;
        const int room = again.tok_cap;
        assert_int_equal(tokenize(texts[k], strlen(texts[k]), 1000, &fresh), AV_OK);
        assert_int_equal(tokenize_again(texts[k], strlen(texts[k]), 1000, &again), AV_OK);
        assert_same_tokens(&fresh, &again);
        if (fresh.n > 0 && fresh.n <= room)
            assert_ptr_equal(again.tok, before);
        assert_true(again.tok_cap >= again.n);
        tokenize_free(&fresh);
    }
    assert_int_equal(tokenize_again("ok \xFF", 4, 1000, &again), AV_ERR_UTF8);
    assert_int_equal(again.n, 0);
    assert_int_equal(again.bad_offset, 3);
    assert_int_equal(tokenize_again("a b c", 5, 2, &again), AV_ERR_TOO_MANY);
    assert_int_equal(again.n, 0);
    assert_int_equal(tokenize_again("a b", 3, 2, &again), AV_OK);
    assert_int_equal(again.n, 2);
    assert_string_equal(again.tok[1].str, "b");
    tokenize_free(&again);
    assert_null(again.tok);
    assert_int_equal(again.tok_cap, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokenize_cat_sentence_spans),
        cmocka_unit_test(test_tokenize_contraction_one_token),
        cmocka_unit_test(test_tokenize_anna_sentence),
        cmocka_unit_test(test_tokenize_numbers_keep_separators),
        cmocka_unit_test(test_tokenize_apostrophe_needs_letters_both_sides),
        cmocka_unit_test(test_tokenize_right_single_quote_apostrophe),
        cmocka_unit_test(test_tokenize_utf8_words),
        cmocka_unit_test(test_tokenize_cjk_run_and_punctuation),
        cmocka_unit_test(test_tokenize_unicode_spaces_separate),
        cmocka_unit_test(test_tokenize_controls_separate),
        cmocka_unit_test(test_tokenize_punctuation_each_own_token),
        cmocka_unit_test(test_tokenize_every_ascii_byte),
        cmocka_unit_test(test_tokenize_empty_text),
        cmocka_unit_test(test_tokenize_invalid_utf8_offsets),
        cmocka_unit_test(test_tokenize_limit_exact_and_over),
        cmocka_unit_test(test_tokenize_long_word_split),
        cmocka_unit_test(test_tokenize_long_word_split_at_code_points),
        cmocka_unit_test(test_tokenize_zero_width_joiner),
        cmocka_unit_test(test_tokenize_many_tokens_spans),
        cmocka_unit_test(test_tokenize_again_reuses),
        cmocka_unit_test(test_tokenize_ascii_word_hand_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
