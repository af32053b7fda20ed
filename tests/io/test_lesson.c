/* test_lesson.c - the lesson format: a whole lesson parsed into pages whose
 * settings inherit, narration and questions; every kind of malformed line
 * named with its line number; answers computed from a real model run
 * (seed 001's "Cat eats fish" numbers); the built-in lessons all parse.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "core/model.h"
#include "io/lesson.h"
#include "io/weights.h"
#include "io/lesson_answer.h"
#include "io/lesson_builtin.h"

static const char good[] = "# a comment\n"
                           "title: Cat eats fish\n"
                           "summary: the worked example\n"
                           "\n"
                           "== First page\n"
                           "sentence: Cat eats fish\n"
                           "d_model: 4\n"
                           "heads: 2\n"
                           "pe: off\n"
                           "token: Cat\n"
                           "view: pipeline\n"
                           "stage: scores-scaled\n"
                           "plot: similarity\n"
                           "\n"
                           "Every token has three vectors.\n"
                           "They are rows of Q, K and V.\n"
                           "\n"
                           "\\note: this is narration.\n"
                           "\n"
                           "ask: Which key does Cat attend to most?\n"
                           "answer: top\n"
                           "choice: Cat\n"
                           "choice: eats\n"
                           "choice: fish\n"
                           "explain: The scores decide.\n"
                           "\n"
                           "== Second page\r\n"
                           "mask: on\n"
                           "token: 3\n"
                           "ask: How much does fish give to eats?\n"
                           "answer: weight eats\n"
                           "tolerance: 3\n"
                           "\n"
                           "== Designed\n"
                           "preset: designed\n"
                           "head: Pronoun\n"
                           "temperature: 0.5\n";

/* A lesson: pages, inherited settings, paragraphs, questions. */
static void test_lesson_parse_good(void **state)
{
    (void)state;
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(good, strlen(good), "cat", "", &l, &e), AV_OK);
    assert_string_equal(l.title, "Cat eats fish");
    assert_string_equal(l.summary, "the worked example");
    assert_int_equal(l.n_pages, 3);
    const LessonPage *p = &l.pages[0];
    assert_string_equal(p->title, "First page");
    assert_int_equal(p->line, 5);
    assert_string_equal(p->set.sentence, "Cat eats fish");
    assert_int_equal(p->set.d_model, 4);
    assert_int_equal(p->set.H, 2);
    assert_false(p->set.pe);
    assert_true(p->set.scale);
    assert_int_equal(p->set.view, VIEW_ID_PIPELINE);
    assert_int_equal(p->set.stage, 4);
    assert_int_equal(p->set.stage_last, 5);
    assert_true(p->set.pe_similarity);
    assert_string_equal(p->set.token.text, "Cat");
    /* narration: two lines, a paragraph break, the escaped line */
    assert_int_equal(p->n_text, 4);
    assert_string_equal(l.lines[p->text_first], "Every token has three vectors.");
    assert_string_equal(l.lines[p->text_first + 2], "");
    assert_string_equal(l.lines[p->text_first + 3], "note: this is narration.");
    assert_int_equal(p->q.kind, LESSON_ASK_CHOICE);
    assert_int_equal(p->q.answer, LESSON_ANS_TOP);
    assert_int_equal(p->q.n_choices, 3);
    assert_int_equal(p->q.n_explain, 1);
    assert_string_equal(l.lines[p->q.explain_first], "The scores decide.");
    /* page 2 inherits and changes */
    p = &l.pages[1];
    assert_string_equal(p->title, "Second page");
    assert_string_equal(p->set.sentence, "Cat eats fish");
    assert_int_equal(p->set.d_model, 4);
    assert_true(p->set.stage_last == 5 && p->set.pe_similarity); /* inherited */
    assert_true(p->set.causal);
    assert_int_equal(p->set.token.index, 3);
    assert_int_equal(p->q.kind, LESSON_ASK_NUMBER);
    assert_int_equal(p->q.answer, LESSON_ANS_WEIGHT);
    assert_string_equal(p->q.key.text, "eats");
    assert_float_equal(p->q.tolerance, 3.0, 1e-9);
    /* the designed preset brings its size */
    p = &l.pages[2];
    assert_int_equal(p->set.preset, PRESET_DESIGNED);
    assert_int_equal(p->set.d_model, 192);
    assert_int_equal(p->set.H, 6);
    assert_float_equal(p->set.temperature, 0.5f, 1e-6);
    assert_int_equal(p->q.kind, LESSON_ASK_NONE);
    ModelConfig c;
    lesson_config(&p->set, &c);
    assert_int_equal(model_config_check(&c), AV_OK);
    assert_int_equal(c.preset, PRESET_DESIGNED);
    /* a head by its label: the designed "pronoun -> noun" is head 5 */
    assert_string_equal(p->set.head_label, "Pronoun");
    assert_int_equal(lesson_head_index(&p->set, &c, 0), 4);
    LessonSettings other = p->set;
    other.head_label = "no such head";
    assert_int_equal(lesson_head_index(&other, &c, 0), -1);
    other.head_label = NULL, other.head = 2;
    assert_int_equal(lesson_head_index(&other, &c, 0), 1);
    lesson_free(&l);
}

typedef struct {
    const char *text;
    int line;
    const char *words; /* a fragment the message must hold */
} Bad;

/* Every malformed line is named with its line number and what is wrong. */
static void test_lesson_parse_bad(void **state)
{
    (void)state;
    static const Bad bad[] = {
        {"== Page\nsentence: a\n", 1, "title"},
        {"title: T\n\n== P\nheads: 3\n", 4, "not divisible"},
        {"title: T\n== P\nheads: x\n", 3, "whole number"},
        {"title: T\n== P\ntokn: 3\n", 3, "unknown setting 'tokn:'"},
        {"title: T\n== P\nmask: maybe\n", 3, "on or off"},
        {"title: T\n== P\nview: graph\n", 3, "view takes"},
        {"title: T\n== P\nstage: 9\n", 3, "stage takes"},
        {"title: T\n== P\nplot: bars\n", 3, "plot takes lines or similarity"},
        {"title: T\n== P\nSome text.\nmask: on\n", 4, "too late"},
        {"title: T\n== P\nask: Which?\n\n== Q\n", 3, "no answer"},
        {"title: T\n== P\nask: Which?\nanswer: biggest\n", 4, "answer takes"},
        {"title: T\n== P\nask: Which?\nanswer: weight\n", 4, "needs a key"},
        {"title: T\n== P\nask: A?\nanswer: top\nchoice: x\n", 3, "2 to 9"},
        {"title: T\n== P\nanswer: top\n", 3, "write ask: first"},
        {"title: T\n== P\nask: A?\nanswer: top\nMore text.\n", 5, "explain"},
        {"title: T\nsentence: a\n", 2, "belongs to a page"},
        {"title: T\nHello\n", 2, "before the first page"},
        {"title: T\n== P\npreset: designed\nheads: 4\n", 4, "designed"},
        {"title: T\n== P\ntemperature: 0\n", 3, "0.01"},
        {"title: T\n== P\nhead: 5\n", 3, "out of range"},
        /* found by fuzz_lesson: the label went into a one-line message */
        {"title: T\n== P\nhead: \x17\x17\n", 3, "control characters"},
        {"title: T\n== P\nhead: a\xc2\x9b[2J\n", 3, "control characters"},
        {"title: T\n== P\nweights: assets/s\x1d\n", 3, "control characters"},
        {"title: T\n==\n", 2, "title after"},
        {"title: T\n== P\nsentence: a\xff\n", 3, "UTF-8"},
        {"title: T\n", 0, "no page"},
        {"", 0, "not a lesson"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        Lesson l;
        LessonError e;
        int rc = lesson_parse(bad[k].text, strlen(bad[k].text), "x", "", &l, &e);
        if (rc != AV_ERR_LESSON || e.line != bad[k].line || !strstr(e.msg, bad[k].words)) {
            print_error("case %zu: rc %d line %d (want %d) msg '%s' (want '%s')\n", k, rc, e.line,
                        bad[k].line, e.msg, bad[k].words);
            fail();
        }
        assert_int_equal(l.n_pages, 0); /* nothing left behind */
        lesson_free(&l);
    }
}

/* The answers of seed 001's example, computed from the model, are the
 * article's: Cat gives 38.2% to itself, 29.6% to eats, 32.2% to fish. */
static void test_lesson_answer_seed001(void **state)
{
    (void)state;
    static const char text[] =
        "title: T\n== P\nsentence: Cat eats fish\nd-model: 4\nheads: 2\npe: off\n"
        "weights: assets/seed001\ntoken: Cat\n"
        "ask: Which?\nanswer: top\nchoice: about 0.30 for eats\nchoice: Cat\nchoice: fish\n"
        "== Q\nask: w?\nanswer: weight eats\n"
        "== R\nask: s?\nanswer: dot 2\n"
        "== S\nask: s?\nanswer: score fish\nchoice: 0.27\nchoice: 0.35\nchoice: 0.52\n"
        "== T\nmask: on\ntoken: 1\nask: v?\nanswer: visible\n"
        "== U\nask: c?\nanswer: cells\n"
        "== V\nask: p?\nanswer: pe 1 0\n"
        "== W\nmask: off\nask: o?\nanswer: output 1\n";
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
    char path[4096];
    assert_true(lesson_find_path(&l, l.pages[0].set.weights, path, sizeof path));
    ModelConfig c;
    lesson_config(&l.pages[0].set, &c);
    ModelWeights w = {0};
    const char *which;
    assert_int_equal(weights_load(&c, path, &w, &which), AV_OK);
    ModelResult r = {0};
    const char *s = l.pages[0].set.sentence;
    assert_int_equal(model_run(&c, &w, s, strlen(s), NULL, 0, &r), AV_OK);
    int i = lesson_token_index(&l.pages[0].set.token, &r.tokens);
    assert_int_equal(i, 0);
    LessonAnswer a;
    char buf[64];
    assert_int_equal(lesson_answer(&l.pages[0].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_true(a.is_token);
    assert_int_equal(a.token, 0);
    assert_int_equal(a.choice, 1);
    lesson_answer_text(&a, &r, buf, sizeof buf);
    assert_string_equal(buf, "Cat (38.2%)");
    assert_int_equal(lesson_answer(&l.pages[1].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_float_equal(a.value, 29.6, 0.05);
    lesson_answer_text(&a, &r, buf, sizeof buf);
    assert_string_equal(buf, "29.6%");
    /* numbers to the precision a student predicts in, never 8.782e-12 */
    LessonAnswer tiny = {.value = 8.782e-12, .unit = " bits"};
    lesson_answer_text(&tiny, &r, buf, sizeof buf);
    assert_string_equal(buf, "0.00 bits");
    tiny.value = 1.58496, tiny.unit = " bits";
    lesson_answer_text(&tiny, &r, buf, sizeof buf);
    assert_string_equal(buf, "1.58 bits");
    tiny.value = 3e-7, tiny.unit = "";
    lesson_answer_text(&tiny, &r, buf, sizeof buf);
    assert_string_equal(buf, "0.0000");
    assert_float_equal(lesson_tolerance(&l.pages[1].q, &a), 2.0, 1e-9);
    /* 29.6% typed in per cent or as the fraction the screen writes weights in */
    assert_true(lesson_typed_right(&l.pages[1].q, &a, "29.6"));
    assert_true(lesson_typed_right(&l.pages[1].q, &a, "31"));
    assert_true(lesson_typed_right(&l.pages[1].q, &a, "0.296"));
    assert_true(lesson_typed_right(&l.pages[1].q, &a, ".3"));
    assert_false(lesson_typed_right(&l.pages[1].q, &a, "0.5"));
    assert_false(lesson_typed_right(&l.pages[1].q, &a, "2.96"));
    assert_false(lesson_typed_right(&l.pages[1].q, &a, "35"));
    assert_int_equal(lesson_answer(&l.pages[2].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_float_equal(a.value, 0.38, 1e-5);
    assert_int_equal(lesson_answer(&l.pages[3].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_float_equal(a.value, 0.50 / sqrt(2.0), 1e-5);
    assert_int_equal(a.choice, 1); /* 0.354 is nearest 0.35 */
    assert_int_equal(lesson_answer(&l.pages[6].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_float_equal(a.value, sin(1.0), 1e-6);
    assert_int_equal(lesson_answer(&l.pages[7].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_float_equal(a.value, 0.54, 0.005); /* output[Cat] = [0.54, 0.46] */
    assert_int_equal(lesson_answer(&l.pages[5].q, &r, &c, 0, 0, i, &a), AV_OK);
    assert_float_equal(a.value, 9.0, 0);
    /* with the mask, Cat sees itself only */
    lesson_config(&l.pages[4].set, &c);
    assert_int_equal(model_run(&c, &w, s, strlen(s), NULL, 0, &r), AV_OK);
    assert_int_equal(lesson_answer(&l.pages[4].q, &r, &c, 0, 0, 0, &a), AV_OK);
    assert_float_equal(a.value, 1.0, 0);
    /* a key the sentence lacks, or a row out of range, is an error */
    LessonQuestion q = l.pages[1].q;
    q.key.text = "dog";
    assert_int_equal(lesson_answer(&q, &r, &c, 0, 0, 0, &a), AV_ERR_CONFIG);
    assert_int_equal(lesson_answer(&l.pages[1].q, &r, &c, 0, 0, 3, &a), AV_ERR_CONFIG);
    model_result_free(&r);
    model_weights_free(&w);
    lesson_free(&l);
}

/* The soak's SIGSEGV (issue 33): a question whose answer is a dot product
 * or a score, asked while the result on screen holds weights alone (the
 * combining views' and imported attention's results have no Q, K or V; a
 * weights_only run's last layer has no V or output). Every answer that reads
 * a buffer the result lacks is refused; those that need the weights alone are
 * the same numbers as on the full run. */
static void test_lesson_answer_weights_only(void **state)
{
    (void)state;
    static const char text[] =
        "title: T\n== P\nsentence: Cat eats fish\nd-model: 4\nheads: 2\n"
        "pe: off\nweights: assets/seed001\ntoken: Cat\n"
        "ask: d?\nanswer: dot eats\n== Q\nask: s?\nanswer: score fish\n"
        "== R\nask: o?\nanswer: output 1\n== S\nask: w?\nanswer: weight eats\n"
        "== T\nask: t?\nanswer: top\n== U\nask: k?\nanswer: d_k\n";
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
    char path[4096];
    assert_true(lesson_find_path(&l, l.pages[0].set.weights, path, sizeof path));
    ModelConfig c;
    lesson_config(&l.pages[0].set, &c);
    ModelWeights w = {0};
    const char *which;
    assert_int_equal(weights_load(&c, path, &w, &which), AV_OK);
    ModelResult full = {0}, part = {0}, imp = {0};
    const char *s = l.pages[0].set.sentence;
    assert_int_equal(model_run(&c, &w, s, strlen(s), NULL, 0, &full), AV_OK);
    ModelConfig wc = c;
    wc.weights_only = true;
    assert_int_equal(model_run(&wc, &w, s, strlen(s), NULL, 0, &part), AV_OK);
    AttnSource src;
    model_source(&full, &src);
    ModelConfig ic;
    model_config_import(&ic, 1, c.H, false);
    assert_int_equal(model_result_import(&imp, &ic, &src, NULL, &full.tokens, NULL), AV_OK);
    unsigned all = MODEL_HOLDS_WEIGHTS | MODEL_HOLDS_QK | MODEL_HOLDS_VECTORS | MODEL_HOLDS_OUTPUT;
    assert_int_equal(model_holds(&full, 0) & all, all);
    assert_int_equal(model_holds(&part, 0) & all, MODEL_HOLDS_WEIGHTS | MODEL_HOLDS_QK);
    assert_int_equal(model_holds(&imp, 0), MODEL_HOLDS_WEIGHTS);
    assert_int_equal(model_holds(&imp, 1), 0); /* no such layer */
    LessonAnswer a, b;
    for (int p = 0; p < 3; p++) { /* dot, score: Q and K; output: V and concat too */
        assert_int_equal(lesson_answer(&l.pages[p].q, &full, &c, 0, 0, 0, &a), AV_OK);
        assert_int_equal(lesson_answer(&l.pages[p].q, &imp, &ic, 0, 0, 0, &b), AV_ERR_NEEDS_MODEL);
        assert_int_equal(lesson_answer(&l.pages[p].q, &part, &wc, 0, 0, 0, &b),
                         p < 2 ? AV_OK : AV_ERR_NEEDS_MODEL);
        if (p < 2)
            assert_true(a.value == b.value);
    }
    assert_float_equal(a.value, 0.54, 0.005); /* output[Cat] = [0.54, 0.46] */
    for (int p = 3; p < 5; p++) {             /* the weights alone: the same answers */
        assert_int_equal(lesson_answer(&l.pages[p].q, &full, &c, 0, 0, 0, &a), AV_OK);
        assert_int_equal(lesson_answer(&l.pages[p].q, &imp, &ic, 0, 0, 0, &b), AV_OK);
        assert_true(a.value == b.value && a.token == b.token);
    }
    /* d_k is a model's: imported weights have heads, not d_k */
    assert_int_equal(lesson_answer(&l.pages[5].q, &full, &c, 0, 0, 0, &a), AV_OK);
    assert_float_equal(a.value, 2.0, 0);
    assert_int_equal(lesson_answer(&l.pages[5].q, &imp, &ic, 0, 0, 0, &b), AV_ERR_NEEDS_MODEL);
    assert_int_equal(lesson_answer_needs(&l.pages[0].q), MODEL_HOLDS_WEIGHTS | MODEL_HOLDS_QK);
    model_result_free(&imp);
    model_result_free(&part);
    model_result_free(&full);
    model_weights_free(&w);
    lesson_free(&l);
}

/* Token references: index, text ignoring case, none. */
static void test_lesson_token_index(void **state)
{
    (void)state;
    TokenList t = {0};
    assert_int_equal(tokenize("Anna saw the dog", 16, 100, &t), AV_OK);
    LessonTokenRef a = {.index = 2}, b = {.text = "DOG"}, c = {0}, d = {.index = 9};
    assert_int_equal(lesson_token_index(&a, &t), 1);
    assert_int_equal(lesson_token_index(&b, &t), 3);
    assert_int_equal(lesson_token_index(&c, &t), -1);
    assert_int_equal(lesson_token_index(&d, &t), -1);
    tokenize_free(&t);
    /* GPT-2's tokens carry the space before them, shown "␣" (core/bpe.h):
     * "␣bank" is token "bank"; an exact match first ("by" before " by");
     * a space alone is no word */
    Token g[] = {{0, 3, "The"}, {3, 5, "␣bank"}, {8, 3, " by"}, {11, 2, "by"}, {13, 1, "␣"}};
    TokenList gl = {.tok = g, .n = 5};
    LessonTokenRef bank = {.text = "bank"}, by = {.text = "BY"}, none = {.text = ""};
    LessonTokenRef marked = {.text = "␣bank"};
    assert_int_equal(lesson_token_index(&bank, &gl), 1);
    assert_int_equal(lesson_token_index(&marked, &gl), 1);
    assert_int_equal(lesson_token_index(&by, &gl), 3);
    assert_int_equal(lesson_token_index(&none, &gl), -1);
}

/* Every built-in lesson parses, has a name and pages, and its names are
 * distinct. */
static void test_lesson_builtins_parse(void **state)
{
    (void)state;
    LessonCatalog cat;
    assert_int_equal(lesson_catalog(&cat), AV_OK);
    assert_true(cat.n >= 14);
    for (int k = 0; k < cat.n; k++) {
        Lesson l;
        LessonError e;
        int rc = lesson_parse(cat.text[k], cat.len[k], cat.name[k], "", &l, &e);
        if (rc)
            print_error("lesson %s: line %d: %s\n", cat.name[k], e.line, e.msg);
        assert_int_equal(rc, AV_OK);
        assert_true(l.n_pages >= 2);
        for (int j = 0; j < k; j++)
            assert_string_not_equal(cat.name[j], cat.name[k]);
        lesson_free(&l);
    }
    assert_true(lesson_catalog_find(&cat, "softmax") >= 0);
    assert_int_equal(lesson_catalog_find(&cat, "no-such-lesson"), -1);
    lesson_catalog_free(&cat);
}

/* A page's model folder not found: the line says it is not there and,
 * for a relative name, where attnviz looked (the working folder, beside
 * the lesson); for one under assets/ (attnviz's own) that make install
 * installs them or the checkout has them; never "as the page says". */
static void test_lesson_model_missing(void **state)
{
    (void)state;
    char why[LESSON_PROBLEM_MAX], cwd[1024], want[1200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    lesson_model_missing(NULL, "/tmp/nosuchmodel", why, sizeof why);
    assert_string_equal(why, "The model folder /tmp/nosuchmodel is not there.");
    Lesson l;
    LessonError e;
    static const char t[] = "title: T\n== P\nmodel: assets/models/nosuch\n";
    assert_int_equal(lesson_parse(t, strlen(t), "t", "/tmp/lessons", &l, &e), AV_OK);
    lesson_model_missing(&l, "assets/models/nosuch", why, sizeof why);
    snprintf(want, sizeof want,
             "The model folder assets/models/nosuch is not there: attnviz looked beside the "
             "lesson (/tmp/lessons), in the working folder (%s) and beside attnviz (",
             cwd);
    assert_true(strncmp(why, want, strlen(want)) == 0);
    assert_non_null(strstr(why, ", the folders above it and its installed share/attnviz). "
                                "attnviz's own models come with it: make install installs "
                                "them, or run attnviz from its checkout."));
    lesson_model_missing(NULL, "my/models/x", why, sizeof why);
    assert_null(strstr(why, "make install"));
    assert_null(strstr(why, "beside the lesson"));
    assert_null(strstr(why, "as the page says"));
    lesson_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lesson_parse_good),
        cmocka_unit_test(test_lesson_parse_bad),
        cmocka_unit_test(test_lesson_answer_seed001),
        cmocka_unit_test(test_lesson_answer_weights_only),
        cmocka_unit_test(test_lesson_token_index),
        cmocka_unit_test(test_lesson_builtins_parse),
        cmocka_unit_test(test_lesson_model_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
