/* test_model.c - the whole pipeline: text in, attention out. */
#include "test_common.h"

#include <stdio.h>
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
    assert_int_equal(test_run(&c, "a much longer text to grow the arena first and more", &b),
                     AV_OK);
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

/* --weights of huge but finite numbers: scores past float32 are refused
 * with AV_ERR_OVERFLOW before the softmax sees an infinity (it aborted on a
 * text of 40 tokens, and wrote NaN weights on a short one); large weights
 * whose scores stay floats still run, every weight finite. */
static void test_model_weights_overflow(void **state)
{
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    ModelWeights w = {0};
    ModelResult r = {0};
    char text[400] = "";
    for (int i = 0; i < 40; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "w%d ", i);
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    for (int k = 0; k < 2; k++) {
        float v = k ? 1e20f : 1e4f;
        for (int i = 0; i < 32 * 32; i++)
            w.layer[0].Wq[i] = w.layer[0].Wk[i] = v;
        model_weights_measure(&w); /* changed in place: measured again (model.h) */
        assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &r),
                         k ? AV_ERR_OVERFLOW : AV_OK);
    }
    for (int i = 0; i < 32 * 32; i++)
        w.layer[0].Wq[i] = w.layer[0].Wk[i] = 1e4f;
    model_weights_measure(&w);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &r), AV_OK);
    for (long i = 0; i < 4L * 40 * 40; i++)
        assert_true(isfinite(r.layer[0].ab.P[i]));
    for (int i = 0; i < 32 * 32; i++)
        w.layer[0].Wq[i] = w.layer[0].Wk[i] = 0.1f,
        w.layer[0].Wo[i] = 3e37f; /* the output, not the scores */
    model_weights_measure(&w);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &r), AV_ERR_OVERFLOW);
    /* weights nobody measured are read at the forward itself */
    for (int i = 0; i < 32 * 32; i++)
        w.layer[0].Wo[i] = 0.1f;
    model_weights_measure(&w);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &r), AV_OK);
    for (int i = 0; i < 32 * 32; i++)
        w.layer[0].Wq[i] = w.layer[0].Wk[i] = 1e20f;
    w.measured = false;
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &r), AV_ERR_OVERFLOW);
    model_result_free(&r);
    model_weights_free(&w);
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

/* model_result_import: a result backed by an AttnSource gives the same rows,
 * pooled cells and statistics whether its weights are in place, copied or
 * read on demand; and a model run after it is a plain run again. */
static void test_model_import_backs_results(void **state)
{
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    c.layers = 2, c.causal = true;
    ModelWeights w = {0};
    ModelResult own = {0}, imp[3];
    memset(imp, 0, sizeof imp);
    const char *text = "The cat sat on the mat because it was tired";
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &own), AV_OK);
    AttnSource src;
    model_source(&own, &src);
    const int n = own.shape.n_q;
    const float *layer_P[2] = {own.layer[0].ab.P, own.layer[1].ab.P};
    ModelConfig ic;
    model_config_import(&ic, 2, c.H, true);
    for (int k = 0; k < 3; k++) { /* in place, copied, on demand */
        ic.weights_budget = k == 2 ? 1.0 : 0.0;
        assert_int_equal(
            model_result_import(&imp[k], &ic, &src, k == 0 ? layer_P : NULL, &own.tokens, NULL),
            AV_OK);
        assert_int_equal(imp[k].lazy, k == 2);
        assert_ptr_equal(imp[k].src, &src);
        assert_true(imp[k].shape.causal);
        assert_int_equal(imp[k].tokens.n, n);
        assert_string_equal(imp[k].tokens.tok[n - 1].str, "tired");
        assert_true(model_key_tokens(&imp[k]) == &imp[k].tokens);
    }
    assert_ptr_equal(model_head_P(&imp[0], 1, 2), model_head_P(&own, 1, 2));
    assert_true(model_head_P(&imp[1], 1, 2) != model_head_P(&own, 1, 2));
    assert_null(model_head_P(&imp[2], 1, 2));
    float buf[64], cells[2][3 * 4], *P = malloc(sizeof *P * n);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < c.H; h++)
            for (int i = 0; i < n; i++) {
                memcpy(P, model_head_row(&own, l, h, i, buf), sizeof *P * n);
                for (int k = 0; k < 3; k++)
                    assert_memory_equal(model_head_row(&imp[k], l, h, i, buf), P, sizeof *P * n);
            }
    for (int m = 0; m < 2; m++) { /* pooled cells and statistics through the source */
        PoolMode pm = m ? POOL_MEAN : POOL_MAX;
        assert_int_equal(model_pool_head(&own, 1, 3, 1, n, 2, n, 3, 4, pm, cells[0]), AV_OK);
        assert_int_equal(model_pool_head(&imp[2], 1, 3, 1, n, 2, n, 3, 4, pm, cells[1]), AV_OK);
        assert_memory_equal(cells[0], cells[1], sizeof cells[0]);
    }
    HeadStats st[2];
    assert_int_equal(model_stats_head(&own, 0, 1, 1L << 20, &st[0]), AV_OK);
    assert_int_equal(model_stats_head(&imp[2], 0, 1, 1L << 20, &st[1]), AV_OK);
    assert_true(st[0].entropy == st[1].entropy && st[0].top == st[1].top && st[1].rows == n);
    ic.H = c.H + 1; /* the source's heads do not match: nothing half made */
    assert_int_equal(model_result_import(&imp[1], &ic, &src, NULL, &own.tokens, NULL),
                     AV_ERR_CONFIG);
    assert_int_equal(imp[1].shape.n_q, 0);
    assert_int_equal(model_run(&c, &w, text, strlen(text), NULL, 0, &imp[0]), AV_OK);
    assert_null(imp[0].src); /* a run replaces the import */
    assert_memory_equal(model_head_P(&imp[0], 1, 0), model_head_P(&own, 1, 0), sizeof *P * n * n);
    free(P);
    for (int k = 0; k < 3; k++)
        model_result_free(&imp[k]);
    model_result_free(&own);
    model_weights_free(&w);
}

/* A text of n words, a token each, for the runs past a sentence. */
static char *words_text(int n)
{
    static const char *const words[] = {"the", "cat", "sat", "on", "a",       "mat",
                                        "and", "she", "saw", "it", "because", "tired"};
    char *t = malloc((size_t)n * 9 + 1), *p = t;
    assert_non_null(t);
    for (int i = 0; i < n; i++)
        p += sprintf(p, "%s ", words[(i * 5 + i / 12) % 12]);
    *p = '\0';
    return t;
}

/* One configuration run whole and with weights_only into the same result in
 * turn: the same Q, K and weights bit for bit (and V below the last layer),
 * and a weights-only run's V and outputs NULL (not stale numbers a view
 * could read). */
static void check_weights_only(ModelConfig c, const char *text)
{
    ModelWeights w = {0};
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    ModelResult whole = {0}, part = {0};
    size_t len = strlen(text);
    c.weights_only = false;
    assert_int_equal(model_run(&c, &w, text, len, NULL, 0, &whole), AV_OK);
    for (int round = 0; round < 2; round++) { /* twice: weights only, then whole again */
        c.weights_only = true;
        assert_int_equal(model_run(&c, &w, text, len, NULL, 0, &part), AV_OK);
        const int L = c.layers, n = part.shape.n_q, d = c.d_model;
        const size_t nn = (size_t)c.H * n * n;
        assert_int_equal(n, whole.shape.n_q);
        assert_null(part.out);
        assert_null(part.layer[L - 1].ab.V);
        assert_null(part.layer[L - 1].ab.concat);
        assert_null(part.layer[L - 1].ab.out);
        for (int l = 0; l < L; l++) {
            const AttnBuffers *a = &whole.layer[l].ab, *b = &part.layer[l].ab;
            assert_memory_equal(a->Q, b->Q, sizeof(float) * n * d);
            assert_memory_equal(a->K, b->K, sizeof(float) * n * d);
            if (l < L - 1)
                assert_memory_equal(a->V, b->V, sizeof(float) * n * d);
            if (a->P) {
                assert_memory_equal(a->P, b->P, sizeof(float) * nn);
            } else { /* past the budget: rows on demand, from the same Q and K */
                float *ra = malloc(sizeof *ra * n), *rb = malloc(sizeof *rb * n);
                assert_non_null(ra), assert_non_null(rb);
                for (int i = 0; i < n; i += n / 7 + 1)
                    assert_memory_equal(model_head_row(&whole, l, c.H - 1, i, ra),
                                        model_head_row(&part, l, c.H - 1, i, rb),
                                        sizeof(float) * n);
                free(ra), free(rb);
            }
            if (l < L - 1) /* the layers below still hand theirs on */
                assert_memory_equal(whole.layer[l].x_out, part.layer[l].x_out,
                                    sizeof(float) * n * d);
        }
        c.weights_only = false; /* the same result whole again: outputs back */
        assert_int_equal(model_run(&c, &w, text, len, NULL, 0, &part), AV_OK);
        assert_non_null(part.out);
        assert_memory_equal(whole.out, part.out, sizeof(float) * n * d);
    }
    model_result_free(&whole);
    model_result_free(&part);
    model_weights_free(&w);
}

static void test_model_weights_only_same_weights(void **state)
{
    (void)state;
    /* The interface runs up to the weights while typing on the heatmaps: every
     * path (a sentence's kernel, the packed heads on two threads, several
     * layers, the on-demand rows of a text past the budget), mask off and on. */
    char *long_text = words_text(700);
    for (int causal = 0; causal < 2; causal++) {
        ModelConfig c;
        model_config_default(&c);
        c.causal = causal;
        check_weights_only(c, cat_text);
        check_weights_only(c, long_text);
        c.layers = 3;
        check_weights_only(c, cat_text);
        check_weights_only(c, long_text);
        model_config_default(&c);
        model_config_designed(&c);
        c.causal = causal;
        check_weights_only(c, cat_text);
        check_weights_only(c, long_text);
        c.weights_budget = 1e6; /* 6 x 700 x 700 floats are past it */
        check_weights_only(c, long_text);
    }
    free(long_text);
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
        cmocka_unit_test(test_model_weights_overflow),
        cmocka_unit_test(test_model_import_backs_results),
        cmocka_unit_test(test_model_weights_only_same_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
