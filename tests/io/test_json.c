/* test_json.c - the small JSON reader: strings whole and code point by code
 * point (escapes, surrogate pairs, strict UTF-8, where a fault is placed),
 * numbers, words and skipped values.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/json.h"

static char why[128];

static Json cursor(const char *s)
{
    why[0] = '\0';
    return (Json){s, s + strlen(s), why, sizeof why, AV_OK};
}

/* Code points collected by json_string_each. */
typedef struct {
    unsigned cp[16];
    int n;
} Cps;

static int collect(void *ctx, unsigned cp)
{
    Cps *c = ctx;
    if (c->n == 16)
        return AV_ERR_TOO_MANY;
    c->cp[c->n++] = cp;
    return AV_OK;
}

static void test_json_string_escapes(void **state)
{
    (void)state;
    /* expect: every RFC 8259 escape, a surrogate pair joined into one code
       point, raw UTF-8 kept, and the cursor just past the closing quote */
    Json j = cursor("  \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\xc3\xa9\" ,");
    char *s = NULL;
    assert_int_equal(json_string(&j, &s), AV_OK);
    assert_string_equal(s, "a\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80\xc3\xa9");
    assert_true(json_eat(&j, ','));
    free(s);
}

static void test_json_string_each(void **state)
{
    (void)state;
    /* expect: code points one by one, \u0000 included (json_string refuses it) */
    Json j = cursor("\"x\\u0000\\u20ac\xf0\x9f\x98\x80\"");
    Cps c = {{0}, 0};
    assert_int_equal(json_string_each(&j, collect, &c), AV_OK);
    assert_int_equal(c.n, 4);
    assert_int_equal(c.cp[0], 'x');
    assert_int_equal(c.cp[1], 0);
    assert_int_equal(c.cp[2], 0x20AC);
    assert_int_equal(c.cp[3], 0x1F600);
    assert_ptr_equal(j.p, j.end);

    /* expect: put's own code ends the walk and comes back unchanged */
    j = cursor("\"abcdefghijklmnopq\"");
    c.n = 0;
    assert_int_equal(json_string_each(&j, collect, &c), AV_ERR_TOO_MANY);
    assert_int_equal(c.n, 16);

    /* expect: bad UTF-8 is AV_ERR_UTF8 with the cursor on the first bad byte */
    const char *bad = "\"ok\xc3\x28\"";
    j = cursor(bad);
    c.n = 0;
    assert_int_equal(json_string_each(&j, collect, &c), AV_ERR_UTF8);
    assert_int_equal(j.p - bad, 3);
    assert_non_null(strstr(why, "UTF-8"));
}

static void test_json_string_refused(void **state)
{
    (void)state;
    /* expect: each malformed string is AV_ERR_MODEL with its own reason,
       nothing returned */
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"\"abc", "not closed"},
        {"abc\"", "string was expected"},
        {"\"a\\x\"", "bad escape"},
        {"\"\\ud83d\"", "lone surrogate"},
        {"\"\\ude00x\"", "lone surrogate"},
        {"\"\\u12G4\"", "non-hex"},
        {"\"\\u12\"", "cut short"},
        {"\"a\nb\"", "control character"},
        {"\"\\u0000\"", "NUL"},
        {"\"\xff\"", "UTF-8"},
        {"\"\xed\xa0\x80\"", "UTF-8"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        Json j = cursor(bad[k].text);
        char *s = (char *)1;
        assert_int_equal(json_string(&j, &s), AV_ERR_MODEL);
        assert_null(s);
        if (!strstr(why, bad[k].reason))
            fail_msg("'%s' gave '%s', not '%s'", bad[k].text, why, bad[k].reason);
    }
}

static void test_json_values(void **state)
{
    (void)state;
    /* expect: numbers, whole numbers in range, words, and any value skipped
       up to 32 levels deep */
    Json j = cursor(" -1.5e2 , 42 , true , {\"a\": [1, {\"b\": null}], \"c\": \"}\"} ]");
    double v;
    int n;
    assert_int_equal(json_number(&j, "x", &v), AV_OK);
    assert_true(v == -150.0);
    assert_true(json_eat(&j, ','));
    assert_int_equal(json_int(&j, "n", &n), AV_OK);
    assert_int_equal(n, 42);
    assert_true(json_eat(&j, ','));
    assert_false(json_word(&j, "false"));
    assert_true(json_word(&j, "true"));
    assert_true(json_eat(&j, ','));
    assert_int_equal(json_skip_value(&j, 0), AV_OK);
    assert_true(json_eat(&j, ']'));

    j = cursor("2.5");
    assert_int_equal(json_int(&j, "layers", &n), AV_ERR_MODEL);
    assert_string_equal(why, "\"layers\" is not a whole number");
    /* out of range, not fractional: said with the value (it said "is not a
     * whole number" of config.json's "n_head": -2 and of 2^40) */
    j = cursor("-2");
    assert_int_equal(json_int(&j, "n_head", &n), AV_ERR_MODEL);
    assert_string_equal(why, "\"n_head\" is -2; a whole number from 0 to 1000000000 was expected");
    j = cursor("1099511627776");
    assert_int_equal(json_int(&j, "n_head", &n), AV_ERR_MODEL);
    assert_string_equal(why, "\"n_head\" is 1099511627776; a whole number from 0 to 1000000000 "
                             "was expected");
    j = cursor("1000000000");
    assert_int_equal(json_int(&j, "n_head", &n), AV_OK);
    assert_int_equal(n, 1000000000);

    char deep[80];
    memset(deep, '[', 40);
    memset(deep + 40, ']', 39);
    deep[79] = '\0';
    j = cursor(deep);
    assert_int_equal(json_skip_value(&j, 0), AV_ERR_MODEL);
    assert_string_equal(why, "nested too deeply");
}

/* The fuzz harness's findings (tests/fuzz/fuzz_json.c): json_skip_value
 * accepted what no other call reads ("1.5e", "tru", "+-", a key that is not
 * a string) and refused a valid string holding \u0000; json_number took
 * strtod's forms that JSON has not ("+1", ".5", "1.") and cut a long number
 * at 63 characters. */
static void test_json_fuzz_findings(void **state)
{
    (void)state;
    static const char *const refused[] = {"1.5e",   "1.5e\xfe", "tru",   "fals", "+-",
                                          "e",      "+1",       ".5",    "1.",   "-",
                                          "{1: 2}", "{tru: 1}", "[1.e3]"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        Json j = cursor(refused[k]);
        if (json_skip_value(&j, 0) == AV_OK && j.p == j.end) {
            print_error("json_skip_value accepted '%s' whole\n", refused[k]);
            fail();
        }
        double v;
        j = cursor(refused[k]);
        if (json_number(&j, "x", &v) == AV_OK && j.p == j.end) {
            print_error("json_number accepted '%s' whole\n", refused[k]);
            fail();
        }
    }
    Json j = cursor("\"T\\u0000\" 1");
    assert_int_equal(json_skip_value(&j, 0), AV_OK);
    assert_string_equal(j.p, " 1");
    j = cursor("{\"a\": [true, false, null, -0.5E+2, {\"b\": \"\\u0000\"}]}");
    assert_int_equal(json_skip_value(&j, 0), AV_OK);
    assert_true(j.p == j.end);
    /* a long number is read whole (here 300 digits), not cut */
    char num[320] = "0.";
    memset(num + 2, '0', 297);
    num[299] = '5';
    double v;
    j = cursor(num);
    assert_int_equal(json_number(&j, "x", &v), AV_OK);
    assert_true(j.p == j.end);
    assert_true(v > 0 && v < 1e-290);
    /* fuzz_model's finding: a key holding a newline made a two-line reason */
    j = cursor("");
    json_fail(&j, "\"%s\" is unknown", "fo\n\x1b[31m");
    assert_string_equal(why, "\"fo??[31m\" is unknown");
    /* 01: the number is 0, and the 1 is left for the caller to refuse */
    j = cursor("01");
    assert_int_equal(json_number(&j, "x", &v), AV_OK);
    assert_string_equal(j.p, "1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_string_escapes), cmocka_unit_test(test_json_string_each),
        cmocka_unit_test(test_json_string_refused), cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_json_fuzz_findings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
