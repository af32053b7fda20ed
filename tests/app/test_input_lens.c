/* test_input_lens.c - app_input on the logit lens view (app/lensview.h):
 * refused with one line where the kind predicts no tokens; on a trained
 * text model its rows are the kind's lens, its last row the model's own
 * next-token distribution, the real next token's rank and probability
 * those of an independent count over the logits; arrows and a click move
 * the cell, other views' keys and Esc close it; it follows typed text.
 */
#include "input_fix.h"

#include <math.h>
#include <stdlib.h>

#include "app/lensview.h"

#define CHARS "assets/models/chars"

static void open_chars(Fix *f, const char *text)
{
    char why[256];
    assert_int_equal(kind_trained_load(&f->kind, CHARS, why, sizeof why), AV_OK);
    f->have_kind = true;
    start(f, text, false);
}

/* app_poll until the lens is fresh (a trained model needs one poll). */
static void poll_lens(Fix *f)
{
    for (int k = 0; k < 3 && !lensview_fresh(&f->a.lens, f->a.ses.kind, f->a.ses.gen); k++)
        assert_int_equal(app_poll(&f->a) & (APP_DO_NOMEM | APP_DO_FAIL), 0);
    assert_true(lensview_fresh(&f->a.lens, f->a.ses.kind, f->a.ses.gen));
    assert_int_equal(f->a.lens.err, AV_OK);
}

/* The rank (1-based, ties: the smaller id first) and the probability
 * (softmax in double) of id among logits[0..V), counted here. */
static int rank_of(const float *logits, int V, int id, double *prob)
{
    int rank = 1;
    double max = logits[0], z = 0;
    for (int v = 0; v < V; v++)
        max = logits[v] > max ? logits[v] : max;
    for (int v = 0; v < V; v++) {
        z += exp((double)logits[v] - max);
        if (logits[v] > logits[id] || (logits[v] == logits[id] && v < id))
            rank++;
    }
    *prob = exp((double)logits[id] - max) / z;
    return rank;
}

static void test_lens_refused_without_tokens(void **state)
{
    /* expect: the toy pipeline predicts no tokens: u says why in one line,
     * the view stays closed and nothing runs */
    (void)state;
    Fix f = {0};
    start(&f, "the cat sat on the mat", true);
    assert_int_equal(key(&f, ACT_LENS, 0), APP_DO_REDRAW);
    assert_int_not_equal(f.a.app.view, VIEW_ID_LENS);
    assert_true(starts(f.a.app.msg, "no logit lens: attnviz's own heads predict no tokens"));
    assert_null(strchr(f.a.app.msg, '\n'));
    assert_int_equal(f.a.pending, 0);
    stop(&f);
}

static void test_lens_rows_are_the_models(void **state)
{
    /* expect: on the chars model u opens the lens on the last token and
     * the output layer; L + 1 rows of n positions, the tokens the run's;
     * the output row is the kind's own top ten at every position; the next
     * token's rank and probability agree with a count over the logits of
     * the output layer */
    (void)state;
    Fix f = {0};
    open_chars(&f, "the cat sat");
    const int n = f.a.app.n_q;
    /* the first lens is a slow step, announced, then made by app_work */
    assert_int_equal(key(&f, ACT_LENS, 0), APP_DO_REDRAW | APP_DO_WORK);
    assert_string_equal(f.a.work_line,
                        "computing the logit lens of 11 positions, 5 read-outs each ...");
    assert_int_equal(f.a.app.view, VIEW_ID_LENS);
    assert_int_equal(f.a.app.sel_row, n - 1);
    assert_int_equal(app_work(&f.a) & APP_DO_NOMEM, 0);
    assert_true(lensview_fresh(&f.a.lens, f.a.ses.kind, f.a.ses.gen));
    poll_lens(&f);
    const Lens *ls = &f.a.lens.ls;
    const int L = ls->rows - 1;
    assert_int_equal(L, f.a.app.cfg.layers);
    assert_int_equal(ls->n, n);
    int l, i;
    assert_true(lensview_cell(&f.a.lens, &f.a.app, &l, &i));
    assert_int_equal(l, L);
    assert_int_equal(i, n - 1);
    float logits[512];
    for (int p = 0; p < n; p++) {
        SessionPredict pr;
        assert_int_equal(session_predict(&f.a.ses, &f.a.app, p, LENS_K, &pr), AV_OK);
        for (int q = 0; q < pr.n; q++) {
            assert_int_equal(ls->ids[lens_at(ls, L, p) + q], pr.id[q]);
            assert_float_equal(ls->probs[lens_at(ls, L, p) + q], pr.prob[q], 1e-6);
        }
        int V, id, rank;
        float prob;
        if (p == n - 1) { /* the last position: no next token in the text */
            assert_false(lensview_next(&f.a.lens, L, p, &id, &rank, &prob));
            continue;
        }
        assert_int_equal(
            kind_logits(f.a.ses.kind, f.a.app.text.s, f.a.app.text.len, p, logits, 512, &V), AV_OK);
        assert_true(lensview_next(&f.a.lens, L, p, &id, &rank, &prob));
        assert_int_equal(id, ls->tok[p + 1]);
        double want;
        assert_int_equal(rank, rank_of(logits, V, id, &want));
        assert_float_equal(prob, want, 1e-6);
        if (rank <= LENS_K) /* in the top ten: the same place */
            assert_int_equal(ls->ids[lens_at(ls, L, p) + rank - 1], id);
    }
    stop(&f);
}

static void test_lens_keys(void **state)
{
    /* expect: Up/Down the layer (clamped), Left/Right and Home/End the
     * position, a click both; Esc leaves it, u shows it again; B goes back
     * to the heatmaps and on to side by side */
    (void)state;
    Fix f = {0};
    open_chars(&f, "the cat sat");
    key(&f, ACT_LENS, 0);
    key(&f, ACT_ROW_PREV, 0); /* before the lens came: a layer of the model's */
    assert_int_equal(f.a.lens.sel_l, f.a.app.cfg.layers - 1);
    key(&f, ACT_ROW_NEXT, 0);
    poll_lens(&f);
    const int L = f.a.lens.ls.rows - 1, n = f.a.app.n_q;
    key(&f, ACT_ROW_NEXT, 0); /* at the output already */
    assert_int_equal(f.a.lens.sel_l, L);
    key(&f, ACT_ROW_PREV, 0);
    assert_int_equal(f.a.lens.sel_l, L - 1);
    key(&f, ACT_ROW_PGUP, 0);
    assert_int_equal(f.a.lens.sel_l, 0);
    key(&f, ACT_COL_PREV, 0);
    assert_int_equal(f.a.app.sel_row, n - 2);
    key(&f, ACT_ROW_FIRST, 0);
    assert_int_equal(f.a.app.sel_row, 0);
    key(&f, ACT_COL_PREV, 0);
    assert_int_equal(f.a.app.sel_row, 0);
    AppInput click = {.action = ACT_CELL_SET, .arg = 2, .col = 4};
    app_input(&f.a, &click);
    assert_int_equal(f.a.lens.sel_l, 2);
    assert_int_equal(f.a.app.sel_row, 4);
    assert_int_equal(f.a.pending, 0); /* moving in the lens runs nothing */
    key(&f, ACT_ESCAPE, 0);
    assert_int_not_equal(f.a.app.view, VIEW_ID_LENS);
    key(&f, ACT_LENS, 0);
    assert_int_equal(f.a.app.view, VIEW_ID_LENS);
    assert_int_equal(f.a.lens.sel_l, 2); /* the same model: the layer kept */
    key(&f, ACT_CMP_HEADS, 0);
    assert_int_equal(f.a.app.view, VIEW_ID_ATTN);
    assert_int_equal(f.a.app.compare, CMP_HEADS);
    stop(&f);
}

static void test_lens_follows_typing(void **state)
{
    /* expect: text typed while the lens is open runs once for the burst,
     * and the next poll gives the lens of the longer text, its last
     * position's next token now known */
    (void)state;
    Fix f = {0};
    open_chars(&f, "the cat");
    key(&f, ACT_LENS, 0);
    poll_lens(&f);
    const int n = f.a.app.n_q, L = f.a.lens.ls.rows - 1;
    int id, rank;
    float prob;
    assert_false(lensview_next(&f.a.lens, L, n - 1, &id, &rank, &prob));
    key(&f, ACT_EDIT, 0);
    key(&f, ACT_CUR_END, 0);
    type(&f, " sat");
    settle(&f);
    assert_int_equal(f.a.app.view, VIEW_ID_LENS);
    assert_false(lensview_fresh(&f.a.lens, f.a.ses.kind, f.a.ses.gen));
    poll_lens(&f);
    assert_int_equal(f.a.lens.ls.n, n + 4);
    assert_int_equal(f.a.app.n_q, n + 4);
    assert_true(lensview_next(&f.a.lens, L, n - 1, &id, &rank, &prob));
    assert_int_equal(id, f.a.lens.ls.tok[n]);
    assert_true(rank >= 1 && prob > 0 && prob <= 1);
    stop(&f);
}

/* o under --model: the lessons open and the lens lesson runs on the
 * command line's model itself (no second copy), its lens view fresh on it;
 * Esc leaves the lesson on the same model. */
static void test_lens_lesson_on_the_model(void **state)
{
    (void)state;
    Fix f = {0};
    open_chars(&f, "the cat");
    char *dir = realpath(CHARS, NULL);
    assert_non_null(dir);
    lesson_state_use_model(&f.a.lesson, dir, &f.kind);
    LessonState *ls = &f.a.lesson;
    key(&f, ACT_LESSONS, 0);
    assert_true(ls->list);
    int lens = -1;
    for (int k = 0; k < ls->list_n; k++)
        lens = strcmp(ls->list_name[k], "lens") == 0 ? k : lens;
    assert_true(lens > 0);
    for (int k = 0; k < lens; k++)
        lkey(&f, LESSON_IN_DOWN, 0, ACT_ROW_NEXT);
    lkey(&f, LESSON_IN_ENTER, 0, ACT_EDIT);
    settle(&f);
    assert_true(ls->active);
    assert_string_equal(ls->lesson.name, "lens");
    assert_true(f.a.ses.kind == &f.kind);
    assert_int_equal(f.a.ses.run_err, AV_OK);
    assert_int_equal(f.a.app.view, VIEW_ID_LENS);
    assert_int_equal(f.a.app.cfg.layers, 4);
    poll_lens(&f);
    assert_int_equal(f.a.lens.ls.rows, 5); /* the embeddings and 4 layers */
    assert_int_equal(f.a.lens.ls.n, 20);   /* "The cat sat on the m", a character a token */
    lkey(&f, LESSON_IN_LEAVE, 0, ACT_ESCAPE);
    settle(&f);
    assert_false(ls->active);
    assert_true(f.a.ses.kind == &f.kind);
    stop(&f);
    free(dir);
}

/* A lesson page whose view is the lens and whose model folder is missing:
 * toy weights run meanwhile, and the view says so, not that imported
 * attention lacks vectors. */
static void test_lens_page_model_missing(void **state)
{
    (void)state;
    static const char text[] = "title: t\n== p\nmodel: /tmp/attnviz-no-such-model\n"
                               "view: lens\n\nSome text.\n";
    Fix f = {0};
    start(&f, "some text", false);
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
    f.a.pending = lesson_state_start(&f.a.lesson, &l, &f.a.app);
    settle(&f);
    assert_int_equal(f.a.app.view, VIEW_ID_LENS);
    assert_int_equal(app_poll(&f.a) & (APP_DO_NOMEM | APP_DO_FAIL), 0);
    assert_int_equal(f.a.lens.err, AV_ERR_NEEDS_MODEL);
    assert_string_equal(f.a.lens.why,
                        "No logit lens: the page's model /tmp/attnviz-no-such-model was not "
                        "found, and the toy weights that run meanwhile predict no tokens.");
    assert_null(strstr(f.a.lens.why, "imported"));
    assert_non_null(strstr(f.a.lesson.problem, "/tmp/attnviz-no-such-model is not there."));
    assert_non_null(strstr(f.a.lesson.problem, "Toy weights run meanwhile."));
    assert_null(strstr(f.a.lesson.problem, "as the page says"));
    stop(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lens_refused_without_tokens),
        cmocka_unit_test(test_lens_rows_are_the_models),
        cmocka_unit_test(test_lens_keys),
        cmocka_unit_test(test_lens_follows_typing),
        cmocka_unit_test(test_lens_lesson_on_the_model),
        cmocka_unit_test(test_lens_page_model_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
