/* test_lesson.c - a lesson running in the interface's state: a page's
 * settings applied (sentence, sizes, weights folder, view, head, token by
 * name), predictions of the three kinds judged against the answer computed
 * from a real run (seed 001's numbers), paging, leaving with the screen
 * kept, a missing folder said on the page, and the list of lessons.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/lesson.h"
#include "app/action.h"
#include "app/setting.h"
#include "core/av.h"

static const char text[] = "title: Test\n"
                           "== One\n"
                           "sentence: Cat eats fish\n"
                           "weights: assets/seed001\n"
                           "d-model: 4\n"
                           "heads: 2\n"
                           "pe: off\n"
                           "token: eats\n"
                           "view: pipeline\n"
                           "Narration.\n"
                           "ask: Which key does eats attend to most?\n"
                           "answer: top\n"
                           "== Two\n"
                           "token: Cat\n"
                           "view: trace\n"
                           "ask: How much does Cat give fish?\n"
                           "answer: weight fish\n"
                           "== Three\n"
                           "view: compare-mask\n"
                           "ask: Which?\n"
                           "answer: top\n"
                           "choice: fish\n"
                           "choice: Cat\n"
                           "== Four\n"
                           "weights: no/such/folder\n"
                           "view: pe\n";

typedef struct {
    AppState s;
    LessonState ls;
    ModelWeights toy;
    ModelResult r;
    SentenceList sent;
} Fix;

static void setup(Fix *f)
{
    memset(f, 0, sizeof *f);
    ModelConfig c;
    model_config_default(&c);
    assert_int_equal(sentences_builtin(&f->sent), AV_OK);
    assert_int_equal(app_init(&f->s, &c, "some text", &f->sent, false), AV_OK);
    lesson_state_init(&f->ls);
}

static void teardown(Fix *f)
{
    lesson_state_free(&f->ls);
    app_free(&f->s);
    model_result_free(&f->r);
    model_weights_free(&f->toy);
    sentences_free(&f->sent);
}

/* Run the model as the interface would, with the page's weights. */
static void run(Fix *f)
{
    const ModelWeights *w = lesson_state_weights(&f->ls);
    if (!w) {
        model_weights_free(&f->toy);
        assert_int_equal(model_weights_toy(&f->s.cfg, &f->toy), AV_OK);
        w = &f->toy;
    }
    assert_int_equal(model_run(&f->s.cfg, w, f->s.text.s, f->s.text.len, NULL, 0, &f->r), AV_OK);
    app_set_tokens(&f->s, f->r.shape.n_q, f->r.shape.n_k);
    lesson_state_after_run(&f->ls, &f->s, &f->r);
}

static bool input(Fix *f, LessonInput in, int arg, unsigned *flags)
{
    bool took = lesson_state_input(&f->ls, &f->s, &f->r, in, arg, flags);
    if (*flags & (APP_RUN | APP_WEIGHTS))
        run(f);
    return took;
}

static void start(Fix *f)
{
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
    unsigned flags = lesson_state_start(&f->ls, &l, &f->s);
    assert_true(flags & APP_RUN);
    assert_true(flags & APP_WEIGHTS);
    assert_int_equal(l.n_pages, 0); /* taken over */
    run(f);
}

/* The first page's settings reach the state; its token by name becomes the
 * selection after the run. */
static void test_lesson_state_apply(void **state)
{
    (void)state;
    Fix f;
    setup(&f);
    start(&f);
    assert_true(f.ls.active);
    assert_string_equal(f.s.text.s, "Cat eats fish");
    assert_int_equal(f.s.cfg.d_model, 4);
    assert_int_equal(f.s.cfg.H, 2);
    assert_false(f.s.cfg.pe);
    assert_int_equal(f.s.cfg.preset, PRESET_LOADED);
    assert_non_null(lesson_state_weights(&f.ls));
    assert_true(f.s.fixed_weights);
    assert_int_equal(f.s.view, VIEW_ID_PIPELINE);
    assert_int_equal(f.s.head, 0);
    assert_int_equal(f.s.sel_row, 1); /* eats */
    assert_string_equal(f.ls.problem, "");
    teardown(&f);
}

/* A page's token wins over the token an example left to select after the
 * next run (the first example selects "it"): the order the interface runs
 * them in, lesson first, then the example's want, must not undo it. */
static void test_lesson_state_token_over_example(void **state)
{
    (void)state;
    Fix f;
    setup(&f);
    snprintf(f.s.want_token, sizeof f.s.want_token, "fish");
    start(&f);
    setting_take_tokens(&f.s, &f.r.tokens);
    assert_int_equal(f.s.sel_row, 1); /* eats, the page's, not fish */
    unsigned flags;
    snprintf(f.s.want_token, sizeof f.s.want_token, "fish");
    assert_true(input(&f, LESSON_IN_NEXT, 0, &flags));
    setting_take_tokens(&f.s, &f.r.tokens);
    assert_int_equal(f.s.sel_row, 0); /* page 2's Cat */
    teardown(&f);
}

/* A choice question's hint names the keys of its choices: two, a-b. */
static void test_lesson_state_choice_keys(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    assert_string_equal(lesson_state_hint(&f.ls), "Left/Right: pick a key; Enter: reveal");
    lesson_state_goto(&f.ls, &f.s, 2);
    run(&f);
    assert_string_equal(lesson_state_hint(&f.ls), "a-b or Up/Down: choose; Enter: reveal");
    assert_false(input(&f, LESSON_IN_CHAR, 'c', &flags)); /* no third choice */
    teardown(&f);
}

/* A token question: Right picks keys (the picked one is the inspected
 * cell), Enter reveals; the answer is the model's (eats -> fish 37%). */
static void test_lesson_state_token_question(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    assert_false(input(&f, LESSON_IN_CHAR, 'm', &flags)); /* not the lesson's: the app's */
    assert_true(input(&f, LESSON_IN_RIGHT, 0, &flags));
    assert_true(input(&f, LESSON_IN_RIGHT, 0, &flags));
    assert_int_equal(f.ls.pick, 1);
    assert_int_equal(f.s.sel_col, 1);
    assert_true(input(&f, LESSON_IN_RIGHT, 0, &flags));
    assert_int_equal(f.ls.pick, 2);
    assert_true(input(&f, LESSON_IN_ENTER, 0, &flags));
    assert_true(f.ls.revealed);
    assert_true(f.ls.predicted);
    assert_true(f.ls.have_answer);
    assert_int_equal(f.ls.answer.token, 2); /* eats gives fish the most: 30 33 37% */
    assert_true(f.ls.correct);
    assert_non_null(strstr(f.ls.answer_text, "fish"));
    /* Enter again: the next page */
    assert_true(input(&f, LESSON_IN_ENTER, 0, &flags));
    assert_int_equal(f.ls.page, 1);
    assert_false(f.ls.revealed);
    assert_int_equal(f.s.view, VIEW_ID_ATTN);
    assert_int_equal(f.s.panel, PANEL_TRACE);
    assert_int_equal(f.s.sel_row, 0); /* Cat */
    teardown(&f);
}

/* A number question: typed, corrected, judged with the tolerance. */
static void test_lesson_state_number_question(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    input(&f, LESSON_IN_NEXT, 0, &flags);
    assert_int_equal(f.ls.page, 1);
    input(&f, LESSON_IN_CHAR, '3', &flags);
    input(&f, LESSON_IN_CHAR, '9', &flags);
    input(&f, LESSON_IN_BACKSPACE, 0, &flags);
    input(&f, LESSON_IN_CHAR, '1', &flags);
    assert_string_equal(f.ls.typed, "31");
    assert_true(input(&f, LESSON_IN_ENTER, 0, &flags));
    assert_float_equal(f.ls.answer.value, 32.2, 0.05); /* the article's 32% */
    assert_true(f.ls.correct);                         /* within 2 points */
    /* back and again, wrongly */
    input(&f, LESSON_IN_PREV, 0, &flags);
    input(&f, LESSON_IN_CHAR, 'n', &flags); /* n: the next page */
    assert_int_equal(f.ls.page, 1);
    input(&f, LESSON_IN_CHAR, '5', &flags);
    input(&f, LESSON_IN_CHAR, '0', &flags);
    input(&f, LESSON_IN_ENTER, 0, &flags);
    assert_true(f.ls.predicted);
    assert_false(f.ls.correct);
    teardown(&f);
}

/* Esc while a number is typed clears the prediction, not the lesson: the
 * typed text goes (the status line says which), the page stays; a second
 * Esc leaves the lesson. */
static void test_lesson_state_number_esc(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    input(&f, LESSON_IN_NEXT, 0, &flags);
    assert_int_equal(f.ls.page, 1);
    input(&f, LESSON_IN_CHAR, '0', &flags);
    input(&f, LESSON_IN_CHAR, '.', &flags);
    assert_string_equal(f.ls.typed, "0.");
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_true(f.ls.active);
    assert_int_equal(f.ls.page, 1);
    assert_false(f.ls.revealed);
    assert_string_equal(f.ls.typed, "");
    assert_string_equal(f.s.msg, "prediction 0. cleared: Esc again leaves the lesson");
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_false(f.ls.active);
    assert_non_null(strstr(f.s.msg, "left the lesson"));
    teardown(&f);
}

/* Esc after a choice was picked clears the pick and stays on the page, its
 * comparison kept; Esc with nothing picked leaves the lesson. A token
 * question's pick (the inspected cell) is cleared the same way. */
static void test_lesson_state_choice_esc(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    input(&f, LESSON_IN_RIGHT, 0, &flags); /* page 1: a token question */
    assert_int_equal(f.ls.pick, 0);
    assert_int_equal(f.s.sel_col, 0);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_true(f.ls.active);
    assert_int_equal(f.ls.pick, -1);
    assert_int_equal(f.s.sel_col, -1);
    assert_string_equal(f.s.msg, "prediction key 1 cleared: Esc again leaves the lesson");
    input(&f, LESSON_IN_NEXT, 0, &flags);
    input(&f, LESSON_IN_NEXT, 0, &flags);
    assert_int_equal(f.ls.page, 2);
    input(&f, LESSON_IN_CHAR, 'b', &flags);
    assert_int_equal(f.ls.pick, 1);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_true(f.ls.active);
    assert_int_equal(f.ls.page, 2);
    assert_int_equal(f.ls.pick, -1);
    assert_false(f.ls.revealed);
    assert_int_equal(f.s.compare, CMP_MASK); /* the page's own view stays */
    assert_string_equal(f.s.msg, "prediction (b) cleared: Esc again leaves the lesson");
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_false(f.ls.active);
    assert_non_null(strstr(f.s.msg, "left the lesson"));
    teardown(&f);
}

/* Esc first closes what was opened over the page (the trace over page 1's
 * pipeline, M's rows summed), then clears the pick, then leaves. */
static void test_lesson_state_esc_view_first(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    assert_int_equal(f.s.view, VIEW_ID_PIPELINE);
    input(&f, LESSON_IN_RIGHT, 0, &flags);
    action_apply(&f.s, ACT_TRACE, 0);
    assert_int_equal(f.s.panel, PANEL_TRACE);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_true(f.ls.active);
    assert_int_equal(f.s.panel, PANEL_NONE);
    assert_int_equal(f.s.view, VIEW_ID_PIPELINE);
    assert_int_equal(f.ls.pick, 0);
    assert_string_equal(f.s.msg, "back to the page's own view");
    f.s.n_multi = 2;
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_int_equal(f.s.n_multi, 0);
    assert_int_equal(f.ls.pick, 0);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_int_equal(f.ls.pick, -1);
    assert_true(f.ls.active);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_false(f.ls.active);
    assert_int_equal(f.s.view, VIEW_ID_PIPELINE);
    teardown(&f);
}

/* A choice question; Enter without a prediction reveals anyway. */
static void test_lesson_state_choice_question(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    input(&f, LESSON_IN_NEXT, 0, &flags);
    input(&f, LESSON_IN_NEXT, 0, &flags);
    assert_int_equal(f.ls.page, 2);
    assert_int_equal(f.s.compare, CMP_MASK);
    input(&f, LESSON_IN_CHAR, 'b', &flags);
    assert_int_equal(f.ls.pick, 1);
    input(&f, LESSON_IN_ENTER, 0, &flags);
    assert_int_equal(f.ls.answer.choice, 1); /* Cat -> Cat 38% */
    assert_true(f.ls.correct);
    input(&f, LESSON_IN_PREV, 0, &flags);
    input(&f, LESSON_IN_NEXT, 0, &flags);
    input(&f, LESSON_IN_ENTER, 0, &flags);
    assert_true(f.ls.revealed);
    assert_false(f.ls.predicted);
    assert_false(f.ls.correct);
    teardown(&f);
}

/* A missing folder is said on the page, the toy weights run; the last page
 * stays; Esc leaves the lesson and keeps the screen. */
static void test_lesson_state_missing_and_leave(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    start(&f);
    for (int k = 0; k < 3; k++)
        input(&f, LESSON_IN_NEXT, 0, &flags);
    assert_int_equal(f.ls.page, 3);
    assert_non_null(strstr(f.ls.problem, "no/such/folder"));
    assert_null(lesson_state_weights(&f.ls));
    assert_int_equal(f.s.cfg.preset, PRESET_RANDOM);
    assert_int_equal(f.s.view, VIEW_ID_PE);
    assert_true(input(&f, LESSON_IN_NEXT, 0, &flags));
    assert_int_equal(f.ls.page, 3);
    assert_int_equal(flags, 0);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_false(f.ls.active);
    assert_null(lesson_state_page(&f.ls));
    assert_string_equal(f.s.text.s, "Cat eats fish");
    assert_int_equal(f.s.view, VIEW_ID_PE);
    assert_false(input(&f, LESSON_IN_NEXT, 0, &flags)); /* no lesson: the app's keys again */
    teardown(&f);
}

/* The list: every built-in lesson, Down and Enter open the second; End
 * and Home go to the last and the first. */
static void test_lesson_state_list(void **state)
{
    (void)state;
    Fix f;
    unsigned flags;
    setup(&f);
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    assert_true(f.ls.list);
    assert_true(f.ls.list_n >= 15);
    assert_string_equal(f.ls.list_name[0], "qkv");
    assert_true(input(&f, LESSON_IN_LAST, 0, &flags));
    assert_int_equal(f.ls.list_sel, f.ls.list_n - 1);
    assert_true(input(&f, LESSON_IN_DOWN, 0, &flags)); /* stays on the last */
    assert_int_equal(f.ls.list_sel, f.ls.list_n - 1);
    assert_true(input(&f, LESSON_IN_FIRST, 0, &flags));
    assert_int_equal(f.ls.list_sel, 0);
    assert_true(input(&f, LESSON_IN_DOWN, 0, &flags));
    assert_true(input(&f, LESSON_IN_CHAR, 'x', &flags));  /* the list takes the keys */
    assert_false(input(&f, LESSON_IN_CHAR, 'q', &flags)); /* but q quits */
    assert_true(input(&f, LESSON_IN_ENTER, 0, &flags));
    assert_false(f.ls.list);
    assert_true(f.ls.active);
    assert_string_equal(f.ls.lesson.name, f.ls.list_name[1]);
    assert_true(flags & APP_RUN);
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    assert_true(input(&f, LESSON_IN_LEAVE, 0, &flags));
    assert_false(f.ls.list);
    assert_true(f.ls.active); /* closing the list keeps the lesson */
    teardown(&f);
}

/* Set f up and start the lesson of text t at its first page (no run). */
static void start_text(Fix *f, const char *t)
{
    Lesson l;
    LessonError e;
    setup(f);
    assert_int_equal(lesson_parse(t, strlen(t), "t", "", &l, &e), AV_OK);
    lesson_state_start(&f->ls, &l, &f->s);
}

/* A page with a trained model: its sizes, the head named by its label;
 * a missing folder is said on the page. Needs assets/models/induction
 * (attnviz train induction --layers 2 --heads 2 --save assets/models/induction). */
static void test_lesson_state_trained_model(void **state)
{
    (void)state;
    static const char t[] = "title: T\n== P\nmodel: assets/models/induction\nsentence: fjqzwfjqzw\n"
                            "layer: 2\nhead: induction\ntoken: 7\n"
                            "== Q\nmodel: no/such/model\n";
    Fix f;
    start_text(&f, t);
    NetModel *m = lesson_state_net(&f.ls);
    if (!m) {
        teardown(&f);
        skip();
    }
    assert_int_equal(f.s.cfg.preset, PRESET_TRAINED);
    assert_int_equal(f.s.cfg.d_model, m->cfg.d_model);
    assert_int_equal(f.s.layer, 1);
    assert_non_null(strstr(model_head_label(&f.s.cfg, 1, f.s.head), "induction"));
    assert_true(f.s.fixed_weights);
    unsigned flags;
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_NEXT, 0, &flags));
    assert_null(lesson_state_net(&f.ls));
    assert_non_null(strstr(f.ls.problem, "no/such/model is not there: attnviz looked"));
    assert_non_null(strstr(f.ls.problem, "Toy weights run meanwhile."));
    teardown(&f);
}

/* A page's model opens through the table of folder kinds: its last layer
 * and last token are the model's; a folder holding neither model.json nor
 * config.json is said on the page by what it lacks; a view the model
 * cannot show is its key's refusal on the status line, over the heatmaps;
 * a hub id not in the cache says how to fetch it. */
static void test_lesson_state_model_kinds(void **state)
{
    (void)state;
    char empty[] = "/tmp/attnviz-lesson-XXXXXX";
    assert_non_null(mkdtemp(empty));
    char t[512];
    snprintf(t, sizeof t,
             "title: T\n== P\nmodel: assets/models/chars\nsentence: the cat\nlayer: last\n"
             "token: last\nview: lens\n== Q\nmodel: %s\n== R\nmodel: assets/models/chars\n"
             "view: compare-mask\n== S\nmodel: no-such-hub-model\n",
             empty);
    setenv("HF_HUB_CACHE", empty, 1); /* a cache that holds nothing */
    Fix f;
    start_text(&f, t);
    Kind *k = lesson_state_kind(&f.ls);
    assert_non_null(k);
    assert_int_equal(f.s.cfg.layers, 4);
    assert_int_equal(f.s.layer, 3); /* last: the model's fourth, not the page's first */
    assert_int_equal(app_view_base(&f.s), VIEW_ID_LENS);
    assert_int_equal(kind_run(k, &f.s.cfg, f.s.text.s, f.s.text.len, NULL, 0, &f.r), AV_OK);
    lesson_state_after_run(&f.ls, &f.s, &f.r);
    assert_int_equal(f.r.shape.n_q, 7);
    assert_int_equal(f.s.sel_row, 6); /* token: last */
    unsigned flags;
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_NEXT, 0, &flags));
    assert_null(lesson_state_kind(&f.ls));
    assert_non_null(strstr(f.ls.problem, "neither model.json"));
    assert_non_null(strstr(f.ls.problem, "config.json (a Hugging Face GPT-2 or BERT folder)"));
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_NEXT, 0, &flags));
    assert_non_null(lesson_state_kind(&f.ls));
    assert_string_equal(f.s.msg, "this model was trained causal: the mask stays on");
    assert_int_equal(app_view_base(&f.s), VIEW_ID_ATTN);
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_NEXT, 0, &flags));
    assert_null(lesson_state_kind(&f.ls));
    assert_string_equal(f.ls.problem,
                        "The model no-such-hub-model is neither a folder nor in "
                        "the Hugging Face cache: attnviz get no-such-hub-model fetches it. Toy "
                        "weights run meanwhile.");
    teardown(&f);
    unsetenv("HF_HUB_CACHE");
    rmdir(empty);
}

/* Under --model DIR (use_model, its kind the host), a lesson opened from
 * the list runs every page on that model: on the host itself, never
 * opened a second time, and the host outlives the lesson. Without a host
 * (--lesson NAME --model DIR) the page opens the folder. */
static void test_lesson_state_host(void **state)
{
    (void)state;
    char *dir = realpath("assets/models/chars", NULL), why[512];
    assert_non_null(dir);
    Kind host;
    assert_int_equal(kind_open_folder(&host, dir, NULL, NULL, why, sizeof why), AV_OK);
    Fix f;
    unsigned flags;
    setup(&f);
    lesson_state_use_model(&f.ls, dir, &host);
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_ENTER, 0,
                                   &flags)); /* qkv, a pipeline lesson */
    assert_true(f.ls.active);
    assert_string_equal(f.ls.lesson.name, "qkv");
    assert_true(lesson_state_kind(&f.ls) == &host);
    assert_string_equal(f.ls.lesson.pages[0].set.model, dir);
    assert_null(f.ls.lesson.pages[0].set.weights);
    assert_int_equal(f.s.cfg.layers, 4); /* the model's, not the page's */
    assert_int_equal(kind_run(&host, &f.s.cfg, f.s.text.s, f.s.text.len, NULL, 0, &f.r), AV_OK);
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_NEXT, 0, &flags));
    assert_true(lesson_state_kind(&f.ls) == &host);
    teardown(&f);
    /* the lesson gone, the host runs on */
    ModelConfig c;
    model_config_default(&c);
    kind_config(&host, &c);
    ModelResult r = {0};
    assert_int_equal(kind_run(&host, &c, "the cat", 7, NULL, 0, &r), AV_OK);
    assert_int_equal(r.shape.n_q, 7);
    model_result_free(&r);

    setup(&f); /* no host: the page opens the folder itself */
    lesson_state_use_model(&f.ls, dir, NULL);
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_DOWN, 0, &flags));
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_ENTER, 0, &flags));
    assert_string_equal(f.ls.lesson.pages[0].set.model, dir);
    Kind *k = lesson_state_kind(&f.ls);
    assert_non_null(k);
    assert_true(k != &host);
    assert_string_equal(f.ls.model_dir, dir);
    assert_int_equal(f.s.cfg.layers, 4);
    teardown(&f);
    kind_close(&host);
    free(dir);
}

/* The list of lessons under --model DIR: a lesson with a page whose view
 * the model cannot give is not opened; the status line says which page and
 * why, and the list closes so the line shows. With a host (attnviz --model
 * DIR) its kind is asked; with none (--lesson NAME --model DIR) the kind
 * the pages opened from DIR. */
static void test_lesson_state_list_refused(void **state)
{
    (void)state;
    char *dir = realpath("assets/models/chars", NULL);
    assert_non_null(dir);
    ModelConfig c;
    ModelWeights w;
    Kind host;
    model_config_default(&c);
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    kind_pipeline_open(&host, &w); /* attnviz's own heads: no logit lens */
    Fix f;
    unsigned flags;
    setup(&f);
    lesson_state_use_model(&f.ls, dir, &host);
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_LAST, 0, &flags));
    assert_string_equal(f.ls.list_name[f.ls.list_sel], "lens");
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_ENTER, 0, &flags));
    assert_int_equal(flags, 0);
    assert_false(f.ls.active);
    assert_false(f.ls.list);
    assert_string_equal(f.s.msg, "the lesson lens shows the view \"lens\" on page 1, which this "
                                 "model cannot give: attnviz's own heads predict no tokens: the "
                                 "logit lens needs GPT-2, or a trained text, grammar or task model "
                                 "(--model DIR)");
    teardown(&f);
    kind_close(&host);
    model_weights_free(&w);

    setup(&f); /* no host: qkv's pages open the causal model; the mask lesson is refused */
    lesson_state_use_model(&f.ls, dir, NULL);
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_ENTER, 0, &flags));
    assert_true(f.ls.active);
    assert_string_equal(f.ls.lesson.name, "qkv");
    assert_int_equal(lesson_state_list_open(&f.ls, &f.s), AV_OK);
    int k = 0;
    while (strcmp(f.ls.list_name[f.ls.list_sel], "causal-mask") && k++ < f.ls.list_n)
        assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_DOWN, 0, &flags));
    assert_true(lesson_state_input(&f.ls, &f.s, NULL, LESSON_IN_ENTER, 0, &flags));
    assert_int_equal(flags, 0);
    assert_string_equal(f.ls.lesson.name, "qkv"); /* the lesson open stays */
    assert_string_equal(f.s.msg, "the lesson causal-mask shows the view \"compare-mask\" on page "
                                 "5, which this model cannot give: this model was trained causal: "
                                 "the mask stays on");
    teardown(&f);
    free(dir);
}

/* A lesson run on another model than its own (--model DIR: use_model)
 * says on the page which of its claims are false on the result shown, each
 * with this model's value and the text's, and nothing for a claim that
 * holds; a value the page's question asks for is named without its number
 * until the reveal. Under the lesson's own model nothing is said, even of
 * a claim that is false there. */
static const char notes_text[] = "title: T\n== P\nsentence: the cat\nd-model: 256\nheads: 1\n"
                                 "claim: d_k == 256\nclaim: sum(1) == 100%\nSome text.\n"
                                 "== Q\nclaim: sum(1) == 100%\nMore text.\n"
                                 "== R\nclaim: d_k > 200\nask: How wide?\nanswer: d_k\n";

/* Run the page's model (its kind) on the page's text, as the session would. */
static void run_kind(Fix *f)
{
    Kind *k = lesson_state_kind(&f->ls);
    assert_non_null(k);
    model_result_free(&f->r);
    assert_int_equal(kind_run(k, &f->s.cfg, f->s.text.s, f->s.text.len, NULL, 0, &f->r), AV_OK);
    app_set_tokens(&f->s, f->r.shape.n_q, f->r.shape.n_k);
    lesson_state_after_run(&f->ls, &f->s, &f->r);
}

static void test_lesson_state_notes(void **state)
{
    (void)state;
    char *dir = realpath("assets/models/chars", NULL); /* d_model 64, 4 heads: d_k 16 */
    assert_non_null(dir);
    Fix f;
    Lesson l;
    LessonError e;
    unsigned flags;
    const char *line[8];
    setup(&f);
    assert_int_equal(lesson_parse(notes_text, strlen(notes_text), "t", "", &l, &e), AV_OK);
    assert_int_equal(lesson_use_model(&l, dir), AV_OK);
    lesson_state_use_model(&f.ls, dir, NULL);
    lesson_state_start(&f.ls, &l, &f.s);
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 0); /* nothing before the run */
    run_kind(&f);
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 1); /* d_k false, the sum holds */
    assert_string_equal(line[0],
                        "On this model the text's numbers differ: d_k is 16 (the text: 256)");
    assert_true(lesson_state_input(&f.ls, &f.s, &f.r, LESSON_IN_NEXT, 0, &flags));
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 0); /* the next page's, after its run */
    run_kind(&f);
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 0); /* its one claim holds */
    assert_true(lesson_state_input(&f.ls, &f.s, &f.r, LESSON_IN_NEXT, 0, &flags));
    run_kind(&f);
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 1);
    assert_string_equal(line[0],
                        "On this model the text's numbers differ: d_k (shown with the answer)");
    assert_true(lesson_state_input(&f.ls, &f.s, &f.r, LESSON_IN_ENTER, 0, &flags)); /* reveal */
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 1);
    assert_string_equal(
        line[0], "On this model the text's numbers differ: d_k is 16 (the text: more than 200)");
    teardown(&f);
    free(dir);

    /* the lesson's own model (toy weights, d_k 256): a false claim says nothing */
    static const char own[] = "title: T\n== P\nsentence: the cat\nd-model: 256\nheads: 1\n"
                              "claim: d_k == 8\nText.\n";
    start_text(&f, own);
    run(&f);
    assert_int_equal(f.s.cfg.d_model / f.s.cfg.H, 256);
    assert_int_equal(lesson_state_notes(&f.ls, line, 8), 0);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lesson_state_apply),
        cmocka_unit_test(test_lesson_state_token_over_example),
        cmocka_unit_test(test_lesson_state_choice_keys),
        cmocka_unit_test(test_lesson_state_token_question),
        cmocka_unit_test(test_lesson_state_number_question),
        cmocka_unit_test(test_lesson_state_number_esc),
        cmocka_unit_test(test_lesson_state_choice_esc),
        cmocka_unit_test(test_lesson_state_esc_view_first),
        cmocka_unit_test(test_lesson_state_choice_question),
        cmocka_unit_test(test_lesson_state_missing_and_leave),
        cmocka_unit_test(test_lesson_state_list),
        cmocka_unit_test(test_lesson_state_trained_model),
        cmocka_unit_test(test_lesson_state_model_kinds),
        cmocka_unit_test(test_lesson_state_host),
        cmocka_unit_test(test_lesson_state_list_refused),
        cmocka_unit_test(test_lesson_state_notes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
