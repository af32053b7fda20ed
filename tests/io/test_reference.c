/* test_reference.c - the whole pipeline against committed NumPy reference
 * results (tests/data/ref/, made by tests/data/make_ref.py from seed 000's
 * MultiHeadAttention): weights, X, W_q W_k W_v W_o loaded as --weights does,
 * 4 heads, d_model 16, 6 tokens, with PE on and off, causal mask on and off;
 * and the plain reference attention (core/attention_ref.c) on NumPy's X.
 * Needs no Python: the .npy files are committed.
 */
#include "test_common.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/attention_ref.h"
#include "core/av.h"
#include "core/model.h"
#include "io/npy.h"
#include "io/weights.h"

#define REF_DIR TEST_DATA_DIR "/ref"
#define TEXT "a b c d e f"
enum { H = 4, D = 16, N = 6 };

typedef struct {
    ModelConfig cfg;
    ModelWeights w;
    ModelResult r;
} Run;

/* Load the reference weights and run the pipeline with pe / causal. */
static void run_ref(Run *run, bool pe, bool causal)
{
    memset(run, 0, sizeof *run);
    model_config_default(&run->cfg);
    run->cfg.H = H;
    run->cfg.d_model = D;
    run->cfg.pe = pe;
    run->cfg.causal = causal;
    const char *which = "";
    int err = weights_load(&run->cfg, REF_DIR, &run->w, &which);
    if (err)
        print_error("weights_load(%s): %s at %s\n", REF_DIR, av_strerror(err), which);
    assert_int_equal(err, AV_OK);
    assert_non_null(run->w.X);
    assert_int_equal(run->w.n_x, N);
    err = model_run(&run->cfg, &run->w, TEXT, strlen(TEXT), NULL, 0, &run->r);
    assert_int_equal(err, AV_OK);
    assert_int_equal(run->r.tokens.n, N);
    assert_int_equal(run->r.shape.n_q, N);
    assert_int_equal(run->r.shape.n_k, N);
    assert_int_equal(run->r.shape.H, H);
    assert_int_equal(run->r.shape.d_model, D);
}

static void run_free(Run *run)
{
    model_result_free(&run->r);
    model_weights_free(&run->w);
}

/* Read TEST_DATA_DIR/ref/<name> and check its shape. */
static void load_expected(const char *name, int ndim, size_t d0, size_t d1, size_t d2, NpyArray *a)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", REF_DIR, name);
    int err = npy_read(path, a);
    if (err)
        print_error("npy_read(%s): %s\n", path, av_strerror(err));
    assert_int_equal(err, AV_OK);
    assert_int_equal(a->ndim, ndim);
    assert_int_equal(a->shape[0], d0);
    assert_int_equal(a->shape[1], d1);
    if (ndim == 3)
        assert_int_equal(a->shape[2], d2);
}

static void check_against_numpy(bool pe, bool causal)
{
    const char *ptag = pe ? "pe" : "nope", *mtag = causal ? "causal" : "full";
    char name[128];
    Run run;
    NpyArray x = {0}, w = {0}, out = {0};
    run_ref(&run, pe, causal);

    snprintf(name, sizeof name, "expected_X_%s.npy", ptag);
    load_expected(name, 2, N, D, 0, &x);
    assert_floats_near(run.r.X, x.data, (size_t)N * D, 1e-5);

    snprintf(name, sizeof name, "expected_weights_%s_%s.npy", ptag, mtag);
    load_expected(name, 3, H, N, N, &w);
    assert_floats_near(run.r.layer[0].ab.P, w.data, (size_t)H * N * N, 1e-5);

    snprintf(name, sizeof name, "expected_output_%s_%s.npy", ptag, mtag);
    load_expected(name, 2, N, D, 0, &out);
    assert_floats_near(run.r.out, out.data, (size_t)N * D, 1e-5);

    /* the plain reference (core/attention_ref.c) on NumPy's X: the same */
    float ref[5 * N * D + 2 * H * N * N];
    AttnShape sh = {N, N, D, H, causal, true, 1.0f};
    const LayerWeights *lw = &run.w.layer[0];
    AttnWeights aw = {lw->Wq, lw->Wk, lw->Wv, lw->Wo};
    AttnBuffers rb = {
        ref, ref + N * D, ref + 2 * N * D, NULL, ref + 5 * N * D, ref + 3 * N * D, ref + 4 * N * D,
        NULL};
    assert_int_equal(attention_ref(&sh, x.data, x.data, &aw, &rb), AV_OK);
    assert_floats_near(rb.P, w.data, (size_t)H * N * N, 1e-5);
    assert_floats_near(rb.out, out.data, (size_t)N * D, 1e-5);

    npy_free(&x);
    npy_free(&w);
    npy_free(&out);
    run_free(&run);
}

static void test_reference_matches_numpy_no_pe_no_mask(void **state)
{
    /* expect: X, weights (4,6,6) and output (6,16) equal the NumPy reference within 1e-5 */
    (void)state;
    check_against_numpy(false, false);
}

static void test_reference_matches_numpy_no_pe_causal(void **state)
{
    /* expect: the same with the causal mask */
    (void)state;
    check_against_numpy(false, true);
}

static void test_reference_matches_numpy_pe_no_mask(void **state)
{
    /* expect: with PE added to X.npy, X + PE, weights and output match NumPy within 1e-5 */
    (void)state;
    check_against_numpy(true, false);
}

static void test_reference_matches_numpy_pe_causal(void **state)
{
    /* expect: PE and causal mask together match NumPy within 1e-5 */
    (void)state;
    check_against_numpy(true, true);
}

static void test_reference_rows_sum_to_one(void **state)
{
    /* expect: in all four configurations every query row of every head sums to 1 (1e-5)
     * and every weight lies in [0, 1] */
    (void)state;
    for (int k = 0; k < 4; k++) {
        Run run;
        run_ref(&run, k & 1, k & 2);
        const float *P = run.r.layer[0].ab.P;
        for (int h = 0; h < H; h++)
            for (int i = 0; i < N; i++) {
                double sum = 0;
                for (int j = 0; j < N; j++) {
                    float p = P[((size_t)h * N + i) * N + j];
                    assert_true(p >= 0.0f && p <= 1.0f);
                    sum += p;
                }
                assert_float_equal(sum, 1.0, 1e-5);
            }
        run_free(&run);
    }
}

static void test_reference_causal_masked_weights_exactly_zero(void **state)
{
    /* expect: with the causal mask, every weight with j > i is exactly 0.0f and every
     * weight with j <= i is > 0; without it no weight is 0 */
    (void)state;
    for (int pe = 0; pe < 2; pe++)
        for (int causal = 0; causal < 2; causal++) {
            Run run;
            run_ref(&run, pe, causal);
            const float *P = run.r.layer[0].ab.P;
            for (int h = 0; h < H; h++)
                for (int i = 0; i < N; i++)
                    for (int j = 0; j < N; j++) {
                        float p = P[((size_t)h * N + i) * N + j];
                        if (causal && j > i)
                            assert_true(p == 0.0f);
                        else
                            assert_true(p > 0.0f);
                    }
            run_free(&run);
        }
}

static void test_reference_first_causal_row_is_one_hot(void **state)
{
    /* expect: under the causal mask query 0 sees only key 0: its weight is exactly 1,
     * and output row 0 equals (V row 0) @ W_o, which is NumPy's output row 0 */
    (void)state;
    Run run;
    run_ref(&run, true, true);
    for (int h = 0; h < H; h++)
        assert_true(run.r.layer[0].ab.P[(size_t)h * N * N] == 1.0f);
    float row0[D];
    const float *V = run.r.layer[0].ab.V, *Wo = run.w.layer[0].Wo;
    for (int c = 0; c < D; c++) {
        double acc = 0;
        for (int k = 0; k < D; k++)
            acc += (double)V[k] * Wo[(size_t)k * D + c];
        row0[c] = (float)acc;
    }
    assert_floats_near(run.r.out, row0, D, 1e-5);
    NpyArray out = {0};
    load_expected("expected_output_pe_causal.npy", 2, N, D, 0, &out);
    assert_floats_near(row0, out.data, D, 1e-5);
    npy_free(&out);
    run_free(&run);
}

static void test_reference_rerun_reuses_buffers(void **state)
{
    /* expect: one ModelResult reused for causal, then full, then causal again gives the
     * NumPy numbers each time (no stale mask or PE left in the reused arena) */
    (void)state;
    ModelConfig c;
    ModelWeights w = {0};
    ModelResult r = {0};
    NpyArray ref[2] = {{0}, {0}};
    const char *which = "";
    model_config_default(&c);
    c.H = H, c.d_model = D, c.pe = true;
    assert_int_equal(weights_load(&c, REF_DIR, &w, &which), AV_OK);
    load_expected("expected_weights_pe_full.npy", 3, H, N, N, &ref[0]);
    load_expected("expected_weights_pe_causal.npy", 3, H, N, N, &ref[1]);
    static const int seq[] = {1, 0, 1, 0};
    for (size_t k = 0; k < sizeof seq / sizeof seq[0]; k++) {
        c.causal = seq[k];
        assert_int_equal(model_run(&c, &w, TEXT, strlen(TEXT), NULL, 0, &r), AV_OK);
        assert_floats_near(r.layer[0].ab.P, ref[seq[k]].data, (size_t)H * N * N, 1e-5);
    }
    npy_free(&ref[0]);
    npy_free(&ref[1]);
    model_result_free(&r);
    model_weights_free(&w);
}

static void test_reference_x_rows_must_match_tokens(void **state)
{
    /* expect: X.npy holds 6 rows; a text of 5 or 7 tokens gives AV_ERR_NPY_SHAPE and
     * leaves no half-computed result (shape.n_q == 0) */
    (void)state;
    static const char *const texts[] = {"a b c d e", "a b c d e f g"};
    ModelConfig c;
    ModelWeights w = {0};
    ModelResult r = {0};
    const char *which = "";
    model_config_default(&c);
    c.H = H, c.d_model = D;
    assert_int_equal(weights_load(&c, REF_DIR, &w, &which), AV_OK);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(model_run(&c, &w, texts[k], strlen(texts[k]), NULL, 0, &r),
                         AV_ERR_NPY_SHAPE);
        assert_int_equal(r.shape.n_q, 0);
    }
    model_result_free(&r);
    model_weights_free(&w);
}

static void test_reference_wrong_d_model_rejects_weights(void **state)
{
    /* expect: the (16, 16) reference matrices loaded with d_model 32 give
     * AV_ERR_NPY_SHAPE naming Wq.npy, and leave the weights freed (zeroed) */
    (void)state;
    ModelConfig c;
    ModelWeights w = {0};
    const char *which = "";
    model_config_default(&c);
    c.H = H, c.d_model = 32;
    assert_int_equal(weights_load(&c, REF_DIR, &w, &which), AV_ERR_NPY_SHAPE);
    assert_string_equal(which, "Wq.npy");
    assert_null(w.arena);
    assert_null(w.X);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_matches_numpy_no_pe_no_mask),
        cmocka_unit_test(test_reference_matches_numpy_no_pe_causal),
        cmocka_unit_test(test_reference_matches_numpy_pe_no_mask),
        cmocka_unit_test(test_reference_matches_numpy_pe_causal),
        cmocka_unit_test(test_reference_rows_sum_to_one),
        cmocka_unit_test(test_reference_causal_masked_weights_exactly_zero),
        cmocka_unit_test(test_reference_first_causal_row_is_one_hot),
        cmocka_unit_test(test_reference_rerun_reuses_buffers),
        cmocka_unit_test(test_reference_x_rows_must_match_tokens),
        cmocka_unit_test(test_reference_wrong_d_model_rejects_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
