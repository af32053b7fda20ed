/* test_kind.c - the model kinds behind one table (app/kind.h): the pipeline
 * kind is model_run, the trained kind netresult_run (no cross-attention, the
 * piece outside the vocabulary made printable, one sampled token appended,
 * the mask and the settings refused), the imported kind the file's weights
 * whatever the text, refusing every change to a model.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>

#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "app/kind.h"
#include "io/npy.h"
#include "io/modelfile.h"

static char *VOCAB[] = {"a", "b", "c", " "};

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(path);
}

/* A random 2-layer "text" model in a new folder dir. */
static void save_model(char *dir)
{
    ModelSpec s = {.task = "text",
                   .tokenizer = MODEL_TOK_CHARS,
                   .V = 4,
                   .vocab = VOCAB,
                   .d_model = 8,
                   .heads = 2,
                   .layers = 2,
                   .context = 16,
                   .pe = MODEL_PE_SINUSOIDAL};
    Net net;
    char which[64];
    strcpy(dir, "/tmp/attnviz_kind.XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(net_init(&net, &s, 1, false), AV_OK);
    net_init_weights(&net, 3);
    assert_int_equal(modelfile_save(dir, &s, net.params, NULL, which, sizeof which), AV_OK);
    net_free(&net);
}

static void test_toy_is_model_run(void **state)
{
    (void)state;
    ModelConfig c;
    ModelWeights w;
    model_config_default(&c);
    c.causal = true;
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    Kind k;
    kind_pipeline_open(&k, &w);
    ModelResult a = {0}, b = {0};
    const char text[] = "The cat sat on the mat.";
    assert_int_equal(kind_run(&k, &c, text, strlen(text), NULL, 0, &a), AV_OK);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &b), AV_OK);
    assert_int_equal(a.tokens.n, 7);
    assert_string_equal(a.text, text); /* kept as typed, for the exports' titles */
    assert_null(a.cross_text);
    assert_null(b.text); /* model_run alone has none */
    assert_int_equal(kind_run(&k, &c, "a  b", 4, "c\nd", 3, &a), AV_OK);
    assert_string_equal(a.text, "a  b");
    assert_string_equal(a.cross_text, "c\nd");
    assert_int_equal(kind_run(&k, &c, text, strlen(text), NULL, 0, &a), AV_OK);
    assert_null(a.cross_text);
    for (int h = 0; h < c.H; h++)
        assert_memory_equal(model_head_P(&a, 0, h), model_head_P(&b, 0, h), 7 * 7 * 4);
    char *out;
    size_t cont;
    assert_int_equal(kind_generate(&k, text, strlen(text), 1, 1.0f, 0, 1, &out, &cont),
                     AV_ERR_CONFIG); /* nothing to generate with */
    assert_null(out);
    assert_false(kind_generates(&k));
    float logits[4];
    int V;
    assert_int_equal(kind_logits(&k, text, strlen(text), -1, logits, 4, &V), AV_ERR_CONFIG);
    for (int a_ = 0; a_ < KIND_ASK_COUNT; a_++) /* the pipeline changes with every setting */
        if (a_ != KIND_ASK_GENERATE && a_ != KIND_ASK_LENS)
            assert_null(kind_refuses(&k, (KindAsk)a_));
    /* the lens's reason, as kind_has_lens says there is none */
    assert_false(kind_has_lens(&k));
    assert_non_null(strstr(kind_refuses(&k, KIND_ASK_LENS), "own heads predict no tokens"));
    /* but predicts no token to continue a text with */
    assert_string_equal(kind_refuses(&k, KIND_ASK_GENERATE),
                        "g needs a model that predicts tokens (--model DIR: a GPT-2, or a text "
                        "model trained in attnviz)");
    assert_ptr_equal(kind_out_proj(&k, 0), w.layer[0].Wo); /* the norms' W_O */
    kind_close(&k);
    assert_null(k.cls);
    /* a causal-only kind whose table says nothing of the mask still refuses it */
    KindClass causal = {.name = "causal", .run = NULL, .causal_only = true};
    Kind ck = {.cls = &causal};
    assert_string_equal(kind_refuses(&ck, KIND_ASK_MASK),
                        "this model is causal: the mask stays on");
    assert_null(kind_refuses(&ck, KIND_ASK_CROSS));
    model_result_free(&a), model_result_free(&b);
    model_weights_free(&w);
}

static void test_trained(void **state)
{
    (void)state;
    char dir[64], why[256];
    save_model(dir);
    NetModel m;
    assert_int_equal(netresult_open(&m, dir, why, sizeof why), AV_OK);
    Kind k;
    assert_int_equal(kind_trained_open(&k, &m), AV_OK);
    ModelResult a = {0}, b = {0};
    ModelConfig c = m.cfg;
    c.causal = false; /* asked off: the model's mask stands */
    assert_int_equal(kind_run(&k, &c, "abc ab", 6, NULL, 0, &a), AV_OK);
    assert_true(a.shape.causal);
    char bad[16];
    assert_int_equal(netresult_run(&m, &m.cfg, "abc ab", 6, &b, bad, sizeof bad), AV_OK);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++)
            assert_memory_equal(model_head_P(&a, l, h), model_head_P(&b, l, h), 6 * 6 * 4);
    assert_int_equal(kind_run(&k, &c, "ab", 2, "ab", 2, &a), AV_ERR_CONFIG);
    assert_int_equal(a.shape.n_q, 0);
    assert_int_equal(kind_run(&k, &c, "ab\tc", 4, NULL, 0, &a), AV_ERR_VOCAB);
    assert_string_equal(k.bad, "?");
    /* the logits of the last position are the Net's after the same run */
    float logits[8];
    int V = 0;
    assert_int_equal(kind_logits(&k, "abc", 3, -1, logits, 8, &V), AV_OK);
    assert_int_equal(V, 4);
    assert_memory_equal(logits, m.net.logits + 2 * 4, sizeof *logits * 4);
    /* ... and of any row the run shows; past the last one refused */
    assert_int_equal(kind_logits(&k, "abc", 3, 0, logits, 8, &V), AV_OK);
    assert_memory_equal(logits, m.net.logits, sizeof *logits * 4);
    assert_int_equal(kind_logits(&k, "abc", 3, 3, logits, 8, &V), AV_ERR_CONFIG);
    char tok[16];
    kind_token_text(&k, 3, tok, sizeof tok); /* " ": a visible mark */
    assert_string_equal(tok, "\u2423");
    kind_token_text(&k, 1, tok, sizeof tok);
    assert_string_equal(tok, "b");
    /* what it refuses, each with its one line; what it allows */
    assert_string_equal(kind_refuses(&k, KIND_ASK_MASK),
                        "this model was trained causal: the mask stays on");
    assert_non_null(kind_refuses(&k, KIND_ASK_CROSS));
    assert_non_null(kind_refuses(&k, KIND_ASK_SETTINGS));
    assert_string_equal(kind_refuses(&k, KIND_ASK_WHATIF), /* s, t: the reason of before */
                        "the trained model fixes its heads, sizes, weights, PE and scaling");
    assert_non_null(kind_refuses(&k, KIND_ASK_NORMS));
    assert_null(kind_out_proj(&k, 0)); /* what it refuses it keeps none of */
    assert_null(kind_refuses(&k, KIND_ASK_EDIT));
    assert_null(kind_refuses(&k, KIND_ASK_TRACE));
    assert_null(kind_refuses(&k, KIND_ASK_PE_VIEW)); /* sinusoidal PE */
    assert_true(k.cls->causal_only);
    ModelConfig fixed;
    model_config_default(&fixed);
    fixed.keep_scores = true;
    kind_config(&k, &fixed);
    assert_int_equal(fixed.H, 2);
    assert_int_equal(fixed.layers, 2);
    assert_true(fixed.causal && fixed.keep_scores);
    char msg[128];
    kind_describe(&k, 0, msg, sizeof msg);
    assert_string_equal(msg, "trained 'text' model, causal, context 16: g generates the next "
                             "token");
    assert_true(kind_generates(&k));
    char *out;
    size_t cont;
    assert_int_equal(kind_generate(&k, "abc", 3, 1, 1.0f, 0, 7, &out, &cont), AV_OK);
    assert_int_equal(cont, 3);
    assert_int_equal(strlen(out), 4);
    assert_memory_equal(out, "abc", 3);
    assert_non_null(strchr("abc ", out[3]));
    free(out);
    kind_close(&k);
    model_result_free(&a), model_result_free(&b);
    netresult_close(&m);
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A causal (2, 3, 3) attention file with its rows summing to 1. */
static void test_imported(void **state)
{
    (void)state;
    char dir[64], path[96], msg[256];
    strcpy(dir, "/tmp/attnviz_kind.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.npy", dir);
    const float A[2][3][3] = {{{1, 0, 0}, {0.5f, 0.5f, 0}, {0.25f, 0.25f, 0.5f}},
                              {{1, 0, 0}, {0.75f, 0.25f, 0}, {0, 0.5f, 0.5f}}};
    assert_int_equal(npy_write(path, 3, (const size_t[]){2, 3, 3}, &A[0][0][0]), AV_OK);
    AttnImport im = {0};
    assert_int_equal(attnimport_load(path, NULL, NULL, &im, msg, sizeof msg), AV_OK);
    Kind k;
    assert_int_equal(kind_imported_open(&k, &im, msg, sizeof msg), AV_OK);
    ModelConfig c;
    model_config_default(&c); /* the kind's own sizes apply, whatever c says */
    ModelResult r = {0};
    assert_int_equal(kind_run(&k, &c, "any text", 8, NULL, 0, &r), AV_OK);
    assert_int_equal(r.shape.n_q, 3);
    assert_null(r.text); /* its tokens are the file's, not the text's */
    assert_int_equal(r.shape.H, 2);
    assert_true(r.shape.causal); /* found in the file */
    for (int h = 0; h < 2; h++)
        assert_memory_equal(model_head_P(&r, 0, h), A[h], sizeof A[h]);
    /* no model: every change refused */
    for (int a = 0; a < KIND_ASK_COUNT; a++)
        assert_non_null(kind_refuses(&k, (KindAsk)a));
    assert_string_equal(kind_refuses(&k, KIND_ASK_MASK),
                        "imported attention: the weights are the file's, there is no model "
                        "to change");
    assert_false(kind_generates(&k));
    kind_config(&k, &c);
    assert_int_equal(c.H, 2);
    assert_int_equal(c.preset, PRESET_IMPORTED);
    AttnSource src;
    assert_true(kind_source(&k, &src));
    assert_int_equal(src.n_k, 3);
    bool changed = true;
    assert_int_equal(kind_poll(&k, &changed, msg, sizeof msg), AV_OK); /* checked already */
    assert_false(changed);
    kind_describe(&k, 0, msg, sizeof msg);
    assert_string_equal(msg, "a.npy: 1 layer x 2 heads, 3 x 3 tokens, causal (detected)");
    kind_close(&k);
    model_result_free(&r);
    attnimport_free(&im);
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A model's name shortened for the status line: whole when it fits, an
 * ORG/NAME id keeping NAME after the start of ORG, else its start and end;
 * exactly the columns asked. */
static void test_short_name(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int cols;
        const char *want;
    } cases[] = {
        {"sentence-transformers/all-MiniLM-L6-v2", 0, "sentence-transformers/all-MiniLM-L6-v2"},
        {"sentence-transformers/all-MiniLM-L6-v2", 38, "sentence-transformers/all-MiniLM-L6-v2"},
        {"sentence-transformers/all-MiniLM-L6-v2", 22, "sent\u2026/all-MiniLM-L6-v2"},
        {"sentence-transformers/all-MiniLM-L6-v2", 19, "s\u2026/all-MiniLM-L6-v2"},
        {"sentence-transformers/all-MiniLM-L6-v2", 18, "sentence-\u2026LM-L6-v2"},
        {"some-org/a-rather-long-bert-model-name-v2", 12, "some-o\u2026me-v2"},
        {"gpt2", 2, "g\u2026"},
        {"d\u00e9j\u00e0-vu-model-folder", 9, "d\u00e9j\u00e0\u2026lder"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char out[128];
        kind_short_name(cases[c].name, cases[c].cols, out, sizeof out);
        assert_string_equal(out, cases[c].want);
    }
}

/* The table of folder kinds: an attnviz model folder opens as the trained
 * kind, with a text of its own vocabulary to start on and a note when a long
 * text is cut to the model's context; a folder of neither kind is refused
 * with the reader's one line. */
static void test_open_folder(void **state)
{
    (void)state;
    Kind k;
    char why[256];
    assert_int_equal(kind_open_folder(&k, "assets/models/induction", NULL, NULL, why, sizeof why),
                     AV_OK);
    assert_string_equal(k.cls->name, "trained");
    assert_false(k.cls->temperature_samples);
    char *start = kind_start_text(&k);
    assert_non_null(start);
    ModelConfig c;
    model_config_default(&c);
    kind_config(&k, &c);
    ModelResult r = {0};
    assert_int_equal(kind_run(&k, &c, start, strlen(start), NULL, 0, &r), AV_OK);
    assert_true(r.tokens.n >= 2); /* the induction task's repeated segment */
    char note[256];
    kind_run_note(&k, &r, note, sizeof note);
    assert_string_equal(note, ""); /* within the context */
    char longer[4096];             /* the start text again and again, past the context */
    size_t n = 0, len = strlen(start);
    while (n + len < sizeof longer && n < 4 * (size_t)c.max_tokens)
        memcpy(longer + n, start, len), n += len;
    assert_int_equal(kind_run(&k, &c, longer, n, NULL, 0, &r), AV_OK);
    kind_run_note(&k, &r, note, sizeof note);
    assert_non_null(strstr(note, "the last"));
    free(start);
    model_result_free(&r);
    kind_close(&k);
    assert_int_equal(kind_open_folder(&k, "tests/data", NULL, NULL, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "model.json"));
    assert_null(k.cls);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy_is_model_run), cmocka_unit_test(test_trained),
        cmocka_unit_test(test_imported),         cmocka_unit_test(test_open_folder),
        cmocka_unit_test(test_short_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
