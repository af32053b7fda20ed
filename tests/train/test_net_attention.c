/* test_net_attention.c - the trainer's forward (net.c: attention_heads on
 * the projections of every sequence in one product) held to the plain
 * reference (core/attention_ref.h): on random specs and batches, each
 * layer's Q, K, V, weights, concat and attention output, per sequence, equal
 * attention_ref on that layer's input within float rounding. The trainer is
 * causal (DESIGN.md), so the mask is on; tests/core/test_attention_ref.c
 * holds the forward with the mask off.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention_ref.h"
#include "core/rng.h"
#include "train/net.h"

static char *VOCAB[] = {"a", "b", "c", "d", "e", "f", "g", "h"};

/* a within 1e-4 of b's largest magnitude (at least 1) */
static void near_scaled(const float *a, const float *b, size_t n)
{
    double m = 1.0;
    for (size_t k = 0; k < n; k++)
        m = fabs((double)b[k]) > m ? fabs((double)b[k]) : m;
    assert_floats_near(a, b, n, 1e-4 * m);
}

/* Run spec on B random sequences of n tokens; compare every layer. */
static void net_matches_ref(const ModelSpec *spec, int B, int n, uint64_t seed)
{
    Net net;
    assert_int_equal(net_init(&net, spec, B, false), AV_OK);
    net_init_weights(&net, seed);
    Rng r;
    rng_seed(&r, seed + 1);
    int *tok = malloc(sizeof *tok * (size_t)B * n);
    assert_non_null(tok);
    for (int k = 0; k < B * n; k++)
        tok[k] = (int)(rng_next(&r) % (uint64_t)spec->V);
    assert_int_equal(net_forward(&net, tok, NULL, NULL, B, n, NULL), AV_OK);
    const int D = spec->d_model, H = spec->heads;
    const size_t nd = (size_t)n * D, nn = (size_t)n * n;
    float *buf = malloc(sizeof *buf * (5 * nd + 2 * H * nn));
    assert_non_null(buf);
    AttnShape s = {n, n, D, H, true, true, 1.0f};
    for (int l = 0; l < spec->layers; l++) {
        const NetActs *a = &net.layer[l];
        const NetLayer *p = &net.p.layer[l];
        AttnWeights w = {p->Wq, p->Wk, p->Wv, p->Wo};
        for (int b = 0; b < B; b++) {
            AttnBuffers rb = {
                buf,          buf + nd,     buf + 2 * nd, buf + 5 * nd, buf + 5 * nd + H * nn,
                buf + 3 * nd, buf + 4 * nd, NULL};
            const size_t row = (size_t)b * nd;
            assert_int_equal(attention_ref(&s, a->a + row, a->a + row, &w, &rb), AV_OK);
            near_scaled(a->Q + row, rb.Q, nd);
            near_scaled(a->K + row, rb.K, nd);
            near_scaled(a->V + row, rb.V, nd);
            assert_floats_near(a->P + (size_t)b * H * nn, rb.P, H * nn, 2e-5);
            near_scaled(a->concat + row, rb.concat, nd);
            near_scaled(a->attn + row, rb.out, nd);
        }
    }
    free(buf), free(tok);
    net_free(&net);
}

static void test_net_attention_matches_reference(void **state)
{
    /* expect: plain, LayerNorm + MLP, one to three layers, one to four heads,
     * batches of 1-3 sequences of 1-40 tokens: every layer's attention is the
     * reference's on its input */
    (void)state;
    const struct {
        int d, heads, layers, context, mlp, B, n;
        bool ln;
    } cases[] = {{8, 2, 1, 16, 0, 1, 16, false},
                 {16, 4, 2, 32, 32, 2, 29, true},
                 {12, 3, 3, 40, 0, 3, 40, false},
                 {24, 1, 1, 8, 48, 2, 1, true},
                 {32, 4, 2, 64, 64, 2, 37, true}};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        ModelSpec spec = {.task = "text",
                          .tokenizer = MODEL_TOK_CHARS,
                          .V = 8,
                          .vocab = VOCAB,
                          .d_model = cases[k].d,
                          .heads = cases[k].heads,
                          .layers = cases[k].layers,
                          .context = cases[k].context,
                          .pe = MODEL_PE_SINUSOIDAL,
                          .layernorm = cases[k].ln,
                          .mlp = cases[k].mlp,
                          .activation = MODEL_ACT_GELU};
        net_matches_ref(&spec, cases[k].B, cases[k].n, 500 + k);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_net_attention_matches_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
