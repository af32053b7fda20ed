/* test_wordpiece.c - BERT's tokenizer on golden cases over the fixture
 * vocabulary tests/data/wordpiece/vocab.txt (the ids below are its line
 * numbers from 0, as tests/e2e/lib/wordpiece_ref.py gives them): accents
 * stripped, pieces, typed special tokens and sentence pairs, final sigma,
 * CJK, Hangul, canonical order, control characters and whitespace, the word
 * limit, spans, TokenLists, the Unicode answers, and the errors. The random
 * comparison with the reference is tests/e2e/wordpiece.sh.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/wordpiece.h"
#include "core/wp_unicode.h"

static char why[160];

/* The fixture vocabulary (one token a line; read here, not through io). */
static void fixture(WordPiece *w, bool lower)
{
    FILE *f = fopen(TEST_DATA_DIR "/wordpiece/vocab.txt", "rb");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(len > 0 && len < sizeof buf);
    int n = 0;
    for (size_t p = 0; p < len; p++)
        n += buf[p] == '\n';
    assert_int_equal(wp_init(w, n), AV_OK);
    w->lower = w->strip = lower;
    size_t p = 0;
    for (int id = 0; id < n; id++) {
        const char *nl = memchr(buf + p, '\n', len - p);
        assert_int_equal(wp_set_token(w, id, buf + p, (size_t)(nl - (buf + p)), why, sizeof why),
                         AV_OK);
        p = (size_t)(nl - buf) + 1;
    }
    assert_int_equal(wp_finish(w, NULL, why, sizeof why), AV_OK);
}

/* Encode text and compare the ids with want[0..n) and the pair index. */
static void expect(const WordPiece *w, const char *text, const int *want, int n, int second)
{
    WpEncoding e = {0};
    assert_int_equal(wp_encode(w, text, strlen(text), 1000, &e), AV_OK);
    if (e.n != n)
        fail_msg("%s: %d tokens, want %d", text, e.n, n);
    for (int i = 0; i < n; i++)
        if (e.piece[i].id != want[i])
            fail_msg("%s: token %d is %d, want %d", text, i, e.piece[i].id, want[i]);
    assert_int_equal(e.second, second);
    wp_encoding_free(&e);
}

#define EXPECT(w, text, second, ...)                                                               \
    do {                                                                                           \
        const int want_[] = {__VA_ARGS__};                                                         \
        expect(w, text, want_, (int)(sizeof want_ / sizeof want_[0]), second);                     \
    } while (0)

enum { CLS = 7, SEP = 8, MASK = 9, UNK = 6 };

static void test_wordpiece_golden(void **state)
{
    (void)state;
    WordPiece w;
    fixture(&w, true);
    /* expect: accents stripped, lower-cased, punctuation split */
    EXPECT(&w, "H\xc3\xa9llo, WORLD!", -1, CLS, 305, 21, 242, 10, SEP);
    EXPECT(&w, "unaffable", -1, CLS, 401, 372, 373, SEP); /* un ##aff ##able */
    EXPECT(&w, "", -1, CLS, SEP);
    EXPECT(&w, " \t\n ", -1, CLS, SEP);
    /* expect: a typed [MASK] is the mask token, also inside a word or broken
     * by a control character; lower case is not */
    EXPECT(&w, "the [MASK].", -1, CLS, 178, MASK, 23, SEP);
    EXPECT(&w, "ab[MASK]cd", -1, CLS, 58, 143, MASK, 60, 145, SEP);
    EXPECT(&w, "[MA\xe2\x80\x8bSK]", -1, CLS, MASK, SEP);
    EXPECT(&w, "[mask]", -1, CLS, 32, 331, 34, SEP);
    /* expect: the first typed [SEP] starts the second sentence */
    EXPECT(&w, "a [SEP] b [SEP] c", 3, CLS, 58, SEP, 59, SEP, 60, SEP);
    /* expect: final sigma in a word-final capital sigma only */
    EXPECT(&w, "\xce\x9f\xce\x94\xce\x9f\xce\xa3 \xce\xa3\xce\x91", -1, CLS, 624, 628, 647, SEP);
    /* expect: CJK ideographs alone ([UNK] when not in the vocabulary) */
    EXPECT(&w, "\xe4\xb8\x80\xe4\xb8\x81", -1, CLS, 703, UNK, SEP);
    /* expect: a Hangul syllable as its jamo; two spacing marks reordered */
    EXPECT(&w, "\xea\xb0\x80", -1, CLS, 1403, 1489, SEP);
    EXPECT(&w, "\xf0\x9d\x85\xad\xf0\x9d\x85\xa5", -1, CLS, 1860, SEP);
    /* expect: U+0130 lowers to i + U+0307, the mark stripped */
    EXPECT(&w, "\xc4\xb0", -1, CLS, 66, SEP);
    /* expect: a zero-width space removed (the word joins), U+3000 and
     * U+2028 separate */
    EXPECT(&w, "hel\xe2\x80\x8blo", -1, CLS, 305, SEP);
    EXPECT(&w, "x\xe3\x80\x80y\xe2\x80\xa8z", -1, CLS, 81, 82, 83, SEP);
    wp_free(&w);
}

static void test_wordpiece_cased(void **state)
{
    (void)state;
    WordPiece w;
    fixture(&w, false);
    /* expect: case and accents kept: "Héllo" is not in the vocabulary */
    EXPECT(&w, "Caf\xc3\xa9 caf\xc3\xa9 H\xc3\xa9llo", -1, CLS, 692, 674, UNK, SEP);
    /* expect: accents stripped without lower-casing (strip_accents true) */
    w.strip = true;
    EXPECT(&w, "caf\xc3\xa9 Caf\xc3\xa9", -1, CLS, 345, UNK, SEP);
    /* expect: lower-cased with the accents kept (strip_accents false) */
    w.lower = true, w.strip = false;
    EXPECT(&w, "CAF\xc3\x89 Caf\xc3\xa9", -1, CLS, 674, 674, SEP);
    wp_free(&w);
}

static void test_wordpiece_long_words(void **state)
{
    (void)state;
    WordPiece w;
    fixture(&w, true);
    char text[256];
    WpEncoding e = {0};
    /* expect: 100 characters cut into a ##a ##a ...; 101 are [UNK]; the
     * limit counts characters after accents are stripped */
    memset(text, 'a', 101);
    assert_int_equal(wp_encode(&w, text, 100, 1000, &e), AV_OK);
    assert_int_equal(e.n, 102);
    assert_int_equal(e.piece[1].id, 58);
    for (int i = 2; i <= 100; i++)
        assert_int_equal(e.piece[i].id, 142);
    assert_int_equal(wp_encode(&w, text, 101, 1000, &e), AV_OK);
    assert_int_equal(e.n, 3);
    assert_int_equal(e.piece[1].id, UNK);
    assert_int_equal(e.piece[1].start, 0);
    assert_int_equal(e.piece[1].len, 101);
    for (int i = 0; i < 100; i++)
        memcpy(text + 2 * i, "\xc3\xa1", 2); /* á: a + U+0301 */
    assert_int_equal(wp_encode(&w, text, 200, 1000, &e), AV_OK);
    assert_int_equal(e.n, 102);
    wp_encoding_free(&e);
    wp_free(&w);
}

static void test_wordpiece_spans(void **state)
{
    (void)state;
    WordPiece w;
    fixture(&w, true);
    const char *text = "H\xc3\xa9llo, WORLD! \xea\xb0\x80";
    WpEncoding e = {0};
    assert_int_equal(wp_encode(&w, text, strlen(text), 1000, &e), AV_OK);
    /* [CLS] hello , world ! ᄀ ##ᅡ [SEP] */
    const size_t want[][2] = {{0, 0}, {0, 6}, {6, 1}, {8, 5}, {13, 1}, {15, 3}, {15, 3}, {18, 0}};
    assert_int_equal(e.n, 8);
    for (int i = 0; i < e.n; i++) {
        assert_int_equal(e.piece[i].start, want[i][0]);
        assert_int_equal(e.piece[i].len, want[i][1]);
    }
    TokenList tl = {0};
    assert_int_equal(wp_token_list(&w, &e, &tl), AV_OK);
    assert_int_equal(tl.n, 8);
    assert_string_equal(tl.tok[0].str, "[CLS]");
    assert_string_equal(tl.tok[1].str, "hello");
    assert_string_equal(tl.tok[6].str, "##\xe1\x85\xa1");
    assert_int_equal(tl.tok[3].start, 8);
    tokenize_free(&tl);
    wp_encoding_free(&e);
    wp_free(&w);
}

static void test_wordpiece_errors(void **state)
{
    (void)state;
    WordPiece w;
    fixture(&w, true);
    WpEncoding e = {0};
    /* expect: the first byte that is not UTF-8, nothing else */
    assert_int_equal(wp_encode(&w, "ok \xc3(", 5, 1000, &e), AV_ERR_UTF8);
    assert_int_equal(e.bad_offset, 3);
    assert_int_equal(e.n, 0);
    /* expect: a cap counting [CLS] and [SEP] */
    assert_int_equal(wp_encode(&w, "hello world", 11, 4, &e), AV_OK);
    assert_int_equal(e.n, 4);
    assert_int_equal(wp_encode(&w, "hello world", 11, 3, &e), AV_ERR_TOO_MANY);
    assert_int_equal(e.n, 0);
    wp_encoding_free(&e);
    wp_free(&w);

    assert_int_equal(wp_init(&w, 0), AV_ERR_CONFIG);
    assert_int_equal(wp_init(&w, 4), AV_OK);
    assert_int_equal(wp_set_token(&w, 0, "[UNK]", 5, why, sizeof why), AV_OK);
    assert_int_equal(wp_set_token(&w, 0, "x", 1, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "given twice"));
    assert_int_equal(wp_set_token(&w, 4, "x", 1, why, sizeof why), AV_ERR_MODEL);
    assert_int_equal(wp_set_token(&w, 1, "\xff", 1, why, sizeof why), AV_ERR_MODEL);
    assert_int_equal(wp_set_token(&w, 1, "[CLS]", 5, why, sizeof why), AV_OK);
    assert_int_equal(wp_set_token(&w, 2, "x", 1, why, sizeof why), AV_OK);
    assert_int_equal(wp_finish(&w, NULL, why, sizeof why), AV_ERR_MODEL);
    assert_string_equal(why, "id 3 has no token");
    /* expect: a repeated token is found as its later id */
    assert_int_equal(wp_set_token(&w, 3, "x", 1, why, sizeof why), AV_OK);
    assert_int_equal(wp_find(&w, "x", 1), 3);
    assert_int_equal(wp_finish(&w, NULL, why, sizeof why), AV_ERR_MODEL);
    assert_string_equal(why, "the vocabulary has no [SEP] token");
    wp_free(&w);
    wp_free(&w); /* a zeroed one too */
}

static void test_wp_unicode(void **state)
{
    (void)state;
    unsigned out[WP_DECOMP_MAX], s[4];
    assert_true(wp_flags(0x200B) & WP_CONTROL);
    assert_false(wp_flags('\t') & WP_CONTROL);
    assert_true(wp_flags(0x3000) & WP_SPACE);
    assert_true(wp_flags('$') & WP_PUNCT);     /* a symbol, punctuation to BERT */
    assert_true(wp_flags(0x00BF) & WP_PUNCT);  /* ¿ Po */
    assert_false(wp_flags(0x00A8) & WP_PUNCT); /* ¨ Sk */
    assert_true(wp_flags(0x0301) & WP_MN);
    assert_false(wp_flags(0x1D165) & WP_MN); /* Mc */
    assert_true(wp_flags(0x2028) & WP_PYSPACE);
    assert_true(wp_is_cjk(0x4E00) && !wp_is_cjk(0x3042));
    assert_int_equal(wp_ccc(0x0301), 230);
    /* expect: U+1E08 -> U+00C7 U+0301 -> C U+0327 U+0301; 각 -> three jamo */
    assert_int_equal(wp_decompose(0x1E08, out), 3);
    assert_true(out[0] == 'C' && out[1] == 0x327 && out[2] == 0x301);
    assert_int_equal(wp_decompose(0xAC01, out), 3);
    assert_true(out[0] == 0x1100 && out[1] == 0x1161 && out[2] == 0x11A8);
    assert_int_equal(wp_decompose('a', out), 1);
    assert_int_equal(wp_lower(0x130, out), 2);
    assert_true(out[0] == 'i' && out[1] == 0x307);
    assert_int_equal(wp_lower(0x212A, out), 1); /* Kelvin sign */
    assert_int_equal(out[0], 'k');
    /* expect: ΑΣ -> ας, ΣΑ -> σα, Σ alone -> σ, ΑΣ. -> ας (. is case-ignorable) */
    s[0] = 0x391, s[1] = 0x3A3, s[2] = '.';
    assert_int_equal(wp_lower_at(s, 2, 1, out), 1);
    assert_int_equal(out[0], 0x3C2);
    assert_int_equal(wp_lower_at(s, 3, 1, out), 1);
    assert_int_equal(out[0], 0x3C2);
    s[0] = 0x3A3, s[1] = 0x391;
    wp_lower_at(s, 2, 0, out);
    assert_int_equal(out[0], 0x3C3);
    wp_lower_at(s, 1, 0, out);
    assert_int_equal(out[0], 0x3C3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wordpiece_golden),     cmocka_unit_test(test_wordpiece_cased),
        cmocka_unit_test(test_wordpiece_long_words), cmocka_unit_test(test_wordpiece_spans),
        cmocka_unit_test(test_wordpiece_errors),     cmocka_unit_test(test_wp_unicode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
