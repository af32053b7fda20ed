/* test_uistate.c - the interface's state and sentence editor, without curses:
 * UTF-8 editing, word jumps, the settings ladders and action_apply. */
#include "test_common.h"

#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "app/ladder.h"
#include "app/state.h"
#include "app/action.h"
#include "app/setting.h"

static void test_edit_insert_utf8_keeps_boundaries(void **state)
{
    (void)state;
    EditBuf e;
    assert_int_equal(edit_init(&e, "caf"), AV_OK);
    /* é is two bytes; one Backspace removes both */
    assert_int_equal(edit_insert(&e, "\xc3\xa9", 2), 2);
    assert_string_equal(e.s, "caf\xc3\xa9");
    assert_int_equal(e.cur, 5);
    assert_true(edit_backspace(&e));
    assert_string_equal(e.s, "caf");
    assert_int_equal(e.cur, 3);
    edit_free(&e);
}

static void test_edit_insert_rejects_invalid_keeps_controls(void **state)
{
    (void)state;
    EditBuf e;
    assert_int_equal(edit_init(&e, ""), AV_OK);
    /* a tab and a newline are kept (the model reads what the exports read);
     * the bad byte 0xff ends the insert */
    assert_int_equal(edit_insert(&e,
                                 "a\tb\nc\xff"
                                 "d",
                                 7),
                     5);
    assert_string_equal(e.s, "a\tb\nc");
    edit_free(&e);
    /* -f's text whole: "a<tab>b  c<nl><nl>d" */
    assert_int_equal(edit_init(&e, "a\tb  c\n\nd"), AV_OK);
    assert_string_equal(e.s, "a\tb  c\n\nd");
    assert_int_equal(e.len, 9);
    /* each control is drawn as one mark of one column: ⇥ ↵ ␍ ␡ */
    assert_int_equal(edit_width(&e, e.len), 9);
    assert_int_equal(edit_offset_at(&e, 6), 6);
    assert_int_equal(edit_glyph('\t'), 0x21E5);
    assert_int_equal(edit_glyph('\n'), 0x21B5);
    assert_int_equal(edit_glyph('\r'), 0x240D);
    assert_int_equal(edit_glyph(0x7F), 0x2421);
    assert_int_equal(edit_glyph(0x85), 0xFFFD);
    assert_int_equal(edit_glyph('a'), 'a');
    edit_free(&e);
}

static void test_edit_cursor_moves_by_code_point(void **state)
{
    (void)state;
    EditBuf e;
    assert_int_equal(edit_init(&e, "a\xe2\x86\x92z"), AV_OK); /* a→z */
    assert_int_equal(e.cur, 5);
    assert_true(edit_left(&e));
    assert_int_equal(e.cur, 4);
    assert_true(edit_left(&e));
    assert_int_equal(e.cur, 1); /* before the 3-byte arrow */
    assert_true(edit_delete(&e));
    assert_string_equal(e.s, "az");
    assert_true(edit_home(&e));
    assert_false(edit_left(&e));
    assert_true(edit_end(&e));
    assert_false(edit_right(&e));
    edit_free(&e);
}

static void test_edit_word_jumps(void **state)
{
    (void)state;
    EditBuf e;
    assert_int_equal(edit_init(&e, "The cat  sat."), AV_OK);
    assert_true(edit_word_left(&e));
    assert_int_equal(e.cur, 9); /* start of "sat" */
    assert_true(edit_word_left(&e));
    assert_int_equal(e.cur, 4); /* start of "cat" */
    assert_true(edit_word_right(&e));
    assert_int_equal(e.cur, 7); /* end of "cat" */
    assert_true(edit_word_right(&e));
    assert_int_equal(e.cur, 12); /* end of "sat", before '.' */
    assert_true(edit_delete_word(&e));
    assert_string_equal(e.s, "The cat  .");
    assert_true(edit_clear(&e));
    assert_string_equal(e.s, "");
    assert_false(edit_clear(&e));
    edit_free(&e);
}

static void test_edit_width_and_offset(void **state)
{
    (void)state;
    EditBuf e;
    assert_int_equal(edit_init(&e, "a\xe6\x97\xa5"
                                   "b"),
                     AV_OK); /* a日b: 日 is 2 columns */
    assert_int_equal(edit_width(&e, e.len), 4);
    assert_int_equal(edit_offset_at(&e, 0), 0);
    assert_int_equal(edit_offset_at(&e, 1), 1);
    assert_int_equal(edit_offset_at(&e, 2), 1); /* inside the wide character */
    assert_int_equal(edit_offset_at(&e, 3), 4);
    assert_int_equal(edit_offset_at(&e, 99), 5);
    edit_free(&e);
}

static void test_edit_limit(void **state)
{
    (void)state;
    EditBuf e;
    size_t n = EDIT_MAX_BYTES + 10;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, 'x', n - 1);
    big[n - 1] = '\0';
    /* the editor holds a whole -f text: 1 MiB, then says it is full */
    assert_int_equal(edit_init(&e, big), AV_OK);
    assert_int_equal(e.len, EDIT_MAX_BYTES);
    assert_true(e.full);
    assert_int_equal(edit_insert(&e, "y", 1), 0);
    edit_free(&e);
    free(big);
}

static void test_edit_grows_past_4096_bytes(void **state)
{
    (void)state;
    EditBuf e;
    assert_int_equal(edit_init(&e, "a"), AV_OK);
    /* typing one byte at a time grows the buffer: no 4096-byte cap */
    for (int k = 0; k < 10000; k++)
        assert_int_equal(edit_insert(&e, "b", 1), 1);
    assert_int_equal(e.len, 10001);
    assert_false(e.full);
    assert_true(e.cap > 10001);
    edit_home(&e);
    assert_int_equal(edit_insert(&e, "\t", 1), 1); /* a tab stays a tab */
    assert_int_equal(e.s[0], '\t');
    assert_int_equal(e.s[1], 'a');
    edit_free(&e);
}

static void test_token_at(void **state)
{
    (void)state;
    TokenList t = {0};
    assert_int_equal(tokenize("The cat sat", 11, 100, &t), AV_OK);
    assert_int_equal(edit_token_at(&t, 0), 0);
    assert_int_equal(edit_token_at(&t, 3), 0); /* the space after "The" */
    assert_int_equal(edit_token_at(&t, 4), 1);
    assert_int_equal(edit_token_at(&t, 11), 2);
    tokenize_free(&t);
}

static void test_heads_step_divisors(void **state)
{
    (void)state;
    /* divisors of 32: 1 2 4 8 16 32 */
    assert_int_equal(ladder_heads_step(32, 4, 1), 8);
    assert_int_equal(ladder_heads_step(32, 4, -1), 2);
    assert_int_equal(ladder_heads_step(32, 1, -1), 1);
    assert_int_equal(ladder_heads_step(32, 32, 1), 32);
    assert_int_equal(ladder_heads_step(24, 4, 1), 6);
    assert_int_equal(ladder_heads_fit(24, 16), 12);
    assert_int_equal(ladder_heads_fit(8, 5), 4);
}

static void test_dmodel_ladder(void **state)
{
    (void)state;
    assert_int_equal(ladder_dmodel_step(32, 1), 48);
    assert_int_equal(ladder_dmodel_step(32, -1), 24);
    assert_int_equal(ladder_dmodel_step(40, -1), 32); /* off the ladder */
    assert_int_equal(ladder_dmodel_step(8, -1), 8);
    assert_int_equal(ladder_dmodel_step(1024, 1), 1024);
}

static void setup_app(AppState *s, bool fixed)
{
    ModelConfig c;
    model_config_default(&c);
    assert_int_equal(app_init(s, &c, "The cat sat on the mat", NULL, fixed), AV_OK);
    app_set_tokens(s, 6, 6);
}

/* Views of io/views.h on the state: each shown view is the one the
 * interface then draws (the trace a panel over the attention view, heads
 * the attention view's small multiples), with the needs the table gives;
 * the keys' own moves (S, b, w) agree with the table; the interface's own
 * views (head scores, model view, training) leave the state as it was. */
static void test_app_views_from_the_table(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    for (int k = 0; k < VIEW_ID_COUNT; k++) {
        if (view_info((ViewId)k)->home != VIEW_HOME_STATE)
            continue;
        s.panel_scroll = 5;
        assert_true(app_view_show(&s, (ViewId)k));
        ViewId want = k == VIEW_ID_TRACE || k == VIEW_ID_HEADS ? VIEW_ID_ATTN : (ViewId)k;
        assert_int_equal(app_view_base(&s), want);
        assert_int_equal(s.panel, k == VIEW_ID_TRACE ? PANEL_TRACE : PANEL_NONE);
        assert_int_equal(s.panel_scroll, 0);
        assert_int_equal(app_view_needs(&s), view_info((ViewId)k)->needs);
    }
    app_view_show(&s, VIEW_ID_ATTN);
    action_apply(&s, ACT_PIPELINE, 0);
    assert_int_equal(app_view_base(&s), VIEW_ID_PIPELINE);
    action_apply(&s, ACT_PIPELINE, 0);
    action_apply(&s, ACT_CMP_MASK, 0);
    assert_int_equal(app_view_base(&s), VIEW_ID_CMP_MASK);
    assert_int_equal(app_view_needs(&s), VIEW_NEEDS_FLIPPED);
    /* the pipeline over a kept side by side: its outputs, and the flipped
     * run that side by side shows again after S */
    action_apply(&s, ACT_PIPELINE, 0);
    assert_int_equal(app_view_base(&s), VIEW_ID_PIPELINE);
    assert_int_equal(app_view_needs(&s), VIEW_NEEDS_OUTPUTS | VIEW_NEEDS_FLIPPED);
    action_apply(&s, ACT_PIPELINE, 0);
    action_apply(&s, ACT_TRACE, 0);
    assert_int_equal(app_view_needs(&s), VIEW_NEEDS_OUTPUTS | VIEW_NEEDS_FLIPPED);
    /* the interface's own views are not the state's: it stays as it is */
    const ViewId own[] = {VIEW_ID_HEAD_SCORES, VIEW_ID_MODEL, VIEW_ID_TRAIN};
    for (int k = 0; k < 3; k++) {
        s.panel_scroll = 5;
        assert_false(app_view_show(&s, own[k]));
        assert_int_equal(s.panel, PANEL_TRACE);
        assert_int_equal(s.panel_scroll, 5);
        assert_int_equal(app_view_needs(&s), VIEW_NEEDS_OUTPUTS | VIEW_NEEDS_FLIPPED);
    }
    assert_true(app_view_show(&s, (ViewId)VIEW_ID_COUNT)); /* out of range: the attention view */
    assert_int_equal(app_view_base(&s), VIEW_ID_ATTN);
    assert_int_equal(app_view_needs(&s), 0);
    app_free(&s);
}

/* expect: each view's key (views.def's ACTION) names its view, other
 * actions none; a view's key with no row of its own in action.c (the lens,
 * reached here without the app's routing) shows its base view and leaves
 * it, a side by side kept under it; a view over the heatmaps or of the
 * interface's own is no toggle and leaves the state as it was. */
static void test_app_view_keys_from_the_table(void **state)
{
    (void)state;
    const struct {
        Action a;
        ViewId v;
    } keys[] = {{ACT_PIPELINE, VIEW_ID_PIPELINE},
                {ACT_TRACE, VIEW_ID_TRACE},
                {ACT_VIEW, VIEW_ID_PE},
                {ACT_CMP_MASK, VIEW_ID_CMP_MASK},
                {ACT_CMP_HEADS, VIEW_ID_CMP_HEADS},
                {ACT_LENS, VIEW_ID_LENS},
                {ACT_HEAD_TABLE, VIEW_ID_HEAD_SCORES},
                {ACT_MODEL_VIEW, VIEW_ID_MODEL},
                {ACT_TRAIN, VIEW_ID_TRAIN},
                {ACT_MASK, VIEW_ID_COUNT},
                {ACT_NONE, VIEW_ID_COUNT},
                {ACT_HEADS_HELP, VIEW_ID_COUNT}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        assert_int_equal(app_view_of_action(keys[k].a), keys[k].v);
    AppState s;
    setup_app(&s, false);
    action_apply(&s, ACT_CMP_HEADS, 0);
    assert_int_equal(action_apply(&s, ACT_LENS, 0), 0);
    assert_int_equal(s.view, VIEW_ID_LENS);
    assert_int_equal(app_view_base(&s), VIEW_ID_LENS);
    assert_int_equal(action_apply(&s, ACT_LENS, 0), 0);
    assert_int_equal(app_view_base(&s), VIEW_ID_CMP_HEADS); /* kept under it */
    assert_false(app_view_toggle(&s, VIEW_ID_TRACE));
    assert_false(app_view_toggle(&s, VIEW_ID_HEAD_SCORES));
    assert_int_equal(app_view_base(&s), VIEW_ID_CMP_HEADS);
    assert_int_equal(s.panel, PANEL_NONE);
    app_free(&s);
}

static void test_app_toggles_ask_for_a_run(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    assert_false(s.cfg.causal);
    assert_int_equal(action_apply(&s, ACT_MASK, 0), APP_RUN);
    assert_true(s.cfg.causal);
    assert_int_equal(action_apply(&s, ACT_PE, 0), APP_RUN);
    assert_false(s.cfg.pe);
    assert_int_equal(action_apply(&s, ACT_SCALE, 0), APP_RUN);
    assert_false(s.cfg.scale);
    assert_int_equal(action_apply(&s, ACT_SEED_INC, 0), APP_RUN | APP_WEIGHTS);
    assert_true(s.cfg.seed == 43);
    app_free(&s);
}

static void test_app_dmodel_keeps_heads_dividing(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    s.cfg.H = 16, s.head = 15;
    assert_int_equal(action_apply(&s, ACT_DMODEL_DEC, 0), APP_RUN | APP_WEIGHTS);
    assert_int_equal(s.cfg.d_model, 24);
    assert_int_equal(s.cfg.H, 12);
    assert_int_equal(s.head, 11);
    app_free(&s);
}

static void test_app_fixed_weights_refuse_dmodel_and_seed(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, true);
    assert_int_equal(action_apply(&s, ACT_DMODEL_INC, 0), 0);
    assert_int_equal(s.cfg.d_model, 32);
    assert_int_equal(action_apply(&s, ACT_SEED_INC, 0), 0);
    assert_true(s.cfg.seed == 42);
    assert_non_null(strstr(s.msg, "--weights"));
    assert_int_equal(action_apply(&s, ACT_HEADS_INC, 0), APP_RUN); /* heads still change */
    assert_int_equal(s.cfg.H, 8);
    app_free(&s);
}

static void test_app_selection_clamps(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    action_apply(&s, ACT_ROW_LAST, 0);
    assert_int_equal(s.sel_row, 5);
    action_apply(&s, ACT_ROW_NEXT, 0);
    assert_int_equal(s.sel_row, 5);
    action_select_cell(&s, 2, 4);
    assert_int_equal(s.sel_row, 2);
    assert_int_equal(s.sel_col, 4);
    app_set_tokens(&s, 3, 3); /* the sentence got shorter */
    assert_int_equal(s.sel_col, 2);
    /* row and column travel apart: a column past 65535 is not folded into the row */
    app_set_tokens(&s, 70000, 70000);
    action_select_cell(&s, 1, 66000);
    assert_int_equal(s.sel_row, 1);
    assert_int_equal(s.sel_col, 66000);
    app_set_tokens(&s, 3, 3);
    action_apply(&s, ACT_HEAD_PREV, 0);
    assert_int_equal(s.head, 3); /* wraps to the last of 4 heads */
    app_free(&s);
}

/* The rule of issue 27: whatever replaced the result, the layer, head, rows
 * and the rows summed together that it does not have are brought within it
 * before anything reads them; indices it has stay as they were. */
static void test_app_fit_result_brings_indices_in_range(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    s.layer = 3, s.head = 7, s.sel_row = 20, s.sel_col = 30, s.pipe_page = -2;
    const int rows[] = {2, 15, 9, 20, -1};
    memcpy(s.multi, rows, sizeof rows), s.n_multi = 5;
    app_fit_result(&s, &(AppFit){.L = 2, .H = 4, .n_q = 10, .n_k = 12});
    assert_int_equal(s.layer, 1);
    assert_int_equal(s.head, 3);
    assert_int_equal(s.sel_row, 9);
    assert_int_equal(s.sel_col, 11);
    assert_int_equal(s.n_q, 10);
    assert_int_equal(s.n_k, 12);
    assert_int_equal(s.n_multi, 2); /* 15, 20 and -1 are not rows of 10 */
    assert_int_equal(s.multi[0], 2);
    assert_int_equal(s.multi[1], 9);
    assert_int_equal(s.pipe_page, 0);
    assert_int_equal(s.cfg.layers, 2); /* the views count by the result's */
    assert_int_equal(s.cfg.H, 4);
    /* in range: nothing moves */
    s.layer = 0, s.head = 2, s.sel_row = 4, s.sel_col = -1;
    app_fit_result(&s, &(AppFit){.L = 2, .H = 4, .n_q = 10, .n_k = 12});
    assert_int_equal(s.layer, 0);
    assert_int_equal(s.head, 2);
    assert_int_equal(s.sel_row, 4);
    assert_int_equal(s.sel_col, -1);
    assert_int_equal(s.n_multi, 2);
    /* a failed run: no rows at all, layer and head within the configuration */
    app_fit_result(&s, &(AppFit){.L = 1, .H = 2, .n_q = 0, .n_k = 0});
    assert_int_equal(s.layer, 0);
    assert_int_equal(s.head, 1);
    assert_int_equal(s.sel_row, -1);
    assert_int_equal(s.sel_col, -1);
    assert_int_equal(s.n_multi, 0);
    assert_int_equal(s.cfg.layers, 2); /* a failed run leaves the configuration */
    assert_int_equal(s.cfg.H, 4);
    app_free(&s);
}

/* Settings that took effect in one burst before the run: fewer heads and
 * layers than the state showed, a shorter text; app_set_tokens fits them to
 * the configuration the next run has. */
static void test_app_set_tokens_fits_the_configuration(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    s.cfg.layers = 3, s.cfg.H = 8;
    s.layer = 2, s.head = 7, s.sel_row = 5;
    s.multi[0] = 5, s.multi[1] = 1, s.n_multi = 2;
    s.cfg.layers = 1, s.cfg.H = 2;
    app_set_tokens(&s, 3, 3);
    assert_int_equal(s.layer, 0);
    assert_int_equal(s.head, 1);
    assert_int_equal(s.sel_row, 2);
    assert_int_equal(s.n_multi, 1);
    assert_int_equal(s.multi[0], 1);
    app_free(&s);
}

static void test_app_escape_layers(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false);
    action_apply(&s, ACT_EDIT, 0);
    action_apply(&s, ACT_HELP, 0);
    assert_int_equal(action_apply(&s, ACT_ESCAPE, 0), 0); /* closes help */
    assert_false(s.help);
    assert_int_equal(action_apply(&s, ACT_ESCAPE, 0), 0); /* leaves the editor */
    assert_int_equal(s.mode, MODE_BROWSE);
    /* Esc never quits: side by side, the PE view, cross-attention, one level
     * each, then only a message naming the keys that quit */
    action_apply(&s, ACT_CROSS, 0);
    action_apply(&s, ACT_VIEW, 0);
    action_apply(&s, ACT_CMP_MASK, 0);
    assert_false(action_apply(&s, ACT_ESCAPE, 0) & APP_QUIT);
    assert_int_equal(s.compare, CMP_NONE);
    assert_int_equal(s.view, VIEW_ID_PE);
    assert_false(action_apply(&s, ACT_ESCAPE, 0) & APP_QUIT);
    assert_int_equal(s.view, VIEW_ID_ATTN);
    assert_int_equal(action_apply(&s, ACT_ESCAPE, 0), APP_RUN); /* one sentence again */
    assert_false(s.cross_on);
    for (int k = 0; k < 3; k++)
        assert_int_equal(action_apply(&s, ACT_ESCAPE, 0), 0);
    assert_non_null(strstr(s.msg, "q, F10 or Ctrl-C quits"));
    assert_int_equal(action_apply(&s, ACT_QUIT, 0), APP_QUIT);
    app_free(&s);
}

static void test_app_head_digits_beyond_the_heads(void **state)
{
    (void)state;
    AppState s;
    setup_app(&s, false); /* 4 heads */
    action_apply(&s, ACT_HEAD_SET, 2);
    assert_int_equal(s.head, 2);
    /* key 7: no head 7, said so; the focus stays (it wrapped to head 3 before) */
    assert_int_equal(action_apply(&s, ACT_HEAD_SET, 6), 0);
    assert_int_equal(s.head, 2);
    assert_string_equal(s.msg, "no head 7: there are 4 (h/H change the count)");
    /* the designed heads refuse h/H: the hint names P, which lets them */
    action_apply(&s, ACT_PRESET, 0);
    assert_int_equal(s.cfg.preset, PRESET_DESIGNED);
    action_apply(&s, ACT_HEAD_SET, 6);
    assert_string_equal(s.msg, "no head 7: there are 6 designed heads (P: random heads, whose "
                               "count h/H change)");
    action_apply(&s, ACT_HEADS_INC, 0);
    assert_non_null(strstr(s.msg, "fix d_model 192 and 6 heads"));
    app_free(&s);
    setup_app(&s, false);
    s.fixed_weights = true; /* --weights: no key changes the count */
    action_apply(&s, ACT_HEAD_SET, 6);
    assert_string_equal(s.msg, "no head 7: there are 4");
    app_free(&s);
}

static void test_app_example_settings(void **state)
{
    (void)state;
    const char file[] = "Anna saw the dog\n@ preset=designed head=5 token=dog mask=on\n"
                        "> look at head 5\nCat eats fish\n"
                        "@ weights=seed001 d_model=4 heads=2 pe=off\nplain one\n";
    SentenceList sl;
    assert_int_equal(sentences_parse(file, sizeof file - 1, &sl), AV_OK);
    assert_int_equal(sl.n, 3);
    ModelConfig c;
    model_config_default(&c);
    AppState s;
    assert_int_equal(app_init(&s, &c, NULL, &sl, false), AV_OK);
    s.sentence = 2; /* n goes to the first: designed heads, head 5, mask on */
    assert_true(action_apply(&s, ACT_SENT_NEXT, 0) & APP_WEIGHTS);
    assert_int_equal(s.cfg.preset, PRESET_DESIGNED);
    assert_int_equal(s.head, 4);
    assert_true(s.cfg.causal);
    assert_string_equal(s.msg, "1/3: look at head 5");
    TokenList t;
    assert_int_equal(tokenize(s.text.s, s.text.len, 16, &t), AV_OK);
    app_set_tokens(&s, t.n, t.n);
    setting_take_tokens(&s, &t);
    assert_int_equal(s.sel_row, 3); /* token=dog */
    tokenize_free(&t);
    /* seed 001's own weights: d_model 4, 2 heads, PE off, loaded by the UI */
    assert_true(action_apply(&s, ACT_SENT_NEXT, 0) & APP_WEIGHTS);
    assert_string_equal(s.example_weights, "seed001");
    assert_int_equal(s.cfg.preset, PRESET_LOADED);
    assert_int_equal(s.cfg.d_model, 4);
    assert_int_equal(s.cfg.H, 2);
    assert_false(s.cfg.pe);
    /* leaving them brings back the configuration before (the designed heads) */
    assert_true(action_apply(&s, ACT_SENT_NEXT, 0) & APP_WEIGHTS);
    assert_string_equal(s.example_weights, "");
    assert_int_equal(s.cfg.preset, PRESET_DESIGNED);
    assert_int_equal(s.cfg.d_model, 192);
    assert_true(s.cfg.pe);
    app_free(&s);
    sentences_free(&sl);
}

static void test_app_typing_and_sentences(void **state)
{
    (void)state;
    SentenceList sl = {0};
    assert_int_equal(sentences_parse("one two\nthree\n", 14, &sl), AV_OK);
    ModelConfig c;
    model_config_default(&c);
    AppState s;
    assert_int_equal(app_init(&s, &c, NULL, &sl, false), AV_OK);
    assert_string_equal(s.text.s, "one two");
    assert_int_equal(action_apply(&s, ACT_SENT_NEXT, 0), APP_RUN);
    assert_string_equal(s.text.s, "three");
    assert_int_equal(action_apply(&s, ACT_SENT_NEXT, 0), APP_RUN);
    assert_string_equal(s.text.s, "one two");
    assert_int_equal(app_type(&s, "!", 1), APP_RUN | APP_CURSOR);
    assert_string_equal(s.text.s, "one two!");
    assert_int_equal(s.sentence, -1);
    assert_int_equal(action_apply(&s, ACT_BACKSPACE, 0), APP_RUN | APP_CURSOR);
    assert_int_equal(action_apply(&s, ACT_CUR_LEFT, 0), APP_CURSOR);
    app_free(&s);
    sentences_free(&sl);
}

int main(void)
{
    /* Display widths come from wcwidth, which needs a UTF-8 locale. */
    if (!setlocale(LC_ALL, "C.UTF-8"))
        setlocale(LC_ALL, "");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edit_insert_utf8_keeps_boundaries),
        cmocka_unit_test(test_edit_insert_rejects_invalid_keeps_controls),
        cmocka_unit_test(test_edit_cursor_moves_by_code_point),
        cmocka_unit_test(test_edit_word_jumps),
        cmocka_unit_test(test_edit_width_and_offset),
        cmocka_unit_test(test_edit_limit),
        cmocka_unit_test(test_edit_grows_past_4096_bytes),
        cmocka_unit_test(test_token_at),
        cmocka_unit_test(test_heads_step_divisors),
        cmocka_unit_test(test_dmodel_ladder),
        cmocka_unit_test(test_app_toggles_ask_for_a_run),
        cmocka_unit_test(test_app_dmodel_keeps_heads_dividing),
        cmocka_unit_test(test_app_fixed_weights_refuse_dmodel_and_seed),
        cmocka_unit_test(test_app_selection_clamps),
        cmocka_unit_test(test_app_escape_layers),
        cmocka_unit_test(test_app_fit_result_brings_indices_in_range),
        cmocka_unit_test(test_app_set_tokens_fits_the_configuration),
        cmocka_unit_test(test_app_head_digits_beyond_the_heads),
        cmocka_unit_test(test_app_example_settings),
        cmocka_unit_test(test_app_typing_and_sentences),
        cmocka_unit_test(test_app_views_from_the_table),
        cmocka_unit_test(test_app_view_keys_from_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
