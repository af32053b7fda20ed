/* test_view.c - the arithmetic behind the attention views, without curses:
 * a head's entropy and largest weights, the zoom, scroll and pooling layout
 * of a long text, and the teaching actions of the interface's state
 * (temperature, layers, cross-attention, side by side, zoom). */
#include "test_common.h"

#include <locale.h>
#include <string.h>

#include "core/av.h"
#include "render/plot.h"
#include "app/state.h"
#include "core/stats.h"
#include "render/axis.h"

static void test_entropy_uniform_onehot_and_masked(void **state)
{
    (void)state;
    const float uniform[4] = {0.25f, 0.25f, 0.25f, 0.25f};
    const float onehot[3] = {0.0f, 1.0f, 0.0f};
    const float half_masked[4] = {0.5f, 0.5f, 0.0f, 0.0f}; /* two masked keys */
    /* log2(n) bits for a uniform row, 0 for a one-hot row, masked zeros ignored */
    assert_float_equal(stats_row_entropy(uniform, 4), 2.0, 1e-6);
    assert_float_equal(stats_row_entropy(onehot, 3), 0.0, 1e-12);
    assert_float_equal(stats_row_entropy(half_masked, 4), 1.0, 1e-6);
}

static void test_stats_mean_over_rows(void **state)
{
    (void)state;
    const float rows[2][4] = {{0.25f, 0.25f, 0.25f, 0.25f}, {1.0f, 0.0f, 0.0f, 0.0f}};
    HeadStats st = {0};
    stats_add(&st, rows[0], 4);
    stats_add(&st, rows[1], 4);
    stats_finish(&st);
    /* entropy (2 + 0) / 2, top weight (0.25 + 1) / 2, the largest 1 */
    assert_int_equal(st.rows, 2);
    assert_float_equal(st.entropy, 1.0, 1e-6);
    assert_float_equal(st.top, 0.625, 1e-6);
    assert_float_equal(st.max, 1.0f, 0.0f);
}

static void test_sample_stride(void **state)
{
    (void)state;
    /* every row while the head fits the budget, else a stride to stay under it */
    assert_int_equal(stats_sample_stride(12, 12, 1 << 18), 1);
    assert_int_equal(stats_sample_stride(2048, 2048, 1 << 18), 16);
    assert_true(2048 / stats_sample_stride(2048, 2048, 1 << 18) * 2048L <= 1 << 18);
    assert_int_equal(stats_sample_stride(5, 0, 1), 1);
}

static void test_zoom_span_halves_down_to_one_per_cell(void **state)
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

static void test_view_axis_keeps_selection_visible(void **state)
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

static void test_cell_ranges_cover_the_span(void **state)
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

static void setup(AppState *s)
{
    ModelConfig c;
    model_config_default(&c);
    assert_int_equal(app_init(s, &c, "The cat sat", NULL, false), AV_OK);
    app_set_tokens(s, 3, 3);
}

static void test_temperature_steps_within_limits(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    /* t halves, T doubles, each asking for a run; never below 0.01 or above 100 */
    assert_int_equal(app_apply(&s, ACT_TEMP_DOWN, 0), APP_RUN);
    assert_float_equal(s.cfg.temperature, 0.5f, 1e-6f);
    for (int k = 0; k < 20; k++)
        app_apply(&s, ACT_TEMP_DOWN, 0);
    assert_float_equal(s.cfg.temperature, 1.0f / 64, 1e-7f);
    assert_int_equal(app_apply(&s, ACT_TEMP_DOWN, 0), 0);
    for (int k = 0; k < 40; k++)
        app_apply(&s, ACT_TEMP_UP, 0);
    assert_float_equal(s.cfg.temperature, 64.0f, 1e-4f);
    assert_float_equal(app_temp_step(80.0f, 2.0f), 80.0f, 0.0f);
    app_free(&s);
}

static void test_layers_change_and_select(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    /* > adds a layer (new weights) and shows it; l and L cycle; < removes */
    assert_int_equal(app_apply(&s, ACT_LAYERS_INC, 0), APP_RUN | APP_WEIGHTS);
    assert_int_equal(s.cfg.layers, 2);
    assert_int_equal(s.layer, 1);
    app_apply(&s, ACT_LAYER_NEXT, 0);
    assert_int_equal(s.layer, 0);
    app_apply(&s, ACT_LAYER_PREV, 0);
    assert_int_equal(s.layer, 1);
    assert_int_equal(app_apply(&s, ACT_LAYERS_DEC, 0), APP_RUN | APP_WEIGHTS);
    assert_int_equal(s.layer, 0);
    assert_int_equal(app_apply(&s, ACT_LAYERS_DEC, 0), 0);
    s.max_layers = 1; /* --weights with one layer */
    assert_int_equal(app_apply(&s, ACT_LAYERS_INC, 0), 0);
    app_free(&s);
}

static void test_cross_sentence_is_edited_with_tab(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    assert_string_equal(s.cross.s, APP_CROSS_DEFAULT);
    assert_int_equal(app_apply(&s, ACT_CROSS, 0), APP_RUN);
    assert_true(s.cross_on);
    app_apply(&s, ACT_EDIT, 0);
    /* Tab in the editor goes to the second sentence; typing goes there */
    assert_int_equal(app_apply(&s, ACT_FIELD_NEXT, 0), 0);
    assert_int_equal(s.field, 1);
    assert_int_equal(app_type(&s, "!", 1), APP_RUN);
    assert_string_equal(s.cross.s, APP_CROSS_DEFAULT "!");
    assert_string_equal(s.text.s, "The cat sat");
    app_apply(&s, ACT_FIELD_NEXT, 0);
    assert_int_equal(app_type(&s, "?", 1), APP_RUN | APP_CURSOR);
    assert_string_equal(s.text.s, "The cat sat?");
    /* without cross-attention Tab is the next head again */
    app_apply(&s, ACT_EDIT_DONE, 0);
    app_apply(&s, ACT_CROSS, 0);
    app_apply(&s, ACT_FIELD_NEXT, 0);
    assert_int_equal(s.head, 1);
    /* E edits the second sentence, turning cross-attention on */
    assert_int_equal(app_apply(&s, ACT_EDIT_CROSS, 1), APP_RUN);
    assert_true(s.cross_on);
    assert_int_equal(s.field, 1);
    app_free(&s);
}

static void test_compare_panels_and_escape(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    /* the mask comparison needs a second run; the heads one does not */
    assert_int_equal(app_apply(&s, ACT_CMP_MASK, 0), APP_RUN);
    assert_int_equal(s.compare, CMP_MASK);
    assert_int_equal(app_apply(&s, ACT_CMP_HEADS, 0), 0);
    assert_int_equal(s.compare, CMP_HEADS);
    app_apply(&s, ACT_CMP_HEADS, 0);
    assert_int_equal(s.compare, CMP_NONE);
    app_apply(&s, ACT_TRACE, 0);
    assert_int_equal(s.panel, PANEL_TRACE);
    app_apply(&s, ACT_ROW_PGDN, 0); /* PgDn scrolls the panel, not the token */
    assert_int_equal(s.panel_scroll, 20);
    assert_int_equal(s.sel_row, 0);
    assert_int_equal(app_apply(&s, ACT_ESCAPE, 0), 0);
    assert_int_equal(s.panel, PANEL_NONE);
    assert_int_equal(app_apply(&s, ACT_ESCAPE, 0), APP_QUIT);
    app_free(&s);
}

static void test_zoom_and_row_steps(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    app_set_tokens(&s, 2000, 2000);
    /* zoom asks for a redraw centred on the selection; 0 shows all again */
    assert_int_equal(app_apply(&s, ACT_ZOOM_IN, 0), APP_VIEW);
    assert_int_equal(s.zoom, 1);
    assert_true(s.recentre);
    app_apply(&s, ACT_ZOOM_IN, 0);
    assert_int_equal(app_apply(&s, ACT_ZOOM_ALL, 0), APP_VIEW);
    assert_int_equal(s.zoom, 0);
    assert_int_equal(app_apply(&s, ACT_ZOOM_OUT, 0), 0);
    /* Down moves a screen row's worth of tokens in a pooled view */
    s.row_step = 64;
    app_apply(&s, ACT_ROW_NEXT, 0);
    assert_int_equal(s.sel_row, 64);
    assert_int_equal(app_apply(&s, ACT_POOL, 0), APP_VIEW);
    assert_true(s.pool_mean);
    app_free(&s);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entropy_uniform_onehot_and_masked),
        cmocka_unit_test(test_stats_mean_over_rows),
        cmocka_unit_test(test_sample_stride),
        cmocka_unit_test(test_zoom_span_halves_down_to_one_per_cell),
        cmocka_unit_test(test_view_axis_keeps_selection_visible),
        cmocka_unit_test(test_cell_ranges_cover_the_span),
        cmocka_unit_test(test_temperature_steps_within_limits),
        cmocka_unit_test(test_layers_change_and_select),
        cmocka_unit_test(test_cross_sentence_is_edited_with_tab),
        cmocka_unit_test(test_compare_panels_and_escape),
        cmocka_unit_test(test_zoom_and_row_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
