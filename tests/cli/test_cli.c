/* test_cli.c - the command line's meanings: -o - is standard output, --dump -
 * is refused, and a refused --export names the format asked for. */
#include "test_common.h"

#include <string.h>

#include "core/av.h"
#include "cli/cli.h"

/* cli_parse on a copy of args (getopt_long permutes argv). */
static int parse(CliOptions *o, int argc, const char *const *args)
{
    char *argv[16];
    assert_true(argc < 16);
    for (int k = 0; k < argc; k++)
        argv[k] = (char *)args[k];
    argv[argc] = NULL;
    return cli_parse(argc, argv, o);
}

/* -o - writes to standard output (no output path), as -f - reads standard
 * input; a file named "-" is ./-. -o - still goes with --export only. */
static void test_cli_output_dash_is_stdout(void **state)
{
    (void)state;
    static const char *const dash[] = {"attnviz", "-e", "text", "-o", "-", "the cat"};
    static const char *const file[] = {"attnviz", "-e", "text", "-o", "./-", "the cat"};
    static const char *const alone[] = {"attnviz", "-o", "-", "the cat"};
    CliOptions o;
    assert_int_equal(parse(&o, 6, dash), AV_OK);
    assert_null(o.output);
    assert_true(o.export_set);
    cli_free(&o);
    assert_int_equal(parse(&o, 6, file), AV_OK);
    assert_string_equal(o.output, "./-");
    cli_free(&o);
    assert_int_equal(parse(&o, 4, alone), AV_ERR_CONFIG);
    assert_string_equal(o.err, "--output goes with --export");
    cli_free(&o);
}

/* --dump - is refused (a folder cannot be standard output), not a folder
 * named "-"; ./- is that folder. */
static void test_cli_dump_dash_refused(void **state)
{
    (void)state;
    static const char *const dash[] = {"attnviz", "--dump", "-", "the cat"};
    static const char *const dir[] = {"attnviz", "--dump", "./-", "the cat"};
    CliOptions o;
    assert_int_equal(parse(&o, 4, dash), AV_ERR_CONFIG);
    assert_string_equal(o.err, "--dump writes a folder of files, not standard output: give a "
                               "folder's path (./- for one named -)");
    cli_free(&o);
    assert_int_equal(parse(&o, 4, dir), AV_OK);
    assert_string_equal(o.dump_dir, "./-");
    cli_free(&o);
}

/* The lens refused on the toy pipeline or an import names lens or lens-json. */
static void test_cli_lens_refusal_names_format(void **state)
{
    (void)state;
    static const char *const toy_json[] = {"attnviz", "-e", "lens-json", "the cat"};
    static const char *const toy_text[] = {"attnviz", "-e", "lens", "the cat"};
    static const char *const import_json[] = {"attnviz", "--attention", "a.npy", "-e", "lens-json"};
    CliOptions o;
    assert_int_equal(parse(&o, 4, toy_json), AV_ERR_CONFIG);
    assert_string_equal(o.err, "--export lens-json needs a model that predicts tokens (--model "
                               "DIR): the toy pipeline has no vocabulary to predict");
    cli_free(&o);
    assert_int_equal(parse(&o, 4, toy_text), AV_ERR_CONFIG);
    assert_non_null(strstr(o.err, "--export lens needs"));
    cli_free(&o);
    assert_int_equal(parse(&o, 5, import_json), AV_ERR_CONFIG);
    assert_non_null(strstr(o.err, "--export lens-json needs a model"));
    cli_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_output_dash_is_stdout),
        cmocka_unit_test(test_cli_lens_refusal_names_format),
        cmocka_unit_test(test_cli_dump_dash_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
