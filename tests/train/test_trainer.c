/* test_trainer.c - training works: for fixed seeds the induction head forms
 * in layer 2 (score >= 0.5 within 400 steps on at least 4 of 5 seeds) and a
 * 1-layer model trained the same way forms none and cannot copy (the issue's
 * control); the loop is deterministic; bad settings are refused.
 */
#include "test_common.h"

#include <string.h>

#include "core/av.h"
#include "core/mat.h"
#include "train/trainer.h"

#define CHECK_EVERY 25

/* Train the induction model (layers L) from seed; returns the step
 * at which a last-layer head's induction score first reached 0.5, or 0. */
static long train_induction(const Task *task, int L, uint64_t seed, long steps, double *loss)
{
    ModelSpec s;
    Trainer tr;
    TrainConfig c;
    HeadScore hs[2 * 2];
    long passed = 0;
    trainer_config_default(&c);
    c.seed = seed;
    assert_int_equal(
        trainer_spec(task, L, 2, 32, 32, 0, false, MODEL_PE_SINUSOIDAL, MODEL_ACT_GELU, &s), AV_OK);
    assert_int_equal(trainer_init(&tr, task, &s, &c), AV_OK);
    while (!passed && tr.step < steps) {
        assert_int_equal(trainer_step(&tr), AV_OK);
        if (tr.step % CHECK_EVERY)
            continue;
        assert_int_equal(trainer_scores(&tr, hs), AV_OK);
        for (int h = 0; h < 2; h++)
            if (hs[(L - 1) * 2 + h].s[SCORE_INDUCTION] >= 0.5f)
                passed = tr.step;
    }
    *loss = tr.loss;
    trainer_free(&tr);
    modelfile_spec_free(&s);
    return passed;
}

static void test_trainer_induction_head_forms(void **state)
{
    (void)state;
    Task task;
    char why[128];
    double loss;
    int formed = 0;
    mat_set_threads(1);
    assert_int_equal(task_init(&task, "induction", NULL, 0, why, sizeof why), AV_OK);
    for (uint64_t seed = 1; seed <= 5 && formed < 4; seed++) {
        long at = train_induction(&task, 2, seed, 400, &loss);
        print_message("seed %d: induction head %s%ld (loss %.3f)\n", (int)seed,
                      at ? "at step " : "not formed ", at, loss);
        formed += at > 0;
    }
    assert_true(formed >= 4);
    task_free(&task);
}

static void test_trainer_one_layer_control(void **state)
{
    (void)state;
    Task task;
    char why[128];
    double loss;
    assert_int_equal(task_init(&task, "induction", NULL, 0, why, sizeof why), AV_OK);
    long at = train_induction(&task, 1, 1, 400, &loss);
    print_message("1 layer: %s, copy loss %.3f after 400 steps\n", at ? "formed" : "no head", loss);
    assert_int_equal(at, 0);
    assert_true(loss > 1.5);
    task_free(&task);
}

static void test_trainer_deterministic(void **state)
{
    (void)state;
    Task task;
    char why[128];
    ModelSpec s;
    Trainer a, b;
    TrainConfig c;
    trainer_config_default(&c);
    c.batch = 4, c.threads = 1;
    assert_int_equal(task_init(&task, "copy", NULL, 0, why, sizeof why), AV_OK);
    assert_int_equal(
        trainer_spec(&task, 2, 2, 16, 16, 24, true, MODEL_PE_LEARNED, MODEL_ACT_GELU, &s), AV_OK);
    assert_int_equal(trainer_init(&a, &task, &s, &c), AV_OK);
    assert_int_equal(trainer_init(&b, &task, &s, &c), AV_OK);
    for (int k = 0; k < 5; k++) {
        trainer_step(&a);
        trainer_step(&b);
    }
    assert_memory_equal(a.net.params, b.net.params, a.net.layout.total * sizeof(float));
    assert_int_equal(a.step, 5);
    /* the step's accuracy (from the forward's net->best) is task_accuracy's */
    assert_true(task_accuracy(&a.batch, a.net.logits, a.net.spec.V) == a.accuracy);
    /* two threads: the same bits */
    Trainer t2;
    c.threads = 2;
    assert_int_equal(trainer_init(&t2, &task, &s, &c), AV_OK);
    for (int k = 0; k < 5; k++)
        trainer_step(&t2);
    assert_memory_equal(a.net.params, t2.net.params, a.net.layout.total * sizeof(float));
    trainer_free(&t2);
    c.threads = 1;
    assert_int_equal(a.net.spec.steps, 5);
    trainer_free(&a);
    trainer_free(&b);
    c.lr = 0.0f;
    assert_int_equal(trainer_init(&a, &task, &s, &c), AV_ERR_CONFIG);
    s.context = 1;
    c.lr = 1e-3f;
    assert_int_equal(trainer_init(&a, &task, &s, &c), AV_ERR_CONFIG);
    modelfile_spec_free(&s);
    task_free(&task);
}

/* A model past the size where the optimiser's loops take two threads too
 * (about 100k parameters): one thread or two, the same bits. */
static void test_trainer_threads_same_bits_large(void **state)
{
    (void)state;
    const char *text = "the cat sat on the mat. the dog ate the fish. a bird sang.\n";
    Task task;
    char why[128];
    ModelSpec s;
    TrainConfig c;
    Trainer t[2];
    assert_int_equal(task_init(&task, "text", text, strlen(text), why, sizeof why), AV_OK);
    assert_int_equal(
        trainer_spec(&task, 2, 4, 64, 16, 256, true, MODEL_PE_SINUSOIDAL, MODEL_ACT_GELU, &s),
        AV_OK);
    for (int k = 0; k < 2; k++) {
        trainer_config_default(&c);
        c.batch = 5, c.lr = 3e-3f, c.threads = k + 1, c.seed = 3;
        assert_int_equal(trainer_init(&t[k], &task, &s, &c), AV_OK);
        for (int step = 0; step < 3; step++)
            assert_int_equal(trainer_step(&t[k]), AV_OK);
    }
    assert_true(t[0].net.layout.total >= 65536);
    assert_true(t[0].loss == t[1].loss && t[0].grad_norm == t[1].grad_norm);
    assert_memory_equal(t[0].net.params, t[1].net.params, t[0].net.layout.total * sizeof(float));
    assert_memory_equal(t[0].net.v, t[1].net.v, t[0].net.layout.total * sizeof(float));
    trainer_free(&t[0]), trainer_free(&t[1]);
    modelfile_spec_free(&s);
    task_free(&task);
}

static void test_trainer_defaults_per_task(void **state)
{
    (void)state;
    TrainDefaults d;
    trainer_defaults("induction", &d); /* the model */
    assert_int_equal(d.layers, 2), assert_int_equal(d.heads, 2);
    assert_int_equal(d.d_model, 32), assert_int_equal(d.context, 32);
    assert_int_equal(d.mlp, 0), assert_false(d.layernorm);
    assert_int_equal(d.cfg.batch, 16), assert_float_equal(d.cfg.lr, 1e-2f, 1e-9f);
    assert_int_equal(d.steps, 400), assert_int_equal(d.report, 50);
    assert_int_equal(d.cfg.threads, trainer_threads_default());
    trainer_defaults("text", &d); /* the character model of the bench */
    assert_int_equal(d.layers, 4), assert_int_equal(d.heads, 4);
    assert_int_equal(d.d_model, 64), assert_int_equal(d.context, 64);
    assert_int_equal(d.mlp, 256), assert_true(d.layernorm);
    assert_int_equal(d.activation, MODEL_ACT_GELU), assert_int_equal(d.pe, MODEL_PE_SINUSOIDAL);
    assert_float_equal(d.cfg.lr, 3e-3f, 1e-9f), assert_int_equal(d.steps, 3000);
    trainer_defaults("grammar", &d);
    assert_int_equal(d.context, 36), assert_int_equal(d.steps, 600);
    assert_int_equal(d.layers, 2), assert_int_equal(d.mlp, 0);
    trainer_defaults("sort-digits", &d);
    assert_int_equal(d.d_model, 64), assert_int_equal(d.mlp, 128);
    assert_int_equal(d.steps, 1500), assert_int_equal(d.report, 100);
    trainer_defaults(NULL, &d);
    assert_int_equal(d.d_model, 32), assert_int_equal(d.steps, 400);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trainer_induction_head_forms),
        cmocka_unit_test(test_trainer_one_layer_control),
        cmocka_unit_test(test_trainer_deterministic),
        cmocka_unit_test(test_trainer_defaults_per_task),
        cmocka_unit_test(test_trainer_threads_same_bits_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
