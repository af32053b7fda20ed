/* test_model.c - the whole pipeline: text in, attention out. */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "test_run.h"

static const char *cat_text = "The cat sat on the mat because it was tired.";


static void test_model_golden_default_config(void **state)
{
    (void)state;
    /* Seed 42, 4 heads, d_model 32 on seed 000's sentence: pinned numbers, so a
     * change in the tokeniser, embeddings, PE, PRNG or attention shows here. */
    ModelConfig c;
    model_config_default(&c);
    ModelResult r = {0};
    assert_int_equal(test_run(&c, cat_text, &r), AV_OK);
    assert_int_equal(r.tokens.n, 11);
    const float P0[4] = {0.108887412f, 0.0652007684f, 0.033097785f, 0.217137054f};
    const float out0[4] = {-1.72239947f, -1.35706854f, -0.83481741f, -0.763772786f};
    assert_floats_near(r.layer[0].ab.P, P0, 4, 1e-6);
    assert_floats_near(r.out, out0, 4, 1e-5);
    model_result_free(&r);
}

static void test_model_same_input_same_numbers(void **state)
{
    (void)state;
    /* Two runs, the second reusing the result's buffers, agree bit for bit. */
    ModelConfig c;
    model_config_default(&c);
    c.causal = true;
    ModelResult a = {0}, b = {0};
    assert_int_equal(test_run(&c, "Anna saw the dog and she petted it.", &a), AV_OK);
    assert_int_equal(test_run(&c, "a much longer text to grow the arena first and more", &b), AV_OK);
    assert_int_equal(test_run(&c, "Anna saw the dog and she petted it.", &b), AV_OK);
    size_t nn = (size_t)c.H * 9 * 9;
    assert_memory_equal(a.layer[0].ab.P, b.layer[0].ab.P, nn * sizeof(float));
    assert_memory_equal(a.out, b.out, 9 * 32 * sizeof(float));
    model_result_free(&a);
    model_result_free(&b);
}

static void test_model_no_pe_permuting_tokens_permutes_rows(void **state)
{
    (void)state;
    /* Seed 002: without positions attention cannot see order. "Dog bites man"
     * and "man bites Dog" give the same output rows, permuted. */
    ModelConfig c;
    model_config_default(&c);
    c.pe = false;
    ModelResult a = {0}, b = {0};
    assert_int_equal(test_run(&c, "Dog bites man", &a), AV_OK);
    assert_int_equal(test_run(&c, "man bites Dog", &b), AV_OK);
    const int perm[3] = {2, 1, 0};
    for (int i = 0; i < 3; i++)
        assert_floats_near(b.out + i * 32, a.out + perm[i] * 32, 32, 1e-5);
    model_result_free(&a);
    model_result_free(&b);
}

static void test_model_pe_makes_order_visible(void **state)
{
    (void)state;
    /* With positions on, the permuted sentence no longer permutes the rows. */
    ModelConfig c;
    model_config_default(&c);
    ModelResult a = {0}, b = {0};
    assert_int_equal(test_run(&c, "Dog bites man", &a), AV_OK);
    assert_int_equal(test_run(&c, "man bites Dog", &b), AV_OK);
    double diff = 0;
    for (int k = 0; k < 32; k++)
        diff += fabs(b.out[k] - a.out[2 * 32 + k]);
    assert_true(diff > 1e-2);
    model_result_free(&a);
    model_result_free(&b);
}

static void test_model_errors(void **state)
{
    (void)state;
    /* Empty text, too many tokens, invalid UTF-8 and a bad config fail
     * cleanly, leaving n_q at 0. */
    ModelConfig c;
    model_config_default(&c);
    ModelResult r = {0};
    assert_int_equal(test_run(&c, "   ", &r), AV_ERR_EMPTY);
    assert_int_equal(r.shape.n_q, 0);
    c.max_tokens = 3;
    assert_int_equal(test_run(&c, "one two three four", &r), AV_ERR_TOO_MANY);
    c.max_tokens = 4;
    assert_int_equal(test_run(&c, "one two three four", &r), AV_OK);
    assert_int_equal(test_run(&c, "bad \xff byte", &r), AV_ERR_UTF8);
    c.H = 5;
    assert_int_equal(model_config_check(&c), AV_ERR_CONFIG);
    model_result_free(&r);
}

static void test_model_layers_normalise_rows(void **state)
{
    (void)state;
    /* With 3 encoder layers each layer's output rows have mean 0 and standard
     * deviation 1 (LayerNorm last), and each layer has its own weights. */
    ModelConfig c;
    model_config_default(&c);
    c.layers = 3;
    ModelResult r = {0};
    assert_int_equal(test_run(&c, cat_text, &r), AV_OK);
    for (int l = 0; l < 3; l++) {
        const float *row = r.layer[l].x_out + 5 * 32;
        double mean = 0, var = 0;
        for (int k = 0; k < 32; k++)
            mean += row[k] / 32.0;
        for (int k = 0; k < 32; k++)
            var += (row[k] - mean) * (row[k] - mean) / 32.0;
        assert_float_equal(mean, 0.0, 1e-5);
        assert_float_equal(sqrt(var), 1.0, 1e-4);
    }
    assert_true(r.out == r.layer[2].x_out);
    assert_true(memcmp(r.layer[0].ab.P, r.layer[1].ab.P, 11 * 11 * sizeof(float)) != 0);
    model_result_free(&r);
}

static void test_model_cross_attention_shape(void **state)
{
    (void)state;
    /* Queries from one sentence, keys from another: weights are (H, 6, 7). */
    ModelConfig c;
    model_config_default(&c);
    ModelWeights w = {0};
    ModelResult r = {0};
    const char *q = "The cat sat on the mat", *k = "Le chat est assis sur le tapis";
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    assert_int_equal(model_run(&c, &w, q, strlen(q), k, strlen(k), &r), AV_OK);
    assert_int_equal(r.shape.n_q, 6);
    assert_int_equal(r.shape.n_k, 7);
    for (int i = 0; i < 6; i++) {
        double sum = 0;
        for (int j = 0; j < 7; j++)
            sum += r.layer[0].ab.P[3 * 42 + i * 7 + j];
        assert_float_equal(sum, 1.0, 1e-5);
    }
    model_result_free(&r);
    model_weights_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_golden_default_config),
        cmocka_unit_test(test_model_same_input_same_numbers),
        cmocka_unit_test(test_model_no_pe_permuting_tokens_permutes_rows),
        cmocka_unit_test(test_model_pe_makes_order_visible),
        cmocka_unit_test(test_model_errors),
        cmocka_unit_test(test_model_layers_normalise_rows),
        cmocka_unit_test(test_model_cross_attention_shape),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
