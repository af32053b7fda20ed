/* test_screen.c - the bytes screen.c writes for a frame, against terminfo's
 * xterm-256color entry (ncurses-base): a whole frame, only the changed cells
 * of the next one, colours sent only when they change, a row that ends
 * sooner cleared to its end, wide characters, and vt100's padding left out.
 */
#include "test_common.h"

#include <curses.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <unistd.h>

#include "ui/screen.h"

#define PLAIN "\033(B\033[m"
#define HOME PLAIN "\033[1;1H" /* how every frame ends */

/* What screen_frame wrote to standard output, as a string (static). */
static const char *frame(Screen *s, const uint64_t *keys, const uint64_t *prev, int w, int h)
{
    static char out[8192];
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0 && dup2(fileno(f), STDOUT_FILENO) >= 0);
    screen_frame(s, keys, prev, w, h);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    rewind(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    fclose(f);
    return out;
}

static Screen *xterm256(void)
{
    int err = 0;
    assert_int_equal(setupterm("xterm-256color", STDERR_FILENO, &err), OK);
    return screen_new(256);
}

/* The screen and the terminal entry setupterm loaded. */
static void done(Screen *s)
{
    screen_free(s);
    del_curterm(cur_term);
}

#define K(c) screen_key((c), -1, -1, 0)

static void test_whole_then_changes(void **state)
{
    (void)state;
    Screen *s = xterm256();
    uint64_t a[8] = {K('a'),       screen_key('b', 196, -1, 0),
                     SCREEN_BLANK, SCREEN_BLANK,
                     SCREEN_BLANK, SCREEN_BLANK,
                     SCREEN_BLANK, SCREEN_BLANK};
    /* whole: cleared, then only what is not blank, from one move */
    assert_string_equal(frame(s, a, NULL, 4, 2),
                        PLAIN "\033[H\033[2J\033[1;1Ha\033[38;5;196mb" HOME);
    /* next: one cell changed, its colour set again (every frame starts plain) */
    uint64_t b[8];
    memcpy(b, a, sizeof b);
    b[1] = screen_key('c', 196, -1, 0);
    assert_string_equal(frame(s, b, a, 4, 2), PLAIN "\033[1;2H\033[38;5;196mc" HOME);
    /* nothing changed: nothing but the frame's ends */
    assert_string_equal(frame(s, b, b, 4, 2), PLAIN HOME);
    done(s);
}

static void test_colours_only_when_they_change(void **state)
{
    (void)state;
    Screen *s = xterm256();
    uint64_t a[4] = {screen_key('x', 21, 226, 0), screen_key('y', 21, 196, 0),
                     screen_key('z', -1, -1, SCREEN_BOLD), screen_key('w', 3, -1, 0)};
    /* y keeps x's foreground; z goes back to the default colours (op) and
     * bold; w drops bold (sgr0, which also resets colours) then sets 3 */
    assert_string_equal(frame(s, a, NULL, 4, 1),
                        PLAIN "\033[H\033[2J\033[1;1H\033[38;5;21m\033[48;5;226mx"
                              "\033[48;5;196my\033[39;49m\033[1mz" PLAIN "\033[33mw" HOME);
    done(s);
}

static void test_short_gap_and_cleared_end(void **state)
{
    (void)state;
    Screen *s = xterm256();
    uint64_t a[6] = {K('a'), K('b'), K('c'), K('d'), K('e'), K('f')};
    uint64_t b[6] = {K('A'), K('b'), K('C'), SCREEN_BLANK, SCREEN_BLANK, SCREEN_BLANK};
    /* A and C in one run (b between them written again, cheaper than a
     * move), then the row cleared from its last cell that shows something */
    assert_string_equal(frame(s, b, a, 6, 1), PLAIN "\033[1;1HAbC\033[1;4H" PLAIN "\033[K" HOME);
    /* a long gap: two moves */
    uint64_t c[6] = {K('a'), K('b'), K('c'), K('d'), K('e'), K('F')};
    uint64_t d[6] = {K('A'), K('b'), K('c'), K('d'), K('e'), K('f')};
    assert_string_equal(frame(s, d, c, 6, 1), PLAIN "\033[1;1HA\033[1;6Hf" HOME);
    done(s);
}

static void test_wide_characters(void **state)
{
    (void)state;
    Screen *s = xterm256();
    /* 日 takes two columns: its right half (code point 0) is not written */
    uint64_t a[4] = {K(0x65e5), K(0), K('x'), SCREEN_BLANK};
    assert_string_equal(frame(s, a, NULL, 4, 1), PLAIN "\033[H\033[2J\033[1;1H\xe6\x97\xa5x" HOME);
    /* only the right half changed (its colour): written from the left half */
    uint64_t b[4] = {K(0x65e5), screen_key(0, 1, -1, 0), K('x'), SCREEN_BLANK};
    assert_string_equal(frame(s, b, a, 4, 1), PLAIN "\033[1;1H\xe6\x97\xa5" HOME);
    /* a wide character in the last column: the row ends with it (the next
     * row's first cell is not read as this row's) */
    uint64_t d[8] = {K('a'), K('b'),       K(0x65e5),    K(0),
                     K('Q'), SCREEN_BLANK, SCREEN_BLANK, SCREEN_BLANK};
    assert_string_equal(frame(s, d, NULL, 4, 2),
                        PLAIN "\033[H\033[2J\033[1;1Hab\xe6\x97\xa5\033[2;1HQ" HOME);
    /* a control character or a lone right half cannot take its column as
     * it is: '?' and a space */
    uint64_t c[4] = {K(0x07), K(0), K('x'), SCREEN_BLANK};
    assert_string_equal(frame(s, c, NULL, 4, 1), PLAIN "\033[H\033[2J\033[1;1H? x" HOME);
    done(s);
}

static void test_padding_left_out(void **state)
{
    (void)state;
    int err = 0;
    assert_int_equal(setupterm("vt100", STDERR_FILENO, &err), OK);
    assert_non_null(strstr(enter_bold_mode, "$<")); /* vt100's bold has a delay */
    Screen *s = screen_new(0);
    uint64_t a[2] = {screen_key('b', -1, -1, SCREEN_BOLD), K('n')};
    const char *out = frame(s, a, NULL, 2, 1);
    assert_null(strchr(out, '$'));
    assert_non_null(strstr(out, "\033[1mb"));
    done(s);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8")) /* wcwidth's widths, as main.c sets them */
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_then_changes),
        cmocka_unit_test(test_colours_only_when_they_change),
        cmocka_unit_test(test_short_gap_and_cleared_end),
        cmocka_unit_test(test_wide_characters),
        cmocka_unit_test(test_padding_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
