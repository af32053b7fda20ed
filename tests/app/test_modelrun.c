/* test_modelrun.c - the one choice between the toy pipeline and a trained
 * model: without a trained model modelrun_run is model_run, with one it is
 * netresult_run (no cross-attention, the piece outside the vocabulary made
 * printable), and modelrun_next appends one sampled token.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>

#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "app/modelrun.h"
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
    ModelSpec s = {.task = "text", .tokenizer = MODEL_TOK_CHARS, .V = 4, .vocab = VOCAB,
                   .d_model = 8, .heads = 2, .layers = 2, .context = 16,
                   .pe = MODEL_PE_SINUSOIDAL};
    Net net;
    char which[64];
    strcpy(dir, "/tmp/attnviz_modelrun.XXXXXX");
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
    ModelSource ms = {.w = &w};
    ModelResult a = {0}, b = {0};
    const char text[] = "The cat sat on the mat.";
    assert_int_equal(modelrun_run(&ms, &c, text, strlen(text), NULL, 0, &a), AV_OK);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &b), AV_OK);
    assert_int_equal(a.tokens.n, 7);
    for (int h = 0; h < c.H; h++)
        assert_memory_equal(model_head_P(&a, 0, h), model_head_P(&b, 0, h), 7 * 7 * 4);
    char *out;
    size_t cont;
    assert_int_equal(modelrun_next(&ms, text, strlen(text), 1.0f, 0, 1, &out, &cont),
                     AV_ERR_CONFIG); /* nothing to generate with */
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
    ModelSource ms = {.net = &m};
    ModelResult a = {0}, b = {0};
    ModelConfig c = m.cfg;
    c.causal = false; /* asked off: the model's mask stands */
    assert_int_equal(modelrun_run(&ms, &c, "abc ab", 6, NULL, 0, &a), AV_OK);
    assert_true(a.shape.causal);
    char bad[16];
    assert_int_equal(netresult_run(&m, &m.cfg, "abc ab", 6, &b, bad, sizeof bad), AV_OK);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++)
            assert_memory_equal(model_head_P(&a, l, h), model_head_P(&b, l, h), 6 * 6 * 4);
    assert_int_equal(modelrun_run(&ms, &c, "ab", 2, "ab", 2, &a), AV_ERR_CONFIG);
    assert_int_equal(a.shape.n_q, 0);
    assert_int_equal(modelrun_run(&ms, &c, "ab\tc", 4, NULL, 0, &a), AV_ERR_VOCAB);
    assert_string_equal(ms.bad, "?");
    char *out;
    size_t cont;
    assert_int_equal(modelrun_next(&ms, "abc", 3, 1.0f, 0, 7, &out, &cont), AV_OK);
    assert_int_equal(cont, 3);
    assert_int_equal(strlen(out), 4);
    assert_memory_equal(out, "abc", 3);
    assert_non_null(strchr("abc ", out[3]));
    free(out);
    model_result_free(&a), model_result_free(&b);
    netresult_close(&m);
    nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy_is_model_run),
        cmocka_unit_test(test_trained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
