/* test_sample.c - the one sampler (core/sample.h): the most probable tokens
 * with their probabilities, greedy choice and its ties, seeded draws that
 * repeat, top-k, and draws whose frequencies follow the softmax.
 */
#include "test_common.h"

#include <math.h>

#include "core/rng.h"
#include "core/sample.h"

static void test_sample_top_k(void **state)
{
    /* expect: the k largest logits in order with their softmax probabilities */
    (void)state;
    const float logits[6] = {1.0f, 3.0f, -2.0f, 3.0f, 0.5f, 2.0f};
    int ids[6];
    float probs[6];
    double z = 0;
    for (int v = 0; v < 6; v++)
        z += exp(logits[v] - 3.0);
    assert_int_equal(sample_top_k(logits, 6, 1.0f, 4, ids, probs), 4);
    int want[4] = {1, 3, 5, 0};
    for (int q = 0; q < 4; q++) {
        assert_int_equal(ids[q], want[q]);
        assert_float_equal(probs[q], exp(logits[want[q]] - 3.0) / z, 1e-6);
    }
    assert_int_equal(sample_top_k(logits, 6, 1.0f, 10, ids, probs), 6);
    assert_int_equal(ids[5], 2);
    /* temperature 2: probabilities of logits / 2 */
    assert_int_equal(sample_top_k(logits, 6, 2.0f, 1, ids, probs), 1);
    z = 0;
    for (int v = 0; v < 6; v++)
        z += exp((logits[v] - 3.0) / 2);
    assert_float_equal(probs[0], 1.0 / z, 1e-6);
}

static void test_sample_token(void **state)
{
    /* expect: greedy takes the largest logit (the smaller id on a tie); a
     * seeded draw repeats; top-k draws only among the k best; the draws'
     * frequencies follow the probabilities (20,000 draws, within 0.015) */
    (void)state;
    const float logits[5] = {0.0f, 1.0f, 2.0f, 2.0f, -1.0f};
    Rng a, b;
    rng_seed(&a, 5), rng_seed(&b, 5);
    Sampling greedy = {0, 0}, warm = {1.0f, 0}, top2 = {1.5f, 2};
    assert_int_equal(sample_token(logits, 5, &greedy, &a), 2);
    int count[5] = {0};
    for (int k = 0; k < 20000; k++) {
        int x = sample_token(logits, 5, &warm, &a);
        assert_int_equal(sample_token(logits, 5, &warm, &b), x);
        count[x]++;
        int y = sample_token(logits, 5, &top2, &b);
        assert_true(y == 2 || y == 3);
        rng_next(&a); /* a and b stay in step */
    }
    double z = 0;
    for (int v = 0; v < 5; v++)
        z += exp(logits[v]);
    for (int v = 0; v < 5; v++)
        assert_float_equal(count[v] / 20000.0, exp(logits[v]) / z, 0.015);
}

static void test_sample_greedy_ties_and_cuts(void **state)
{
    /* expect: a top-k of 1 is greedy whatever u is; a tie ranks the smaller
     * id first; a draw at temperature 0 consumes no random number */
    (void)state;
    const float logits[4] = {5.0f, 7.0f, 7.0f, 1.0f};
    Rng a, b, fresh;
    rng_seed(&a, 9), rng_seed(&b, 9), rng_seed(&fresh, 9);
    Sampling one = {1.0f, 1}, greedy = {0.0f, 3};
    for (int k = 0; k < 100; k++)
        assert_int_equal(sample_token(logits, 4, &one, &a), 1);
    assert_int_equal(sample_token(logits, 4, &greedy, &b), 1);
    assert_int_equal(rng_next(&b), rng_next(&fresh));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_top_k),
        cmocka_unit_test(test_sample_token),
        cmocka_unit_test(test_sample_greedy_ties_and_cuts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
