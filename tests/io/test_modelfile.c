/* test_modelfile.c - model folders: the layout table, model.json written and
 * read back (escapes and non-ASCII vocabularies), a save/load round trip,
 * and every broken folder refused with one line naming the file.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/modelfile.h"
#include "io/npy.h"
#include "test_tmp.h"

static char *VOCAB[] = {"a", "\"q\"", "\\", "é", "日本", "\n", "😀"};

static ModelSpec spec(bool ln, int mlp, ModelPe pe)
{
    ModelSpec s = {.task = "text",
                   .V = 7,
                   .vocab = VOCAB,
                   .d_model = 8,
                   .heads = 2,
                   .layers = 2,
                   .context = 5,
                   .pe = pe,
                   .layernorm = ln,
                   .mlp = mlp,
                   .activation = MODEL_ACT_RELU,
                   .steps = 123,
                   .seed = 42};
    return s;
}

static void test_modelfile_layout(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 16, MODEL_PE_LEARNED);
    ModelLayout lay;
    modelfile_layout(&s, &lay);
    /* embed, pe, 2 x (ln1 x2, W x4, ln2 x2, mlp x4), ln_f x2, unembed */
    assert_int_equal(lay.n, 2 + 2 * 12 + 3);
    assert_string_equal(lay.t[0].name, "embed");
    assert_string_equal(lay.t[1].name, "pe");
    assert_string_equal(lay.t[lay.n - 1].name, "unembed");
    const ModelTensor *w1 = modelfile_find(&lay, "layer2/W1");
    assert_non_null(w1);
    assert_int_equal(w1->shape[0], 8);
    assert_int_equal(w1->shape[1], 16);
    assert_int_equal(modelfile_find(&lay, "unembed")->shape[1], 7);
    size_t total = 0;
    for (int k = 0; k < lay.n; k++) {
        assert_int_equal(lay.t[k].offset, total);
        total += lay.t[k].count;
    }
    assert_int_equal(lay.total, total);
    s = spec(false, 0, MODEL_PE_SINUSOIDAL);
    modelfile_layout(&s, &lay);
    assert_int_equal(lay.n, 1 + 2 * 4 + 1);
    assert_null(modelfile_find(&lay, "layer1/ln1_g"));
}

static void test_modelfile_json_round_trip(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 16, MODEL_PE_LEARNED), back;
    char *json = modelfile_json(&s), why[256];
    assert_non_null(json);
    assert_non_null(strstr(json, "\"format\": \"attnviz-model\""));
    assert_non_null(strstr(json, "\"activation\": \"relu\""));
    assert_non_null(strstr(json, "\"layernorm\": \"pre\""));
    assert_int_equal(modelfile_parse_json(json, strlen(json), &back, why, sizeof why), AV_OK);
    assert_int_equal(back.V, 7);
    for (int i = 0; i < 7; i++)
        assert_string_equal(back.vocab[i], VOCAB[i]);
    assert_int_equal(back.d_model, 8);
    assert_int_equal(back.mlp, 16);
    assert_int_equal(back.pe, MODEL_PE_LEARNED);
    assert_true(back.layernorm);
    assert_int_equal(back.activation, MODEL_ACT_RELU);
    assert_int_equal(back.steps, 123);
    assert_string_equal(back.task, "text");
    modelfile_spec_free(&back);
    free(json);
}

/* Whitespace, key order, unknown keys and \u escapes (a surrogate pair) are read. */
static void test_modelfile_json_reader(void **state)
{
    (void)state;
    const char *j = "\n{ \"version\" :1,\"format\":\"attnviz-model\", \"extra\": [1, {\"x\": "
                    "null}], \"task\": \"t\", \"vocab\": [\"\\u00e9\", \"\\ud83d\\ude00\", "
                    "\"x\\ty\"], \"tokenizer\": \"words\", \"d_model\": 4, \"heads\": 1,"
                    " \"layers\": 1, \"context\": 3, \"causal\": true, \"pe\": \"none\","
                    " \"layernorm\": false, \"mlp\": 0, \"steps\": 0, \"seed\": 7 }\n";
    ModelSpec s;
    char why[256];
    assert_int_equal(modelfile_parse_json(j, strlen(j), &s, why, sizeof why), AV_OK);
    assert_string_equal(s.vocab[0], "é");
    assert_string_equal(s.vocab[1], "😀");
    assert_string_equal(s.vocab[2], "x\ty");
    assert_int_equal(s.tokenizer, MODEL_TOK_WORDS);
    assert_int_equal(s.pe, MODEL_PE_NONE);
    modelfile_spec_free(&s);
    /* faults: each a one-line reason */
    const char *bad[] = {
        "",
        "[]",
        "{\"format\": \"other\"}",
        "{\"version\": 2}",
        "{\"format\": \"attnviz-model\", \"version\": 1}",
        "{\"vocab\": [\"a\", \"a\"], \"format\": \"attnviz-model\", \"version\": 1, \"task\":"
        " \"t\", \"tokenizer\": \"chars\", \"d_model\": 4, \"heads\": 1, \"layers\": 1,"
        " \"context\": 3, \"causal\": true, \"pe\": \"none\", \"layernorm\": false, \"mlp\":"
        " 0, \"steps\": 0, \"seed\": 7}",
        "{\"vocab\": [\"\\ud800\"]}",
        "{\"d_model\": 4.5}",
        "{\"task\": \"unterminated}",
    };
    /* the valid text above with a seed out of range is refused, with the key named */
    char big[1024];
    snprintf(big, sizeof big, "%.*s1e30 }", (int)(strstr(j, "7 }") - j), j);
    assert_int_equal(modelfile_parse_json(big, strlen(big), &s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "seed"));
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        why[0] = 0;
        assert_int_equal(modelfile_parse_json(bad[k], strlen(bad[k]), &s, why, sizeof why),
                         AV_ERR_MODEL);
        assert_true(why[0] != 0 && !strchr(why, '\n'));
        assert_null(s.vocab);
    }
}

static void test_modelfile_save_load(void **state)
{
    const char *dir = tmp_dir(state);
    ModelSpec s = spec(true, 16, MODEL_PE_LEARNED), back;
    ModelLayout lay;
    modelfile_layout(&s, &lay);
    float *p = malloc(lay.total * sizeof *p), *q;
    assert_non_null(p);
    for (size_t i = 0; i < lay.total; i++)
        p[i] = (float)i * 0.25f - 3.0f;
    char which[64], why[512], path[512];
    assert_int_equal(modelfile_save(dir, &s, p, "layer 1 head 1: mixed\n", which, sizeof which),
                     AV_OK);
    snprintf(path, sizeof path, "%s/layer2/W2.npy", dir);
    NpyArray a = {0};
    assert_int_equal(npy_read(path, &a), AV_OK);
    assert_int_equal(a.shape[0], 16);
    assert_int_equal(a.shape[1], 8);
    npy_free(&a);
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_OK);
    assert_memory_equal(p, q, lay.total * sizeof *p);
    assert_string_equal(back.vocab[4], "日本");
    modelfile_spec_free(&back);
    free(q);
    free(p);
}

/* Broken folders: AV_ERR_MODEL, one line naming the file. */
static void test_modelfile_broken(void **state)
{
    const char *dir = tmp_dir(state);
    ModelSpec s = spec(false, 0, MODEL_PE_SINUSOIDAL), back;
    ModelLayout lay;
    modelfile_layout(&s, &lay);
    float *p = calloc(lay.total, sizeof *p), *q = NULL;
    char which[64], why[512], path[512];
    assert_int_equal(modelfile_save(dir, &s, p, NULL, which, sizeof which), AV_OK);
    /* a tensor of the wrong shape */
    size_t shape[2] = {3, 3};
    snprintf(path, sizeof path, "%s/layer2/Wk.npy", dir);
    assert_int_equal(npy_write(path, 2, shape, p), AV_OK);
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "layer2/Wk.npy"));
    assert_non_null(strstr(why, "(3, 3)"));
    assert_null(q);
    /* a missing tensor */
    unlink(path);
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "layer2/Wk.npy"));
    /* not a .npy */
    assert_int_equal(file_write_atomic(path, "garbage", 7, false), AV_OK);
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "layer2/Wk.npy"));
    /* a truncated model.json */
    snprintf(path, sizeof path, "%s/model.json", dir);
    assert_int_equal(file_write_atomic(path, "{\"format\": \"attn", 16, false), AV_OK);
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "model.json"));
    /* a FIFO as model.json: refused at once, not waited on */
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    assert_int_equal(modelfile_load(dir, &back, &q, why, sizeof why), AV_ERR_MODEL);
    alarm(0);
    assert_non_null(strstr(why, "model.json: not a regular file"));
    unlink(path);
    /* no folder at all */
    assert_int_equal(modelfile_load("/nonexistent/x", &back, &q, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "/nonexistent/x/model.json"));
    free(p);
}

/* fuzz_model's finding: the layout's table held 12 layers while
 * modelfile_check lets AV_MAX_LAYERS through; a deeper model.json wrote past
 * it. The deepest model with every tensor fits. */
static void test_modelfile_deepest_layout(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 16, MODEL_PE_LEARNED);
    s.layers = AV_MAX_LAYERS;
    assert_int_equal(modelfile_check(&s), AV_OK);
    ModelLayout lay;
    modelfile_layout(&s, &lay);
    /* embed, pe, 12 a layer, ln_f x2, unembed */
    assert_int_equal(lay.n, 2 + 12 * AV_MAX_LAYERS + 3);
    assert_true(lay.n <= MODEL_MAX_TENSORS);
    assert_string_equal(lay.t[lay.n - 1].name, "unembed");
    s.layers = AV_MAX_LAYERS + 1;
    assert_int_equal(modelfile_check(&s), AV_ERR_MODEL);
}

/* fuzz_model's finding: a second "vocab" key was appended to the first
 * one's array past its end (a heap overflow); every key given twice is now
 * refused, naming it. */
static void test_modelfile_key_twice(void **state)
{
    (void)state;
    char text[4096], why[256];
    int n = snprintf(text, sizeof text,
                     "{\"format\": \"attnviz-model\", \"version\": 1, "
                     "\"vocab\": [\"a\", \"b\"], \"d_model\": 8, \"vocab\": [");
    for (int k = 0; k < 100; k++)
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\"w%d\"", k ? ", " : "", k);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    ModelSpec s;
    assert_int_equal(modelfile_parse_json(text, strlen(text), &s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "\"vocab\" is given twice"));
    assert_null(s.vocab);
    const char *twice = "{\"d_model\": 8, \"d_model\": 16}";
    assert_int_equal(modelfile_parse_json(twice, strlen(twice), &s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "\"d_model\" is given twice"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modelfile_layout),
        cmocka_unit_test(test_modelfile_deepest_layout),
        cmocka_unit_test(test_modelfile_key_twice),
        cmocka_unit_test(test_modelfile_json_round_trip),
        cmocka_unit_test(test_modelfile_json_reader),
        cmocka_unit_test_setup_teardown(test_modelfile_save_load, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_modelfile_broken, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
