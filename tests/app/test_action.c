/* test_action.c - the teaching actions of the interface's state, without
 * curses: temperature, layers, cross-attention, side by side, zoom. */
#include "test_common.h"

#include <locale.h>
#include <string.h>

#include "core/av.h"
#include "app/ladder.h"
#include "app/state.h"
#include "app/action.h"

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
    assert_int_equal(action_apply(&s, ACT_TEMP_DOWN, 0), APP_RUN);
    assert_float_equal(s.cfg.temperature, 0.5f, 1e-6f);
    for (int k = 0; k < 20; k++)
        action_apply(&s, ACT_TEMP_DOWN, 0);
    assert_float_equal(s.cfg.temperature, 1.0f / 64, 1e-7f);
    assert_int_equal(action_apply(&s, ACT_TEMP_DOWN, 0), 0);
    for (int k = 0; k < 40; k++)
        action_apply(&s, ACT_TEMP_UP, 0);
    assert_float_equal(s.cfg.temperature, 64.0f, 1e-4f);
    assert_float_equal(ladder_temp_step(80.0f, 2.0f), 80.0f, 0.0f);
    app_free(&s);
}

/* In the pipeline view ] and [ turn one page each (they step the PE view's
 * plotted dimensions by two, a sine and its cosine); never below page 0.
 * On the heatmaps they say so and change nothing. */
static void test_pipeline_pages_step_by_one(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    s.view = VIEW_ID_PIPELINE;
    s.pipe_page = 0;
    action_apply(&s, ACT_DIMS_NEXT, 0);
    assert_int_equal(s.pipe_page, 1);
    action_apply(&s, ACT_DIMS_NEXT, 0);
    assert_int_equal(s.pipe_page, 2);
    action_apply(&s, ACT_DIMS_PREV, 0);
    assert_int_equal(s.pipe_page, 1);
    action_apply(&s, ACT_DIMS_PREV, 0);
    action_apply(&s, ACT_DIMS_PREV, 0);
    assert_int_equal(s.pipe_page, 0);
    /* in the PE view they step the dimensions by two; on the heatmaps,
     * which plot none, they change nothing and say where they work */
    s.view = VIEW_ID_PE;
    s.pe_dim = 0;
    action_apply(&s, ACT_DIMS_NEXT, 0);
    assert_int_equal(s.pe_dim, 2);
    s.view = VIEW_ID_ATTN;
    s.msg[0] = '\0';
    action_apply(&s, ACT_DIMS_NEXT, 0);
    assert_int_equal(s.pe_dim, 2);
    assert_string_equal(s.msg, "[ and ]: the dimensions the PE view plots (v opens it)");
    app_free(&s);
}

static void test_layers_change_and_select(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    /* > adds a layer (new weights) and shows it; l and L cycle; < removes */
    assert_int_equal(action_apply(&s, ACT_LAYERS_INC, 0), APP_RUN | APP_WEIGHTS);
    assert_int_equal(s.cfg.layers, 2);
    assert_int_equal(s.layer, 1);
    action_apply(&s, ACT_LAYER_NEXT, 0);
    assert_int_equal(s.layer, 0);
    action_apply(&s, ACT_LAYER_PREV, 0);
    assert_int_equal(s.layer, 1);
    assert_int_equal(action_apply(&s, ACT_LAYERS_DEC, 0), APP_RUN | APP_WEIGHTS);
    assert_int_equal(s.layer, 0);
    assert_int_equal(action_apply(&s, ACT_LAYERS_DEC, 0), 0);
    s.max_layers = 1; /* --weights with one layer */
    assert_int_equal(action_apply(&s, ACT_LAYERS_INC, 0), 0);
    app_free(&s);
}

static void test_cross_sentence_is_edited_with_tab(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    assert_string_equal(s.cross.s, APP_CROSS_DEFAULT);
    assert_int_equal(action_apply(&s, ACT_CROSS, 0), APP_RUN);
    assert_true(s.cross_on);
    action_apply(&s, ACT_EDIT, 0);
    /* Tab in the editor goes to the second sentence; typing goes there */
    assert_int_equal(action_apply(&s, ACT_FIELD_NEXT, 0), 0);
    assert_int_equal(s.field, 1);
    assert_int_equal(app_type(&s, "!", 1), APP_RUN);
    assert_string_equal(s.cross.s, APP_CROSS_DEFAULT "!");
    assert_string_equal(s.text.s, "The cat sat");
    action_apply(&s, ACT_FIELD_NEXT, 0);
    assert_int_equal(app_type(&s, "?", 1), APP_RUN | APP_CURSOR);
    assert_string_equal(s.text.s, "The cat sat?");
    /* without cross-attention Tab is the next head again */
    action_apply(&s, ACT_EDIT_DONE, 0);
    action_apply(&s, ACT_CROSS, 0);
    action_apply(&s, ACT_FIELD_NEXT, 0);
    assert_int_equal(s.head, 1);
    /* E edits the second sentence, turning cross-attention on */
    assert_int_equal(action_apply(&s, ACT_EDIT_CROSS, 1), APP_RUN);
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
    assert_int_equal(action_apply(&s, ACT_CMP_MASK, 0), APP_RUN);
    assert_int_equal(s.compare, CMP_MASK);
    assert_int_equal(action_apply(&s, ACT_CMP_HEADS, 0), 0);
    assert_int_equal(s.compare, CMP_HEADS);
    action_apply(&s, ACT_CMP_HEADS, 0);
    assert_int_equal(s.compare, CMP_NONE);
    action_apply(&s, ACT_TRACE, 0);
    assert_int_equal(s.panel, PANEL_TRACE);
    action_apply(&s, ACT_ROW_PGDN, 0); /* PgDn scrolls the panel, not the token */
    assert_int_equal(s.panel_scroll, 20);
    assert_int_equal(s.sel_row, 0);
    assert_int_equal(action_apply(&s, ACT_ESCAPE, 0), 0);
    assert_int_equal(s.panel, PANEL_NONE);
    assert_int_equal(action_apply(&s, ACT_ESCAPE, 0), 0); /* Esc never quits */
    app_free(&s);
}

static void test_zoom_and_row_steps(void **state)
{
    (void)state;
    AppState s;
    setup(&s);
    app_set_tokens(&s, 2000, 2000);
    /* zoom asks for a redraw centred on the selection; 0 shows all again */
    assert_int_equal(action_apply(&s, ACT_ZOOM_IN, 0), APP_VIEW);
    assert_int_equal(s.zoom, 1);
    assert_true(s.recentre);
    action_apply(&s, ACT_ZOOM_IN, 0);
    assert_int_equal(action_apply(&s, ACT_ZOOM_ALL, 0), APP_VIEW);
    assert_int_equal(s.zoom, 0);
    assert_int_equal(action_apply(&s, ACT_ZOOM_OUT, 0), 0);
    /* Down moves a screen row's worth of tokens in a pooled view */
    s.row_step = 64;
    action_apply(&s, ACT_ROW_NEXT, 0);
    assert_int_equal(s.sel_row, 64);
    assert_int_equal(action_apply(&s, ACT_POOL, 0), APP_VIEW);
    assert_true(s.pool_mean);
    app_free(&s);
}

int main(void)
{
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_temperature_steps_within_limits),
        cmocka_unit_test(test_pipeline_pages_step_by_one),
        cmocka_unit_test(test_layers_change_and_select),
        cmocka_unit_test(test_cross_sentence_is_edited_with_tab),
        cmocka_unit_test(test_compare_panels_and_escape),
        cmocka_unit_test(test_zoom_and_row_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
