/* test_headscan.c - every head of a kind scored on random repeated
 * sequences (app/headscan.h): the shipped induction model's induction head
 * is found in layer 2 and its previous-token head in layer 1; run_ids gives
 * the weights the text of the same tokens gives (the pipeline, a trained
 * model); the probes are the seed's. Run from the repository root (the
 * shipped model is read from assets/models/induction).
 */
#include "test_common.h"

#include <string.h>

#include "app/headscan.h"
#include "core/av.h"
#include "io/weights.h"

static void test_headscan_finds_the_induction_head(void **state)
{
    (void)state;
    Kind k;
    char why[256];
    assert_int_equal(kind_trained_load(&k, "assets/models/induction", why, sizeof why), AV_OK);
    ModelConfig c;
    model_config_default(&c);
    kind_config(&k, &c);
    assert_null(headscan_refuses(&k, &c));
    HeadScan s = {0};
    assert_int_equal(headscan_run(&k, &c, HEADSCAN_SEED, &s), AV_OK);
    assert_int_equal(s.L, 2);
    assert_int_equal(s.H, 2);
    assert_int_equal(s.P, 16); /* context 32: a segment of 16 and its repetition */
    /* the induction head is in layer 2 and attends to the token after the
     * earlier occurrence most of the time; layer 1 holds the previous-token head */
    int b = s.best[HEADSCORE_INDUCTION];
    assert_int_equal(b / s.H, 1);
    assert_true(headscore_value(&s.t[b], HEADSCORE_INDUCTION) > 0.5f);
    assert_int_equal(s.best[HEADSCORE_PREV] / s.H, 0);
    /* each probe is a segment of distinct ids (V = 26 >= 16) and one repetition */
    for (int q = 0; q < s.seqs; q++) {
        const int *ids = s.ids + q * 2 * s.P;
        for (int i = 0; i < s.P; i++) {
            assert_int_equal(ids[i], ids[i + s.P]);
            for (int j = 0; j < i; j++)
                assert_int_not_equal(ids[i], ids[j]);
        }
    }
    /* the same seed, the same scores */
    HeadScan again = {0};
    assert_int_equal(headscan_run(&k, &c, HEADSCAN_SEED, &again), AV_OK);
    assert_memory_equal(s.t, again.t, sizeof *s.t * 4);
    headscan_free(&again);
    headscan_free(&s);
    assert_null(s.t);
    kind_close(&k);
}

static void test_run_ids_equals_the_text(void **state)
{
    (void)state;
    /* the trained model: ids 0 1 2 0 1 are the letters "abcab" */
    Kind k;
    char why[256];
    assert_int_equal(kind_trained_load(&k, "assets/models/induction", why, sizeof why), AV_OK);
    ModelConfig c;
    model_config_default(&c);
    kind_config(&k, &c);
    ModelResult a = {0}, b = {0};
    static const int ids[5] = {0, 1, 2, 0, 1};
    assert_int_equal(kind_run_ids(&k, &c, ids, 5, &a), AV_OK);
    assert_int_equal(kind_run(&k, &c, "abcab", 5, NULL, 0, &b), AV_OK);
    assert_int_equal(a.shape.n_q, 5);
    assert_string_equal(a.tokens.tok[2].str, "c");
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++)
            assert_memory_equal(model_head_P(&a, l, h), model_head_P(&b, l, h), 25 * 4);
    static const int out_of_range[2] = {0, 26};
    assert_int_equal(kind_run_ids(&k, &c, out_of_range, 2, &a), AV_ERR_CONFIG);
    kind_close(&k);

    /* the pipeline: id i is a word of three letters, 27 = "abb" */
    ModelConfig pc;
    model_config_default(&pc);
    ModelWeights w;
    assert_int_equal(model_weights_toy(&pc, &w), AV_OK);
    Kind p;
    kind_pipeline_open(&p, &w);
    int V, n_max;
    assert_true(kind_vocab(&p, &pc, &V, &n_max));
    assert_int_equal(V, 1000);
    assert_int_equal(n_max, pc.max_tokens);
    static const int pids[3] = {0, 1, 27};
    assert_int_equal(kind_run_ids(&p, &pc, pids, 3, &a), AV_OK);
    assert_int_equal(kind_run(&p, &pc, "aaa aab abb", 11, NULL, 0, &b), AV_OK);
    assert_string_equal(a.tokens.tok[2].str, "abb");
    for (int h = 0; h < pc.H; h++)
        assert_memory_equal(model_head_P(&a, 0, h), model_head_P(&b, 0, h), 9 * 4);
    kind_close(&p);
    model_result_free(&a), model_result_free(&b);
    model_weights_free(&w);
}

/* Weights with X.npy (assets/seed001: 3 tokens) embed only the text's own
 * tokens: no ids to probe, and f says why rather than "the .npy array does
 * not have the required shape" after a failed scan. */
static void test_x_npy_weights_refused(void **state)
{
    (void)state;
    ModelConfig c;
    model_config_default(&c);
    c.d_model = 4, c.H = 2, c.preset = PRESET_LOADED;
    ModelWeights w;
    const char *which = NULL;
    assert_int_equal(weights_load(&c, "assets/seed001", &w, &which), AV_OK);
    assert_non_null(w.X);
    Kind p;
    kind_pipeline_open(&p, &w);
    int V, n_max;
    assert_false(kind_vocab(&p, &c, &V, &n_max));
    assert_string_equal(headscan_refuses(&p, &c),
                        "head scores run random token sequences: X.npy embeds only the text's own "
                        "tokens");
    kind_close(&p);
    model_weights_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headscan_finds_the_induction_head),
        cmocka_unit_test(test_run_ids_equals_the_text),
        cmocka_unit_test(test_x_npy_weights_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
