/* test_input_views.c - app_input on the views that combine weights (A, O,
 * V over a model and over imported attention, a lesson's question while
 * heads are combined, a typed letter leaving them: tui_stale.sh's A e r),
 * what a frame reports back (app_layout), the live training run's handle
 * and the one poller (app_poll asking the predictions a frame wanted).
 */
#include "input_fix.h"

/* A, O and V over a model (the pipeline, two layers): each view made as
 * the shown result, one head for heads combined and rollout, the model's
 * heads for the norms; a key that needs the weights leaves them. */
static void test_combining_views_on_a_model(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "the cat sat on the mat", true);
    key(&f, ACT_LAYERS_INC, 0);
    settle(&f);
    int H = f.a.app.cfg.H;
    assert_true(H > 1);
    assert_null(f.a.ses.res.src);
    key(&f, ACT_COMBINE_HEADS, 0);
    assert_true(f.a.pending & APP_RUN);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_MEAN);
    assert_non_null(f.a.ses.res.src);
    assert_int_equal(f.a.ses.res.shape.H, 1);
    assert_string_equal(f.a.app.msg, "showing heads combined: mean over heads (A: next)");
    /* the mean of every head's weights: row 2 of layer 1 sums to 1 */
    const float *row = model_head_row(&f.a.ses.res, 0, 0, 2, NULL);
    double sum = 0;
    for (int j = 0; j < f.a.ses.res.shape.n_k; j++)
        sum += row[j];
    assert_float_equal(sum, 1.0, 1e-4);
    key(&f, ACT_ROLLOUT, 0);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_ROLLOUT);
    assert_int_equal(f.a.ses.res.shape.H, 1);
    assert_int_equal(f.a.ses.res.L, 2);
    key(&f, ACT_NORMS, 0);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_NORMS);
    assert_int_equal(f.a.ses.res.shape.H, H);
    assert_string_equal(f.a.app.cfg.head_labels[0], "value-weighted norms (row shares)");
    key(&f, ACT_MASK, 0); /* needs the model's own weights */
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_WEIGHTS);
    assert_null(f.a.ses.res.src);
    assert_int_equal(f.a.ses.res.shape.H, H);
    stop(&f);
}

/* A, O and V over imported attention: heads combined and rollout made of
 * the file, the norms refused (no V to weigh by) with their line. */
static void test_combining_views_on_imported(void **state)
{
    (void)state;
    Fix f = {0};
    char msg[256];
    assert_int_equal(kind_imported_load(&f.kind, DATA_IMPORT "/attn_l3h2n7.npy",
                                        DATA_IMPORT "/tokens7.txt", NULL, true, msg, sizeof msg),
                     AV_OK);
    f.have_kind = true;
    start(&f, NULL, false);
    key(&f, ACT_COMBINE_HEADS, 0);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_MEAN);
    assert_int_equal(f.a.ses.res.shape.H, 1);
    assert_int_equal(f.a.ses.res.L, 3);
    key(&f, ACT_ROLLOUT, 0);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_ROLLOUT);
    assert_int_equal(f.a.ses.res.shape.H, 1);
    f.a.app.msg[0] = '\0';
    assert_int_equal(key(&f, ACT_NORMS, 0), APP_DO_REDRAW);
    assert_int_equal(f.a.ses.comb.mode, COMB_ROLLOUT); /* refused: the view stays */
    assert_non_null(f.a.app.msg[0] ? f.a.app.msg : NULL);
    assert_null(strchr(f.a.app.msg, '\n'));
    assert_int_equal(f.a.pending, 0);
    key(&f, ACT_ROLLOUT, 0); /* O again: back to the weights */
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_WEIGHTS);
    assert_int_equal(f.a.ses.res.shape.H, 2);
    stop(&f);
}

/* A lesson opened while heads are combined: its page's settings are the
 * model's own, so the combining view gives way; heads combined again on an
 * asking page, Enter is refused with a line, never answered off the
 * one-head result; back on the weights it is answered. */
static void test_lesson_while_combined(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "some text", true);
    key(&f, ACT_COMBINE_HEADS, 0);
    settle(&f);
    assert_int_equal(f.a.ses.res.shape.H, 1);
    key(&f, ACT_LESSONS, 0);
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    settle(&f);
    LessonState *ls = &f.a.lesson;
    assert_true(ls->active);
    assert_int_equal(f.a.ses.comb.mode, COMB_WEIGHTS);
    assert_null(f.a.ses.res.src);
    assert_int_equal(f.a.ses.res.shape.H, f.a.app.cfg.H);
    while (lesson_state_page(ls)->q.kind == LESSON_ASK_NONE && ls->page + 1 < ls->lesson.n_pages) {
        lkey(&f, LESSON_IN_NEXT, 0, ACT_ROW_PGDN);
        settle(&f);
    }
    assert_int_not_equal(lesson_state_page(ls)->q.kind, LESSON_ASK_NONE);
    int H = f.a.app.cfg.H;
    lkey(&f, LESSON_IN_CHAR, 'A', ACT_COMBINE_HEADS);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_MEAN);
    assert_int_equal(f.a.ses.res.shape.H, 1);
    assert_int_equal(lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT), APP_DO_REDRAW);
    assert_false(ls->revealed);
    assert_int_equal(f.a.app.mode, MODE_BROWSE); /* taken: not the editor */
    assert_string_equal(f.a.app.msg, "the question needs each head's own weights, not heads "
                                     "combined: mean over heads: back to them first");
    assert_int_equal(f.a.pending, 0);
    for (int k = 0; k < 3; k++) /* A: max, sum, the weights again */
        lkey(&f, LESSON_IN_CHAR, 'A', ACT_COMBINE_HEADS);
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_WEIGHTS);
    assert_int_equal(f.a.ses.res.shape.H, H);
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    assert_true(ls->revealed);
    stop(&f);
}

/* tui_stale.sh: A e r on a trained model. Heads combined, then a typed
 * letter: it leaves the combining view, and the plain run of the longer
 * text is shown with the model's heads, every row readable. */
static void test_stale_typed_leaves_combined(void **state)
{
    (void)state;
    Fix f = {0};
    char why[256];
    assert_int_equal(kind_trained_load(&f.kind, "assets/models/chars", why, sizeof why), AV_OK);
    f.have_kind = true;
    start(&f, "the cat sat on the mat. ", false);
    int H = f.a.app.cfg.H, n = f.a.app.n_q;
    key(&f, ACT_COMBINE_HEADS, 0);
    settle(&f);
    assert_string_equal(f.a.app.msg, "showing heads combined: mean over heads (A: next)");
    key(&f, ACT_EDIT, 0);
    key(&f, ACT_CUR_END, 0);
    type(&f, "r");
    settle(&f);
    assert_int_equal(f.a.ses.comb.mode, COMB_WEIGHTS);
    assert_null(f.a.ses.res.src);
    assert_int_equal(f.a.app.n_q, n + 1);
    assert_int_equal(f.a.ses.res.shape.H, H);
    float buf[64];
    assert_true(f.a.app.n_k <= 64);
    for (int i = 0; i < f.a.app.n_q; i++) /* the last row is the new run's */
        assert_non_null(model_head_row(&f.a.ses.res, f.a.app.layer, f.a.app.head, i, buf));
    stop(&f);
}

/* What a frame reports (app_layout): PgDn moves the rows the view showed,
 * an arrow a pooled row's tokens; the zoom and the scrolls are clamped to
 * what was drawn, the zoom with its line (the frame drawn again); a view
 * not drawn leaves the state. */
static void test_layout_report(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, TROPHY, true);
    AppLayout l;
    app_layout_clear(&l);
    l.page = 5, l.row_step = 3, l.col_step = 2;
    assert_false(app_layout(&f.a, &l));
    assert_int_equal(f.a.app.sel_row, 0);
    key(&f, ACT_ROW_PGDN, 0);
    assert_int_equal(f.a.app.sel_row, 5);
    key(&f, ACT_ROW_NEXT, 0);
    assert_int_equal(f.a.app.sel_row, 8);
    app_layout_clear(&l); /* nothing drawn: the steps stand */
    assert_false(app_layout(&f.a, &l));
    assert_int_equal(f.a.app.row_step, 3);
    for (int k = 0; k < 4; k++)
        key(&f, ACT_ZOOM_IN, 0);
    assert_int_equal(f.a.app.zoom, 4);
    l.zoom_max = 2, l.recentred = true;
    f.a.app.help_scroll = 40, f.a.app.lesson_scroll = 9;
    l.help_most = 12, l.lesson_most = 3;
    assert_true(app_layout(&f.a, &l)); /* a new line: draw again */
    assert_int_equal(f.a.app.zoom, 2);
    assert_string_equal(f.a.app.msg, "zoomed in as far as it goes: one token a cell");
    assert_false(f.a.app.recentre);
    assert_int_equal(f.a.app.help_scroll, 40); /* kept for a larger help: the frame shows 12 */
    assert_int_equal(f.a.app.help_most, 12);
    assert_int_equal(f.a.app.lesson_scroll, 3);
    assert_false(app_layout(&f.a, &l)); /* as far as it goes already: no line again */
    f.a.app.help = true;                /* Up in the help moves from the line shown */
    key(&f, ACT_ROW_PREV, 0);
    assert_int_equal(f.a.app.help_scroll, 11);
    f.a.app.help = false;
    stop(&f);
}

/* W: the training view asked for (APP_DO_TRAIN); its run is the App's,
 * kept for the next W on the same seed, a new one on another seed. */
static void test_training_run(void **state)
{
    (void)state;
    Fix f = {0};
    start(&f, "the cat sat", false);
    assert_int_equal(key(&f, ACT_TRAIN, 0), APP_DO_REDRAW | APP_DO_TRAIN);
    assert_null(f.a.train); /* the interface opens it */
    assert_int_equal(app_train_open(&f.a, "induction"), AV_OK);
    TrainView *tv = f.a.train;
    assert_non_null(tv);
    assert_string_equal(tv->conf.task, "induction");
    assert_int_equal(tv->seed0, f.a.app.cfg.seed);
    assert_int_equal(app_train_open(&f.a, "induction"), AV_OK);
    assert_ptr_equal(f.a.train, tv); /* W again resumes the same run */
    key(&f, ACT_SEED_INC, 0);
    assert_int_equal(app_train_open(&f.a, "induction"), AV_OK);
    assert_int_equal(f.a.train->seed0, f.a.app.cfg.seed);
    assert_int_not_equal(app_train_open(&f.a, "no-such-task"), AV_OK);
    assert_null(f.a.train);
    assert_true(f.a.app.msg[0] != '\0');
    stop(&f);
}

/* The predictions a frame wanted are asked by the one poller, once: not
 * during a burst of keys. */
static void test_poll_asks_predictions(void **state)
{
    (void)state;
    Fix f = {0};
    char why[256];
    assert_int_equal(kind_trained_load(&f.kind, "assets/models/induction", why, sizeof why), AV_OK);
    f.have_kind = true;
    start(&f, "abcdefghabcdefgh", false);
    key(&f, ACT_ROW_NEXT, 0);
    assert_false(session_predict_fresh(&f.a.ses, &f.a.app));
    AppLayout l;
    app_layout_clear(&l);
    l.pred_wanted = true;
    app_layout(&f.a, &l);
    assert_int_equal(app_poll(&f.a), APP_DO_REDRAW);
    assert_true(session_predict_fresh(&f.a.ses, &f.a.app));
    assert_int_equal(f.a.ses.pred.pos, 1);
    assert_true(f.a.ses.pred.n > 0);
    assert_true(f.a.ses.pred.prob[0] > 0.0f && f.a.ses.pred.prob[0] <= 1.0f);
    assert_int_equal(app_poll(&f.a), 0); /* asked once */
    stop(&f);
}

/* K, the sink what-if: every head kept, each row i >= 1 without the first
 * key's weight (exactly 0) and summing to 1, the other keys in the
 * proportions of the model's own row, the first row as it was; the heads
 * labelled; K again back to the weights. On a trained model and on
 * imported attention. */
static void check_sink(Fix *f)
{
    const int H = f->a.app.cfg.H, L = f->a.ses.res.L, n = f->a.app.n_q, n_k = f->a.app.n_k;
    float w[64], x[64];
    assert_true(n_k <= 64);
    key(f, ACT_SINK, 0);
    settle(f);
    assert_int_equal(f->a.ses.comb.mode, COMB_SINK);
    assert_non_null(f->a.ses.res.src);
    assert_int_equal(f->a.ses.res.shape.H, H);
    assert_int_equal(f->a.ses.res.L, L);
    assert_true(starts(f->a.app.msg, "what-if: each row without the first token's weight"));
    assert_string_equal(f->a.app.cfg.head_labels[0], "what-if: first token set aside");
    const AttnSource *base = &f->a.ses.src.base_src;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++) {
                const float *got = model_head_row(&f->a.ses.res, l, h, i, x);
                const float *row = combine_row(base, l, h, i, w);
                double sum = 0, rest = 0;
                for (int j = 0; j < n_k; j++)
                    sum += got[j], rest += j > 0 ? row[j] : 0;
                assert_float_equal(sum, 1.0, 1e-5);
                if (i == 0 && rest == 0) {
                    assert_memory_equal(got, row, sizeof(float) * (size_t)n_k);
                    continue;
                }
                assert_true(got[0] == 0.0f);
                for (int j = 1; j < n_k; j++)
                    assert_float_equal(got[j], row[j] / rest, 1e-6);
            }
    key(f, ACT_SINK, 0);
    settle(f);
    assert_int_equal(f->a.ses.comb.mode, COMB_WEIGHTS);
    if (!f->a.ses.src.file) /* a run's own result again (a file's stays the file) */
        assert_null(f->a.ses.res.src);
}

static void test_sink_what_if(void **state)
{
    (void)state;
    Fix f = {0};
    char why[256];
    assert_int_equal(kind_trained_load(&f.kind, "assets/models/chars", why, sizeof why), AV_OK);
    f.have_kind = true;
    start(&f, "the cat sat on the mat", false);
    check_sink(&f);
    stop(&f);
    Fix g = {0};
    assert_int_equal(kind_imported_load(&g.kind, DATA_IMPORT "/attn_l3h2n7.npy",
                                        DATA_IMPORT "/tokens7.txt", NULL, true, why, sizeof why),
                     AV_OK);
    g.have_kind = true;
    start(&g, NULL, false);
    check_sink(&g);
    stop(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combining_views_on_a_model),
        cmocka_unit_test(test_combining_views_on_imported),
        cmocka_unit_test(test_sink_what_if),
        cmocka_unit_test(test_lesson_while_combined),
        cmocka_unit_test(test_stale_typed_leaves_combined),
        cmocka_unit_test(test_layout_report),
        cmocka_unit_test(test_training_run),
        cmocka_unit_test(test_poll_asks_predictions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
