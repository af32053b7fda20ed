/* test_scores.c - head scores on a net whose attention is known exactly:
 * with W_q = W_k = 0 every score is 0, so query i spreads its weight evenly
 * over keys 0..i (1/(i+1) each) and every score has a closed form. Labels
 * and heads.txt from given scores.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/fileio.h"
#include "train/scores.h"

enum { T = 8, L = 2, H = 2 };

static void zero_qk(Net *net)
{
    for (int l = 0; l < net->spec.layers; l++) {
        memset(net->p.layer[l].Wq, 0, sizeof(float) * 8 * 8);
        memset(net->p.layer[l].Wk, 0, sizeof(float) * 8 * 8);
    }
}

static void test_scores_uniform_attention(void **state)
{
    (void)state;
    Task task;
    char why[128];
    assert_int_equal(task_init(&task, "induction", NULL, 0, why, sizeof why), AV_OK);
    ModelSpec s = {.task = "induction",
                   .V = task.V,
                   .vocab = task.vocab,
                   .d_model = 8,
                   .heads = H,
                   .layers = L,
                   .context = T,
                   .pe = MODEL_PE_SINUSOIDAL};
    Net net;
    assert_int_equal(net_init(&net, &s, 4, false), AV_OK);
    net_init_weights(&net, 1);
    zero_qk(&net);
    HeadScore hs[L * H];
    assert_int_equal(scores_measure(&net, &task, 5, hs), AV_OK);
    double uni = 0, ind = 0;
    for (int i = 1; i < T; i++)
        uni += 1.0 / (i + 1);
    uni /= T - 1;
    for (int t = T / 2; t < T; t++)
        ind += 1.0 / (t + 1);
    ind /= T / 2;
    int tok[T]; /* the views' probe: the task's own sequence, weights uniform here */
    assert_int_equal(scores_probe_weights(&net, &task, 5, tok), AV_OK);
    assert_int_equal(net.n, T);
    assert_float_equal(net_weights(&net, 1, 0, 1)[3 * T + 2], 0.25f, 1e-7);
    Batch pb;
    assert_int_equal(task_batch_init(&pb, &task, 1, T), AV_OK);
    task_batch(&task, 5, -1, &pb);
    assert_memory_equal(tok, pb.tok, sizeof tok);
    task_batch_free(&pb);
    for (int k = 0; k < L * H; k++) {
        assert_float_equal(hs[k].s[SCORE_PREV], uni, 1e-6);
        assert_float_equal(hs[k].s[SCORE_SELF], uni, 1e-6);
        assert_float_equal(hs[k].s[SCORE_FIRST], uni, 1e-6);
        assert_float_equal(hs[k].s[SCORE_INDUCTION], ind, 1e-6);
        assert_false(hs[k].has[SCORE_ANTECEDENT]);
        char label[64];
        scores_label(&hs[k], label, sizeof label);
        assert_string_equal(label, "mixed");
    }
    net_free(&net);
    task_free(&task);
}

/* The antecedent score of a grammar probe under uniform attention: the
 * mean of 1/(pronoun position + 1) over the probe's pronouns. */
static void test_scores_antecedent(void **state)
{
    (void)state;
    char *rules, why[128];
    size_t len;
    Task task;
    assert_int_equal(file_read_all("assets/grammar/grammar.txt", 1 << 20, &rules, &len), 0);
    assert_int_equal(task_init(&task, "grammar", rules, len, why, sizeof why), AV_OK);
    free(rules);
    ModelSpec s = {.task = "grammar",
                   .V = task.V,
                   .vocab = task.vocab,
                   .d_model = 8,
                   .heads = H,
                   .layers = 1,
                   .context = 18,
                   .pe = MODEL_PE_SINUSOIDAL,
                   .tokenizer = MODEL_TOK_WORDS};
    Net net;
    assert_int_equal(net_init(&net, &s, 3, false), AV_OK);
    net_init_weights(&net, 2);
    zero_qk(&net);
    HeadScore hs[H];
    assert_int_equal(scores_measure(&net, &task, 9, hs), AV_OK);
    Batch b; /* the probe scores_measure draws: the task's batch at step -1 */
    assert_int_equal(task_batch_init(&b, &task, 3, 18), AV_OK);
    task_batch(&task, 9, -1, &b);
    double want = 0, count = 0;
    for (int q = 0; q < 3; q++)
        for (int k = 0; k < 18 && b.pairs[2 * (q * 18 + k)] >= 0; k++, count++)
            want += 1.0 / (b.pairs[2 * (q * 18 + k)] + 1);
    assert_true(count > 0);
    assert_true(hs[0].has[SCORE_ANTECEDENT]);
    assert_float_equal(hs[0].s[SCORE_ANTECEDENT], want / count, 1e-6);
    task_batch_free(&b);
    net_free(&net);
    task_free(&task);
}

static void test_scores_labels(void **state)
{
    (void)state;
    HeadScore hs[2] = {0};
    for (int k = 0; k < 4; k++)
        hs[0].has[k] = hs[1].has[k] = true;
    hs[0].s[SCORE_PREV] = 0.2f, hs[0].s[SCORE_INDUCTION] = 0.834f, hs[0].s[SCORE_FIRST] = 0.1f;
    hs[1].s[SCORE_PREV] = 0.5f, hs[1].s[SCORE_SELF] = 0.3f;
    char label[64];
    scores_label(&hs[0], label, sizeof label);
    assert_string_equal(label, "induction 0.83");
    scores_label(&hs[1], label, sizeof label); /* 0.5 does not pass */
    assert_string_equal(label, "mixed");
    float v;
    assert_int_equal(scores_best(&hs[1], &v), SCORE_PREV);
    assert_float_equal(v, 0.5f, 0);
    char *txt = scores_heads_txt(hs, 1, 2);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "layer 1 head 1: induction 0.83  (previous-token 0.200, "
                                "induction 0.834, self 0.000, first-token 0.100)\n"));
    assert_non_null(strstr(txt, "layer 1 head 2: mixed  ("));
    free(txt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_uniform_attention),
        cmocka_unit_test(test_scores_antecedent),
        cmocka_unit_test(test_scores_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
