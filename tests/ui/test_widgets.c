/* test_widgets.c - the small multiples' captions (src/ui/widgets.c): a
 * head's entropy and mean top weight in the columns a tile has, never cut
 * where a shorter form fits; the statistics after a title in the longest
 * form that fits; a hint line in whole parts.
 */
#include "test_common.h"

#include <string.h>

#include "../../src/ui/widgets.h"

static void test_stats_caption_fits_its_tile(void **state)
{
    (void)state;
    HeadStats st = {.entropy = 0.512, .top = 0.853};
    char buf[32];
    assert_int_equal(widget_stats_caption(&st, 9, buf, sizeof buf), 9);
    assert_string_equal(buf, "0.51b .85"); /* the tiles' key explains the b */
    assert_int_equal(widget_stats_caption(&st, 8, buf, sizeof buf), 8);
    assert_string_equal(buf, "0.51 .85");
    assert_int_equal(widget_stats_caption(&st, 7, buf, sizeof buf), 7);
    assert_string_equal(buf, "0.5 .85");
    st.entropy = 12.25, st.top = 1.0; /* 4,096 tokens spread evenly, a top of 1 */
    assert_int_equal(widget_stats_caption(&st, 11, buf, sizeof buf), 11);
    assert_string_equal(buf, "12.25b 1.00");
    assert_int_equal(widget_stats_caption(&st, 10, buf, sizeof buf), 10);
    assert_string_equal(buf, "12.25 1.00");
    assert_int_equal(widget_stats_caption(&st, 9, buf, sizeof buf), 9);
    assert_string_equal(buf, "12.2 1.00");
    assert_int_equal(widget_stats_caption(NULL, 8, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

static void test_stats_fit_takes_the_longest_form_that_fits(void **state)
{
    (void)state;
    HeadStats st = {.entropy = 0.162, .top = 0.981};
    char buf[80];
    assert_int_equal(widget_stats_fit(&st, 39, buf, sizeof buf), 39);
    assert_string_equal(buf, "entropy 0.16 bits, mean top weight 0.98");
    assert_int_equal(widget_stats_fit(&st, 38, buf, sizeof buf), 27);
    assert_string_equal(buf, "entropy 0.16 bits, top 0.98");
    assert_int_equal(widget_stats_fit(&st, 26, buf, sizeof buf), 9);
    assert_string_equal(buf, "0.16b .98");
    assert_int_equal(widget_stats_fit(&st, 8, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
    st.sampled = true; /* each value marked as from sampled rows, in every form */
    assert_int_equal(widget_stats_fit(&st, 29, buf, sizeof buf), 29);
    assert_string_equal(buf, "entropy ~0.16 bits, top ~0.98");
    assert_int_equal(widget_stats_fit(&st, 11, buf, sizeof buf), 11);
    assert_string_equal(buf, "~0.16b ~.98");
    assert_int_equal(widget_stats_fit(NULL, 40, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

/* widget_fit: the first (longest) form within the width, code points
 * counted, not bytes; the last when none fits. */
static void test_fit_picks_the_first_form_that_fits(void **state)
{
    (void)state;
    const char *forms[] = {"n\u00b2 121 weights 2.8 KiB", "n\u00b2 121 | 2.8 KiB", "n\u00b2 121"};
    assert_int_equal(widget_fit(forms, 3, 22), 0); /* 23 bytes, 22 columns */
    assert_int_equal(widget_fit(forms, 3, 21), 1);
    assert_int_equal(widget_fit(forms, 3, 16), 1);
    assert_int_equal(widget_fit(forms, 3, 15), 2);
    assert_int_equal(widget_fit(forms, 3, 2), 2); /* none fits: the shortest, cut where drawn */
    assert_int_equal(widget_fit(forms, 1, 2), 0);
}

/* widget_hint_fit: whole parts in order, the help and quit kept at the
 * end, a later shorter part where a longer one does not fit. */
static void test_hint_fit_keeps_whole_parts(void **state)
{
    (void)state;
    const char *pe = "Up/Down: position | [ ]: plotted dims | p: PE on/off | d/D: d_model | "
                     "v: attention view | e: edit | ? help | q quit";
    char buf[256];
    assert_int_equal(widget_hint_fit(pe, 200, buf, sizeof buf), 115);
    assert_string_equal(buf, pe); /* 120 columns: as it was */
    widget_hint_fit(pe, 100, buf, sizeof buf);
    assert_string_equal(buf,
                        "Up/Down: position | [ ]: plotted dims | p: PE on/off | d/D: d_model | "
                        "e: edit | ? help | q quit");
    assert_int_equal(widget_hint_fit(pe, 80, buf, sizeof buf), 80);
    assert_string_equal(
        buf, "Up/Down: position | [ ]: plotted dims | p: PE on/off | e: edit | ? help | q quit");
    widget_hint_fit(pe, 20, buf, sizeof buf);
    assert_string_equal(buf, "? help | q quit");
    widget_hint_fit("typing | Enter: done | F1 help", 24, buf, sizeof buf);
    assert_string_equal(buf, "typing | F1 help");
    widget_hint_fit("a | b", 80, buf, sizeof buf); /* no help part: all when they fit */
    assert_string_equal(buf, "a | b");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_caption_fits_its_tile),
        cmocka_unit_test(test_stats_fit_takes_the_longest_form_that_fits),
        cmocka_unit_test(test_fit_picks_the_first_form_that_fits),
        cmocka_unit_test(test_hint_fit_keeps_whole_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
