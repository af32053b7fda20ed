/* test_attnimport.c - an imported array with its token files: rows against
 * tokens and columns against key tokens, each mismatch one line that says
 * which; the whole import with JSON tokens, numbered tokens and
 * cross-attention's key tokens, on the committed files of tests/data/import.
 */
#include "test_common.h"

#include <string.h>

#include "core/av.h"
#include "io/attnimport.h"

#define IMP TEST_DATA_DIR "/import/"

static char msg[512];

static void test_attnimport_check_tokens(void **state)
{
    /* expect: rows against tokens and columns against key tokens, each mismatch
       one line that says which */
    (void)state;
    AttnFile af;
    assert_int_equal(attnfile_open(IMP "attn_cross.npy", &af, msg, sizeof msg), AV_OK);
    assert_int_equal(
        attnimport_check_tokens(&af, 3, 5, "x/attn_cross.npy", "t.txt", "k.json", msg, sizeof msg),
        AV_OK);
    assert_int_equal(attnimport_check_tokens(&af, 4, 5, "x/attn_cross.npy", "d/t.txt", "k.json",
                                             msg, sizeof msg),
                     AV_ERR_NPY_SHAPE);
    assert_string_equal(msg, "attn_cross.npy has 3 rows per head but t.txt has 4 tokens");
    assert_int_equal(
        attnimport_check_tokens(&af, 3, 6, "attn_cross.npy", "t.txt", "k.json", msg, sizeof msg),
        AV_ERR_NPY_SHAPE);
    assert_string_equal(msg, "attn_cross.npy has 5 columns per head but k.json has 6 tokens");
    assert_int_equal(
        attnimport_check_tokens(&af, 3, 0, "attn_cross.npy", "t.txt", NULL, msg, sizeof msg),
        AV_ERR_NPY_SHAPE);
    assert_non_null(strstr(msg, "--key-tokens"));
    attnfile_close(&af);
}

static void test_attnimport_load(void **state)
{
    /* expect: the whole import with JSON tokens; a token file one short is refused
       before any validation, naming both counts; cross needs its key tokens */
    (void)state;
    AttnImport im;
    assert_int_equal(
        attnimport_load(IMP "attn_l3h2n7.npy", IMP "tokens7.json", NULL, &im, msg, sizeof msg),
        AV_OK);
    assert_int_equal(im.tokens.n, 7);
    assert_int_equal(im.key_tokens.n, 0);
    assert_string_equal(im.tokens.tok[1].str, "caf\xc3\xa9");
    assert_string_equal(im.text, "The caf\xc3\xa9 [CLS] two words \xf0\x9f\x98\x80 \xc4\xa0it .");
    assert_int_equal(im.text_len, strlen(im.text));
    assert_memory_equal(im.text + im.tokens.tok[3].start, "two words", 9);
    assert_true(im.a.validated);
    attnimport_free(&im);
    assert_int_equal(
        attnimport_load(IMP "attn_l3h2n7.npy", IMP "tokens6.txt", NULL, &im, msg, sizeof msg),
        AV_ERR_NPY_SHAPE);
    assert_string_equal(msg, "attn_l3h2n7.npy has 7 rows per head but tokens6.txt has 6 tokens");
    assert_null(im.a.map);
    assert_int_equal(attnimport_load(IMP "attn_cross.npy", IMP "tokens3.txt", IMP "keys5.json", &im,
                                     msg, sizeof msg),
                     AV_OK);
    assert_string_equal(im.key_tokens.tok[4].str, "\xe2\x90\x89"); /* "\t" as U+2409 */
    assert_string_equal(im.key_text, "le chat s'est assis \xe2\x90\x89");
    attnimport_free(&im);
    assert_int_equal(
        attnimport_load(IMP "attn_cross.npy", IMP "tokens3.txt", NULL, &im, msg, sizeof msg),
        AV_ERR_NPY_SHAPE);
    assert_int_equal(attnimport_load(IMP "attn_cross.npy", NULL, NULL, &im, msg, sizeof msg),
                     AV_OK); /* numbered queries and keys */
    assert_string_equal(im.text, "1 2 3");
    assert_string_equal(im.key_text, "1 2 3 4 5");
    attnimport_free(&im);
    attnimport_free(&im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attnimport_check_tokens),
        cmocka_unit_test(test_attnimport_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
