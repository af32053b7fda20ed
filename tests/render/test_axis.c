/* test_axis.c - the zoom, scroll and pooling layout of a long text (axis.h). */
#include "test_common.h"

#include "render/axis.h"

static void test_axis_zoom_span_halves_down_to_one_per_cell(void **state)
{
    (void)state;
    /* 2048 tokens on 30 rows: 2048, 1024, ..., 32, then 30 (one a row) */
    assert_int_equal(axis_zoom_span(2048, 0, 30), 2048);
    assert_int_equal(axis_zoom_span(2048, 1, 30), 1024);
    assert_int_equal(axis_zoom_span(2048, 6, 30), 32);
    assert_int_equal(axis_zoom_span(2048, 7, 30), 30);
    assert_int_equal(axis_zoom_span(2048, 14, 30), 30);
    assert_int_equal(axis_zoom_max(2048, 30), 7);
    assert_int_equal(axis_zoom_span(2101, 1, 30), 1051); /* odd counts round up */
    assert_int_equal(axis_zoom_max(10, 30), 0);          /* already one a row */
    assert_int_equal(axis_zoom_span(10, 3, 30), 10);
}

static void test_axis_view_keeps_selection_visible(void **state)
{
    (void)state;
    /* zoom 2 of 2000 tokens: 500 shown; scrolling moves as little as it must */
    ViewAxis a = axis_view(2000, 40, 2, 10, 0, false);
    assert_int_equal(a.span, 500);
    assert_int_equal(a.cells, 40);
    assert_int_equal(a.first, 0);
    a = axis_view(2000, 40, 2, 700, 0, false);
    assert_int_equal(a.first, 201); /* 700 is the last token shown */
    a = axis_view(2000, 40, 2, 100, 201, false);
    assert_int_equal(a.first, 100);
    /* recentring puts the selection in the middle, clamped at the ends */
    a = axis_view(2000, 40, 2, 1000, 0, true);
    assert_int_equal(a.first, 750);
    a = axis_view(2000, 40, 2, 1990, 0, true);
    assert_int_equal(a.first, 1500);
    /* zoom 0 shows all: first is 0 whatever the selection */
    a = axis_view(2000, 40, 0, 1990, 77, false);
    assert_int_equal(a.first, 0);
    assert_int_equal(a.span, 2000);
}

static void test_axis_cell_ranges_cover_the_span(void **state)
{
    (void)state;
    ViewAxis a = axis_view(2048, 30, 0, 0, 0, false);
    int prev = 0;
    /* cells tile [0, 2048) without gaps, each 68 or 69 tokens */
    for (int k = 0; k < a.cells; k++) {
        int t0, t1;
        axis_cell_range(&a, k, &t0, &t1);
        assert_int_equal(t0, prev);
        assert_true(t1 - t0 == 68 || t1 - t0 == 69);
        assert_int_equal(axis_cell_of(&a, t0), k);
        assert_int_equal(axis_cell_of(&a, t1 - 1), k);
        prev = t1;
    }
    assert_int_equal(prev, 2048);
    assert_int_equal(axis_cell_of(&a, 2048), -1);
    char buf[32];
    axis_range_label(128, 192, buf, sizeof buf);
    assert_string_equal(buf, "129-192");
    axis_range_label(128, 129, buf, sizeof buf);
    assert_string_equal(buf, "129");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axis_zoom_span_halves_down_to_one_per_cell),
        cmocka_unit_test(test_axis_view_keeps_selection_visible),
        cmocka_unit_test(test_axis_cell_ranges_cover_the_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
