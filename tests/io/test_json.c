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
        {"\"abc", "not closed"},           {"abc\"", "string was expected"},
        {"\"a\\x\"", "bad escape"},        {"\"\\ud83d\"", "lone surrogate"},
        {"\"\\ude00x\"", "lone surrogate"}, {"\"\\u12G4\"", "non-hex"},
        {"\"\\u12\"", "cut short"},        {"\"a\nb\"", "control character"},
        {"\"\\u0000\"", "NUL"},            {"\"\xff\"", "UTF-8"},
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

    char deep[80];
    memset(deep, '[', 40);
    memset(deep + 40, ']', 39);
    deep[79] = '\0';
    j = cursor(deep);
    assert_int_equal(json_skip_value(&j, 0), AV_ERR_MODEL);
    assert_string_equal(why, "nested too deeply");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_string_escapes),
        cmocka_unit_test(test_json_string_each),
        cmocka_unit_test(test_json_string_refused),
        cmocka_unit_test(test_json_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
