/* test_hfwrite.c - attnviz's own models written as Hugging Face GPT-2
 * folders (io/hfwrite.h), read back by attnviz's GPT-2 reader: the same
 * ids from GPT-2's tokenizer, the same attention and logits as the Net the
 * weights came from, within 1e-5; and the models GPT-2 cannot express
 * refused with a reason and nothing written.
 */
#include "test_common.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "test_tmp.h"

#include "core/av.h"
#include "core/bpe.h"
#include "core/gpt2.h"
#include "io/fileio.h"
#include "io/hfmodel.h"
#include "io/hfvocab.h"
#include "io/hfwrite.h"
#include "train/net.h"

/* One character a token, four of them of several bytes. */
static char *VOCAB[] = {"a",
                        "b",
                        "c",
                        " ",
                        "\n",
                        "\"",
                        "\xc3\xa9" /* é */,
                        "\xe2\x86\x92" /* → */,
                        "\xe2\x96\x88" /* █ */,
                        "\xf0\x9f\x98\x80" /* U+1F600 */};
#define NV ((int)(sizeof VOCAB / sizeof *VOCAB))
/* A text of the vocabulary and its ids */
static const char TEXT[] =
    "ab \xc3\xa9\xe2\x86\x92\xe2\x96\x88\xf0\x9f\x98\x80\nca \"b\" a\xe2\x86\x92";
static const int IDS[] = {0, 1, 3, 6, 7, 8, 9, 4, 2, 0, 3, 5, 1, 5, 3, 0, 7};
#define N ((int)(sizeof IDS / sizeof *IDS))

static ModelSpec spec_of(ModelPe pe, int mlp)
{
    return (ModelSpec){.task = "text",
                       .tokenizer = MODEL_TOK_CHARS,
                       .V = NV,
                       .vocab = VOCAB,
                       .d_model = 16,
                       .heads = 4,
                       .layers = 2,
                       .context = 24,
                       .pe = pe,
                       .layernorm = true,
                       .mlp = mlp,
                       .activation = MODEL_ACT_GELU,
                       .steps = 5,
                       .seed = 3};
}

/* Random weights, with LayerNorm gains and every bias away from 1 and 0 so
 * that a misplaced one shows. */
static void weights(Net *net)
{
    net_init_weights(net, 7);
    for (int k = 0; k < net->layout.n; k++) {
        const ModelTensor *t = &net->layout.t[k];
        if (t->ndim != 1)
            continue;
        bool gain = strstr(t->name, "_g") != NULL;
        for (size_t i = 0; i < t->count; i++)
            net->params[t->offset + i] = (gain ? 1.0f : 0.0f) + 0.4f * sinf(3.1f * k + i);
    }
}

/* Save spec's model with random weights in dir, read it back, and compare
 * the tokenizer's ids, every head's weights and every position's logits. */
static void round_trip(const char *dir, ModelPe pe, int mlp)
{
    ModelSpec s = spec_of(pe, mlp);
    Net net = {0};
    assert_int_equal(net_init(&net, &s, 1, false), AV_OK);
    weights(&net);
    char which[128], why[256];
    assert_int_equal(hfwrite_save(dir, &s, net.params, which, sizeof which), AV_OK);
    assert_int_equal(net_forward(&net, IDS, NULL, NULL, 1, N, NULL), AV_OK);

    HfModel hf = {0};
    Bpe bpe = {0};
    BpeEncoding enc = {0};
    assert_int_equal(hfmodel_open(dir, &hf, NULL, NULL, why, sizeof why), AV_OK);
    assert_int_equal(hfvocab_read_dir(dir, &bpe, why, sizeof why), AV_OK);
    assert_false(hf.tied);
    assert_int_equal(hf.w.cfg.n_vocab, NV);
    assert_int_equal(bpe_encode(&bpe, TEXT, strlen(TEXT), 100, &enc), AV_OK);
    assert_int_equal(enc.n, N);
    for (int i = 0; i < N; i++)
        assert_int_equal(enc.piece[i].id, IDS[i]);

    Gpt2State st;
    gpt2_state_init(&st);
    assert_int_equal(gpt2_forward(&hf.w, IDS, N, &st), AV_OK);
    const int L = s.layers, H = s.heads;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            const float *want = net_weights(&net, l, 0, h);
            for (int i = 0; i < N; i++) {
                const float *row = st.P + gpt2_P_offset(L, H, i) + ((size_t)l * H + h) * (i + 1);
                assert_floats_near(row, want + i * N, i + 1, 1e-5f);
            }
        }
    float logits[NV];
    for (int i = 0; i < N; i++) {
        assert_int_equal(gpt2_logits(&hf.w, &st, i, logits), AV_OK);
        assert_floats_near(logits, net.logits + (size_t)i * NV, NV, 1e-5f);
    }
    gpt2_state_free(&st);
    bpe_encoding_free(&enc);
    bpe_free(&bpe);
    hfmodel_close(&hf);
    net_free(&net);
}

/* Learned positions and a GELU MLP: GPT-2's own shape. */
static void test_hfwrite_learned_mlp_same_model(void **state)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/m", tmp_dir(state));
    round_trip(dir, MODEL_PE_LEARNED, 12);
}

/* Sinusoidal positions become the wpe table; no MLP becomes one of zeros. */
static void test_hfwrite_sinusoid_no_mlp_same_model(void **state)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/m", tmp_dir(state));
    round_trip(dir, MODEL_PE_SINUSOIDAL, 0);
}

/* No positions: wpe is zeros. A second save replaces the first. */
static void test_hfwrite_no_pe_replaces_a_save(void **state)
{
    char dir[128];
    snprintf(dir, sizeof dir, "%s/m", tmp_dir(state));
    round_trip(dir, MODEL_PE_LEARNED, 0);
    round_trip(dir, MODEL_PE_NONE, 8);
}

/* A character the model lacks is a token the tokenizer alone has: an id
 * past the model's rows (the GPT-2 kind refuses such a text). */
static void test_hfwrite_unseen_char_past_the_model(void **state)
{
    (void)state;
    ModelSpec s = spec_of(MODEL_PE_LEARNED, 0);
    char *vocab, *merges, why[256];
    int n;
    assert_int_equal(hfwrite_vocab(&s, &vocab, &merges, &n), AV_OK);
    Bpe bpe = {0};
    BpeEncoding enc = {0};
    assert_int_equal(
        hfvocab_parse(vocab, strlen(vocab), merges, strlen(merges), &bpe, why, sizeof why), AV_OK);
    assert_int_equal(bpe.n_vocab, n);
    /* 10 characters (6 of them bytes), the 250 other bytes, the 4 pieces
     * that build → █ U+1F600 (E2 86, E2 96, F0 9F, F0 9F 98), <|endoftext|> */
    assert_int_equal(n, NV + 250 + 4 + 1);
    assert_int_equal(bpe_encode(&bpe, "az\xc3\xa8", 4, 10, &enc), AV_OK);
    assert_int_equal(enc.n, 4); /* a, z, then è as its two bytes */
    assert_int_equal(enc.piece[0].id, 0);
    assert_true(enc.piece[1].id >= NV && enc.piece[2].id >= NV && enc.piece[3].id >= NV);
    bpe_encoding_free(&enc);
    bpe_free(&bpe);
    free(vocab);
    free(merges);
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* What GPT-2 lacks is refused with its reason, and nothing is written. */
static void test_hfwrite_refuses_what_gpt2_lacks(void **state)
{
    char dir[128], why[256], which[128];
    snprintf(dir, sizeof dir, "%s/m", tmp_dir(state));
    float params[1] = {0};
    ModelSpec s = spec_of(MODEL_PE_LEARNED, 8);
    s.layernorm = false;
    assert_int_equal(hfwrite_check(&s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "--layernorm"));
    assert_int_equal(hfwrite_save(dir, &s, params, which, sizeof which), AV_ERR_MODEL);
    s = spec_of(MODEL_PE_LEARNED, 8);
    s.activation = MODEL_ACT_RELU;
    assert_int_equal(hfwrite_check(&s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "--activation gelu"));
    s = spec_of(MODEL_PE_LEARNED, 8);
    s.tokenizer = MODEL_TOK_WORDS;
    assert_int_equal(hfwrite_check(&s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "word model"));
    char *two[] = {"a", "bc"};
    s = spec_of(MODEL_PE_LEARNED, 8);
    s.vocab = two, s.V = 2;
    assert_int_equal(hfwrite_check(&s, why, sizeof why), AV_ERR_MODEL);
    assert_non_null(strstr(why, "token 1 is not one character"));
    assert_int_equal(hfwrite_save(dir, &s, params, which, sizeof which), AV_ERR_MODEL);
    assert_false(exists(dir));
}

/* A folder holding another file is not replaced. */
static void test_hfwrite_keeps_a_foreign_folder(void **state)
{
    char dir[128], path[160], which[128];
    snprintf(dir, sizeof dir, "%s/m", tmp_dir(state));
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    assert_int_equal(file_write_atomic(path, "x", 1, false), AV_OK);
    ModelSpec s = spec_of(MODEL_PE_LEARNED, 8);
    Net net = {0};
    assert_int_equal(net_init(&net, &s, 1, false), AV_OK);
    assert_int_equal(hfwrite_save(dir, &s, net.params, which, sizeof which), AV_ERR_IO);
    assert_int_equal(errno, ENOTEMPTY);
    assert_string_equal(which, "notes.txt");
    snprintf(path, sizeof path, "%s/config.json", dir);
    assert_false(exists(path));
    net_free(&net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hfwrite_learned_mlp_same_model, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfwrite_sinusoid_no_mlp_same_model, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfwrite_no_pe_replaces_a_save, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test(test_hfwrite_unseen_char_past_the_model),
        cmocka_unit_test_setup_teardown(test_hfwrite_refuses_what_gpt2_lacks, tmp_setup,
                                        tmp_teardown),
        cmocka_unit_test_setup_teardown(test_hfwrite_keeps_a_foreign_folder, tmp_setup,
                                        tmp_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
