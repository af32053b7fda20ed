/* test_infer.c - saved models run forward: a saved and loaded model gives
 * the trainer's attention bit for bit, text is encoded in the model's
 * vocabulary (an unknown piece named), generation is seeded, and a broken
 * folder is one line naming the file.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "train/infer.h"
#include "train/trainer.h"
#include "test_tmp.h"

/* A trained (a few steps) text model saved to dir; the trainer stays up. */
static void trained(Task *task, Trainer *tr, ModelSpec *s, const char *dir, bool ln)
{
    char why[128], which[64];
    const char *text = "the cat sat on the mat; the dog sat on the log. ÿ";
    TrainConfig c;
    trainer_config_default(&c);
    c.batch = 2;
    assert_int_equal(task_init(task, "text", text, strlen(text), why, sizeof why), AV_OK);
    assert_int_equal(
        trainer_spec(task, 2, 2, 16, 12, ln ? 20 : 0, ln, MODEL_PE_LEARNED, MODEL_ACT_GELU, s),
        AV_OK);
    assert_int_equal(trainer_init(tr, task, s, &c), AV_OK);
    for (int k = 0; k < 3; k++)
        trainer_step(tr);
    assert_int_equal(trainer_save(tr, dir, NULL, which, sizeof which), AV_OK);
}

static void test_infer_same_attention_after_load(void **state)
{
    Task task;
    Trainer tr;
    ModelSpec s;
    Net net;
    char why[256];
    trained(&task, &tr, &s, tmp_dir(state), true);
    assert_int_equal(infer_load(&net, tmp_dir(state), why, sizeof why), AV_OK);
    int ids[12];
    for (int i = 0; i < 12; i++)
        ids[i] = (i * 5) % task.V;
    assert_int_equal(net_forward(&tr.net, ids, NULL, NULL, 1, 12, NULL), AV_OK);
    assert_int_equal(infer_run(&net, ids, 12), AV_OK);
    for (int l = 0; l < 2; l++)
        for (int h = 0; h < 2; h++)
            assert_memory_equal(net_weights(&tr.net, l, 0, h), net_weights(&net, l, 0, h),
                                144 * sizeof(float));
    assert_memory_equal(tr.net.logits, net.logits, 12 * task.V * sizeof(float));
    net_free(&net);
    trainer_free(&tr);
    modelfile_spec_free(&s);
    task_free(&task);
}

static void test_infer_encode(void **state)
{
    Task task;
    Trainer tr;
    ModelSpec s;
    int ids[64], n;
    char bad[16], buf[64];
    trained(&task, &tr, &s, tmp_dir(state), false);
    const char *t = "the dog ÿ";
    assert_int_equal(infer_encode(&s, t, strlen(t), ids, 64, &n, bad, sizeof bad), AV_OK);
    assert_int_equal(n, 9);
    assert_int_equal(infer_decode(&s, ids, n, buf, sizeof buf), strlen(t));
    assert_string_equal(buf, t);
    assert_int_equal(infer_encode(&s, "the zebra", 9, ids, 64, &n, bad, sizeof bad), AV_ERR_VOCAB);
    assert_string_equal(bad, "z");
    assert_int_equal(infer_encode(&s, "the", 3, ids, 2, &n, bad, sizeof bad), AV_ERR_TOO_MANY);
    assert_int_equal(infer_encode(&s, "a\xc3", 2, ids, 64, &n, bad, sizeof bad), AV_ERR_UTF8);
    /* words: split at whitespace */
    char *words[] = {"the", "king", "."};
    ModelSpec w = s;
    w.tokenizer = MODEL_TOK_WORDS, w.V = 3, w.vocab = words;
    assert_int_equal(infer_encode(&w, " the king  .\n", 13, ids, 64, &n, bad, sizeof bad), AV_OK);
    assert_int_equal(n, 3);
    assert_int_equal(ids[1], 1);
    infer_decode(&w, ids, 3, buf, sizeof buf);
    assert_string_equal(buf, "the king .");
    assert_int_equal(infer_encode(&w, "the queen", 9, ids, 64, &n, bad, sizeof bad), AV_ERR_VOCAB);
    assert_string_equal(bad, "queen");
    trainer_free(&tr);
    modelfile_spec_free(&s);
    task_free(&task);
}

static void test_infer_generate(void **state)
{
    Task task;
    Trainer tr;
    ModelSpec s;
    Net net;
    char why[256];
    trained(&task, &tr, &s, tmp_dir(state), false);
    assert_int_equal(infer_load(&net, tmp_dir(state), why, sizeof why), AV_OK);
    int a[40] = {1, 2, 3}, b[40] = {1, 2, 3}, c[40] = {1, 2, 3};
    /* longer than the context: the model slides over the last 12 tokens */
    assert_int_equal(infer_generate(&net, a, 3, 30, 1.0f, 5, 77), AV_OK);
    assert_int_equal(infer_generate(&net, b, 3, 30, 1.0f, 5, 77), AV_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(net.n, 12);
    /* temperature 0 and top-k 1 both take the most likely token */
    assert_int_equal(infer_generate(&net, b, 3, 10, 0.0f, 0, 1), AV_OK);
    assert_int_equal(infer_generate(&net, c, 3, 10, 2.0f, 1, 2), AV_OK);
    assert_memory_equal(b, c, 13 * sizeof(int));
    for (int i = 3; i < 13; i++) { /* and it is the argmax of the logits */
        infer_run(&net, b, i);
        const float *row = net.logits + (net.n - 1) * task.V;
        for (int v = 0; v < task.V; v++)
            assert_true(row[v] <= row[b[i]]);
    }
    net_free(&net);
    trainer_free(&tr);
    modelfile_spec_free(&s);
    task_free(&task);
}

static void test_infer_broken_folder(void **state)
{
    Task task;
    Trainer tr;
    ModelSpec s;
    Net net;
    char why[512], path[512];
    trained(&task, &tr, &s, tmp_dir(state), false);
    snprintf(path, sizeof path, "%s/layer2/Wv.npy", tmp_dir(state));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(infer_load(&net, tmp_dir(state), why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "layer2/Wv.npy"));
    assert_null(strchr(why, '\n'));
    net_free(&net);
    trainer_free(&tr);
    modelfile_spec_free(&s);
    task_free(&task);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_infer_same_attention_after_load, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_infer_encode, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_infer_generate, tmp_setup, tmp_teardown),
        cmocka_unit_test_setup_teardown(test_infer_broken_folder, tmp_setup, tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
