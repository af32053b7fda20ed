/* test_net.c - the whole trainable model: its gradients against finite
 * differences of its loss, its attention equal to core's attention_forward
 * on the same inputs, determinism, and AdamW's first step.
 * (PyTorch's autograd checks the same gradients in tests/e2e/train_torch.sh.)
 */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/posenc.h"
#include "core/rng.h"
#include "train/net.h"

static char *VOCAB[] = {"a", "b", "c", "d", "e", "f", "g"};

static ModelSpec spec(bool ln, int mlp, ModelPe pe)
{
    ModelSpec s = {.task = "test",
                   .V = 7,
                   .vocab = VOCAB,
                   .d_model = 8,
                   .heads = 2,
                   .layers = 2,
                   .context = 6,
                   .pe = pe,
                   .layernorm = ln,
                   .mlp = mlp,
                   .activation = MODEL_ACT_GELU};
    return s;
}

enum { B = 2, n = 5 };
static const int TOK[B * n] = {0, 3, 1, 6, 2, 5, 5, 4, 0, 1};
static const int TGT[B * n] = {3, 1, 6, 2, 4, 5, 4, 0, 1, 2};
static const float MASK[B * n] = {1, 1, 0, 1, 1, 1, 1, 1, 0, 1};

static double loss_of(Net *net)
{
    double l;
    assert_int_equal(net_forward(net, TOK, TGT, MASK, B, n, &l), AV_OK);
    return l;
}

/* Gradients of every parameter against central differences. */
static void check_grads(bool ln, int mlp, ModelPe pe, ModelAct act)
{
    ModelSpec s = spec(ln, mlp, pe);
    s.activation = act;
    Net net;
    assert_int_equal(net_init(&net, &s, B, true), AV_OK);
    net_init_weights(&net, 7);
    loss_of(&net);
    net_zero_grad(&net);
    net_backward(&net);
    double worst = 0, scale = 1e-12;
    /* ReLU's kinks: a smaller step, so that few nudges cross one */
    const float eps = act == MODEL_ACT_RELU ? 1e-3f : 1e-2f;
    double *num = malloc(net.layout.total * sizeof *num);
    assert_non_null(num);
    for (size_t i = 0; i < net.layout.total; i++) {
        float keep = net.params[i], hi = keep + eps, lo = keep - eps;
        net.params[i] = hi;
        double lp = loss_of(&net);
        net.params[i] = lo;
        double lm = loss_of(&net);
        net.params[i] = keep;
        num[i] = (lp - lm) / ((double)hi - lo);
        scale = fabs(num[i]) > scale ? fabs(num[i]) : scale;
    }
    for (size_t i = 0; i < net.layout.total; i++) {
        double e = fabs(num[i] - net.grads[i]) / scale;
        worst = e > worst ? e : worst;
    }
    print_message("net (layernorm %d, mlp %d, pe %d): %zu parameters, largest relative "
                  "error %.2e\n",
                  ln, mlp, (int)pe, net.layout.total, worst);
    assert_true(worst < (act == MODEL_ACT_RELU ? 5e-3 : 2e-3));
    free(num);
    net_free(&net);
}

static void test_net_grads_attention_only(void **state)
{
    (void)state;
    check_grads(false, 0, MODEL_PE_SINUSOIDAL, MODEL_ACT_GELU);
}

static void test_net_grads_layernorm_mlp_learned(void **state)
{
    (void)state;
    check_grads(true, 12, MODEL_PE_LEARNED, MODEL_ACT_GELU);
}

static void test_net_grads_relu_nope(void **state)
{
    (void)state;
    check_grads(false, 10, MODEL_PE_NONE, MODEL_ACT_RELU);
}

/* Layer 1's weights are core's attention_forward on embed + PE, bit for bit. */
static void test_net_attention_is_cores(void **state)
{
    (void)state;
    ModelSpec s = spec(false, 0, MODEL_PE_SINUSOIDAL);
    Net net;
    assert_int_equal(net_init(&net, &s, B, false), AV_OK);
    net_init_weights(&net, 3);
    assert_int_equal(net_forward(&net, TOK, NULL, NULL, B, n, NULL), AV_OK);
    const int D = 8;
    float X[n * 8], pe[n * 8], Q[n * 8], K[n * 8], V[n * 8], P[2 * n * n], cat[n * 8], out[n * 8];
    posenc_fill(0, n, D, pe);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < D; c++)
            X[i * D + c] = net.p.embed[TOK[n + i] * D + c] + pe[i * D + c];
    AttnShape sh = {.n_q = n,
                    .n_k = n,
                    .d_model = D,
                    .H = 2,
                    .causal = true,
                    .scale = true,
                    .temperature = 1.0f};
    const NetLayer *w = &net.p.layer[0];
    AttnWeights aw = {w->Wq, w->Wk, w->Wv, w->Wo};
    AttnBuffers b = {.Q = Q, .K = K, .V = V, .P = P, .concat = cat, .out = out};
    assert_int_equal(attention_forward(&sh, X, X, &aw, &b), AV_OK);
    for (int h = 0; h < 2; h++)
        assert_memory_equal(net_weights(&net, 0, 1, h), P + h * n * n, n * n * sizeof(float));
    /* causal: key j > i weighs exactly 0 in every layer */
    for (int l = 0; l < 2; l++)
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                assert_true(net_weights(&net, l, 0, 1)[i * n + j] == 0.0f);
    net_free(&net);
}

/* A diverged training (attnviz train --lr 10) or a folder of huge weights:
 * the forward refuses scores past float32 with AV_ERR_OVERFLOW rather than
 * hand the softmax an infinity (an abort); large weights still run. */
static void test_net_overflow(void **state)
{
    (void)state;
    ModelSpec s = spec(false, 0, MODEL_PE_SINUSOIDAL);
    Net net;
    assert_int_equal(net_init(&net, &s, B, false), AV_OK);
    net_init_weights(&net, 3);
    float *Wq = net.p.layer[1].Wq, *Wk = net.p.layer[1].Wk;
    for (int i = 0; i < 8 * 8; i++)
        Wq[i] = Wk[i] = 1e30f;
    assert_int_equal(net_forward(&net, TOK, NULL, NULL, B, n, NULL), AV_ERR_OVERFLOW);
    for (int i = 0; i < 8 * 8; i++)
        Wq[i] = Wk[i] = 1e3f;
    assert_int_equal(net_forward(&net, TOK, NULL, NULL, B, n, NULL), AV_OK);
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < n * n; i++)
            assert_true(isfinite(net_weights(&net, 1, 1, h)[i]));
    Wq[5] = NAN;
    assert_int_equal(net_forward(&net, TOK, NULL, NULL, B, n, NULL), AV_ERR_OVERFLOW);
    net_free(&net);
}

/* The same seed gives the same weights and the same steps. */
static void test_net_deterministic(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 12, MODEL_PE_LEARNED);
    Net a, b;
    NetAdam opt = {.lr = 1e-2f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.1f};
    assert_int_equal(net_init(&a, &s, B, true), AV_OK);
    assert_int_equal(net_init(&b, &s, B, true), AV_OK);
    net_init_weights(&a, 11);
    net_init_weights(&b, 11);
    for (int t = 1; t <= 3; t++)
        for (Net *x = &a; x; x = x == &a ? &b : NULL) {
            loss_of(x);
            net_zero_grad(x);
            net_backward(x);
            net_clip_grad(x, 1.0);
            net_adamw(x, &opt, t);
        }
    assert_memory_equal(a.params, b.params, a.layout.total * sizeof(float));
    net_init_weights(&b, 12);
    assert_true(memcmp(a.params, b.params, a.layout.total * sizeof(float)) != 0);
    net_free(&a);
    net_free(&b);
}

/* net_update gives the bits of net_zero_grad, net_backward, net_clip_grad
 * and net_adamw: parameters, gradients (clipped), moments and norms, with
 * clipping and without, on a model large enough for the optimiser's halves
 * to run on the second thread (two threads against one). */
static void test_net_update_same_bits(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 256, MODEL_PE_LEARNED);
    s.d_model = 64, s.heads = 4;
    Net a, b;
    NetAdam opt = {.lr = 1e-2f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.1f};
    assert_int_equal(net_init(&a, &s, B, true), AV_OK);
    assert_int_equal(net_init(&b, &s, B, true), AV_OK);
    assert_true(a.layout.total > 65536);
    net_set_threads(&b, 2);
    net_init_weights(&a, 5);
    net_init_weights(&b, 5);
    const double clip[4] = {0.05, 1e9, 0.0, 0.05};
    bool clipped = false;
    for (int t = 1; t <= 4; t++) {
        loss_of(&a);
        net_zero_grad(&a);
        net_backward(&a);
        double na = net_clip_grad(&a, clip[t - 1]);
        net_adamw(&a, &opt, t);
        loss_of(&b);
        double nb = net_update(&b, clip[t - 1], &opt, t);
        assert_true(na == nb);
        clipped |= clip[t - 1] > 0.0 && na > clip[t - 1];
        const size_t bytes = a.layout.total * sizeof(float);
        assert_memory_equal(a.grads, b.grads, bytes);
        assert_memory_equal(a.params, b.params, bytes);
        assert_memory_equal(a.m, b.m, bytes);
        assert_memory_equal(a.v, b.v, bytes);
    }
    assert_true(clipped);
    net_free(&a);
    net_free(&b);
}

/* AdamW's first step moves each parameter by lr * sign(g) (decay aside),
 * and decays matrices only. */
static void test_net_adamw_first_step(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 0, MODEL_PE_SINUSOIDAL);
    Net net;
    assert_int_equal(net_init(&net, &s, B, true), AV_OK);
    net_init_weights(&net, 5);
    float *before = malloc(net.layout.total * sizeof *before);
    assert_non_null(before);
    memcpy(before, net.params, net.layout.total * sizeof *before);
    for (size_t i = 0; i < net.layout.total; i++)
        net.grads[i] = i % 3 == 0 ? 0.5f : -2.0f;
    NetAdam opt = {.lr = 0.01f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.5f};
    net_adamw(&net, &opt, 1);
    for (int k = 0; k < net.layout.n; k++) {
        const ModelTensor *t = &net.layout.t[k];
        float decay = t->ndim == 2 ? 1.0f - 0.01f * 0.5f : 1.0f;
        for (size_t i = t->offset; i < t->offset + t->count; i++) {
            float want = before[i] * decay - (i % 3 == 0 ? 0.01f : -0.01f);
            assert_float_equal(net.params[i], want, 1e-6);
        }
    }
    /* clipping: the norm is returned and the gradients scaled to the limit */
    double norm = net_clip_grad(&net, 1.0);
    assert_true(norm > 1.0);
    assert_float_equal(net_clip_grad(&net, 0.0), 1.0, 1e-5);
    free(before);
    net_free(&net);
}

/* AdamW over several steps, bit for bit the formula applied one float at a
 * time (the vector path's IEEE operations are the same, in the same order),
 * on arenas whose tensors do not start at multiples of eight floats. */
static void test_net_adamw_bits(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 12, MODEL_PE_LEARNED);
    Net net;
    assert_int_equal(net_init(&net, &s, B, true), AV_OK);
    net_init_weights(&net, 9);
    const size_t P = net.layout.total;
    float *p = malloc(P * sizeof *p), *m = calloc(P, sizeof *m), *v = calloc(P, sizeof *v);
    assert_true(p && m && v);
    memcpy(p, net.params, P * sizeof *p);
    NetAdam o = {.lr = 3e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.1f};
    Rng r;
    rng_seed(&r, 4);
    for (long t = 1; t <= 4; t++) {
        for (size_t i = 0; i < P; i++)
            net.grads[i] = rng_symmetric(&r, 1.0f) * (float)(i % 7 + 1) * 1e-3f;
        net_adamw(&net, &o, t);
        const float c1 = 1.0f - powf(o.beta1, (float)t), c2 = 1.0f - powf(o.beta2, (float)t);
        for (int k = 0; k < net.layout.n; k++) {
            const ModelTensor *mt = &net.layout.t[k];
            const float decay = mt->ndim == 2 ? 1.0f - o.lr * o.weight_decay : 1.0f;
            for (size_t i = mt->offset; i < mt->offset + mt->count; i++) {
                const float g = net.grads[i];
                m[i] = o.beta1 * m[i] + (1.0f - o.beta1) * g;
                v[i] = o.beta2 * v[i] + (1.0f - o.beta2) * g * g;
                float mhat = m[i] / c1, vhat = v[i] / c2;
                p[i] = p[i] * decay - o.lr * mhat / (sqrtf(vhat) + o.eps);
            }
        }
        assert_memory_equal(net.params, p, P * sizeof *p);
        assert_memory_equal(net.m, m, P * sizeof *m);
        assert_memory_equal(net.v, v, P * sizeof *v);
    }
    free(p), free(m), free(v);
    net_free(&net);
}

/* net->best: each row's most likely token, the first of equal largest. */
static void test_net_best(void **state)
{
    (void)state;
    ModelSpec s = spec(true, 12, MODEL_PE_LEARNED);
    Net net;
    assert_int_equal(net_init(&net, &s, B, true), AV_OK);
    net_init_weights(&net, 2);
    loss_of(&net);
    for (int r = 0; r < B * n; r++) {
        const float *p = net.logits + r * 7;
        for (int v = 0; v < 7; v++) {
            assert_true(p[v] <= p[net.best[r]]);
            if (v < net.best[r])
                assert_true(p[v] < p[net.best[r]]);
        }
    }
    net_free(&net);
}

static void test_net_bad_input(void **state)
{
    (void)state;
    ModelSpec s = spec(false, 0, MODEL_PE_NONE);
    Net net;
    assert_int_equal(net_init(&net, &s, 1, false), AV_OK);
    int bad[2] = {0, 7};
    assert_int_equal(net_forward(&net, bad, NULL, NULL, 1, 2, NULL), AV_ERR_CONFIG);
    assert_int_equal(net_forward(&net, TOK, NULL, NULL, 2, 2, NULL), AV_ERR_CONFIG);
    assert_int_equal(net_forward(&net, TOK, NULL, NULL, 1, 7, NULL), AV_ERR_CONFIG);
    net_free(&net);
    s.heads = 3;
    assert_int_equal(net_init(&net, &s, 1, false), AV_ERR_MODEL);
    net_free(&net);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_net_grads_attention_only),
        cmocka_unit_test(test_net_grads_layernorm_mlp_learned),
        cmocka_unit_test(test_net_grads_relu_nope),
        cmocka_unit_test(test_net_attention_is_cores),
        cmocka_unit_test(test_net_deterministic),
        cmocka_unit_test(test_net_overflow),
        cmocka_unit_test(test_net_adamw_first_step),
        cmocka_unit_test(test_net_adamw_bits),
        cmocka_unit_test(test_net_update_same_bits),
        cmocka_unit_test(test_net_best),
        cmocka_unit_test(test_net_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
