/* test_lesson_value.c - a lesson setting's value from its text
 * (lesson_value.h): in range, out of range, and the one-line reasons. */
#include "test_common.h"

#include <string.h>

#include "core/av.h"
#include "io/lesson_kind.h"
#include "io/lesson_value.h"

static void test_lesson_value_int_and_number_ranges(void **state)
{
    /* expect: whole numbers and numbers within their range, the rest refused
     * with a reason naming the setting, the range and the text */
    (void)state;
    char m[160];
    int i = 0;
    double x = 0;
    assert_int_equal(lesson_value_int("heads", "6", 1, 64, &i, m, sizeof m), AV_OK);
    assert_int_equal(i, 6);
    assert_int_equal(lesson_value_int("heads", "65", 1, 64, &i, m, sizeof m), AV_ERR_LESSON);
    assert_string_equal(m, "heads takes a whole number from 1 to 64, not '65'");
    assert_int_equal(lesson_value_int("heads", "6x", 1, 64, &i, m, sizeof m), AV_ERR_LESSON);
    assert_int_equal(lesson_value_int("heads", "", 1, 64, &i, m, sizeof m), AV_ERR_LESSON);
    assert_int_equal(lesson_value_number("temperature", "0.5", 0.01, 100, &x, m, sizeof m), AV_OK);
    assert_float_equal(x, 0.5, 0.0);
    assert_int_equal(lesson_value_number("temperature", "nan", 0.01, 100, &x, m, sizeof m),
                     AV_ERR_LESSON);
}

static void test_lesson_value_onoff_token_stage(void **state)
{
    /* expect: on/off words, the three ways to name a token, stage names and
     * numbers; anything else is refused */
    (void)state;
    char m[160], quoted[] = "\"the\"", plain[] = "cat", num[] = "3", none[] = "none",
                 empty[] = "\"\"";
    bool b = false;
    int idx = -1, st = 0;
    const char *text = NULL;
    assert_int_equal(lesson_value_onoff("mask", "causal", &b, m, sizeof m), AV_OK);
    assert_true(b);
    assert_int_equal(lesson_value_onoff("mask", "maybe", &b, m, sizeof m), AV_ERR_LESSON);
    assert_string_equal(m, "mask takes on or off, not 'maybe'");
    assert_int_equal(lesson_value_token("token", quoted, &idx, &text, m, sizeof m), AV_OK);
    assert_string_equal(text, "the");
    assert_int_equal(lesson_value_token("token", plain, &idx, &text, m, sizeof m), AV_OK);
    assert_true(idx == 0 && strcmp(text, "cat") == 0);
    assert_int_equal(lesson_value_token("token", num, &idx, &text, m, sizeof m), AV_OK);
    assert_true(idx == 3 && text == NULL);
    assert_int_equal(lesson_value_token("token", none, &idx, &text, m, sizeof m), AV_OK);
    assert_true(idx == 0 && text == NULL);
    char last_word[] = "last", quoted_last[] = "\"last\"";
    assert_int_equal(lesson_value_token("token", last_word, &idx, &text, m, sizeof m), AV_OK);
    assert_true(idx == LESSON_TOKEN_LAST && text == NULL);
    assert_int_equal(lesson_value_token("token", quoted_last, &idx, &text, m, sizeof m), AV_OK);
    assert_true(idx == 0 && strcmp(text, "last") == 0); /* the word, in quotes */
    assert_int_equal(lesson_value_token("key", empty, &idx, &text, m, sizeof m), AV_ERR_LESSON);
    assert_string_equal(m, "key names an empty token");
    int last = 0;
    assert_int_equal(lesson_value_stage("weights", &st, &last, m, sizeof m), AV_OK);
    assert_true(st == 7 && last == 7);
    assert_int_equal(lesson_value_stage("4", &st, &last, m, sizeof m), AV_OK);
    assert_true(st == 4 && last == 4);
    assert_int_equal(lesson_value_stage("9", &st, &last, m, sizeof m), AV_ERR_LESSON);
    /* the stages a page speaks of: first-last, names or numbers */
    assert_int_equal(lesson_value_stage("scores-scaled", &st, &last, m, sizeof m), AV_OK);
    assert_true(st == 4 && last == 5);
    assert_int_equal(lesson_value_stage("1-3", &st, &last, m, sizeof m), AV_OK);
    assert_true(st == 1 && last == 3);
    assert_int_equal(lesson_value_stage("5-4", &st, &last, m, sizeof m), AV_ERR_LESSON);
    assert_int_equal(lesson_value_stage("scores-", &st, &last, m, sizeof m), AV_ERR_LESSON);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lesson_value_int_and_number_ranges),
        cmocka_unit_test(test_lesson_value_onoff_token_stage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
