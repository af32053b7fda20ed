/* test_sentences.c - the example sentences file: sentences, each example's
 * setting ('@' line) and note ('>' line), and the one-line errors that name
 * the line and any limit. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/sentences.h"

static void test_sentences_settings_and_notes(void **state)
{
    (void)state;
    const char text[] = "# comment\nCat eats fish\n"
                        "@ weights=seed001 d_model=4 heads=2 pe=off head=1 token=Cat\n"
                        ">  seed 001's example  \nplain\n";
    SentenceList sl;
    assert_int_equal(sentences_parse(text, sizeof text - 1, &sl), AV_OK);
    assert_int_equal(sl.n, 2);
    assert_string_equal(sl.items[0], "Cat eats fish");
    assert_string_equal(sl.notes[0], "seed 001's example");
    const SentenceSetting *st = &sl.settings[0];
    assert_string_equal(st->weights, "seed001");
    assert_int_equal(st->d_model, 4);
    assert_int_equal(st->heads, 2);
    assert_int_equal(st->pe, 0);
    assert_int_equal(st->causal, -1); /* not given: kept */
    assert_int_equal(st->preset, -1);
    assert_int_equal(st->head, 1);
    assert_string_equal(st->token, "Cat");
    /* the second sentence has neither: every field keeps */
    assert_null(sl.notes[1]);
    assert_int_equal(sl.settings[1].preset, -1);
    assert_int_equal(sl.settings[1].pe, -1);
    assert_int_equal(sl.settings[1].d_model, 0);
    assert_string_equal(sl.settings[1].weights, "");
    sentences_free(&sl);
}

static void expect_error(const char *text, int err, int line, const char *why)
{
    SentenceList sl;
    assert_int_equal(sentences_parse(text, strlen(text), &sl), err);
    assert_int_equal(sl.bad_line, line);
    assert_non_null(strstr(sl.err, why));
    assert_null(sl.items);
    sentences_free(&sl);
}

static void test_sentences_errors_name_line_and_limit(void **state)
{
    (void)state;
    char *long_line = malloc(SENTENCES_MAX_LINE + 8);
    assert_non_null(long_line);
    memset(long_line, 'a', SENTENCES_MAX_LINE + 1);
    strcpy(long_line + SENTENCES_MAX_LINE + 1, "\n");
    expect_error(long_line, AV_ERR_TOO_LARGE, 1, "4096 bytes");
    free(long_line);
    expect_error("a\n@ colour=red\n", AV_ERR_CONFIG, 2, "not a setting: 'colour=red'");
    expect_error("a\n@ heads=0\n", AV_ERR_CONFIG, 2, "heads=0");
    expect_error("a\n@ weights=../etc d_model=4 heads=1\n", AV_ERR_CONFIG, 2, "weights=");
    expect_error("a\n@ weights=seed001\n", AV_ERR_CONFIG, 2, "needs d_model= and heads=");
    expect_error("@ pe=on\na\n", AV_ERR_CONFIG, 1, "before any sentence");
    expect_error("a\n> one\n> two\n", AV_ERR_CONFIG, 3, "a second note");
    expect_error("a\n@ pe=on\n@ mask=on\n", AV_ERR_CONFIG, 3, "a second setting");
    expect_error("a\n\xff\n", AV_ERR_UTF8, 2, "UTF-8");
}

/* A setting that does not fit its sentence or its own sizes is an error
 * naming the line, not a value dropped when the example is loaded. */
static void test_sentences_setting_fits_sentence(void **state)
{
    (void)state;
    expect_error("A cat.\n@ preset=random heads=5\n", AV_ERR_CONFIG, 2,
                 "d_model 32 is not divisible by 5 heads");
    expect_error("A cat.\n@ d_model=30 heads=4\n", AV_ERR_CONFIG, 2,
                 "d_model 30 is not divisible by 4 heads");
    expect_error("A cat.\n@ weights=seed001 d_model=4 heads=3\n", AV_ERR_CONFIG, 2,
                 "d_model 4 is not divisible by 3 heads");
    expect_error("A cat.\n@ preset=random head=7\n", AV_ERR_CONFIG, 2,
                 "head=7, but the example has 4 heads");
    expect_error("A cat.\n@ preset=designed head=7\n", AV_ERR_CONFIG, 2,
                 "head=7, but the example has 6 heads");
    expect_error("A cat.\n@ heads=2 head=3\n", AV_ERR_CONFIG, 2, "has 2 heads");
    expect_error("a\nThe cat sat.\n# x\n@ preset=random token=dog\n", AV_ERR_CONFIG, 4,
                 "token=dog is not a token of the sentence above");
    expect_error("A cat.\n@ token=cat.\n", AV_ERR_CONFIG, 2, "token=cat. is not a token");
    expect_error("A cat.\n@ preset=designed heads=6\n", AV_ERR_CONFIG, 2,
                 "preset=designed has d_model 192 and 6 heads: leave out heads=");
    /* what fits is kept: the head under the example's count, its token */
    SentenceList sl;
    const char ok[] = "A cat.\n@ preset=random head=4 token=cat\nB.\n@ heads=8 head=8\n";
    assert_int_equal(sentences_parse(ok, sizeof ok - 1, &sl), AV_OK);
    assert_int_equal(sl.settings[0].head, 4);
    assert_string_equal(sl.settings[0].token, "cat");
    assert_int_equal(sl.settings[1].heads, 8);
    sentences_free(&sl);
}

static void test_sentences_builtin_examples_have_settings(void **state)
{
    (void)state;
    /* every built-in example says what it needs and what to look at */
    SentenceList sl;
    assert_int_equal(sentences_builtin(&sl), AV_OK);
    assert_true(sl.n >= 11);
    for (int k = 0; k < sl.n; k++) {
        assert_non_null(sl.notes[k]);
        assert_true(sl.settings[k].preset >= 0 || sl.settings[k].weights[0]);
    }
    assert_string_equal(sl.items[0], "The cat sat on the mat because it was tired.");
    assert_string_equal(sl.settings[0].token, "it");
    sentences_free(&sl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sentences_settings_and_notes),
        cmocka_unit_test(test_sentences_errors_name_line_and_limit),
        cmocka_unit_test(test_sentences_setting_fits_sentence),
        cmocka_unit_test(test_sentences_builtin_examples_have_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
