/* test_netresult.c - a tiny trained-model folder saved, opened and run as a
 * ModelResult: the result's weights are the Net's bit for bit, rows sum to 1,
 * masked cells are exactly 0, the tensors are the Net's activations, tokens
 * span the text, labels come from heads.txt, and generation is a function of
 * its seed.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <ftw.h>

#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "io/modelfile.h"
#include "train/infer.h"
#include "train/netresult.h"

static char *VOCAB[] = {"a", "b", "c", " ", "\n", "é"};
static char *WORDS[] = {"the", "cat", "sat", "."};

typedef struct {
    char dir[64];
} Fixture;

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb, (void)flag, (void)f;
    return remove(path);
}

/* Save a random model of spec s (and heads.txt when not NULL) into a new folder. */
static void save_model(Fixture *fx, ModelSpec *s, const char *heads_txt)
{
    Net net;
    char which[128];
    strcpy(fx->dir, "/tmp/attnviz_netresult.XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    assert_int_equal(net_init(&net, s, 1, false), AV_OK);
    net_init_weights(&net, 7);
    assert_int_equal(modelfile_save(fx->dir, s, net.params, heads_txt, which, sizeof which), AV_OK);
    net_free(&net);
}

static void drop_model(Fixture *fx)
{
    nftw(fx->dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static ModelSpec chars_spec(void)
{
    ModelSpec s = {.task = "test",
                   .tokenizer = MODEL_TOK_CHARS,
                   .V = 6,
                   .vocab = VOCAB,
                   .d_model = 8,
                   .heads = 2,
                   .layers = 2,
                   .context = 8,
                   .pe = MODEL_PE_SINUSOIDAL,
                   .layernorm = true,
                   .mlp = 12,
                   .activation = MODEL_ACT_GELU,
                   .seed = 5};
    return s;
}

static const char HEADS[] =
    "layer 1 head 1: previous-token 0.91  (previous-token 0.910, self 0.020)\n"
    "layer 1 head 2: mixed  (previous-token 0.100)\n"
    "layer 2 head 1: induction 0.83  (induction 0.830)\n"
    "layer 2 head 2: first-token 0.66  (first-token 0.660)\n";

/* The result equals the Net's activations, weights bit for bit. */
static void test_result_is_the_net(void **state)
{
    (void)state;
    Fixture fx;
    ModelSpec s = chars_spec();
    save_model(&fx, &s, HEADS);
    NetModel m;
    char why[256] = "", bad[16] = "";
    assert_int_equal(netresult_open(&m, fx.dir, why, sizeof why), AV_OK);
    ModelConfig c = m.cfg;
    c.keep_scores = true;
    ModelResult r = {0};
    const char text[] = "ab ca\né";
    assert_int_equal(netresult_run(&m, &c, text, strlen(text), &r, bad, sizeof bad), AV_OK);
    int n = 7, D = 8, H = 2;
    assert_int_equal(r.tokens.n, n);
    assert_int_equal(r.shape.n_q, n);
    assert_int_equal(r.shape.n_k, n);
    assert_true(r.shape.causal);
    assert_int_equal(r.L, 2);
    /* tokens: spans into the text, a visible copy of space and newline */
    assert_string_equal(r.tokens.tok[2].str, "\xe2\x90\xa3");
    assert_string_equal(r.tokens.tok[5].str, "\xe2\x86\xb5");
    assert_string_equal(r.tokens.tok[6].str, "é");
    assert_int_equal(r.tokens.tok[6].start, 6);
    assert_int_equal(r.tokens.tok[6].len, 2);
    const Net *net = &m.net;
    assert_int_equal(net->n, n);
    assert_memory_equal(r.X, net->layer[0].x, sizeof(float) * n * D);
    for (int l = 0; l < 2; l++) {
        const AttnBuffers *b = &r.layer[l].ab;
        assert_memory_equal(b->Q, net->layer[l].Q, sizeof(float) * n * D);
        assert_memory_equal(b->K, net->layer[l].K, sizeof(float) * n * D);
        assert_memory_equal(b->V, net->layer[l].V, sizeof(float) * n * D);
        assert_memory_equal(b->out, net->layer[l].attn, sizeof(float) * n * D);
        const float *next = l == 0 ? net->layer[1].x : net->x_out;
        assert_memory_equal(r.layer[l].x_out, next, sizeof(float) * n * D);
        for (int h = 0; h < H; h++) {
            const float *P = model_head_P(&r, l, h);
            assert_memory_equal(P, net_weights(net, l, 0, h), sizeof(float) * n * n);
            for (int i = 0; i < n; i++) {
                double sum = 0;
                for (int j = 0; j < n; j++) {
                    float w = P[i * n + j];
                    sum += w;
                    if (j > i) {
                        assert_true(w == 0.0f);
                        assert_true(isinf(b->S[(size_t)h * n * n + i * n + j]));
                    }
                }
                assert_true(fabs(sum - 1.0) < 1e-5);
                /* the kept scores give the kept weights */
                float row[8];
                memcpy(row, b->S + (size_t)h * n * n + i * n, sizeof(float) * n);
                attention_softmax_row(row, n);
                for (int j = 0; j < n; j++)
                    assert_true(fabsf(row[j] - P[i * n + j]) < 1e-6f);
            }
        }
    }
    assert_ptr_equal(r.out, r.layer[1].x_out);
    /* labels from heads.txt, the toy ones untouched */
    assert_string_equal(model_head_label(&c, 0, 0), "previous-token 0.91");
    assert_string_equal(model_head_label(&c, 1, 0), "induction 0.83");
    assert_string_equal(model_head_label(&c, 1, 1), "first-token 0.66");
    ModelConfig toy;
    model_config_default(&toy);
    assert_string_equal(model_head_label(&toy, 0, 0), "random");
    model_result_free(&r);
    netresult_close(&m);
    drop_model(&fx);
}

/* Outside the vocabulary, beyond the context, a words model's spans. */
static void test_text_rules(void **state)
{
    (void)state;
    Fixture fx;
    ModelSpec s = chars_spec();
    save_model(&fx, &s, NULL);
    NetModel m;
    char why[256] = "", bad[16] = "";
    assert_int_equal(netresult_open(&m, fx.dir, why, sizeof why), AV_OK);
    assert_string_equal(model_head_label(&m.cfg, 1, 1), "trained"); /* no heads.txt */
    ModelResult r = {0};
    assert_int_equal(netresult_run(&m, &m.cfg, "abz", 3, &r, bad, sizeof bad), AV_ERR_VOCAB);
    assert_string_equal(bad, "z");
    assert_int_equal(r.shape.n_q, 0);
    assert_int_equal(netresult_run(&m, &m.cfg, "", 0, &r, bad, sizeof bad), AV_ERR_EMPTY);
    /* r was a combining view over an earlier, shorter run (issue 27: the
     * interface's heads combined, then a new text): the run replaces it
     * whole, its rows are this run's and not read through that source */
    AttnSource stale = {.L = 1, .H = 2, .n_q = 3, .n_k = 3};
    r.src = &stale;
    /* 11 characters, context 8: the last 8 */
    assert_int_equal(netresult_run(&m, &m.cfg, "abcabcabcab", 11, &r, bad, sizeof bad), AV_OK);
    assert_null(r.src);
    assert_non_null(model_head_P(&r, 0, 1));
    assert_int_equal(r.tokens.n, 8);
    assert_int_equal(m.total, 11);
    assert_int_equal(m.first, 3);
    assert_int_equal(r.tokens.tok[0].start, 3);
    model_result_free(&r);
    netresult_close(&m);
    drop_model(&fx);

    ModelSpec w = {.task = "grammar",
                   .tokenizer = MODEL_TOK_WORDS,
                   .V = 4,
                   .vocab = WORDS,
                   .d_model = 8,
                   .heads = 2,
                   .layers = 1,
                   .context = 8,
                   .pe = MODEL_PE_SINUSOIDAL};
    save_model(&fx, &w, NULL);
    assert_int_equal(netresult_open(&m, fx.dir, why, sizeof why), AV_OK);
    assert_true(netresult_generates(&m));
    const char text[] = "  the\tcat  sat .";
    assert_int_equal(netresult_run(&m, &m.cfg, text, strlen(text), &r, bad, sizeof bad), AV_OK);
    assert_int_equal(r.tokens.n, 4);
    assert_int_equal(r.tokens.tok[1].start, 6);
    assert_string_equal(r.tokens.tok[1].str, "cat");
    /* one layer: x_out is the residual stream, its own matrix, not out */
    assert_ptr_not_equal(r.layer[0].x_out, r.layer[0].ab.out);
    assert_memory_equal(r.layer[0].x_out, m.net.x_out, sizeof(float) * 4 * 8);
    assert_int_equal(netresult_run(&m, &m.cfg, "the dog", 7, &r, bad, sizeof bad), AV_ERR_VOCAB);
    assert_string_equal(bad, "dog");
    model_result_free(&r);
    netresult_close(&m);
    drop_model(&fx);
}

/* A heads.txt that does not name every head is an error naming the file. */
static void test_bad_heads(void **state)
{
    (void)state;
    Fixture fx;
    ModelSpec s = chars_spec();
    save_model(&fx, &s, "layer 1 head 1: mixed  (self 0.1)\n");
    NetModel m;
    char why[256] = "";
    assert_int_equal(netresult_open(&m, fx.dir, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "heads.txt"));
    drop_model(&fx);
    save_model(&fx, &s, "this is not a heads file\n");
    assert_int_equal(netresult_open(&m, fx.dir, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "heads.txt"));
    drop_model(&fx);
}

/* Generation: the same seed, the same tokens; the prompt kept. */
static void test_generate(void **state)
{
    (void)state;
    Fixture fx;
    ModelSpec s = chars_spec();
    s.context = 32;
    save_model(&fx, &s, NULL);
    NetModel m;
    char why[256] = "", bad[16] = "";
    assert_int_equal(netresult_open(&m, fx.dir, why, sizeof why), AV_OK);
    char *a, *b, *c;
    size_t ca, cb, cc;
    assert_int_equal(netresult_generate(&m, "abc", 3, 20, 1.0f, 0, 11, &a, &ca, bad, 16), AV_OK);
    assert_int_equal(netresult_generate(&m, "abc", 3, 20, 1.0f, 0, 11, &b, &cb, bad, 16), AV_OK);
    assert_int_equal(netresult_generate(&m, "abc", 3, 20, 1.0f, 0, 12, &c, &cc, bad, 16), AV_OK);
    assert_string_equal(a, b);
    assert_int_equal(ca, 3);
    assert_memory_equal(a, "abc", 3);
    assert_true(strcmp(a, c) != 0); /* 20 draws over 6 tokens: another seed differs */
    /* the whole sequence runs: 23 tokens */
    ModelResult r = {0};
    assert_int_equal(netresult_run(&m, &m.cfg, a, strlen(a), &r, bad, 16), AV_OK);
    assert_int_equal(r.tokens.n, 23);
    free(a), free(b), free(c);
    assert_int_equal(netresult_generate(&m, "abx", 3, 2, 1.0f, 0, 1, &a, &ca, bad, 16),
                     AV_ERR_VOCAB);
    assert_null(a);
    model_result_free(&r);
    netresult_close(&m);
    drop_model(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_result_is_the_net),
        cmocka_unit_test(test_text_rules),
        cmocka_unit_test(test_bad_heads),
        cmocka_unit_test(test_generate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
