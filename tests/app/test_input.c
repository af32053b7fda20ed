/* test_input.c - the interface's one entry (app/app.h) driven with key
 * sequences, without a terminal: typing and a paste as one burst, the
 * settings keys, the mask, a click and the exports' bits, a lesson walked
 * (pages, a prediction, the reveal, Esc leaving and the list re-entering),
 * the head scores table (open, move, Enter focusing a head), what a kind
 * refuses with its one line, and what tests/e2e/tui_stale.sh and
 * tui_interact.sh check on the screen, here on the state and the returned
 * bits. The combining views, the frame's report and the poller:
 * test_input_views.c.
 */
#include "input_fix.h"

/* tui_interact.sh: typing changes the tokens; a paste is one run. */
static void test_typing_and_paste(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "The cat sat", true);
    assert_int_equal(f.a.app.n_q, 3);
    assert_string_equal(token(&f, 1), "cat");
    key(&f, ACT_EDIT, 0);
    assert_int_equal(f.a.app.mode, MODE_EDIT);
    unsigned gen = f.a.ses.gen;
    type(&f, " on the mat");
    assert_int_equal(f.a.ses.gen, gen); /* nothing ran during the burst */
    assert_true(f.a.pending & APP_RUN);
    settle(&f);
    assert_int_equal(f.a.ses.gen, gen + 1); /* one run for the whole paste */
    assert_int_equal(f.a.app.n_q, 6);
    assert_string_equal(token(&f, 3), "on");
    assert_string_equal(token(&f, 5), "mat");
    for (int k = 0; k < 4; k++) /* " mat" */
        key(&f, ACT_BACKSPACE, 0);
    settle(&f);
    assert_string_equal(f.a.app.text.s, "The cat sat on the");
    assert_int_equal(f.a.app.n_q, 5);
    key(&f, ACT_ESCAPE, 0); /* Esc leaves the editor, never quits */
    assert_int_equal(f.a.app.mode, MODE_BROWSE);
    stop(&f);
}

/* tui_interact.sh: settings, help, the PE view and an example; q quits. */
static void test_settings_keys(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "The cat sat on the mat", false); /* --preset random, as the script */
    int d = f.a.app.cfg.d_model;
    key(&f, ACT_HEADS_INC, 0);
    settle(&f);
    assert_int_equal(f.a.app.cfg.H, 8);
    assert_int_equal(f.a.ses.res.shape.H, 8);
    assert_int_equal(d / f.a.app.cfg.H, 4); /* "heads 8 | d_k 4" */
    key(&f, ACT_DMODEL_DEC, 0);
    settle(&f);
    assert_int_equal(f.a.app.cfg.d_model, 24);
    assert_int_equal(f.a.app.cfg.H, 8);
    uint64_t seed = f.a.app.cfg.seed;
    key(&f, ACT_SEED_DEC, 0);
    assert_int_equal(f.a.app.cfg.seed, seed - 1);
    key(&f, ACT_HELP, 0);
    assert_true(f.a.app.help);
    key(&f, ACT_ESCAPE, 0);
    assert_false(f.a.app.help);
    key(&f, ACT_VIEW, 0);
    assert_int_equal(app_view_base(&f.a.app), VIEW_ID_PE);
    key(&f, ACT_VIEW, 0);
    assert_int_equal(app_view_base(&f.a.app), VIEW_ID_ATTN);
    key(&f, ACT_SENT_NEXT, 0);
    settle(&f);
    int n;
    assert_int_equal(sscanf(f.a.app.msg, "%*d/%d: ", &n), 1);
    assert_non_null(strstr(f.a.app.msg, ": \"Attention from Scratch\""));
    assert_int_equal(key(&f, ACT_QUIT, 0), APP_DO_REDRAW | APP_DO_QUIT);
    stop(&f);
}

/* Issue 35: n four times to the worked example "Cat eats fish" (its own
 * weights, for 3 tokens), e, " now", Enter: the view keeps the example's
 * result and the line says what to do; Backspace runs again, and n goes on
 * to example 6, not back to 1. */
static void test_example_keeps_view(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, NULL, true);
    for (int k = 0; k < 4; k++) {
        key(&f, ACT_SENT_NEXT, 0);
        settle(&f);
    }
    assert_string_equal(f.a.app.text.s, "Cat eats fish");
    assert_string_equal(f.a.app.example_weights, "seed001");
    assert_int_equal(f.a.app.n_q, 3);
    key(&f, ACT_EDIT, 0);
    type(&f, " now");
    settle(&f);
    key(&f, ACT_EDIT_DONE, 0);
    settle(&f);
    assert_int_equal(f.a.app.mode, MODE_BROWSE);
    assert_string_equal(f.a.app.text.s, "Cat eats fish now");
    assert_int_equal(f.a.ses.run_err, AV_OK); /* the view stays */
    assert_int_equal(f.a.app.n_q, 3);
    assert_string_equal(token(&f, 2), "fish");
    assert_string_equal(f.a.app.msg, "the weights are for 3 tokens, the text has 4: Backspace, "
                                     "or n for the next example");
    key(&f, ACT_EDIT, 0); /* Backspace back to 3 tokens: a run of them */
    unsigned gen = f.a.ses.gen;
    for (int k = 0; k < 4; k++)
        key(&f, ACT_BACKSPACE, 0);
    settle(&f);
    assert_string_equal(f.a.app.text.s, "Cat eats fish");
    assert_int_equal(f.a.ses.gen, gen + 1);
    assert_int_equal(f.a.ses.run_err, AV_OK);
    type(&f, " now");
    settle(&f);
    key(&f, ACT_EDIT_DONE, 0);
    key(&f, ACT_SENT_NEXT, 0);
    settle(&f);
    int k = 0, n = 0;
    assert_int_equal(sscanf(f.a.app.msg, "%d/%d: ", &k, &n), 2);
    assert_int_equal(k, 6);
    assert_string_equal(f.a.app.text.s, f.list.items[5]);
    assert_int_equal(f.a.ses.run_err, AV_OK);
    assert_int_equal(f.a.app.n_q, f.a.ses.res.tokens.n);
    stop(&f);
}

/* tui_stale.sh: End M n M. The row summed of a longer sentence drops out
 * when the next example is shorter; M then sums the row there is. */
static void test_stale_row_summed(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, TROPHY, true);
    key(&f, ACT_ROW_LAST, 0);
    settle(&f);
    assert_int_equal(f.a.app.sel_row, f.a.app.n_q - 1);
    key(&f, ACT_MULTI_ROW, 0);
    assert_true(starts(f.a.app.msg, "1 query summed: "));
    key(&f, ACT_SENT_NEXT, 0);
    settle(&f);
    assert_int_equal(f.a.app.n_q, 11);
    assert_int_equal(f.a.app.n_multi, 0); /* the 14th row is no more */
    key(&f, ACT_MULTI_ROW, 0);
    assert_true(starts(f.a.app.msg, "1 query summed: cat "));
    assert_int_equal(f.a.app.n_multi, 1);
    assert_true(f.a.app.multi[0] < f.a.app.n_q);
    stop(&f);
}

/* M then Esc: Esc backs out of the rows summed (one level), its line goes
 * with them; the next Esc says how to quit, and neither quits. */
static void test_escape_leaves_multi(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "The cat sat on the mat", true);
    key(&f, ACT_MULTI_ROW, 0);
    assert_int_equal(f.a.app.n_multi, 1);
    assert_true(starts(f.a.app.msg, "1 query summed: "));
    unsigned bits = key(&f, ACT_ESCAPE, 0);
    assert_false(bits & APP_DO_QUIT);
    assert_int_equal(f.a.app.n_multi, 0);
    assert_string_equal(f.a.app.msg, "");
    bits = key(&f, ACT_ESCAPE, 0);
    assert_false(bits & APP_DO_QUIT);
    assert_true(starts(f.a.app.msg, "Esc backs out"));
    stop(&f);
}

/* tui_stale.sh: ">M" in one burst. M reads the result, so the run > asked
 * for is made before it: M sums layer 2 of a two-layer result. */
static void test_stale_burst_reads_result(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, TROPHY, true);
    key(&f, ACT_LAYERS_INC, 0);
    assert_true(f.a.pending & APP_RUN); /* waits for the burst's end ... */
    key(&f, ACT_MULTI_ROW, 0);          /* ... but M reads the result: it ran */
    assert_int_equal(f.a.pending, 0);
    assert_int_equal(f.a.ses.res.L, 2);
    assert_int_equal(f.a.app.layer, 1);
    assert_true(starts(f.a.app.msg, "1 query summed: "));
    settle(&f);
    stop(&f);
}

/* A lesson walked: the page's settings, a prediction and its reveal, the
 * pages turned, Esc leaving with the screen kept, the list re-entering. */
static void test_lesson_walk(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "some text", false);
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(lesson_text, strlen(lesson_text), "t", "", &l, &e), AV_OK);
    f.a.pending = lesson_state_start(&f.a.lesson, &l, &f.a.app);
    settle(&f);
    LessonState *ls = &f.a.lesson;
    assert_true(ls->active);
    assert_int_equal(ls->page, 0);
    assert_int_equal(f.a.app.cfg.H, 2);
    assert_string_equal(token(&f, f.a.app.sel_row), "cat");
    /* a prediction: a key picked, then Enter reveals the answer */
    lkey(&f, LESSON_IN_RIGHT, 0, ACT_COL_NEXT);
    assert_true(ls->pick >= 0);
    assert_false(ls->revealed);
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    assert_true(ls->revealed);
    assert_true(ls->predicted);
    assert_true(ls->have_answer);
    assert_true(ls->answer.is_token);
    assert_int_equal(ls->correct, ls->pick == ls->answer.token);
    assert_int_equal(f.a.app.mode, MODE_BROWSE); /* Enter went to the lesson, not the editor */
    /* once revealed Enter turns the page; PgUp and PgDn turn them too */
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    settle(&f);
    assert_int_equal(ls->page, 1);
    assert_int_equal(app_view_base(&f.a.app), VIEW_ID_PE);
    lkey(&f, LESSON_IN_PREV, 0, ACT_ROW_PGUP);
    settle(&f);
    assert_int_equal(ls->page, 0);
    assert_false(ls->revealed); /* the page asks again */
    lkey(&f, LESSON_IN_NEXT, 0, ACT_ROW_PGDN);
    settle(&f);
    assert_int_equal(ls->page, 1);
    /* Esc closes the model view opened over the page, not the lesson */
    key(&f, ACT_MODEL_VIEW, 0);
    assert_int_equal(f.a.heads.mode, HT_MODEL);
    lkey(&f, LESSON_IN_LEAVE, 0, ACT_ESCAPE);
    assert_int_equal(f.a.heads.mode, HT_OFF);
    assert_true(ls->active);
    /* Esc leaves the lesson and keeps its screen; it never quits */
    unsigned bits = lkey(&f, LESSON_IN_LEAVE, 0, ACT_ESCAPE);
    settle(&f);
    assert_false(bits & APP_DO_QUIT);
    assert_false(ls->active);
    assert_true(f.a.app.lesson_kept);
    assert_non_null(strstr(f.a.app.msg, "left the lesson"));
    assert_int_equal(f.a.app.cfg.H, 2);
    /* o opens the list; Enter opens the lesson selected */
    key(&f, ACT_LESSONS, 0);
    assert_true(ls->list);
    assert_true(ls->list_n > 0);
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    settle(&f);
    assert_false(ls->list);
    assert_true(ls->active);
    assert_int_equal(ls->page, 0);
    assert_string_equal(ls->lesson.name, ls->list_name[ls->list_sel]);
    stop(&f);
}

/* The head scores table on a trained model: f scores (a slow step the
 * interface announces), arrows move, Enter focuses; F and Esc. */
static void test_heads_table(void **state)
{
    (void)state;
    Fix f = {0};
    char why[256];
    assert_int_equal(kind_trained_load(&f.kind, "assets/models/induction", why, sizeof why), AV_OK);
    f.have_kind = true;
    start(&f, "abcdefghabcdefgh", false);
    assert_int_equal(key(&f, ACT_HEAD_TABLE, 0), APP_DO_REDRAW | APP_DO_WORK);
    assert_true(starts(f.a.work_line, "scoring every head on "));
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_COUNT); /* not before the scores */
    assert_int_equal(app_work(&f.a), APP_DO_REDRAW);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_HEAD_SCORES);
    assert_true(starts(f.a.app.msg, "induction head: layer 2 head "));
    assert_true(f.a.pending & APP_RUN); /* the probes ran: the text's result again */
    settle(&f);
    assert_int_equal(f.a.heads.sel_l, 0);
    key(&f, ACT_ROW_NEXT, 0);
    key(&f, ACT_COL_NEXT, 0);
    key(&f, ACT_ROW_NEXT, 0); /* two layers: round to the first */
    key(&f, ACT_ROW_NEXT, 0);
    assert_int_equal(f.a.heads.sel_l, 1);
    assert_int_equal(f.a.heads.sel_h, 1);
    assert_int_equal(f.a.app.layer, 0); /* moving selects; only Enter focuses */
    key(&f, ACT_EDIT, 0);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_COUNT);
    assert_int_equal(f.a.app.layer, 1);
    assert_int_equal(f.a.app.head, 1);
    assert_string_equal(f.a.app.msg, "layer 2 head 2 focused");
    assert_int_equal(f.a.app.mode, MODE_BROWSE); /* Enter went to the table, not the editor */
    /* the scores stand: f opens at once; F switches to the model view */
    assert_int_equal(key(&f, ACT_HEAD_TABLE, 0), APP_DO_REDRAW);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_HEAD_SCORES);
    key(&f, ACT_MODEL_VIEW, 0);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_MODEL);
    key(&f, ACT_ESCAPE, 0);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_COUNT);
    stop(&f);
}

/* Keys that did nothing in the two views of every head and said nothing:
 * Tab on a table whose scores are all on one page says why (the page
 * stays), Tab in the model view selects the next head (as it focuses the
 * next head in the heatmaps), a key bound to nothing ("*") says so. */
static void test_heads_table_silent_keys(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, NULL, true);
    assert_int_equal(key(&f, ACT_HEAD_TABLE, 0), APP_DO_REDRAW | APP_DO_WORK);
    assert_int_equal(app_work(&f.a), APP_DO_REDRAW);
    settle(&f);
    AppLayout l;
    app_layout_clear(&l);
    l.table_pages = 1; /* a wide screen: every score on one page */
    app_layout(&f.a, &l);
    key(&f, ACT_HEAD_NEXT, 0);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_HEAD_SCORES);
    assert_int_equal(f.a.heads.kind, 0);
    assert_string_equal(f.a.app.msg, "Tab: every score is on this page (a narrower screen "
                                     "shows a page at a time)");
    l.table_pages = 2; /* two pages: Tab turns them, as before */
    app_layout(&f.a, &l);
    key(&f, ACT_HEAD_NEXT, 0);
    assert_int_equal(f.a.heads.kind, 1);
    AppInput star = {.action = ACT_NONE, .key = "*"};
    assert_int_equal(app_input(&f.a, &star), APP_DO_REDRAW);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_HEAD_SCORES);
    assert_string_equal(
        f.a.app.msg,
        "* does nothing here: arrows pick a head, Enter focuses, Tab: more, Esc: back");
    key(&f, ACT_MODEL_VIEW, 0);
    int h = f.a.heads.sel_h, kind = f.a.heads.kind;
    key(&f, ACT_HEAD_NEXT, 0);
    assert_int_equal(headtable_shown(&f.a.heads), VIEW_ID_MODEL);
    assert_int_equal(f.a.heads.sel_h, (h + 1) % f.a.app.cfg.H);
    assert_int_equal(f.a.heads.kind, kind); /* the table's page is left alone */
    key(&f, ACT_HEAD_PREV, 0);
    assert_int_equal(f.a.heads.sel_h, h);
    assert_int_equal(app_input(&f.a, &star), APP_DO_REDRAW);
    assert_string_equal(f.a.app.msg,
                        "* does nothing here: arrows pick a head, Enter focuses it, Esc goes back");
    stop(&f);
}

/* Issue 35: the designed heads have no induction head. f scores them and
 * names none: "no induction head: best 0.0x (layer 1 head h; one is named
 * from 0.50)", and the scan's named head of that kind is -1 while its best
 * is a head; the previous-token head (98%) is named. */
static void test_heads_table_names_none(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, NULL, true);
    assert_int_equal(key(&f, ACT_HEAD_TABLE, 0), APP_DO_REDRAW | APP_DO_WORK);
    assert_int_equal(app_work(&f.a), APP_DO_REDRAW);
    const HeadScan *hs = &f.a.heads.scan;
    int b = hs->best[HEADSCORE_INDUCTION];
    assert_true(b >= 0);
    float v = headscore_value(&hs->t[b], HEADSCORE_INDUCTION);
    assert_true(v < headscore_threshold(HEADSCORE_INDUCTION));
    assert_int_equal(hs->named[HEADSCORE_INDUCTION], -1);
    char want[320];
    /* then the heads that are named, each with its score: the designed
     * previous-token, first-token and duplicate-token heads; no [CLS] or
     * [SEP] here, so no no-op head */
    /* in percent, as the table beside it */
#define PCT(x) headscore_percent(x)
    snprintf(want, sizeof want,
             "no induction head: best %d%% (layer 1 head %d; one is named "
             "from 50%%); layer 1 head 1: previous-token (%d%%); layer 1 head %d: first-token "
             "(%d%%); layer 1 head %d: duplicate-token (%d%%)",
             PCT(v), b + 1, PCT(headscore_value(&hs->t[0], HEADSCORE_PREV)),
             hs->named[HEADSCORE_FIRST] + 1,
             PCT(headscore_value(&hs->t[hs->named[HEADSCORE_FIRST]], HEADSCORE_FIRST)),
             hs->named[HEADSCORE_DUP] + 1,
             PCT(headscore_value(&hs->t[hs->named[HEADSCORE_DUP]], HEADSCORE_DUP)));
#undef PCT
    assert_int_equal(hs->named[HEADSCORE_FIRST], 2);
    assert_int_equal(hs->named[HEADSCORE_DUP], 3);
    assert_int_equal(hs->named[HEADSCORE_CLS], -1);
    assert_float_equal(headscore_value(&hs->t[0], HEADSCORE_SEP), -1.0, 0);
    assert_string_equal(f.a.app.msg, want);
    assert_int_equal(hs->named[HEADSCORE_PREV], 0); /* head 1: previous token */
    assert_true(headscore_value(&hs->t[0], HEADSCORE_PREV) >= 0.9f);
    stop(&f);
}

/* What imported attention refuses: its one line, nothing changed. */
static void test_refusals(void **state)
{
    (void)state;
    Fix f = {0};
    char msg[256];
    assert_int_equal(kind_imported_load(&f.kind, DATA_IMPORT "/attn_l3h2n7.npy",
                                        DATA_IMPORT "/tokens7.txt", NULL, true, msg, sizeof msg),
                     AV_OK);
    f.have_kind = true;
    start(&f, NULL, false);
    assert_int_equal(f.a.app.n_q, 7);
    const struct {
        Action a;
        KindAsk ask;
    } refused[] = {{ACT_EDIT, KIND_ASK_EDIT},         {ACT_HEADS_INC, KIND_ASK_SETTINGS},
                   {ACT_SEED_INC, KIND_ASK_SETTINGS}, {ACT_GENERATE, KIND_ASK_GENERATE},
                   {ACT_CROSS, KIND_ASK_CROSS},       {ACT_SENT_NEXT, KIND_ASK_EXAMPLES}};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        const char *why = kind_refuses(&f.kind, refused[k].ask);
        assert_non_null(why);
        f.a.app.msg[0] = '\0';
        assert_int_equal(key(&f, refused[k].a, 0), APP_DO_REDRAW);
        assert_string_equal(f.a.app.msg, why);
        assert_null(strchr(f.a.app.msg, '\n')); /* one line */
        assert_int_equal(f.a.pending, 0);       /* nothing to run */
    }
    assert_int_equal(f.a.app.mode, MODE_BROWSE);
    assert_int_equal(f.a.app.cfg.H, 2);
    stop(&f);
}

/* tui_stale.sh: o Enter ^X on imported attention. A lesson's page sets 4
 * heads; the file's result has 2, and exporting every head exports those. */
static void test_lesson_on_imported_export(void **state)
{
    (void)state;
    Fix f = {0};
    char msg[256];
    assert_int_equal(kind_imported_load(&f.kind, DATA_IMPORT "/attn_l3h2n7.npy",
                                        DATA_IMPORT "/tokens7.txt", NULL, true, msg, sizeof msg),
                     AV_OK);
    f.have_kind = true;
    start(&f, NULL, false);
    key(&f, ACT_LESSONS, 0);
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    settle(&f);
    assert_true(f.a.lesson.active);
    unsigned bits = key(&f, ACT_EXPORT_ALL, 0);
    assert_true(bits & APP_DO_EXPORT_ALL);
    assert_int_equal(f.a.pending, 0); /* the export reads the result as it is now */
    assert_int_equal(f.a.app.cfg.H, 2);
    assert_int_equal(f.a.ses.res.shape.H, 2);
    assert_int_equal(f.a.app.cfg.layers, 3);
    lkey(&f, LESSON_IN_LEAVE, 0, ACT_ESCAPE);
    settle(&f);
    assert_non_null(strstr(f.a.app.msg, "left the lesson"));
    assert_int_equal(f.a.app.cfg.H, 2); /* the file's settings, not the toy model's */
    assert_int_equal(f.a.app.cfg.layers, 3);
    stop(&f);
}

/* tui_interact.sh: the mask, a click on a cell, the exports' bits. */
static void test_mask_click_export(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "The cat sat on the mat", false);
    bool causal = f.a.app.cfg.causal;
    key(&f, ACT_MASK, 0);
    settle(&f);
    assert_int_equal(f.a.app.cfg.causal, !causal);
    assert_int_equal(f.a.ses.res.shape.causal, !causal);
    if (f.a.ses.res.shape.causal) /* row 1 sees no later key: exactly 0 */
        assert_true(model_head_row(&f.a.ses.res, 0, 0, 0, NULL)[1] == 0.0f);
    AppInput click = {.action = ACT_CELL_SET, .arg = 1, .col = 3}; /* (cat, on) */
    app_input(&f.a, &click);
    assert_int_equal(f.a.app.sel_row, 1);
    assert_int_equal(f.a.app.sel_col, 3);
    key(&f, ACT_HEADS_INC, 0); /* a run pending: the export brings it first */
    unsigned bits = key(&f, ACT_EXPORT_HEAD, 0);
    assert_int_equal(bits, APP_DO_REDRAW | APP_DO_EXPORT_HEAD);
    assert_int_equal(f.a.pending, 0);
    assert_int_equal(f.a.ses.res.shape.H, f.a.app.cfg.H);
    assert_int_equal(key(&f, ACT_EXPORT_ALL, 0), APP_DO_REDRAW | APP_DO_EXPORT_ALL);
    assert_int_equal(key(&f, ACT_EXPORT_SVG, 0), APP_DO_REDRAW | APP_DO_EXPORT_SVG);
    stop(&f);
}

/* No text and no sizes given: the first example on designed heads, its
 * note on the status line until its sentence is edited away. */
static void test_defaults_first_example(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, NULL, true);
    assert_int_equal(f.a.app.cfg.preset, PRESET_DESIGNED);
    assert_int_equal(f.a.app.sentence, 0);
    assert_true(starts(f.a.app.msg, "1/"));
    assert_true(f.a.app.note_shown);
    key(&f, ACT_EDIT, 0);
    type(&f, "x");
    settle(&f);
    assert_int_equal(f.a.app.sentence, -1);
    AppLayout l; /* the status line found the note's sentence gone */
    app_layout_clear(&l);
    l.note_gone = true;
    app_layout(&f.a, &l);
    assert_string_equal(f.a.app.msg, "");
    assert_false(f.a.app.note_shown);
    stop(&f);
}

/* A --sentences file's first example opens with its whole setting, as n
 * then N load it: its mask and PE, its preset and head (the designed heads
 * are only the start); -c and --no-pe on the command line stand. */
static void test_defaults_first_setting(void **state)
{
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    Fix f = {0};
    start_on(&f, NULL, true, "The cat sat.\n@ mask=on pe=off\nA dog.\n", c);
    assert_true(f.a.app.cfg.causal);
    assert_false(f.a.app.cfg.pe);
    assert_int_equal(f.a.ses.res.shape.causal, 1);
    key(&f, ACT_SENT_NEXT, 0), key(&f, ACT_SENT_PREV, 0);
    settle(&f);
    assert_true(f.a.app.cfg.causal);
    assert_false(f.a.app.cfg.pe);
    stop(&f);
    Fix g = {0};
    start_on(&g, NULL, true, "The cat sat.\n@ preset=random head=2 mask=on\nA dog.\n", c);
    assert_int_equal(g.a.app.cfg.preset, PRESET_RANDOM);
    assert_int_equal(g.a.app.cfg.d_model, 32);
    assert_int_equal(g.a.app.cfg.H, 4);
    assert_int_equal(g.a.ses.res.shape.H, 4);
    assert_int_equal(g.a.app.head, 1);
    assert_true(g.a.app.cfg.causal);
    stop(&g);
    Fix k = {0}; /* heads= alone: the random heads of that count, d_model 32 */
    start_on(&k, NULL, true, "The cat sat.\n@ heads=2 head=2\n", c);
    assert_int_equal(k.a.app.cfg.preset, PRESET_RANDOM);
    assert_int_equal(k.a.app.cfg.d_model, 32);
    assert_int_equal(k.a.ses.res.shape.H, 2);
    assert_int_equal(k.a.app.head, 1);
    stop(&k);
    c.causal = true, c.pe = false; /* -c --no-pe */
    Fix h = {0};
    start_on(&h, NULL, true, "The cat sat.\n@ mask=off pe=on head=3\n", c);
    assert_true(h.a.app.cfg.causal);
    assert_false(h.a.app.cfg.pe);
    assert_int_equal(h.a.app.cfg.preset, PRESET_DESIGNED);
    assert_int_equal(h.a.app.head, 2);
    stop(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_leaves_multi),
        cmocka_unit_test(test_defaults_first_setting),
        cmocka_unit_test(test_defaults_first_example),
        cmocka_unit_test(test_example_keeps_view),
        cmocka_unit_test(test_heads_table_names_none),
        cmocka_unit_test(test_typing_and_paste),
        cmocka_unit_test(test_settings_keys),
        cmocka_unit_test(test_stale_row_summed),
        cmocka_unit_test(test_stale_burst_reads_result),
        cmocka_unit_test(test_lesson_walk),
        cmocka_unit_test(test_heads_table),
        cmocka_unit_test(test_heads_table_silent_keys),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_lesson_on_imported_export),
        cmocka_unit_test(test_mask_click_export),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
