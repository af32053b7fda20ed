/* test_bert.c - the BERT forward (core/bert.h) against its plain oracle
 * (core/bert_ref.h) on random weights of a small shape: every layer's
 * residual stream, Q, K, V, every head's weights and the masked-LM logits;
 * the causal what-if; token types; DistilBERT's shape (no types); refusals.
 */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bert.h"
#include "core/bert_ref.h"
#include "core/mat.h"
#include "../../src/core/fast/bert_kern.h"
#include "test_random.h"

enum { V = 37, T = 20, Y = 2, D = 24, H = 4, L = 3, F = 40 };

typedef struct {
    BertWeights w;
    float *arena;
} Model;

/* Random weights wide enough that the heads are peaked; LayerNorm gains near 1. */
static void model_make(Model *m, int types, bool head, uint64_t seed)
{
    Rng r;
    rng_seed(&r, seed);
    size_t per_layer = 4 * (D * D + D) + 2 * D * F + F + D + 4 * D;
    size_t total = (size_t)(V + T + Y) * D + 2 * D + L * per_layer + D * D + 3 * D + V;
    m->arena = test_random_floats(&r, total, 0.6f);
    float *p = m->arena;
#define TAKE(dst, count) (dst = p, p += (count))
    memset(&m->w, 0, sizeof m->w);
    m->w.cfg = (BertConfig){V, T, types, D, H, L, F, 1e-12f};
    TAKE(m->w.word, V * D);
    TAKE(m->w.pos, T * D);
    if (types)
        TAKE(m->w.type, Y * D);
    else
        p += Y * D;
    TAKE(m->w.emb_ln_g, D);
    TAKE(m->w.emb_ln_b, D);
    for (int l = 0; l < L; l++) {
        BertLayer *y = &m->w.layer[l];
        TAKE(y->q_w, D * D), TAKE(y->q_b, D), TAKE(y->k_w, D * D), TAKE(y->k_b, D);
        TAKE(y->v_w, D * D), TAKE(y->v_b, D), TAKE(y->o_w, D * D), TAKE(y->o_b, D);
        TAKE(y->ln1_g, D), TAKE(y->ln1_b, D), TAKE(y->fc_w, F * D), TAKE(y->fc_b, F);
        TAKE(y->out_w, D * F), TAKE(y->out_b, D), TAKE(y->ln2_g, D), TAKE(y->ln2_b, D);
    }
    if (head) {
        TAKE(m->w.mlm_w, D * D), TAKE(m->w.mlm_b, D), TAKE(m->w.mlm_ln_g, D);
        TAKE(m->w.mlm_ln_b, D), TAKE(m->w.mlm_bias, V);
        m->w.decoder = m->w.word; /* tied, as Hugging Face saves it */
    }
#undef TAKE
    assert_true(p <= m->arena + total);
}

static void compare_on(const BertWeights *w, const int *ids, const int *types, int n, bool causal,
                       int threads)
{
    BertState st = {.threads = threads};
    BertRef ref;
    assert_int_equal(bert_forward(w, ids, types, n, causal, &st), AV_OK);
    assert_int_equal(bert_ref(w, ids, types, n, causal, &ref), AV_OK);
    const size_t nd = (size_t)n * D, nn = (size_t)n * n;
    assert_floats_near(st.x, ref.x, (L + 1) * nd, 1e-4);
    for (int l = 0; l < L; l++) {
        assert_floats_near(st.q + l * nd, ref.qkv + 3 * l * nd, nd, 1e-4);
        assert_floats_near(st.k + l * nd, ref.qkv + (3 * l + 1) * nd, nd, 1e-4);
        assert_floats_near(st.v + l * nd, ref.qkv + (3 * l + 2) * nd, nd, 1e-4);
        assert_floats_near(st.concat + l * nd, ref.concat + l * nd, nd, 1e-4);
    }
    assert_floats_near(st.P, ref.P, (size_t)L * H * nn, 1e-5);
    for (size_t k = 0; k < (size_t)L * H * n; k++) { /* rows sum to 1; masked keys 0 */
        double sum = 0;
        int i = (int)(k % n);
        for (int j = 0; j < n; j++) {
            float p = st.P[k * n + j];
            sum += p;
            if (causal && j > i)
                assert_true(p == 0.0f);
        }
        assert_float_equal(sum, 1.0, 1e-5);
    }
    if (bert_has_mlm(w)) {
        float *mlm = malloc(sizeof *mlm * n * V);
        assert_int_equal(bert_mlm_logits(w, &st, 0, n, mlm), AV_OK);
        assert_floats_near(mlm, ref.mlm, (size_t)n * V, 1e-3);
        assert_int_equal(bert_mlm_logits(w, &st, n - 1, 1, mlm), AV_OK); /* one row alone */
        assert_floats_near(mlm, ref.mlm + (size_t)(n - 1) * V, V, 1e-3);
        free(mlm);
    } else {
        assert_null(ref.mlm);
    }
    bert_ref_free(&ref);
    bert_state_free(&st);
}

static void compare(const BertWeights *w, const int *ids, const int *types, int n, bool causal)
{
    compare_on(w, ids, types, n, causal, 0);
}

static const int ids[] = {1, 5, 9, 2, 30, 30, 7, 3, 11, 2};
static const int types[] = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};

/* The fast forward equals the oracle: types 0/1, the MLM head, both masks. */
static void test_bert_forward_matches_ref(void **state)
{
    (void)state;
    Model m;
    model_make(&m, Y, true, 7);
    compare(&m.w, ids, types, 10, false);
    compare(&m.w, ids, NULL, 10, false);
    compare(&m.w, ids, types, 10, true);
    compare(&m.w, ids, types, 1, false);
    compare_on(&m.w, ids, types, 10, false, 1);
    free(m.arena);
}

/* Two threads, each a half of the output columns (d_ff 40: 16 and 24),
 * give the oracle's numbers too, and the bits of one thread. */
static void test_bert_forward_two_threads(void **state)
{
    (void)state;
    Model m;
    model_make(&m, Y, true, 12);
    compare_on(&m.w, ids, types, 10, false, 2);
    BertState one = {.threads = 1}, two = {.threads = 2};
    assert_int_equal(bert_forward(&m.w, ids, types, 10, false, &one), AV_OK);
    assert_int_equal(bert_forward(&m.w, ids, types, 10, false, &two), AV_OK);
    assert_int_equal(two.threads, 2);
    assert_memory_equal(one.x, two.x, sizeof *one.x * (L + 1) * 10 * D);
    bert_state_free(&one), bert_state_free(&two);
    free(m.arena);
}

/* DistilBERT's shape: no token types, no head; a whole context. */
static void test_bert_forward_distil_no_head(void **state)
{
    (void)state;
    Model m;
    model_make(&m, 0, false, 8);
    int long_ids[T];
    for (int i = 0; i < T; i++)
        long_ids[i] = (i * 7) % V;
    compare(&m.w, long_ids, NULL, T, false);
    float out[V];
    BertState st = {0};
    assert_int_equal(bert_forward(&m.w, long_ids, NULL, 4, false, &st), AV_OK);
    assert_int_equal(bert_mlm_logits(&m.w, &st, 0, 1, out), AV_ERR_CONFIG);
    bert_state_free(&st);
    free(m.arena);
}

/* Types change the numbers: the second sentence's type row is added. */
static void test_bert_types_matter(void **state)
{
    (void)state;
    Model m;
    model_make(&m, Y, false, 9);
    BertState a = {0}, b = {0};
    assert_int_equal(bert_forward(&m.w, ids, types, 10, false, &a), AV_OK);
    assert_int_equal(bert_forward(&m.w, ids, NULL, 10, false, &b), AV_OK);
    assert_memory_equal(a.x, b.x, sizeof *a.x * 4 * D); /* type 0 alike */
    assert_true(fabsf(a.x[4 * D] - b.x[4 * D]) > 1e-4f);
    bert_state_free(&a), bert_state_free(&b);
    free(m.arena);
}

/* Bad input is refused with a code, and the state says nothing ran. */
static void test_bert_refusals(void **state)
{
    (void)state;
    Model m;
    model_make(&m, Y, true, 10);
    BertState st = {0};
    int many[T + 1] = {0}, bad_id[2] = {1, V}, bad_type[2] = {0, Y};
    assert_int_equal(bert_forward(&m.w, ids, NULL, 0, false, &st), AV_ERR_EMPTY);
    assert_int_equal(bert_forward(&m.w, many, NULL, T + 1, false, &st), AV_ERR_TOO_MANY);
    assert_int_equal(bert_forward(&m.w, bad_id, NULL, 2, false, &st), AV_ERR_CONFIG);
    assert_int_equal(bert_forward(&m.w, ids, bad_type, 2, false, &st), AV_ERR_CONFIG);
    assert_int_equal(st.n, 0);
    m.w.mlm_ln_b = NULL; /* half a head */
    assert_int_equal(bert_check(&m.w), AV_ERR_CONFIG);
    bert_state_free(&st);
    free(m.arena);
}

/* The result the views read: weights, vectors and the residual stream. */
static void test_bert_result_fill(void **state)
{
    (void)state;
    Model m;
    model_make(&m, Y, true, 11);
    BertState st = {0};
    assert_int_equal(bert_forward(&m.w, ids, types, 6, false, &st), AV_OK);
    TokenList tl = {0};
    assert_int_equal(tokenize("a b c d e f", 11, 64, &tl), AV_OK);
    ModelConfig c;
    bert_model_config(&m.w.cfg, &c);
    ModelResult r = {0};
    assert_int_equal(bert_result_fill(&m.w, &st, &c, &tl, &r), AV_OK);
    assert_false(r.shape.causal);
    assert_memory_equal(model_head_P(&r, 2, 3), st.P + (2 * H + 3) * 36, sizeof(float) * 36);
    assert_memory_equal(r.layer[L - 1].x_out, st.x + L * 6 * D, sizeof(float) * 6 * D);
    c.causal = true; /* the result must say what was run */
    assert_int_equal(bert_result_fill(&m.w, &st, &c, &tl, &r), AV_ERR_CONFIG);
    model_result_free(&r);
    tokenize_free(&tl);
    bert_state_free(&st);
    free(m.arena);
}

/* The turned-over linear kernel gives mat_sgemm_packed's bits (the same
 * chain of fused multiply-adds per element) on every row count around its
 * 12-row tile and every column count around its two 16-column panels. */
static void test_bert_kern_matches_packed(void **state)
{
    (void)state;
    if (!mat_packed_available())
        skip();
    Rng r;
    rng_seed(&r, 5);
    const int Ms[] = {1, 5, 11, 12, 13, 25, 40}, ns[] = {1, 7, 16, 17, 31, 32, 33, 50};
    const int K = 37, ldw = 41;
    float *W = test_random_floats(&r, (size_t)40 * ldw, 0.5f);
    float *x = test_random_floats(&r, (size_t)50 * K, 0.5f);
    float *xp = malloc(sizeof *xp * mat_packed_floats(K, 50));
    float *a = malloc(sizeof *a * 40 * 52), *b = malloc(sizeof *b * 40 * 52);
    for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
            const int M = Ms[mi], n = ns[ni];
            mat_pack(true, K, n, x, K, xp);
            for (int k = 0; k < 40 * 52; k++)
                a[k] = b[k] = -7.0f; /* past n: untouched */
            bertk_linear_t(M, n, K, W, ldw, xp, K, a, n + 2);
            mat_sgemm_packed(M, n, K, 1.0f, W, ldw, xp, K, b, n + 2);
            assert_memory_equal(a, b, sizeof *a * (size_t)M * (n + 2));
        }
    free(W), free(x), free(xp), free(a), free(b);
}

/* The blocked product gives, bit for bit, each block's packed chain summed
 * in double in order, on row and column counts around the tiles and a
 * last block shorter than the others. */
static void test_bert_kern_blocks(void **state)
{
    (void)state;
    if (!mat_packed_available())
        skip();
    Rng r;
    rng_seed(&r, 6);
    const int Ms[] = {1, 12, 13, 40}, ns[] = {1, 16, 17, 32, 33};
    const int K = 45, kb = 16, ldw = 47;
    float *W = test_random_floats(&r, (size_t)40 * ldw, 0.5f);
    float *x = test_random_floats(&r, (size_t)33 * K, 0.5f);
    float *xp = malloc(sizeof *xp * mat_packed_floats(K, 33)), *t = malloc(sizeof *t * 40 * 33);
    double *a = malloc(sizeof *a * 40 * 35), *b = malloc(sizeof *b * 40 * 35);
    for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++) {
            const int M = Ms[mi], n = ns[ni];
            mat_pack(true, K, n, x, K, xp);
            for (int k = 0; k < 40 * 35; k++)
                a[k] = b[k] = -7.0;
            bertk_linear_blocks(M, n, K, kb, W, ldw, xp, K, a, n + 2, t);
            for (int k0 = 0; k0 < K; k0 += kb) {
                const int c = K - k0 < kb ? K - k0 : kb;
                mat_sgemm_packed(M, n, c, 1.0f, W + k0, ldw, xp + 16 * k0, K, t, n);
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < n; j++) {
                        double *y = b + (size_t)i * (n + 2) + j;
                        *y = k0 ? *y + t[(size_t)i * n + j] : t[(size_t)i * n + j];
                    }
            }
            assert_memory_equal(a, b, sizeof *a * (size_t)M * (n + 2));
        }
    free(W), free(x), free(xp), free(t), free(a), free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bert_forward_matches_ref),
        cmocka_unit_test(test_bert_forward_two_threads),
        cmocka_unit_test(test_bert_forward_distil_no_head),
        cmocka_unit_test(test_bert_types_matter),
        cmocka_unit_test(test_bert_refusals),
        cmocka_unit_test(test_bert_result_fill),
        cmocka_unit_test(test_bert_kern_matches_packed),
        cmocka_unit_test(test_bert_kern_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
