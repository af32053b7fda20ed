/* test_combview.c - the combining views' rules without a terminal
 * (app/combview.h): the keys' cycle, what is refused and why, which actions
 * leave a combining view for the plain weights, and the status line.
 */
#include "test_common.h"

#include <string.h>

#include "app/combview.h"
#include "core/av.h"

/* A kind that refuses the norms (imported attention's way). */
static int no_run(Kind *k, const ModelConfig *c, const char *text, size_t len,
                  const char *cross, size_t cross_len, ModelResult *r)
{
    (void)k, (void)c, (void)text, (void)len, (void)cross, (void)cross_len;
    r->shape.n_q = 0;
    return AV_ERR_CONFIG;
}

static const char *no_norms(const Kind *k, KindAsk ask)
{
    (void)k;
    return ask == KIND_ASK_NORMS ? "no V or W_O here" : NULL;
}

static const KindClass no_norms_class = {.name = "fake", .run = no_run, .refuses = no_norms};

static void test_comb_keys_cycle(void **state)
{
    /* expect: A goes weights, mean, max, sum, weights; O and V turn their
     * view on from any other and off (to the weights) from themselves;
     * another key is none of theirs; mean, max, sum and rollout show one
     * head a layer, the weights and the norms every head */
    (void)state;
    CombMode m = COMB_WEIGHTS, seen[5];
    for (int k = 0; k < 5; k++) {
        seen[k] = m;
        assert_true(comb_next(m, ACT_COMBINE_HEADS, &m));
    }
    assert_int_equal(seen[1], COMB_MEAN);
    assert_int_equal(seen[2], COMB_MAX);
    assert_int_equal(seen[3], COMB_SUM);
    assert_int_equal(seen[4], COMB_WEIGHTS);
    assert_true(comb_next(COMB_MAX, ACT_ROLLOUT, &m));
    assert_int_equal(m, COMB_ROLLOUT);
    assert_true(comb_next(COMB_ROLLOUT, ACT_ROLLOUT, &m));
    assert_int_equal(m, COMB_WEIGHTS);
    assert_true(comb_next(COMB_ROLLOUT, ACT_NORMS, &m));
    assert_int_equal(m, COMB_NORMS);
    assert_true(comb_next(COMB_NORMS, ACT_NORMS, &m));
    assert_int_equal(m, COMB_WEIGHTS);
    assert_true(comb_next(COMB_NORMS, ACT_COMBINE_HEADS, &m));
    assert_int_equal(m, COMB_MEAN);
    m = COMB_SUM;
    assert_false(comb_next(m, ACT_HEAD_NEXT, &m));
    assert_int_equal(m, COMB_SUM);
    assert_false(comb_one_head(COMB_WEIGHTS));
    assert_true(comb_one_head(COMB_MEAN) && comb_one_head(COMB_MAX) && comb_one_head(COMB_SUM));
    assert_true(comb_one_head(COMB_ROLLOUT));
    assert_false(comb_one_head(COMB_NORMS));
}

static void test_comb_refusals_and_reasons(void **state)
{
    /* expect: the norms are refused with the kind's own reason and allowed
     * on the pipeline; the rollout is refused without self-attention (3
     * queries on 4 keys) with its line, allowed on 4 and 4; heads combined
     * are never refused */
    (void)state;
    ModelWeights w;
    ModelConfig c;
    model_config_default(&c);
    assert_int_equal(model_weights_toy(&c, &w), AV_OK);
    Kind pipe, imp = {.cls = &no_norms_class};
    kind_pipeline_open(&pipe, &w);
    AppState s;
    memset(&s, 0, sizeof s);
    s.n_q = 4, s.n_k = 4;
    assert_null(comb_refuses(COMB_NORMS, &pipe, &s));
    assert_string_equal(comb_refuses(COMB_NORMS, &imp, &s), "no V or W_O here");
    assert_null(comb_refuses(COMB_ROLLOUT, &imp, &s));
    s.n_q = 3;
    assert_string_equal(comb_refuses(COMB_ROLLOUT, &pipe, &s),
                        "rollout needs self-attention (as many queries as keys)");
    assert_null(comb_refuses(COMB_MEAN, &imp, &s));
    assert_null(comb_refuses(COMB_WEIGHTS, &imp, &s));
    kind_close(&pipe);
    model_weights_free(&w);
}

static void test_comb_leaves_and_messages(void **state)
{
    /* expect: what changes or needs the model (editing, typing, the mask,
     * settings, examples, g, the trace, another view) leaves a combining
     * view; moving over heads, layers and rows does not; each switch says
     * what is shown and the key back */
    (void)state;
    Action leave[] = {ACT_EDIT,   ACT_MASK,     ACT_SEED_INC, ACT_SENT_NEXT,
                      ACT_GENERATE, ACT_TRACE, ACT_VIEW,     ACT_CROSS};
    for (size_t k = 0; k < sizeof leave / sizeof *leave; k++)
        assert_true(comb_leaves(leave[k], false));
    assert_true(comb_leaves(ACT_NONE, true));
    assert_false(comb_leaves(ACT_NONE, false));
    assert_false(comb_leaves(ACT_HEAD_NEXT, false));
    assert_false(comb_leaves(ACT_LAYER_NEXT, false));
    assert_false(comb_leaves(ACT_COMBINE_HEADS, false));
    char msg[128];
    comb_message(COMB_ROLLOUT, msg, sizeof msg);
    assert_string_equal(msg, "showing attention rollout (O: back to the weights)");
    comb_message(COMB_MAX, msg, sizeof msg);
    assert_string_equal(msg, "showing heads combined: max over heads (A: next)");
    comb_message(COMB_NORMS, msg, sizeof msg);
    assert_string_equal(msg, "showing value-weighted norms (row shares) (V: back to the weights)");
    comb_message(COMB_WEIGHTS, msg, sizeof msg);
    assert_string_equal(msg, "showing the weights");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comb_keys_cycle),
        cmocka_unit_test(test_comb_refusals_and_reasons),
        cmocka_unit_test(test_comb_leaves_and_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
