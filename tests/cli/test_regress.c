/* test_regress.c - regression tests from fuzzing (tests/fuzz/): the fuzzers'
 * findings, and the nastiest inputs tried on the tokeniser, the .npy reader,
 * the sentences reader and the command-line parser.
 *
 * A finding is named after its file in tests/fuzz/findings/. Inputs here are
 * hostile on purpose: huge header lengths, shapes whose product overflows,
 * malformed and boundary UTF-8, argv holding control characters.
 */
#include "test_common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "cli/cli.h"
#include "io/npy.h"
#include "io/sentences.h"
#include "core/tokenize.h"
#include "core/utf8.h"

/* ---- tokenizer ---------------------------------------------------------- */

/* Tokenize s (its strlen) or return the error; *bad gets bad_offset. */
static int tok_count(const char *s, size_t len, int max, size_t *bad)
{
    TokenList tl = {0};
    int rc = tokenize(s, len, max, &tl);
    if (bad)
        *bad = tl.bad_offset;
    int n = rc == AV_OK ? tl.n : rc;
    tokenize_free(&tl);
    return n;
}

/* Every malformed form is refused at the offset of its first byte. */
static void test_regress_utf8_malformed_forms_refused_at_offset(void **state)
{
    static const struct {
        const char *s;
        size_t bad;
    } cases[] = {
        {"ab \x80", 3},             /* lone continuation byte */
        {"ab \xc0\xaf", 3},         /* overlong '/' (2 bytes) */
        {"ab \xc1\xbf", 3},         /* overlong, C1 lead */
        {"ab \xe0\x80\xaf", 3},     /* overlong '/' (3 bytes) */
        {"ab \xe0\x9f\xbf", 3},     /* overlong U+07FF */
        {"ab \xf0\x80\x80\xaf", 3}, /* overlong '/' (4 bytes) */
        {"ab \xf0\x8f\xbf\xbf", 3}, /* overlong U+FFFF */
        {"ab \xed\xa0\x80", 3},     /* surrogate U+D800 */
        {"ab \xed\xbf\xbf", 3},     /* surrogate U+DFFF */
        {"ab \xf4\x90\x80\x80", 3}, /* U+110000 */
        {"ab \xf5\x80\x80\x80", 3}, /* F5 lead */
        {"ab \xff", 3},             /* FF */
        {"ab \xfe\xff", 3},         /* UTF-16 BOM bytes */
        {"ab \xe2\x82", 3},         /* truncated at the end */
        {"ab \xe2\x82 x", 3},       /* truncated before a space */
        {"ab \xf0\x9f\x98", 3},     /* truncated emoji */
        {"\xc3\xa9\xc3", 2},        /* after a valid 2-byte sequence */
    };
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t bad = 999;
        assert_int_equal(tok_count(cases[k].s, strlen(cases[k].s), 64, &bad), AV_ERR_UTF8);
        assert_int_equal(bad, cases[k].bad);
        assert_int_equal(utf8_valid_prefix(cases[k].s, strlen(cases[k].s)), cases[k].bad);
    }
}

/* The extremes of valid UTF-8 are accepted: U+0080, U+07FF, U+0800, U+D7FF,
 * U+E000, U+FFFF, U+10000, U+10FFFF, and NUL (a separator, never a token). */
static void test_regress_utf8_boundaries_accepted(void **state)
{
    static const char s[] = "\xc2\x80 \xdf\xbf \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 "
                            "\xef\xbf\xbf \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf";
    static const char nul[] = "a\0b\0\0c";
    (void)state;
    assert_int_equal(utf8_valid_prefix(s, sizeof s - 1), sizeof s - 1);
    /* U+0080 is a C1 control (a separator); U+D7FF and U+E000 are letters */
    assert_int_equal(tok_count(s, sizeof s - 1, 64, NULL), 7);
    assert_int_equal(tok_count(nul, sizeof nul - 1, 64, NULL), 3);
}

/* Separators of every kind (NBSP, em space, ZWSP, BOM, line separator, NEL,
 * DEL, ideographic space) alone give no token at all. */
static void test_regress_tokenize_separators_only(void **state)
{
    static const char s[] = "\xc2\xa0\xe2\x80\x83\xe2\x80\x8b\xef\xbb\xbf\xe2\x80\xa8"
                            "\xc2\x85\x7f\xe3\x80\x80\t\r\n\v\f \x01\x1b";
    (void)state;
    assert_int_equal(tok_count(s, sizeof s - 1, 64, NULL), 0);
}

/* A word of 2-, 3- or 4-byte letters is cut at a code point boundary, never
 * past AV_MAX_TOKEN_BYTES, and the pieces cover the word. */
static void test_regress_tokenize_long_words_cut_on_boundaries(void **state)
{
    static const char *const letters[] = {"x", "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x90\x8c\xb0"};
    (void)state;
    for (int w = 0; w < 4; w++) {
        size_t cl = strlen(letters[w]), len = 0;
        char buf[1200];
        while (len + cl <= 1000) {
            memcpy(buf + len, letters[w], cl);
            len += cl;
        }
        TokenList tl = {0};
        assert_int_equal(tokenize(buf, len, 64, &tl), AV_OK);
        size_t covered = 0, piece = AV_MAX_TOKEN_BYTES / cl * cl;
        for (int i = 0; i < tl.n; i++) {
            assert_int_equal(tl.tok[i].start, covered);
            assert_true(tl.tok[i].len <= AV_MAX_TOKEN_BYTES);
            assert_int_equal(tl.tok[i].len % cl, 0);
            if (i < tl.n - 1)
                assert_int_equal(tl.tok[i].len, piece);
            covered += tl.tok[i].len;
        }
        assert_int_equal(covered, len);
        tokenize_free(&tl);
    }
}

/* Exactly max_tokens tokens pass; one more is AV_ERR_TOO_MANY with nothing
 * allocated. */
static void test_regress_tokenize_limit_edges(void **state)
{
    char buf[2 * 70];
    (void)state;
    for (int k = 0; k < 70; k++)
        buf[2 * k] = 'w', buf[2 * k + 1] = ' ';
    assert_int_equal(tok_count(buf, 2 * 64, 64, NULL), 64);
    assert_int_equal(tok_count(buf, 2 * 65, 64, NULL), AV_ERR_TOO_MANY);
    assert_int_equal(tok_count(buf, 2 * 64 - 1, 64, NULL), 64); /* no trailing space */
    assert_int_equal(tok_count(buf, 1, 1, NULL), 1);
    assert_int_equal(tok_count("", 0, 1, NULL), 0);
}

/* Joiners at the edges of words stay tokens of their own. */
static void test_regress_tokenize_dangling_joiners(void **state)
{
    static const char *const texts[] = {"'",  "dogs'", "'tis", "1.",           ".5",
                                        "1,", "a''b",  "1..2", "\xe2\x80\x99", "x\xe2\x80\x99"};
    static const int counts[] = {1, 2, 2, 2, 2, 2, 4, 4, 1, 2};
    (void)state;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        assert_int_equal(tok_count(texts[k], strlen(texts[k]), 64, NULL), counts[k]);
}

/* ---- .npy reader -------------------------------------------------------- */

/* A .npy image: magic, version major.0, the header length (2 bytes for 1.0,
 * 4 otherwise) as given, the header text and nbytes of zeros. */
static unsigned char *npy_image(int major, uint32_t hlen, const char *header, size_t nbytes,
                                size_t *len)
{
    size_t hl = strlen(header), pre = major == 1 ? 10 : 12;
    unsigned char *buf = calloc(1, pre + hl + nbytes + 1);
    assert_non_null(buf);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    for (size_t b = 0; b < pre - 8; b++)
        buf[8 + b] = (unsigned char)(hlen >> (8 * b));
    memcpy(buf + pre, header, hl);
    *len = pre + hl + nbytes;
    return buf;
}

/* Parse a header with the exact length; out must come back zeroed on error. */
static int npy_try(int major, const char *header, size_t nbytes)
{
    size_t len;
    unsigned char *buf = npy_image(major, (uint32_t)strlen(header), header, nbytes, &len);
    NpyArray a;
    memset(&a, 0x5A, sizeof a);
    int rc = npy_parse(buf, len, &a);
    if (rc != AV_OK) {
        assert_null(a.data);
        assert_int_equal(a.ndim, 0);
        assert_int_equal(a.count, 0);
    }
    npy_free(&a);
    free(buf);
    return rc;
}

/* Header lengths that point past the end of the file, up to 4 GiB - 1. */
static void test_regress_npy_huge_header_lengths(void **state)
{
    static const uint32_t lens[] = {0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0x10000u, 64};
    (void)state;
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        for (int major = 1; major <= 3; major++) {
            size_t len;
            unsigned char *buf = npy_image(major, lens[k], "{'descr': '<f4'", 0, &len);
            NpyArray a;
            assert_int_equal(npy_parse(buf, len, &a), AV_ERR_NPY_FORMAT);
            assert_null(a.data);
            free(buf);
        }
    }
    /* a zero-length header, and a preamble cut before the length */
    assert_int_equal(npy_try(1, "", 0), AV_ERR_NPY_FORMAT);
    NpyArray a;
    assert_int_equal(npy_parse((const unsigned char *)"\x93NUMPY\x02\x00\x00", 9, &a),
                     AV_ERR_NPY_FORMAT);
    assert_int_equal(npy_parse((const unsigned char *)"\x93NUMPY\x01\x00\x00\x00", 10, &a),
                     AV_ERR_NPY_FORMAT);
}

/* Shapes whose element count or byte size overflows a size_t, or whose
 * numbers do not fit one, are refused before any allocation. */
static void test_regress_npy_shape_overflow(void **state)
{
    static const char *const shapes[] = {
        "(4294967296, 4294967296, 16)",     "(4611686018427387904,)", /* 2^62 floats: 2^64 bytes */
        "(4611686018427387903,)",   /* fits in bytes, but the file is short */
        "(2305843009213693952, 2)", /* 2^62 as 2^61 x 2 */
        "(18446744073709551615,)",  /* SIZE_MAX */
        "(18446744073709551616,)",  /* SIZE_MAX + 1: does not parse */
        "(99999999999999999999999999999,)", "(65536, 65536, 65536, 65536)",
        "(3, 18446744073709551615)",
    };
    char hdr[256];
    (void)state;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': %s}",
                 shapes[k]);
        assert_int_equal(npy_try(1, hdr, 16), AV_ERR_NPY_FORMAT);
        snprintf(hdr, sizeof hdr, "{'descr': '<f8', 'fortran_order': False, 'shape': %s}",
                 shapes[k]);
        assert_int_equal(npy_try(2, hdr, 16), AV_ERR_NPY_FORMAT);
    }
}

/* A zero dimension makes an empty array, whatever the other dimensions. */
static void test_regress_npy_zero_dimension_with_huge_others(void **state)
{
    (void)state;
    assert_int_equal(npy_try(1,
                             "{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (0, 18446744073709551615)}",
                             0),
                     AV_OK);
    assert_int_equal(npy_try(1,
                             "{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (18446744073709551615, 0)}",
                             0),
                     AV_OK);
}

/* Headers broken in the middle of every construct. */
static void test_regress_npy_broken_headers(void **state)
{
    static const char *const headers[] = {
        "{",
        "{'",
        "{'descr",
        "{'descr'",
        "{'descr':",
        "{'descr': '<f4",
        "{'descr': '<f4'",
        "{'descr': '<f4',",
        "{'descr': '<f4', 'fortran_order': Fals",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)},",
        "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
        "{,}",
        "{}",
        "{'': 1}",
        "{'descr': '<f4' 'fortran_order': False, 'shape': ()}",
    };
    (void)state;
    for (size_t k = 0; k < sizeof headers / sizeof headers[0]; k++)
        assert_int_not_equal(npy_try(1, headers[k], 8), AV_OK);
}

/* Long strings (past the parser's key and descr buffers) never match a key
 * or a dtype by their truncated prefix. */
static void test_regress_npy_long_strings_truncated_safely(void **state)
{
    char hdr[1024], longkey[600];
    (void)state;
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = '\0';
    memcpy(longkey, "descr", 5);
    snprintf(hdr, sizeof hdr, "{'%s': '<f4', 'fortran_order': False, 'shape': ()}", longkey);
    assert_int_equal(npy_try(1, hdr, 4), AV_ERR_NPY_FORMAT);
    snprintf(hdr, sizeof hdr, "{'descr': '<f4%s', 'fortran_order': False, 'shape': ()}", longkey);
    assert_int_equal(npy_try(1, hdr, 4), AV_ERR_NPY_DTYPE);
    assert_int_equal(npy_try(1, "{'descr': '<f4', 'fortran_order': False, 'shape': ()}", 4), AV_OK);
}

/* A float64 beyond FLT_MAX becomes Inf and is refused like NaN. */
static void test_regress_npy_f8_overflowing_float(void **state)
{
    static const char hdr[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)}";
    const double big = 1e300;
    size_t len;
    unsigned char *buf = npy_image(1, sizeof hdr - 1, hdr, 8, &len);
    uint64_t bits;
    (void)state;
    memcpy(&bits, &big, 8);
    for (int b = 0; b < 8; b++)
        buf[len - 8 + b] = (unsigned char)(bits >> (8 * b));
    NpyArray a;
    assert_int_equal(npy_parse(buf, len, &a), AV_ERR_NPY_NONFINITE);
    assert_null(a.data);
    free(buf);
}

/* ---- sentences reader --------------------------------------------------- */

static int sentences_try(const char *data, size_t len, int *n, int *bad_line)
{
    SentenceList s;
    int rc = sentences_parse(data, len, &s);
    *n = s.n;
    *bad_line = s.bad_line;
    sentences_free(&s);
    return rc;
}

/* A 4096-byte sentence passes and a 4097-byte one is refused on its line. */
static void test_regress_sentences_line_limit_edges(void **state)
{
    char *buf = malloc(2 * SENTENCES_MAX_LINE + 16);
    int n, bad;
    (void)state;
    assert_non_null(buf);
    memcpy(buf, "first\n", 6);
    memset(buf + 6, 'a', SENTENCES_MAX_LINE);
    buf[6 + SENTENCES_MAX_LINE] = '\n';
    assert_int_equal(sentences_try(buf, 7 + SENTENCES_MAX_LINE, &n, &bad), AV_OK);
    assert_int_equal(n, 2);
    memset(buf + 6, 'a', SENTENCES_MAX_LINE + 1);
    assert_int_equal(sentences_try(buf, 7 + SENTENCES_MAX_LINE, &n, &bad), AV_ERR_TOO_LARGE);
    assert_int_equal(bad, 2);
    assert_int_equal(n, 0);
    free(buf);
}

/* 1000 sentences pass (comments and blank lines do not count); the 1001st is
 * refused on its own line. */
static void test_regress_sentences_count_limit_edges(void **state)
{
    size_t cap = 4 * (SENTENCES_MAX + 10) + 16, len = 0;
    char *buf = malloc(cap);
    int n, bad;
    (void)state;
    assert_non_null(buf);
    len += (size_t)sprintf(buf + len, "#c\n\n");
    for (int k = 0; k < SENTENCES_MAX; k++)
        len += (size_t)sprintf(buf + len, "s\n");
    assert_int_equal(sentences_try(buf, len, &n, &bad), AV_OK);
    assert_int_equal(n, SENTENCES_MAX);
    len += (size_t)sprintf(buf + len, "# not counted\nlast");
    assert_int_equal(sentences_try(buf, len, &n, &bad), AV_ERR_TOO_LARGE);
    assert_int_equal(bad, SENTENCES_MAX + 4);
    free(buf);
}

/* NUL bytes, bad UTF-8 and CR-only files; the error names the line. */
static void test_regress_sentences_hostile_bytes(void **state)
{
    int n, bad;
    (void)state;
    assert_int_equal(sentences_try("ok\nx\0y\n", 7, &n, &bad), AV_ERR_UTF8);
    assert_int_equal(bad, 2);
    assert_int_equal(sentences_try("ok\n\n\xed\xa0\x80\n", 8, &n, &bad), AV_ERR_UTF8);
    assert_int_equal(bad, 3);
    assert_int_equal(sentences_try("\r\r\r", 3, &n, &bad), AV_ERR_EMPTY);
    assert_int_equal(bad, 0);
    assert_int_equal(sentences_try("", 0, &n, &bad), AV_ERR_EMPTY);
    assert_int_equal(sentences_try("\n\n#\n  \t\n", 8, &n, &bad), AV_ERR_EMPTY);
    assert_int_equal(sentences_try(" \t a b \r\n", 9, &n, &bad), AV_OK);
    assert_int_equal(n, 1);
    /* a NUL inside a comment is harmless: the whole line is skipped */
    assert_int_equal(sentences_try("# a\0b\nok\n", 9, &n, &bad), AV_OK);
}

/* ---- command line ------------------------------------------------------- */

/* cli_parse on a copy of args (getopt_long permutes argv). */
static int cli_try(CliOptions *o, int argc, const char *const *args)
{
    char *argv[40];
    assert_true(argc < 40);
    for (int k = 0; k < argc; k++)
        argv[k] = (char *)args[k];
    argv[argc] = NULL;
    return cli_parse(argc, argv, o);
}

/* A parse that stops in the middle of an option cluster ("-cZ") must not leak
 * getopt's position into the next parse. */
static void test_regress_cli_repeated_parses_start_afresh(void **state)
{
    static const char *const bad[] = {"attnviz", "-cZH", "2", "x"};
    static const char *const good[] = {"attnviz", "-H", "2", "-d", "8", "a", "b"};
    static const char *const missing[] = {"attnviz", "x", "--heads"};
    CliOptions o;
    (void)state;
    for (int round = 0; round < 3; round++) {
        assert_int_equal(cli_try(&o, 4, bad), AV_ERR_CONFIG);
        assert_string_equal(o.err, "unknown option '-Z'");
        cli_free(&o);
        assert_int_equal(cli_try(&o, 3, missing), AV_ERR_CONFIG);
        cli_free(&o);
        assert_int_equal(cli_try(&o, 7, good), AV_OK);
        assert_int_equal(o.cfg.H, 2);
        assert_int_equal(o.cfg.d_model, 8);
        assert_false(o.cfg.causal);
        assert_string_equal(o.text, "a b");
        cli_free(&o);
    }
}

/* Empty arguments, "-" and arguments after "--" are text, not options. */
static void test_regress_cli_odd_operands(void **state)
{
    static const char *const args[] = {"attnviz", "", "-", "--", "-c", "--heads", ""};
    CliOptions o;
    (void)state;
    assert_int_equal(cli_try(&o, 7, args), AV_OK);
    assert_false(o.cfg.causal);
    assert_string_equal(o.text, " - -c --heads ");
    cli_free(&o);
}

/* An argument of 100 kB makes a bounded message, and numbers out of range or
 * with junk are refused. */
static void test_regress_cli_huge_and_junk_numbers(void **state)
{
    static const char *const nums[] = {
        "",   " ",  "4 ",  "0x10",        "1e3", "99999999999999999999",
        "-1", "65", "4\n", "\xef\xbc\x94" /* fullwidth 4 */};
    char *huge = malloc(100001);
    CliOptions o;
    (void)state;
    assert_non_null(huge);
    memset(huge, '7', 100000);
    huge[100000] = '\0';
    const char *args[] = {"attnviz", "--heads", huge};
    assert_int_equal(cli_try(&o, 3, args), AV_ERR_CONFIG);
    assert_true(strlen(o.err) < 120);
    cli_free(&o);
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        args[2] = nums[k];
        assert_int_equal(cli_try(&o, 3, args), AV_ERR_CONFIG);
        cli_free(&o);
    }
    static const char *const seed[] = {"attnviz", "--seed", "-0"};
    assert_int_equal(cli_try(&o, 3, seed), AV_ERR_CONFIG);
    cli_free(&o);
    free(huge);
}

/* The message has no control characters: no newline, no escape sequence that
 * would reach the terminal, whatever the argument held. On failure the
 * message is shown with its control bytes escaped. */
static void check_printable(const char *s, const char *file, int line)
{
    char shown[1024];
    size_t n = 0, bad = strlen(s);
    for (size_t k = 0; s[k] && n + 5 < sizeof shown; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c < 0x20 || c == 0x7F) {
            bad = bad < k ? bad : k;
            n += (size_t)snprintf(shown + n, sizeof shown - n, "\\x%02x", c);
        } else {
            shown[n++] = (char)c;
        }
    }
    shown[n] = '\0';
    if (bad != strlen(s)) {
        print_error("%s:%d: control byte at %zu in \"%s\"\n", file, line, bad, shown);
        fail();
    }
}

#define assert_printable(s) check_printable((s), __FILE__, __LINE__)

/* Finding tests/fuzz/findings/cli-no-value-option-with-value: "--no-pe=1"
 * made "unknown option '-\x01'" (getopt_long sets optopt to the option's
 * value, 257, printed with %c), and "--causal=1" blamed "-c". The message
 * must name the option as given. */
static void test_regress_cli_long_option_given_a_value(void **state)
{
    static const char *const opts[] = {"--no-pe=1", "--no-scale=yes", "--causal=1", "--help=x",
                                       "--version="};
    CliOptions o;
    (void)state;
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        const char *args[] = {"attnviz", opts[k], "text"};
        assert_int_equal(cli_try(&o, 3, args), AV_ERR_CONFIG);
        assert_printable(o.err);
        size_t name_len = strcspn(opts[k], "=");
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)name_len, opts[k]);
        if (!strstr(o.err, name)) {
            print_error("message \"%s\" does not name %s\n", o.err, name);
            fail();
        }
        cli_free(&o);
    }
}

/* Finding tests/fuzz/findings/cli-control-chars-in-message: a value holding a
 * newline or ESC was copied into the one-line message as it was, so stderr
 * got two lines or a terminal escape sequence (cli.h: "one line"). */
static void test_regress_cli_message_has_no_control_chars(void **state)
{
    static const char *const args[][3] = {
        {"attnviz", "--heads", "4\n\x1b[31mRED"},
        {"attnviz", "--color", "\x1b]0;title\x07"},
        {"attnviz", "-e", "csv\r"},
        {"attnviz", "--seed", "1\x7f"},
        {"attnviz", "--\x1b[2J", "x"},
        {"attnviz", "-\x01", "x"},
    };
    CliOptions o;
    (void)state;
    for (size_t k = 0; k < sizeof args / sizeof args[0]; k++) {
        assert_int_equal(cli_try(&o, 3, args[k]), AV_ERR_CONFIG);
        assert_printable(o.err);
        cli_free(&o);
    }
}

static void test_regress_npy_empty_array_with_huge_dimension(void **state)
{
    (void)state;
    /* Fuzz finding (tests/fuzz/findings/npy-empty-with-huge-dimension): shape
     * (5766609122868621766, 0) is an empty array; the reader took it, the
     * writer's overflow check refused it. Both now treat it as empty. */
    char path[] = "/tmp/attnviz-regress-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    size_t shape[2] = {5766609122868621766u, 0};
    NpyArray a = {0};
    assert_int_equal(npy_write(path, 2, shape, NULL), AV_OK);
    assert_int_equal(npy_read(path, &a), AV_OK);
    assert_int_equal(a.ndim, 2);
    assert_true(a.shape[0] == shape[0] && a.shape[1] == 0 && a.count == 0);
    npy_free(&a);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regress_npy_empty_array_with_huge_dimension),
        cmocka_unit_test(test_regress_utf8_malformed_forms_refused_at_offset),
        cmocka_unit_test(test_regress_utf8_boundaries_accepted),
        cmocka_unit_test(test_regress_tokenize_separators_only),
        cmocka_unit_test(test_regress_tokenize_long_words_cut_on_boundaries),
        cmocka_unit_test(test_regress_tokenize_limit_edges),
        cmocka_unit_test(test_regress_tokenize_dangling_joiners),
        cmocka_unit_test(test_regress_npy_huge_header_lengths),
        cmocka_unit_test(test_regress_npy_shape_overflow),
        cmocka_unit_test(test_regress_npy_zero_dimension_with_huge_others),
        cmocka_unit_test(test_regress_npy_broken_headers),
        cmocka_unit_test(test_regress_npy_long_strings_truncated_safely),
        cmocka_unit_test(test_regress_npy_f8_overflowing_float),
        cmocka_unit_test(test_regress_sentences_line_limit_edges),
        cmocka_unit_test(test_regress_sentences_count_limit_edges),
        cmocka_unit_test(test_regress_sentences_hostile_bytes),
        cmocka_unit_test(test_regress_cli_repeated_parses_start_afresh),
        cmocka_unit_test(test_regress_cli_odd_operands),
        cmocka_unit_test(test_regress_cli_huge_and_junk_numbers),
        cmocka_unit_test(test_regress_cli_long_option_given_a_value),
        cmocka_unit_test(test_regress_cli_message_has_no_control_chars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
