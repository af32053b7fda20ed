/* test_gpt2_kern.c - GPT-2's linear kernel (src/core/fast/gpt2/gpt2_kern.h, private
 * to core) element by element against the chain it promises: every element
 * of Y = X W + b is one fused multiply-add chain over k in order from zero
 * (a multiply-then-add chain where the processor has no AVX2 and FMA), then
 * the bias. Bit for bit, for every row count the kernels split differently
 * (one register tile of up to 12 rows, tiles of 4 over a copied piece of W,
 * the packed kernel past 128 rows), widths with 24-, 16- and 8-column tiles
 * and a scalar tail, and rows of W a multiple of 4 KiB apart. That each
 * row's sums do not depend on the rows beside it is what lets the KV cache
 * give the bits of a whole run. GELU against float64, and its bits the same
 * in every column.
 */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/core/fast/gpt2/gpt2_kern.h"
#include "core/gpt2.h"
#include "core/mat.h"
#include "core/rng.h"

/* The chain the kernel promises for element (i, j). */
static float reference(int K, const float *x, const float *W, int ldw, int j, float b)
{
    const bool fused = mat_packed_available();
    float c = 0.0f;
    for (int k = 0; k < K; k++) {
        if (fused) {
            c = fmaf(x[k], W[(size_t)k * ldw + j], c);
        } else {
            const float t = x[k] * W[(size_t)k * ldw + j];
            c = c + t;
        }
    }
    return c + b;
}

/* Y from gpt2k_linear equals the reference bit for bit, and the columns
 * between its rows are not written; returns the count of elements that
 * differ (0). */
static int check_linear(Rng *r, int M, int N, int K, int ldw)
{
    const int ldx = K + 3, ldy = N + 5;
    float *X = malloc(sizeof *X * (size_t)M * ldx), *W = malloc(sizeof *W * (size_t)K * ldw);
    float *b = malloc(sizeof *b * (size_t)N), *Y = malloc(sizeof *Y * (size_t)M * ldy);
    float *work = malloc(sizeof *work * gpt2k_linear_work(K));
    assert_true(X && W && b && Y && work);
    for (size_t q = 0; q < (size_t)M * ldx; q++)
        X[q] = rng_symmetric(r, 1.0f);
    for (size_t q = 0; q < (size_t)K * ldw; q++)
        W[q] = rng_symmetric(r, 0.3f);
    for (int j = 0; j < N; j++)
        b[j] = rng_symmetric(r, 0.1f);
    for (size_t q = 0; q < (size_t)M * ldy; q++)
        Y[q] = NAN;
    gpt2k_linear(M, N, K, X, ldx, W, ldw, b, Y, ldy, work);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            const float want = reference(K, X + (size_t)i * ldx, W, ldw, j, b[j]);
            const float got = Y[(size_t)i * ldy + j];
            if (memcmp(&want, &got, sizeof got) != 0 && bad++ < 3)
                print_message("M %d N %d K %d: (%d, %d) is %.9g, the chain gives %.9g\n", M, N, K,
                              i, j, (double)got, (double)want);
        }
    for (int i = 0; i < M; i++)
        for (int j = N; j < ldy; j++)
            if (!isnan(Y[(size_t)i * ldy + j]) && bad++ < 3)
                print_message("M %d N %d K %d: (%d, %d) past the row written\n", M, N, K, i, j);
    free(X), free(W), free(b), free(Y), free(work);
    return bad;
}

static void test_gpt2k_linear_rows(void **state)
{
    /* expect: every row count from 1 to 40 and the larger ones each kernel
     * path takes, over widths that need every tile (216 = 9 x 24; 200 =
     * 8 x 24 + 8; 61: 2 x 24, 8, then 5 scalar columns) */
    (void)state;
    static const int rows[] = {1,  2,  3,  4,  5,  6,  7,   8,   9,   10,  11, 12,
                               13, 14, 15, 16, 17, 18, 19,  20,  23,  24,  25, 31,
                               32, 33, 40, 64, 65, 97, 100, 127, 128, 129, 150};
    static const int widths[] = {216, 200, 61};
    Rng r;
    rng_seed(&r, 7);
    for (size_t a = 0; a < sizeof rows / sizeof rows[0]; a++)
        for (size_t c = 0; c < sizeof widths / sizeof widths[0]; c++)
            assert_int_equal(check_linear(&r, rows[a], widths[c], 70, widths[c] + 11), 0);
}

static void test_gpt2k_linear_shapes(void **state)
{
    /* expect: GPT-2's own shapes (K 768 into 2304 and 3072 columns, and a
     * thread's half of them), rows of W 4 KiB apart, and K not a multiple of
     * the kernel's blocks of terms; one row (a typed key) over whole rows
     * of W and over a thread's share of them, with columns past the
     * vectors' width */
    (void)state;
    Rng r;
    rng_seed(&r, 8);
    assert_int_equal(check_linear(&r, 1, 2304, 768, 2304), 0);
    assert_int_equal(check_linear(&r, 1, 1152, 768, 2304), 0);
    assert_int_equal(check_linear(&r, 1, 61, 97, 61), 0);
    assert_int_equal(check_linear(&r, 1, 45, 3072, 768), 0);
    assert_int_equal(check_linear(&r, 8, 2304, 768, 2304), 0);
    assert_int_equal(check_linear(&r, 32, 1536, 768, 3072), 0);
    assert_int_equal(check_linear(&r, 3, 1024, 97, 1024), 0);
    assert_int_equal(check_linear(&r, 20, 384, 131, 1024), 0);
    assert_int_equal(check_linear(&r, 128, 96, 300, 4096), 0);
}

/* The last row of one head over n keys of d_k features, made once among
 * all n rows (the packed kernel) and once alone (a typed key's path): the
 * count of its weights and outputs that differ in any bit (0). */
static int check_head_row(Rng *r, int n, int d_k)
{
    const int ld = 3 * d_k + 5; /* Q | K | V of a row side by side, as in the cache */
    float *qkv = malloc(sizeof *qkv * (size_t)n * ld);
    float *P = malloc(sizeof *P * (size_t)n * n), *O = malloc(sizeof *O * (size_t)n * d_k);
    float *P1 = malloc(sizeof *P1 * (size_t)n), *O1 = malloc(sizeof *O1 * (size_t)d_k);
    float *work = malloc(sizeof *work * (gpt2k_head_work(n, n, d_k) + 1));
    assert_true(qkv && P && O && P1 && O1 && work);
    for (size_t q = 0; q < (size_t)n * ld; q++)
        qkv[q] = rng_symmetric(r, 2.0f);
    const float scale = 1.0f / sqrtf((float)d_k);
    const float *Q = qkv, *K = qkv + d_k, *V = qkv + 2 * d_k;
    gpt2k_head(0, n, d_k, scale, Q, ld, K, V, ld, P, O, d_k, work);
    gpt2k_head(n - 1, n, d_k, scale, Q + (size_t)(n - 1) * ld, ld, K, V, ld, P1, O1, d_k, work);
    int bad = 0;
    for (int j = 0; j < n; j++)
        bad += memcmp(&P1[j], &P[(size_t)(n - 1) * n + j], sizeof(float)) != 0;
    for (int c = 0; c < d_k; c++)
        bad += memcmp(&O1[c], &O[(size_t)(n - 1) * d_k + c], sizeof(float)) != 0;
    if (bad)
        print_message("n %d d_k %d: %d numbers of the last row differ\n", n, d_k, bad);
    free(qkv), free(P), free(O), free(P1), free(O1), free(work);
    return bad;
}

static void test_gpt2k_head_one_row(void **state)
{
    /* expect: the last row computed alone (one new query over the keys
     * before it, as a run from the cache makes its first row) has the bits
     * of the same row in a whole run: weights and outputs, for GPT-2's 64
     * features, fewer than a vector, a vector and some, and key counts
     * around the 8 keys one step takes */
    (void)state;
    static const int keys[] = {1, 2, 7, 8, 9, 17, 64, 131};
    static const int dims[] = {64, 5, 12, 66, 40};
    Rng r;
    rng_seed(&r, 9);
    for (size_t a = 0; a < sizeof keys / sizeof keys[0]; a++)
        for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++)
            assert_int_equal(check_head_row(&r, keys[a], dims[c]), 0);
}

/* A typed key's row from the state's blocks of cached keys (one layer and
 * head: a block's tile of K transposed then, `block` floats on, its next),
 * against gpt2k_head on the same numbers laid out as qkv holds them: the
 * count of weights and outputs that differ in any bit (0), or -1 where the
 * processor has no such path. */
static int check_head_blocks(Rng *r, int n, int d_k)
{
    const int B = GPT2_KV_BLOCK, ld = 3 * d_k + 3, blocks = (n + B - 1) / B;
    const size_t block = (size_t)2 * d_k * B; /* room for another head's tile between */
    float *qkv = malloc(sizeof *qkv * (size_t)n * ld);
    float *Kt = calloc((size_t)blocks * block, sizeof *Kt);
    float *Vb = calloc((size_t)blocks * block, sizeof *Vb);
    float *P = malloc(sizeof *P * (size_t)n), *O = malloc(sizeof *O * (size_t)d_k);
    float *P1 = malloc(sizeof *P1 * (size_t)n), *O1 = malloc(sizeof *O1 * (size_t)d_k);
    float *work = malloc(sizeof *work * (gpt2k_head_work(1, n, d_k) + 1));
    assert_true(qkv && Kt && Vb && P && O && P1 && O1 && work);
    for (size_t q = 0; q < (size_t)n * ld; q++)
        qkv[q] = rng_symmetric(r, 2.0f);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < d_k; c++) {
            const size_t at = (size_t)(i / B) * block;
            Kt[at + (size_t)c * B + i % B] = qkv[(size_t)i * ld + d_k + c];
            Vb[at + (size_t)(i % B) * d_k + c] = qkv[(size_t)i * ld + 2 * d_k + c];
        }
    const float scale = 1.0f / sqrtf((float)d_k), *q = qkv + (size_t)(n - 1) * ld;
    int bad = -1;
    if (gpt2k_head_blocks(n, d_k, scale, q, Kt, Vb, block, P, O)) {
        gpt2k_head(n - 1, n, d_k, scale, q, ld, qkv + d_k, qkv + 2 * d_k, ld, P1, O1, d_k, work);
        bad = 0;
        for (int j = 0; j < n; j++)
            bad += memcmp(&P[j], &P1[j], sizeof(float)) != 0;
        for (int c = 0; c < d_k; c++)
            bad += memcmp(&O[c], &O1[c], sizeof(float)) != 0;
        if (bad)
            print_message("n %d d_k %d: %d numbers differ\n", n, d_k, bad);
    }
    free(qkv), free(Kt), free(Vb), free(P), free(O), free(P1), free(O1), free(work);
    return bad;
}

static void test_gpt2k_head_blocks(void **state)
{
    /* expect: a typed key's row read from the blocks of cached keys has the
     * bits of the row read from qkv: for GPT-2's 64 features, fewer than a
     * vector, a vector and some, and key counts inside one block, at its
     * edge and over several */
    (void)state;
    static const int keys[] = {1, 7, 63, 64, 65, 130, 512};
    static const int dims[] = {64, 5, 12, 40, 80};
    Rng r;
    rng_seed(&r, 12);
    for (size_t a = 0; a < sizeof keys / sizeof keys[0]; a++)
        for (size_t c = 0; c < sizeof dims / sizeof dims[0]; c++)
            assert_int_equal(check_head_blocks(&r, keys[a], dims[c]),
                             mat_packed_available() ? 0 : -1);
}

static void test_gpt2k_dots_rows(void **state)
{
    /* expect: the logit lens's dots of several rows at once have the bits of
     * one row's (gpt2k_dots), for 1 to 13 rows (two passes and some), a
     * length with a tail past the last 16 and one without; nothing past
     * a row of out is written */
    (void)state;
    enum { N = 37, LD = 90, LDO = N + 3 };
    static const int lengths[] = {64, 77};
    Rng r;
    rng_seed(&r, 21);
    float *A = malloc(sizeof *A * N * LD), *X = malloc(sizeof *X * 13 * LD);
    float *out = malloc(sizeof *out * 13 * LDO), *one = malloc(sizeof *one * N);
    assert_true(A && X && out && one);
    for (int k = 0; k < N * LD; k++)
        A[k] = rng_symmetric(&r, 1.0f);
    for (int k = 0; k < 13 * LD; k++)
        X[k] = rng_symmetric(&r, 1.0f);
    for (size_t c = 0; c < sizeof lengths / sizeof *lengths; c++)
        for (int R = 1; R <= 13; R++) {
            for (int k = 0; k < 13 * LDO; k++)
                out[k] = -7.0f;
            gpt2k_dots_rows(R, N, lengths[c], A, LD, X, LD, out, LDO);
            for (int q = 0; q < R; q++) {
                gpt2k_dots(N, lengths[c], A, LD, X + (size_t)q * LD, one);
                assert_memory_equal(out + (size_t)q * LDO, one, sizeof *one * N);
                for (int v = N; v < LDO; v++)
                    assert_true(out[(size_t)q * LDO + v] == -7.0f);
            }
        }
    free(A), free(X), free(out), free(one);
}

static void test_gpt2k_gelu(void **state)
{
    /* expect: GELU's tanh form within 2e-7 + 2e-6 |gelu| of float64 over
     * [-12, 12] and exactly x, 0 or -0 far out; and the same bits for a value
     * in a column the AVX2 loop takes and in the scalar tail (13 columns:
     * 8 then 5) */
    (void)state;
    enum { W = 13, COUNT = 24001 };
    static float row[2][W];
    double worst = 0;
    for (int q = 0; q < COUNT; q++) {
        const float x = -12.0f + 24.0f * (float)q / (COUNT - 1);
        for (int c = 0; c < W; c++)
            row[0][c] = row[1][c] = x;
        gpt2k_gelu(2, W, &row[0][0], W);
        const double u = 0.7978845608028654 * ((double)x + 0.044715 * (double)x * x * x);
        const double want = 0.5 * x * (1.0 + tanh(u));
        const double err = fabs(row[0][0] - want) - 2e-6 * fabs(want);
        worst = err > worst ? err : worst;
        for (int c = 1; c < W; c++)
            assert_memory_equal(&row[0][c], &row[0][0], sizeof(float));
        assert_memory_equal(&row[1][W - 1], &row[0][0], sizeof(float));
    }
    assert_true(worst <= 2e-7);
    float far[4] = {1e30f, -1e30f, 50.0f, -50.0f};
    gpt2k_gelu(1, 4, far, 4);
    assert_true(far[0] == 1e30f && far[1] == 0.0f && far[2] == 50.0f && far[3] == 0.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt2k_linear_rows),  cmocka_unit_test(test_gpt2k_linear_shapes),
        cmocka_unit_test(test_gpt2k_head_one_row), cmocka_unit_test(test_gpt2k_head_blocks),
        cmocka_unit_test(test_gpt2k_dots_rows),    cmocka_unit_test(test_gpt2k_gelu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
