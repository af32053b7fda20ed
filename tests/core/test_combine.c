/* test_combine.c - heads combined, rows summed, rollout, value-weighted
 * norms against the NumPy references of tests/data/import/make_import_ref.py,
 * and the attention-sink what-if (core/sink.h) against make_sink_ref.py's,
 * plus invariants (rows of the rollout and of the what-if sum to 1, causal
 * structure survives, the row-only rollout equals the matrix one, sources
 * compose).
 *
 * Core tests link no io, so the committed .npy files are read by a small
 * loader here (version 1.0, '<f4' or '<f8', C order, little-endian host).
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/combine.h"
#include "core/sink.h"

#define IMPORT_DIR TEST_DATA_DIR "/import/"

/* count floats of a committed .npy (converted from '<f8' when it is one). */
static float *load(const char *name, size_t count)
{
    char path[256];
    snprintf(path, sizeof path, IMPORT_DIR "%s", name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char pre[10];
    assert_int_equal(fread(pre, 1, 10, f), 10);
    assert_memory_equal(pre, "\x93NUMPY\x01\x00", 8);
    size_t hl = (size_t)pre[8] | (size_t)pre[9] << 8;
    char hdr[1024];
    assert_true(hl < sizeof hdr);
    assert_int_equal(fread(hdr, 1, hl, f), hl);
    hdr[hl] = '\0';
    int f8 = strstr(hdr, "'<f8'") != NULL;
    assert_true(f8 || strstr(hdr, "'<f4'") != NULL);
    float *out = malloc(count * sizeof(float));
    assert_non_null(out);
    for (size_t k = 0; k < count; k++) {
        if (f8) {
            double d;
            assert_int_equal(fread(&d, sizeof d, 1, f), 1);
            out[k] = (float)d;
        } else {
            assert_int_equal(fread(&out[k], sizeof(float), 1, f), 1);
        }
    }
    assert_int_equal(fgetc(f), EOF); /* exactly count values */
    fclose(f);
    return out;
}

/* An (L, H, n_q, n_k) array as a source: rows by pointer, or copied into buf. */
typedef struct {
    const float *a;
    int copy;
    int released[16];
    int H, n_q, n_k;
} ArrCtx;

static const float *arr_row(const void *ctx, int l, int h, int i, float *buf)
{
    const ArrCtx *c = ctx;
    const float *r = c->a + (((size_t)l * c->H + h) * c->n_q + i) * c->n_k;
    if (!c->copy)
        return r;
    memcpy(buf, r, (size_t)c->n_k * sizeof(float));
    return buf;
}

static void arr_release(const void *ctx, int l)
{
    ((ArrCtx *)ctx)->released[l]++;
}

static AttnSource arr_source(ArrCtx *c, int L, int H, int n_q, int n_k)
{
    c->H = H;
    c->n_q = n_q;
    c->n_k = n_k;
    return (AttnSource){L, H, n_q, n_k, arr_row, arr_release, c};
}

static void test_combine_heads_numpy(void **state)
{
    /* expect: mean, max and sum over layer 2's heads equal NumPy's, by pointer and by copy */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    const char *ref[3] = {"heads_mean_l2.npy", "heads_max_l2.npy", "heads_sum_l2.npy"};
    CombineMode mode[3] = {COMBINE_MEAN, COMBINE_MAX, COMBINE_SUM};
    for (int copy = 0; copy < 2; copy++) {
        ArrCtx c = {A, copy, {0}, 0, 0, 0};
        AttnSource s = arr_source(&c, 3, 2, 7, 7);
        for (int m = 0; m < 3; m++) {
            float *want = load(ref[m], 49), got[49], buf[7];
            for (int i = 0; i < 7; i++)
                combine_heads_row(&s, 1, mode[m], i, buf, got + i * 7);
            assert_floats_near(got, want, 49, 1e-6);
            free(want);
        }
    }
    assert_string_equal(combine_mode_name(COMBINE_MAX), "max");
    free(A);
}

static void test_combine_heads_source_composes(void **state)
{
    /* expect: the combined-heads source has one head, its rows are the combined rows,
       and summing its rows 0 and 3 sums the combined rows */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    ArrCtx c = {A, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 3, 2, 7, 7);
    CombinedHeads ch;
    assert_int_equal(combine_heads_init(&ch, &s, COMBINE_SUM), AV_OK);
    assert_int_equal(ch.src.H, 1);
    assert_int_equal(ch.src.L, 3);
    float want[7], want3[7], buf[7], got[7];
    combine_heads_row(&s, 2, COMBINE_SUM, 0, buf, want);
    combine_heads_row(&s, 2, COMBINE_SUM, 3, buf, want3);
    for (int j = 0; j < 7; j++)
        want[j] += want3[j];
    int rows[2] = {0, 3};
    combine_rows_sum(&ch.src, 2, 0, rows, 2, buf, got);
    assert_floats_near(got, want, 7, 1e-6);
    /* a sum of two heads' rows of weights sums to 2 */
    double total = 0;
    for (int j = 0; j < 7; j++)
        total += want3[j];
    assert_float_equal(total, 2.0, 1e-5);
    combine_heads_free(&ch);
    assert_null(ch.scratch);
    free(A);
}

static void test_combine_rows_sum_numpy(void **state)
{
    /* expect: rows 1, 4, 6 of layer 3 head 2 summed equal NumPy's; none gives zeros;
       a repeated row counts twice */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    float *want = load("rows_sum_l3h2_146.npy", 7);
    ArrCtx c = {A, 1, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 3, 2, 7, 7);
    int rows[3] = {1, 4, 6}, twice[2] = {5, 5};
    float got[7], buf[7], zero[7] = {0};
    combine_rows_sum(&s, 2, 1, rows, 3, buf, got);
    assert_floats_near(got, want, 7, 1e-6);
    combine_rows_sum(&s, 2, 1, rows, 0, buf, got);
    assert_floats_near(got, zero, 7, 0.0);
    combine_rows_sum(&s, 0, 0, twice, 2, buf, got);
    for (int j = 0; j < 7; j++)
        assert_float_equal(got[j], 2 * A[5 * 7 + j], 1e-7);
    free(want);
    free(A);
}

/* Each row of m (n, n) sums to 1 within tol. */
static void assert_rows_sum_one(const float *m, int n, double tol)
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += m[i * n + j];
        assert_float_equal(s, 1.0, tol);
    }
}

static void test_combine_rollout_numpy(void **state)
{
    /* expect: the rollout after 3 and after 2 layers equals NumPy's; its rows sum
       to 1; every layer was released once per call */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    float *want3 = load("rollout_l3h2n7.npy", 49), *want2 = load("rollout_l3h2n7_after2.npy", 49);
    ArrCtx c = {A, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 3, 2, 7, 7);
    float got[49];
    assert_int_equal(combine_rollout(&s, 2, got), AV_OK);
    assert_floats_near(got, want3, 49, 2e-6);
    assert_rows_sum_one(got, 7, 1e-5);
    assert_int_equal(c.released[0], 1);
    assert_int_equal(c.released[2], 1);
    assert_int_equal(combine_rollout(&s, 1, got), AV_OK);
    assert_floats_near(got, want2, 49, 2e-6);
    assert_int_equal(c.released[2], 1);
    free(want2);
    free(want3);
    free(A);
}

static void test_combine_rollout_steps(void **state)
{
    /* expect: the rollout built a layer at a time (each R_l from R_{l-1}, as
       the interface does) is bit for bit combine_rollout's after every layer,
       and NumPy's after 2 and 3 layers */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    float *want3 = load("rollout_l3h2n7.npy", 49), *want2 = load("rollout_l3h2n7_after2.npy", 49);
    ArrCtx c = {A, 1, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 3, 2, 7, 7);
    float R[3][49], hat[49], whole[49];
    for (int l = 0; l < 3; l++) {
        assert_int_equal(combine_rollout_step(&s, l, l ? R[l - 1] : NULL, hat, R[l]), AV_OK);
        assert_int_equal(combine_rollout(&s, l, whole), AV_OK);
        assert_memory_equal(R[l], whole, sizeof whole);
        assert_rows_sum_one(R[l], 7, 1e-5);
    }
    assert_floats_near(R[1], want2, 49, 2e-6);
    assert_floats_near(R[2], want3, 49, 2e-6);
    assert_int_equal(combine_rollout_step(&s, 3, R[2], hat, whole), AV_ERR_CONFIG);
    free(want2);
    free(want3);
    free(A);
}

static void test_combine_rollout_one_layer(void **state)
{
    /* expect: the rollout after layer 1 alone is A_hat_1 = (0.5 mean_h A + 0.5 I)
       renormalised, computed here by hand */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    ArrCtx c = {A, 1, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 3, 2, 7, 7);
    float got[49], want[49];
    for (int i = 0; i < 7; i++) {
        double sum = 0, row[7];
        for (int j = 0; j < 7; j++) {
            row[j] = 0.5 * ((double)A[i * 7 + j] + A[49 + i * 7 + j]) / 2 + (i == j ? 0.5 : 0);
            sum += row[j];
        }
        for (int j = 0; j < 7; j++)
            want[i * 7 + j] = (float)(row[j] / sum);
    }
    assert_int_equal(combine_rollout(&s, 0, got), AV_OK);
    assert_floats_near(got, want, 49, 1e-6);
    free(A);
}

static void test_combine_rollout_row_matches(void **state)
{
    /* expect: every row of combine_rollout_row equals the matrix rollout's row */
    (void)state;
    float *A = load("attn_l3h2n7.npy", 3 * 2 * 49);
    ArrCtx c = {A, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 3, 2, 7, 7);
    float full[49], row[7];
    for (int last = 0; last < 3; last++) {
        assert_int_equal(combine_rollout(&s, last, full), AV_OK);
        for (int i = 0; i < 7; i++) {
            assert_int_equal(combine_rollout_row(&s, last, i, row), AV_OK);
            assert_floats_near(row, full + i * 7, 7, 1e-6);
        }
    }
    assert_int_equal(combine_rollout_row(&s, 2, 7, row), AV_ERR_CONFIG);
    free(A);
}

static void test_combine_rollout_causal(void **state)
{
    /* expect: a causal (float64) array's rollout equals NumPy's and is exactly 0
       above the diagonal */
    (void)state;
    float *C = load("attn_causal_f64.npy", 2 * 3 * 36), *want = load("rollout_causal_f64.npy", 36);
    ArrCtx c = {C, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 2, 3, 6, 6);
    float got[36];
    assert_int_equal(combine_rollout(&s, 1, got), AV_OK);
    assert_floats_near(got, want, 36, 2e-6);
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            assert_true(got[i * 6 + j] == 0.0f);
    assert_rows_sum_one(got, 6, 1e-5);
    free(want);
    free(C);
}

static void test_combine_rollout_identity(void **state)
{
    /* expect: layers that attend only to themselves roll out to the identity,
       exactly; a 64-row block boundary (n = 70) changes nothing */
    (void)state;
    int n = 70, L = 3;
    float *A = calloc((size_t)L * n * n, sizeof(float)), *got = malloc((size_t)n * n * 4);
    assert_non_null(A);
    assert_non_null(got);
    for (int l = 0; l < L; l++)
        for (int i = 0; i < n; i++)
            A[((size_t)l * n + i) * n + i] = 1.0f;
    ArrCtx c = {A, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, L, 1, n, n);
    assert_int_equal(combine_rollout(&s, L - 1, got), AV_OK);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            assert_true(got[i * n + j] == (i == j ? 1.0f : 0.0f));
    float row[70];
    assert_int_equal(combine_rollout_row(&s, L - 1, 65, row), AV_OK);
    assert_floats_near(row, got + 65 * n, (size_t)n, 0.0);
    free(got);
    free(A);
}

static void test_combine_rollout_uniform(void **state)
{
    /* expect: uniform attention (1/n everywhere) over two layers gives
       A_hat^2 with A_hat = 0.5/n + 0.5 I: diagonal 0.25 + 1/n - 0.25/n, else 0.75/n */
    (void)state;
    int n = 5;
    float A[2 * 5 * 5], got[25];
    for (int k = 0; k < 50; k++)
        A[k] = 0.2f;
    ArrCtx c = {A, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 2, 1, n, n);
    assert_int_equal(combine_rollout(&s, 1, got), AV_OK);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            assert_float_equal(got[i * n + j], i == j ? 0.25 + 0.2 - 0.05 : 0.15, 1e-6);
}

static void test_combine_rollout_refuses(void **state)
{
    /* expect: a cross-attention source has no rollout; a layer out of range is refused */
    (void)state;
    float A[2 * 3 * 5] = {0}, out[25], row[5];
    ArrCtx c = {A, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 1, 2, 3, 5);
    assert_int_equal(combine_rollout(&s, 0, out), AV_ERR_NPY_SHAPE);
    assert_int_equal(combine_rollout_row(&s, 0, 0, row), AV_ERR_NPY_SHAPE);
    AttnSource sq = arr_source(&c, 1, 1, 5, 5);
    assert_int_equal(combine_rollout(&sq, 1, out), AV_ERR_CONFIG);
    assert_int_equal(combine_rollout(&sq, -1, out), AV_ERR_CONFIG);
    assert_true(combine_rollout_bytes(2048) == 2.0 * 2048 * 2048 * 4);
}

static void test_combine_value_norms_numpy(void **state)
{
    /* expect: ||f_h(j)|| and the norms ||alpha_hij f_h(j)|| equal NumPy's vector by
       vector computation (H 4, n 6, d_model 8), through NormsSource */
    (void)state;
    int H = 4, n = 6, d = 8;
    float *V = load("norms_V.npy", (size_t)n * d), *Wo = load("norms_Wo.npy", (size_t)d * d);
    float *alpha = load("norms_alpha.npy", (size_t)H * n * n);
    float *want = load("norms_expected.npy", (size_t)H * n * n);
    float *want_f = load("norms_fnorm.npy", (size_t)H * n);
    float fnorm[4 * 6], got[4 * 6 * 6];
    assert_int_equal(combine_value_norms(n, d, H, V, Wo, fnorm), AV_OK);
    assert_floats_near(fnorm, want_f, (size_t)H * n, 1e-5);
    ArrCtx c = {alpha, 0, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 1, H, n, n);
    NormsSource ns;
    combine_norms_init(&ns, &s, fnorm);
    assert_int_equal(ns.src.H, H);
    for (int h = 0; h < H; h++)
        combine_rows(&ns.src, 0, h, 0, n, got + h * n * n);
    assert_floats_near(got, want, (size_t)H * n * n, 1e-5);
    /* masked (causal) weights stay exactly 0 as norms */
    assert_true(got[0 * 36 + 0 * 6 + 1] == 0.0f);
    assert_int_equal(combine_value_norms(n, d, 3, V, Wo, fnorm), AV_ERR_CONFIG);
    free(want_f);
    free(want);
    free(alpha);
    free(Wo);
    free(V);
}

static void test_combine_norms_compose(void **state)
{
    /* expect: norms of heads combined by sum = the sum over heads of each head's norms */
    (void)state;
    int H = 4, n = 6, d = 8;
    float *V = load("norms_V.npy", (size_t)n * d), *Wo = load("norms_Wo.npy", (size_t)d * d);
    float *alpha = load("norms_alpha.npy", (size_t)H * n * n);
    float fnorm[24], got[6], want[6] = {0}, buf[6];
    assert_int_equal(combine_value_norms(n, d, H, V, Wo, fnorm), AV_OK);
    ArrCtx c = {alpha, 1, {0}, 0, 0, 0};
    AttnSource s = arr_source(&c, 1, H, n, n);
    NormsSource ns;
    combine_norms_init(&ns, &s, fnorm);
    CombinedHeads ch;
    assert_int_equal(combine_heads_init(&ch, &ns.src, COMBINE_SUM), AV_OK);
    combine_rows(&ch.src, 0, 0, 4, 5, got);
    for (int h = 0; h < H; h++)
        for (int j = 0; j < n; j++)
            want[j] += alpha[(h * n + 4) * n + j] * fnorm[h * n + j];
    assert_floats_near(got, want, 6, 1e-6);
    combine_heads_row(&ch.src, 0, COMBINE_MAX, 4, buf, got); /* one head: itself */
    assert_floats_near(got, want, 6, 1e-6);
    combine_heads_free(&ch);
    free(alpha);
    free(Wo);
    free(V);
}

static void test_sink_what_if_numpy(void **state)
{
    /* expect: the trained chars model's weights (4 layers, 4 heads, 23
     * causal tokens) with the first key set aside equal the float64 NumPy
     * reference (tests/data/import/make_sink_ref.py) within 1e-6, by
     * pointer and by copy; every row sums to 1, key 0 of rows 1.. is 0, a
     * masked weight stays exactly 0, the first row (key 0 alone) is as it
     * was; in place gives the same; release reaches the inner source */
    (void)state;
    enum { SL = 4, SH = 4, SN = 23 };
    const size_t count = (size_t)SL * SH * SN * SN;
    float *A = load("sink_attn_chars.npy", count), *want = load("sink_chars_f64.npy", count);
    for (int copy = 0; copy < 2; copy++) {
        ArrCtx c = {A, copy, {0}, 0, 0, 0};
        AttnSource s = arr_source(&c, SL, SH, SN, SN);
        SinkSource sk;
        sink_source_init(&sk, &s);
        assert_int_equal(sk.src.n_k, SN);
        for (int l = 0; l < SL; l++)
            for (int h = 0; h < SH; h++)
                for (int i = 0; i < SN; i++) {
                    float buf[SN];
                    const size_t at = (((size_t)l * SH + h) * SN + i) * SN;
                    const float *row = combine_row(&sk.src, l, h, i, buf);
                    assert_floats_near(row, want + at, SN, 1e-6);
                    double sum = 0;
                    for (int j = 0; j < SN; j++)
                        sum += row[j];
                    assert_float_equal(sum, 1.0, 1e-5);
                    for (int j = i + 1; j < SN; j++)
                        assert_true(row[j] == 0.0f);
                    if (i == 0)
                        assert_memory_equal(row, A + at, sizeof buf);
                    else
                        assert_true(row[0] == 0.0f);
                    memcpy(buf, A + at, sizeof buf); /* in place */
                    assert_int_equal(sink_aside_row(buf, SN, buf), i > 0);
                    assert_memory_equal(buf, row, sizeof buf);
                }
        sk.src.release(sk.src.ctx, 2);
        assert_int_equal(c.released[2], 1);
    }
    free(A), free(want);
}

static void test_sink_row_edges(void **state)
{
    /* expect: a row with every weight on key 0 is left as it is; one key is
     * copied; a row of two keys puts all its weight on the second */
    (void)state;
    const float all0[3] = {1, 0, 0}, half[2] = {0.5f, 0.5f};
    float out[3];
    assert_false(sink_aside_row(all0, 3, out));
    assert_memory_equal(out, all0, sizeof all0);
    assert_false(sink_aside_row(half, 1, out));
    assert_float_equal(out[0], 0.5f, 0);
    assert_true(sink_aside_row(half, 2, out));
    assert_float_equal(out[0], 0.0f, 0);
    assert_float_equal(out[1], 1.0f, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combine_heads_numpy),
        cmocka_unit_test(test_combine_heads_source_composes),
        cmocka_unit_test(test_combine_rows_sum_numpy),
        cmocka_unit_test(test_combine_rollout_numpy),
        cmocka_unit_test(test_combine_rollout_one_layer),
        cmocka_unit_test(test_combine_rollout_row_matches),
        cmocka_unit_test(test_combine_rollout_steps),
        cmocka_unit_test(test_combine_rollout_causal),
        cmocka_unit_test(test_combine_rollout_identity),
        cmocka_unit_test(test_combine_rollout_uniform),
        cmocka_unit_test(test_combine_rollout_refuses),
        cmocka_unit_test(test_combine_value_norms_numpy),
        cmocka_unit_test(test_combine_norms_compose),
        cmocka_unit_test(test_sink_what_if_numpy),
        cmocka_unit_test(test_sink_row_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
