/* test_combview.c - the combining views' rules without a terminal
 * (app/combview.h): the keys' cycle, what is refused and why, which actions
 * leave a combining view for the plain weights, the status line, and the
 * model's heads and labels a combining view keeps (comb_set).
 */
#include "test_common.h"

#include <string.h>

#include "app/combview.h"
#include "core/av.h"

/* A kind that refuses the norms (imported attention's way). */
static int no_run(Kind *k, const ModelConfig *c, const char *text, size_t len, const char *cross,
                  size_t cross_len, ModelResult *r)
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
    Action leave[] = {ACT_EDIT,     ACT_MASK,  ACT_SEED_INC, ACT_SENT_NEXT,
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

static void test_comb_set_keeps_the_models_heads(void **state)
{
    /* expect: with the model's 3 layers of 4 heads, head 3 focused and its
     * own labels, mean -> norms -> rollout -> max -> weights gives H 1 head
     * 0, then 4 and 3, then 1 and 0 again; the labels name each view (the
     * rollout's layer by layer) and the model's come back at the end, never
     * a combining view's own; the rows summed are cleared at each switch;
     * comb_input refuses the norms on a kind without V or W_O, mode kept */
    (void)state;
    static const char *const own[12] = {"L1H1", "L1H2", "L1H3", "L1H4"};
    static CombView cv; /* zero: the weights */
    AppState s;
    memset(&s, 0, sizeof s);
    s.cfg.layers = 3, s.cfg.H = 4, s.head = 3, s.cfg.head_labels = own;
    s.n_q = s.n_k = 5;
    CombMode path[] = {COMB_MEAN, COMB_NORMS, COMB_ROLLOUT, COMB_MAX, COMB_WEIGHTS};
    int want_H[] = {1, 4, 1, 1, 4};
    for (int k = 0; k < 5; k++) {
        s.n_multi = 2;
        comb_set(&cv, &s, path[k]);
        assert_int_equal(cv.mode, path[k]);
        assert_int_equal(s.cfg.H, want_H[k]);
        assert_int_equal(s.head, want_H[k] == 1 ? 0 : 3);
        assert_int_equal(s.n_multi, 0);
        assert_true(cv.saved_labels == own);
        if (path[k] == COMB_ROLLOUT)
            assert_string_equal(s.cfg.head_labels[2], "rollout of layers 1-3 (4 heads averaged)");
        else if (path[k] == COMB_NORMS)
            assert_string_equal(s.cfg.head_labels[s.cfg.layers * s.cfg.H - 1], comb_name(path[k]));
        else if (path[k] != COMB_WEIGHTS) /* "4 heads combined: mean", "...: max" */
            assert_string_equal(s.cfg.head_labels[s.cfg.layers * s.cfg.H - 1],
                                path[k] == COMB_MEAN ? "4 heads combined: mean"
                                                     : "4 heads combined: max");
    }
    assert_true(s.cfg.head_labels == own);
    Kind imp = {.cls = &no_norms_class};
    unsigned flags = 0;
    assert_int_equal(comb_input(&cv, &imp, &s, ACT_NORMS, false, &flags), 1);
    assert_string_equal(s.msg, "no V or W_O here");
    assert_int_equal(cv.mode, COMB_WEIGHTS);
    assert_int_equal(flags, 0);
}

/* Issue 35: a combining view never reads as "heads 1 d_k 192". */
static void test_comb_labels_tell_the_truth(void **state)
{
    /* expect: a 6-head model of d_model 192, 2 layers: the status line
     * says "heads 6  d_k 32" on the weights, "6 heads combined  d_k 32" on
     * mean, max and sum, "6 heads rolled out  d_k 32" on the rollout; the
     * title is "Head 5 of 6" on the weights and the view's label otherwise
     * ("6 heads combined: sum", "Rollout of layers 1-2 (6 heads
     * averaged)"); a full cell is 6 on the sum, 1 elsewhere; imported
     * attention (no d_model) has no d_k */
    (void)state;
    static CombView cv;
    AppState s;
    memset(&s, 0, sizeof s);
    s.cfg.layers = 2, s.cfg.H = 6, s.cfg.d_model = 192, s.head = 4, s.layer = 1;
    s.n_q = s.n_k = 5;
    char buf[128];
    comb_heads_text(&cv, &s, "  ", false, buf, sizeof buf);
    assert_string_equal(buf, "heads 6  d_k 32");
    comb_heads_text(&cv, &s, "  ", true, buf, sizeof buf); /* a lesson asks for d_k */
    assert_string_equal(buf, "heads 6  d_k ?");
    comb_head_title(&cv, &s, buf, sizeof buf);
    assert_string_equal(buf, "Head 5 of 6");
    assert_true(comb_full(&cv) == 1.0f);
    static const char *const title[] = {"", "6 heads combined: mean", "6 heads combined: max",
                                        "6 heads combined: sum"};
    for (CombMode m = COMB_MEAN; m <= COMB_SUM; m++) {
        comb_set(&cv, &s, m);
        assert_int_equal(s.cfg.H, 1);
        comb_heads_text(&cv, &s, " | ", false, buf, sizeof buf);
        assert_string_equal(buf, "6 heads combined | d_k 32");
        comb_head_title(&cv, &s, buf, sizeof buf);
        assert_string_equal(buf, title[m]);
        assert_true(comb_full(&cv) == (m == COMB_SUM ? 6.0f : 1.0f));
        assert_int_equal(comb_model_heads(&cv, &s), 6);
    }
    comb_set(&cv, &s, COMB_ROLLOUT);
    comb_heads_text(&cv, &s, "  ", false, buf, sizeof buf);
    assert_string_equal(buf, "6 heads rolled out  d_k 32");
    comb_head_title(&cv, &s, buf, sizeof buf);
    assert_string_equal(buf, "Rollout of layers 1-2 (6 heads averaged)");
    assert_true(comb_full(&cv) == 1.0f);
    comb_set(&cv, &s, COMB_SINK); /* a view of every head: its own name, heads as they are */
    assert_int_equal(s.cfg.H, 6);
    assert_string_equal(s.cfg.head_labels[2 * 6 - 1], comb_name(COMB_SINK));
    comb_heads_text(&cv, &s, "  ", false, buf, sizeof buf);
    assert_string_equal(buf, "heads 6  d_k 32");
    comb_set(&cv, &s, COMB_WEIGHTS);
    s.cfg.preset = PRESET_IMPORTED, s.cfg.d_model = 0;
    comb_set(&cv, &s, COMB_MEAN);
    comb_heads_text(&cv, &s, "  ", false, buf, sizeof buf);
    assert_string_equal(buf, "6 heads combined");
    comb_set(&cv, &s, COMB_WEIGHTS);
    comb_heads_text(&cv, &s, "  ", false, buf, sizeof buf);
    assert_string_equal(buf, "heads 6");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comb_keys_cycle),
        cmocka_unit_test(test_comb_refusals_and_reasons),
        cmocka_unit_test(test_comb_leaves_and_messages),
        cmocka_unit_test(test_comb_set_keeps_the_models_heads),
        cmocka_unit_test(test_comb_labels_tell_the_truth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
